"""Memory of a ``vllm-path serve`` process, idle and after many commands from many people, against a
no-op Bolt app served the same way (issue 43: ``serve`` RSS <= 70 MB idle, <= 80 MB after 10,000
commands from 1,000 people).

    python benchmarks/serve_memory.py [--commands 10000] [--people 1000] [--clients 20] [--against DIR]

``ours``: ``vllm-path serve`` (the HTTP door) in its own process, on SQLite in a temporary folder
whose database was migrated by an earlier start (as a server restarts on a database at head); the
``noop`` baseline (:data:`NOOP`): a Bolt app answering "ok" in the ack, on waitress through Bolt's
WSGI adapter as our HTTP door is, importing nothing of ours. The Web API and the response URLs are the tests' stand-in
in this process. Each server gets ``--commands`` signed ``/vllm-path speculative`` from ``--people``
different people, ``--clients`` at a time; printed: the resident set size (RSS) and unique set size
(USS) of each process after its start (``idle``, 3 s after it answered ``/healthz`` or printed its
URL) and after the commands (``loaded``), in MB, and the load average. ``--against DIR`` (repeatable)
adds ``vllm-path serve`` run from another checkout's ``bot`` package (``git worktree add DIR
<commit>``, or ``git archive <commit> bot catalog | tar -x -C DIR``; first on ``PYTHONPATH``, same
venv), started and measured beside ``ours`` in the same run. Writes nothing but its own temporary
folders (and the catalog's kept index, as any start does).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout: tests/standin

import psutil

from tests.standin import SlackStandIn, signed_headers, slash_command_body

SECRET = "bench-signing-secret"
TOKEN = "xoxb-bench"
VLLM_PATH = Path(sys.executable).with_name("vllm-path")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _memory_mb(pid: int) -> dict[str, float]:
    info = psutil.Process(pid).memory_full_info()
    return {"rss": round(info.rss / 2**20, 1), "uss": round(info.uss / 2**20, 1)}


def _start_ours(api_url: str, tmp: str, checkout: Path | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """``vllm-path serve`` on a free port (started twice: the first start migrates the database),
    from ``checkout``'s ``bot`` package when given (its own database in ``tmp``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL", "REDIS_URL"))}
    name = "serve" if checkout is None else f"serve-{checkout.name}"
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout.resolve())
    env.update(
        DATABASE_URL=f"sqlite:///{tmp}/{name}.db",
        SLACK_BOT_TOKEN=TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=api_url,
        LOG_LEVEL="WARNING",
        HOME=tmp,
    )
    for attempt in range(2):
        port = _free_port()
        entry = [str(VLLM_PATH)] if checkout is None else [sys.executable, "-c", "from bot.cli import run; run()"]
        argv = [*entry, "serve", "--port", str(port), "--pid-file", ""]
        proc = subprocess.Popen(argv, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"vllm-path serve exited {proc.returncode}")
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        if attempt == 0:
            proc.terminate()
            proc.wait(30)
    return proc, url


NOOP = """
import sys
from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient
from waitress.server import create_server

app = App(signing_secret=sys.argv[1], client=WebClient(token="xoxb-bench", base_url=sys.argv[2]),
          token_verification_enabled=False, process_before_response=True)
app.command("/vllm-path")(lambda ack: ack(text="ok", response_type="ephemeral"))
server = create_server(SlackRequestHandler(app), host="127.0.0.1", port=0, threads=32)
print(f"http://127.0.0.1:{server.effective_port}", flush=True)
server.run()
"""
"""The no-op baseline: a Bolt app answering "ok" in the ack, on waitress through Bolt's WSGI
adapter, importing nothing of ours."""


def _start_noop(api_url: str) -> tuple[subprocess.Popen[str], str]:
    argv = [sys.executable, "-c", NOOP, SECRET, api_url]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def _send(url: str, standin: SlackStandIn, commands: int, people: int, clients: int) -> None:
    def one(i: int) -> None:
        body = slash_command_body(
            "speculative", user_id=f"U0MEM{i % people:05d}", response_url=standin.response_url(i % 1000)
        )
        req = urllib.request.Request(url, data=body, headers=signed_headers(body, SECRET), method="POST")
        with urllib.request.urlopen(req, timeout=60) as resp:
            resp.read()

    with ThreadPoolExecutor(max_workers=clients) as pool:
        for start in range(0, commands, 1000):
            list(pool.map(one, range(start, min(commands, start + 1000))))
            standin.reset()  # keep its record lists short


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=10_000)
    parser.add_argument("--people", type=int, default=1_000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--against", type=Path, action="append", default=[], help="another checkout (repeatable)")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    figures: dict[str, dict[str, dict[str, float]]] = {}
    servers: list[tuple[str, subprocess.Popen[Any], str]] = []
    with SlackStandIn() as standin, tempfile.TemporaryDirectory(prefix="vp-bench-memory-") as tmp:
        try:
            for checkout in [None, *args.against]:
                proc, url = _start_ours(standin.api_url, tmp, checkout)
                servers.append(("ours" if checkout is None else f"ours @{checkout.name}", proc, url))
            servers.append(("noop", *_start_noop(standin.api_url)))
            time.sleep(3)
            for name, proc, _url in servers:
                figures[name] = {"idle": _memory_mb(proc.pid)}
            for name, proc, url in servers:
                _send(url + "/slack/events", standin, args.commands, args.people, args.clients)
                time.sleep(1)
                figures[name]["loaded"] = _memory_mb(proc.pid)
        finally:
            for _name, proc, _url in servers:
                proc.terminate()
                proc.wait(30)
    after = os.getloadavg()
    print(
        f"serve memory (MB), {args.commands} commands from {args.people} people, {args.clients} at a time; "
        f"load average {load[0]:.1f} before, {after[0]:.1f} after"
    )
    for name, row in figures.items():
        print(
            f"  {name}: idle RSS {row['idle']['rss']} (USS {row['idle']['uss']}), "
            f"loaded RSS {row['loaded']['rss']} (USS {row['loaded']['uss']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
