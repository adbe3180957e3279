"""The digest task queue (issue 16): Dramatiq on a real Redis, real worker processes.

* Two ``vllm-path worker`` processes, started and stopped here, deliver a batch of DM and
  channel digests that the clock enqueued twice (as two clocks would): each posted exactly
  once at the HTTP stand-in for Slack, every ledger row ``sent``, both workers exit 0 on SIGTERM.
* The pieces on their own: the batched ledger keeps each row exactly-once when two batchers
  (as two processes) race for the same keys (SQLite and PostgreSQL); a Retry-After block set
  by one pacer is seen by another (as by another worker); the keyed DM composer says exactly
  what the exact-set one says.
* Without ``REDIS_URL`` there is no queue: the clock delivers in process (the other digest
  tests run that path unchanged).

Needs Redis at ``TEST_REDIS_URL`` (default: ``tests.conftest.redis_test_url``, a DB number of the
tests' own); skipped with the reason when it does not answer, failed instead when
``QUEUE_REQUIRED=1`` (CI sets it).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

import pytest

from bot.digest.clock import DigestClock
from bot.digest.queue import DigestQueue, EnqueueingDeliverer, make_broker
from bot.domain.schedule import WeeklySchedule
from bot.store import DM_TRACK, Store
from bot.store.ledger_batch import BatchedLedgerStore, _Call
from tests.conftest import redis_test_url
from tests.dbutil import migrated_database_url, postgres_unavailable
from tests.digest.conftest import TEAM, make_runtime, settings_for

REPO = Path(__file__).resolve().parents[2]
REDIS_URL = redis_test_url()
NOW = datetime(2026, 12, 7, 9, 30, tzinfo=UTC)
PERIOD = "2026-W50"


def _redis_or_skip() -> str:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except Exception as exc:
        reason = f"Redis not reachable at {REDIS_URL}: {type(exc).__name__}: {exc}"
        if os.environ.get("QUEUE_REQUIRED") == "1":
            pytest.fail(reason + " (QUEUE_REQUIRED=1)", pytrace=False)
        pytest.skip(reason)
    return REDIS_URL


@pytest.fixture
def redis_url() -> str:
    return _redis_or_skip()


@pytest.fixture
def namespace(redis_url: str) -> Iterator[str]:
    """A Redis key prefix of this test only, deleted afterwards."""
    import redis

    ns = f"vp-test-{uuid.uuid4().hex[:10]}"
    yield ns
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(f"{ns}*"):
        client.delete(key)
    for key in client.scan_iter(f"*{ns}*"):
        client.delete(key)


@pytest.fixture
def queue_db_url(tmp_path: Path) -> Iterator[str]:
    """PostgreSQL (how several workers run) when the test server answers, else SQLite."""
    kind = "sqlite" if postgres_unavailable() else "postgres"
    with migrated_database_url(kind, tmp_path) as url:
        yield url


# --- two real workers ------------------------------------------------------------------------------


def _worker(db_url: str, redis_url: str, namespace: str, api_url: str, log: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL", "REDIS_URL", "QUEUE_"))}
    env.update(
        DATABASE_URL=db_url,
        REDIS_URL=redis_url,
        QUEUE_NAMESPACE=namespace,
        SLACK_BOT_TOKEN="xoxb-test",
        SLACK_API_URL=api_url,
        SLACK_TEAM_RATE_PER_S="50",
        SLACK_CHANNEL_RATE_PER_S="1",
        LOG_LEVEL="INFO",
        PYTHONUNBUFFERED="1",
    )
    return subprocess.Popen(
        [sys.executable, "-m", "bot.cli.main", "worker", "--threads", "4"],
        cwd=REPO,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def _wait_started(proc: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    """Until ``proc`` logged that it consumes (its SIGTERM handler is set by then) or exited."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if b"digest worker started" in log.read_bytes():
            return
        time.sleep(0.05)


def _seed(store: Store, dms: int, subs: int) -> None:
    tracks = ["spec", "pd", "quant", "rl", "agentic", "ops", "models", "internals"]
    for i in range(dms):
        store.set_dm(TEAM, f"U{i:04d}", True, schedule=WeeklySchedule.of(0, "09:00", "UTC"))
        store.follow(TEAM, f"U{i:04d}", tracks[i % len(tracks)])
    for i in range(subs):
        store.subscribe(TEAM, f"C{i:04d}", tracks[i % len(tracks)], WeeklySchedule.of(0, "09:00", "UTC"))


def _posted_keys(standin) -> Counter:
    keys: Counter = Counter()
    for call in standin.calls("chat.postMessage"):
        if call.ok:
            meta = call.args.get("metadata") or {}
            if isinstance(meta, str):
                meta = json.loads(meta)
            keys[(meta.get("event_payload") or {}).get("key")] += 1
    return keys


@pytest.mark.slow
def test_two_workers_deliver_each_digest_exactly_once(queue_db_url, redis_url, namespace, standin, holder, tmp_path):
    dms, subs = 24, 8
    runtime = make_runtime(queue_db_url, standin, holder, redis_url=redis_url, queue_namespace=namespace)
    _seed(runtime.store, dms, subs)
    workers = [
        _worker(queue_db_url, redis_url, namespace, standin.api_url, tmp_path / f"worker{i}.log") for i in range(2)
    ]
    queue = DigestQueue(make_broker(redis_url, namespace=namespace))
    try:
        for _clock in range(2):  # two clocks enqueue the same week: the ledger sends once
            enqueuer = EnqueueingDeliverer(queue, linger_s=0.05)
            clock = DigestClock(
                runtime,
                deliverer=enqueuer,  # type: ignore[arg-type]
                reconcile_every_s=None,
                workers=4,
            )
            counts = clock.run_now(dms=True, at=NOW)
            assert counts == {"queued": dms + subs}
            assert enqueuer.flush(timeout=30)
            enqueuer.close()
            clock.shutdown()
        standin.wait_for(lambda: len(_posted_keys(standin)) >= dms + subs, timeout=90)
        standin.wait_for(lambda: queue.backlog() == 0, timeout=60)
        standin.wait_for(
            lambda: (
                all(r.status == "sent" for r in runtime.store.deliveries())
                and len(runtime.store.deliveries()) == dms + subs
            ),
            timeout=60,
        )
    finally:
        for i, proc in enumerate(workers):  # a SIGTERM before the worker's handler is set kills it (-15)
            _wait_started(proc, tmp_path / f"worker{i}.log")
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        codes = []
        for proc in workers:
            try:
                codes.append(proc.wait(timeout=30))
            except subprocess.TimeoutExpired:
                proc.kill()
                codes.append(proc.wait())
        queue.broker.close()
    keys = _posted_keys(standin)
    assert len(keys) == dms + subs
    assert max(keys.values()) == 1, [k for k, n in keys.items() if n > 1]
    expected = {f"{TEAM}/U{i:04d}/{DM_TRACK}/{PERIOD}" for i in range(dms)}
    assert expected <= set(keys)
    rows = runtime.store.deliveries()
    assert {r.status for r in rows} == {"sent"}
    assert all(r.attempts == 1 for r in rows)
    assert codes == [0, 0], [(tmp_path / f"worker{i}.log").read_text()[-2000:] for i in range(2)]
    runtime.store.close()


def test_without_redis_url_there_is_no_queue(sqlite_url, standin):
    assert DigestQueue.from_settings(settings_for(sqlite_url, standin)) is None


def test_the_worker_command_refuses_to_start_without_a_broker(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REDIS_URL", "SLACK_"))}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path}/x.db"
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli.main", "worker"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "REDIS_URL" in proc.stderr


# --- the pieces ------------------------------------------------------------------------------------


def test_batched_ledger_claims_each_key_once_across_two_batchers(db_url):
    """Two batchers on one database, like two worker processes, race for 40 keys from 16
    threads: each key is claimed by exactly one, only the claimant's marks count, and every
    row ends ``sent`` by its claimant."""
    store_a, store_b = Store.from_url(db_url), Store.from_url(db_url, migrate=False)
    a, b = BatchedLedgerStore(store_a), BatchedLedgerStore(store_b)
    won: dict[tuple[str, str], list[str]] = {}
    lock = threading.Lock()
    order = [(who, i) for i in range(40) for who in ("a", "b")]
    random.Random(5).shuffle(order)

    def work(chunk: list[tuple[str, int]]) -> None:
        for who, i in chunk:
            ledger = a if who == "a" else b
            key = (TEAM, f"U{i:03d}", DM_TRACK, PERIOD)
            if ledger.claim_delivery(*key, claimed_by=who, stale_after_s=600):
                with lock:
                    won.setdefault(key[:2], []).append(who)
                assert ledger.delivery(*key).attempts == 1
                assert ledger.renew_claim(*key, claimed_by=who)
                other = "b" if who == "a" else "a"
                assert not ledger.mark_sent(*key, message_ts="1.0", claimed_by=other)
                assert ledger.mark_sent(*key, message_ts=f"{i}.1", claimed_by=who)
                assert not ledger.mark_sent(*key, message_ts="2.0", claimed_by=who)

    threads = [threading.Thread(target=work, args=(order[k::16],)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    a.close(), b.close()
    assert len(won) == 40 and all(len(v) == 1 for v in won.values())
    rows = {r.destination: r for r in store_a.deliveries()}
    assert len(rows) == 40
    for (_team, user), (who,) in won.items():
        assert rows[user].status == "sent" and rows[user].claimed_by == who
        assert rows[user].message_ts == f"{int(user[1:])}.1"
    assert a.batcher.calls + b.batcher.calls >= 40 * 4
    store_a.close(), store_b.close()


def test_batched_skips_takeovers_and_retries_settle_as_the_store_does(db_url):
    """Through the batcher: a skipped mark writes the store's ``error``, a stale claim and a
    failed one are taken over (attempts counted), and a mark by another claimant changes nothing."""
    store = Store.from_url(db_url)
    ledger = BatchedLedgerStore(store)
    skipped, stale, failed = ((TEAM, f"U{i}", DM_TRACK, PERIOD) for i in range(3))
    assert ledger.claim_delivery(*skipped, claimed_by="a")
    assert not ledger.mark_skipped(*skipped, reason="nothing new", claimed_by="b")
    assert ledger.mark_skipped(*skipped, reason="nothing new", claimed_by="a")
    assert store.delivery(*skipped).error == store.SKIPPED_PREFIX + "nothing new"  # type: ignore[union-attr]
    assert ledger.claim_delivery(*stale, claimed_by="a") and ledger.claim_delivery(*failed, claimed_by="a")
    assert ledger.mark_failed(*failed, error="boom", claimed_by="a")
    assert not ledger.claim_delivery(*stale, claimed_by="b", stale_after_s=600)
    assert ledger.claim_delivery(*stale, claimed_by="b", stale_after_s=0)
    assert ledger.claim_delivery(*failed, claimed_by="b", max_attempts=3)
    for key in (stale, failed):
        row = ledger.delivery(*key)
        assert row is not None and (row.status, row.claimed_by, row.attempts) == ("claimed", "b", 2)
    assert not ledger.renew_claim(*stale, claimed_by="a") and ledger.renew_claim(*stale, claimed_by="b")
    assert ledger.mark_sent(*stale, message_ts="1.5", claimed_by="b")
    assert store.delivery(*stale).message_ts == "1.5"  # type: ignore[union-attr]
    ledger.close()
    store.close()


def test_a_failed_batch_runs_its_calls_one_by_one(sqlite_url, monkeypatch):
    """When a batch's transaction fails, each call runs alone through the store: its answer,
    or its exception raised to its caller."""
    store = Store.from_url(sqlite_url)
    ledger = BatchedLedgerStore(store)

    def lost_connection(batch: list) -> None:
        raise RuntimeError("connection lost")

    monkeypatch.setattr(ledger.batcher, "_flush", lost_connection)
    key = (TEAM, "U1", DM_TRACK, PERIOD)
    assert ledger.claim_delivery(*key, claimed_by="a") and not ledger.claim_delivery(*key, claimed_by="b")
    assert ledger.delivery(*key).claimed_by == "a"  # type: ignore[union-attr]
    assert ledger.renew_claim(*key, claimed_by="a")
    with pytest.raises(ValueError, match="reason"):
        ledger.mark_skipped(*key, reason=" ", claimed_by="a")
    assert ledger.mark_sent(*key, message_ts="1.0", claimed_by="a")
    assert ledger.batcher.batches == 0 and store.delivery(*key).status == "sent"  # type: ignore[union-attr]
    ledger.close()
    store.close()


def test_a_claim_committed_before_its_batch_failed_keeps_its_answer(pg_url, monkeypatch):
    """On PostgreSQL each statement of a batch commits on its own: when the batch's marks fail
    after its claims committed, the claimant keeps its claimed row, and only the mark runs again
    alone through the store (run again, the claim would find its own row and answer "taken")."""
    store = Store.from_url(pg_url)
    ledger = BatchedLedgerStore(store)
    new, held = ((TEAM, f"U{i}", DM_TRACK, PERIOD) for i in range(2))
    assert ledger.claim_delivery(*held, claimed_by="a")

    def lost_connection(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("connection lost")

    monkeypatch.setattr(ledger.batcher, "_marks", lost_connection)
    claim = _Call("claim", new, "a", {"stale_after_s": 600, "max_attempts": 3})
    mark = _Call("sent", held, "a", {"message_ts": "1.0"})
    with ledger.batcher._cond:  # both in one batch
        ledger.batcher._enqueue(claim)
        ledger.batcher._enqueue(mark)
    assert claim.done is mark.done and claim.done is not None and claim.done.wait(10)
    assert claim.error is None and claim.result is not None and claim.result.claimed_by == "a"
    assert mark.error is None and mark.result is True
    assert [store.delivery(*k).status for k in (new, held)] == ["claimed", "sent"]  # type: ignore[union-attr]
    ledger.close()
    store.close()


def test_a_batcher_whose_connection_the_server_ended_opens_another(pg_url):
    """The flushers hold their own connections: when PostgreSQL ends one (a restart, an idle
    timeout), that batch's calls run alone through the store and the next batch runs as a batch
    again on a new connection (a broken one kept would send every later call down the slow path)."""
    import psycopg

    store = Store.from_url(pg_url)
    store.set_dm(TEAM, "U1", True)
    ledger = BatchedLedgerStore(store)
    first, second = ((TEAM, f"U{i}", DM_TRACK, PERIOD) for i in range(2))
    assert ledger.claim_delivery(*first, claimed_by="a") and ledger.get_dm(TEAM, "U1") is not None
    before = (ledger.batcher.batches, ledger.reads.batches)
    with psycopg.connect(pg_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as admin:
        ended = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert ended is not None and ended[0] >= 2
    assert ledger.mark_sent(*first, message_ts="1.0", claimed_by="a")  # its batch failed: run alone
    assert ledger.get_dm(TEAM, "U1") is not None
    assert ledger.claim_delivery(*second, claimed_by="a") and ledger.get_dm(TEAM, "U1") is not None
    assert ledger.batcher.batches == before[0] + 1 and ledger.reads.batches == before[1] + 1
    assert [store.delivery(*k).status for k in (first, second)] == ["sent", "claimed"]  # type: ignore[union-attr]
    ledger.close()
    store.close()


def test_batched_dm_reads_give_utc_times_whatever_the_sessions_zone(pg_url):
    """The DM read batch runs on psycopg directly: its times come back aware in UTC, as the
    store's (``UTCDateTime``) do, even on a server whose sessions speak another time zone."""
    from sqlalchemy import create_engine

    from bot.store.dm_reads import DmReadBatcher

    url = pg_url.replace("postgresql://", "postgresql+psycopg://", 1)
    engine = create_engine(url, connect_args={"options": "-c timezone=Asia/Shanghai"})
    store = Store(engine, owns_engine=True)
    store.set_dm(TEAM, "U1", True)
    store.snooze_dm(TEAM, "U1", datetime(2026, 12, 10, 9, 30, tzinfo=UTC))
    reader = DmReadBatcher(store)
    dm = reader.get(TEAM, "U1").dm
    reader.close()
    assert dm is not None and dm.snoozed_until is not None
    assert dm.snoozed_until.utcoffset() == dm.updated_at.utcoffset() == UTC.utcoffset(None)
    assert dm.snoozed_until == datetime(2026, 12, 10, 9, 30, tzinfo=UTC)
    store.close()


def test_batched_reads_look_people_up_by_key_after_their_plan_is_kept(pg_url):
    """The batchers' prepared statements keep one generic plan, made for 100 rows of the batch:
    on a table of a few thousand rows that plan would scan the table whole on every batch. Their
    connections plan by keys, so PostgreSQL counts no sequential scan of the tables a batch joins
    (it counts them when the session plans as by default)."""
    import psycopg
    from sqlalchemy import func, select

    from bot.store.batching import DriverConnection
    from bot.store.dm_reads import DmReadBatcher

    plain = pg_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as admin:
        admin.execute(
            "INSERT INTO dm_preferences (team_id, user_id, enabled, weekday, at_time, timezone, status, updated_at)"
            " SELECT %s, 'U' || i, true, 0, '09:00', 'UTC', 'active', now() FROM generate_series(1, 3000) i",
            (TEAM,),
        )
        admin.execute("ANALYZE")

    def scans_so_far() -> int:
        with psycopg.connect(plain, autocommit=True) as admin:
            row = admin.execute("SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 'dm_preferences'").fetchone()
        assert row is not None
        return int(row[0])

    def seq_scans(settings: tuple[str, ...]) -> int:
        store = Store.from_url(pg_url)
        reader = DmReadBatcher(store)
        reader.driver.settings = settings
        before = scans_so_far()
        for i in range(1, 13):  # past the 5 runs after which PostgreSQL keeps a generic plan
            assert reader.get(TEAM, f"U{i}").dm is not None
        # the flusher is idle: its session's counts reach the statistics as this statement ends
        reader.driver.rows(select(func.pg_stat_force_next_flush()))
        reader.close()
        store.close()
        return scans_so_far() - before

    assert seq_scans(DriverConnection.PLAN_BY_KEYS) == 0
    assert seq_scans(()) > 0


def test_what_get_dm_read_ahead_answers_the_next_reads_once(db_url):
    """A batched store's ``get_dm`` reads the person's language, budget, follows and reads with
    it; the calls that follow answer from there once, then from the store again."""
    store = Store.from_url(db_url)
    store.set_dm(TEAM, "U1", True)
    store.set_lang(TEAM, "U1", "zh")
    store.set_budget(TEAM, "U1", 45)
    store.follow(TEAM, "U1", "spec")
    store.mark_read(TEAM, "U1", ["p1"])
    ledger = BatchedLedgerStore(store)
    assert ledger.get_dm(TEAM, "U1") == store.get_dm(TEAM, "U1")
    store.set_lang(TEAM, "U1", "en")  # the read-ahead answers once, whatever changed since
    for _ in range(2):
        assert ledger.get_budget(TEAM, "U1") == 45 and ledger.follows(TEAM, "U1") == ["spec"]
        assert ledger.read_posts(TEAM, "U1") == {"p1"}
    assert [ledger.get_lang(TEAM, "U1"), ledger.get_lang(TEAM, "U1")] == ["zh", "en"]
    ledger.close()
    store.close()


def test_batched_dm_reads_say_what_the_store_says(db_url):
    """The worker's batched reads (one statement for many people on PostgreSQL) answer each
    person's DM settings, language, follows in follow order and read posts exactly as the
    store's own reads do, for people with and without each of them, many threads at once."""
    from bot.store.dm_reads import DmReadBatcher, DmReads

    store = Store.from_url(db_url)
    people = [f"U{i:03d}" for i in range(30)]
    tracks = ["spec", "pd", "quant", "rl"]
    for i, user in enumerate(people):
        if i % 3:
            store.set_dm(TEAM, user, i % 2 == 0, schedule=WeeklySchedule.of(i % 7, "09:00", "UTC"))
        if i % 4 == 0:
            store.set_lang(TEAM, user, "zh")
        for track in tracks[i % 4 :] if i % 5 else []:
            store.follow(TEAM, user, track)
        if i % 2:
            store.mark_read(TEAM, user, [f"post-{i}", "post-x"])
    reader = DmReadBatcher(store)
    got: dict[str, DmReads] = {}

    def read(chunk: list[str]) -> None:
        for user in chunk:
            got[user] = reader.get(TEAM, user)

    threads = [threading.Thread(target=read, args=(people[k::8],)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reader.close()
    for user in people:
        assert got[user] == DmReads(
            store.get_dm(TEAM, user),
            store.get_lang(TEAM, user),
            tuple(store.follows(TEAM, user)),
            frozenset(store.read_posts(TEAM, user)),
        ), user
    assert any(r.dm is None for r in got.values()) and any(r.read for r in got.values())
    assert any(len(r.follows) > 1 for r in got.values())
    store.close()


def test_a_retry_after_block_is_seen_by_every_worker(redis_url, namespace):
    from bot.digest.pacing import retry_after as _retry_after
    from bot.digest.ratelimit import SharedPacer

    first = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=10)
    second = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=10)
    assert second.blocked_for(TEAM) == 0
    first.rate_limited(TEAM, 30)
    assert 25 < second.blocked_for(TEAM) <= 30
    second.rate_limited(TEAM, 5)  # a shorter block never shortens a longer one
    assert first.blocked_for(TEAM) > 25
    assert second.blocked_for("T0OTHER") == 0

    class Response:
        headers: ClassVar[dict[str, list[str]]] = {"retry-after": ["7"]}

    assert _retry_after(Response()) == 7.0


def test_a_block_holds_the_next_send_of_another_worker(redis_url, namespace):
    """The Retry-After block is read in the same round trip as the turns: a send waits out a
    block another worker set (the injected sleep lets a long wait run out at once), and without a
    block a send waits only for its workspace spacing, asking again when it has slept it."""
    from bot.digest.ratelimit import SharedPacer

    first = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=10)
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if seconds > 5:
            first.store._redis.delete(f"{namespace}:blocked:{TEAM}")  # the block runs out meanwhile
        else:
            time.sleep(seconds)

    second = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=1, sleep=sleep)
    first.rate_limited(TEAM, 30)
    with second.slot(TEAM, "U1"):
        pass
    assert len(slept) == 1 and 25 < slept[0] <= 30  # the block, and nothing reserved meanwhile
    with second.slot(TEAM, "U2"):  # no block now: only the workspace spacing is waited
        pass
    assert 0.9 < sum(slept[1:]) <= 1.01 and slept[1] <= 1  # the turn a second after U1's


def test_a_send_told_to_wait_reserves_nothing(redis_url, namespace):
    """Classic GCRA in the script: senders told to wait for the workspace's next turn are all told
    the same time (none is given a later turn reserved ahead), and the first to ask when it has
    come goes, the others wait one more interval from then."""
    from bot.digest.ratelimit import SharedPacer

    pacer = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=1)
    store = pacer.store
    assert store.turn(TEAM, "U1", 1.0, 1.0) == 0.0
    waits = [store.turn(TEAM, user, 1.0, 1.0) for user in ("U2", "U3", "U4")]
    assert all(0.8 < w <= 1.0 for w in waits) and max(waits) - min(waits) < 0.1, waits
    time.sleep(max(waits) + 0.01)
    assert store.turn(TEAM, "U3", 1.0, 1.0) == 0.0
    assert 0.9 < store.turn(TEAM, "U2", 1.0, 1.0) <= 1.0
    store.push(TEAM, "U1", 5.0)  # U1's answer came; its next turn 5 s on
    assert -5.0 <= store.turn(TEAM, "U1", 1.0, 1.0) < -4.5  # negative: the destination's alone
    pacer.rate_limited(TEAM, 10.0)
    assert 9.5 < store.turn(TEAM, "U1", 1.0, 1.0) <= 10.0  # the block is the workspace's
    pacer.clear()


def test_a_destination_gets_one_attempt_a_second_across_workers(redis_url, namespace):
    """The destination's turn is in the same script as the workspace's: a second worker's send
    to the same DM waits a second (1/s) from the first one's answer, another destination does not."""
    from bot.digest.ratelimit import SharedPacer

    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        time.sleep(seconds)

    first = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=None)
    second = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=None, sleep=sleep)
    with first.slot(TEAM, "U1"):
        pass
    with second.slot(TEAM, "U2"):
        pass
    assert slept == []
    with second.slot(TEAM, "U1"):
        pass
    assert 0.5 < sum(slept) <= 1.1
    second.clear()


def test_all_workers_together_send_evenly_spaced_under_the_workspace_rate(redis_url, namespace):
    """GCRA through Redis: 3 workers of 4 threads each send 40 DMs in one workspace at 20/s. Each
    send the script lets go went at a time between the local clock (which Redis's ``TIME``
    shares) before and after the call; whatever the machine's load, those bounds allow every two
    sends to be 50 ms apart, none holds more than 20 in any second, and they come at the rate."""
    from bot.digest.ratelimit import SharedPacer

    pacers = [SharedPacer(redis_url, namespace=namespace, team_rate_per_s=20) for _ in range(3)]
    bounds: list[tuple[float, float]] = []
    lock = threading.Lock()

    def recorded(turn):
        def wrapped(*args):
            before = time.time()
            wait = turn(*args)
            if wait == 0:
                with lock:
                    bounds.append((before, time.time()))
            return wait

        return wrapped

    for pacer in pacers:
        pacer.store.turn = recorded(pacer.store.turn)
    todo = [f"U{i}" for i in range(40)]

    def worker(pacer) -> None:
        while True:
            with lock:
                if not todo:
                    return
                user = todo.pop()
            with pacer.slot(TEAM, user):
                pass

    threads = [threading.Thread(target=worker, args=(p,)) for p in pacers for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(bounds) == 40
    eps = 1e-5  # the script's times have 6 decimals
    for i, (lo_a, hi_a) in enumerate(bounds):
        for lo_b, hi_b in bounds[i + 1 :]:
            assert max(hi_b - lo_a, hi_a - lo_b) >= 0.05 - eps
        assert len([1 for lo, hi in bounds if lo >= lo_a and hi < lo_a + 1.0 - eps]) <= 20
    # At the rate: 39 gaps of 50 ms, plus room for a loaded machine's scheduling (a pacer at half
    # the rate would take 3.9 s).
    assert max(lo for lo, _ in bounds) - min(hi for _, hi in bounds) < 39 / 20 + 1.5
    pacers[0].clear()


def test_a_429_in_a_shared_slot_blocks_the_workspace_for_every_worker(redis_url, namespace, standin):
    """The one 429 handler of both pacers (:func:`bot.digest.pacing.paced`) tells a shared
    pacer too: Slack's Retry-After becomes a block every worker sees, then the send is retried."""
    from slack_sdk import WebClient
    from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

    from bot.digest.pacing import paced
    from bot.digest.ratelimit import SharedPacer

    client = paced(
        WebClient(
            token="xoxb-test", base_url=standin.api_url, retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=2)]
        )
    )
    standin.configure(rate_limit_every=2, retry_after_s=2)
    pacer = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=50)
    other = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=50)
    with pacer.slot(TEAM, "C1"):
        client.chat_postMessage(channel="C1", text="a")
    assert other.blocked_for(TEAM) == 0
    seen: list[float] = []

    def send() -> None:
        with pacer.slot(TEAM, "C2"):
            client.chat_postMessage(channel="C2", text="b")  # 429 Retry-After: 2, then retried

    sender = threading.Thread(target=send)
    sender.start()
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline and not (seen and seen[-1] > 0):
        seen.append(other.blocked_for(TEAM))  # another worker's view while the retry waits
        time.sleep(0.02)
    sender.join(10)
    assert [c.status for c in standin.calls("chat.postMessage")] == [200, 429, 200]
    assert 0 < max(seen) <= 2.0
    pacer.clear()
