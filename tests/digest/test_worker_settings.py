"""Issue 27: settings checked at start. A worker without Slack settings, or whose broker does not
answer, exits non-zero naming what is missing before it reads a message, so nothing in the
database changes (no ledger row marked failed, no digest paused)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bot.domain.schedule import WeeklySchedule
from bot.store import Store
from tests.conftest import redis_test_url
from tests.waits import PATIENCE_S

REPO = Path(__file__).resolve().parents[2]
SLACK_VARS = ("SLACK_BOT_TOKEN", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET")


def _worker(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in SLACK_VARS}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-m", "bot.cli.main", "worker"],
        cwd=REPO,
        env=clean,
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
    )


def _seeded(tmp_path: Path) -> tuple[str, int]:
    url = f"sqlite:///{tmp_path / 'state.db'}"
    store = Store.from_url(url)
    sub = store.subscribe("T0W", "C0W", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    store.close()
    return url, sub.id


def _unchanged(url: str, sub_id: int) -> None:
    store = Store.from_url(url)
    try:
        assert store.get_subscription(sub_id).active
    finally:
        store.close()


def test_a_worker_without_a_slack_token_refuses_to_start(tmp_path: Path) -> None:
    url, sub_id = _seeded(tmp_path)
    done = _worker({"DATABASE_URL": url, "REDIS_URL": redis_test_url()})
    assert done.returncode == 2
    assert "SLACK_BOT_TOKEN" in done.stderr and "Traceback" not in done.stderr
    _unchanged(url, sub_id)


def test_a_worker_with_half_the_oauth_settings_names_the_other_half(tmp_path: Path) -> None:
    url, sub_id = _seeded(tmp_path)
    done = _worker({"DATABASE_URL": url, "REDIS_URL": redis_test_url(), "SLACK_CLIENT_ID": "111.222"})
    assert done.returncode == 2 and "SLACK_CLIENT_SECRET" in done.stderr
    _unchanged(url, sub_id)


def test_a_worker_whose_broker_does_not_answer_refuses_to_start(tmp_path: Path) -> None:
    url, sub_id = _seeded(tmp_path)
    done = _worker(
        {
            "DATABASE_URL": url,
            "REDIS_URL": "redis://127.0.0.1:1/0",
            "SLACK_BOT_TOKEN": "xoxb-worker-test-not-a-real-token",
        }
    )
    assert done.returncode == 2 and "REDIS_URL" in done.stderr
    assert "xoxb-worker-test" not in done.stderr
    _unchanged(url, sub_id)
