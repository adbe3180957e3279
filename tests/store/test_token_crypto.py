"""Tokens at rest (issue 13): Fernet sealing, MultiFernet key rotation, the local key file of a
run without ``TOKEN_ENCRYPTION_KEY``, and re-sealing stored tokens under a new key."""

from __future__ import annotations

import logging
import stat
import time
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation

from bot.store import Store
from bot.store.crypto import LOCAL_KEY_FILE, TokenCipher, local_key_cipher


def test_sealed_tokens_open_only_with_a_configured_key() -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    sealed = TokenCipher.from_setting(old).seal("xoxb-1-secret")
    assert sealed is not None and sealed.startswith("fernet:") and "secret" not in sealed
    assert TokenCipher.from_setting(f"{new},{old}").open(sealed) == "xoxb-1-secret"
    with pytest.raises(ValueError, match="cannot be decrypted") as raised:
        TokenCipher.from_setting(new).open(sealed)
    assert new not in str(raised.value) and old not in str(raised.value)
    with pytest.raises(ValueError, match="not a Fernet key"):
        TokenCipher.from_setting("not-a-key")


def test_a_local_run_without_a_key_generates_one_file_and_says_where(tmp_path: Path,
                                                                      caplog) -> None:
    with caplog.at_level(logging.WARNING):
        first = local_key_cipher(tmp_path)
    path = tmp_path / LOCAL_KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and str(path) in caplog.text
    assert path.read_text().strip() not in caplog.text
    assert local_key_cipher(tmp_path).open(first.seal("xoxb-2")) == "xoxb-2"


def test_reseal_moves_every_stored_token_to_the_new_key(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/t.db"
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    with Store.from_url(url, client_id="1.2", token_cipher=TokenCipher.from_setting(old)) as store:
        store.installation_store().save(Installation(
            app_id="A0", team_id="T0", bot_token="xoxb-rotate-me", bot_id="B0",
            bot_user_id="U0B", user_id="U0", user_token="xoxp-user", installed_at=time.time()))
    with Store.from_url(url, client_id="1.2",
                        token_cipher=TokenCipher.from_setting(f"{new},{old}")) as store:
        assert store.reseal_tokens() == 2  # the installation row and the bot row
        assert store.reseal_tokens() == 2  # Fernet tokens carry a fresh IV and time each time
    with Store.from_url(url, client_id="1.2", token_cipher=TokenCipher.from_setting(new)) as store:
        assert store.bot_token_for("T0") == "xoxb-rotate-me"
        found = store.installation_store().find_installation(enterprise_id=None, team_id="T0")
        assert found is not None and found.user_token == "xoxp-user"
