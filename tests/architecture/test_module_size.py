"""No module in ``bot/`` longer than :data:`MAX_LINES` lines, and no exemption list: a module that
grows past it is split by concern."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"
MAX_LINES = 500


def long_modules(root: Path, max_lines: int = MAX_LINES) -> list[str]:
    """``"path: N lines"`` for each module under ``root`` longer than ``max_lines`` (migrations aside)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > max_lines:
            found.append(f"{path.relative_to(root.parent)}: {lines} lines")
    return found


def test_the_check_names_a_long_module(tmp_path: Path) -> None:
    pkg = tmp_path / "bot"
    pkg.mkdir()
    (pkg / "long.py").write_text('"""Many things (one concern)."""\n' + "x = 1\n" * 20, encoding="utf-8")
    (pkg / "short.py").write_text("x = 1\n", encoding="utf-8")
    assert long_modules(pkg, max_lines=10) == ["bot/long.py: 21 lines"]


def test_no_long_module_in_bot() -> None:
    assert long_modules(BOT) == []
