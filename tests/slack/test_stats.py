"""Reading insights for admins: numbers on a seeded workspace (real store, SQLite and PostgreSQL),
the privacy threshold, the refusal for non-admins, Home for admins, and the terminal command."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.insights import compute, sparkline
from bot.domain.schedule import WeeklySchedule
from bot.runtime import Runtime
from bot.slack.commands.stats import team_insights
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.store import Store

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TEAM, SMALL = "TSEED", "TSMALL"


def _seed(runtime: Runtime) -> list[str]:
    """Team TSEED: U1..U5 read the first two spec steps this week, U6 the first one 40 days ago,
    U7 one quant step last week; a paused and an active channel digest with ledger rows. Team
    TSMALL: two readers of the first spec step."""
    order = runtime.holder.catalog.order("spec")
    clock = {"now": NOW}
    store = Store(runtime.store.engine, clock=lambda: clock["now"])
    for u in ("U1", "U2", "U3", "U4", "U5"):
        store.mark_read(TEAM, u, list(order[:2]))
    clock["now"] = NOW - timedelta(days=40)
    store.mark_read(TEAM, "U6", [order[0]])
    clock["now"] = NOW - timedelta(days=7)
    store.mark_read(TEAM, "U7", [runtime.holder.catalog.order("quant")[0]])
    store.mark_read(SMALL, "U1", [order[0]])
    store.mark_read(SMALL, "U2", [order[0]])
    clock["now"] = NOW - timedelta(days=2)
    sub = store.subscribe(TEAM, "CPAUSED", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    store.pause_subscription(sub.id, "channel_not_found")
    store.subscribe(TEAM, "CACTIVE", "pd", WeeklySchedule.of(0, "09:00", "UTC"))
    for week in ("2026-W47", "2026-W48"):
        assert store.claim_delivery(TEAM, "CACTIVE", "pd", week, "test")
        store.mark_sent(TEAM, "CACTIVE", "pd", week, "1.0")
    assert store.claim_delivery(TEAM, "CPAUSED", "spec", "2026-W48", "test")
    store.mark_failed(TEAM, "CPAUSED", "spec", "2026-W48", "channel_not_found")
    return list(order)


def test_the_numbers_of_a_seeded_workspace(runtime) -> None:
    order = _seed(runtime)
    ins = team_insights(runtime, TEAM, NOW)
    assert (ins.readers_total, ins.readers_active) == (7, 6)
    assert [n for _, n in ins.reads_per_week][-2:] == [1, 10]  # last week U7; this week U1..U5 x2
    assert sum(n for _, n in ins.reads_per_week) == 12  # and U6's, 40 days ago (within 8 weeks)
    spec = next(f for f in ins.funnels if f.track_id == "spec")
    assert spec.readers == 6 and spec.steps == len(order)
    assert spec.reached[:3] == (6, 5, 0)
    quant = next(f for f in ins.funnels if f.track_id == "quant")
    assert quant.readers is None and quant.reached[0] is None  # one reader: no number
    assert ins.top_posts == ((order[0], 6), (order[1], 5))
    health = {c.channel_id: c for c in ins.channels}
    assert (health["CACTIVE"].active, health["CACTIVE"].sent, health["CACTIVE"].failed) == (1, 2, 0)
    assert (health["CPAUSED"].paused, health["CPAUSED"].reasons, health["CPAUSED"].failed) == (
        1,
        ("channel_not_found",),
        1,
    )


def test_fewer_than_three_readers_show_no_per_post_counts(runtime) -> None:
    _seed(runtime)
    ins = team_insights(runtime, SMALL, NOW)
    assert ins.readers_total is None and ins.readers_active is None and ins.top_posts == ()  # 2: hidden
    assert all(n in (None, 0) for f in ins.funnels for n in f.reached)
    admin = Handlers(runtime, users_info=lambda team, user: UserInfo(is_admin=True))
    text = json.dumps(admin.command(Caller(SMALL, "UADMIN"), "stats").blocks, ensure_ascii=False)
    assert "no post has more than 3 readers" in text and "2 readers" not in text
    # nor when they read: two people's weekly reads would be their own reading
    assert ins.reads_per_week == () and "reads per week are shown from 4 readers on" in text
    assert "`▁" not in text and "(0 0" not in text


def test_only_admins_and_owners_see_the_stats(runtime) -> None:
    _seed(runtime)
    member = Handlers(runtime, users_info=lambda team, user: UserInfo())
    refused = member.command(Caller(TEAM, "U1"), "stats")
    assert refused.text == "Reading insights are for workspace admins and owners."
    owner = Handlers(runtime, users_info=lambda team, user: UserInfo(is_owner=True))
    reply = owner.command(Caller(TEAM, "UOWNER"), "stats")
    text = json.dumps(reply.blocks, ensure_ascii=False)
    assert "6 → 5 → 0" in text and "channel_not_found" in text
    home = owner.home(Caller(TEAM, "UOWNER"), None)
    assert "Reading insights" in json.dumps(home, ensure_ascii=False) and len(home["blocks"]) <= 100
    assert "Reading insights" not in json.dumps(member.home(Caller(TEAM, "U1"), None), ensure_ascii=False)


def test_stats_from_the_terminal(runtime, monkeypatch) -> None:
    _seed(runtime)
    monkeypatch.setenv("DATABASE_URL", str(runtime.store.engine.url.render_as_string(hide_password=False)))
    result = CliRunner().invoke(main, ["stats", "--team", TEAM, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["team_id"] == TEAM and data["readers_total"] == 7
    text = CliRunner().invoke(main, ["stats", "--team", TEAM]).output
    assert "Reading insights" in text and "6 → 5 → 0" in text
    assert "Essential paths finished:" in text  # (QA round 2) as /vllm-path stats shows it
    assert "nothing recorded" not in text
    unknown = CliRunner().invoke(main, ["stats", "--team", "TNOPE", "--json"])
    assert unknown.exit_code == 0 and "nothing recorded for 'TNOPE'" in unknown.stderr
    assert json.loads(unknown.stdout)["readers_total"] == 0  # the JSON on stdout stays clean


def test_sparkline_and_an_empty_workspace(runtime) -> None:
    assert sparkline([0, 1, 2, 4]) == "▁▃▅█" and sparkline([0, 0]) == "▁▁"
    ins = compute(runtime.holder.catalog, "TEMPTY", [], NOW)
    assert ins.readers_total == 0 and ins.top_posts == () and ins.reads_per_week == () and ins.sparkline() == ""
