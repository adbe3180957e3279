"""Catalog reload while the app runs: SIGHUP (and ``vllm-path catalog reload``) loads a valid new
version; an invalid one is refused with the checker's errors in the log and the last good
version keeps serving; progress on renamed posts follows their aliases.

In process (CatalogHolder / Runtime / Handlers) and end to end: the real ``vllm-path serve`` in a
subprocess, asked ``/vllm-path help`` (whose footer names the catalog version) with signed
requests, answering at a Slack stand-in's response URL. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog import load_catalog
from bot.slack.handlers import Caller, Handlers
from tests.e2e.helpers import ack_shown
from tests.e2e.slack_requests import signed_post
from tests.reliability.catalogs import (
    BROKEN_STEP,
    break_catalog,
    bump_version,
    copy_catalog,
    rename_post,
)
from tests.reliability.conftest import BOT_TOKEN, SIGNING_SECRET
from tests.serveproc import free_port, wait_healthy
from tests.standin import SlackStandIn, slash_command_body
from tests.waits import PATIENCE_S, wait_exit, wait_until

# The repo catalog's own version (the copy starts there), and a later one to move to.
OLD_VERSION, NEW_VERSION = load_catalog(DEFAULT_CATALOG_DIR).version, "2099.01.0"
ALICE = Caller("T0RELOAD", "U0ALICE", "C0RELOAD")


@pytest.fixture
def catalog_copy(tmp_path) -> Path:
    return copy_catalog(tmp_path / "catalog")


@pytest.fixture
def runtime(db_url, catalog_copy):
    from bot.config import Settings
    from bot.runtime import Runtime

    rt = Runtime.create(Settings(database_url=db_url, catalog_dir=catalog_copy, _env_file=None))
    yield rt
    rt.store.close()


def _first_spec_post(runtime) -> str:
    return runtime.holder.catalog.order("spec")[0]


# --- in process ------------------------------------------------------------------------------------


def test_a_valid_catalog_is_swapped_in_and_a_broken_one_refused(runtime, catalog_copy, caplog):
    assert runtime.holder.catalog.version == OLD_VERSION
    bump_version(catalog_copy, NEW_VERSION)
    assert runtime.reload_catalog() == (True, [])
    assert runtime.holder.catalog.version == NEW_VERSION
    assert runtime.store.latest_catalog_version() == NEW_VERSION  # digests can diff against it

    bump_version(catalog_copy, "2099.02.0")
    broken_file = break_catalog(catalog_copy)
    with caplog.at_level(logging.ERROR, logger="bot.runtime"):
        ok, errors = runtime.reload_catalog()
    assert not ok and any(BROKEN_STEP in e and broken_file in e for e in errors)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert BROKEN_STEP in logged and broken_file in logged and NEW_VERSION in logged
    assert runtime.holder.catalog.version == NEW_VERSION  # the last good version keeps serving
    help_text = json.dumps(Handlers(runtime).command(ALICE, "help").blocks)
    assert NEW_VERSION in help_text


def test_progress_on_a_renamed_post_follows_its_alias(runtime, catalog_copy):
    h = Handlers(runtime)
    old = _first_spec_post(runtime)
    new = old + "-renamed"
    h.command(ALICE, f"read {old}")
    h.command(ALICE, "follow spec")
    before = h.command(ALICE, "next").text

    bump_version(catalog_copy, NEW_VERSION)
    rename_post(catalog_copy, old, new, title="A Renamed Post For The Test")
    assert runtime.reload_catalog() == (True, [])
    cat = runtime.holder.catalog
    assert cat.order("spec")[0] == new and cat.resolve_post_id(old) == new

    # The stored progress (under the old id) counts for the renamed post.
    track = h.command(ALICE, "spec")
    assert "1 of" in json.dumps(track.blocks)
    assert h.command(ALICE, "next").text == before  # still points past the renamed post
    assert "Already read" in h.command(ALICE, f"read {new}").text
    assert "Already read" in h.command(ALICE, f"read {old}").text  # the old id still works
    # Marking it unread (by its new id or a button) forgets the progress stored under the old id.
    assert "Marked unread" in h.command(ALICE, f"unread {new}").text
    assert runtime.store.read_posts(ALICE.team_id, ALICE.user_id) == set()
    assert "0 of" in json.dumps(h.command(ALICE, "spec").blocks)
    h.command(ALICE, f"read {old}")
    h.action(ALICE, "mark_unread", {"p": new, "v": "track:spec"})
    assert runtime.store.read_posts(ALICE.team_id, ALICE.user_id) == set()


# --- end to end: the real `vllm-path serve`, SIGHUP and `vllm-path catalog reload` ------------------


def _exe() -> str:
    return str(Path(sys.executable).with_name("vllm-path"))


class Served:
    """A ``vllm-path serve`` subprocess plus the stand-in it calls."""

    def __init__(self, tmp_path: Path, db_url: str, catalog: Path, standin: SlackStandIn):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.standin = standin
        self.cwd = tmp_path
        self.log_path = tmp_path / "serve.log"
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SLACK_", "DATABASE_URL", "CATALOG_DIR", "LOG_LEVEL"))
        }
        self.env.update(
            DATABASE_URL=db_url,
            CATALOG_DIR=str(catalog),
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_API_URL=standin.api_url,
            LOG_LEVEL="INFO",
        )
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed by stop()
        self.proc = subprocess.Popen(
            [_exe(), "serve", "--port", str(self.port)],
            cwd=tmp_path,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        wait_healthy(self.proc, self.url, log=self.log)

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def ask(self, text: str, user: str = "U0ALICE") -> dict:
        url = self.standin.response_url()
        body = slash_command_body(text, team_id="T0RELOAD", user_id=user, channel_id="C0RELOAD", response_url=url)
        acked = signed_post(self.url + "/slack/events", body, SIGNING_SECRET)
        assert ack_shown(self.standin, acked, url).status == 200
        return self.standin.wait_for_response(url, timeout=PATIENCE_S).body

    def version_served(self) -> str:
        blocks = json.dumps(self.ask("help")["blocks"])
        for version in (OLD_VERSION, NEW_VERSION):
            if version in blocks:
                return version
        return blocks

    def wait_for_log(self, text: str, timeout: float = PATIENCE_S) -> str:
        def logged() -> str:
            log = self.log()
            return log if text in log else ""

        return wait_until(logged, timeout, f"{text!r} logged")

    def reload_cli(self) -> subprocess.CompletedProcess:
        return subprocess.run(
            [_exe(), "catalog", "reload"],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=PATIENCE_S,
            check=False,
        )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                wait_exit(self.proc)
        self._log.close()


@pytest.fixture
def served(tmp_path, db_url, catalog_copy):
    with SlackStandIn(team_id="T0RELOAD") as standin:
        s = Served(tmp_path, db_url, catalog_copy, standin)
        try:
            yield s
        finally:
            s.stop()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGHUP", "vllm-path catalog reload"])
def test_the_running_server_reloads_and_keeps_the_last_good_version(served, catalog_copy, how):
    from bot.domain.catalog import load_catalog

    old = load_catalog(catalog_copy).order("spec")[0]
    assert served.version_served() == OLD_VERSION
    served.ask(f"read {old}")
    assert (served.cwd / "vllm-path.pid").read_text().strip() == str(served.proc.pid)

    def reload() -> subprocess.CompletedProcess | None:
        if how == "SIGHUP":
            served.proc.send_signal(signal.SIGHUP)
            return None
        return served.reload_cli()

    # A valid new version, with the first speculative-decoding post renamed.
    bump_version(catalog_copy, NEW_VERSION)
    rename_post(catalog_copy, old, old + "-renamed")
    result = reload()
    if result is not None:
        assert result.returncode == 0, result.stderr
        assert str(served.proc.pid) in result.stdout
    served.wait_for_log(f"now serving {NEW_VERSION}")
    assert served.version_served() == NEW_VERSION
    spec = json.dumps(served.ask("spec")["blocks"])
    assert "1 of" in spec  # the progress stored under the old id follows the alias

    # A broken edit: refused, errors in the log (or on the CLI's stderr), old version served.
    broken_file = break_catalog(catalog_copy)
    if how == "SIGHUP":
        reload()
        log = served.wait_for_log("reload refused")
        assert BROKEN_STEP in log and broken_file in log
    else:
        result = reload()
        assert result.returncode == 1
        assert BROKEN_STEP in result.stderr and broken_file in result.stderr
        served.proc.send_signal(signal.SIGHUP)  # and the server itself refuses it too
        log = served.wait_for_log("reload refused")
        assert BROKEN_STEP in log
    assert served.version_served() == NEW_VERSION
    assert served.proc.poll() is None
    assert "1 of" in json.dumps(served.ask("spec")["blocks"])


def test_catalog_reload_without_a_running_server_says_so(tmp_path, catalog_copy):
    env = dict(os.environ, CATALOG_DIR=str(catalog_copy))

    def reload() -> subprocess.CompletedProcess[str]:
        run = [_exe(), "catalog", "reload"]
        return subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=PATIENCE_S)

    result = reload()
    assert result.returncode == 1
    assert "no running vllm-path process" in result.stderr
    (tmp_path / "vllm-path.pid").write_text("999999999\n")  # stale: never signalled
    result = reload()
    assert result.returncode == 1 and "not running" in result.stderr
