"""The benchmarks are safe to run beside other work (issue 28).

Static checks over every ``benchmarks/*.py`` (parsed with :mod:`ast`, so comments do not count and
f-strings are seen part by part): no ``DROP DATABASE`` of a literal name (a run drops only the
database it created, whose name is made at run time), no database URL on the ``test`` database,
no ``TEST_DATABASE_URL``, no default for a ``--database-url``/``--redis-url`` option or for an
environment variable holding a URL, and no fixed folder under ``/tmp``. Each check is also run on
a bad sample, so it is seen to fail. Then ``benchmarks/fanout_queue.py`` is started twice: with
``--help``, and without its settings, when it must stop before touching anything and name them.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waits import PATIENCE_S

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = sorted((REPO / "benchmarks").glob("*.py"))

_DROP_LITERAL = re.compile(r"DROP\s+DATABASE\s+(IF\s+EXISTS\s+)?\"?(?!IF\b)[A-Za-z_][A-Za-z0-9_]*", re.I)
_DROP_TAIL = re.compile(r"DROP\s+DATABASE\s+(IF\s+EXISTS\s+)?\"?$", re.I)
_TEST_DB_URL = re.compile(r"postgres(ql)?(\+\w+)?://[^\s\"']*/test\b")
_URL_OPTIONS = ("--database-url", "--redis-url", "--broker-url")


def _fixed_names(tree: ast.Module) -> set[str]:
    """Module-level names bound to a string literal (``BENCH_DB = "vp_bench_fanout"``)."""
    return {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _string_pieces(tree: ast.Module) -> list[tuple[str, bool]]:
    """Every literal text in ``tree``: (text, followed by a value made at run time), where a
    module-level name bound to a string literal does not count as made at run time."""
    fixed = _fixed_names(tree)
    pieces: list[tuple[str, bool]] = []
    in_fstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for i, part in enumerate(node.values):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    in_fstrings.add(id(part))
                    following = node.values[i + 1] if i + 1 < len(node.values) else None
                    made = isinstance(following, ast.FormattedValue) and not (
                        isinstance(following.value, ast.Name) and following.value.id in fixed
                    )
                    pieces.append((part.value, made))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in in_fstrings:
            pieces.append((node.value, False))
    return pieces


def problems(source: str) -> list[str]:
    """What makes ``source`` (a benchmark's text) unsafe beside other work; empty when none."""
    tree = ast.parse(source)
    found: list[str] = []
    for text, then_formatted in _string_pieces(tree):
        for match in _DROP_LITERAL.finditer(text):
            found.append(f"DROP DATABASE of a literal name: {match.group(0)!r}")
        if _DROP_TAIL.search(text) and not then_formatted:
            found.append(f"DROP DATABASE of a name not made at run time: {text!r}")
        if _TEST_DB_URL.search(text):
            found.append(f"a URL on the test database: {text!r}")
        if "TEST_DATABASE_URL" in text:
            found.append("reads TEST_DATABASE_URL (the test suite's server and database)")
        if text.startswith("/tmp/"):
            found.append(f"a fixed folder: {text!r}")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "add_argument" and any(isinstance(a, ast.Constant) and a.value in _URL_OPTIONS for a in node.args):
            for kw in node.keywords:
                if kw.arg == "default" and not (isinstance(kw.value, ast.Constant) and kw.value.value is None):
                    found.append(f"a default for {node.args[0].value!r}: {ast.unparse(kw.value)}")  # type: ignore[union-attr]
        if name in ("get", "getenv") and len(node.args) >= 2:
            default = node.args[1]
            if isinstance(default, ast.Constant) and isinstance(default.value, str) and "://" in default.value:
                found.append(f"an environment default URL: {default.value!r}")
        if (
            name == "setdefault"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and "://" in node.args[1].value
        ):
            found.append(f"an environment default URL: {node.args[1].value!r}")
    return found


def test_the_benchmarks_are_found() -> None:
    names = {p.name for p in BENCHMARKS}
    assert {"fanout_queue.py", "load.py", "fanout.py", "benchdb.py"} <= names


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_a_benchmark_drops_no_fixed_database_and_has_no_default_on_the_test_database(path: Path) -> None:
    assert problems(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "bad",
    [
        'conn.execute("DROP DATABASE IF EXISTS vp_bench_fanout WITH (FORCE)")',
        'BENCH_DB = "vp_bench_fanout"\nconn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")',
        'conn.execute("DROP DATABASE " + name)',
        'DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"',
        'url = os.environ.get("TEST_DATABASE_URL")',
        'parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")',
        'parser.add_argument("--database-url", default=DEFAULT)',
        'url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")',
        'parser.add_argument("--log-dir", default="/tmp/vp-bench-fanout-queue")',
    ],
)
def test_the_check_would_notice_an_unsafe_benchmark(bad: str) -> None:
    assert problems(bad) != []


def test_a_name_made_at_run_time_passes_the_check() -> None:
    good = (
        'name = f"vp_bench_{uuid.uuid4().hex[:12]}"\n'
        "conn.execute(f'DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)')\n"
        'parser.add_argument("--database-url", default=None)\n'
    )
    assert problems(good) == []


def _env_without_settings() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("BENCH_DATABASE_URL", "BENCH_REDIS_URL", "DATABASE_URL", "REDIS_URL")
    }


def test_fanout_queue_help_names_its_settings() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "fanout_queue.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        env=_env_without_settings(),
    )
    assert done.returncode == 0, done.stderr
    assert "BENCH_DATABASE_URL" in done.stdout and "BENCH_REDIS_URL" in done.stdout


def test_fanout_queue_without_its_settings_stops_and_names_them(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "fanout_queue.py"),
            "--messages",
            "10",
            "--log-dir",
            str(tmp_path / "logs"),
        ],
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        env=_env_without_settings(),
    )
    assert done.returncode != 0
    assert "--database-url" in done.stderr and "BENCH_DATABASE_URL" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "logs").exists()  # stopped before making anything
    with_db = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "fanout_queue.py"),
            "--database-url",
            "postgresql://nobody@127.0.0.1:1/none",
        ],
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        env=_env_without_settings(),
    )
    assert with_db.returncode != 0
    assert "--redis-url" in with_db.stderr and "BENCH_REDIS_URL" in with_db.stderr


def test_a_database_url_is_pointed_at_the_runs_own_database() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import benchdb
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    assert (
        benchdb.with_database("postgresql://u:p@h:5432/postgres?sslmode=disable", "vp_bench_1")
        == "postgresql://u:p@h:5432/vp_bench_1?sslmode=disable"
    )
    assert benchdb.with_database("postgresql+psycopg://u@h/postgres", "vp_bench_2") == "postgresql://u@h/vp_bench_2"
