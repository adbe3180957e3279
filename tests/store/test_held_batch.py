"""Held requests in group commits (:mod:`bot.store.held_batch`), on SQLite and PostgreSQL: a hold
returns once its row is committed (another connection sees it), the holds of many threads share
a transaction, a release does not wait and is written at the latest when the store closes."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from bot.store import Store
from tests.store.conftest import FakeClock
from tests.waits import PATIENCE_S, gate_flushes, wait_until

EVER = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))


def _held(url: str) -> list[tuple[int, str, str]]:
    """The held requests as a store of its own (its own connections) sees them."""
    with Store.from_url(url, migrate=False) as other:
        return other.held_requests(*EVER)


def test_a_hold_returns_once_committed(store: Store, store_url: str) -> None:
    body, form = "command=%2Fvllm-path&text=follow+pd", "application/x-www-form-urlencoded"
    request_id = store.held_batch().hold("T1", body, form)
    assert _held(store_url) == [(request_id, body, form)]


def test_the_holds_of_many_threads_share_one_transaction(store: Store, store_url: str) -> None:
    batcher = store.held_batch()
    gate, flushing = gate_flushes(batcher)
    with ThreadPoolExecutor(max_workers=20) as pool:
        first = pool.submit(batcher.hold, "T1", "first", "text/plain")
        assert flushing.wait(PATIENCE_S)  # the first batch is being written: the others queue meanwhile
        rest = [pool.submit(batcher.hold, "T1", f"body {i}", "text/plain") for i in range(19)]
        wait_until(lambda: len(batcher._pending) == 19, what="19 holds pending")
        gate.set()
        ids = [first.result(PATIENCE_S)] + [f.result(PATIENCE_S) for f in rest]
    assert batcher.batches == 2 and batcher.calls == 20  # one transaction for the 19 that came meanwhile
    assert sorted(ids) == sorted(i for i, _b, _c in _held(store_url)) and len(set(ids)) == 20


def test_a_release_does_not_wait_and_is_written_by_close(store_url: str, clock: FakeClock) -> None:
    mine = Store.from_url(store_url, migrate=False, clock=clock)
    batcher = mine.held_batch()
    kept, gone = (batcher.hold("T1", body, "text/plain") for body in ("kept", "gone"))
    gate = threading.Event()
    flush = batcher._flush
    batcher._flush = lambda batch: (gate.wait(PATIENCE_S), flush(batch))  # type: ignore[method-assign]
    batcher.release(gone)  # returns although its batch cannot be written yet
    assert {i for i, _b, _c in _held(store_url)} == {kept, gone}
    gate.set()
    mine.close()  # writes what is pending
    assert [i for i, _b, _c in _held(store_url)] == [kept]


def test_holds_carry_the_stores_clock(store: Store, clock: FakeClock) -> None:
    request_id = store.held_batch().hold("T1", "b", "text/plain")
    assert store.held_requests(clock.now, clock.now + timedelta(seconds=1)) == [(request_id, "b", "text/plain")]


def test_a_hold_later_returns_at_once_and_its_ticket_waits_for_the_commit(store: Store, store_url: str) -> None:
    import copy

    batcher = store.held_batch()
    gate = threading.Event()
    flush = batcher._flush
    batcher._flush = lambda batch: (gate.wait(PATIENCE_S), flush(batch))  # type: ignore[method-assign]
    ticket = batcher.hold_later("T1", "later", "text/plain")  # returns although nothing is written yet
    assert not ticket.done() and _held(store_url) == []
    try:
        ticket.wait(timeout=0.05)
    except TimeoutError:
        pass
    else:
        raise AssertionError("a ticket not committed waited for")
    assert copy.deepcopy({"held": ticket})["held"] is ticket  # Bolt copies a lazy request's context
    gate.set()
    request_id = ticket.wait(timeout=PATIENCE_S)
    assert ticket.done() and _held(store_url) == [(request_id, "later", "text/plain")]


def test_a_hold_later_on_a_closed_batcher_is_written_before_it_returns(store_url: str) -> None:
    mine = Store.from_url(store_url, migrate=False)
    batcher = mine.held_batch()
    batcher.close()  # the process is stopping
    ticket = batcher.hold_later("T1", "closing", "text/plain")
    assert ticket.done() and _held(store_url) == [(ticket.wait(), "closing", "text/plain")]
    mine.close()


def test_a_led_hold_is_committed_by_its_own_thread_before_it_returns(store: Store, store_url: str) -> None:
    """``hold_led`` (the HTTP door: the request thread waits for its hold anyway) writes its batch in
    the calling thread, not on the flusher, and its row is committed when it returns."""
    batcher = store.held_batch()
    writers: list[str] = []
    flush = batcher._flush

    def noting(batch: list) -> None:
        writers.append(threading.current_thread().name)
        flush(batch)

    batcher._flush = noting  # type: ignore[method-assign]
    ticket = batcher.hold_led("T1", "led", "text/plain")
    assert ticket.done()
    assert _held(store_url) == [(ticket.wait(), "led", "text/plain")]
    assert writers == [threading.current_thread().name]


def test_led_holds_that_come_while_a_batch_is_written_share_the_next_one(store: Store, store_url: str) -> None:
    """While one batch is written (here led by the first caller and held at a gate), the holds of 19
    other threads wait, then go in one transaction together, led by one of them or the flusher;
    a release enqueued meanwhile rides with them."""
    batcher = store.held_batch()
    released = batcher.hold("T1", "to release", "text/plain")
    gate, flushing = gate_flushes(batcher)
    with ThreadPoolExecutor(max_workers=20) as pool:
        first = pool.submit(lambda: batcher.hold_led("T1", "first", "text/plain").wait())
        assert flushing.wait(PATIENCE_S)
        rest = [pool.submit(lambda i=i: batcher.hold_led("T1", f"body {i}", "text/plain").wait()) for i in range(19)]
        wait_until(lambda: len(batcher._pending) == 19, what="19 holds pending")
        batcher.release(released)
        before = batcher.batches
        gate.set()
        ids = [first.result(PATIENCE_S)] + [f.result(PATIENCE_S) for f in rest]
    assert batcher.batches - before == 2 and len(set(ids)) == 20  # the gated one, then one for the 19
    assert sorted(ids) == sorted(i for i, _b, _c in _held(store_url))  # and the release written with them
