"""Weekly digests: deciding when and sending (the clock, delivery, the queue and its workers, pacing).

Nothing here renders: the runtime hands the digest a :class:`bot.digest.render.DigestRenderer`.
:mod:`bot.digest.clock` is ``vllm-path scheduler`` (cron jobs in :mod:`bot.digest.jobs`, catch-up
in :mod:`bot.digest.due`); :mod:`bot.digest.deliver` one send (pacing: :mod:`bot.digest.pacing`,
shared through Redis by :mod:`bot.digest.ratelimit`); :mod:`bot.digest.queue` and
:mod:`bot.digest.worker` sends on a Dramatiq queue.

Nothing is imported here, so that ``import bot.cli.digest`` stays cheap for the CLI.
"""
