"""Issue 42: ``vllm-path tokens reseal`` through the CLI (click's runner, settings from the
environment) on a real database (SQLite and PostgreSQL) holding sealed tokens. It reports what it
did, and only that: tokens re-encrypted under the first key, tokens already there, and tokens no
given key could read; with any of the last it exits 1 and changes nothing (a key list with the
old key missing or wrong re-encrypts nothing, and says so)."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner, Result
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation
from sqlalchemy import create_engine, text

from bot.cli.main import main
from bot.config import sqlalchemy_url
from bot.store import Store
from bot.store.crypto import TokenCipher

CLIENT_ID = "4242.0002"


def _install(url: str, key: str) -> None:
    """Two sealed tokens under ``key``: the installation's bot token and its bot row's."""
    with Store.from_url(url, client_id=CLIENT_ID, token_cipher=TokenCipher.from_setting(key)) as store:
        store.installation_store().save(
            Installation(
                app_id="A0RS",
                team_id="T0RS42",
                bot_token="xoxb-reseal-42",
                bot_id="B0RS",
                bot_user_id="U0RSBOT",
                user_id="U0RS",
                installed_at=time.time(),
            )
        )


def _raw(url: str) -> list[str]:
    engine = create_engine(sqlalchemy_url(url))
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT bot_token FROM slack_installations UNION ALL SELECT bot_token FROM slack_bots")
            ).all()
    finally:
        engine.dispose()
    return sorted(r[0] for r in rows)


def _reseal(url: str, keys: str, monkeypatch: pytest.MonkeyPatch) -> Result:
    for name, value in {"DATABASE_URL": url, "TOKEN_ENCRYPTION_KEY": keys, "SLACK_CLIENT_ID": CLIENT_ID}.items():
        monkeypatch.setenv(name, value)
    return CliRunner().invoke(main, ["tokens", "reseal"])


def _opens_with(url: str, key: str) -> bool:
    cipher = TokenCipher.from_setting(key)
    try:
        return all(cipher.open(t) == "xoxb-reseal-42" for t in _raw(url))
    except ValueError:
        return False


def test_new_key_first_re_encrypts_both_tokens_and_says_so(
    any_migrated_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    _install(any_migrated_db_url, old)
    done = _reseal(any_migrated_db_url, f"{new},{old}", monkeypatch)
    assert done.exit_code == 0, done.output
    assert "re-encrypted 2," in done.output and "0 could not be read" in done.output
    assert _opens_with(any_migrated_db_url, new) and not _opens_with(any_migrated_db_url, old)
    again = _reseal(any_migrated_db_url, f"{new},{old}", monkeypatch)
    assert again.exit_code == 0 and "re-encrypted 0," in again.output and "2 already under" in again.output


@pytest.mark.parametrize("given", ["new,other", "other,new"])
def test_keys_that_cannot_read_the_tokens_re_encrypt_nothing_and_exit_1(
    any_migrated_db_url: str, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    """The tokens were sealed under ``old``; the list given names ``new`` and a key that is not
    ``old`` (in either order): nothing can be read, so nothing is re-encrypted."""
    old = Fernet.generate_key().decode()
    keys = {"new": Fernet.generate_key().decode(), "other": Fernet.generate_key().decode()}
    _install(any_migrated_db_url, old)
    before = _raw(any_migrated_db_url)
    done = _reseal(any_migrated_db_url, ",".join(keys[k] for k in given.split(",")), monkeypatch)
    assert done.exit_code == 1
    assert "re-encrypted 0," in done.output and "2 could not be read with any key" in done.output
    assert "re-encrypted 2" not in done.output
    assert _raw(any_migrated_db_url) == before and _opens_with(any_migrated_db_url, old)
    assert not any(k in done.output for k in (old, *keys.values()))


def test_old_key_first_re_encrypts_nothing_and_says_the_tokens_are_under_it(
    any_migrated_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Swapped (old first): the tokens are already under the first key; nothing to do, and the
    report says none was re-encrypted."""
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    _install(any_migrated_db_url, old)
    before = _raw(any_migrated_db_url)
    done = _reseal(any_migrated_db_url, f"{old},{new}", monkeypatch)
    assert done.exit_code == 0, done.output
    assert "re-encrypted 0," in done.output and "2 already under the first key" in done.output
    assert _raw(any_migrated_db_url) == before
