"""The local console: talk to the real Bolt app without a Slack workspace.

``vllm-path console`` starts a :class:`~bot.doors.standin.SlackStandIn` (Slack's Web API and
response URLs on loopback), builds the runtime and the same Bolt app the Slack doors serve, and
feeds it requests in Slack's real formats through ``app.dispatch``. Replies the app sends (to the
response URL, or through ``chat.postMessage`` / ``views.publish``) are printed as text, with every
button numbered so that typing its number presses it.

``vllm-path ask TEXT`` is the one-shot form of the same thing. :mod:`bot.doors.console.render`
(Block Kit -> text) is pure and usable on its own; :mod:`bot.doors.console.shell` holds the console,
:mod:`bot.doors.console.repl` its typed lines.
"""

from __future__ import annotations

from bot.doors.console.render import mrkdwn_to_text, render_blocks
from bot.doors.console.repl import calls_text, handle, main
from bot.doors.console.shell import Console, ListenerExecutor, ask, console_settings, open_console
