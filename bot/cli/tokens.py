"""``vllm-path tokens reseal``: every stored Slack token under the first key of
``TOKEN_ENCRYPTION_KEY``, as each process does at start, without starting one."""

from __future__ import annotations

import click

from bot.cli.common import fail
from bot.config import Settings


@click.group("tokens")
def tokens() -> None:
    """Slack tokens at rest (encrypted with TOKEN_ENCRYPTION_KEY)."""


@tokens.command("reseal")
def reseal_cmd() -> None:
    """Seal plain tokens and re-encrypt older ones under the first key of TOKEN_ENCRYPTION_KEY.

    To change the key: put the new key first and the old one after it (comma separated), run
    this (or restart), then drop the old key. Prints what was done (tokens sealed, re-encrypted,
    already under the first key, and that no key could read). Exits 1, changing nothing, when a
    stored token opens with none of the keys given."""
    from bot.runtime import token_cipher  # deferred: SQLAlchemy and the store for this command only
    from bot.store import Store
    from bot.store.installations import TokenKeyError

    settings = Settings()
    store = Store.from_url(
        settings.database_url, client_id=settings.slack_client_id, token_cipher=token_cipher(settings)
    )
    try:
        counts = store.seal_tokens()
    except TokenKeyError as exc:
        click.echo(
            f"sealed 0 plain, re-encrypted 0, {exc.readable} readable left as they were, "
            f"{exc.unreadable} could not be read with any key"
        )
        fail(f"error: {exc}", 1)
    finally:
        store.close()
    click.echo(
        f"sealed {counts['plain']} plain, re-encrypted {counts['older']}, "
        f"{counts['current']} already under the first key, 0 could not be read with any key"
    )
