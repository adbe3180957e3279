"""Issue 42: `vllm-path catalog import` refuses a feed file above ``CATALOG_IMPORT_MAX_BYTES``
(default 20 MiB) and abandons a URL that trickles its answer after ``CATALOG_FETCH_DEADLINE_S``:
each with a one-line reason, exit 1, no traceback and nothing written. The real entry point in a
subprocess; a real loopback HTTP server that sends a byte at a time."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.domain.catalog.test_import import copy, make_feed, snapshot  # noqa: F401 - copy: a fixture
from tests.evaldata import REPO

MIB = 1024 * 1024


def _import(source: str, catalog: Path, **settings: str) -> subprocess.CompletedProcess[str]:
    """``vllm-path catalog import SOURCE --write`` with ``settings`` in the environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CATALOG_")}
    env.update(settings)
    return subprocess.run(
        [sys.executable, "-m", "bot.cli.main", "catalog", "import", source, "--catalog", str(catalog), "--write"],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
    )


def _refused(result: subprocess.CompletedProcess[str], reason: str) -> None:
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0] and "nothing written" in lines[0], result.stderr


def test_a_feed_file_above_the_default_cap_is_refused(copy: Path, tmp_path: Path) -> None:  # noqa: F811
    big = tmp_path / "big.xml"
    with big.open("wb") as file:  # sparse: 20 MiB and one byte, mostly a hole
        file.write(make_feed(copy).encode("utf-8"))
        file.truncate(20 * MIB + 1)
    before = snapshot(copy)
    _refused(_import(str(big), copy), f"{big}: larger than {20 * MIB:,} bytes (CATALOG_IMPORT_MAX_BYTES)")
    assert snapshot(copy) == before


def test_the_cap_is_a_setting(copy: Path, tmp_path: Path) -> None:  # noqa: F811
    feed = tmp_path / "feed.xml"
    feed.write_text(make_feed(copy), encoding="utf-8")
    size = feed.stat().st_size
    before = snapshot(copy)
    _refused(_import(str(feed), copy, CATALOG_IMPORT_MAX_BYTES=str(size - 1)), f"larger than {size - 1:,} bytes")
    assert snapshot(copy) == before
    read = _import(str(feed), copy, CATALOG_IMPORT_MAX_BYTES=str(size))
    assert read.returncode == 0, read.stderr
    assert "wrote:" in read.stdout


class _Trickle(http.server.BaseHTTPRequestHandler):
    """200 and the start of a feed, then a space every 0.1 s until the client goes away."""

    stop: threading.Event

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/atom+xml")
        self.end_headers()
        self.wfile.write(b"<?xml version='1.0' encoding='utf-8'?>\n")
        try:
            while not self.stop.wait(0.1):
                self.wfile.write(b" ")
                self.wfile.flush()
        except OSError:
            return

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture()
def trickling() -> Iterator[str]:
    """A loopback HTTP server whose feed never ends: its URL."""
    stop = threading.Event()
    handler = type("Trickle", (_Trickle,), {"stop": stop})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/feed.xml?token=secret"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def test_a_url_that_trickles_is_abandoned_at_the_overall_deadline(copy: Path, trickling: str) -> None:  # noqa: F811
    before = snapshot(copy)
    started = time.monotonic()
    result = _import(trickling, copy, CATALOG_FETCH_DEADLINE_S="2")
    took = time.monotonic() - started
    # Every read gets a byte within 0.1 s: only an overall deadline ends it (else: the 300 s timeout).
    _refused(result, "/feed.xml: not received in full within 2 s")
    assert "secret" not in result.stderr and "Traceback" not in result.stderr
    assert snapshot(copy) == before
    print(f"abandoned after {took:.1f} s (load {os.getloadavg()[0]:.1f})")
