"""Reading time and essential paths: the repo catalog's data, and `catalog check` refusing broken edits."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.domain.budget import ESSENTIAL_MAX_MINUTES, ESSENTIAL_STEPS_MAX, weeks_to_finish
from bot.domain.catalog import check_catalog, load_catalog
from bot.domain.catalog.export import export_catalog
from bot.domain.catalog.reading_time import file_minutes, reading_minutes
from tests.evaldata import REPO, SHARED

CATALOG = REPO / "catalog"


@pytest.fixture(scope="module")
def exported() -> dict[str, Any]:
    return export_catalog(load_catalog(CATALOG))


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "catalog"
    shutil.copytree(CATALOG, target)
    return target


def edit(path: Path, change: Callable[[Any], None]) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


def step_of(track: dict[str, Any], post: str) -> dict[str, Any]:
    return next(s for s in track["steps"] if s["post"] == post)


def errors(folder: Path) -> list[str]:
    catalog, issues = check_catalog(folder)
    assert catalog is None
    return [str(i) for i in issues if i.severity == "error"]


def assert_refused(folder: Path, prefix: str, words: str = "") -> None:
    found = [e for e in errors(folder) if e.startswith(prefix)]
    assert found, (prefix, errors(folder))
    assert any(words in e for e in found), (words, found)


# --- the repo catalog ---------------------------------------------------------------------------


def test_every_linked_blog_post_is_counted_and_nothing_else(exported):
    sources = {p["id"]: p for p in exported["posts"]}
    blog = yaml.safe_load((CATALOG / "posts/vllm-blog.yaml").read_text(encoding="utf-8"))
    for raw in blog:
        post = sources[raw["id"]]
        if raw["url"] is None:
            assert post["minutes"] is None and post["minutes_source"] is None, raw["id"]
        else:
            assert post["minutes_source"] == "counted" and post["minutes"] >= 1, raw["id"]
    elsewhere = yaml.safe_load((CATALOG / "posts/elsewhere.yaml").read_text(encoding="utf-8"))
    pages = _summary_pages()
    for raw in elsewhere:  # a step links to the summary page of another company's article: its text
        post = sources[raw["id"]]
        assert post["minutes_source"] == "counted", raw["id"]
        if raw["url"] in pages:  # the seed holds that page's text: counted by the catalog's rule
            assert post["minutes"] == reading_minutes(pages[raw["url"]]), raw["id"]
        else:
            assert post["minutes"] == 1, raw["id"]  # a summary page is one paragraph


def _summary_pages() -> dict[str, str]:
    """The summary pages of the seed ``002_*.txt`` (``../shared/seeds``) by URL, when it is there."""
    seeds = sorted((SHARED / "seeds").glob("002_*.txt"))
    if not seeds:
        return {}
    sections = re.split(r"^### ", seeds[0].read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]
    pages = {}
    for section in sections:
        if found := re.match(r"\[[^\]]*\]\(([^)]+)\)", section):
            pages[found.group(1)] = "### " + section
    return pages


@pytest.mark.skipif(
    not os.environ.get("VLLM_PATH_BLOG_SOURCE"),
    reason="set VLLM_PATH_BLOG_SOURCE to a checkout of vllm-project/vllm-project.github.io",
)
def test_counted_minutes_agree_with_the_blog_source(exported):
    posts_dir = Path(os.environ["VLLM_PATH_BLOG_SOURCE"]) / "_posts"
    by_path = {}
    for f in posts_dir.glob("*.md"):
        m = re.match(r"(\d{4})-(\d{2})-(\d{2})-(.+)\.md$", f.name)
        if m:
            by_path[f"/{m[1]}/{m[2]}/{m[3]}/{m[4]}.html"] = file_minutes(f.read_text(encoding="utf-8"))
    counted = [p for p in exported["posts"] if p["minutes_source"] == "counted"]
    checked = 0
    for post in counted:
        path = "/" + post["url"].split("/", 3)[3]
        if path in by_path:
            assert post["minutes"] == by_path[path], post["id"]
            checked += 1
    assert checked >= len(counted) - 1  # the playground post's URL carries its categories


def test_every_track_has_a_short_linked_essential_path(exported):
    posts = {p["id"]: p for p in exported["posts"]}
    for track in exported["tracks"]:
        ess, further = track["essentials"], track["further"]
        assert 1 <= len(ess) <= ESSENTIAL_STEPS_MAX, track["id"]
        assert ess + further == [s["post_id"] for s in track["steps"]], track["id"]
        assert all(posts[p]["url"] for p in ess), track["id"]
        assert sum(posts[p]["minutes"] for p in ess) <= ESSENTIAL_MAX_MINUTES, track["id"]
        assert track["steps"][0]["level"] == "intro" and track["steps"][0]["essential"], track["id"]
        assert track["essentials_reason"]["en"]
        if track["bilingual"]:
            assert track["essentials_reason"].get("zh"), track["id"]


def test_tracks_named_before_exist(exported):
    ids = {t["id"] for t in exported["tracks"]}
    before = {t["id"]: t["before"] for t in exported["tracks"]}
    assert "internals" in before["spec"] and "internals" in before["pd"]
    for tid, names in before.items():
        assert set(names) <= ids - {tid}, tid


def test_every_essential_path_fits_four_weeks_at_twenty_minutes(exported):
    posts = {p["id"]: p for p in exported["posts"]}
    for track in exported["tracks"]:
        minutes = [posts[p]["minutes"] for p in track["essentials"]]
        assert weeks_to_finish(minutes, 20) <= 4, track["id"]


def test_the_launch_post_opens_getting_started(exported):
    developers = next(t for t in exported["tracks"] if t["id"] == "developers")
    assert developers["essentials"][0] == "vllm-pagedattention-launch"


def test_no_track_ends_on_a_post_without_a_link(exported):
    posts = {p["id"]: p for p in exported["posts"]}
    ends = {t["id"]: t["steps"][-1]["post_id"] for t in exported["tracks"]}
    assert not {tid: pid for tid, pid in ends.items() if not posts[pid]["url"]}


def test_the_quantization_path_starts_on_weights_and_reaches_4_bit_floats(exported):
    """The blog's own `kv_cache` tag marks KV-cache posts: one at most, and not first; NVFP4 or
    MXFP4 (our tags) has a step."""
    posts = {p["id"]: p for p in exported["posts"]}
    ess = [posts[p] for p in next(t for t in exported["tracks"] if t["id"] == "quant")["essentials"]]
    kv = [p["id"] for p in ess if "kv_cache" in p["blog_tags"]]
    assert len(kv) <= 1 and ess[0]["id"] not in kv, kv
    assert any({"nvfp4", "mxfp4"} & set(p["tags"]) for p in ess)


# --- catalog check refuses ----------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -3, "5", 2.5, True])
def test_minutes_must_be_a_positive_whole_number(copy: Path, value: object):
    edit(copy / "posts/vllm-blog.yaml", lambda d: next(p for p in d if p["id"] == "spec-decode").update(minutes=value))
    assert_refused(copy, "posts/vllm-blog.yaml: post 'spec-decode': minutes")


def test_minutes_and_their_source_go_together(copy: Path):
    def drop(d):
        next(p for p in d if p["id"] == "spec-decode").pop("minutes_source")
        next(p for p in d if p["id"] == "p-eagle").pop("minutes")

    edit(copy / "posts/vllm-blog.yaml", drop)
    found = errors(copy)
    assert any("post 'spec-decode'" in e and "minutes needs minutes_source" in e for e in found), found
    assert any("post 'p-eagle'" in e and "minutes_source is set but minutes is not" in e for e in found), found


def test_a_post_without_a_link_cannot_be_essential(copy: Path):
    edit(copy / "tracks/pd.yaml", lambda d: step_of(d, "taking-vllm-apart").update(essential=True))
    assert_refused(copy, "tracks/pd.yaml: track 'pd' step 'taking-vllm-apart': essential", "link is not known")


def test_at_most_eight_essential_steps(copy: Path):
    edit(copy / "tracks/spec.yaml", lambda d: step_of(d, "extract-hidden-states").update(essential=True))
    assert_refused(copy, "tracks/spec.yaml: track 'spec': essential", "9 essential steps; at most 8")


def test_at_most_ninety_minutes_of_essentials(copy: Path):
    def more(d):
        for pid in ("kv-offloading-connector", "vllm-hpc-ops"):
            step_of(d, pid).update(essential=True)

    edit(copy / "tracks/internals.yaml", more)
    assert_refused(copy, "tracks/internals.yaml: track 'internals': essential", "94 minutes; at most 90")


def test_the_first_essential_step_is_an_intro(copy: Path):
    edit(copy / "tracks/spec.yaml", lambda d: step_of(d, "spec-decode").update(level="core"))
    assert_refused(copy, "tracks/spec.yaml: track 'spec' step 'spec-decode': level", "must be 'intro'")


def test_essential_steps_come_before_further_reading(copy: Path):
    edit(copy / "tracks/spec.yaml", lambda d: step_of(d, "p-eagle").update(after=["redhat-p-eagle-speculators"]))
    assert_refused(copy, "tracks/spec.yaml: track 'spec' step 'p-eagle': essential", "after further reading")


def test_every_track_needs_essentials_once_one_has_them(copy: Path):
    edit(copy / "tracks/rl.yaml", lambda d: [s.pop("essential", None) for s in d["steps"]])
    assert_refused(copy, "tracks/rl.yaml: track 'rl': essential", "no essential step")


def test_a_catalog_from_before_essential_paths_still_loads(copy: Path):
    for path in (copy / "tracks").glob("*.yaml"):
        edit(path, lambda d: [s.pop("essential", None) for s in d["steps"]])
    catalog, issues = check_catalog(copy)
    assert catalog is not None, [str(i) for i in issues if i.severity == "error"]
    assert catalog.essentials("spec") == () and catalog.further("spec") == catalog.order("spec")


def test_a_bilingual_track_needs_a_chinese_reason(copy: Path):
    edit(copy / "tracks/spec.yaml", lambda d: d["essentials_reason"].pop("zh"))
    assert_refused(copy, "tracks/spec.yaml: track 'spec': essentials_reason.zh")


@pytest.mark.parametrize(
    "before, words", [(["no-such-track"], "unknown track"), (["spec"], "cannot be read before itself")]
)
def test_unknown_or_self_before(copy: Path, before: list[str], words: str):
    edit(copy / "tracks/spec.yaml", lambda d: d.update(before=before))
    assert_refused(copy, "tracks/spec.yaml: track 'spec': before", words)


def test_a_cycle_of_before_tracks(copy: Path):
    edit(copy / "tracks/internals.yaml", lambda d: d.update(before=["spec"]))
    found = [e for e in errors(copy) if ": before: cycle" in e]
    assert found, errors(copy)
    assert "internals -> spec -> internals" in found[0] or "spec -> internals -> spec" in found[0], found
