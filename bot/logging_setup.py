"""Logging for every process (serve, console, scheduler, CLI), with secrets redacted.

:func:`setup_logging` redacts every record when it is *created* (a wrapped log-record factory;
the root handlers carry :class:`RedactSecrets` too): the configured secrets, the ``DATABASE_URL``
password and anything shaped like a Slack token become ``[redacted]`` in the message, its
arguments, the exception and the stack text; logged request and response bodies are withheld
(:func:`withhold_bodies`). Uncaught exceptions (any thread) and ``warnings`` go through logging
too. :class:`OutageLog` turns the errors of a dependency's outage into one WARNING, naming the
dependency and what is wrong with it (:func:`outage`): unreachable, or a database whose disk is
full or that is read-only.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any

REDACTED = "[redacted]"

SLACK_TOKEN_RE = re.compile(r"(?:xoxe\.)?xox[a-z]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+")
"""Slack token shapes: bot/user/app-level/refresh/config tokens (``xoxb-``, ``xoxp-``, ``xapp-`` …)."""

RESPONSE_URL_RE = re.compile(
    r"""(?i)https?(?::|%3A)(?://|%2F%2F)[^\s'"&,)}\]]*?(?:/|%2F)(?:commands|actions|response)"""
    r"""(?:/|%2F)[^\s'"&,)}\]]+"""
)
"""A response URL, plain or form-encoded: ``…/commands/…``, ``…/actions/…``, ``…/response/<key>``."""

_FIELD_RE = re.compile(r"""((?<![A-Za-z0-9_])["']?(?:response_url|token)["']?\s*[:=]\s*["']?)[^"'&,\s}]+""", re.I)
"""A ``response_url`` or ``token`` field in JSON, a Python repr or a form body."""

BODY_LABEL_RE = re.compile(
    r"""(?i)(?:\b(?:request body|body|body_params|json_body|query_params)\s*[:=]\s*)"""
    r"""|(?:\b(?:message|payload|envelope)\s*[:=]\s*(?=[\[{'"b]))"""
)
"""Where a logged body starts: ``body:``, ``request body:``, ``body_params`` and the like, or a
``message:`` / ``payload:`` / ``envelope:`` followed by a dict, list, string or bytes."""

BODY_WITHHELD = "[body withheld]"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""The line every process logs (:func:`setup_logging`)."""

MIN_SECRET_LENGTH = 6
"""Configured values shorter than this are not redacted by value (they would mangle ordinary text)."""

_lock = threading.Lock()
_secrets: set[str] = set()
_installed = False


def redact(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every secret (default: those registered by :func:`setup_logging`), longest
    first, and every Slack-token-shaped string replaced by ``[redacted]``."""
    if not text:
        return text
    values = _secrets if secrets is None else {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
    for secret in sorted(values, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return SLACK_TOKEN_RE.sub(REDACTED, text)


def _mask_fields(text: str) -> str:
    """Response URLs and ``token``/``response_url`` fields masked (bodies kept: tracebacks)."""
    return RESPONSE_URL_RE.sub("[response_url]", _FIELD_RE.sub(lambda m: m.group(1) + REDACTED, text))


def withhold_bodies(text: str) -> str:
    """``text`` cut at the first logged body (:data:`BODY_LABEL_RE`), replaced by ``[body
    withheld]``, with response URLs and ``token``/``response_url`` fields masked."""
    found = BODY_LABEL_RE.search(text) if text else None
    return _mask_fields(text[: found.end()] + BODY_WITHHELD if found else text)


def slack_error(response: Any) -> str:
    """A refused Web API call in one line: Slack's ``error`` code plus ``needed`` and
    ``response_metadata.messages``; ``response`` is a ``SlackResponse`` or its ``dict`` body."""
    get = response.get if hasattr(response, "get") else (lambda _k, _d=None: _d)
    code = str(get("error") or f"http_{getattr(response, 'status_code', '?')}")
    extra = [f"needed: {get('needed')}"] if get("needed") else []
    extra.extend(str(m) for m in (get("response_metadata") or {}).get("messages") or [])
    return f"{code} ({'; '.join(extra)})" if extra else code


OUTAGE_QUIET_S = 60.0
"""An outage is over once no error of its kind was logged for this many seconds."""

SUPPRESSED = "vllm_path_suppressed"
"""Attribute set on a record that repeats an outage already logged (the root handlers drop it)."""

_BROKER, _SLACK_SENDS = "the broker (Redis)", "Slack (digest sends)"
_OUTAGE_TYPES: dict[str, tuple[str, set[str]]] = {  # module (or its package): (kind, class names)
    "sqlalchemy": ("the database", {"OperationalError", "InterfaceError", "DisconnectionError", "TimeoutError"}),
    "psycopg": ("the database", {"OperationalError", "InterfaceError"}),
    "redis": (_BROKER, {"ConnectionError", "TimeoutError", "BusyLoadingError"}),
    "bot.digest.queue": (_SLACK_SENDS, {"DeliveryFailed"}),
}


def _from_dramatiq(record: logging.LogRecord, start: str) -> bool:
    """Whether a Dramatiq consumer logs a line starting with ``start``."""
    return record.name.startswith("dramatiq.worker") and str(record.msg).startswith(start)


_SCHEMA_ERRORS = ("no such table", "no such column", "has no column named")
"""SQLite reports a missing table or column as an ``OperationalError`` (PostgreSQL: a
``ProgrammingError``): a fault of the schema, logged with its traceback, not an outage."""


def _schema_error(exc: BaseException) -> bool:
    return str(getattr(exc, "orig", None) or exc).startswith(_SCHEMA_ERRORS)


UNREACHABLE = "is unreachable"
DISK_FULL = "disk is full"
READ_ONLY = "is read-only"

_DB_MODULES = ("sqlalchemy", "psycopg", "sqlite3")
_DB_STATES: tuple[tuple[str, frozenset[str], frozenset[str], tuple[str, ...]], ...] = (
    # (state, SQLSTATEs, class names, message fragments; SQLite has only the message)
    (DISK_FULL, frozenset({"53100"}), frozenset({"DiskFull"}), ("database or disk is full", "no space left on device")),
    (
        READ_ONLY,
        frozenset({"25006"}),
        frozenset({"ReadOnlySqlTransaction"}),
        ("attempt to write a readonly database", "read-only transaction", "read-only file system"),
    ),
)
"""A database that answers but cannot write: its disk is full, or it is read-only."""


def _db_state(exc: BaseException) -> str | None:
    """:data:`DISK_FULL` or :data:`READ_ONLY` for a database driver's (or SQLAlchemy's) error saying so."""
    if type(exc).__module__.split(".")[0] not in _DB_MODULES:
        return None
    orig = getattr(exc, "orig", None) or exc
    sqlstate = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    names = {type(orig).__name__, type(exc).__name__}
    text = str(orig).lower()
    for state, codes, classes, fragments in _DB_STATES:
        if sqlstate in codes or names & classes or any(f in text for f in fragments):
            return state
    return None


def _own_outage(exc: BaseException) -> tuple[str, str] | None:
    """What ``exc`` itself (not its causes) says about a dependency."""
    state = _db_state(exc)
    if state is not None:
        return "the database", state
    module = type(exc).__module__
    for prefix, (kind, names) in _OUTAGE_TYPES.items():
        if prefix in (module, module.split(".")[0]) and type(exc).__name__ in names and not _schema_error(exc):
            return kind, UNREACHABLE
    return None


def outage(exc: BaseException | None) -> tuple[str, str] | None:
    """``(dependency, state)`` of an outage an exception (or one of its causes) reports, else None:
    the dependency ``'the database'``, ``'the broker (Redis)'`` or ``'Slack (digest sends)'``; the
    state :data:`UNREACHABLE`, or for the database :data:`DISK_FULL` or :data:`READ_ONLY`. A digest
    that failed (``DeliveryFailed``) is Slack's outage only when none of its causes names another:
    a digest that failed on a database error is the database's."""
    deferred: tuple[str, str] | None = None
    for _ in range(10):
        if exc is None:
            break
        found = _own_outage(exc)
        if found is not None and found[0] != _SLACK_SENDS:
            return found
        deferred = deferred or found
        exc = exc.__cause__ or exc.__context__
    return deferred


_CAUSE_LABELS = {
    ("the database", UNREACHABLE): "database_unreachable",
    ("the database", DISK_FULL): "database_disk_full",
    ("the database", READ_ONLY): "database_read_only",
    (_BROKER, UNREACHABLE): "broker_unreachable",
    (_SLACK_SENDS, UNREACHABLE): "slack_unreachable",
}


def failure_cause(exc: BaseException | None) -> str:
    """A metrics label for what an exception says went wrong: ``database_disk_full``,
    ``database_read_only``, ``database_unreachable``, ``broker_unreachable``, ``slack_unreachable``
    (from :func:`outage`), ``database_error`` (any other error of a database driver or SQLAlchemy,
    or one caused by it), else ``other``."""
    found = outage(exc)
    if found is not None:
        return _CAUSE_LABELS.get(found, "other")
    for _ in range(10):
        if exc is None:
            break
        if type(exc).__module__.split(".")[0] in _DB_MODULES:
            return "database_error"
        exc = exc.__cause__ or exc.__context__
    return "other"


def outage_kind(exc: BaseException | None) -> str | None:
    """The dependency an exception (or one of its causes) reports an outage of (``'the database'``,
    ``'the broker (Redis)'``, ``'Slack (digest sends)'``), else None: :func:`outage`'s first part."""
    found = outage(exc)
    return found[0] if found is not None else None


def _demote(record: logging.LogRecord) -> None:
    record.levelno, record.levelname = logging.DEBUG, "DEBUG"
    setattr(record, SUPPRESSED, True)


class OutageLog:
    """Collapses an outage's logging: its first record (:func:`outage_kind`) becomes one WARNING
    without traceback; repeats until it has been quiet for ``quiet_s`` seconds are dropped by the
    root handlers and counted in the next outage's warning. ``clock``: monotonic seconds."""

    def __init__(self, quiet_s: float = OUTAGE_QUIET_S, clock: Callable[[], float] = time.monotonic):
        self.quiet_s = quiet_s
        self.clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, list[float]] = {}  # kind -> [last seen, suppressed count]

    def judge(self, record: logging.LogRecord) -> None:
        """Rewrite ``record``: an outage's first error a WARNING, a repeat a :data:`SUPPRESSED` DEBUG."""
        if _from_dramatiq(record, "Restarting consumer in"):  # the chatter that goes with an outage already logged
            with self._lock:
                state = self._last.get(f"{_BROKER} {UNREACHABLE}")
                if state is not None and self.clock() - state[0] <= self.quiet_s:
                    _demote(record)
            return
        if record.levelno < logging.WARNING:
            return
        exc = record.exc_info[1] if record.exc_info else None
        # Dramatiq's consumer threads log a lost broker without a traceback, every 3 s per queue
        lost = exc is None and _from_dramatiq(record, "Consumer encountered a connection error")
        found = (_BROKER, UNREACHABLE) if lost else outage(exc)
        if found is None:
            return
        kind = f"{found[0]} {found[1]}"  # one outage per dependency and state
        now = self.clock()
        with self._lock:
            state = self._last.get(kind)
            repeat = state is not None and now - state[0] <= self.quiet_s
            if repeat and state is not None:
                state[0], state[1] = now, state[1] + 1
            else:
                earlier = int(state[1]) if state is not None else 0
                self._last[kind] = [now, 0.0]
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        record.exc_info, record.exc_text, record.args, record.msg = None, None, None, message
        if repeat:
            _demote(record)
            return
        error = f": {type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0][:300]}" if exc is not None else ""
        note = f"; {earlier} error(s) of the previous outage were not logged" if earlier else ""
        record.msg = (
            f"{message} ({kind}{error}; further errors are not logged until it has "
            f"been quiet for {self.quiet_s:.0f} s{note})"
        )
        record.levelno, record.levelname = logging.WARNING, "WARNING"


OUTAGES = OutageLog()
"""The process's outage log, applied to every record by the factory :func:`setup_logging` installs."""


def _redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """Redact a record in place: message with its args merged, exception and stack text."""
    try:
        message = record.getMessage()
    except Exception:  # a broken format string: keep the raw parts, redacted
        message = f"{record.msg!r} % {record.args!r}"
    clean = redact(withhold_bodies(message))
    if clean != message or record.args:
        record.msg, record.args = clean, None
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
    if record.exc_text:
        record.exc_text = redact(_mask_fields(record.exc_text))
        record.exc_info = None  # so that no formatter re-renders it unredacted
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    return record


class RedactSecrets(logging.Filter):
    """Redacts every record it sees; drops only the repeats of an outage already logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        _redact_record(record)
        return not getattr(record, SUPPRESSED, False)


def secrets_of(settings: Any) -> list[str]:
    """``settings.secret_values()`` plus the ``DATABASE_URL`` password, if any."""
    out = list(settings.secret_values())
    with contextlib.suppress(Exception):  # an unparseable URL has no password to hide
        from sqlalchemy.engine import make_url

        if password := make_url(settings.database_url).password:
            out.append(str(password))
    return out


def _install() -> None:
    """The redacting record factory, the excepthooks of the main and other threads, warnings."""
    previous = logging.getLogRecordFactory()
    log = logging.getLogger("vllm-path")

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        OUTAGES.judge(record)
        return _redact_record(record)

    def excepthook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
        else:
            log.critical("uncaught exception", exc_info=(exc_type, exc, tb))

    def thread_excepthook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is not SystemExit:
            name = args.thread.name if args.thread is not None else "?"
            log.error(
                "uncaught exception in thread %s", name, exc_info=args.exc_value if args.exc_value is not None else True
            )

    logging.setLogRecordFactory(factory)
    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook
    logging.captureWarnings(True)


def setup_logging(settings: Any, *, stream: Any = None) -> None:
    """Configure logging for a process and register ``settings``' secrets for redaction: without a
    root handler, one writing ``time LEVEL logger: message`` to ``stream`` (default stderr) at
    ``settings.log_level``. A second call only adds new secrets and :class:`RedactSecrets` filters."""
    global _installed
    root = logging.getLogger()
    with _lock:
        _secrets.update(v for v in secrets_of(settings) if v and len(v) >= MIN_SECRET_LENGTH)
        if not root.handlers:
            level = logging.getLevelName(str(settings.log_level).upper())
            level = level if isinstance(level, int) else logging.INFO
            logging.basicConfig(stream=stream or sys.stderr, format=FORMAT, level=level)
            logging.getLogger("alembic").setLevel(max(logging.WARNING, root.level))
            # slack-sdk formats the whole request and response of every Web API call for DEBUG
            # unless its own logger's level (not the effective one) is above DEBUG: ~6% of a
            # digest worker's CPU (benchmarks/fanout_queue.py) for lines never written.
            logging.getLogger("slack_sdk.web.base_client").setLevel(root.level)
        if not _installed:
            _install()
            _installed = True
        for existing in root.handlers:
            if not any(isinstance(f, RedactSecrets) for f in existing.filters):
                existing.addFilter(RedactSecrets())
