"""The one entry point, ``vllm-path``: catalog tooling, search, the Slack doors and the scheduler.

Exit codes: 0 success, 1 a check failed or the input was refused, 2 a usage or configuration error.
The group is a :class:`LazyGroup`: a command's module (:data:`COMMANDS`) is imported only when it
runs (or ``--help`` lists them all), and defers its own heavy imports to the command needing them.
"""

from __future__ import annotations

import gc
import importlib
from typing import Any

import click

from bot.cli.common import write_pid_file

__all__ = ["COMMANDS", "LazyGroup", "main", "write_pid_file"]

COMMANDS: dict[str, tuple[str, str]] = {
    "catalog": ("bot.cli.catalog", "catalog"),
    "search": ("bot.cli.reading", "search_cmd"),
    "next": ("bot.cli.reading", "next_cmd"),
    "stats": ("bot.cli.reading", "stats_cmd"),
    "console": ("bot.cli.doors", "console_cmd"),
    "ask": ("bot.cli.doors", "ask_cmd"),
    "serve": ("bot.cli.doors", "serve_cmd"),
    "worker": ("bot.cli.doors", "worker_cmd"),
    "scheduler": ("bot.cli.digest", "scheduler_cmd"),
    "digest": ("bot.cli.digest", "digest"),
    "tokens": ("bot.cli.tokens", "tokens"),
    "path-image": ("bot.cli.plan", "path_image_cmd"),
    "plan-weeks": ("bot.cli.plan", "plan_weeks_cmd"),
}
"""Top-level command name -> ``(module, attribute)`` of its ``click.Command`` (or group)."""

SHORT_HELP: dict[str, str] = {
    "ask": "Send one `/vllm-path TEXT` through the app and print the reply.",
    "console": "Talk to the bot in your terminal (no Slack workspace needed).",
    "next": "The next step of each track you name (or of all).",
    "path-image": "Draw a track's path (essential steps, further reading) as a picture.",
    "plan-weeks": "Weeks each track's essential path takes at a weekly budget.",
    "scheduler": "Run the digest clock (the Procfile's clock: process).",
    "search": "Find posts (and the track a question names), English or Chinese.",
    "serve": "Serve Slack: Socket Mode or HTTP.",
    "stats": "Reading insights of one workspace.",
    "worker": "Send digests from the queue (needs REDIS_URL).",
}
"""The one line ``vllm-path --help`` shows of a command (QA round 12: the first sentences were cut mid-phrase)."""

BRIEF = frozenset({"ask", "search", "next", "stats", "plan-weeks", "path-image"})
"""Commands that answer once and exit: they run with the cyclic GC left off by :func:`bot.cli.run`."""


class LazyGroup(click.Group):
    """A ``click.Group`` whose commands are named in ``lazy`` (name -> ``(module, attribute)``)
    and imported on first use. Raises ``TypeError`` when the attribute is not a click command.
    A deferral ``benchmarks/cli_cold.py`` needs: with every command imported at start, ``vllm-path
    search nixl`` took 2.51-2.63x ``import slack_bolt`` (target <= 2.5x)."""

    def __init__(self, *args: Any, lazy: dict[str, tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, attribute = self.lazy[cmd_name]
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{module}.{attribute} is not a click command")
            if cmd_name in SHORT_HELP and command.short_help is None:
                command.short_help = SHORT_HELP[cmd_name]
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """vllm-path: reading paths through the vLLM blog, in Slack and in your terminal.

    Start with `vllm-path console` (no Slack workspace needed).
    """
    if click.get_current_context().invoked_subcommand not in BRIEF:
        gc.enable()  # serve, worker, scheduler, console, …: long-lived (bot.cli.run turned it off)


if __name__ == "__main__":  # pragma: no cover
    main()
