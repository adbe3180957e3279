"""``catalog/relations.yaml`` (posts that revisit earlier ones, issue 44) and a post's ``added`` day:
loaded into the catalog, exported, and refused by ``catalog check`` when they name unknown posts."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.catalog import load_catalog
from bot.domain.catalog.export import export_catalog
from bot.domain.catalog.loader import check_catalog
from tests.domain.catalog.helpers import CATALOG, catalog_copy


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    return catalog_copy(tmp_path / "catalog")


def _relations(root: Path, entries: list[dict]) -> None:
    (root / "relations.yaml").write_text(yaml.safe_dump(entries, allow_unicode=True), encoding="utf-8")


def _errors(root: Path) -> list[str]:
    catalog, issues = check_catalog(root)
    assert catalog is None
    return [str(i) for i in issues if i.severity == "error"]


NOTE = {"en": "A later part of the same story.", "zh": "同一主题的后续。"}


def test_the_repo_relations_join_a_later_post_to_an_earlier_one_with_notes_in_both_languages() -> None:
    catalog = load_catalog(CATALOG)
    assert len(catalog.relations) >= 10
    for rel in catalog.relations:
        post, earlier = catalog.post(rel.post), catalog.post(rel.earlier)
        assert earlier.published.earliest <= post.published.earliest, rel  # a post revisits an earlier one
        assert rel.note.en and rel.note.zh
    (spec,) = catalog.relations_of("speculators-v050")
    assert (spec.kind, spec.earlier) == ("updates", "speculators-v030")
    assert catalog.relations_of("kimi-k3-day-0")[0].kind == "follows"
    exported = {r["post"]: r for r in export_catalog(catalog)["relations"]}
    assert exported["kimi-k3-day-0"]["follows"] == "kimi-k3-preview" and set(exported["kimi-k3-day-0"]["note"]) == {
        "en",
        "zh",
    }


def test_added_is_when_a_post_entered_the_catalog_else_the_last_day_it_may_have_been_published(copy: Path) -> None:
    path = copy / "posts" / "vllm-blog.yaml"
    posts = yaml.safe_load(path.read_text(encoding="utf-8"))
    p_eagle = next(p for p in posts if p["id"] == "p-eagle")
    p_eagle["added"] = "2026-12-03"
    path.write_text(yaml.safe_dump(posts, allow_unicode=True, sort_keys=False), encoding="utf-8")
    catalog = load_catalog(copy)
    assert catalog.post("p-eagle").entered == dt.date(2026, 12, 3)
    assert catalog.post("spec-decode").entered == dt.date(2024, 10, 17)  # its publication day
    ranged = next(p for p in catalog.posts if p.published.precision == "range")
    assert ranged.entered == ranged.published.latest  # the day its seed was read
    exported = {p["id"]: p for p in export_catalog(catalog)["posts"]}
    assert exported["p-eagle"]["added"] == "2026-12-03" and exported["spec-decode"]["added"] == "2024-10-17"


def test_a_catalog_without_relations_loads_with_none(copy: Path) -> None:
    (copy / "relations.yaml").unlink()
    assert load_catalog(copy).relations == ()


def test_check_refuses_unknown_post_ids_and_names_them(copy: Path) -> None:
    _relations(copy, [{"post": "no-such-post", "follows": "p-eagle", "note": NOTE}])
    errors = _errors(copy)
    assert any("relations.yaml" in e and "no-such-post" in e for e in errors), errors
    _relations(copy, [{"post": "p-eagle", "updates": "gone-post", "note": NOTE}])
    assert any("unknown post id 'gone-post'" in e for e in _errors(copy))
    result = CliRunner().invoke(main, ["catalog", "check", str(copy)])
    assert result.exit_code != 0 and "gone-post" in result.output


@pytest.mark.parametrize(
    "entry, words",
    [
        ({"post": "p-eagle", "updates": "spec-decode", "follows": "eagle-3-1", "note": NOTE}, "exactly one"),
        ({"post": "p-eagle", "note": NOTE}, "exactly one"),
        ({"post": "p-eagle", "follows": "spec-decode", "note": {"en": "Only English."}}, "Chinese"),
        ({"post": "p-eagle", "follows": "p-eagle", "note": NOTE}, "itself"),
        ({"post": "p-eagle", "follows": "spec-decode", "kind": "x", "note": NOTE}, "kind"),
    ],
)
def test_check_refuses_a_malformed_relation(copy: Path, entry: dict, words: str) -> None:
    _relations(copy, [entry])
    assert any("relations.yaml" in e and words in e for e in _errors(copy)), _errors(copy)


def test_check_refuses_the_same_pair_twice(copy: Path) -> None:
    entry = {"post": "p-eagle", "follows": "spec-decode", "note": NOTE}
    _relations(copy, [entry, entry])
    assert any("related twice" in e for e in _errors(copy))


def test_the_kept_search_index_and_its_catalog_are_rebuilt_when_relations_change(copy: Path) -> None:
    """The search index is kept with its catalog, keyed by the catalog's files: relations.yaml is one."""
    from bot.domain.search.cache import catalog_key

    before = catalog_key(copy)
    _relations(copy, [{"post": "p-eagle", "follows": "spec-decode", "note": NOTE}])
    assert catalog_key(copy) != before


def test_a_former_post_id_is_read_as_the_current_one_with_a_warning(copy: Path) -> None:
    path = copy / "posts" / "vllm-blog.yaml"
    posts = yaml.safe_load(path.read_text(encoding="utf-8"))
    next(p for p in posts if p["id"] == "p-eagle")["aliases"] = ["parallel-eagle"]  # its id before a rename
    path.write_text(yaml.safe_dump(posts, allow_unicode=True, sort_keys=False), encoding="utf-8")
    _relations(copy, [{"post": "parallel-eagle", "follows": "spec-decode", "note": NOTE}])
    catalog, issues = check_catalog(copy)
    assert catalog is not None, [str(i) for i in issues if i.severity == "error"]
    (rel,) = catalog.relations
    assert (rel.post, rel.kind, rel.earlier) == ("p-eagle", "follows", "spec-decode")
    assert catalog.relations_of("p-eagle") == (rel,)
    (warning,) = [str(i) for i in issues if i.severity == "warning" and i.file == "relations.yaml"]
    assert "'parallel-eagle' is a former id of 'p-eagle'" in warning
    _relations(copy, [{"post": "parallel-eagle", "follows": "p-eagle", "note": NOTE}])  # the same post twice
    assert any("itself" in e for e in _errors(copy))
