"""QA round 13, ``vllm-path catalog accept`` (click's runner, ``CATALOG_DIR`` a copy of the
catalog): a Chinese text given as the English ``--summary`` is refused naming ``--summary-zh``; a
too-long essential path names ``--further`` and a later ``--position``; an id already accepted is
said to be in the catalog, and an unknown one lists the drafts there are."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.catalog import load_catalog
from bot.domain.catalog.accept import Review, accept
from bot.domain.catalog.drafts import Draft, Placement, write_draft
from bot.domain.catalog.models import Source
from tests.domain.catalog.helpers import catalog_copy

SUMMARY = "Medusa heads draft several tokens at once from the model itself."
SUMMARY_ZH = "Medusa 头从模型本身一次起草多个 token。"
QUESTIONS = (
    "How do Medusa heads draft tokens?",
    "Do Medusa heads need a separate draft model?",
    "What speedup do Medusa heads give?",
)
QUESTIONS_ZH = ("Medusa 头如何起草 token？", "Medusa 需要单独的草稿模型吗？")


@pytest.fixture()
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no pid file of a running process is signalled
    root = catalog_copy(tmp_path / "catalog")
    write_draft(
        root,
        Draft(
            id="medusa-heads",
            title="Medusa Heads for Speculative Decoding in vLLM",
            url="https://vllm-project.github.io/2026/12/05/medusa-heads.html",
            published=dt.date(2026, 12, 5),
            source=Source(kind="vllm-blog"),
            feed="vLLM blog",
            minutes=7,
            minutes_source="counted",
            suggested=(Placement(track="spec", position=12, reason="shares speculative decoding"),),
        ),
    )
    return root


def _accept(root: Path, *args: str):
    return CliRunner().invoke(main, ["catalog", "accept", *args], env={"CATALOG_DIR": str(root)})


def _review_args(summary: str = SUMMARY, summary_zh: str = SUMMARY_ZH) -> list[str]:
    out = ["--summary", summary, "--summary-zh", summary_zh]
    for q in QUESTIONS:
        out += ["--question", q]
    for q in QUESTIONS_ZH:
        out += ["--question-zh", q]
    return out


def test_a_chinese_english_summary_is_refused_naming_both_options(copy: Path) -> None:
    version = load_catalog(copy).version
    done = _accept(copy, "medusa-heads", "--track", "spec", "--further", *_review_args("树形草稿让推测解码更快。"))
    assert done.exit_code == 1
    assert "--summary is the English summary but it is in Chinese" in done.output and "--summary-zh" in done.output
    assert load_catalog(copy).version == version and (copy / "drafts" / "medusa-heads.yaml").is_file()
    swapped = _accept(copy, "medusa-heads", "--track", "spec", "--further", *_review_args(SUMMARY, SUMMARY))
    assert swapped.exit_code == 1 and "--summary-zh is the Chinese summary but it has no Chinese" in swapped.output
    # The rule sits in the review code the Slack review modal calls too.
    with pytest.raises(ValueError, match="in Chinese: give that text as --summary-zh"):
        accept(copy, "medusa-heads", Review(track="spec", summary="树形草稿让推测解码更快。", summary_zh=SUMMARY_ZH))


def test_an_essential_path_too_long_names_further_and_a_later_position(copy: Path) -> None:
    n = len(load_catalog(copy).essentials("spec"))
    done = _accept(copy, "medusa-heads", "--track", "spec", "--position", "3", *_review_args())
    assert done.exit_code == 1
    line = next(x for x in done.output.splitlines() if "essential steps; at most" in x)
    assert f"(pass --further, or --position {n + 1} or later: after the {n} essential steps)" in line
    later = _accept(copy, "medusa-heads", "--track", "spec", "--position", str(n + 1), *_review_args())
    assert later.exit_code == 0, later.output  # the hint's own advice is accepted


def test_an_accepted_draft_is_said_to_be_in_the_catalog_and_an_unknown_one_lists_the_drafts(copy: Path) -> None:
    nope = _accept(copy, "nope")
    assert nope.exit_code == 1 and "no draft 'nope'" in nope.output and "the drafts: medusa-heads" in nope.output
    done = _accept(copy, "medusa-heads", "--track", "spec", "--further", *_review_args())
    assert done.exit_code == 0, done.output
    position = load_catalog(copy).order("spec").index("medusa-heads") + 1
    again = _accept(copy, "medusa-heads")
    assert again.exit_code == 1 and "no draft" not in again.output
    assert "'medusa-heads' is already in the catalog (spec step" in again.output
    assert f"spec step {position} of " in again.output
    none = _accept(copy, "nope")
    assert "there are no drafts" in none.output
