"""Logging for every process (serve, console, scheduler, CLI), with secrets redacted.

:func:`setup_logging` configures the root logger at ``settings.log_level`` and makes sure that no
secret reaches any log output, whatever handler writes it:

* every configured secret (:meth:`bot.config.Settings.secret_values`: bot token, signing
  secret, app token, client secret) and the password of ``DATABASE_URL``;
* anything shaped like a Slack token (``xoxb-…``, ``xoxp-…``, ``xoxa-…``, ``xoxr-…``, ``xoxs-…``,
  ``xoxo-…``, ``xoxe.xoxp-…``, ``xoxe-…``, ``xapp-…``), so that tokens the app learns at run time
  (OAuth installations in the database) are masked too

are replaced by ``[redacted]`` in the message, its arguments, the exception text (tracebacks,
including SQLAlchemy's ``[parameters: …]``) and the stack text. Redaction happens when a record
is *created* (a wrapped log-record factory), so handlers added later (pytest's capture, a
library's own handler) only ever see redacted records; the same :class:`RedactSecrets` filter is
also attached to the root handlers. Uncaught exceptions (main thread and other threads) and
``warnings`` go through logging as well, so their tracebacks are redacted too.

Call it once, first thing, in each entry point; calling it again only adds new secrets.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import traceback
from collections.abc import Iterable
from types import TracebackType
from typing import Any

REDACTED = "[redacted]"

SLACK_TOKEN_RE = re.compile(r"(?:xoxe\.)?xox[a-z]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+")
"""Slack token shapes: bot/user/app-level/refresh/config tokens (``xoxb-``, ``xoxp-``, ``xapp-`` …)."""

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


def _redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """Redact a record in place: message with its args merged, exception and stack text."""
    try:
        message = record.getMessage()
    except Exception:  # a broken format string: keep the raw parts, redacted
        message = f"{record.msg!r} % {record.args!r}"
    clean = redact(message)
    if clean != message or record.args:
        record.msg, record.args = clean, None
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
    if record.exc_text:
        record.exc_text = redact(record.exc_text)
        # The formatted text is kept; the live exception (whose str() may hold a secret) is
        # dropped so that no formatter re-renders it unredacted.
        record.exc_info = None
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    return record


class RedactSecrets(logging.Filter):
    """A :class:`logging.Filter` that redacts every record it sees (see :func:`redact`); never
    drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        _redact_record(record)
        return True


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
        return _redact_record(previous(*args, **kwargs))

    logging.setLogRecordFactory(factory)


def _install_excepthooks() -> None:
    log = logging.getLogger("vllm-path")

    def excepthook(exc_type: type[BaseException], exc: BaseException,
                   tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        log.critical("uncaught exception", exc_info=(exc_type, exc, tb))

    def thread_excepthook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "?"
        log.error("uncaught exception in thread %s", name,
                  exc_info=args.exc_value if args.exc_value is not None else True)

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
