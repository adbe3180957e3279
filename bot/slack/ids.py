"""Slack conversation ids: ``C`` (public channel), ``G`` (private or group DM) or ``D`` (DM), then 2-30 A-Z0-9."""

from __future__ import annotations

import re

CONVERSATION_ID = re.compile(r"^[CGD][A-Z0-9]{2,30}$")


def is_conversation_id(value: str) -> bool:
    """Whether ``value`` looks like a Slack conversation id (``C…``, ``G…``, ``D…``)."""
    return bool(CONVERSATION_ID.match(value))


def is_channel_id(value: str) -> bool:
    """A conversation that can have digests and be linked as ``<#id>``: ``C…`` or ``G…``, no DM."""
    return is_conversation_id(value) and not value.startswith("D")
