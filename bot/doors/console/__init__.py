"""The local console (``vllm-path console``, one-shot ``vllm-path ask TEXT``): the same Bolt app
the Slack doors serve, fed Slack's real requests through ``app.dispatch`` with a
:class:`~bot.doors.standin.SlackStandIn` as its Slack; replies print as text with every button
numbered (type the number to press it). :mod:`~bot.doors.console.render` is Block Kit -> text,
:mod:`~bot.doors.console.shell` the console, :mod:`~bot.doors.console.repl` its typed lines."""

from __future__ import annotations

from bot.doors.console.render import mrkdwn_to_text, render_blocks
from bot.doors.console.repl import calls_text, handle, main
from bot.doors.console.shell import Console, ListenerExecutor, ask, console_settings, open_console
