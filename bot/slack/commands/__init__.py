"""Use cases, one module per command kind, found through a table.

Each module registers its function(s) with :func:`command` (slash-command kinds, as
:func:`bot.slack.grammar.parse` names them) or :func:`button` (button kinds, the action id's
prefix). A use case takes a :class:`~bot.slack.commands.session.Session` (who asks, in which
language, with the runtime) and the parsed input, calls the domain (catalog, paths, search,
store) and returns a :class:`~bot.slack.views.blocks.Reply` rendered by the views. Dispatch is a
dictionary look-up (:func:`run_command`, :func:`run_button`), not a chain of ``if``.
"""

from __future__ import annotations

from bot.slack.commands import buttons as _buttons  # noqa: F401

# The use cases register themselves on import: one module per command, named after what it does.
from bot.slack.commands import (  # noqa: F401
    dm,
    follow,
    help,
    lang,
    mark,
    plan,
    query,
    remind,
    stats,
    subscribe,
    subscriptions,
)
from bot.slack.commands.registry import BUTTONS, COMMANDS, run_button, run_command
from bot.slack.commands.session import ButtonValue, Session

__all__ = ["BUTTONS", "COMMANDS", "ButtonValue", "Session", "run_button", "run_command"]
