"""QA round 20, commands and replies: a summary page's minutes read as the article's; plain-language
requests (``stop sending me dms``, ``unsubscribe me``, ``settings please``, ``list tracks``) read as
track names or searches; a neutral ``next`` after Chinese answered in English; ``pause dm for 2
weeks`` refused while a button offers it; ``vllm-path next`` with no track or ``all`` failed; the
note on steps without a link sat after the next post's minutes; a later search page had no way back;
a digest over its budget did not say why. Through the real handlers, SQLite only."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.domain import paths
from bot.domain.plan import BudgetPreview
from bot.slack.grammar import parse
from bot.slack.views.digest import compose_channel_digest
from bot.slack.views.plan import minutes_label
from tests.slack.qa_commands import (
    ALICE,
    any_migrated_db_url,  # noqa: F401  (SQLite only here)
    handlers,
)
from tests.slack.qa_commands import body as _body
from tests.slack.qa_commands import buttons as _buttons
from tests.standin.blockkit import validate_blocks


def _h(runtime, locale: str = "en-US"):
    return handlers(runtime, locale)


def _summary_post(cat) -> Any:
    post = next(p for p in cat.posts if p.source.link_kind == "summary" and p.minutes is not None)
    return post


# --- A. a summary page's minutes are said to be the summary's


def test_a_summary_pages_minutes_say_summary_and_an_articles_do_not(runtime):
    cat = runtime.holder.catalog
    for post in cat.posts:
        if post.minutes is None:
            continue
        en, zh = str(minutes_label(post, "en")), str(minutes_label(post, "zh"))
        summary = post.source.link_kind == "summary"
        assert ("summary" in en) is summary and ("摘要" in zh) is summary, (post.id, en, zh)


def _past_quant_essentials(h, cat) -> None:
    h.command(ALICE, "read " + " ".join(paths.essentials(cat, "quant")))
    h.command(ALICE, "follow quant")


@pytest.mark.parametrize(("locale", "said"), [("en-US", "1 min summary"), ("zh-CN", "1 分钟摘要")])
def test_next_names_a_summary_steps_minutes_as_the_summarys(runtime, locale, said):
    h, cat = _h(runtime, locale), runtime.holder.catalog
    _past_quant_essentials(h, cat)
    nxt = cat.post(paths.track_state(cat, "quant", runtime.store.reader_state("T1", "U1").read).next.post_id)
    assert nxt.source.link_kind == "summary" and nxt.minutes == 1  # the catalog's case (QA)
    assert said in h.command(ALICE, "next").text
    assert said in _body(h.command(ALICE, "quant"))  # the track reply


def test_a_search_result_and_a_digest_of_a_summary_post_say_summary(runtime):
    cat = runtime.holder.catalog
    post = _summary_post(cat)
    track = next(tid for tid in cat.tracks_of(post.id))
    at = cat.order(track).index(post.id)
    digest = compose_channel_digest(cat, BudgetPreview(1, track, at, 1, None), lang="en")
    assert digest.reply is not None and "min summary" in digest.reply.text + json.dumps(digest.reply.blocks)


def test_cli_show_says_summary_minutes():
    out = CliRunner().invoke(main, ["catalog", "show", "quant"]).output
    line = next(line for line in out.splitlines() if "LLM quantization guide" in line)
    assert "1 min summary" in line and ", 6 min)" in out, line


# --- B. polite or personal words around a command word


@pytest.mark.parametrize(
    ("typed", "kind", "arg"),
    [
        ("settings please", "settings", ""),
        ("can you show me my settings please", "settings", ""),
        ("list tracks", "tracks", ""),
        ("show all tracks", "tracks", ""),
        ("show me my reminders", "reminders", ""),
        ("next please", "next", ""),
        ("stats please", "stats", ""),
        ("my stats please", "next", ""),  # one's own progress, as `my stats`
        ("unsubscribe me", "stop_what", ""),
        ("unsubscribe me from everything", "stop_what", ""),
        ("unsubscribe me from spec", "unsubscribe", "spec"),
        ("please stop messaging me", "stop_what", ""),
        ("stop sending me messages", "stop_what", ""),
    ],
)
def test_a_command_word_with_polite_words_is_the_command(typed, kind, arg):
    cmd = parse(typed)
    assert (cmd.kind, cmd.arg) == (kind, arg), cmd


@pytest.mark.parametrize("typed", ["stop sending me dms", "stop sending me the weekly dm", "please stop dming me dms"])
def test_stop_sending_me_dms_turns_the_dm_off(runtime, typed):
    cmd = parse(typed)
    assert cmd.kind == "dm" and cmd.enabled is False, cmd
    h = _h(runtime)
    h.command(ALICE, "dm on")
    assert "No track" not in h.command(ALICE, typed).text
    dm = runtime.store.get_dm("T1", "U1")
    assert dm is not None and not dm.enabled


def test_unsubscribe_me_says_what_can_be_stopped(runtime):
    text = _h(runtime).command(ALICE, "unsubscribe me").text
    assert "No track matches" not in text and "weekly DM" in text and "unsubscribe" in text, text


def test_settings_please_and_list_tracks_answer_them(runtime):
    h = _h(runtime)
    assert h.command(ALICE, "settings please").text == h.command(ALICE, "settings").text
    assert h.command(ALICE, "list tracks").text == h.command(ALICE, "tracks").text


@pytest.mark.parametrize(
    "typed", ["stop sequences not working", "show me fp8 results", "list of supported models", "my model is slow"]
)
def test_questions_holding_those_words_stay_searches(typed):
    assert parse(typed).kind == "query", parse(typed)


# --- C. (not kept) a neutral command after Chinese: an English command word answers in English,
# as the earlier rounds decided (tests/e2e/test_settings_dm_line.py); see the closing note.


# --- D. a typed pause of the lengths the buttons offer


@pytest.mark.parametrize(
    "typed",
    ["pause dm for 2 weeks", "dm pause 2 weeks", "dm pause two weeks", "暂停两周", "私信 暂停两周", "暂停私信两周"],
)
def test_a_two_week_pause_is_accepted(runtime, typed):
    h = _h(runtime)
    h.command(ALICE, "dm on")
    reply = h.command(ALICE, typed)
    dm = runtime.store.get_dm("T1", "U1")
    now = runtime.store.now()
    assert dm is not None and dm.snoozed_until is not None, reply.text
    assert dm.snoozed_until >= now + timedelta(days=13), (dm.snoozed_until, now)
    assert runtime.store.habit_facts("T1", "U1").pauses, "the plan is paused too, as the button does"
    assert "one week" not in reply.text and "一周" not in reply.text.split("：")[0], reply.text


@pytest.mark.parametrize(("typed", "lang_word"), [("dm pause 3 weeks", "two weeks"), ("暂停私信三周", "两周")])
def test_another_length_is_refused_naming_both(runtime, typed, lang_word):
    h = _h(runtime)
    h.command(ALICE, "dm on")
    reply = h.command(ALICE, typed)
    assert lang_word in reply.text and "dm pause 2 weeks" in reply.text, reply.text
    dm = runtime.store.get_dm("T1", "U1")
    assert dm is not None and dm.snoozed_until is None


def test_dm_pause_alone_still_skips_one_week(runtime):
    h = _h(runtime)
    h.command(ALICE, "dm on")
    h.command(ALICE, "dm pause")
    dm = runtime.store.get_dm("T1", "U1")
    assert dm is not None and dm.snoozed_until is not None
    assert dm.snoozed_until <= runtime.store.now() + timedelta(days=8)


# --- E. vllm-path next with no track, or all


@pytest.mark.parametrize("args", [[], ["all"]])
def test_cli_next_without_a_track_or_all_gives_every_track(args, runtime):
    result = CliRunner().invoke(main, ["next", *args, "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert [d["track"]["id"] for d in found] == [tr.id for tr in runtime.holder.catalog.tracks]


def test_cli_help_of_next_says_what_it_does():
    out = CliRunner().invoke(main, ["--help"]).output
    assert "next" in out and "(or of all)" in out


# --- F. the note on steps without a link sits beside the total it explains


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_note_on_unlinked_steps_follows_the_total(runtime, locale):
    h, cat = _h(runtime, locale), runtime.holder.catalog
    _past_quant_essentials(h, cat)
    line = h.command(ALICE, "next").text
    total = r"25 min to go \(minutes for the 6 with a link; 1 more has no link yet\) · next:"
    assert re.search(
        total if locale == "en-US" else r"还剩 25 分钟（分钟数只算有链接的 6 篇；另有 1 篇尚无链接） · 下一篇", line
    ), line


# --- G. a later search page leads back


def test_a_later_search_page_has_previous_results(runtime):
    h = _h(runtime)
    first = h.command(ALICE, "nixl")
    more = [v for k, label, v in _buttons(first) if label == "More results"]
    assert more and not [1 for _, label, _ in _buttons(first) if label == "Previous results"]
    second = h.action(ALICE, "more_results", more[0])
    validate_blocks(second.blocks, surface="message")
    back = [v for _, label, v in _buttons(second) if label == "Previous results"]
    assert back, _buttons(second)
    again = h.action(ALICE, "more_results", back[0])
    assert again.text == first.text
    validate_blocks(again.blocks, surface="message")


# --- H. a digest over its budget says why


@pytest.mark.parametrize(("lang", "said"), [("en", "one step always goes out"), ("zh", "每周总会发出一篇")])
def test_a_digest_over_its_budget_says_why(runtime, lang, said):
    cat = runtime.holder.catalog
    digest = compose_channel_digest(cat, BudgetPreview(1, "spec", 0, 1, None, minutes_per_week=5), lang=lang)
    assert digest.reply is not None
    footer = json.dumps(digest.reply.blocks[-1], ensure_ascii=False)
    assert said in footer and "5" in footer, footer
    within = compose_channel_digest(cat, BudgetPreview(1, "spec", 0, 1, None, minutes_per_week=60), lang=lang)
    assert within.reply is not None and said not in json.dumps(within.reply.blocks, ensure_ascii=False)


def test_digest_preview_says_why_too(tmp_path, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/p.db")
    result = CliRunner().invoke(main, ["digest", "preview", "--track", "spec", "--minutes", "5"])
    assert "5-min weekly budget: one step always goes out" in result.output, result.output


@pytest.mark.parametrize(("lang", "word"), [("en", "min summary"), ("zh", "分钟摘要")])
def test_the_path_page_says_summary_minutes_as_slack_does(lang: str, word: str) -> None:
    """The public path page labels a step linked through a summary page as the Slack views do (one
    description of a path for every door): its minutes are the summary's, not the article's."""
    from bot.config import DEFAULT_CATALOG_DIR
    from bot.domain.catalog.loader import load_catalog
    from bot.domain.paths import track_state
    from bot.web.paths import track_page

    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    track = next(
        t.id for t in catalog.tracks if any(catalog.post(s.post).source.link_kind == "summary" for s in t.steps)
    )
    page = str(track_page(catalog, track_state(catalog, track), lang))
    summaries = [
        p for p in (catalog.post(s.post) for s in catalog.track(track).steps) if p.source.link_kind == "summary"
    ]
    assert f"{summaries[0].minutes} {word}" in page.replace("约 ", "")


def test_the_unknown_words_of_a_refusal_keep_their_separate_places() -> None:
    """Unknown words on either side of a known one are named apart, never joined into a phrase the
    asker did not type (``best gpu to buy`` said *best buy*); words side by side stay together."""
    from bot.slack.views.search import _rest_of

    assert _rest_of("best gpu to buy", "gpu") == "best, buy"
    assert _rest_of("best gpu to buy", "gpu", "、") == "best、buy"
    assert _rest_of("cheap shiny gpu", "gpu") == "cheap shiny"
