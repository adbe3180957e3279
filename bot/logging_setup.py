"""Logging for every process (serve, console, scheduler, CLI), with secrets redacted.

:func:`setup_logging` configures the root logger at ``settings.log_level`` and makes sure that no
secret reaches any log output, whatever handler writes it:

* every configured secret (:meth:`bot.config.Settings.secret_values`: bot token, signing
  secret, app token, client secret) and the password of ``DATABASE_URL``;
* anything shaped like a Slack token (``xoxb-…``, ``xoxp-…``, ``xoxa-…``, ``xoxr-…``, ``xoxs-…``,
  ``xoxo-…``, ``xoxe.xoxp-…``, ``xoxe-…``, ``xapp-…``), so that tokens the app learns at run time
  (OAuth installations in the database) are masked too

are replaced by ``[redacted]`` in the message, its arguments, the exception text (tracebacks,
including SQLAlchemy's ``[parameters: …]``) and the stack text. Request and response bodies are
withheld, whoever logs them (:func:`withhold_bodies`): Bolt logs the whole body of a request whose
signature it refuses at INFO; slack-sdk logs every Web API and response-URL request and response
body at DEBUG; Socket Mode logs its envelopes. Response URLs (``hooks.slack.com/commands/…``,
``…/actions/…``, any ``response_url`` field) and ``token`` fields (Slack's legacy verification
token) are masked too. Redaction happens when a record
is *created* (a wrapped log-record factory), so handlers added later (pytest's capture, a
library's own handler) only ever see redacted records; the same :class:`RedactSecrets` filter is
also attached to the root handlers. Uncaught exceptions (main thread and other threads) and
``warnings`` go through logging as well, so their tracebacks are redacted too.

**Outages** (:class:`OutageLog`): a record carrying an exception that says a dependency is
unreachable (PostgreSQL, Redis, or a digest send failing while Slack answers 5xx) is logged, the
first time in an outage, as one WARNING naming the dependency and the error, without its
traceback; the next ones of the same outage (until the dependency has been quiet for
:data:`OUTAGE_QUIET_S` seconds) are dropped by the root handlers and counted, the count given
with the first warning of the next outage. (A worker logged a traceback per message for the
whole of a database outage: 35 MB for 20 s.)

Call it once, first thing, in each entry point; calling it again only adds new secrets.
"""

from __future__ import annotations

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
    r"""https?(?::|%3A)(?://|%2F%2F)[^\s'"&,)}\]]*?(?:/|%2F)(?:commands|actions|response)"""
    r"""(?:/|%2F)[^\s'"&,)}\]]+""",
    re.IGNORECASE,
)
"""A response URL, plain or form-encoded: Slack's ``https://hooks.slack.com/commands/T…/…/…`` and
``…/actions/…`` (and the stand-in's ``…/response/<key>``)."""

_FIELD_RES = (
    # response_url / token fields in JSON, Python reprs and form bodies
    re.compile(r"""((?<![A-Za-z0-9_])["']?(?:response_url|token)["']?\s*[:=]\s*["']?)[^"'&,\s}]+""", re.IGNORECASE),
)

BODY_LABEL_RE = re.compile(
    r"""(?:\b(?:request body|body|body_params|json_body|query_params)\s*[:=]\s*)"""
    r"""|(?:\b(?:message|payload|envelope)\s*[:=]\s*(?=[\[{'"b]))""",
    re.IGNORECASE,
)
"""Where a logged body starts: ``body: …`` (Bolt's refused-signature line, slack-sdk's request and
response lines), ``request body: …``, ``body_params`` / ``json_body`` / ``query_params``, and a
``message:`` / ``payload:`` / ``envelope:`` followed by a dict, list, string or bytes (Socket
Mode)."""

BODY_WITHHELD = "[body withheld]"

MIN_SECRET_LENGTH = 6
"""Configured values shorter than this are not redacted by value (they would mangle ordinary
text); Slack's secrets are far longer."""

_lock = threading.Lock()
_secrets: set[str] = set()
_installed = False


def redact(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every secret (default: the ones registered by :func:`setup_logging`) and
    every Slack-token-shaped string replaced by ``[redacted]``. Longest secrets first, so a
    secret that contains another is masked whole."""
    if not text:
        return text
    values = _secrets if secrets is None else {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
    for secret in sorted(values, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return SLACK_TOKEN_RE.sub(REDACTED, text)


def withhold_bodies(text: str) -> str:
    """``text`` cut at the first logged body (see :data:`BODY_LABEL_RE`), which is replaced by
    ``[body withheld]``; response URLs and ``token``/``response_url`` fields elsewhere in it are
    masked. Text without any of these is returned unchanged."""
    if not text:
        return text
    found = BODY_LABEL_RE.search(text)
    if found:
        text = text[: found.end()] + BODY_WITHHELD
    for pattern in _FIELD_RES:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return RESPONSE_URL_RE.sub("[response_url]", text)


def slack_error(response: Any) -> str:
    """A refused Web API call in one line: Slack's ``error`` code plus its
    ``response_metadata.messages`` (the reasons Slack gives, e.g. for ``invalid_arguments`` on
    ``views.publish``) and ``needed`` for ``missing_scope``. ``response`` is a ``SlackResponse``
    or its ``dict`` body."""
    get = response.get if hasattr(response, "get") else (lambda _k, _d=None: _d)
    code = str(get("error") or f"http_{getattr(response, 'status_code', '?')}")
    extra = []
    needed = get("needed")
    if needed:
        extra.append(f"needed: {needed}")
    messages = (get("response_metadata") or {}).get("messages") or []
    extra.extend(str(m) for m in messages)
    return f"{code} ({'; '.join(extra)})" if extra else code


OUTAGE_QUIET_S = 60.0
"""An outage is over once no error of its kind was logged for this many seconds."""

SUPPRESSED = "vllm_path_suppressed"
"""Attribute set on a record that repeats an outage already logged (the root handlers drop it)."""

_OUTAGE_TYPES: dict[str, tuple[str, frozenset[str]]] = {
    "sqlalchemy": (
        "the database",
        frozenset({"OperationalError", "InterfaceError", "DisconnectionError", "TimeoutError"}),
    ),
    "psycopg": ("the database", frozenset({"OperationalError", "InterfaceError"})),
    "redis": ("the broker (Redis)", frozenset({"ConnectionError", "TimeoutError", "BusyLoadingError"})),
    "bot.digest.queue": ("Slack (digest sends)", frozenset({"DeliveryFailed"})),
}


_OUTAGE_MESSAGES: tuple[tuple[str, str, str], ...] = (
    # Dramatiq's consumer threads log a lost broker without a traceback, every 3 s per queue
    ("dramatiq.worker", "Consumer encountered a connection error", "the broker (Redis)"),
)
_OUTAGE_FOLLOWERS: tuple[tuple[str, str, str], ...] = (
    ("dramatiq.worker", "Restarting consumer in", "the broker (Redis)"),
)


def _message_kind(record: logging.LogRecord, table: tuple[tuple[str, str, str], ...]) -> str | None:
    for logger, start, kind in table:
        if record.name.startswith(logger) and str(record.msg).startswith(start):
            return kind
    return None


def outage_kind(exc: BaseException | None) -> str | None:
    """The dependency an exception says is unreachable (``'the database'``, ``'the broker
    (Redis)'``, ``'Slack (digest sends)'``), looking through its causes; None for any other error."""
    seen = 0
    while exc is not None and seen < 10:
        module = type(exc).__module__.split(".")[0]
        for prefix, (kind, names) in _OUTAGE_TYPES.items():
            if (type(exc).__module__ == prefix or module == prefix) and type(exc).__name__ in names:
                return kind
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


class OutageLog:
    """Collapses the logging of an outage to one warning (see the module docstring).
    ``quiet_s``: seconds without an error of a kind that end its outage; ``clock``: monotonic
    seconds (tests pass their own)."""

    def __init__(self, quiet_s: float = OUTAGE_QUIET_S, clock: Callable[[], float] = time.monotonic):
        self.quiet_s = quiet_s
        self.clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, list[float]] = {}  # kind -> [last seen, suppressed count]

    def judge(self, record: logging.LogRecord) -> None:
        """Rewrite ``record`` in place: the first error of an outage becomes a WARNING without
        traceback; a repeat loses its traceback, drops to DEBUG and is marked :data:`SUPPRESSED`."""
        follower = _message_kind(record, _OUTAGE_FOLLOWERS)
        if follower is not None:  # the chatter that goes with an outage already logged
            with self._lock:
                state = self._last.get(follower)
                if state is not None and self.clock() - state[0] <= self.quiet_s:
                    record.levelno, record.levelname = logging.DEBUG, "DEBUG"
                    setattr(record, SUPPRESSED, True)
            return
        if record.levelno < logging.WARNING:
            return
        exc = record.exc_info[1] if record.exc_info else None
        kind = outage_kind(exc) if exc is not None else _message_kind(record, _OUTAGE_MESSAGES)
        if kind is None:
            return
        now = self.clock()
        with self._lock:
            state = self._last.get(kind)
            repeat = state is not None and now - state[0] <= self.quiet_s
            earlier = int(state[1]) if state is not None and not repeat else 0
            if repeat and state is not None:
                state[0], state[1] = now, state[1] + 1
            else:
                self._last[kind] = [now, 0.0]
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        record.exc_info, record.exc_text, record.args = None, None, None
        if repeat:
            record.msg, record.levelno, record.levelname = message, logging.DEBUG, "DEBUG"
            setattr(record, SUPPRESSED, True)
            return
        first_line = (str(exc).strip().splitlines() or [""])[0][:300] if exc is not None else ""
        error = f": {type(exc).__name__}: {first_line}" if exc is not None else ""
        note = f"; {earlier} error(s) of the previous outage were not logged" if earlier else ""
        record.msg = (
            f"{message} ({kind} is unreachable{error}; "
            f"further errors are not logged until it has been quiet for "
            f"{self.quiet_s:.0f} s{note})"
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
        # The formatted text is kept; the live exception (whose str() may hold a secret) is
        # dropped so that no formatter re-renders it unredacted.
        record.exc_info = None
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    return record


def _mask_fields(text: str) -> str:
    """Response URLs and ``token``/``response_url`` fields masked (bodies kept: tracebacks)."""
    for pattern in _FIELD_RES:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return RESPONSE_URL_RE.sub("[response_url]", text)


class RedactSecrets(logging.Filter):
    """A :class:`logging.Filter` that redacts every record it sees (see :func:`redact`); drops
    only the repeats of an outage already logged (:class:`OutageLog`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        _redact_record(record)
        return not getattr(record, SUPPRESSED, False)


def secrets_of(settings: Any) -> list[str]:
    """The secret strings of ``settings``: :meth:`secret_values` plus the ``DATABASE_URL``
    password, if any."""
    out = list(settings.secret_values())
    try:
        from sqlalchemy.engine import make_url

        password = make_url(settings.database_url).password
        if password:
            out.append(str(password))
    except Exception:  # an unparseable URL has no password to hide
        pass
    return out


def add_secrets(values: Iterable[str]) -> None:
    """Register more values to redact (e.g. a token obtained at run time)."""
    with _lock:
        _secrets.update(v for v in values if v and len(v) >= MIN_SECRET_LENGTH)


def _install_record_factory() -> None:
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        OUTAGES.judge(record)
        return _redact_record(record)

    logging.setLogRecordFactory(factory)


def _install_excepthooks() -> None:
    log = logging.getLogger("vllm-path")

    def excepthook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        log.critical("uncaught exception", exc_info=(exc_type, exc, tb))

    def thread_excepthook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "?"
        log.error(
            "uncaught exception in thread %s", name, exc_info=args.exc_value if args.exc_value is not None else True
        )

    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook


def setup_logging(settings: Any, *, stream: Any = None) -> None:
    """Configure logging for a process and register ``settings``' secrets for redaction.

    When the root logger has no handler yet, one is added writing to ``stream`` (default
    ``sys.stderr``) as ``time LEVEL logger: message`` at ``settings.log_level``. Alembic's
    per-migration INFO lines are quietened. Idempotent: a second call only registers new secrets
    and makes sure every root handler carries :class:`RedactSecrets`.
    """
    global _installed
    add_secrets(secrets_of(settings))
    root = logging.getLogger()
    with _lock:
        if not root.handlers:
            handler = logging.StreamHandler(stream or sys.stderr)
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
            root.addHandler(handler)
            level = logging.getLevelName(str(settings.log_level).upper())
            root.setLevel(level if isinstance(level, int) else logging.INFO)
            logging.getLogger("alembic").setLevel(max(logging.WARNING, root.level))
        if not _installed:
            _install_record_factory()
            _install_excepthooks()
            logging.captureWarnings(True)
            _installed = True
        for existing in root.handlers:
            if not any(isinstance(f, RedactSecrets) for f in existing.filters):
                existing.addFilter(RedactSecrets())
