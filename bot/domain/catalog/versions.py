"""Catalog versions (CalVer ``YYYY.MM.N``) compared as numbers (``2026.12.10`` is newer than
``2026.12.9``), and the entries of ``catalog/CHANGELOG.md``."""

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
"""A changelog heading: ``## 2026.12.0 — 2026-12-01`` (the date optional)."""


def calver_key(version: str) -> tuple[int, int, int, int, str]:
    """``(1, year, month, micro, "")``; a non-CalVer text sorts first, as ``(0, 0, 0, 0, text)``."""
    m = CALVER_RE.match(version)
    return (1, int(m.group("year")), int(m.group("month")), int(m.group("micro")), "") if m else (0, 0, 0, 0, version)


def newest_version(versions: Iterable[str]) -> str | None:
    """The newest of ``versions`` by :func:`calver_key`; ``None`` for none."""
    return max(versions, key=calver_key, default=None)


@dataclass(frozen=True)
class ChangelogEntry:
    """One ``## <version> — <date>`` heading (``date`` may be ``None``) at 1-based ``line``."""

    version: str
    date: dt.date | None
    line: int


def changelog_entries(text: str) -> list[ChangelogEntry]:
    """The entries of a changelog in file order."""
    out: list[ChangelogEntry] = []
    for m in CHANGELOG_ENTRY.finditer(text):
        day: dt.date | None = None
        with contextlib.suppress(ValueError):  # not a real day (2026-13-01): date None
            day = dt.date.fromisoformat(m.group("date")) if m.group("date") else None
        out.append(ChangelogEntry(m.group("version"), day, text.count("\n", 0, m.start()) + 1))
    return out


def version_month(version: str) -> dt.date | None:
    """The first day of the month a CalVer version names (``2026.12.3`` → 2026-12-01)."""
    m = CALVER_RE.match(version)
    return dt.date(int(m.group("year")), int(m.group("month")), 1) if m else None


def version_problems(manifest_version: str, entries: list[ChangelogEntry]) -> list[tuple[str, str, str, str]]:
    """``(entry, field, message, severity)`` problems of the manifest's version against the
    changelog: errors for a version not greater than every other entry (``version``), entries not
    newest first or twice (``heading``), an entry dated before its version's month (``date``); a
    warning for a heading without a date. Entries are named ``version <v>``."""
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
