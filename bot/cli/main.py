"""The one entry point, ``vllm-path``: catalog tooling, search, the Slack doors and the scheduler.

Exit codes: 0 success, 1 a check failed or the input was refused, 2 a usage or configuration error.

This module is the top-level group only; each group of commands lives in its own module and is
registered here: ``catalog …`` in :mod:`bot.cli.catalog`, ``search``, ``next`` and ``stats`` in
:mod:`bot.cli.reading`, ``console``, ``ask``, ``serve`` and ``worker`` in :mod:`bot.cli.doors`,
``scheduler`` and ``digest …`` in :mod:`bot.cli.digest`. They share :mod:`bot.cli.common` and
never import this module.
"""

from __future__ import annotations

import click

from bot.cli import catalog as cli_catalog
from bot.cli import digest as digest_cli
from bot.cli import doors as cli_doors
from bot.cli import plan as cli_plan
from bot.cli import reading as cli_reading
from bot.cli import tokens as cli_tokens
from bot.cli.common import write_pid_file

__all__ = ["main", "write_pid_file"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """vllm-path: reading paths through the vLLM blog, in Slack and in your terminal.

    Start with `vllm-path console` (no Slack workspace needed).
    """


cli_catalog.register(main)
cli_reading.register(main)
cli_doors.register(main)
digest_cli.register(main)
cli_tokens.register(main)
cli_plan.register(main)


if __name__ == "__main__":  # pragma: no cover
    main()
