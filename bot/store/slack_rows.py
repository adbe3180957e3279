"""What :mod:`bot.store.installations` and :mod:`bot.store.slack_stores` share about slack_sdk's
rows: the token fields, and which rows an org-wide (Enterprise Grid) install has."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from sqlalchemy import ColumnElement, Table, or_

TOKEN_FIELDS = ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token")
"""The token columns of slack_sdk's installation rows (a bot row has the first two)."""


def org_wide_lookup(enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None) -> bool:
    """Whether Bolt's keys ask for an org-wide (Enterprise Grid) install: an enterprise id with
    ``is_enterprise_install`` or without a team id."""
    return enterprise_id is not None and bool(is_enterprise_install or team_id is None)


def org_wide_rows(table: Table) -> ColumnElement[bool]:
    """Rows of an org-wide install: saved without a team id, or saved as org-wide with one."""
    return or_(table.c.team_id.is_(None), table.c.is_enterprise_install.is_(True))


_Tokens = TypeVar("_Tokens", Installation, Bot)


def convert_tokens(obj: _Tokens, convert: Callable[[str | None], str | None]) -> _Tokens:
    """``obj`` with each token field it has (bot, user, refresh) passed through ``convert``."""
    for name in TOKEN_FIELDS:
        if hasattr(obj, name):
            setattr(obj, name, convert(getattr(obj, name)))
    return obj
