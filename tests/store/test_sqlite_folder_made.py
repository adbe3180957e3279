"""An SQLite ``DATABASE_URL`` whose folder is missing: the folder is made and a warning names it once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.store.db import make_engine


def test_a_missing_folder_is_made_and_named_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "not" / "there"
    url = f"sqlite:///{folder / 'reading.db'}"
    with caplog.at_level(logging.WARNING, logger="bot.store.db"):
        make_engine(url).dispose()
        make_engine(url).dispose()
    assert folder.is_dir()
    said = [r.getMessage() for r in caplog.records if r.name == "bot.store.db"]
    assert len(said) == 1, said
    assert str(folder) in said[0] and "reading.db" in said[0]


def test_an_existing_folder_is_not_mentioned(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.store.db"):
        make_engine(f"sqlite:///{tmp_path / 'reading.db'}").dispose()
    assert not [r for r in caplog.records if r.name == "bot.store.db"]
