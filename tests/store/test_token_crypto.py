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
from tests.waits import PATIENCE_S


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


def test_a_local_run_without_a_key_generates_one_file_and_says_where(tmp_path: Path, caplog) -> None:
    with caplog.at_level(logging.WARNING):
        first = local_key_cipher(tmp_path)
        sealed = first.seal("xoxb-2")  # the new key is written when it first seals (QA round 8)
    path = tmp_path / LOCAL_KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and str(path) in caplog.text
    assert path.read_text().strip() not in caplog.text
    assert local_key_cipher(tmp_path).open(sealed) == "xoxb-2"


def test_reseal_moves_every_stored_token_to_the_new_key(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/t.db"
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    with Store.from_url(url, client_id="1.2", token_cipher=TokenCipher.from_setting(old)) as store:
        store.installation_store().save(
            Installation(
                app_id="A0",
                team_id="T0",
                bot_token="xoxb-rotate-me",
                bot_id="B0",
                bot_user_id="U0B",
                user_id="U0",
                user_token="xoxp-user",
                installed_at=time.time(),
            )
        )
    with Store.from_url(url, client_id="1.2", token_cipher=TokenCipher.from_setting(f"{new},{old}")) as store:
        assert store.seal_tokens() == {"plain": 0, "older": 3, "current": 0}  # 2 installation, 1 bot
        assert store.seal_tokens() == {"plain": 0, "older": 0, "current": 3}
    with Store.from_url(url, client_id="1.2", token_cipher=TokenCipher.from_setting(new)) as store:
        assert store.bot_token_for("T0") == "xoxb-rotate-me"
        found = store.installation_store().find_installation(enterprise_id=None, team_id="T0")
        assert found is not None and found.user_token == "xoxp-user"


def _raw_tokens(url: str) -> list[str]:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT bot_token FROM slack_installations UNION ALL SELECT bot_token FROM slack_bots")
            ).all()
    finally:
        engine.dispose()
    return [r[0] for r in rows]


def _write_plain_tokens(url: str) -> None:
    """As a release before encryption wrote them (e6626ce's tables): plain text in the columns."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE slack_installations SET bot_token = 'xoxb-plain-old'"))
            conn.execute(text("UPDATE slack_bots SET bot_token = 'xoxb-plain-old'"))
    finally:
        engine.dispose()


def _installed(url: str, key: str) -> None:
    with Store.from_url(url, client_id="1.2", token_cipher=TokenCipher.from_setting(key)) as store:
        store.installation_store().save(
            Installation(
                app_id="A0",
                team_id="T0",
                bot_token="xoxb-sealed",
                bot_id="B0",
                bot_user_id="U0B",
                user_id="U0",
                installed_at=time.time(),
            )
        )


def test_an_upgrade_seals_plain_tokens_at_start_with_a_warning(tmp_path: Path, caplog) -> None:
    from bot.config import Settings
    from bot.runtime import Runtime

    url = f"sqlite:///{tmp_path}/old.db"
    key = Fernet.generate_key().decode()
    _installed(url, key)
    _write_plain_tokens(url)
    assert _raw_tokens(url) == ["xoxb-plain-old", "xoxb-plain-old"]
    with caplog.at_level(logging.WARNING):
        rt = Runtime.create(
            Settings(
                _env_file=None,
                database_url=url,
                token_encryption_key=key,
                slack_client_id="1.2",
                slack_client_secret="s",
            )
        )
    try:
        assert all(t.startswith("fernet:") for t in _raw_tokens(url))
        assert rt.store.bot_token_for("T0") == "xoxb-plain-old"
        assert "sealed 2 Slack token(s)" in caplog.text and "xoxb-plain-old" not in caplog.text
    finally:
        rt.store.close()


def test_a_key_list_that_cannot_read_the_tokens_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    from bot.store.installations import TokenKeyError

    url = f"sqlite:///{tmp_path}/k.db"
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    _installed(url, old)
    before = _raw_tokens(url)
    with Store.from_url(url, client_id="1.2", token_cipher=TokenCipher.from_setting(new)) as store:
        with pytest.raises(TokenKeyError, match="cannot be read") as raised:
            store.seal_tokens()
        assert old not in str(raised.value) and new not in str(raised.value)
    assert _raw_tokens(url) == before
    # New key first, old after: moved under the new key; then the new key alone reads them.
    with Store.from_url(url, client_id="1.2", token_cipher=TokenCipher.from_setting(f"{new},{old}")) as store:
        assert store.seal_tokens() == {"plain": 0, "older": 2, "current": 0}
        assert store.seal_tokens() == {"plain": 0, "older": 0, "current": 2}  # nothing left to do
    with Store.from_url(url, client_id="1.2", token_cipher=TokenCipher.from_setting(new)) as store:
        assert store.bot_token_for("T0") == "xoxb-sealed"


def test_tokens_reseal_command_exists_and_reports(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path}/c.db"
    key = Fernet.generate_key().decode()
    _installed(url, key)
    _write_plain_tokens(url)
    env = {**os.environ, "DATABASE_URL": url, "TOKEN_ENCRYPTION_KEY": key, "SLACK_CLIENT_ID": "1.2"}
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli.main", "tokens", "reseal"],
        env=env,
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert "sealed 2 plain" in done.stdout
    assert all(t.startswith("fernet:") for t in _raw_tokens(url))
