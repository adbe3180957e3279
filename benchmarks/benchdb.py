"""Resources a benchmark run owns: its own PostgreSQL database, its own log folder, a Redis DB
named explicitly.

A benchmark must be safe beside other work on the same machine (other test runs, other
benchmarks), so every run:

* creates its own PostgreSQL database ``vp_bench_<random>`` on the server named by
  ``--database-url`` or ``BENCH_DATABASE_URL`` (the URL's own database is only connected to, to
  issue ``CREATE DATABASE``/``DROP DATABASE``), and drops that database, and no other, at the end;
* takes the Redis URL (with its DB number) from ``--redis-url`` or ``BENCH_REDIS_URL``, writes
  only keys under its own unique namespace and deletes only those;
* writes its logs under a new folder made by :func:`tempfile.mkdtemp`, whose path it prints.

There is no default for either URL: a missing setting stops the run with a message naming it
(:func:`required`). Imports nothing from ``tests`` or ``bot`` itself; puts the checkout on ``sys.path``
(the benchmarks drive the tests' Slack stand-in).
"""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout: bot/ and tests/standin

DATABASE_ENV = "BENCH_DATABASE_URL"
"""The environment variable naming the PostgreSQL server a run creates its database on."""

REDIS_ENV = "BENCH_REDIS_URL"
"""The environment variable naming the Redis server and DB number a run uses."""


def setting(cli_value: str | None, env: str) -> str | None:
    """``cli_value`` when given, else the environment variable ``env``, else None (empty counts
    as missing)."""
    return cli_value or os.environ.get(env) or None


def required(cli_value: str | None, flag: str, env: str, example: str) -> str:
    """The value of a setting that has no default: ``cli_value`` or ``$env``.

    Raises SystemExit (exit status 1) with a message naming ``flag`` and ``env`` (and showing
    ``example``) when neither is set.
    """
    value = setting(cli_value, env)
    if value is None:
        raise SystemExit(
            f"{Path(sys.argv[0]).name}: no {flag} given and {env} is not set; this "
            f"benchmark has no default, so that it never writes to a database or "
            f"Redis DB someone else uses. Example: {env}={example}"
        )
    return value


def _psycopg_url(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://").replace("postgres://", "postgresql://")


def with_database(server_url: str, name: str) -> str:
    """``server_url`` with its database part replaced by ``name`` (query string kept)."""
    base, _, query = _psycopg_url(server_url).partition("?")
    scheme, _, rest = base.partition("://")
    authority = rest.split("/", 1)[0]
    return f"{scheme}://{authority}/{name}" + (f"?{query}" if query else "")


@contextmanager
def own_postgres_database(server_url: str, prefix: str = "vp_bench") -> Iterator[str]:
    """Create ``<prefix>_<random>`` on the server of ``server_url`` and yield its URL; drop it
    on exit, even after an error, after ending the leftover sessions on it (a killed worker's).

    Only the database created here is ever dropped. Raises ``psycopg.Error`` when the server
    cannot be reached or refuses ``CREATE DATABASE``.
    """
    import psycopg

    if not prefix.startswith("vp_bench"):
        raise ValueError(f"a benchmark database's name starts with vp_bench, not {prefix!r}")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = _psycopg_url(server_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    print(f"database {name} created for this run (dropped at its end)", file=sys.stderr)
    try:
        yield with_database(server_url, name)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            # end the leftover sessions on this run's own database only (a killed worker's), then drop it
            ours = (
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"
            )
            conn.execute(ours, (name,))
            conn.execute(f'DROP DATABASE "{name}"')


def log_folder(prefix: str, parent: str | None = None) -> Path:
    """A new, empty folder for this run's logs (:func:`tempfile.mkdtemp`, under ``parent`` when
    given, created if missing, else the system's temporary folder); its path is printed to
    stderr. Left in place after the run, for reading."""
    if parent:
        Path(parent).mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    print(f"logs of this run: {path}", file=sys.stderr)
    return path
