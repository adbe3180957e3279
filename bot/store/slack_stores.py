"""slack_sdk's SQLAlchemy installation store with tokens sealed at rest, apart from
:mod:`bot.store.installations` because slack_sdk's store imports ``sqlalchemy.orm`` (through
``sqlalchemy.ext.asyncio``), which neither a cold ``vllm-path ask`` nor a bot-token ``serve``
needs: :meth:`~bot.store.installations.InstallationsRepo.installation_store` imports it on first
use (OAuth installs). A deferral (issue 39's rule): with the store on Core but this module
imported with the store, ``benchmarks/serve_memory.py`` measured idle RSS 70.3 MB and 81.7 MB
after the commands (63.0 / 74.4 deferred; targets 70 / 80 MB) and ``benchmarks/cli_cold.py``
``ask`` 4.74x ``import slack_bolt``'s CPU (4.40x deferred; target 4x), 2026-12-06, load 2-5.
"""

from __future__ import annotations

import copy

from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from sqlalchemy import Engine, desc, select

from bot.store.crypto import TokenCipher
from bot.store.slack_rows import convert_tokens, org_wide_lookup, org_wide_rows


class EncryptedInstallationStore(SQLAlchemyInstallationStore):
    """slack_sdk's SQLAlchemy installation store that seals every token with a
    :class:`~bot.store.crypto.TokenCipher` when written (``fernet:…`` text) and opens it when read."""

    def __init__(self, client_id: str, engine: Engine, cipher: TokenCipher):
        super().__init__(client_id=client_id, engine=engine)
        self.cipher = cipher

    def save(self, installation: Installation) -> None:
        super().save(convert_tokens(copy.copy(installation), self.cipher.seal))

    def save_bot(self, bot: Bot) -> None:
        super().save_bot(convert_tokens(copy.copy(bot), self.cipher.seal))

    def find_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False
    ) -> Bot | None:
        """The newest bot with a token for Bolt's keys, its tokens opened. An org-wide lookup
        (:func:`org_wide_lookup`) also finds an org-wide install saved with a team id."""
        if org_wide_lookup(enterprise_id, team_id, is_enterprise_install):
            found = self._org_wide_bot(enterprise_id)
        else:
            found = super().find_bot(
                enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=is_enterprise_install
            )
        return None if found is None else convert_tokens(found, self.cipher.open)

    def find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        """The newest installation for Bolt's keys (and ``user_id`` when given), its tokens opened.
        An org-wide lookup (:func:`org_wide_lookup`) also finds an org-wide install saved with a
        team id: Bolt asks with ``team_id`` None or the id of whichever workspace of the org the
        request came from, and slack_sdk's store then looks only for rows without a team id."""
        if org_wide_lookup(enterprise_id, team_id, is_enterprise_install):
            found = self._org_wide_installation(enterprise_id, user_id)
        else:
            found = super().find_installation(
                enterprise_id=enterprise_id,
                team_id=team_id,
                user_id=user_id,
                is_enterprise_install=is_enterprise_install,
            )
        return None if found is None else convert_tokens(found, self.cipher.open)

    def _org_wide_installation(self, enterprise_id: str | None, user_id: str | None) -> Installation | None:
        """slack_sdk's ``find_installation`` for an org-wide lookup, rows with or without a team id
        (tokens still sealed): the newest row, its bot token from the newest bot when the row has
        none or belongs to ``user_id``."""
        c = self.installations.c
        where = [c.client_id == self.client_id, c.enterprise_id == enterprise_id, org_wide_rows(self.installations)]
        if user_id is not None:
            where.append(c.user_id == user_id)
        query = select(self.installations).where(*where).order_by(desc(c.installed_at)).limit(1)
        with self.engine.connect() as conn:
            row = conn.execute(query).mappings().first()
        if row is None:
            return None
        installation = self.build_installation_entity(row)
        if user_id is not None or installation.bot_token is None:
            bot = self._org_wide_bot(enterprise_id)  # as slack_sdk: the latest bot token, just in case
            if bot is not None and bot.bot_token != installation.bot_token:
                for name in ("bot_id", "bot_user_id", "bot_token", "bot_scopes", "bot_refresh_token"):
                    setattr(installation, name, getattr(bot, name))
                installation.bot_token_expires_at = bot.bot_token_expires_at
        return installation

    def _org_wide_bot(self, enterprise_id: str | None) -> Bot | None:
        """slack_sdk's ``find_bot`` for an org-wide lookup, rows with or without a team id (sealed)."""
        c = self.bots.c
        where = (c.client_id == self.client_id, c.enterprise_id == enterprise_id, org_wide_rows(self.bots))
        query = select(self.bots).where(*where, c.bot_token.is_not(None)).order_by(desc(c.installed_at)).limit(1)
        with self.engine.connect() as conn:
            row = conn.execute(query).mappings().first()
        return None if row is None else self.build_bot_entity(row)
