"""A real ``vllm-path serve`` process for the end-to-end tests, its output captured in memory."""

from __future__ import annotations

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
