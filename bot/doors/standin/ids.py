"""Ids the stand-in reports and the console uses: one workspace, one user, one channel, one bot."""

from __future__ import annotations

CONSOLE_TEAM_ID = "T0CONSOLE"
"""Team id the stand-in reports (``auth.test``) and the console uses."""
CONSOLE_TEAM_DOMAIN = "console"
CONSOLE_USER_ID = "U0CONSOLE"
CONSOLE_USER_NAME = "you"
CONSOLE_CHANNEL_ID = "C0CONSOLE"
CONSOLE_CHANNEL_NAME = "console"
CONSOLE_APP_ID = "A0CONSOLE"
BOT_USER_ID = "U0BOT"
BOT_ID = "B0BOT"

SLASH_COMMAND = "/vllm-path"
"""The slash command the app registers (also in ``manifest.yaml``)."""
