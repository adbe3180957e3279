"""The one entry point, ``vllm-path``: catalog tooling, search, the Slack doors and the scheduler.

Exit codes: 0 success, 1 a check failed or the input was refused, 2 a usage or configuration error.

This module is the top-level group only; each group of commands lives in its own module and is
registered here: ``catalog …`` in :mod:`bot.cli_catalog`, ``search``, ``next`` and ``stats`` in
:mod:`bot.cli_reading`, ``console``, ``ask``, ``serve`` and ``worker`` in :mod:`bot.cli_doors`,
``scheduler`` and ``digest …`` in :mod:`bot.digest.cli`. They share :mod:`bot.cli_common` and
never import this module.
"""

from __future__ import annotations

import click

from bot import cli_catalog, cli_doors, cli_reading
from bot.cli_common import write_pid_file
from bot.digest import cli as digest_cli

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


if __name__ == "__main__":  # pragma: no cover
    main()
