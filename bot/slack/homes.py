"""App Home publishes (issues 42 and 43): coalesced per person, read from a per-person cache, on spare
threads of the lazy pool only, through a kept-alive connection.

* :class:`HomeCache`: per person (``(team, user)``), the channel ids Slack listed and the view last
  rendered and published. A view is used only with the person's reading state it was rendered from
  (reads, follows, language, budget: :meth:`bot.store.Store.reader_state`, whoever changed them) and
  while neither their DM settings nor a channel digest of the team changed here
  (:meth:`~bot.slack.handlers.Handlers.run`, ``action``: :meth:`HomeCache.changed`; elsewhere: :attr:`HomeCache.TTL_S`).
* :class:`HomePublisher`: at most one publish in flight per person; opens arriving meanwhile collapse
  into one more publish at the end (the latest open wins). A person's publish waits (it is not lost)
  while commands and clicks need the threads (:meth:`bot.slack.lazy.BoundedLazyPool.run_spare`).
* :class:`KeptAliveApi`: ``views.publish`` as JSON over HTTP/1.1 connections kept open (the standard
  library's ``http.client``; slack-sdk's ``WebClient`` opens a connection per call).

Speed layer needed by ``benchmarks/slow_slack.py --mix`` (200 people, Slack at 1 s): without it one
command in five and two clicks in three were answered "busy", and 30 opens by one person made 60 calls."""

from __future__ import annotations

import functools
import hashlib
import http.client
import json
import logging
import marshal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from bot import metrics
from bot.slack.commands.context import Caller

log = logging.getLogger(__name__)

Key = tuple[str, str]
"""``(team_id, user_id)``."""


@dataclass
class _Home:
    channels: list[str] | None
    listed_at: float  # time.monotonic() seconds
    view: dict[str, Any] | None = None
    basis: object = None  # the person's state the view was rendered from (compared with ==)
    digest: str = ""  # the view's (view_digest)
    rendered: int = 0  # the cache's version when what the view shows was read
    changed: int = 0  # the cache's version at this person's last change
    published: str = ""  # digest of the view Slack last accepted for this person
    published_at: float = 0.0


class HomeCache:
    """What App Home shows each person, kept at most :attr:`TTL_S` seconds (the channels a person is in,
    the clock's relative times) for at most :attr:`MAX_PEOPLE` people (least recently used dropped).
    Thread-safe."""

    MAX_PEOPLE = 10_000
    TTL_S = 60.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._homes: OrderedDict[Key, _Home] = OrderedDict()
        self._version = 0  # counts the changes
        self._teams: dict[str, int] = {}  # team -> the version of its last channel digest change

    def version(self) -> int:
        """The version now: pass it to :meth:`keep` for a view rendered from what was read after."""
        with self._lock:
            return self._version

    def changed(self, team: str, user: str | None = None) -> None:
        """``user`` changed what their App Home shows besides their reading state (e.g. their DM settings),
        or with ``user`` None a channel digest of ``team`` changed: every Home there is to be rendered again."""
        with self._lock:
            self._version += 1
            if user is not None:
                home = self._homes.get((team, user)) or self._put((team, user), _Home(None, 0.0))
                home.changed = self._version
                return
            if team not in self._teams and len(self._teams) >= self.MAX_PEOPLE:
                self._teams.clear()
                self._homes.clear()
            self._teams[team] = self._version

    def get(self, key: Key, basis: object) -> tuple[list[str] | None, float, dict[str, Any] | None, str] | None:
        """``(channel ids, when listed, view, its digest)`` kept for ``key`` (view None: to be rendered again,
        e.g. not rendered from ``basis``); None: nothing fresh (list the channels again)."""
        with self._lock:
            home = self._homes.get(key)
            if home is None or time.monotonic() - home.listed_at > self.TTL_S:
                return None
            self._homes.move_to_end(key)
            last_change = max(home.changed, self._teams.get(key[0], 0))
            fresh = home.view is not None and home.basis == basis and home.rendered >= last_change
            return home.channels, home.listed_at, home.view if fresh else None, home.digest

    def keep(
        self, key: Key, channels: list[str] | None, listed_at: float, view: dict[str, Any], basis: object, version: int
    ) -> str:
        """Keep ``channels`` (listed at ``listed_at``) and ``view``, rendered from ``basis`` and reads after
        :meth:`version` gave ``version``; the view's :func:`view_digest`."""
        digest = view_digest(view)
        with self._lock:
            home = self._homes.get(key) or self._put(key, _Home(channels, listed_at))
            home.channels, home.listed_at = channels, listed_at
            home.view, home.basis, home.rendered, home.digest = view, basis, version, digest
        return digest

    def _put(self, key: Key, home: _Home) -> _Home:
        self._homes[key] = home
        if len(self._homes) > self.MAX_PEOPLE:
            self._homes.popitem(last=False)
        return home

    def shown(self, key: Key, digest: str) -> bool:
        """Whether Slack accepted the view of ``digest`` for ``key`` as its latest, less than :attr:`TTL_S` ago."""
        with self._lock:
            home = self._homes.get(key)
            return home is not None and home.published == digest and time.monotonic() - home.published_at <= self.TTL_S

    def accepted(self, key: Key, digest: str) -> None:
        """Slack accepted the view of ``digest`` for ``key`` (:func:`view_digest`)."""
        with self._lock:
            if (home := self._homes.get(key)) is not None:
                home.published, home.published_at = digest, time.monotonic()


def view_digest(view: dict[str, Any]) -> str:
    """A short digest of ``view`` (a JSON object) to tell whether it is the one already published: of its
    ``marshal`` form (version 2: no references, so equal views give equal bytes; keys in their order, as a
    person's views are drawn by the same code), else of its JSON (a ``str`` subclass in it)."""
    try:
        data = marshal.dumps(view, 2)
    except ValueError:
        data = json.dumps(view, sort_keys=True).encode()
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class KeptAliveApi:
    """Slack Web API calls with a JSON body on HTTP/1.1 connections kept open between calls (at most
    :attr:`MAX_IDLE` idle). ``base_url``: the Web API's, ending in ``/api/``; ``timeout`` in seconds.
    Thread-safe."""

    MAX_IDLE = 16

    def __init__(self, base_url: str, timeout: float = 10.0) -> None:
        parts = urlsplit(base_url)
        self._conn: Callable[[], http.client.HTTPConnection] = lambda: (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )(parts.hostname or "", parts.port, timeout=timeout)
        self._path = parts.path if parts.path.endswith("/") else parts.path + "/"
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def call(self, method: str, token: str | None, args: dict[str, Any]) -> dict[str, Any]:
        """Slack's answer to ``method`` (e.g. ``views.publish``) with ``args`` as JSON: its body when HTTP
        200, else ``{"ok": False, "error": "http_<status>"}``. A kept connection that the server closed
        meanwhile is replaced once (``views.publish`` may be sent twice). Raises ``OSError`` or
        ``http.client.HTTPException`` when Slack cannot be reached, ``ValueError`` for a body not JSON."""
        body = json.dumps(args, separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json; charset=utf-8", "Authorization": f"Bearer {token or ''}"}
        for attempt in (1, 2):
            with self._lock:
                conn, fresh = (self._idle.pop(), False) if self._idle else (self._conn(), True)
            try:
                conn.request("POST", self._path + method, body, headers)
                answer = conn.getresponse()
                data = answer.read()
            except (OSError, http.client.HTTPException):
                conn.close()
                if fresh or attempt == 2:
                    raise
                continue
            with self._lock:
                if answer.will_close or len(self._idle) >= self.MAX_IDLE:
                    conn.close()
                else:
                    self._idle.append(conn)
            if answer.status != 200:
                return {"ok": False, "error": f"http_{answer.status}"}
            found: dict[str, Any] = json.loads(data)
            return found
        raise AssertionError("unreachable")


class HomePublisher:
    """Publishes App Home per person (see the module): ``publish(caller, token)`` does one publish (never
    raises); ``executor`` runs it: on a :class:`~bot.slack.lazy.BoundedLazyPool`, only on a spare thread
    (else the open waits, kept while it is among the :data:`MAX_WAITING` latest people), on another
    executor (the console's) at once. Thread-safe."""

    MAX_WAITING = 10_000
    FINISH_THREADS = 64
    """Publishes at once while a stopping process finishes the opens it acknowledged (:meth:`finish`):
    as many as the lazy pool's threads, each mostly waiting on Slack."""

    def __init__(self, publish: Callable[[Caller, str | None], None], executor: Executor) -> None:
        self._publish = publish
        self._executor = executor
        self._lock = threading.Condition()  # notified as a publish ends
        self._ready: OrderedDict[Key, tuple[Caller, str | None]] = OrderedDict()
        self._after: dict[Key, tuple[Caller, str | None]] = {}  # opened while their publish was in flight
        self._in_flight: set[Key] = set()
        spare = getattr(executor, "run_spare", None)
        self._start: Callable[[Callable[[], None]], bool] = spare or (lambda fn: executor.submit(fn) is not None)
        if spare is not None:
            executor.on_room = self.pump  # type: ignore[attr-defined]

    def open(self, caller: Caller, token: str | None) -> None:
        """``caller`` opened App Home (``token``: the bot token to publish with): publish it once there is
        room and their previous publish, if any, is done."""
        key = (caller.team_id, caller.user_id)
        with self._lock:
            if key in self._in_flight:
                self._after[key] = (caller, token)
            else:
                self._ready[key] = (caller, token)
                self._ready.move_to_end(key)
                if len(self._ready) > self.MAX_WAITING:
                    self._ready.popitem(last=False)
                    metrics.LAZY_SHED.inc()
        self.pump()

    def waiting(self) -> int:
        """People whose App Home is still to be published (in flight or waiting)."""
        with self._lock:
            return len(self._ready) + len(self._after) + len(self._in_flight)

    def pump(self) -> None:
        """Start the publishes waiting, as long as the executor has room."""
        while True:
            with self._lock:
                if not self._ready:
                    return
                key, job = self._ready.popitem(last=False)
                self._in_flight.add(key)
            if not self._start(functools.partial(self._run, key, job)):
                with self._lock:
                    self._in_flight.discard(key)
                    self._ready[key] = self._after.pop(key, job)
                    self._ready.move_to_end(key, last=False)
                return

    def _run(self, key: Key, job: tuple[Caller, str | None]) -> None:
        try:
            self._publish(*job)
        except Exception:  # the next open tries again
            log.exception("App Home publish failed (team %s)", key[0])
        finally:
            with self._lock:
                self._in_flight.discard(key)
                if key in self._after:
                    self._ready[key] = self._after.pop(key)
                self._lock.notify_all()
            self.pump()

    def finish(self, grace_s: float, threads: int = FINISH_THREADS) -> int:
        """At a stop, once the door takes no more requests: publish the Home of everyone whose open was
        acknowledged and is still waiting, on ``threads`` threads of its own (the lazy pool takes no more
        jobs while it drains), and wait up to ``grace_s`` seconds for those and the publishes in flight.
        Returns how many people's Home is left unpublished: Slack does not send an acknowledged event
        again, but their next open publishes their Home (App Home shows the last published view until
        then). Opens arriving meanwhile are published on the same threads."""
        deadline = time.monotonic() + grace_s
        finisher = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="home-finish")

        def start(fn: Callable[[], None]) -> bool:
            try:
                finisher.submit(fn)
            except RuntimeError:  # shut down: the grace period is over
                return False
            return True

        self._start = start
        self.pump()
        with self._lock:
            while self._ready or self._after or self._in_flight:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._lock.wait(left)
        finisher.shutdown(wait=False, cancel_futures=True)
        return self.waiting()
