"""The shape of ``bot/``'s imports, computed from the source with :mod:`ast`.

Imports inside functions count like top-level ones: hiding an import in a function does not
break a circle, it only hides it.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from bot.domain.graphs import first_cycle

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"
DOMAIN = "bot.domain"
"""The pure middle: everything under ``bot/domain/`` knows nothing of Slack, SQL or the network."""
NOT_IN_DOMAIN = (
    "slack_sdk",
    "slack_bolt",
    "bot.slack",
    "sqlalchemy",
    "bot.store",
    "bot.digest",
    "bot.doors",
    "bot.cli",
    "bot.web",
    "bot.runtime",
    "bot.metrics",
    "socket",
    "http",
    "urllib.request",
    "requests",
    "httpx",
    "redis",
    "dramatiq",
    "psycopg",
    "waitress",
)
"""What a domain module may not import (``urllib.parse`` is fine: it is pure)."""
NOT_IN_DIGEST = ("bot.slack.views", "bot.slack.i18n", "tests.standin.blockkit", "slack_sdk.models")
"""``bot/digest/`` decides when and sends; rendering (Block Kit, reader-facing strings) lives in views."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def bot_modules() -> dict[str, Path]:
    """``{dotted name: file}`` for every module and package under ``bot/``."""
    return {_module_name(p): p for p in sorted(BOT.rglob("*.py")) if "migrations" not in p.parts}


def imports_of(path: Path, name: str, known: set[str]) -> dict[str, int]:
    """Every module ``path`` imports, anywhere in the file: ``{dotted name: first line}``.

    ``from a.b import c`` counts as ``a.b.c`` when that is a module of ours, else as ``a.b``.
    Relative imports are resolved against ``name``.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.append(full if full in known else base)
        for target in targets:
            found.setdefault(target, node.lineno)
    return found


def import_graph() -> dict[str, dict[str, int]]:
    """``{module: {imported bot module: line}}`` over ``bot/`` (edges to ourselves only)."""
    modules = bot_modules()
    known = set(modules)
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        edges = {}
        for target, line in imports_of(path, name, known).items():
            while target and target not in known and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in known and target != name:
                edges[target] = line
        graph[name] = edges
    return graph


def find_circle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One import circle as ``[a, b, …, a]``, or None when the graph has none (the catalog's own
    cycle search, :func:`bot.domain.graphs.first_cycle`, over the imports in sorted order)."""
    return first_cycle({node: sorted(edges) for node, edges in graph.items()}, graph)


def test_the_checker_finds_a_circle_and_names_it() -> None:
    graph = {"bot.a": {"bot.b": 1}, "bot.b": {"bot.c": 3}, "bot.c": {"bot.a": 7}, "bot.d": {}}
    assert find_circle(graph) == ["bot.a", "bot.b", "bot.c", "bot.a"]
    assert find_circle({"bot.a": {"bot.b": 1}, "bot.b": {}}) is None


def test_no_import_circle_in_bot() -> None:
    graph = import_graph()
    circle = find_circle(graph)
    if circle:
        hops = [f"{a} (line {graph[a][b]}) -> {b}" for a, b in itertools.pairwise(circle)]
        pytest.fail("import circle: " + "; ".join(hops))


def _forbidden_imports(prefix: str, forbidden: tuple[str, ...]) -> list[str]:
    """``"file:line imports X"`` for each import under ``prefix`` of a name in ``forbidden``."""
    modules = bot_modules()
    mine = {n: p for n, p in modules.items() if n == prefix or n.startswith(prefix + ".")}
    assert mine, f"{prefix} does not exist"
    bad = []
    for name, path in mine.items():
        for target, line in imports_of(path, name, set(modules)).items():
            if any(target == s or target.startswith(s + ".") for s in forbidden):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    return bad


def test_the_domain_imports_nothing_of_slack_sql_or_the_network() -> None:
    bad = _forbidden_imports(DOMAIN, NOT_IN_DOMAIN)
    assert not bad, "\n".join(bad)


def test_the_digest_renders_nothing() -> None:
    bad = _forbidden_imports("bot.digest", NOT_IN_DIGEST)
    assert not bad, "\n".join(bad)


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    """The rule can fail: a module that imports Slack is reported with its line."""
    source = "import os\nfrom slack_sdk import WebClient\n"
    path = tmp_path / "mod.py"
    path.write_text(source, encoding="utf-8")
    found = imports_of(path, "bot.domain.mod", set())
    assert any(t.startswith("slack_sdk") for t in found)


def test_the_service_imports_no_editor_tool_and_no_test_helper() -> None:
    """Only the CLI (and the console, for ``--strict``) may import the CLI's tools (the importer)
    or the tests' helpers (the Slack stand-in): the service never runs an editor's tool."""
    modules = bot_modules()
    bad = []
    for name, path in modules.items():
        if name.startswith(("bot.cli", "bot.doors.console")):
            continue
        for target, line in imports_of(path, name, set(modules)).items():
            if target == "tests" or target.startswith(("tests.", "bot.cli")):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not bad, "\n".join(bad)


VIEWS = ("bot.slack.views", "bot.web.paths", "bot.web.pages", "bot.doors.console.render")
"""Where results become Block Kit, HTML or console text (``bot.web.routes`` is the web's entry point)."""
PATH_TYPES = frozenset({"TrackState", "TrackPath", "PathStep"})
"""What a view may take from :mod:`bot.domain.paths`: the reader's state of a track and its parts."""


def _paths_imports(path: Path) -> list[tuple[int, str]]:
    """``(line, what)`` for each import of :mod:`bot.domain.paths` in ``path`` other than its types."""
    bad = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "bot.domain.paths":
            bad += [(node.lineno, a.name) for a in node.names if a.name not in PATH_TYPES]
        elif isinstance(node, ast.ImportFrom) and node.module == "bot.domain":
            bad += [(node.lineno, "paths") for a in node.names if a.name == "paths"]
        elif isinstance(node, ast.Import):
            bad += [(node.lineno, a.name) for a in node.names if a.name.startswith("bot.domain.paths")]
    return bad


def test_no_view_computes_a_path_it_renders_the_track_state() -> None:
    """Use cases build a reader's :class:`bot.domain.paths.TrackState` once; views only read it, so the
    digest, the track reply, App Home and the web page cannot drift apart (issue 39)."""
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {what} of bot.domain.paths"
        for name, path in bot_modules().items()
        if name.startswith(VIEWS)
        for line, what in _paths_imports(path)
    ]
    assert not bad, "\n".join(bad)


def test_the_view_rule_sees_a_view_computing_a_path(tmp_path: Path) -> None:
    view = tmp_path / "view.py"
    view.write_text("from bot.domain import paths\nfrom bot.domain.paths import TrackState, next_step\n")
    assert _paths_imports(view) == [(1, "paths"), (2, "next_step")]
