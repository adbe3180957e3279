"""The Redis-using tests share one default, in a DB number of their own (``tests.conftest``)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import DEFAULT_TEST_REDIS_URL, redis_test_url

TESTS = Path(__file__).resolve().parent
FAKE_BENCHMARK_SOURCES = {"test_benchmark_safety.py"}  # sample benchmark code, not a test's Redis


def test_the_default_is_not_db_0_and_the_environment_wins(monkeypatch) -> None:
    monkeypatch.delenv("TEST_REDIS_URL", raising=False)
    assert redis_test_url() == DEFAULT_TEST_REDIS_URL
    assert not DEFAULT_TEST_REDIS_URL.endswith("/0") and DEFAULT_TEST_REDIS_URL.rsplit("/", 1)[1].isdigit()
    monkeypatch.setenv("TEST_REDIS_URL", "redis://redis.example:6380/7")
    assert redis_test_url() == "redis://redis.example:6380/7"


def test_no_test_names_the_shared_redis_itself() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{n}"
        for path in TESTS.rglob("*.py")
        if "node_modules" not in path.parts and path.name not in FAKE_BENCHMARK_SOURCES | {"conftest.py"}
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ":6379" in line and path != Path(__file__).resolve()
    ]
    assert found == [], f"use tests.conftest.redis_test_url() instead: {found}"
