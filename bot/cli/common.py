"""Helpers shared by the command modules of the CLI (``bot/cli/*.py``); none imports
``bot/cli/main.py``, which registers their commands."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar

import click

from bot.domain.catalog import Catalog, CatalogError
from bot.locations import catalog_dir as configured_catalog_dir

if TYPE_CHECKING:
    from bot.domain.search.matcher import Matcher

T = TypeVar("T")

DEFAULT_PID_FILE = "vllm-path.pid"
"""Where ``serve`` writes its process id (working directory), for ``catalog reload``."""
PID_GLOB = "vllm-path*.pid"
"""``catalog reload`` signals every process named by a pid file matching this (``serve``'s, and
each ``scheduler``'s ``vllm-path-scheduler-<pid>.pid``)."""

catalog_option = click.option(
    "--catalog",
    "catalog_dir",
    type=click.Path(file_okay=False),
    help="Catalog folder (default: CATALOG_DIR or the repo's catalog/).",
)
"""``--catalog DIR`` for the commands that read the catalog (``catalog_dir``: ``str | None``)."""

option = partial(click.option, show_default=True)
"""``click.option`` whose help shows the default."""


def dump_json(data: object) -> None:
    """Print ``data`` as indented JSON (non-ASCII kept as is) on stdout."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def load_catalog_or_exit(catalog_dir: str | None) -> Catalog:
    """Load the catalog or exit 1 with every error listed. A folder with its own search vocabulary
    is read as every runtime reads it (:func:`bot.domain.search.cache.kept_catalog`: no YAML read
    when the files and code are those it was kept from; ``digest preview`` read all the YAML and
    ran the catalog's checks on every call); a vocabulary it cannot read is no reason to refuse the
    catalog here (the catalog alone is loaded then). ``catalog check`` runs the checks itself."""
    from bot.domain.catalog.loader import load_catalog  # deferred: YAML and the checks

    def load(path: Path) -> Catalog:
        from bot.domain.search.vocabulary import VOCABULARY_FILE, VocabularyError

        if (path / VOCABULARY_FILE).is_file():
            from bot.domain.search.cache import kept_catalog

            with suppress(VocabularyError):
                return kept_catalog(path).catalog
        return load_catalog(path)

    return catalog_or_exit(catalog_dir, load)


def catalog_or_exit(catalog_dir: str | None, load: Callable[[Path], T]) -> T:
    """``load(folder)`` of the catalog folder (a loader raising :class:`CatalogError`, e.g.
    :func:`bot.domain.catalog.load_catalog`), or exit 1 with every error listed."""
    path = configured_catalog_dir(catalog_dir)
    try:
        return load(path)
    except CatalogError as exc:
        echo_catalog_errors(exc)
        fail(f"{len(exc.errors)} error(s) in {path}", 1)


def fail(message: str, code: int) -> NoReturn:
    """Print ``message`` on stderr and exit ``code`` (1: refused or failed, 2: usage or configuration)."""
    click.echo(message, err=True)
    sys.exit(code)


def track_or_exit(catalog: Catalog, text: str) -> str:
    """The id of the track ``text`` names (:func:`bot.domain.search.track_named`: id, name or
    alias, even misspelt): a word close to one track's name or id and no other (``spc``, as chat's
    did-you-mean, :meth:`bot.domain.search.Matcher.suggest_track`) is taken as that track, said on
    stderr (QA: ``--help`` promised misspellings, chat suggested ``spec``, the CLI refused). Raises
    :class:`click.BadParameter` (click's usage error: exit 2, ``Error: Invalid value for 'TRACK': no
    track matches 'x'; tracks: …`` on stderr) for the parameter of the running command that holds
    ``text``, when no track matches. The search index is built only when ``text`` is not a track's
    exact id, name or alias (``digest preview --track spec`` 0.94 -> 0.50 s)."""
    from bot.domain.search import track_named

    built: list[Matcher] = []

    def matcher() -> Matcher:  # built only when the text is not a track's exact id, name or alias
        if not built:
            from bot.domain.search.matcher import Matcher  # deferred: the index pulls in numpy and rapidfuzz

            built.append(Matcher(catalog))
        return built[0]

    track_id = track_named(catalog, text, matcher)
    if track_id is None and (near := matcher().suggest_track(text)) is not None:
        track_id = near.track_id
        click.echo(f"Taking {text!r} as {track_id} ({catalog.track(track_id).names.en}).", err=True)
    if track_id is None:
        tracks = ", ".join(t.id for t in catalog.tracks)
        ctx = click.get_current_context(silent=True)
        params = ctx.command.params if ctx else []
        given = ctx.params if ctx is not None else {}
        param = next((p for p in params if text in (given.get(p.name or ""), *(given.get(p.name or "") or ()))), None)
        raise click.BadParameter(f"no track matches {text!r}; tracks: {tracks}", ctx=ctx, param=param)
    return track_id


class Minutes(click.IntRange):
    """A ``--minutes`` value: a whole number of minutes from ``low`` to ``high``; anything else is
    click's usage error (exit 2) saying so plainly (not "not a valid integer range")."""

    name = "minutes"

    def __init__(self, low: int, high: int) -> None:
        super().__init__(low, high)
        self.low, self.high = low, high

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """``value`` as an ``int``; raises :class:`click.BadParameter` for a non-number or one out of range."""
        try:
            number = int(str(value).strip())
        except ValueError:
            number = None
        if number is None or not self.low <= number <= self.high:
            self.fail(f"{value!r} is not a number of minutes from {self.low} to {self.high}", param, ctx)
        return number


class SlackId(click.ParamType):
    """A Slack id option (``--team T…``, ``--channel C…``, ``--user U…``): spaces around it are
    dropped; an empty one, or one with a space or control character inside, is click's usage error
    (exit 2) naming the option (QA round 10: ``stats --team ''`` ended in a traceback)."""

    name = "id"

    def __init__(self, example: str) -> None:
        self.example = example

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        """``value`` without the spaces around it; raises :class:`click.BadParameter` when it is not an id."""
        text = str(value).strip()
        if not text:
            self.fail(f"the id is empty: give one such as {self.example}", param, ctx)
        if any(ch.isspace() or not ch.isprintable() for ch in text):
            self.fail(f"{text!r} is not a Slack id (one word, such as {self.example})", param, ctx)
        return text


def echo_catalog_errors(exc: CatalogError) -> None:
    """Print each of the catalog's errors as an ``error:`` line on stderr."""
    for issue in exc.errors:
        click.echo(f"error: {issue}", err=True)


@contextmanager
def exit_on_catalog_error() -> Iterator[None]:
    """Run the block; a :class:`CatalogError` raised in it is printed (:func:`echo_catalog_errors`)
    and the process exits 1; a database that cannot be opened (a malformed ``DATABASE_URL``, a
    server not answering: SQLAlchemy's errors) is said in one line, password masked, exit 2."""
    try:
        yield
    except CatalogError as exc:
        echo_catalog_errors(exc)
        sys.exit(1)
    except Exception as exc:
        if not type(exc).__module__.startswith(("sqlalchemy", "psycopg", "sqlite3")):
            raise
        from bot.logging_setup import redact

        first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0][:300]
        click.echo(
            f"error: the database could not be opened ({type(exc).__name__}: {redact(first)}); check DATABASE_URL",
            err=True,
        )
        sys.exit(2)


@contextmanager
def write_pid_file(path: str | Path | None) -> Iterator[Path | None]:
    """Write this process's id to ``path`` while the block runs, then remove it (only if it
    still holds our id); ``None`` or ``''``: nothing is written, a stale file is replaced. Raises
    ``click.ClickException`` when ``path`` names another vllm-path process still running (a second
    ``serve`` would take its file over, leaving ``catalog reload`` blind to the first)."""
    if not path:
        yield None
        return
    target = Path(path)
    other = read_pid(target)
    if other is not None and other != os.getpid() and our_process(other):
        raise click.ClickException(
            f"{target} names process {other}, a vllm-path process still running in this folder; "
            "stop it first, or give this one its own --pid-file"
        )
    target.write_text(f"{os.getpid()}\n", encoding="ascii")
    try:
        yield target
    finally:
        with suppress(OSError):
            if read_pid(target) == os.getpid():
                target.unlink()


def read_pid(path: Path) -> int | None:
    """The process id written in the pid file ``path``, or None (missing, unreadable, not a number)."""
    try:
        return int(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


def our_process(pid: int) -> bool:
    """Whether ``pid`` is alive and (where /proc tells) a vllm-path process, so that a stale pid
    file whose number was reused by another program is never signalled."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():
        try:
            argv = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            return False
        return "vllm-path" in argv or "bot.cli.main" in argv
    return True
