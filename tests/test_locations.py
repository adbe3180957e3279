"""``bot.locations.catalog_dir`` (which ``search`` uses without importing pydantic-settings) reads
``CATALOG_DIR`` as ``bot.config.Settings`` (pydantic-settings) does: the environment first, then
``./.env``, names case-insensitive."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.config import Settings
from bot.locations import DEFAULT_CATALOG_DIR, catalog_dir


@pytest.mark.parametrize(
    ("environ", "dotenv"),
    [
        ({}, None),
        ({"CATALOG_DIR": "/from/env"}, None),
        ({"catalog_dir": "/lower/case"}, None),
        ({}, "CATALOG_DIR=/from/dotenv\n"),
        ({}, "# a comment\nexport CATALOG_DIR='/quoted dir'\nOTHER=1\n"),
        ({}, "catalog_dir=/lower/dotenv\n"),
        ({"CATALOG_DIR": "/env/wins"}, "CATALOG_DIR=/dotenv/loses\n"),
        ({}, "SLACK_BOT_TOKEN=xoxb-not-this\n"),
    ],
)
def test_catalog_dir_agrees_with_settings(environ, dotenv, tmp_path, monkeypatch) -> None:
    for key in [k for k in os.environ if k.lower() == "catalog_dir"]:
        monkeypatch.delenv(key)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    if dotenv is not None:
        (tmp_path / ".env").write_text(dotenv, encoding="utf-8")
    assert catalog_dir() == Settings().catalog_dir


def test_an_option_wins_and_the_default_is_the_shipped_catalog(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CATALOG_DIR", raising=False)
    assert catalog_dir("/given") == Path("/given")
    assert catalog_dir() == DEFAULT_CATALOG_DIR and (DEFAULT_CATALOG_DIR / "manifest.yaml").is_file()
