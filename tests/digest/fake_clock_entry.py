"""``vllm-path`` with the wall clock set to a chosen instant (for subprocess tests).

    python -m tests.digest.fake_clock_entry 2026-12-07T08:59:55+00:00 scheduler --reconcile-every 1
    python -m tests.digest.fake_clock_entry 2026-12-07T08:59:55+00:00@1796630000.25 scheduler …

``time_machine`` moves ``datetime.now``/``time.time`` and lets it tick at real speed from there
(``time.monotonic`` and sleeps are untouched), so the real scheduler process meets its cron times
within seconds. With ``@anchor`` (real epoch seconds) the instant is what the wall clock read *at
the anchor*: a process that starts late (a loaded machine) still agrees with its siblings on
the time, instead of starting its day late. Everything after the instant is ``vllm-path``'s
arguments.
"""

from __future__ import annotations

import sys
import time
from datetime import datetime, timedelta

import time_machine


def instant(arg: str, now: float | None = None) -> datetime:
    """The fake wall-clock time to start at: ``ISO`` as is, ``ISO@anchor`` moved on by the real
    seconds since ``anchor`` (epoch seconds; ``now`` default ``time.time()``)."""
    iso, _, anchor = arg.partition("@")
    start = datetime.fromisoformat(iso)
    if anchor:
        start += timedelta(seconds=(time.time() if now is None else now) - float(anchor))
    return start


def main(argv: list[str]) -> None:
    with time_machine.travel(instant(argv[0]), tick=True):
        from bot.cli.main import main as cli

        cli(argv[1:], prog_name="vllm-path")


if __name__ == "__main__":
    main(sys.argv[1:])
