"""Weekly digests: composition (pure), delivery (ledger, pacing, Slack errors), the clock.

* :mod:`bot.slack.views.digest` — channel digests that walk a track's path like a reading club, and
  personal DM digests (pure: catalog + state in, a Block Kit ``Reply`` out).
* :mod:`bot.digest.deliver` — one send: ledger claim, pacing under Slack's limits, errors.
* :mod:`bot.digest.clock` — the APScheduler clock (``vllm-path scheduler``): one cron job per
  subscription and DM digest, reconcile with the database, catch-up after downtime or a crash.
* :mod:`bot.slack.commands.digest_actions` — the digest's Snooze a week and Stop buttons.
* :mod:`bot.cli.digest` — ``vllm-path scheduler`` and ``vllm-path digest preview|run-now``.

Nothing is imported here, so that ``import bot.cli.digest`` stays cheap for the CLI.
"""
