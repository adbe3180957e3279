"""QA round 6 (a new user's break test) on the CLI: ``digest preview --channel C --minutes N``
previews that channel's next digest at N minutes a week, and ``next`` counts and names
references as Slack does (click's runner, real catalog, real database)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.paths import track_state
from bot.domain.schedule import WeeklySchedule
from bot.slack.mrkdwn import plain
from bot.slack.views.parts import read_count
from bot.store import Store
from tests.digest.conftest import TEAM
from tests.digest.test_cli import _env


def _steps(args: list[str], db_url: str) -> tuple[int, list[str]]:
    out = CliRunner().invoke(main, ["digest", "preview", "--track", "pd", *args, "--json"], env=_env(db_url))
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    return data.get("minutes_per_week"), [s["post_id"] for s in data.get("steps", [])]


def test_minutes_override_a_subscribed_channels_own_budget(sqlite_url) -> None:
    store = Store.from_url(sqlite_url)
    sub = store.subscribe(TEAM, "C0CONSOLE", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
    store.set_channel_budget(sub.id, 45)
    store.close()
    own = _steps(["--channel", "C0CONSOLE"], sqlite_url)
    at_30 = _steps(["--channel", "C0CONSOLE", "--minutes", "30"], sqlite_url)
    new_at_30 = _steps(["--minutes", "30"], sqlite_url)
    assert own[0] == 45 and at_30[0] == 30
    assert at_30[1] == new_at_30[1]  # the same cursor (0), so the same steps as a new channel at 30 min
    assert len(at_30[1]) < len(own[1])
    stored = Store.from_url(sqlite_url)
    try:  # a preview changes nothing
        assert stored.subscriptions(TEAM)[0].minutes_per_week == 45
    finally:
        stored.close()


def test_steps_override_a_subscribed_channels_budget(sqlite_url) -> None:
    store = Store.from_url(sqlite_url)
    sub = store.subscribe(TEAM, "C0CONSOLE", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
    store.set_channel_budget(sub.id, 120)
    store.close()
    out = CliRunner().invoke(
        main, ["digest", "preview", "--track", "pd", "--channel", "C0CONSOLE", "--steps", "1"], env=_env(sqlite_url)
    )
    assert out.exit_code == 0, out.output
    assert "steps this week: " in out.stderr and "," not in out.stderr.split("steps this week: ")[1].split(";")[0]


def test_next_counts_as_slack_does(catalog) -> None:
    order = catalog.order("spec")
    read = [order[0], order[-1]]  # an essential step and a further one
    args = ["next", "spec"] + [a for p in read for a in ("--read", p)]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    slack = plain(read_count(track_state(catalog, "spec", read), "en"))
    assert out.output.splitlines()[0].endswith(": " + slack)
    assert "essential" in slack  # the essential path is not done: both counts, as Slack gives them
    data = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    state = track_state(catalog, "spec", read)
    assert data["progress"]["essential_read"] == state.essentials_read
    assert data["progress"]["essential"] == len(state.path.essentials)


def test_next_names_an_unlinked_reference_by_the_post_that_covers_it(catalog) -> None:
    order = catalog.order("pd")
    stop = order.index("hybrid-ssm-disagg")
    args = ["next", "pd"] + [a for p in order[:stop] for a in ("--read", p)]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    line = next(x for x in out.output.splitlines() if x.strip().startswith("Background:"))
    ref = catalog.step("pd", "hybrid-ssm-disagg").external_prerequisites[0]
    assert "(v0-disagg-prefill)" in ref.title and "v0-disagg-prefill" not in line
    assert catalog.post("taking-vllm-apart").title in line
