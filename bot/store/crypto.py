"""Slack tokens encrypted at rest: cryptography's Fernet, with MultiFernet for key rotation.

``TOKEN_ENCRYPTION_KEY`` holds one or more Fernet keys, comma separated: the **first** encrypts,
every one decrypts (README "Token encryption" tells how to rotate). A sealed value is ``fernet:``
and the Fernet token; values without the prefix (written before encryption) pass through.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.fernet import Fernet, MultiFernet

log = logging.getLogger(__name__)

PREFIX = "fernet:"
"""Marks a sealed token in the installation tables."""

LOCAL_KEY_FILE = "vllm-path-token.key"
"""Where a local run without ``TOKEN_ENCRYPTION_KEY`` keeps its generated key (working dir)."""


class TokenCipher:
    """Encrypts and decrypts Slack tokens with ``keys`` (Fernet keys, the first encrypts). Raises
    ValueError for no key or a malformed one (the message never contains a key)."""

    def __init__(self, keys: Sequence[str | bytes]):
        if not keys:
            raise ValueError("TokenCipher needs at least one Fernet key")
        from cryptography.fernet import Fernet, MultiFernet  # deferred: only a store that keeps tokens needs it

        try:
            fernets = [Fernet(k) for k in keys]
            self._fernet: MultiFernet = MultiFernet(fernets)
            self._current: Fernet = fernets[0]
        except (ValueError, TypeError):
            raise ValueError(
                "TOKEN_ENCRYPTION_KEY holds a value that is not a Fernet key "
                "(url-safe base64 of 32 bytes; make one with "
                "`python -c 'from cryptography.fernet import Fernet; "
                "print(Fernet.generate_key().decode())'`)"
            ) from None

    @classmethod
    def from_setting(cls, value: str) -> TokenCipher:
        """From ``TOKEN_ENCRYPTION_KEY``'s text: keys separated by commas, the first current."""
        return cls([k.strip() for k in value.split(",") if k.strip()])

    def seal(self, value: str | None) -> str | None:
        """``value`` encrypted under the current key (None and sealed values unchanged)."""
        if value is None or value == "" or value.startswith(PREFIX):
            return value
        return PREFIX + self._fernet.encrypt(value.encode()).decode()

    def open(self, value: str | None) -> str | None:
        """The plain token of a sealed ``value`` (others pass through); ValueError if no key opens it."""
        if value is None or not value.startswith(PREFIX):
            return value
        from cryptography.fernet import InvalidToken

        try:
            return self._fernet.decrypt(value[len(PREFIX) :].encode()).decode()
        except InvalidToken:
            raise ValueError(
                "a stored Slack token cannot be decrypted with TOKEN_ENCRYPTION_KEY "
                "(was the key replaced without keeping the old one?)"
            ) from None

    def state(self, value: str | None) -> str:
        """How a stored ``value`` stands: ``"current"`` (sealed under the first key, or empty),
        ``"plain"`` (written before encryption existed), ``"older"`` (sealed under another
        configured key) or ``"unreadable"`` (no configured key opens it)."""
        if not value:
            return "current"
        if not value.startswith(PREFIX):
            return "plain"
        from cryptography.fernet import InvalidToken

        token = value[len(PREFIX) :].encode()
        for fernet, name in ((self._current, "current"), (self._fernet, "older")):
            try:
                fernet.decrypt(token)
                return name
            except InvalidToken:
                continue
        return "unreadable"

    def reseal(self, value: str | None) -> str | None:
        """``value`` re-encrypted under the current key (plain values are sealed)."""
        if value is None or not value.startswith(PREFIX):
            return self.seal(value)
        return PREFIX + self._fernet.rotate(value[len(PREFIX) :].encode()).decode()


@cache
def _process_key() -> bytes:
    from cryptography.fernet import Fernet

    return Fernet.generate_key()


def ephemeral_cipher() -> TokenCipher:
    """A cipher with a key generated once per process (tests, stores built without settings)."""
    return TokenCipher([_process_key()])


def local_key_cipher(directory: Path | None = None) -> TokenCipher:
    """For a local run without ``TOKEN_ENCRYPTION_KEY``: the key in ``LOCAL_KEY_FILE`` in
    ``directory`` (default: the working directory); without that file, a :class:`LocalKeyCipher`
    whose new key is written there (mode 0600) only when it first seals a token. Stored sealed
    tokens no key opens are then refused without a key file left behind (QA round 8: ``serve``
    wrote a new key, then refused the tokens sealed under the old one, "with any key in
    TOKEN_ENCRYPTION_KEY", with that variable unset)."""
    path = (directory or Path.cwd()) / LOCAL_KEY_FILE
    if path.exists():
        log.warning("TOKEN_ENCRYPTION_KEY is not set: using the token encryption key in %s", path)
    return LocalKeyCipher(path)


class LocalKeyCipher(TokenCipher):
    """A :class:`TokenCipher` on the key file ``path`` (:func:`local_key_cipher`): its key when the
    file exists, else a new key kept in memory until the first seal writes it to ``path``
    (``O_EXCL``, mode 0600; a file another process wrote meanwhile is read and used instead).
    :attr:`key_unset` is True while no key file exists."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self.key_unset = not self._load()
        if self.key_unset:
            from cryptography.fernet import Fernet

            self._new_key = Fernet.generate_key()
            super().__init__([self._new_key])

    def _load(self) -> bool:
        """Use the key in :attr:`path` if the file exists; whether it did."""
        try:
            key = self.path.read_bytes().strip()
        except FileNotFoundError:
            return False
        super().__init__([key])
        return True

    def _settle(self, write: bool) -> None:
        """While no key file is known: use one that has appeared; else, when ``write``, write ours."""
        if not self.key_unset:
            return
        with self._lock:
            if not self.key_unset or self._load():
                self.key_unset = False
                return
            if not write:
                return
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                self._load()
            else:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(self._new_key)
                log.warning(
                    "TOKEN_ENCRYPTION_KEY is not set: generated a token encryption key in %s "
                    "(keep it with the database; set TOKEN_ENCRYPTION_KEY in production)",
                    self.path,
                )
            self.key_unset = False

    def seal(self, value: str | None) -> str | None:
        """:meth:`TokenCipher.seal`, the key written to :attr:`path` first if it is new."""
        if value:
            self._settle(write=True)
        return super().seal(value)

    def reseal(self, value: str | None) -> str | None:
        """:meth:`TokenCipher.reseal`, the key written to :attr:`path` first if it is new."""
        if value:
            self._settle(write=True)
        return super().reseal(value)

    def open(self, value: str | None) -> str | None:
        """:meth:`TokenCipher.open` (with the key file another process may have written since)."""
        self._settle(write=False)
        return super().open(value)

    def state(self, value: str | None) -> str:
        """:meth:`TokenCipher.state` (with the key file another process may have written since)."""
        self._settle(write=False)
        return super().state(value)
