"""The ``vllm-path`` script starts with the cyclic GC off (``bot.cli.run``, issue 28's cold start)
and the group turns it back on for every command that lives on; a brief one leaves it off."""

from __future__ import annotations

import gc
import subprocess
import sys

from click.testing import CliRunner

from bot.cli.main import BRIEF, main
from tests.waits import PATIENCE_S


def test_a_long_lived_command_gets_the_gc_back_and_a_brief_one_leaves_it_off() -> None:
    runner = CliRunner()
    try:
        gc.disable()  # as bot.cli.run leaves it
        assert runner.invoke(main, ["catalog", "check"]).exit_code == 0
        assert gc.isenabled()  # catalog (like serve, worker, scheduler, console) is not brief
        gc.disable()
        assert "search" in BRIEF and runner.invoke(main, ["search", "nixl"]).exit_code == 0
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_script_is_run_and_answers() -> None:
    probe = "import sys; from bot.cli import run; sys.argv = ['vllm-path', 'search', 'nixl']; run()"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=PATIENCE_S)
    assert done.returncode == 0 and done.stdout.startswith("1. "), done.stderr[-2000:]
