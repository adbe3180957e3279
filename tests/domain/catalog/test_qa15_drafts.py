"""QA round 15, drafts and accepts on a copy of the catalog: a feed entry with a Chinese title
became draft ``vllm`` and post ``vllm`` (``read vllm`` then marked it), so a draft's id comes from
its link's slug, else a title of two usable words, else the date and a short hash, never a common
word alone, a track id or alias; a summary with Slack markup or over the modal's 600 characters is
refused by the one accept rule (the CLI and the Slack modal)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.catalog import load_catalog
from bot.domain.catalog.accept import MAX_SUMMARY, Review, ReviewError, accept
from bot.domain.catalog.drafts import Draft, FeedSource, new_drafts, write_draft
from bot.domain.catalog.models import Source
from bot.domain.feed import parse_feed
from tests.domain.catalog.helpers import catalog_copy
from tests.domain.catalog.test_feed_drafts import CONTENT, atom, entry
from tests.domain.catalog.test_qa13_accept import QUESTIONS, QUESTIONS_ZH, SUMMARY, SUMMARY_ZH

ZH_TITLE = "如何在 vLLM 中使用推测解码"
FEED = FeedSource(name="Zhihu", url="https://example.cn/feed.xml", kind="company", about="vLLM")


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no pid file of a running process is signalled
    return catalog_copy(tmp_path / "catalog")


def _ids(root: Path, *entries: tuple[str, str]) -> list[str]:
    posts, _ = parse_feed(atom([entry(t, u, "2026-12-05", "vLLM", CONTENT) for t, u in entries]))
    return [d.id for d in new_drafts(posts, FEED, load_catalog(root), [])]


def test_a_chinese_title_never_makes_a_common_word_or_a_track_id_an_id(root: Path) -> None:
    catalog = load_catalog(root)
    ids = _ids(
        root,
        (ZH_TITLE, "https://example.cn/p/12345"),  # no slug in the link, one ASCII word in the title
        ("vLLM 推测解码", "https://example.cn/spec"),  # the link's slug is a track id
        ("vLLM 博客", "https://example.cn/2026-12-05.html"),  # the link is a date only
        ("另一篇", "https://example.cn/2026-12-04-eagle-three-drafting.html"),  # a dated slug
    )
    assert ids[3] == "eagle-three-drafting"
    for made in ids[:3]:
        assert made.startswith("post-2026-12-05-") and len(made) == len("post-2026-12-05-") + 6, made
        assert not catalog.has_track(made) and not catalog.has_post(made)
    assert len(set(ids)) == 4
    assert "vllm" not in ids and "spec" not in ids


def test_a_title_of_two_usable_words_still_names_the_draft(root: Path) -> None:
    assert _ids(root, ("Faster EAGLE drafting in vLLM", "https://example.cn/p/77")) == ["faster-eagle-drafting-in-vllm"]


def _draft(root: Path, draft_id: str, url: str = "https://example.cn/p/12345") -> None:
    write_draft(
        root,
        Draft(
            id=draft_id,
            title=ZH_TITLE,
            url=url,
            published=dt.date(2026, 12, 5),
            source=Source(kind="company", name="Zhihu"),
            feed="Zhihu",
            minutes=7,
            minutes_source="counted",
        ),
    )


REVIEW = Review(
    track="spec",
    essential=False,
    summary=SUMMARY,
    summary_zh=SUMMARY_ZH,
    questions=QUESTIONS,
    questions_zh=QUESTIONS_ZH,
)


@pytest.mark.parametrize("draft_id", ["vllm", "spec"])
def test_a_draft_named_by_a_common_word_or_a_track_is_accepted_under_another_id(root: Path, draft_id: str) -> None:
    _draft(root, draft_id)
    done = accept(root, draft_id, REVIEW, today=dt.date(2026, 12, 28))
    assert done.post != draft_id and done.post.startswith("post-2026-12-05-")
    catalog = load_catalog(root)
    assert catalog.resolve_post_id(draft_id) is None and done.post in catalog.order("spec")
    assert not (root / "drafts" / f"{draft_id}.yaml").exists()


def _accept_cli(root: Path, summary: str) -> tuple[int, str]:
    args = ["catalog", "accept", "medusa", "--track", "spec", "--further", "--summary", summary]
    args += ["--summary-zh", SUMMARY_ZH]
    for q in QUESTIONS:
        args += ["--question", q]
    for q in QUESTIONS_ZH:
        args += ["--question-zh", q]
    done = CliRunner().invoke(main, args, env={"CATALOG_DIR": str(root)})
    return done.exit_code, done.output


@pytest.mark.parametrize(
    "markup", ["<!channel> read this", "ask <@U0ALL> about it", "see <https://evil.example|the docs>", "<!here>"]
)
def test_a_summary_with_slack_markup_is_refused(root: Path, markup: str) -> None:
    _draft(root, "medusa", "https://example.cn/2026/12/05/medusa.html")
    version = load_catalog(root).version
    code, out = _accept_cli(root, f"{SUMMARY} {markup}")
    assert code == 1 and "--summary holds Slack markup" in out and "nothing written" in out, out
    assert load_catalog(root).version == version and (root / "drafts" / "medusa.yaml").is_file()
    with pytest.raises(ReviewError, match="--summary-zh holds Slack markup"):
        accept(root, "medusa", Review(track="spec", summary=SUMMARY, summary_zh=f"{SUMMARY_ZH}{markup}"))


def test_a_summary_over_the_modal_limit_is_refused_naming_the_limit(root: Path) -> None:
    _draft(root, "medusa", "https://example.cn/2026/12/05/medusa.html")
    long = (SUMMARY + " ") * 80
    code, out = _accept_cli(root, long[:5100])
    assert code == 1 and f"--summary is 5,100 characters long: at most {MAX_SUMMARY} characters" in out, out
    assert MAX_SUMMARY == 600  # the review modal's max_length (bot/slack/views/feed.py)
    code, out = _accept_cli(root, long[:MAX_SUMMARY].strip())
    assert code == 0, out


def test_a_position_below_one_is_refused_not_taken_as_the_default(root: Path) -> None:
    _draft(root, "medusa", "https://example.cn/2026/12/05/medusa.html")
    for position in (0, -5):
        with pytest.raises(ReviewError, match=f"position {position} is outside 1"):
            accept(root, "medusa", Review(**{**REVIEW.__dict__, "position": position}))
