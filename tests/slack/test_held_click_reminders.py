"""A held *Mark read* click names the reminder its hold cancelled without reading the reminders
again (issue 43, ``benchmarks/clicks.py``: two reads were 0.73 ms of a click's 1.64 ms): its hold
counted what it cancelled (:meth:`bot.store.held_batch.HeldTicket.cancelled`); with none, the
answer says none and no reminder is read; with one, it is named as before."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import event

from tests.slack.test_click_written_with_hold import _click, _clicking
from tests.waits import PATIENCE_S


def test_a_held_click_names_the_reminder_its_hold_cancelled_and_reads_none_without_one(runtime) -> None:
    sqlite = runtime.settings.database_url.startswith("sqlite")
    with _clicking(runtime) as (app, standin, executor):
        team, store = standin.team_id, runtime.store
        steps = runtime.holder.catalog.track("pd").steps
        store.follow(team, "U0R", "pd")
        store.add_reminder(team, "U0R", steps[1].post, store.now() + timedelta(days=2), "UTC")
        reads: list[str] = []
        event.listen(
            store.engine,
            "before_cursor_execute",
            lambda _c, _cur, sql, *_: reads.append(sql) if sql.lstrip().upper().startswith("SELECT") else None,
        )
        said = []
        for post in (steps[0].post, steps[1].post):  # no reminder, then the reminded one
            url = standin.response_url()
            reads.clear()
            assert app.dispatch(_click(team, "U0R", post, url)).status == 200
            executor.run_all()
            said.append(str(standin.wait_for_response(url, timeout=PATIENCE_S).body))
            if post == steps[0].post and sqlite:
                assert not [sql for sql in reads if "reminders" in sql], reads
        assert "reminder" not in said[0].casefold()
        assert "is cancelled" in said[1], said[1]
        assert store.reminders(team, "U0R") == []
