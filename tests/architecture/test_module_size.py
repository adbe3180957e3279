"""No module in ``bot/`` longer than :data:`MAX_LINES` unless its docstring says why it is one
concern that would read worse split (the words "one concern" and the reason)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"
MAX_LINES = 500


def long_modules_without_a_reason(root: Path, max_lines: int = MAX_LINES) -> list[str]:
    """``"path: N lines"`` for each module over ``max_lines`` whose docstring lacks "one concern"."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines <= max_lines:
            continue
        doc = ast.get_docstring(ast.parse(text, str(path))) or ""
        if "one concern" not in doc:
            found.append(f"{path.relative_to(root.parent)}: {lines} lines")
    return found


def test_the_check_names_a_long_module_without_a_reason(tmp_path: Path) -> None:
    pkg = tmp_path / "bot"
    pkg.mkdir()
    (pkg / "long.py").write_text('"""Many things."""\n' + "x = 1\n" * 20, encoding="utf-8")
    (pkg / "kept.py").write_text('"""One thing (one concern: it reads in order)."""\n' + "x = 1\n" * 20,
                                 encoding="utf-8")
    (pkg / "short.py").write_text("x = 1\n", encoding="utf-8")
    assert long_modules_without_a_reason(pkg, max_lines=10) == ["bot/long.py: 21 lines"]


def test_no_long_module_in_bot_without_a_reason() -> None:
    assert long_modules_without_a_reason(BOT) == []
