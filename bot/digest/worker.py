"""``vllm-path worker``: a process that consumes digest messages (:mod:`bot.digest.queue`) and sends them.

Its :class:`~bot.digest.deliver.Deliverer` batches the ledger bookkeeping
(:class:`~bot.store.ledger_batch.BatchedLedgerStore`; a message of DMs is one batch in its thread,
:mod:`bot.digest.dm_batch`) and paces through Redis (:class:`~bot.digest.ratelimit.SharedPacer`).
Its Slack calls go on kept-alive connections (:func:`bot.digest.clients.keep_connections_alive`;
``WORKER_SLACK_KEEP_ALIVE=0`` in its environment: a connection a call, as slack-sdk alone does).
On SIGTERM or SIGINT it lets sends in flight finish
(at most ``shutdown_timeout_s``), flushes the batches and exits 0; a worker killed outright loses
nothing (Redis redelivers after ``heartbeat_timeout_s``, the ledger lets its claims be taken over).
"""

from __future__ import annotations

import logging
import signal
import threading
from dataclasses import dataclass
from types import FrameType

import dramatiq

from bot.config import Settings
from bot.digest import queue as digest_queue
from bot.digest.clients import Clients, keep_connections_alive
from bot.digest.deliver import Deliverer
from bot.digest.ratelimit import SharedPacer
from bot.digest.reload_log import log_reload
from bot.runtime import Runtime
from bot.store.ledger_batch import BatchedLedgerStore

log = logging.getLogger(__name__)


@dataclass
class WorkerOptions:
    """A worker's settings: ``threads`` sending at once (8: a message's forty DMs book their turns
    ahead, :meth:`bot.digest.pacing.SendPacer.each_in_turn`, so a few threads keep every workspace
    busy; ``benchmarks/fanout_queue.py``: 4 and 8 cost 0.55-0.57 ms of CPU a DM, 16 0.64-0.66 ms
    with more turns past the horizon); ``heartbeat_timeout_s`` after which a silent
    worker's messages are redelivered; ``stale_after_s`` after which a dead sender's claim is taken
    over; ``shutdown_timeout_s`` to let sends finish on SIGTERM."""

    threads: int = 8
    heartbeat_timeout_s: float = 60.0
    stale_after_s: float = 300.0
    shutdown_timeout_s: float = 8.0


class DigestWorker:
    """A worker process's parts for ``runtime``; ValueError without ``settings.redis_url``."""

    def __init__(self, runtime: Runtime, options: WorkerOptions | None = None):
        settings = runtime.settings
        if not settings.redis_url:
            raise ValueError("REDIS_URL is not set: a worker needs the queue's broker")
        self.options = options or WorkerOptions()
        self.store = runtime.store
        self.batched = BatchedLedgerStore(runtime.store)
        self.runtime = Runtime(settings, self.batched, runtime.holder, runtime.renderer)
        self.pacer = SharedPacer(
            settings.redis_url,
            namespace=settings.queue_namespace,
            team_rate_per_s=settings.slack_team_rate_per_s,
            channel_rate_per_s=settings.slack_channel_rate_per_s,
        )
        self.deliverer = Deliverer(
            self.runtime,
            clients=Clients(self.runtime),
            pacer=self.pacer,
            stale_after_s=self.options.stale_after_s,
        )
        queue = digest_queue.DigestQueue.from_settings(settings, heartbeat_timeout_s=self.options.heartbeat_timeout_s)
        assert queue is not None
        self.queue = queue
        self.worker: dramatiq.Worker | None = None
        self._tried: str | None = None

    def maybe_reload_catalog(self) -> bool:
        """Reload the catalog when another process recorded a newer version; True if tried."""
        latest = self.store.latest_catalog_version()
        if not latest or latest == self.runtime.holder.catalog.version or latest == self._tried:
            return False
        self._tried = latest
        ok, errors = self.runtime.holder.reload()
        serving, folder = self.runtime.holder.catalog.version, self.runtime.settings.catalog_dir
        log_reload(log, latest, ok, len(errors), serving, folder)
        return True

    def start(self) -> None:
        """Start consuming in background threads."""
        digest_queue.install_runner(self.deliverer, self.store)
        # an idle thread wakes once a second (Dramatiq's default): 0.2 % of a core idle, 0.85 % at 200 ms
        self.worker = dramatiq.Worker(
            self.queue.broker,
            queues={digest_queue.QUEUE_NAME},
            worker_threads=self.options.threads,
            worker_timeout=1000,
        )
        self.worker.start()
        log.info("digest worker started: %d threads, claimant %s", self.options.threads, self.deliverer.claimant)

    def stop(self) -> None:
        """Stop taking messages, let sends in flight finish, flush the ledger batches."""
        if self.worker is not None:
            self.worker.stop(timeout=int(self.options.shutdown_timeout_s * 1000))
            self.worker = None
        self.batched.close()
        self.queue.broker.close()
        log.info(
            "digest worker stopped (%d ledger batches for %d calls)",
            self.batched.batcher.batches,
            self.batched.batcher.calls,
        )


def worker_runtime(settings: Settings, threads: int) -> Runtime:
    """The worker's runtime: the catalog and the migrated database with ``threads + 2`` connections (at
    most 16, to fit PostgreSQL's ``max_connections``). Raises CatalogError for an invalid catalog."""
    from sqlalchemy.pool import StaticPool

    from bot.runtime import CatalogHolder, token_cipher, token_rotator
    from bot.store import Store, make_engine, migrate

    holder = CatalogHolder(settings.catalog_dir)
    engine = make_engine(settings.database_url)
    if not isinstance(engine.pool, StaticPool):
        engine.dispose()
        # No pre-ping per checkout (a round trip per query at hundreds of sends a second): a
        # connection the server dropped fails that send, which Dramatiq retries.
        engine = make_engine(
            settings.database_url, pool_size=min(threads + 2, 16), max_overflow=0, pool_pre_ping=False, pool_recycle=600
        )
    try:
        migrate(engine)
    except BaseException:
        engine.dispose()
        raise
    store = Store(
        engine,
        owns_engine=True,
        client_id=settings.slack_client_id,
        default_timezone=settings.default_timezone,
        token_cipher=token_cipher(settings),
        token_rotator=token_rotator(settings),
    )
    store.seal_tokens()
    runtime = Runtime(settings, store, holder)
    runtime.record_catalog_version()
    return runtime


def run(runtime: Runtime, options: WorkerOptions | None = None) -> None:
    """Run a worker until SIGTERM or SIGINT (the ``vllm-path worker`` command)."""
    worker = DigestWorker(runtime, options)
    stop = threading.Event()

    def _on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("signal %d: stopping the digest worker", signum)
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    if runtime.settings.worker_slack_keep_alive and not keep_connections_alive():
        log.info("a proxy is configured: Slack calls open a connection each")
    worker.start()
    try:
        while not stop.wait(30.0):
            try:
                worker.maybe_reload_catalog()
            except Exception:
                log.warning("could not check for a newer catalog", exc_info=True)
    finally:
        worker.stop()
