"""The ids the stand-in reports: the console's (one workspace, one user, one channel, one bot)."""

from bot.doors.console.slack import (  # noqa: F401  (re-exported)
    BOT_ID,
    BOT_USER_ID,
    CONSOLE_APP_ID,
    CONSOLE_CHANNEL,
    CONSOLE_CHANNEL_ID,
    CONSOLE_CHANNEL_NAME,
    CONSOLE_TEAM_DOMAIN,
    CONSOLE_TEAM_ID,
    CONSOLE_USER_ID,
    CONSOLE_USER_NAME,
    SLASH_COMMAND,
)
