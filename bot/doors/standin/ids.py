"""Ids the stand-in reports and the console uses: one workspace, one user, one channel, one bot."""

from __future__ import annotations

CONSOLE_TEAM_ID = "T0CONSOLE"
"""Team id the stand-in reports (``auth.test``) and the console uses."""
CONSOLE_TEAM_DOMAIN = "console"
CONSOLE_USER_ID = "U0CONSOLE"
CONSOLE_USER_NAME = "you"
CONSOLE_CHANNEL_ID = "C0CONSOLE"
CONSOLE_CHANNEL_NAME = "console"
CONSOLE_CHANNEL = {
    "id": CONSOLE_CHANNEL_ID,
    "name": CONSOLE_CHANNEL_NAME,
    "is_channel": True,
    "is_private": False,
    "is_member": True,
    "is_archived": False,
}
"""The one channel of a stand-in given no ``channels`` (``conversations.info`` answers it as is)."""
CONSOLE_APP_ID = "A0CONSOLE"
BOT_USER_ID = "U0BOT"
BOT_ID = "B0BOT"

SLASH_COMMAND = "/vllm-path"
"""The slash command the app registers (also in ``manifest.yaml``)."""
