"""A real ``vllm-path serve`` process for the end-to-end tests, its output captured in memory."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tests.e2e.slack_requests import get
from tests.waits import PATIENCE_S


def spawn_serve(
    port: int,
    cwd: Path,
    env: Mapping[str, str],
    args: Sequence[str] = (),
    preexec_fn: Callable[[], object] | None = None,
) -> tuple[subprocess.Popen[bytes], str, dict[str, bytes], list[threading.Thread]]:
    """Start ``vllm-path serve --port port [args...]`` (``preexec_fn`` runs in the child before
    it starts): the process, its URL, and ``out`` (``stdout`` and ``stderr`` as bytes, filled by
    the reader threads returned, once the process ends)."""
    exe = str(Path(sys.executable).with_name("vllm-path"))
    proc = subprocess.Popen(
        [exe, "serve", "--port", str(port), *args],
        cwd=cwd,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=preexec_fn,
    )
    out: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda k=k, s=s: out.__setitem__(k, s.read()), daemon=True)
        for k, s in (("stdout", proc.stdout), ("stderr", proc.stderr))
    ]
    for reader in readers:
        reader.start()
    return proc, f"http://127.0.0.1:{port}", out, readers


def wait_healthy(
    proc: subprocess.Popen[bytes], url: str, timeout: float = PATIENCE_S, log: Callable[[], str] = lambda: ""
) -> None:
    """Wait until ``url``'s ``/healthz`` answers 200; AssertionError (with ``log()``, the process's
    output so far) when the process ends or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"serve exited {proc.returncode}:\n{log()[-3000:]}")
        try:
            if get(url + "/healthz", timeout=1).status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"serve did not start:\n{log()[-3000:]}")


def free_port() -> int:
    """A loopback TCP port free at the moment of asking, from below the kernel's ephemeral range
    (32768 and up on Linux) so no outgoing connection of any process (to PostgreSQL, Redis, a
    stand-in) can take it before a server binds it, and from a 2,000-port band of its own for each
    pytest-xdist worker so two workers do not pick the same one. Another process may still take it
    first: :func:`serve_healthy` tries again then."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]
    low = 20000 + (int(worker) % 6 if worker.isdigit() else 0) * 2000
    for _ in range(200):
        port = random.randrange(low, low + 2000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_healthy(
    cwd: Path,
    env: Mapping[str, str],
    args: Sequence[str] = (),
    preexec_fn: Callable[[], object] | None = None,
    tries: int = 5,
) -> tuple[subprocess.Popen[bytes], str, dict[str, bytes], list[threading.Thread]]:
    """:func:`spawn_serve` on a :func:`free_port` and :func:`wait_healthy`: the same four values.

    A port taken between choosing and binding (another test's server in a parallel run; ``serve``
    then exits 2 saying "is in use", CI stop 51) is tried again on another port, up to ``tries``
    times; any other early exit is an AssertionError carrying the process's ``stderr``."""
    for _ in range(tries):
        proc, url, out, readers = spawn_serve(free_port(), cwd, env, args, preexec_fn)
        try:
            wait_healthy(proc, url)
            return proc, url, out, readers
        except AssertionError:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for reader in readers:
                reader.join(timeout=PATIENCE_S)
            stderr = out.get("stderr", b"")
            if proc.returncode == 2 and b"is in use" in stderr:
                continue
            said = stderr.decode(errors="replace")[-3000:]
            raise AssertionError(f"serve exited {proc.returncode}:\n{said}") from None
    raise AssertionError(f"serve found no free port in {tries} tries")
