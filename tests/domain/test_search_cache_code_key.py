"""The kept catalog's and index's keys take the code as the process first read it: a process running
older code never keeps its pickles under the key of newer files on disk (a deploy beside a running
server), where the new code would restore objects of the old shape (search2's finding, 2026-12-07)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.domain.search import cache

ROOT = Path(__file__).resolve().parents[2] / "catalog"


@pytest.fixture
def fresh_code_digest():
    cache._code_digest.cache_clear()
    yield
    cache._code_digest.cache_clear()


def _deploy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search package's and the catalog package's files on disk change (as a deploy changes them)."""
    package = Path(cache.__file__).parent
    original = Path.read_bytes

    def newer(self: Path) -> bytes:
        data = original(self)
        touched = self.suffix == ".py" and (package in self.parents or package.parent / "catalog" in self.parents)
        return data + b"\n# newer\n" if touched else data

    monkeypatch.setattr(Path, "read_bytes", newer)


def test_a_running_process_keeps_the_key_of_the_code_it_read(fresh_code_digest, monkeypatch) -> None:
    before = cache.vocabulary_key(ROOT), cache.catalog_key(ROOT), cache.index_key(ROOT)
    _deploy(monkeypatch)
    assert (cache.vocabulary_key(ROOT), cache.catalog_key(ROOT), cache.index_key(ROOT)) == before


def test_a_new_process_keys_by_the_new_code(fresh_code_digest, monkeypatch) -> None:
    before = cache.vocabulary_key(ROOT), cache.catalog_key(ROOT)
    _deploy(monkeypatch)
    cache._code_digest.cache_clear()  # a process started after the deploy
    after = cache.vocabulary_key(ROOT), cache.catalog_key(ROOT)
    assert after[0] != before[0] and after[1] != before[1]


def test_the_text_folding_is_part_of_the_search_code(fresh_code_digest, monkeypatch) -> None:
    """A change to ``bot/domain/text.py`` alone (a Traditional character's fold) builds the index
    again: the index was read with it (round zh's finding, 2026-12-07)."""
    before = cache._code_digest("search")
    cache._code_digest.cache_clear()
    text_py = Path(cache.__file__).parent.parent / "text.py"
    original = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: original(self) + (b"\n# fold\n" if self == text_py else b""))
    assert cache._code_digest("search") != before
