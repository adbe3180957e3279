"""``bot.config.Settings`` reads the environment as pydantic-settings does (the environment first,
then ``./.env``, names case-insensitive) without importing it, and ``bot.locations.catalog_dir``
reads ``CATALOG_DIR`` as ``Settings`` does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import create_model
from pydantic_settings import BaseSettings, SettingsConfigDict

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


class _DotenvSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")


_Reference = create_model(  # Settings' fields, read by pydantic-settings itself
    "_Reference", __base__=_DotenvSettings, **{n: (f.annotation, f) for n, f in Settings.model_fields.items()}
)


@pytest.mark.parametrize(
    ("environ", "dotenv"),
    [
        ({}, None),
        ({"DATABASE_URL": "sqlite:///x.db", "slack_bot_token": "xoxb-1", "SLACK_TEAM_RATE_PER_S": "2.5"}, None),
        ({}, "DATABASE_URL=postgresql://a@b/c\nexport REDIS_URL='redis://r:6379/0'\n# note\nUNKNOWN=1\n"),
        ({"LOG_LEVEL": "DEBUG"}, "log_level=WARNING\nslack_client_id=123.456\nSLACK_CLIENT_SECRET=s3\n"),
        ({"PUBLIC_URL": ""}, "PICTURE_URL_SECRET=\nNO_VALUE\n"),
    ],
)
def test_settings_read_the_environment_as_pydantic_settings_does(environ, dotenv, tmp_path, monkeypatch) -> None:
    for key in [k for k in os.environ if k.lower() in Settings.model_fields]:
        monkeypatch.delenv(key)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    if dotenv is not None:
        (tmp_path / ".env").write_text(dotenv, encoding="utf-8")
    assert Settings().model_dump() == _Reference().model_dump()
    given = {"database_url": "sqlite:///given.db", "slack_bot_token": "xoxb-given"}
    assert Settings(**given).model_dump() == _Reference(**given).model_dump()
    assert Settings(_env_file=None).model_dump() == _Reference(_env_file=None).model_dump()
