"""The repository's catalog: valid, complete, and honouring every reading-order constraint."""

from __future__ import annotations

import json
import unicodedata

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.cli.show import track_text
from bot.domain.catalog import load_catalog
from bot.domain.catalog.export import export_catalog
from tests.evaldata import REPO, eval_file, read_tsv

CATALOG = REPO / "catalog"
REQUIRED_TRACKS = {"spec": "推测解码", "pd": "PD 分离服务", "quant": "量化", "rl": None, "omni": None, "hardware": None}


@pytest.fixture(scope="module")
def exported() -> dict:
    result = CliRunner().invoke(main, ["catalog", "export", "--json", "--catalog", str(CATALOG)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_check_passes_on_the_repo_catalog():
    result = CliRunner().invoke(main, ["catalog", "check", str(CATALOG)])
    assert result.exit_code == 0, result.output
    # 104 seed posts + the 3 referenced posts of 2026.12.0 + the 50 other posts of the blog's
    # 2026-08-21 snapshot (2026.12.1).
    assert "ok: 157 posts" in result.output


def test_export_lists_every_post_once_and_each_is_in_a_track(exported):
    posts = exported["posts"]
    assert len(posts) == 157
    assert len({p["id"] for p in posts}) == 157
    assert len({p["title"] for p in posts}) == 157
    assert all(p["tracks"] for p in posts), [p["id"] for p in posts if not p["tracks"]]


def test_every_seed_post_is_in_the_catalog_with_its_facts(exported):
    by_title = {p["title"]: p for p in exported["posts"]}
    facts_file = eval_file("post-facts.tsv", "reference")
    facts = read_tsv(facts_file) if facts_file.is_file() else []
    if not facts:
        pytest.skip("shared/reference/post-facts.tsv not available")
    for row in facts[1:] if facts[0][0] == "source_seed" else facts:
        title, date, url = row[1], row[2], row[3]
        assert title in by_title, title
        post = by_title[title]
        if url:
            assert post["url"] == url
        else:
            assert post["url"] is None  # unknown rather than guessed
        if date:
            assert post["published"] == date


PERMALINK_CATEGORIES = {"introducing-vllm-playground": "community/tools"}
"""Posts whose front matter sets ``categories`` (blog source, ``_posts/2026-01-02-introducing-vllm-
playground.md``: ``categories: [community, tools]``): the blog's ``_config.yml`` sets no
``permalink``, so Jekyll's default ``/:categories/:year/:month/:day/:title.html`` puts them in front
of the date. blog-front-matter.tsv builds every URL without categories, so its URL is corrected here."""


def _served_url(url: str, slug: str) -> str:
    """The URL Jekyll serves for a row of blog-front-matter.tsv (see PERMALINK_CATEGORIES)."""
    categories = PERMALINK_CATEGORIES.get(slug)
    if not categories:
        return url
    base, _, path = url.partition(".io/")
    return f"{base}.io/{categories}/{path}"


def test_every_post_of_the_blog_snapshot_is_in_the_catalog_once_with_its_facts(exported):
    path = eval_file("blog-front-matter.tsv", "reference")
    if not path.is_file():
        pytest.skip("shared/reference/blog-front-matter.tsv not available")
    rows = read_tsv(path)
    if rows and rows[0][0] == "date":
        rows = rows[1:]
    assert len(rows) == 125
    by_url: dict[str, list[dict]] = {}
    for post in exported["posts"]:
        by_url.setdefault(post["url"], []).append(post)
    for date, slug, url, title, authors, tags, _summary in rows:
        url = _served_url(url, slug)
        assert len(by_url.get(url, [])) == 1, url
        post = by_url[url][0]
        # The blog writes a few titles with no-break spaces; the catalog keeps the seed's spaces.
        assert (unicodedata.normalize("NFKC", post["title"]), post["published"]) == (
            unicodedata.normalize("NFKC", title),
            date,
        ), url
        assert post["blog_tags"] == [t for t in tags.split(",") if t], url
        assert post["tracks"], url
        if authors:  # the front matter names its authors: the catalog keeps them
            assert post["authors"], url


def test_summary_pages_are_marked_as_such(exported):
    for post in exported["posts"]:
        on_yomu = (post["url"] or "").startswith("https://yomu.fyi/")
        assert (post["link_kind"] == "summary") == on_yomu, post["id"]


def test_required_tracks_have_english_and_chinese_names(exported):
    tracks = {t["id"]: t for t in exported["tracks"]}
    for tid, zh in REQUIRED_TRACKS.items():
        assert tid in tracks, tid
        names = tracks[tid]["names"]
        assert names["en"] and names["zh"], tid
        if zh:
            assert names["zh"] == zh


def test_all_path_order_constraints_hold_in_the_exported_order(exported):
    titles = {p["id"]: p["title"] for p in exported["posts"]}
    tracks = {t["id"]: [titles[s["post_id"]] for s in t["steps"]] for t in exported["tracks"]}
    rows = read_tsv(eval_file("path-order.tsv"))
    assert len(rows) == 8
    for track, earlier, later in rows:
        order = tracks[track]
        assert earlier in order and later in order, (track, earlier, later)
        assert order.index(earlier) < order.index(later), (track, earlier, later)


def test_bilingual_tracks_have_chinese_notes_and_summaries():
    cat = load_catalog(CATALOG)
    for tid in ("spec", "pd"):
        track = cat.track(tid)
        assert track.bilingual
        for step in track.steps:
            assert step.note and step.note.zh, (tid, step.post)
            assert cat.post(step.post).summary.zh, step.post


def test_referenced_posts_are_steps_or_external_prerequisites():
    cat = load_catalog(CATALOG)
    rows = read_tsv(eval_file("referenced-posts.tsv", "reference"))
    titles = {p.title: p.id for p in cat.posts}
    externals = {x.title for t in cat.tracks for s in t.steps for x in s.external_prerequisites}
    resolved = [r for r in rows if r[2] and not r[2].startswith("(")]
    assert len(resolved) == 3
    for row in resolved:  # 2026.12.0 made the three real posts steps of their tracks
        pid = titles[row[2]]
        assert cat.tracks_of(pid), row[2]
        assert cat.post(pid).url == row[4].replace(cat.manifest.blog_base_url, "")
    unresolved = [r for r in rows if not r[2] or r[2].startswith("(")]
    assert len(externals) >= len(unresolved)


def test_conflicting_claims_are_resolved_with_a_reason():
    cat = load_catalog(CATALOG)
    # Since 2026.12.5 P-EAGLE ends spec's essential path (further reading follows it); since
    # 2026.12.10 TileRT ends pd, right after Qwen3.8 PD, which has no link yet.
    assert cat.essentials("spec")[-1] == "p-eagle"
    assert cat.order("pd")[-2:] == ("qwen3-8-pd-serving", "vllm-tilert-pd")
    for tid in ("spec", "pd"):
        claimed_last = [s.post for s in cat.track(tid).steps for c in s.claims if c.position == "last" and not c.among]
        resolved = {p for r in cat.track(tid).resolutions for p in r.steps}
        # Every whole-path "read last" claim that lost is covered by a written resolution.
        for pid in claimed_last:
            if pid != cat.order(tid)[-1]:
                assert pid in resolved, (tid, pid)
    assert any("resolved:" in w for w in cat.warnings)
    assert not any("unresolved" in w for w in cat.warnings)


def test_show_renders_the_path_in_order():
    cat = load_catalog(CATALOG)
    text = track_text(cat, "spec")
    positions = [text.index(cat.post(pid).title) for pid in cat.order("spec")]
    assert positions == sorted(positions)
    result = CliRunner().invoke(main, ["catalog", "show", "推测解码", "--catalog", str(CATALOG)])
    assert result.exit_code == 0 and "P-EAGLE" in result.output


def test_export_shape_has_steps_with_fields(exported):
    step = exported["tracks"][0]["steps"][0]
    assert set(step) >= {"post_id", "after", "level", "external_prerequisites"}
    assert exported["version"] == load_catalog(CATALOG).version
    assert export_catalog(load_catalog(CATALOG)) == exported


def test_posts_the_blog_tags_speculative_decoding_are_steps_of_the_spec_track(exported):
    """Each post the blog tags speculative-decoding is a spec step, or an essential step of a track
    spec names in ``before`` (the engine tour, since 2026.12.5 read in the internals track)."""
    tracks = {t["id"]: t for t in exported["tracks"]}
    spec = {s["post_id"] for s in tracks["spec"]["steps"]}
    before = {pid for tid in tracks["spec"]["before"] for pid in tracks[tid]["essentials"]}
    tagged = {p["id"] for p in exported["posts"] if "speculative-decoding" in p["blog_tags"]}
    assert {"anatomy-of-vllm", "extract-hidden-states"} <= tagged
    assert "anatomy-of-vllm" in before and "anatomy-of-vllm" not in spec
    assert tagged <= spec | before, tagged - spec - before


def test_concept_posts_open_their_paths_before_the_case_studies():
    cat = load_catalog(CATALOG)
    assert cat.order("spec")[:2] == ("spec-decode", "laguna-xs2-dflash-llm-compressor")
    assert cat.order("internals")[:3] == ("vllm-pagedattention-launch", "vllm-v1", "anatomy-of-vllm")
    assert cat.order("agentic")[0] == "vllm-pagedattention-launch"
    assert cat.order("developers")[0] == "vllm-pagedattention-launch"
    assert cat.order("apis")[0] == "struct-decode-intro"
    # The AgentX overview has no link, so it cannot be essential: it is further reading, after the
    # linked further steps that are ready (issue 24: never "Read next" while a linked step remains).
    assert "agentx-agentic-serving" in cat.further("agentic")
    # Taking vLLM Apart has no link: further reading, after the linked further steps that are
    # ready (issue 24), still before the posts whose hard ``after`` names it.
    for tid in ("pd", "agentic", "ops"):
        order = cat.order(tid)
        assert "taking-vllm-apart" in cat.further(tid)
        for step in cat.path(tid):
            if "taking-vllm-apart" in step.after:
                assert order.index("taking-vllm-apart") < order.index(step.post), (tid, step.post)
