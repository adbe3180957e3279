"""App Home takes "since when" (its catch-up, issue 44) from the habit facts it reads for the streak
(:func:`bot.slack.commands.plan.reading_since`) instead of a query of its own (issue 43: App Home's CPU):
the same as :meth:`bot.store.Store.reading_since`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.slack.commands.plan import reading_since
from bot.store import Store


def test_app_homes_reading_since_from_the_habit_facts_is_the_stores(tmp_path: Path) -> None:
    clock = [datetime(2026, 12, 1, 9, tzinfo=UTC)]
    with Store.from_url(f"sqlite:///{tmp_path / 'since.db'}", clock=lambda: clock[0]) as s:

        def both() -> tuple[object, object]:
            return reading_since(s.habit_facts("T1", "U1")), s.reading_since("T1", "U1")

        assert both() == (None, None)
        s.follow("T1", "U1", "pd")
        clock[0] += timedelta(days=1)
        s.follow("T1", "U1", "spec")
        first, want = both()
        assert first == want == datetime(2026, 12, 1, 9, tzinfo=UTC)
        for day in (3, 2):  # the latest read, not the last one marked
            clock[0] = datetime(2026, 12, day, 9, tzinfo=UTC)
            s.mark_read("T1", "U1", [f"p{day}"])
        last, want = both()
        assert last == want == datetime(2026, 12, 3, 9, tzinfo=UTC)
