"""Shared fixtures: fresh databases (SQLite and PostgreSQL) and a runtime on the real catalog."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from tests.dbutil import DB_KINDS, close_session_databases, fresh_database_url, migrated_database_url

# Property tests draw the same examples on every run of the same code, so a red suite always
# means a reproducible finding (and `make test` twice gives the same answer twice).
# HYPOTHESIS_EXPLORE=1 draws new examples each run instead; benchmarks/fuzz.py explores at length.
hypothesis_settings.register_profile("ci-derandomized", derandomize=True, database=None)
if os.environ.get("HYPOTHESIS_EXPLORE") != "1":
    hypothesis_settings.load_profile("ci-derandomized")

# Tests that run with OAuth settings would otherwise generate ./vllm-path-token.key (the local-run
# fallback, tested on its own in tests/store/test_token_crypto.py); one fixed test key instead.
os.environ.setdefault("TOKEN_ENCRYPTION_KEY", "kX0lQbXm3TqgWkC6uFjM0hM3M6nq4Y1v2Wc7pQnCj0g=")

DEFAULT_TEST_REDIS_URL = "redis://127.0.0.1:6379/13"
"""The Redis the tests use without ``TEST_REDIS_URL``: the local server, in a DB number of their
own (not DB 0, where a local ``REDIS_URL`` usually points)."""


def redis_test_url() -> str:
    """The Redis server and DB number every Redis-using test writes in: ``TEST_REDIS_URL``, else
    :data:`DEFAULT_TEST_REDIS_URL`. (Tests of a private ``redis-server`` use its own port.)"""
    return os.environ.get("TEST_REDIS_URL") or DEFAULT_TEST_REDIS_URL


@pytest.fixture(params=DB_KINDS)
def any_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database: an SQLite file, then (second run) a fresh PostgreSQL database."""
    with fresh_database_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture(params=DB_KINDS)
def any_migrated_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new database at the schema's head, copied from the session's migrated template: an
    SQLite file, then (second run) a PostgreSQL database (see ``tests.dbutil``)."""
    with migrated_database_url(request.param, tmp_path) as url:
        yield url


LONGEST_FILES = (
    "tests/domain/catalog/test_import.py",
    "tests/reliability/test_fuzz_catalog.py",
    "tests/digest/test_processes.py",
    "tests/digest/test_outages.py",
    "tests/domain/catalog/test_feed_drafts.py",
    "tests/reliability/test_socket_mode.py",
    "tests/reliability/test_reload.py",
    "tests/browser/test_pages.py",
    "tests/digest/test_broker_outage.py",
    "tests/domain/catalog/test_broken_catalogs.py",
    "tests/domain/catalog/test_import_review.py",
    "tests/reliability/test_acknowledged_is_stored.py",
    "tests/domain/catalog/test_import_limits.py",
    "tests/reliability/test_acked_events_at_sigterm.py",
    "tests/slack/test_answer_now.py",
    "tests/domain/test_search_answers.py",
    "tests/golden/test_step_labels.py",
    "tests/domain/test_search.py",
    "tests/digest/test_deliver.py",
    "tests/reliability/test_fuzz_input.py",
    "tests/slack/test_answers_edge.py",
    "tests/architecture/test_cli_imports.py",
    "tests/reliability/test_club_reactions.py",
    "tests/reliability/test_secrets.py",
    "tests/reliability/test_signatures.py",
    "tests/contract/test_app_contract.py",
    "tests/e2e/test_unfurl.py",
    "tests/e2e/test_home_first.py",
    # session 13: the files over ~20 s (summed, under load) that started last, and the new QA files
    "tests/e2e/test_qa_round12_grammar.py",
    "tests/e2e/test_qa_round11_reminders.py",
    "tests/e2e/test_new_user_fixes_5.py",
    "tests/digest/test_new_posts.py",
    "tests/slack/test_qa_round8_commands.py",
    "tests/e2e/test_new_user_fixes_6.py",
    "tests/slack/test_handlers.py",
    "tests/e2e/test_serve_through_incident.py",
    "tests/e2e/test_qa15_review.py",
    "tests/reliability/test_retries.py",
    "tests/e2e/test_qa_leftovers.py",
    "tests/digest/test_queue.py",
    "tests/e2e/test_http_door.py",
    "tests/plan/test_default_budget.py",
    "tests/slack/test_qa16_commands.py",
    "tests/slack/test_qa17_commands.py",
    "tests/e2e/test_qa_round10_reminders.py",
    "tests/e2e/test_new_user_fixes_7.py",
    "tests/store/test_store_migrations.py",
    "tests/e2e/test_app_requests.py",
    "tests/domain/test_search_qa16.py",
    "tests/domain/test_search_qa17.py",
)
"""The test files that take longest on one worker (summed ``--durations``, longest first; a file
renamed or gone is ignored). Under pytest-xdist they are handed out first, so that no long file
starts last while the other workers sit idle (``--dist loadfile`` hands out whole files in
collection order given ``--no-loadscope-reorder``; its default orders files by their number of
tests, putting the slowest few-test files last)."""


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a pytest-xdist worker: the :data:`LONGEST_FILES` first, in that order, then the rest in
    collection order (each file's tests stay together and in order). A run without xdist keeps
    pytest's order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    rank = {path: i for i, path in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Drop the PostgreSQL databases (and the templates) this session made and still holds."""
    close_session_databases()


@pytest.fixture
def runtime(any_migrated_db_url: str):
    """A :class:`bot.runtime.Runtime` on the repo's catalog and a fresh database (a copy of the
    session's migrated template; ``Runtime.create`` still runs the migrations, finding them done)."""
    from bot.config import Settings
    from bot.runtime import Runtime

    rt = Runtime.create(Settings(database_url=any_migrated_db_url, _env_file=None))
    yield rt
    rt.store.close()
