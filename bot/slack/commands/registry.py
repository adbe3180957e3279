"""The table of use cases: command kind -> function, button kind -> function.

The modules of :mod:`bot.slack.commands` add themselves with :func:`command` / :func:`button`
when the package is imported.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.slack import grammar
from bot.slack.commands.session import ButtonValue, Session
from bot.slack.views.blocks import Reply

CommandFn = Callable[[Session, grammar.Command], Reply]
ButtonFn = Callable[[Session, ButtonValue], "Reply | None"]

COMMANDS: dict[str, CommandFn] = {}
"""Command kind -> use case."""
BUTTONS: dict[str, ButtonFn] = {}
"""Button kind (action id prefix) -> use case."""


def command(*kinds: str) -> Callable[[CommandFn], CommandFn]:
    """Register the decorated function as the use case of the command ``kinds``."""

    def register(fn: CommandFn) -> CommandFn:
        for kind in kinds:
            COMMANDS[kind] = fn
        return fn

    return register


def button(*kinds: str) -> Callable[[ButtonFn], ButtonFn]:
    """Register the decorated function as the use case of the button ``kinds``."""

    def register(fn: ButtonFn) -> ButtonFn:
        for kind in kinds:
            BUTTONS[kind] = fn
        return fn

    return register


def run_command(session: Session, cmd: grammar.Command) -> Reply:
    """The reply to ``cmd``; an unknown kind gets the help (the grammar makes none)."""
    return COMMANDS.get(cmd.kind, COMMANDS["help"])(session, cmd)


def run_button(session: Session, kind: str, value: ButtonValue) -> Reply | None:
    """The reply to a click on a ``kind`` button (``None``: App Home, republished by the
    caller); an unknown kind redraws the message it came from."""
    fn = BUTTONS.get(kind)
    if fn is None:
        return session.redraw(value.v, None)
    return fn(session, value)
