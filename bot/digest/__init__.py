"""Weekly digests: composition (pure), delivery (ledger, pacing, Slack errors), the clock.

* :mod:`bot.digest.compose` — channel digests that walk a track's path like a reading club, and
  personal DM digests (pure: catalog + state in, a Block Kit ``Reply`` out).
* :mod:`bot.digest.deliver` — one send: ledger claim, pacing under Slack's limits, errors.
* :mod:`bot.digest.schedule` — the APScheduler clock (``vllm-path scheduler``): one cron job per
  subscription and DM digest, reconcile with the database, catch-up after downtime or a crash.
* :mod:`bot.digest.actions` — the digest's Snooze a week and Stop buttons.
* :mod:`bot.digest.cli` — ``vllm-path scheduler`` and ``vllm-path digest preview|run-now``.

Nothing is imported here, so that ``import bot.digest.cli`` stays cheap for the CLI.
"""
