"""Issue 44 QA: ``digest preview`` of a reading club shows the prompt its thread would open with (and
the readers of its last digest, as sent); a post with no link yet (the catalog's unlinked posts) is
said plainly to have none in a channel digest and in "catch me up" (App Home and the weekly DM show
the same lines), never presented like a step one can read. Real catalog, real database (SQLite)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.catchup import catch_up
from bot.domain.schedule import WeeklySchedule
from bot.slack.views.catchup import HOME_NEW, catchup_reply, home_catchup_blocks
from bot.slack.views.digest import compose_channel_digest, preview_subscription
from bot.slack.views.together import club_thread
from bot.store import Store
from tests.digest.conftest import TEAM
from tests.digest.test_cli import _env
from tests.standin.blockkit import validate_blocks

MONDAY = WeeklySchedule.of(0, "09:00", "UTC")
UNLINKED = "taking-vllm-apart"  # pd step 9, no URL yet, with a confident note in the catalog


def test_the_preview_of_a_club_shows_its_thread_prompt_and_last_readers(catalog, sqlite_url) -> None:
    store = Store.from_url(sqlite_url)
    club = store.subscribe(TEAM, "CCLUB", "spec", MONDAY, club=True)
    store.subscribe(TEAM, "CPLAIN", "spec", MONDAY)
    assert store.record_club_digest(TEAM, "CCLUB", "1765100000.000100", club.id, ("spec-decode",))
    for n in range(4):
        store.club_mark(TEAM, "CCLUB", "1765100000.000100", f"U0R{n}")
    store.close()
    runner = CliRunner()
    as_json = runner.invoke(
        main, ["digest", "preview", "--track", "spec", "--channel", "CCLUB", "--json"], env=_env(sqlite_url)
    )
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.stdout)
    first = catalog.order("spec")[0]
    assert first in json.dumps(data["blocks"]) and "Readers who marked last week's digest read: 4." in json.dumps(data)
    values = [json.loads(b["accessory"]["value"]) for b in data["blocks"] if b.get("accessory")]
    steps = [v["p"] for v in values if v.get("p")]
    assert steps and steps[0] == first
    expected = club_thread(catalog, steps, "en")
    assert data["thread"] == {"text": expected.text, "blocks": expected.blocks}
    validate_blocks(data["thread"]["blocks"])
    prompt = catalog.prompt(first)
    assert prompt is not None
    text = runner.invoke(main, ["digest", "preview", "--track", "spec", "--channel", "CCLUB"], env=_env(sqlite_url))
    assert text.exit_code == 0, text.output
    assert "The reading club's thread under this digest would open with:" in text.output
    assert prompt.en.split(".")[0][:40] in text.output
    zh = runner.invoke(
        main, ["digest", "preview", "--track", "spec", "--channel", "CCLUB", "--lang", "zh"], env=_env(sqlite_url)
    )
    assert "这期每周推荐下的读书会讨论串会这样开头" in zh.output and prompt.zh.split("。")[0][:20] in zh.output
    plain = runner.invoke(
        main, ["digest", "preview", "--track", "spec", "--channel", "CPLAIN", "--json"], env=_env(sqlite_url)
    )
    assert plain.exit_code == 0 and "thread" not in json.loads(plain.stdout)  # no club: no thread
    new = runner.invoke(main, ["digest", "preview", "--track", "spec"], env=_env(sqlite_url))
    assert new.exit_code == 0 and "would open with" not in new.output


def test_a_channel_digest_passes_over_a_step_with_no_link_yet_and_says_so(catalog) -> None:
    """QA round 8: a step without a link is not spent in a channel digest (it comes once linked);
    the digest fills with readable steps and says in one line how many wait for a link."""
    order = catalog.order("benchmarking")
    unlinked = [p for p in order if catalog.post(p).url is None]
    assert len(unlinked) == 2 and order.index(unlinked[-1]) < len(order) - 1
    sub = preview_subscription("benchmarking", 3, order.index(unlinked[0]) - 1)
    for lang, said in (("en", "2 steps of this path wait for a link"), ("zh", "本路径有 2 步尚无链接")):
        digest = compose_channel_digest(catalog, sub, None, lang)
        assert digest.reply is not None and len(digest.steps) == 2  # the two readable steps left
        assert all(catalog.post(p).url for p in digest.steps) and digest.cursor > order.index(unlinked[-1])
        validate_blocks(digest.reply.blocks)
        text = json.dumps(digest.reply.blocks, ensure_ascii=False)
        assert not any(catalog.post(p).title in text for p in unlinked) and said in text
        buttons = [b for b in digest.reply.blocks if b.get("accessory")]
        assert len(buttons) == 2  # every step sent can be marked read


def test_catch_up_names_posts_without_a_link_as_such_after_the_readable_ones(catalog) -> None:
    cu = catch_up(catalog, ["pd"], {"hybrid-ssm-disagg"}, datetime(2026, 8, 1, 9, 30, tzinfo=UTC))
    unlinked = [n.step.post_id for n in cu.new if n.step.post.url is None]
    assert UNLINKED in unlinked and len(unlinked) < len(cu.new)
    for lang, said in (
        ("en", "no link yet, nothing to read until it is published"),
        ("zh", "暂无链接，发布后才能阅读"),
    ):
        reply = catchup_reply(catalog, cu, lang)
        validate_blocks(reply.blocks)
        lines = "\n".join(b["text"]["text"] for b in reply.blocks if b["type"] == "section").split("\n")
        listed = [line for line in lines if line.startswith("• ")]
        plain = [line for line in listed if said in line]
        assert len(plain) == len(unlinked)
        assert all("minutes once linked" not in line and "·" in line for line in plain)
        assert listed[-len(unlinked) :] == plain  # the readable posts first
        home = json.dumps(home_catchup_blocks(catalog, cu, lang), ensure_ascii=False)
        readable = len(cu.new) - len(unlinked)
        assert home.count(said) == max(0, HOME_NEW - readable)  # App Home's three: the readable ones first


def test_the_weekly_dm_says_a_post_has_no_link_yet_and_offers_no_mark_read(catalog) -> None:
    from bot.slack.views.plan_dm import BudgetDmComposer, budget_dm

    order = catalog.order("pd")
    read = set(order[: order.index(UNLINKED)])  # the plan passes over it while a linked step is left
    composed = BudgetDmComposer(catalog).compose(["pd"], read, 600)
    for reply in (budget_dm(catalog, ["pd"], read, 600), composed):
        assert reply is not None
        validate_blocks(reply.blocks, surface="message")
        step = next(b for b in reply.blocks if UNLINKED in json.dumps(b) or "Taking vLLM Apart" in json.dumps(b))
        assert "accessory" not in step, step
        assert "nothing to read until it is" in step["text"]["text"], step
        marks = [b for b in reply.blocks if b.get("accessory", {}).get("action_id", "").startswith("mark_read")]
        assert not marks, marks
