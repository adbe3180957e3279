"""Settings, read from the environment (and an optional ``.env`` file) by pydantic-settings.

Nothing else in the code base reads ``os.environ`` for configuration: build a :class:`Settings`
(``Settings()`` reads the environment) and pass it down. Secrets are ``SecretStr`` so that they
never print in a repr, a log line or a traceback.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CATALOG_DIR = REPO_ROOT / "catalog"


class Settings(BaseSettings):
    """Runtime settings.

    Environment variables (all optional): ``DATABASE_URL`` (SQLAlchemy URL; default an SQLite file
    ``vllm-path.db`` in the working directory), ``CATALOG_DIR``, ``SLACK_BOT_TOKEN``,
    ``SLACK_SIGNING_SECRET``, ``SLACK_APP_TOKEN`` (Socket Mode), ``SLACK_CLIENT_ID`` /
    ``SLACK_CLIENT_SECRET`` (OAuth for many workspaces), ``SLACK_API_URL`` (Web API base URL,
    e.g. a local stand-in), ``LOG_LEVEL``, ``DEFAULT_TIMEZONE`` (IANA name, default ``UTC``).
    """

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    database_url: str = Field(default="sqlite:///vllm-path.db")
    catalog_dir: Path = DEFAULT_CATALOG_DIR
    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_client_id: str | None = None
    slack_client_secret: SecretStr | None = None
    slack_scopes: str = "commands,chat:write,im:write,users:read,channels:read,groups:read,links:read,links:write"
    slack_api_url: str | None = None
    log_level: str = "INFO"
    default_timezone: str = "UTC"

    def secret_values(self) -> list[str]:
        """Every secret configured, as plain strings (for log redaction and leak tests)."""
        out: list[str] = []
        for value in (self.slack_bot_token, self.slack_signing_secret, self.slack_app_token,
                      self.slack_client_secret):
            if value is not None and value.get_secret_value():
                out.append(value.get_secret_value())
        return out

    @property
    def oauth_enabled(self) -> bool:
        """True when the OAuth install flow for many workspaces is configured."""
        return bool(self.slack_client_id and self.slack_client_secret)


def sqlalchemy_url(url: str) -> str:
    """Normalise a ``DATABASE_URL``: ``postgres://`` and ``postgresql://`` use the psycopg 3 driver."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return url
