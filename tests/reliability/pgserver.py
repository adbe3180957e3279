"""A private PostgreSQL server for fault tests: ``initdb`` in a temporary folder, started with
``pg_ctl`` on a free loopback port, stopped, started and restarted at will, removed at the end.

It never touches the machine's shared server. The server binaries come from
``/usr/lib/postgresql/*/bin`` (newest version) or ``PATH``. ``initdb`` refuses to run as root, so
as root every server command runs as the ``postgres`` OS user (``runuser -u postgres --``, else
``su postgres -c``) on a temporary folder owned by that user; as another user they run as that
user. :func:`unavailable` says why a server cannot be made here (tests skip with that reason).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shlex
import shutil
import subprocess
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Self

from tests.serveproc import free_port


def _bindir() -> Path | None:
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0,
    )
    if candidates:
        return Path(candidates[-1]).parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _run_as() -> list[str] | None:
    """The command prefix that runs a server command as a non-root user ([] when not root),
    or None when no way is known."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return None
    if shutil.which("runuser"):
        return ["runuser", "-u", "postgres", "--"]
    if shutil.which("su"):
        return ["su-c"]  # marker: wrap the command for `su postgres -c`
    return None


@lru_cache(maxsize=1)
def unavailable() -> str | None:
    """None when a private server can be made here, else the reason why not."""
    bindir = _bindir()
    if bindir is None or not (bindir / "pg_ctl").exists():
        return "PostgreSQL server binaries (initdb, pg_ctl) are not installed"
    if _run_as() is None:
        return "running as root without a 'postgres' OS user (initdb refuses root)"
    return None


class PrivatePostgres:
    """One throw-away PostgreSQL cluster. Use as a context manager (starts, then removes)."""

    def __init__(self) -> None:
        reason = unavailable()
        if reason:
            raise RuntimeError(reason)
        self.bindir = _bindir()
        self.prefix = _run_as() or []
        self.root = Path(tempfile.mkdtemp(prefix="vp-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        os.chmod(self.root, 0o700)

    # -- commands --

    def _cmd(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        argv = [str(self.bindir / args[0]), *args[1:]]
        argv = ["su", "postgres", "-c", shlex.join(argv)] if self.prefix == ["su-c"] else [*self.prefix, *argv]
        # The server's own output goes to its log file (-l); pg_ctl's to a file too, so that a
        # postmaster started here never holds a pipe of ours open.
        with tempfile.TemporaryFile("w+") as out:
            code = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                cwd=self.root,
                check=False,
            ).returncode
            out.seek(0)
            result = subprocess.CompletedProcess(argv, code, out.read(), "")
        if result.returncode != 0:
            raise RuntimeError(
                f"{args[0]} failed ({result.returncode}): {result.stdout.strip()}\n{self.server_log()[-2000:]}"
            )
        return result

    def server_log(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def init(self) -> None:
        self._cmd(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )

    def start(self) -> None:
        """Start (waits until it accepts connections)."""
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off"
        )
        self._cmd("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop (``fast``: roll back open transactions and close every connection)."""
        self._cmd("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def restart(self, mode: str = "fast") -> None:
        """Stop and start again on the same port with the same options."""
        self._cmd("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-m", mode, "-w", "-t", "60", "restart")

    def running(self) -> bool:
        argv = [
            *([] if self.prefix == ["su-c"] else self.prefix),
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "status",
        ]
        if self.prefix == ["su-c"]:
            argv = ["su", "postgres", "-c", shlex.join(argv)]
        return subprocess.run(argv, capture_output=True, timeout=30, check=False).returncode == 0

    # -- databases --

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def create_database(self, name: str) -> str:
        """Create database ``name``; returns its URL."""
        import psycopg

        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True, connect_timeout=10
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    # -- lifecycle --

    def __enter__(self) -> Self:
        try:
            self.init()
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the server (immediately) and remove its folder. Idempotent."""
        if self.data.exists() and self.running():
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def wait_until_accepting(pg: PrivatePostgres, timeout: float = 30) -> None:
    """Wait until the server accepts a connection."""
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(f"host=127.0.0.1 port={pg.port} user=postgres dbname=postgres", connect_timeout=2):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
