"""What ``catalog check`` reports: one :class:`CatalogIssue` per problem, :class:`CatalogError` for a refusal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class CatalogIssue:
    """One problem: ``file`` in the catalog folder, ``entry`` (``track 'spec' step 'p-eagle'``),
    dotted ``field``; an ``error`` refuses the catalog."""

    file: str
    entry: str
    field: str
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return f"{self.file}: {self.entry}: {self.field}: {self.message}"


class CatalogError(Exception):
    """The catalog is invalid. ``issues`` holds every error (and the warnings found on the way)."""

    def __init__(self, issues: list[CatalogIssue]):
        self.issues = issues
        super().__init__(f"{len(self.errors)} catalog error(s):\n" + "\n".join(f"  {e}" for e in self.errors))

    @property
    def errors(self) -> list[CatalogIssue]:
        """Only the errors."""
        return [i for i in self.issues if i.severity == "error"]
