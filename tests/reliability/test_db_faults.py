"""Database faults: a PostgreSQL server that the test starts itself (``initdb`` in a temporary
folder, ``pg_ctl`` on a free loopback port; see ``tests/reliability/pgserver.py``) is stopped and
restarted under the running app (the real HTTP door, in process) and the running digest clock.

* Commands that reach the database while it is down get the friendly error reply (the ack is
  never late: nothing touches the database before it), and nothing half-done is stored.
* Later requests succeed without restarting the app: the pool's pre-ping replaces the dead
  connections (the first request after a restart already succeeds).
* Under continuous traffic across a restart, every command gets exactly one reply.
* A digest fan-out across a restart, retried the way the clock's catch-up retries, delivers every
  digest exactly once: the ledger and the messages Slack received agree — nothing lost, nothing
  doubled.

Needs the PostgreSQL server binaries (skipped with the reason when absent). Never touches the
machine's shared server.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from bot.domain.schedule import WeeklySchedule
from bot.slack.i18n import t
from tests.e2e.helpers import FakeSlack
from tests.reliability.conftest import SIGNING_SECRET, door_settings
from tests.reliability.pgserver import (
    PrivatePostgres,
    unavailable,
    wait_until_accepting,
)
from tests.waits import PATIENCE_S

pytestmark = [pytest.mark.slow, pytest.mark.skipif(unavailable() is not None, reason=unavailable() or "")]

ERROR = t("error.generic")
TEAM = "T0FAULT"
FIRE = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def pg():
    with PrivatePostgres() as server:
        yield server


@pytest.fixture
def pg_url(pg, request):
    if not pg.running():
        pg.start()
    return pg.create_database(
        f"vp_{request.node.name[:40].lower().replace('[', '_').replace(']', '')}_{int(time.time() * 1000) % 10**6}"
    )


@pytest.fixture
def standin():
    from tests.standin import SlackStandIn

    with SlackStandIn(team_id=TEAM) as s:
        yield s


@pytest.fixture
def app(pg_url, standin):
    """The runtime, the HTTP door and a FakeSlack on the private server."""
    from bot.doors.serve import serve_http
    from bot.runtime import Runtime

    runtime = Runtime.create(door_settings(pg_url, standin))
    door = serve_http(runtime, "127.0.0.1", 0, threads=6, background=True)
    slack = FakeSlack(door.url, standin, runtime, secret=SIGNING_SECRET, team=TEAM, user="U0FAULT", channel="C0FAULT")
    try:
        yield slack
    finally:
        door.close()
        runtime.store.close()


def _text(reply) -> str:
    return reply.body["text"]


def _warm_pool(slack, n: int = 6) -> None:
    """Put several connections in the pool (concurrent commands)."""
    threads = [threading.Thread(target=slack.ask, args=("speculative",)) for _ in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


def test_commands_during_an_outage_get_a_friendly_reply_and_later_ones_succeed(app, pg):
    slack, store = app, app.runtime.store
    assert ERROR not in _text(slack.ask("follow pd"))
    _warm_pool(slack)
    before = store.follows(TEAM, "U0FAULT")

    pg.stop("fast")
    try:
        for text in ("read p-eagle", "follow spec", "speculative", "next"):
            ack, url = slack.command(text)
            assert ack.status == 200  # the ack never waits for the database
            assert _text(slack.standin.wait_for_response(url, timeout=PATIENCE_S)) == ERROR
    finally:
        pg.start()
    # No process restart: the very next commands succeed, and the outage left nothing behind.
    for text in ("next", "read p-eagle", "speculative", "follow spec", "help"):
        assert _text(slack.ask(text, timeout=PATIENCE_S)) != ERROR, text
    assert store.follows(TEAM, "U0FAULT") == [*before, "spec"]
    assert "p-eagle" in store.read_posts(TEAM, "U0FAULT")


def test_the_first_request_after_a_restart_succeeds(app, pg):
    """Every pooled connection died with the server; pre-ping replaces them before use."""
    slack = app
    _warm_pool(slack)
    engine = slack.runtime.store.engine
    with engine.connect() as one, engine.connect() as two:  # two pooled connections, whatever the caches spared
        one.exec_driver_sql("SELECT 1")
        two.exec_driver_sql("SELECT 1")
    pool = engine.pool
    assert pool.checkedin() >= 2
    pg.restart("fast")
    wait_until_accepting(pg)
    for text in ("next", "speculative", "read p-eagle", "follow pd", "pd", "help"):
        assert _text(slack.ask(text, timeout=PATIENCE_S)) != ERROR, text


def test_continuous_traffic_across_a_restart_gets_exactly_one_reply_each(app, pg):
    slack = app
    sent: list[tuple[str, int]] = []
    stop = threading.Event()
    lock = threading.Lock()
    texts = ("speculative", "read p-eagle", "follow pd", "next", "unfollow pd", "quant")

    def client(n: int) -> None:
        i = 0
        while not stop.is_set():
            ack, url = slack.command(texts[(n + i) % len(texts)])
            with lock:
                sent.append((url, ack.status))
            i += 1
            time.sleep(0.01)

    clients = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for c in clients:
        c.start()
    time.sleep(0.5)
    pg.restart("fast")
    time.sleep(1.0)
    stop.set()
    for c in clients:
        c.join()
    assert [s for _, s in sent if s != 200] == []
    urls = [u for u, _ in sent]
    slack.standin.wait_for(lambda: all(slack.standin.responses(u) for u in urls), timeout=PATIENCE_S)
    time.sleep(0.5)
    counts = {u: len(slack.standin.responses(u)) for u in urls}
    assert set(counts.values()) == {1}, "a command got no reply or two"
    errors = sum(_text(slack.standin.responses(u)[0]) == ERROR for u in urls)
    assert errors < len(urls)  # most went through; those in flight got the friendly reply
    for text in texts:
        assert _text(slack.ask(text, timeout=PATIENCE_S)) != ERROR, text
    assert len(slack.runtime.store.follows(TEAM, "U0FAULT")) <= 1


def test_a_digest_fan_out_across_a_restart_delivers_each_digest_exactly_once(pg_url, pg, standin):
    """The digest clock runs (its scheduler's job store is on the same server) while a fan-out of
    30 channel digests is cut by a restart; then passes like the clock's catch-up retry what is
    not settled. Slack must have received each digest once, and the ledger must say so."""
    from bot.digest.clock import DigestClock
    from bot.digest.deliver import Deliverer, Pacer
    from bot.domain.schedule import period_of
    from bot.runtime import Runtime

    runtime = Runtime.create(door_settings(pg_url, standin))
    store = runtime.store
    channels = [f"C0FAN{i:02d}" for i in range(30)]
    subs = [store.subscribe(TEAM, c, "spec", WeeklySchedule.of(0, "09:00", "UTC")) for c in channels]
    standin.configure(latency_s=0.03)
    deliverer = Deliverer(runtime, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=20.0), stale_after_s=1.0)
    clock = DigestClock(runtime, deliverer=deliverer, workers=4, reconcile_every_s=0.5, retry_failed_after_s=0.2)
    clock.start()
    failures: list[str] = []

    def deliver(sub_id: int) -> None:
        try:
            deliverer.deliver_subscription(sub_id, FIRE)
        except Exception as exc:  # the database was down: retried below
            failures.append(type(exc).__name__)

    def unsettled() -> list[int]:
        rows = {r.destination: r for r in store.deliveries(period=period_of(FIRE, "UTC"))}
        return [s.id for s in subs if rows.get(s.channel_id) is None or rows[s.channel_id].status != "sent"]

    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            futures = [pool.submit(deliver, s.id) for s in subs]
            standin.wait_for(lambda: len(standin.calls("chat.postMessage")) >= 5, timeout=PATIENCE_S)
            pg.restart("fast")
            for f in futures:
                f.result()
        wait_until_accepting(pg)
        cut = len([c for c in standin.calls("chat.postMessage") if c.ok])
        left_after_restart = unsettled()  # posted but not recorded, or not posted at all
        deadline = time.monotonic() + PATIENCE_S
        while (left := unsettled()) and time.monotonic() < deadline:
            time.sleep(1.1)  # past stale_after_s: unfinished claims may be taken over
            with ThreadPoolExecutor(max_workers=4) as pool:
                list(pool.map(deliver, left))
        assert unsettled() == []
        assert clock.scheduler is not None and clock.scheduler.running
        clock.reconcile()  # the clock works on after the restart, no process restart
    finally:
        clock.shutdown(wait=True)
        standin.configure(latency_s=0.0)

    posts = [c for c in standin.calls("chat.postMessage") if c.ok]
    per_channel = {c: [p for p in posts if p.channel == c] for c in channels}
    assert {c: len(p) for c, p in per_channel.items() if len(p) != 1} == {}, "lost or doubled"
    rows = {r.destination: r for r in store.deliveries(period=period_of(FIRE, "UTC"))}
    for c in channels:
        assert rows[c].status == "sent"
        assert rows[c].message_ts == per_channel[c][0].response["ts"]
    cursors = {s.cursor for s in store.subscriptions(TEAM)}
    assert len(cursors) == 1 and cursors != {0}  # every cursor moved once, the same way
    # The restart did cut the fan-out: posts missing, a call failing, or posts left unrecorded.
    assert 0 < cut < len(channels) or failures or left_after_restart
    runtime.store.close()
