"""Catalog versions (CalVer ``YYYY.MM.N``) compared as numbers, and the changelog's entries.

``2026.12.10`` is newer than ``2026.12.9``: compare with :func:`calver_key` (or pick with
:func:`newest_version`), never as strings. The changelog (``catalog/CHANGELOG.md``) has one
``## <version> — <YYYY-MM-DD>`` heading per version, newest first (:func:`changelog_entries`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.domain.catalog.models import CALVER_RE

CHANGELOG_ENTRY = re.compile(
    r"^##\s+\[?(?P<version>\d{4}\.\d{2}\.\d+)\]?(?:[^\n\d]*(?P<date>\d{4}-\d{2}-\d{2}))?", re.MULTILINE
)
"""A changelog heading: ``## 2026.12.0 — 2026-12-01`` (the date is optional here; the checker
asks for it)."""


def calver_key(version: str) -> tuple[int, int, int, int, str]:
    """A sort key that orders CalVer versions as numbers: ``(1, year, month, micro, "")``.

    A string that is not CalVer sorts before every CalVer version, by its text
    (``(0, 0, 0, 0, text)``), so mixed lists (tests use ``v1``/``v2``) still sort. Pure.
    """
    m = CALVER_RE.match(version)
    return (1, int(m.group("year")), int(m.group("month")), int(m.group("micro")), "") if m else (0, 0, 0, 0, version)


def newest_version(versions: Iterable[str]) -> str | None:
    """The newest of ``versions`` by :func:`calver_key` (``2026.12.10`` over ``2026.12.9``);
    ``None`` for none. Use it to break ties between versions first seen at the same instant."""
    return max(versions, key=calver_key, default=None)


@dataclass(frozen=True)
class ChangelogEntry:
    """One ``## <version> — <date>`` heading: ``date`` is ``None`` when the heading has none;
    ``line`` is its 1-based line number in the file."""

    version: str
    date: dt.date | None
    line: int


def changelog_entries(text: str) -> list[ChangelogEntry]:
    """The entries of a changelog in file order (newest first by convention).

    A heading whose date is not a real day (``2026-13-01``) has ``date`` ``None``. Pure.
    """
    out: list[ChangelogEntry] = []
    for m in CHANGELOG_ENTRY.finditer(text):
        day: dt.date | None = None
        with contextlib.suppress(ValueError):  # not a real day (2026-13-01): no date
            day = dt.date.fromisoformat(m.group("date")) if m.group("date") else None
        out.append(ChangelogEntry(m.group("version"), day, text.count("\n", 0, m.start()) + 1))
    return out


def version_month(version: str) -> dt.date | None:
    """The first day of the month a CalVer version names (``2026.12.3`` → 2026-12-01)."""
    m = CALVER_RE.match(version)
    return dt.date(int(m.group("year")), int(m.group("month")), 1) if m else None


def version_problems(manifest_version: str, entries: list[ChangelogEntry]) -> list[tuple[str, str, str, str]]:
    """What is wrong with the manifest's version against the changelog.

    Returns ``(entry, field, message, severity)`` tuples (severity ``error`` or ``warning``):

    * error, field ``version``: the manifest version is not greater (as numbers) than the
      previous changelog entry, i.e. every other entry (setting it back to ``2026.11.0`` over
      ``2026.12.0``, or re-using ``2026.12.0``, is refused);
    * error, field ``date``: an entry dated before the month its version names (``2026.12.0``
      dated ``2026-11-30``);
    * error, field ``heading``: entries not newest first, or a version with two entries;
    * warning, field ``date``: an entry heading without a date.

    Entries are named ``version <v>``. Pure.
    """
    problems: list[tuple[str, str, str, str]] = []

    def add(version: str, field: str, message: str, severity: str = "error") -> None:
        problems.append((f"version {version}", field, message, severity))

    key = calver_key(manifest_version)
    own = next((i for i, e in enumerate(entries) if e.version == manifest_version), None)
    not_below = [e for i, e in enumerate(entries) if i != own and calver_key(e.version) >= key]
    if not_below:
        top = max(not_below, key=lambda e: calver_key(e.version))
        add(
            manifest_version,
            "version",
            f"manifest.yaml version {manifest_version} is not greater than {top.version}, the previous entry of "
            f"CHANGELOG.md (line {top.line}); a new catalog needs a greater version",
        )
    for before, after in itertools.pairwise(entries):
        if calver_key(after.version) >= calver_key(before.version):
            what = "twice" if after.version == before.version else f"after {before.version}"
            line = f"CHANGELOG.md line {after.line}"
            add(after.version, "heading", f"{line}: entries go newest first, but {after.version} comes {what}")
    for entry in entries:
        month = version_month(entry.version)
        line = f"CHANGELOG.md line {entry.line}"
        if entry.date is None:
            add(
                entry.version, "date", f"{line}: the heading has no date ('## {entry.version} — YYYY-MM-DD')", "warning"
            )
        elif month is not None and entry.date < month:
            when = f"dated {entry.date.isoformat()}, before the month its version names ({month.strftime('%Y-%m')})"
            add(entry.version, "date", f"{line}: {when}")
    return problems
