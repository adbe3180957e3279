"""``vllm-path`` with the wall clock started at a chosen instant (for subprocess tests).

    python -m tests.digest.fake_clock_entry 2026-12-07T08:59:55+00:00 scheduler --reconcile-every 1

``time_machine`` moves ``datetime.now``/``time.time`` to the instant and lets it tick at real
speed from there (``time.monotonic`` and sleeps are untouched), so the real scheduler process
meets its cron times within seconds. Everything after the instant is ``vllm-path``'s arguments.
"""

from __future__ import annotations

import sys
from datetime import datetime

import time_machine


def main(argv: list[str]) -> None:
    start = datetime.fromisoformat(argv[0])
    with time_machine.travel(start, tick=True):
        from bot.cli import main as cli

        cli(argv[1:], prog_name="vllm-path")


if __name__ == "__main__":
    main(sys.argv[1:])
