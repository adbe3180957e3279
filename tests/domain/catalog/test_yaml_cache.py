"""The parsed-YAML cache beside the catalog (bot/domain/catalog/yaml_cache.py): a file parsed
before is read back, an edited one is parsed again, and a broken or unwritable cache changes
nothing but the time it takes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from bot.domain.catalog import CatalogError, load_catalog
from bot.domain.catalog.models import Track
from bot.domain.catalog.yaml_cache import CACHE_DIR, YamlCache
from bot.domain.search import load_vocabulary
from tests.domain.catalog.helpers import catalog_copy


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each file PyYAML parses (the real parse still runs)."""
    seen: list[str] = []
    real = yaml.load

    def counting(stream, Loader):  # type: ignore[no-untyped-def]
        seen.append(Path(getattr(stream, "name", "?")).name)
        return real(stream, Loader=Loader)

    monkeypatch.setattr(yaml, "load", counting)
    return seen


def _summary(catalog) -> tuple:  # type: ignore[no-untyped-def]
    return (
        catalog.version,
        [(p.id, p.title, p.minutes, p.summary.en) for p in catalog.posts],
        [(t.id, catalog.order(t.id)) for t in catalog.tracks],
    )


def test_a_second_load_parses_nothing_and_gives_the_same_catalog(tmp_path, monkeypatch):
    root = catalog_copy(tmp_path / "catalog")
    cold = load_catalog(root)
    assert (root / CACHE_DIR / "vllm-path-catalog.pickle").is_file()
    seen = _parses(monkeypatch)
    warm = load_catalog(root)
    assert seen == []
    assert _summary(warm) == _summary(cold)


def test_an_edited_file_is_parsed_again_and_its_edit_seen(tmp_path, monkeypatch):
    root = catalog_copy(tmp_path / "catalog")
    load_catalog(root)
    posts = root / "posts" / "vllm-blog.yaml"
    line = "  title: Improve TTFT for Multi-Turn Agentic Workloads with Bi-Directional KV Transfer in vLLM\n"
    text = posts.read_text(encoding="utf-8")
    assert line in text
    posts.write_text(text.replace(line, line.replace("in vLLM", "in vLLM (edited)")), encoding="utf-8")
    seen = _parses(monkeypatch)
    assert load_catalog(root).post("bidirectional-kv-transfer").title.endswith("in vLLM (edited)")
    assert seen == ["vllm-blog.yaml"]  # only the edited file
    posts.write_text("- [not: a post", encoding="utf-8")  # and a broken edit is reported
    with pytest.raises(CatalogError, match="not valid YAML"):
        load_catalog(root)


def test_a_corrupt_cache_is_ignored_and_replaced(tmp_path):
    root = catalog_copy(tmp_path / "catalog")
    expected = _summary(load_catalog(root))
    for name in ("catalog", "loaded"):
        (root / CACHE_DIR / f"vllm-path-{name}.pickle").write_bytes(b"not a pickle")
    assert _summary(load_catalog(root)) == expected
    assert YamlCache(root, "catalog")._old  # written again, readable
    assert _summary(load_catalog(root)) == expected  # and the loaded catalog too


def test_a_catalog_loaded_before_is_not_validated_again_until_a_file_changes(tmp_path, monkeypatch):
    root = catalog_copy(tmp_path / "catalog")
    cold = load_catalog(root)
    validated: list[str] = []
    real = Track.model_validate

    def counting(raw, *args, **kwargs):  # type: ignore[no-untyped-def]
        validated.append(raw.get("id"))
        return real(raw, *args, **kwargs)

    monkeypatch.setattr(Track, "model_validate", counting)
    assert _summary(load_catalog(root)) == _summary(cold) and validated == []
    assert load_catalog(root, check_versions=False).version == cold.version and validated  # other checks
    validated.clear()
    track = next((root / "tracks").glob("*.yaml"))
    track.write_text(track.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert _summary(load_catalog(root)) == _summary(cold) and validated  # a file changed: checked again


def test_a_cache_that_cannot_be_written_changes_nothing(tmp_path):
    root = catalog_copy(tmp_path / "catalog")
    expected = _summary(load_catalog(root))
    blocker = root / CACHE_DIR
    shutil.rmtree(blocker, ignore_errors=True)  # the copy's cache, if the repo's catalog had one
    blocker.write_text("a file where the cache folder would be", encoding="utf-8")
    assert _summary(load_catalog(root)) == expected
    assert load_vocabulary(root).synonyms
    assert blocker.read_text(encoding="utf-8").startswith("a file")


def test_the_vocabulary_is_cached_and_an_edit_seen(tmp_path, monkeypatch):
    root = catalog_copy(tmp_path / "catalog")
    cold = load_vocabulary(root)
    seen = _parses(monkeypatch)
    assert load_vocabulary(root) == cold and seen == []
    vocab = root / "vocabulary.yaml"
    vocab.write_text(
        vocab.read_text(encoding="utf-8").replace('stopwords: ["a",', 'stopwords: ["zorblax", "a",', 1),
        encoding="utf-8",
    )
    assert "zorblax" in load_vocabulary(root).stopwords
    assert seen == ["vocabulary.yaml"]
