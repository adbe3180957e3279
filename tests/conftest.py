"""Shared fixtures: fresh databases (SQLite and PostgreSQL) and a runtime on the real catalog."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from tests.dbutil import DB_KINDS, fresh_database_url

# Property tests draw the same examples on every run of the same code, so a red suite always
# means a reproducible finding (and `make test` twice gives the same answer twice).
# HYPOTHESIS_EXPLORE=1 draws new examples each run instead; benchmarks/fuzz.py explores at length.
hypothesis_settings.register_profile("ci-derandomized", derandomize=True, database=None)
if os.environ.get("HYPOTHESIS_EXPLORE") != "1":
    hypothesis_settings.load_profile("ci-derandomized")

# Tests that run with OAuth settings would otherwise generate ./vllm-path-token.key (the local-run
# fallback, tested on its own in tests/store/test_token_crypto.py); one fixed test key instead.
os.environ.setdefault("TOKEN_ENCRYPTION_KEY", "kX0lQbXm3TqgWkC6uFjM0hM3M6nq4Y1v2Wc7pQnCj0g=")


@pytest.fixture(params=DB_KINDS)
def any_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database: an SQLite file, then (second run) a fresh PostgreSQL database."""
    with fresh_database_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def runtime(any_db_url: str):
    """A :class:`bot.runtime.Runtime` on the repo's catalog and a fresh database."""
    from bot.config import Settings
    from bot.runtime import Runtime

    rt = Runtime.create(Settings(database_url=any_db_url, _env_file=None))
    yield rt
    rt.store.close()
