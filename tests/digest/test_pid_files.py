"""Pid files of real ``vllm-path`` processes sharing one folder: a second ``serve`` refuses to
start over a running one's pid file (instead of taking it over and deleting it on exit), so
``vllm-path catalog reload`` still reaches the first; a pid file is removed only by its owner."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.reliability.catalogs import copy_catalog
from tests.reliability.test_reload import Served, _exe
from tests.serveproc import free_port
from tests.standin import SlackStandIn
from tests.waits import PATIENCE_S


@pytest.mark.slow
def test_a_second_serve_in_the_same_folder_refuses_and_reload_still_finds_the_first(tmp_path, sqlite_url) -> None:
    catalog = copy_catalog(tmp_path / "catalog")
    with SlackStandIn(team_id="T0RELOAD") as standin:
        first = Served(tmp_path, sqlite_url, catalog, standin)
        try:
            pid_file = tmp_path / "vllm-path.pid"
            assert pid_file.read_text().strip() == str(first.proc.pid)
            second = subprocess.run(
                [_exe(), "serve", "--port", str(free_port())],
                cwd=tmp_path,
                env=first.env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert second.returncode != 0
            assert f"names process {first.proc.pid}" in second.stderr, second.stderr
            assert "--pid-file" in second.stderr
            # The first's pid file is untouched, and `catalog reload` reaches it.
            assert pid_file.read_text().strip() == str(first.proc.pid)
            reload = first.reload_cli()
            assert reload.returncode == 0 and f"process {first.proc.pid}" in reload.stdout, (
                reload.stdout + reload.stderr
            )
            first.wait_for_log("catalog", timeout=PATIENCE_S)
        finally:
            first.stop()
        assert first.proc.returncode == 0
        assert not pid_file.exists()  # removed by its owner on the way out


def test_a_stale_pid_file_is_replaced_and_only_the_owner_removes_it(tmp_path) -> None:
    from bot.cli.main import write_pid_file

    target = tmp_path / "vllm-path.pid"
    target.write_text("999999999\n")  # no such process
    with write_pid_file(target):
        assert target.read_text().strip() == str(os.getpid())
        target.write_text("1\n")  # another process took it over meanwhile
    assert target.read_text().strip() == "1"  # not ours: left alone
