"""``stats``: the share of a track's followers who finished its essential path within 4 weeks of
following, with the cohort size (followers of 4 weeks or more), hidden under 4 (issue 44); on a real
store (SQLite and PostgreSQL) with a controlled clock, in Slack, the terminal and ``--json``."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.insights import FINISH_DAYS
from bot.slack.commands.stats import team_insights
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.store import Store
from tests.standin.blockkit import block_kit_problems

NOW = datetime.now(UTC).replace(microsecond=0)
TEAM = "TDONE"


def _seed(runtime) -> None:
    """spec: U1..U5 and U7 followed 40 days ago; U1..U3 and U7 read its essential path 30 days ago
    (within 4 weeks), U4 five days ago (too late), U5 not all of it; U6 followed 10 days ago and read
    it all (not in the cohort yet). pd: U1..U3 followed 40 days ago and read it all (a cohort of 3)."""
    cat = runtime.holder.catalog
    clock = {"now": NOW - timedelta(days=40)}
    store = Store(runtime.store.engine, clock=lambda: clock["now"])
    for user in ("U1", "U2", "U3", "U4", "U5", "U7"):
        store.follow(TEAM, user, "spec")
    for user in ("U1", "U2", "U3"):
        store.follow(TEAM, user, "pd")
    clock["now"] = NOW - timedelta(days=30)
    for user in ("U1", "U2", "U3"):
        store.mark_read(TEAM, user, [*cat.essentials("spec"), *cat.essentials("pd")])
    store.mark_read(TEAM, "U7", list(cat.essentials("spec")))
    store.mark_read(TEAM, "U5", list(cat.essentials("spec")[:-1]))
    clock["now"] = NOW - timedelta(days=10)
    store.follow(TEAM, "U6", "spec")
    clock["now"] = NOW - timedelta(days=5)
    store.mark_read(TEAM, "U4", list(cat.essentials("spec")))
    store.mark_read(TEAM, "U6", list(cat.essentials("spec")))


def test_the_share_counts_followers_of_four_weeks_who_finished_within_four_weeks(runtime) -> None:
    _seed(runtime)
    ins = team_insights(runtime, TEAM, NOW)
    rows = {c.track_id: c for c in ins.completions}
    assert set(rows) == {"spec", "pd"}
    assert (rows["spec"].cohort, rows["spec"].finished, rows["spec"].share) == (6, 4, 4 / 6)
    assert (rows["pd"].cohort, rows["pd"].finished, rows["pd"].share) == (None, None, None)  # 3 followers: hidden
    # two days on, U6 has followed for 12 days: still outside; 19 days on, inside and finished in time
    later = {c.track_id: c for c in team_insights(runtime, TEAM, NOW + timedelta(days=FINISH_DAYS - 9)).completions}
    assert (later["spec"].cohort, later["spec"].finished) == (7, 5)


def test_admins_see_the_share_in_slack_and_the_terminal_in_english_and_chinese(runtime, monkeypatch) -> None:
    _seed(runtime)
    admin = Handlers(runtime, users_info=lambda team, user: UserInfo(is_admin=True))
    reply = admin.command(Caller(TEAM, "UADMIN"), "stats")
    assert not block_kit_problems(reply.blocks)
    text = json.dumps(reply.blocks, ensure_ascii=False)
    spec, pd = runtime.holder.catalog.track("spec").names, runtime.holder.catalog.track("pd").names
    assert f"*{spec.en}* · *67%* of 6 followers finished the essential path (4)" in text
    assert f"*{pd.en}* · fewer than 4 followers of 4 weeks or more: no share shown" in text
    admin.command(Caller(TEAM, "UADMIN"), "lang zh")
    zh = json.dumps(admin.command(Caller(TEAM, "UADMIN"), "统计").blocks, ensure_ascii=False)
    assert f"*{spec.zh}* · 6 位关注者中 *67%* 读完了必读路径（4 位）" in zh and "不显示比例" in zh
    monkeypatch.setenv("DATABASE_URL", runtime.settings.database_url)
    result = CliRunner().invoke(main, ["stats", "--team", TEAM, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    by_track = {c["track_id"]: c for c in data["completions"]}
    assert by_track["spec"] == {"track_id": "spec", "cohort": 6, "finished": 4, "share": 4 / 6}
    assert by_track["pd"] == {"track_id": "pd", "cohort": None, "finished": None, "share": None}
    terminal = CliRunner().invoke(main, ["stats", "--team", TEAM])
    assert terminal.exit_code == 0 and "67% of 6 followers" in terminal.output


def test_one_to_three_finishers_of_a_shown_cohort_are_not_counted_nor_shared(runtime) -> None:
    """A cohort of 5 of whom 3 finished: the share (60%) would tell the count, so neither is shown."""
    cat, store = runtime.holder.catalog, runtime.store
    clock = {"now": NOW - timedelta(days=40)}
    early = Store(store.engine, clock=lambda: clock["now"])
    for user in ("U1", "U2", "U3", "U4", "U5"):
        early.follow("TFEW", user, "spec")
    clock["now"] = NOW - timedelta(days=30)
    for user in ("U1", "U2", "U3"):
        early.mark_read("TFEW", user, list(cat.essentials("spec")))
    row = next(c for c in team_insights(runtime, "TFEW", NOW).completions if c.track_id == "spec")
    assert (row.cohort, row.finished, row.share) == (5, None, None)
    admin = Handlers(runtime, users_info=lambda team, user: UserInfo(is_admin=True))
    text = json.dumps(admin.command(Caller("TFEW", "UADMIN"), "stats").blocks, ensure_ascii=False)
    name = cat.track("spec").names.en
    assert f"*{name}* · fewer than 4 of 5 followers finished the essential path (no share shown)" in text
    assert "60%" not in text


def _finished_line(reply) -> str:
    return next(b["elements"][0]["text"] for b in reply.blocks if "Essential paths finished" in json.dumps(b))


def test_unread_lowers_the_finished_count_in_slack_and_the_terminal(runtime, monkeypatch) -> None:
    """Five readers finished spec's essential path (recorded as the read command records it); one
    marks a step unread: four finished (as App Home reopens the path), then three: hidden."""
    cat, store = runtime.holder.catalog, runtime.store
    essentials = list(cat.essentials("spec"))
    for user in ("U1", "U2", "U3", "U4", "U5"):
        store.mark_read("TUNREAD", user, essentials)
        assert store.record_finished("TUNREAD", user, "spec", 60)
    admin = Handlers(runtime, users_info=lambda team, user: UserInfo(is_admin=True))
    name = cat.track("spec").names.en
    assert f"finished: *5* ({name} 5)" in _finished_line(admin.command(Caller("TUNREAD", "UADMIN"), "stats"))
    store.mark_unread("TUNREAD", "U1", [essentials[-1]])
    assert f"finished: *4* ({name} 4)" in _finished_line(admin.command(Caller("TUNREAD", "UADMIN"), "stats"))
    monkeypatch.setenv("DATABASE_URL", runtime.settings.database_url)
    terminal = CliRunner().invoke(main, ["stats", "--team", "TUNREAD"])
    assert terminal.exit_code == 0 and f"finished: 4 ({name} 4)" in terminal.output
    store.mark_unread("TUNREAD", "U2", [essentials[0]])
    assert "finished: by fewer than 4 readers in every track" in _finished_line(
        admin.command(Caller("TUNREAD", "UADMIN"), "stats")
    )
    store.mark_read("TUNREAD", "U1", [essentials[-1]])  # read again: finished again, counted once
    assert f"finished: *4* ({name} 4)" in _finished_line(admin.command(Caller("TUNREAD", "UADMIN"), "stats"))


def test_a_one_reader_workspace_shows_no_count_of_that_reader(runtime, monkeypatch) -> None:
    cat, store = runtime.holder.catalog, runtime.store
    store.follow("TONE", "U1", "spec")
    store.mark_read("TONE", "U1", list(cat.essentials("spec")))
    store.record_finished("TONE", "U1", "spec", 60)
    admin = Handlers(runtime, users_info=lambda team, user: UserInfo(is_admin=True))
    reply = admin.command(Caller("TONE", "UADMIN"), "stats")
    assert not block_kit_problems(reply.blocks)
    text = json.dumps(reply.blocks, ensure_ascii=False) + reply.text
    assert "*1*" not in text and "1 ever" not in text and " 1)" not in text and "1 readers" not in text
    assert "Active readers in the last 28 days: *&lt;4* (&lt;4 ever)" in text
    ins = team_insights(runtime, "TONE")
    assert (ins.readers_total, ins.readers_active) == (None, None)
    assert all(f.readers in (None, 0) for f in ins.funnels) and ins.top_posts == () and ins.reads_per_week == ()
    monkeypatch.setenv("DATABASE_URL", runtime.settings.database_url)
    data = json.loads(CliRunner().invoke(main, ["stats", "--team", "TONE", "--json"]).output)
    assert data["readers_total"] is None and data["readers_active"] is None
