"""The local console (``vllm-path console``, one-shot ``vllm-path ask TEXT``): the Slack doors' Bolt
app fed Slack's real requests through ``app.dispatch``, its Slack in process
(:mod:`~bot.doors.console.slack`; ``--strict``: the tests' stand-in); replies print as text with
every button numbered (type the number to press it). Modules: ``slack`` (Slack's requests and its
records), ``recorder`` (Slack in process), ``answers`` (Slack's answers), ``render`` (Block Kit ->
text), ``shell`` (the console), ``repl`` (its typed lines)."""

from __future__ import annotations

from bot.doors.console.render import mrkdwn_to_text, render_blocks
from bot.doors.console.repl import calls_text, handle, main
from bot.doors.console.shell import Console, ListenerExecutor, ask, console_settings, open_console
