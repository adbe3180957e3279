"""The Slack edge of issues 11 and 12: one normalised string for grammar and search, links as
queries in read/unread, ``next <track>``, search pages with *More results* and *Open path*,
long tracks that page, a matcher built with the catalog folder's own vocabulary, and no dead
end anywhere a post is recommended (a test walks every track to its end)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.config import DEFAULT_CATALOG_DIR, Settings
from bot.domain import paths
from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog import Catalog
from bot.domain.catalog.models import LocalizedText, Manifest, Post, Published, Source, Step, Track
from bot.domain.paths import track_state
from bot.domain.plan import plan_reader_week
from bot.doors.console import open_console
from bot.runtime import CatalogHolder
from bot.slack.commands.replies import track_view
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.slack.mrkdwn import esc
from bot.slack.views import messages as views
from bot.slack.views.digest import compose_channel_digest, preview_subscription
from bot.slack.views.digest_render import RENDERER
from tests.standin.blockkit import validate_blocks

ALICE = Caller("T1", "U1", "C1")


def handlers(runtime, locale=None):
    return Handlers(runtime, users_info=lambda team, user: UserInfo(locale=locale))


# --- C: one normalised string -------------------------------------------------------------------


def test_full_width_commands_are_commands(runtime):
    h = handlers(runtime)
    h.command(ALICE, "ｆｏｌｌｏｗ　ｓｐｅｃ")
    assert runtime.store.follows("T1", "U1") == ["spec"]
    reply = h.command(ALICE, "ｈｅｌｐ")
    assert "Pick a topic" in reply.text


@pytest.mark.parametrize(
    "typed",
    [
        "read hello world",
        "read nonexistent-post-xyz",
        "read that post from yesterday",
        "read good stuff",
        "remind hello world tomorrow",
    ],
)
def test_loose_text_marks_nothing_and_offers_the_matches_to_pick(runtime, typed):
    h = handlers(runtime)
    reply = h.command(ALICE, typed)
    assert runtime.store.read_posts("T1", "U1") == set()
    assert runtime.store.reminders("T1", "U1") == []
    assert "not sure which post" in reply.text or "No post matches" in reply.text


def test_a_named_post_or_title_is_still_marked_at_once(runtime):
    h = handlers(runtime)
    h.command(ALICE, "read anatomy of vllm")
    h.command(ALICE, "read P-EAGLE")
    assert runtime.store.read_posts("T1", "U1") == {"anatomy-of-vllm", "p-eagle"}


SPEC_DECODE = "spec-decode-2-8x"


@pytest.mark.parametrize(
    "typed",
    [
        "https://vllm-project.github.io/2024/10/17/spec-decode.html",
        "<https://vllm-project.github.io/2024/10/17/spec-decode.html>",
        "<https://vllm-project.github.io/2024/10/17/spec-decode.html|the spec decode post>",
        "https://blog.vllm.ai/2024/10/17/spec-decode.html",
        "http://blog.vllm.ai/2024/10/17/spec-decode/",
        "https://vllm-project.github.io/2024/10/17/spec-decode.html#how-it-works",
        "https://vllm-project.github.io/2024/10/17/spec-decode",
    ],
)
def test_read_and_unread_take_any_form_of_a_post_link(runtime, typed):
    cat = runtime.holder.catalog
    pid = next(p.id for p in cat.posts if p.url and p.url.endswith("/2024/10/17/spec-decode.html"))
    h = handlers(runtime)
    h.command(ALICE, f"read {typed}")
    assert pid in runtime.store.read_posts("T1", "U1")
    h.command(ALICE, f"unread {typed}")
    assert pid not in runtime.store.read_posts("T1", "U1")


def test_read_or_unread_without_a_post_shows_that_command_and_nonsense_marks_nothing(runtime):
    h = handlers(runtime)
    assert "`/vllm-path read p-eagle`" in h.command(ALICE, "read").text
    assert "`/vllm-path unread p-eagle`" in h.command(ALICE, "unread").text
    reply = h.command(ALICE, "read nonexistent-post-xyz")  # "post" is a stop word: no RL posts
    assert "No post matches" in reply.text and runtime.store.read_posts("T1", "U1") == set()


def test_post_ids_are_read_whatever_their_case(runtime):
    """Ids are lowercase slugs; `read P-EAGLE` marks that post instead of offering a pick list."""
    pid = "p-eagle"  # its title matches several P-EAGLE and EAGLE posts about as well
    assert runtime.holder.catalog.has_post(pid)
    h = handlers(runtime)
    reply = h.command(ALICE, f"read {pid.upper()}")
    assert runtime.store.read_posts("T1", "U1") == {pid}, reply.text
    h.command(ALICE, f"unread {pid.title()}")
    assert runtime.store.read_posts("T1", "U1") == set()


def test_read_a_summary_link_and_an_unknown_blog_link(runtime):
    cat = runtime.holder.catalog
    summary = next(p for p in cat.posts if p.url and "yomu.fyi" in p.url)
    h = handlers(runtime)
    h.command(ALICE, f"read {summary.url.removesuffix('.md')}")
    assert summary.id in runtime.store.read_posts("T1", "U1")
    reply = h.command(ALICE, "read https://vllm-project.github.io/2030/01/01/not-yet.html")
    assert "not in the catalog yet" in reply.text
    assert runtime.store.read_posts("T1", "U1") == {summary.id}
    searched = h.command(ALICE, "<https://blog.vllm.ai/2030/01/01/not-yet.html>")
    assert "not in the catalog yet" in searched.text and "Did you mean" not in searched.text
    # (QA) The blog's home page is not a post missing from the catalog.
    for home in ("https://vllm-project.github.io/", "<https://blog.vllm.ai>", "read https://vllm-project.github.io/"):
        text = h.command(ALICE, home).text
        assert "the vLLM blog's home page" in text and "not in the catalog" not in text, home


def test_next_track_gives_that_tracks_next_step_only(runtime):
    cat = runtime.holder.catalog
    h = handlers(runtime)
    h.command(ALICE, "follow pd")
    h.command(ALICE, "follow spec")
    reply = h.command(ALICE, "next spec")
    first_spec = cat.post(cat.order("spec")[0]).title
    first_pd = cat.post(cat.order("pd")[0]).title
    assert esc(first_spec) in reply.text and esc(first_pd) not in reply.text
    both = h.command(ALICE, "next")
    assert esc(first_spec) in both.text and esc(first_pd) in both.text


def test_did_you_mean_needs_a_real_signal(runtime):
    h = handlers(runtime)
    assert "Did you mean" not in h.command(ALICE, "follow v").text
    assert "Did you mean" not in h.command(ALICE, "follow 推").text
    assert "Did you mean the Speculative decoding track" in h.command(ALICE, "follow speculatve-decodng-xqz").text


def test_a_mistyped_command_alone_is_answered_with_the_command_not_a_track(runtime):
    h = handlers(runtime)
    for typed, meant in (
        ("hlep", "help"),
        ("reminder", "reminders"),
        ("nxt", "next"),
        ("subscription", "subscriptions"),
        ("dms on", "dm on"),
    ):
        text = h.command(ALICE, typed).text
        assert f"Did you mean `/vllm-path {meant}`?" in text, (typed, text)
        assert "track?" not in text, (typed, text)
    # A mistyped track still gets the track: its posts (the typo is read as "quant") and a
    # pointer to the track.
    qaunt = h.command(ALICE, "qaunt")
    assert "This looks like the *Quantization* track: `/vllm-path quant` shows its path." in str(qaunt.blocks)
    assert "Quantization" in qaunt.text
    # A real word that only looks like a track's word points at no track the posts found do not
    # lead to (QA: `kv` hinted PD over the KV-cache posts, `cost` RL, `moe` Model launches).
    for word, wrong in (("kv", "pd"), ("cost", "rl"), ("moe", "models")):
        reply = h.command(ALICE, word)
        assert "Posts matching" in reply.text, word
        assert f"`/vllm-path {wrong}` shows its path" not in str(reply.blocks), word
    # (QA) A long question about a topic as a whole ("trying to understand how X works") opens
    # that track's path (issue 38: topic questions open the track), saying it read only the start.
    long = "Hi team, I am trying to understand how speculative decoding with EAGLE works in vLLM. " * 30
    reply = h.command(ALICE, long)
    assert "I only read the first 500 characters" in reply.text
    assert "Speculative decoding: Read next" in reply.text


# --- B: the catalog folder's vocabulary -------------------------------------------------------------


def test_holder_uses_the_folder_vocabulary_and_refuses_a_malformed_one(tmp_path: Path):
    folder = tmp_path / "catalog"
    shutil.copytree(DEFAULT_CATALOG_DIR, folder)
    answers = folder / "answers.yaml"
    answers.write_text(answers.read_text(encoding="utf-8") + "\np-eagle:\n- zorblaxian drafting\n", encoding="utf-8")
    holder = CatalogHolder(folder)
    hit = holder.loaded.matcher.search("zorblaxian drafting")  # the answers.yaml phrase: on-topic by it
    assert hit.results and hit.results[0].post_id == "p-eagle"
    served = holder.loaded
    (folder / "vocabulary.yaml").write_text("version: 1\nsynonyms: [[only-one]]\n", encoding="utf-8")
    ok, errors = holder.reload()
    assert not ok and any(e.startswith("vocabulary.yaml") for e in errors)
    assert holder.loaded is served  # the last good catalog keeps serving
    result = CliRunner().invoke(main, ["catalog", "check", str(folder)])
    assert result.exit_code == 1 and "vocabulary.yaml" in result.output


def test_catalog_check_refuses_an_answers_key_that_names_no_post(tmp_path: Path):
    folder = tmp_path / "catalog"
    shutil.copytree(DEFAULT_CATALOG_DIR, folder)
    with (folder / "answers.yaml").open("a", encoding="utf-8") as f:
        f.write("\nno-such-post:\n- anything\n")
    result = CliRunner().invoke(main, ["catalog", "check", str(folder)])
    assert result.exit_code == 1 and "answers.yaml" in result.output and "no-such-post" in result.output


# --- D: search pages, through the console (the real app, signed-free local door) -----------------


def test_more_results_pages_through_every_good_match(tmp_path):
    settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path}/c.db")
    with open_console(settings) as console:
        matcher = console.app.handlers.rt.holder.loaded.matcher
        total = matcher.search("fp8", limit=50).total
        assert total >= 12
        printed = console.command("fp8")
        seen: list[str] = []
        pages = 0
        while True:
            pages += 1
            assert printed
            ids = re.findall(r"`([a-z0-9-]+)`_", json.dumps(console_last_blocks(console)))
            assert 1 <= len(ids) <= views.MAX_RESULTS
            seen += ids
            labels = {c.label: n for n, (c, _) in console.controls.items()}
            assert any(label.startswith("Open path") for label in labels)
            if "More results" not in labels:
                break
            printed = console.press(labels["More results"])
            assert printed and "message updated" in printed[-1].title
        assert pages >= 3 and len(seen) == total and len(set(seen)) == total


def test_mark_read_on_a_later_search_page_redraws_that_page(tmp_path):
    settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path}/c.db")
    with open_console(settings) as console:
        console.command("fp8")
        labels = {c.label: n for n, (c, _) in console.controls.items()}
        console.press(labels["More results"])
        page_two = re.findall(r"`([a-z0-9-]+)`_", json.dumps(console_last_blocks(console)))
        mark = next(n for n, (c, _) in console.controls.items() if c.label == "Mark read")
        printed = console.press(mark)
        assert printed and "message updated" in printed[-1].title
        redrawn = re.findall(r"`([a-z0-9-]+)`_", json.dumps(console_last_blocks(console)))
        assert redrawn == page_two  # still page 2, not back to the first five
        assert "6–10 of" in json.dumps(console_last_blocks(console), ensure_ascii=False)


def console_last_blocks(console) -> list:
    """The blocks of the last message the console printed (the stand-in recorded them)."""
    responses = console.standin.responses()
    return responses[-1].body.get("blocks", []) if responses else []


# --- F: a long track pages ----------------------------------------------------------------------


def long_catalog(n: int = 90) -> Catalog:
    """A catalog with one synthetic track of ``n`` steps (every fourth post without a URL)."""
    manifest = Manifest(version="2026.12.1")
    posts = [
        Post(
            id=f"post-{i}",
            title=f"Synthetic post {i}",
            url=None if i % 4 == 0 else f"/2026/01/{i:02d}/p{i}.html",
            published=Published.model_validate("2026-01-01"),
            source=Source(kind="vllm-blog"),
            summary=LocalizedText(en=f"Summary {i}"),
        )
        for i in range(1, n + 1)
    ]
    steps = tuple(Step(post=p.id, level="core") for p in posts)
    track = Track(
        id="long",
        names=LocalizedText(en="Long track", zh="长路径"),
        description=LocalizedText(en="A long path."),
        steps=steps,
    )
    return Catalog.build(manifest=manifest, posts=posts, tracks=[track], orders={"long": tuple(p.id for p in posts)})


def test_a_90_step_track_shows_where_the_reader_is_and_pages_through_the_rest():
    cat = long_catalog(90)
    order = cat.order("long")
    read = set(order[:45])
    reply = views.track_reply(cat, track_state(cat, "long", read), "en", followed=True)
    validate_blocks(reply.blocks, "message")
    text = json.dumps(reply.blocks, ensure_ascii=False)
    assert "Steps 41–60 of 90" in text and "… and 30 more steps" in text
    assert "|Synthetic post 46>*" in text  # the next step, bold, on this page
    listed = set()
    offset = 0
    while True:
        page = views.track_reply(cat, track_state(cat, "long", read), "en", followed=True, offset=offset)
        validate_blocks(page.blocks, "message")
        blob = json.dumps(page.blocks, ensure_ascii=False)
        listed |= {int(n) for n in re.findall(r"Synthetic post (\d+)", blob.split("Read next")[0])}
        values = [
            json.loads(e["value"])
            for b in page.blocks
            if b["type"] == "actions"
            for e in b["elements"]
            if e["action_id"].startswith("more_steps") and e["text"]["text"] == "Show more steps"
        ]
        if not values:
            break
        offset = values[0]["o"]
    assert listed == set(range(1, 91))


def test_the_more_steps_button_goes_through_the_handlers(runtime, monkeypatch):
    cat = long_catalog(90)
    monkeypatch.setattr(runtime.holder, "_loaded", type(runtime.holder.loaded)(cat, runtime.holder.loaded.matcher))
    h = handlers(runtime)
    reply = h.action(ALICE, "more_steps", {"t": "long", "o": 80, "v": "track:long"})
    text = json.dumps(reply.blocks)
    assert "Steps 81\\u201390 of 90" in text and "Synthetic post 90" in text


# --- E: no dead end, every track walked to its end ------------------------------------------------


def assert_readable(cat: Catalog, post_id: str, blob: str, lang: str) -> None:
    """The recommended post has a link, or the plain "no link yet" line with the archive."""
    post = cat.post(post_id)
    url, kind = post.read_link(cat.manifest)
    title = str(esc(post.title)).replace("|", "¦")
    if kind == "archive":
        assert re.search(re.escape(title) + r"\*? ?[(（](no link yet|暂无链接)", blob), (post.id, lang)
        assert f"<{cat.manifest.archive_url}|" in blob
    else:
        assert f"<{url}|{title}>" in blob, (post.id, lang)
        if kind == "summary":
            assert ("summary of the " if lang == "en" else "原文的摘要") in blob


@pytest.mark.parametrize("any_migrated_db_url", ["sqlite"], indirect=True)  # the walk reads replies; SQL: its own tests
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_track_walked_to_its_end_recommends_only_readable_posts(runtime, lang):
    cat = runtime.holder.catalog
    h = handlers(runtime, locale="zh-CN" if lang == "zh" else None)
    for track in cat.tracks:
        who = Caller("T1", f"U{track.id[:8]}{lang}", "C1")
        h.command(who, f"follow {track.id}")
        read: set[str] = set()
        for cursor in range(len(cat.order(track.id))):
            nxt = paths.next_step(cat, track.id, read)
            assert nxt is not None
            view = track_view(h.context(who, lang), track.id)
            nxt_reply = h.command(who, f"next {track.id}")
            dm = RENDERER.dm_digest(cat, [track.id], read, lang)
            digest = compose_channel_digest(cat, preview_subscription(track.id, 1, cursor), None, lang)
            # QA round 8: a channel digest sends linked steps only (none when what is left waits for a link)
            assert all(cat.post(p).url for p in digest.steps)
            for payload in (view, nxt_reply, dm, *([digest.reply] if digest.reply else [])):
                assert payload is not None
                validate_blocks(payload.blocks, "message")
            for payload in (view, nxt_reply):
                assert_readable(cat, nxt.post, json.dumps(payload.blocks, ensure_ascii=False), lang)
            # a channel digest walks the path order (its cursor), passing over posts without a link
            for pid in digest.steps:
                assert_readable(cat, pid, json.dumps(digest.reply.blocks, ensure_ascii=False), lang)
            week = plan_reader_week(cat, [track.id], read, DEFAULT_MINUTES)  # the DM's steps (linked ones first)
            assert week
            for _tid, pid in week:
                assert_readable(cat, pid, json.dumps(dm.blocks, ensure_ascii=False), lang)
            clicked = h.action(who, "mark_read", {"p": nxt.post, "t": track.id, "v": f"track:{track.id}"})
            read.add(nxt.post)
            after = paths.next_step(cat, track.id, read)
            if after is not None:
                assert_readable(cat, after.post, json.dumps(clicked.blocks, ensure_ascii=False), lang)
        assert paths.next_step(cat, track.id, read) is None
        assert RENDERER.dm_digest(cat, [track.id], read, lang) is None


def test_a_chinese_what_is_question_about_a_track_opens_the_track(runtime):
    h = handlers(runtime)
    for question, track in (
        ("什么是推测解码", "spec"),
        ("推测解码是什么", "spec"),
        ("什么是 PD 分离", "pd"),
        ("量化是什么", "quant"),
    ):
        assert runtime.holder.loaded.matcher.match_track(question).track_id == track, question
        reply = h.command(ALICE, question)
        name = runtime.holder.catalog.track(track).names.zh  # the reply's language only
        assert reply.blocks[0]["type"] == "header" and name in reply.blocks[0]["text"]["text"], question


def test_a_fixed_offset_schedule_is_shown_as_utc_plus_in_every_reply(runtime):
    h = handlers(runtime)
    reply = h.command(ALICE, "subscribe spec mon 09:00 UTC+8")
    assert "UTC+8" in reply.text and "Etc/GMT" not in reply.text, reply.text
    listed = h.command(ALICE, "subscriptions")
    assert "(UTC+8)" in listed.text and "Etc/GMT" not in listed.text, listed.text
    assert h.command(ALICE, "dm on fri 9:00 UTC-5").text.count("UTC-5") == 1
