"""A catalog folder is read afresh on each load: an edited file's edit is seen, and a broken edit
is reported with the file and the YAML problem."""

from __future__ import annotations

import pytest

from bot.domain.catalog import CatalogError, load_catalog
from bot.domain.search import load_vocabulary
from tests.domain.catalog.helpers import catalog_copy


def test_an_edited_file_is_read_again_and_a_broken_edit_reported(tmp_path):
    root = catalog_copy(tmp_path / "catalog")
    load_catalog(root)
    posts = root / "posts" / "vllm-blog.yaml"
    line = "  title: Improve TTFT for Multi-Turn Agentic Workloads with Bi-Directional KV Transfer in vLLM\n"
    text = posts.read_text(encoding="utf-8")
    assert line in text
    posts.write_text(text.replace(line, line.replace("in vLLM", "in vLLM (edited)")), encoding="utf-8")
    assert load_catalog(root).post("bidirectional-kv-transfer").title.endswith("in vLLM (edited)")
    posts.write_text("- [not: a post", encoding="utf-8")
    with pytest.raises(CatalogError, match="not valid YAML"):
        load_catalog(root)


def test_an_edited_vocabulary_is_read_again(tmp_path):
    root = catalog_copy(tmp_path / "catalog")
    cold = load_vocabulary(root)
    assert load_vocabulary(root) == cold
    vocab = root / "vocabulary.yaml"
    vocab.write_text(
        vocab.read_text(encoding="utf-8").replace('stopwords: ["a",', 'stopwords: ["zorblax", "a",', 1),
        encoding="utf-8",
    )
    assert "zorblax" in load_vocabulary(root).stopwords
