"""Weekly digests: deciding when and sending (the clock, delivery, the queue and its workers, pacing).

Nothing here renders: the digest is handed a :class:`bot.digest.render.DigestRenderer` by the
runtime (:attr:`bot.runtime.Runtime.renderer`; Slack's is :mod:`bot.slack.views.digest_render`).

* :mod:`bot.digest.clock` — the APScheduler clock (``vllm-path scheduler``): one cron job per
  subscription and DM digest (:mod:`bot.digest.jobs`), reconcile with the database, catch-up
  after downtime or a crash (:mod:`bot.digest.due`).
* :mod:`bot.digest.deliver` — one send: ledger claim, pacing (:mod:`bot.digest.pacing`, shared
  through Redis by :mod:`bot.digest.ratelimit`), the Web API clients (:mod:`bot.digest.clients`),
  Slack's errors.
* :mod:`bot.digest.queue` and :mod:`bot.digest.worker` — sends on a Dramatiq queue, any number
  of workers; :mod:`bot.digest.reminders` and :mod:`bot.digest.watch` — the clock's own sends.
* :mod:`bot.slack.views.digest` renders digests; :mod:`bot.slack.commands.digest_actions`
  answers their Snooze a week and Stop buttons; :mod:`bot.cli.digest` is
  ``vllm-path scheduler`` and ``vllm-path digest preview|run-now``.

Nothing is imported here, so that ``import bot.cli.digest`` stays cheap for the CLI.
"""
