"""Weekly digests: deciding when and sending (the clock, delivery, the queue and its workers, pacing).

Nothing here renders: the runtime hands the digest a :class:`bot.digest.render.DigestRenderer`
(:attr:`bot.runtime.Runtime.renderer`; Slack's is :mod:`bot.slack.views.digest_render`).
:mod:`bot.digest.clock` is the APScheduler clock (``vllm-path scheduler``; its cron jobs in
:mod:`bot.digest.jobs`, its catch-up in :mod:`bot.digest.due`); :mod:`bot.digest.deliver` one send
(ledger claim, pacing in :mod:`bot.digest.pacing`, shared through Redis by
:mod:`bot.digest.ratelimit`, the clients of :mod:`bot.digest.clients`, Slack's errors);
:mod:`bot.digest.queue` and :mod:`bot.digest.worker` sends on a Dramatiq queue;
:mod:`bot.digest.reminders` and :mod:`bot.digest.watch` the clock's own sends.
:mod:`bot.slack.commands.digest_actions` answers the digests' buttons; :mod:`bot.cli.digest` is
``vllm-path scheduler`` and ``vllm-path digest preview|run-now``.

Nothing is imported here, so that ``import bot.cli.digest`` stays cheap for the CLI.
"""
