"""Where the tests find the shared evaluation files.

The project's shared folder (``../shared`` beside the repository, as laid out for CI) is read
when present, so updated eval sets are used as they land; otherwise the copies committed under
``tests/data`` keep the suite self-contained.
"""

from __future__ import annotations

import csv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DATA = Path(__file__).resolve().parent / "data"


def eval_file(name: str, folder: str = "eval") -> Path:
    """The path of a shared eval/reference file, preferring ``../shared/<folder>/<name>``."""
    shared = SHARED / folder / name
    return shared if shared.is_file() else DATA / name


def read_tsv(path: Path) -> list[list[str]]:
    """Rows of a TSV file, skipping blank lines and ``#`` comments."""
    rows = []
    with path.open(encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            if not row or not row[0].strip() or row[0].startswith("#"):
                continue
            rows.append(row)
    return rows


def relevance_default_sets() -> tuple[str, ...]:
    """``benchmarks/relevance.py``'s ``DEFAULT_SETS`` (the file names its ``--check`` runs)."""
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import relevance
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return tuple(relevance.DEFAULT_SETS)
