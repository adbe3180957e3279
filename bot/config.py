"""Settings, read from the environment (and an optional ``.env`` file) by pydantic-settings.

Nothing else reads ``os.environ`` for configuration; secrets are ``SecretStr`` (never printed).
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.locations import DEFAULT_CATALOG_DIR, REPO_ROOT

__all__ = ["DEFAULT_CATALOG_DIR", "REPO_ROOT", "Settings"]


class Settings(BaseSettings):
    """Runtime settings, each from the environment variable of its name in capitals (all optional).

    ``DATABASE_URL``: a SQLAlchemy URL (default ``sqlite:///vllm-path.db``); ``SLACK_APP_TOKEN``:
    Socket Mode; ``SLACK_CLIENT_ID`` / ``SLACK_CLIENT_SECRET``: OAuth; ``SLACK_API_URL``: the Web API
    base URL; ``REDIS_URL``: the broker and shared rate limits (unset: in-process sends), keys
    prefixed ``QUEUE_NAMESPACE``; ``SLACK_*_RATE_PER_S``: posts per second per workspace, per
    channel; ``CATALOG_FEED_URL``: one more feed of ``sources.yaml`` (read daily without
    ``CATALOG_SOURCES_EVERY_S``; ``CATALOG_WATCH_AT`` and ``CATALOG_ADMIN_CHANNEL`` are no longer read);
    ``TOKEN_ENCRYPTION_KEY``: Fernet keys, comma separated, the first encrypting tokens at rest."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    database_url: str = Field(default="sqlite:///vllm-path.db")
    catalog_dir: Path = DEFAULT_CATALOG_DIR
    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_client_id: str | None = None
    slack_client_secret: SecretStr | None = None
    slack_scopes: str = (
        "commands,chat:write,im:write,users:read,channels:read,groups:read,"
        "channels:history,groups:history,im:history,links:read,links:write,reactions:read"
    )
    slack_api_url: str | None = None
    slack_authorize_url: str = "https://slack.com/oauth/v2/authorize"
    """``SLACK_AUTHORIZE_URL``: where *Add to Slack* sends the admin (Slack's; tests point it at the stand-in)."""
    token_encryption_key: SecretStr | None = None
    log_level: str = "INFO"
    default_timezone: str = "UTC"
    # --- task queue (issue 16): unset REDIS_URL = in-process delivery, as before ---
    redis_url: str | None = None
    queue_namespace: str = "vllm-path"
    slack_team_rate_per_s: float = Field(default=10.0, gt=0)
    slack_channel_rate_per_s: float = Field(default=1.0, gt=0)
    # --- the catalog feed watch ---
    catalog_feed_url: str | None = None
    catalog_admin_team: str = ""
    catalog_curators: str = ""
    """``CATALOG_CURATORS``: Slack user ids (comma-separated) who get a review card per new draft and
    may accept or reject it (:mod:`bot.slack.listeners.drafts`)."""
    catalog_sources_every_s: float | None = Field(default=None, ge=1)
    """``CATALOG_SOURCES_EVERY_S``: seconds between two fetches of the feeds of ``<catalog>/sources.yaml``
    by the clock (each new post a draft beside the catalog, :mod:`bot.digest.sources`); unset, the
    clock fetches none. 3600 (an hour) puts a new post before a curator within the hour."""
    worker_slack_keep_alive: bool = True
    """``WORKER_SLACK_KEEP_ALIVE``: a digest worker's Slack calls on kept-alive connections, one a
    thread and host (:func:`bot.digest.clients.keep_connections_alive`, issue 43); ``0``: a
    connection a call, as slack-sdk alone does."""
    catalog_import_max_bytes: int = Field(default=20 * 1024 * 1024, gt=0)
    """``CATALOG_IMPORT_MAX_BYTES``: the largest feed read (a file or a URL's answer; ``catalog
    import`` and the watch), in bytes; a larger one is refused."""
    catalog_fetch_deadline_s: float = Field(default=60.0, gt=0)
    """``CATALOG_FETCH_DEADLINE_S``: seconds a feed URL has to answer in full, however it trickles."""
    # --- the path picture (issue 24) ---
    public_url: str | None = None
    """``PUBLIC_URL``: the HTTP door's public base URL; when set, App Home shows the path picture."""
    picture_url_secret: SecretStr | None = None
    """``PICTURE_URL_SECRET``: the picture URLs' HMAC key (unset: from ``SLACK_SIGNING_SECRET``)."""
    # --- what is acknowledged is answered (issue 42) ---
    held_replay_after_s: float = 30.0
    """``HELD_REPLAY_AFTER_S``: seconds after start before ``serve`` answers the requests earlier
    processes acknowledged and did not answer (:mod:`bot.slack.held`): by then a request another
    live process is still answering has been answered and released, so none is answered twice."""

    @property
    def curator_ids(self) -> frozenset[str]:
        """The Slack user ids of ``CATALOG_CURATORS``."""
        return frozenset(u.strip() for u in self.catalog_curators.split(",") if u.strip())

    def secret_values(self) -> list[str]:
        """Every secret configured (the ``SecretStr`` fields) as plain strings, in field order."""
        values = (getattr(self, name) for name in type(self).model_fields)
        return [v.get_secret_value() for v in values if isinstance(v, SecretStr) and v.get_secret_value()]

    @property
    def oauth_enabled(self) -> bool:
        """True when the OAuth install flow for many workspaces is configured."""
        return bool(self.slack_client_id and self.slack_client_secret)

    def half_oauth(self) -> str | None:
        """The OAuth variable missing when only one of the pair is set, else None."""
        if self.slack_client_id and self.slack_client_secret is None:
            return "SLACK_CLIENT_SECRET"
        if self.slack_client_secret is not None and not self.slack_client_id:
            return "SLACK_CLIENT_ID"
        return None

    def missing_slack_credentials(self) -> str | None:
        """What to set when the process could not call Slack, naming the settings; None when it can."""
        if self.slack_bot_token is not None or self.oauth_enabled:
            return None
        if half := self.half_oauth():
            other = "SLACK_CLIENT_ID" if half == "SLACK_CLIENT_SECRET" else "SLACK_CLIENT_SECRET"
            return f"{half} is not set ({other} is): OAuth needs both"
        return (
            "no Slack credentials: set SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID and "
            "SLACK_CLIENT_SECRET (OAuth)"
        )


def sqlalchemy_url(url: str) -> str:
    """Normalise a ``DATABASE_URL``: ``postgres://`` and ``postgresql://`` use the psycopg 3 driver."""
    return re.sub(r"^postgres(?:ql)?://", "postgresql+psycopg://", url)
