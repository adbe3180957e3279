"""Redis lost at the digest hour (issue 27): truthful enqueueing, and back within a minute.

A private ``redis-server`` on a free port (the machine's shared Redis is never touched) is
stopped before the digests fall due and started again ``OUTAGE_S`` seconds later. The clock runs
in this process with its defaults (a catch-up every 30 s), a real ``vllm-path worker`` in a
subprocess, the HTTP stand-in as Slack. Every due digest is posted once within a minute of Redis
returning (before: the failed enqueues were logged as enqueued, every catch-up said
``already_queued``, and the digests went out only after twice ``--stale-after``, 10 minutes); the
clock logs one warning for the outage, no traceback.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.digest.clock import DigestClock
from bot.digest.queue import DigestQueue, EnqueueingDeliverer, make_broker
from bot.domain.schedule import WeeklySchedule
from bot.store import Store
from tests.digest.conftest import TEAM, make_runtime
from tests.digest.test_queue import _posted_keys, _worker
from tests.serveproc import free_port

OUTAGE_S = 20.0
DIGESTS = 60


class PrivateRedis:
    """A ``redis-server`` of this test only on ``port`` (no persistence), stoppable and
    restartable on the same port."""

    def __init__(self, port: int, folder: Path) -> None:
        self.port, self.folder = port, folder
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import redis

        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping()
                return
            except redis.exceptions.ConnectionError:
                assert time.monotonic() < deadline, "private redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = PrivateRedis(free_port(), tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.slow
def test_redis_down_at_the_digest_hour_every_digest_goes_out_within_a_minute_of_its_return(
    sqlite_url, standin, holder, private_redis, tmp_path, caplog
) -> None:
    caplog.set_level(logging.INFO, logger="bot.digest")
    now = datetime.now(UTC)
    fire = (now - timedelta(minutes=1)).replace(second=0, microsecond=0)
    earlier = Store.from_url(sqlite_url, migrate=False, clock=lambda: now - timedelta(hours=1))
    for i in range(DIGESTS):
        earlier.subscribe(TEAM, f"C{i:04d}", "spec", WeeklySchedule.of(fire.weekday(), f"{fire:%H:%M}", "UTC"))
    earlier.close()
    runtime = make_runtime(sqlite_url, standin, holder, redis_url=private_redis.url, queue_namespace="outage")
    log_path = tmp_path / "worker.log"
    worker = _worker(sqlite_url, private_redis.url, "outage", standin.api_url, log_path)
    deadline = time.monotonic() + 60
    while "digest worker started" not in log_path.read_text(errors="replace"):
        assert worker.poll() is None and time.monotonic() < deadline, log_path.read_text()
        time.sleep(0.1)
    private_redis.stop()  # lost just before the digest hour
    deliverer = EnqueueingDeliverer(DigestQueue(make_broker(private_redis.url, namespace="outage")))
    clock = DigestClock(runtime, deliverer=deliverer)  # the defaults: a catch-up every 30 s
    try:
        clock.start()
        time.sleep(OUTAGE_S)
        assert not _posted_keys(standin)
        assert deliverer.enqueued == 0 and deliverer.failed >= DIGESTS
        private_redis.start()
        back = time.monotonic()
        standin.wait_for(lambda: sum(_posted_keys(standin).values()) >= DIGESTS, timeout=60)
        took = time.monotonic() - back
        time.sleep(2)
    finally:
        clock.shutdown(wait=True)
        deliverer.close()
        worker.terminate()
        worker.wait(20)
        runtime.store.close()
    worker_log = log_path.read_text(errors="replace")
    assert "Traceback" not in worker_log, worker_log[-3000:]
    # the worker's consumers lost Redis too: one warning for the outage, not one per 3 s each
    assert worker_log.count("is unreachable") == 1, worker_log[-3000:]
    assert "Restarting consumer" not in worker_log
    keys = _posted_keys(standin)
    assert len(keys) == DIGESTS and set(keys.values()) == {1}, keys
    assert took < 60
    assert deliverer.enqueued >= DIGESTS
    records = [r for r in caplog.records if r.name == "bot.digest.queue"]
    down = [r for r in records if "could not enqueue" in r.getMessage()]
    assert len(down) == 1 and down[0].levelno == logging.WARNING and not down[0].exc_text
    assert any("answers again" in r.getMessage() for r in records)
    enqueued = sum(int(r.getMessage().split()[1]) for r in records if r.getMessage().startswith("enqueued "))
    assert enqueued == deliverer.enqueued  # logged as enqueued only what the broker took
    print(f"posted {DIGESTS} digests {took:.1f} s after Redis returned")
