"""Slack installations: slack_sdk's installation and OAuth state stores on our engine (tokens
encrypted at rest), the token lookup and rotation outside a request, and what an uninstall or a
reinstall does. State is keyed by a *tenant id* (:func:`tenant_of`): the team id of a workspace
install, or the enterprise id of an org-wide (Enterprise Grid) install.
"""

from __future__ import annotations

import logging
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from sqlalchemy import ColumnElement, Table, and_, delete, desc, or_, select, update

from bot.store.base import StoreCore, changed
from bot.store.db import shared_lock
from bot.store.models import ChannelSubscription, DmPreference, InstallationWelcome, slack_bots, slack_installations
from bot.store.slack_rows import TOKEN_FIELDS, org_wide_rows
from bot.store.snapshots import TeamRemoval
from bot.store.validate import check_id

if TYPE_CHECKING:
    from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

    from bot.store.slack_stores import EncryptedInstallationStore

log = logging.getLogger(__name__)

UNINSTALLED = "app uninstalled"
"""``pause_reason`` set by :meth:`InstallationsRepo.remove_installation`."""

AUTH_ERRORS = (
    "no_token",
    "invalid_auth",
    "account_inactive",
    "token_revoked",
    "not_authed",
    "token_expired",
    "missing_scope",
)
"""Slack error codes a reinstall fixes: digests paused with ``'Slack error <code>: …'``
(:mod:`bot.digest.deliver`) are resumed by :meth:`InstallationsRepo.resume_after_install`."""

ROTATE_MINUTES_BEFORE_EXPIRY = 10
"""A rotating bot token (it lives 12 hours) is refreshed when it expires within this many minutes."""


def tenant_of(enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None) -> str:
    """The tenant id from Bolt's context values: ``enterprise_id`` for an org-wide install (or when
    there is no team id), else ``team_id``. Raises ValueError when neither id is given."""
    if enterprise_id and (is_enterprise_install or not team_id):
        return enterprise_id
    if team_id:
        return team_id
    raise ValueError("neither an enterprise id nor a team id")


@dataclass(frozen=True)
class Resumed:
    """What :meth:`InstallationsRepo.resume_after_install` reactivated: channel and user ids, sorted."""

    channels: tuple[str, ...]
    users: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.channels) + len(self.users)


class InstallationsRepo(StoreCore):
    """Workspace and org-wide installs, uninstalls, reinstalls and the tokens they hold."""

    def remove_installation(
        self, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False
    ) -> TeamRemoval:
        """After ``app_uninstalled`` or ``tokens_revoked`` for the installation Bolt's context names
        (as :func:`tenant_of`): delete its installation and bot rows (all client ids) and pause the
        tenant's subscriptions and DM digests with reason :data:`UNINSTALLED`; progress, follows
        and the ledger are kept. Idempotent. Raises ValueError when neither id is given."""
        tenant = tenant_of(enterprise_id, team_id, is_enterprise_install)
        check_id(tenant, "team")
        org_wide = tenant != team_id
        now = self._now()
        with self._write() as s:
            counts = [
                changed(s, delete(table).where(_rows_of(table, enterprise_id, team_id, org_wide)))
                for table in (slack_installations, slack_bots)
            ]
            for model in (ChannelSubscription, DmPreference):
                pause = update(model).where(model.c.team_id == tenant, model.c.status == "active")
                counts.append(changed(s, pause.values(status="paused", pause_reason=UNINSTALLED, updated_at=now)))
        return TeamRemoval(*counts)

    def resume_after_install(self, tenant: str) -> Resumed:
        """After a (re)install of ``tenant``: reactivate the subscriptions and DM digests paused by
        :meth:`remove_installation` or for one of :data:`AUTH_ERRORS` (other pauses stay)."""
        now = self._now()
        channels: set[str] = set()
        users: set[str] = set()
        with self._write() as s:
            for model, column, found in (
                (ChannelSubscription, ChannelSubscription.c.channel_id, channels),
                (DmPreference, DmPreference.c.user_id, users),
            ):
                where = (model.c.team_id == tenant, model.c.status == "paused", _auth_pause(model))
                found.update(s.scalars(select(column).where(*where)))
                changed(s, update(model).where(*where).values(status="active", pause_reason=None, updated_at=now))
        return Resumed(tuple(sorted(channels)), tuple(sorted(users)))

    def installation_key(self, tenant: str) -> tuple[str | None, str | None, bool] | None:
        """``(enterprise_id, team_id, is_enterprise_install)`` of the newest installation with a
        bot token for ``tenant`` (a team id, or the enterprise id of an org-wide install); None if
        the app is not installed there."""
        c = slack_bots.c
        tenants = or_(c.team_id == tenant, and_(c.enterprise_id == tenant, org_wide_rows(slack_bots)))
        stmt = select(c.enterprise_id, c.team_id, c.is_enterprise_install).where(c.bot_token.is_not(None), tenants)
        if self._client_id:
            stmt = stmt.where(c.client_id == self._client_id)
        with self._read() as s:
            row = s.execute(stmt.order_by(desc(c.installed_at)).limit(1)).first()
        if row is None:
            return None
        return row[0], row[1], bool(row[2]) or row[1] is None

    def bot_token_for(self, tenant: str) -> str | None:
        """The decrypted bot token for ``tenant`` (see :func:`tenant_of`), found as Bolt's
        installation store finds it; with token rotation on, refreshed (and saved) first when it
        expires within :data:`ROTATE_MINUTES_BEFORE_EXPIRY` minutes. None when the app is not
        installed there. Raises ``SlackTokenRotationError`` when the refresh is refused."""
        key = self.installation_key(tenant)
        if key is None:
            return None
        store = self.installation_store()
        find = partial(store.find_installation, enterprise_id=key[0], team_id=key[1], is_enterprise_install=key[2])
        installation = find()
        if self._token_rotator is not None and rotation_due(installation, ROTATE_MINUTES_BEFORE_EXPIRY):
            # One refresh across every process: the loser of the lock re-reads what the winner saved.
            with self.rotation_lock(tenant):
                return self._bot_token_found(find(), key, tenant)
        return self._bot_token_found(installation, key, tenant)

    def rotation_lock(self, tenant: str) -> AbstractContextManager[None]:
        """The lock, shared by every process on this database, under which ``tenant``'s rotating
        tokens are refreshed (:func:`bot.store.db.shared_lock`): here and in the request path
        (:class:`bot.slack.installs.LockedRotationAuthorize`). Re-read the installation after
        taking it: a refresh token works once, and the previous holder may have used it."""
        return shared_lock(self._engine, f"token-rotation:{tenant}")

    def _bot_token_found(
        self, installation: Installation | None, key: tuple[str | None, str | None, bool], tenant: str
    ) -> str | None:
        """The bot token of ``installation`` (else of the bot row), refreshed when due."""
        store, rotator = self.installation_store(), self._token_rotator
        if installation is not None and installation.bot_token:
            if rotator is not None and installation.bot_refresh_token:
                rotated = rotator.perform_token_rotation(
                    installation=installation, minutes_before_expiration=ROTATE_MINUTES_BEFORE_EXPIRY
                )
                if rotated is not None:
                    store.save(rotated)
                    log.info("rotated the bot token of %s", tenant)
                    installation = rotated
            return installation.bot_token
        bot = store.find_bot(enterprise_id=key[0], team_id=key[1], is_enterprise_install=key[2])
        if bot is None:
            return None
        if rotator is not None and bot.bot_refresh_token:
            fresh = rotator.perform_bot_token_rotation(bot=bot, minutes_before_expiration=ROTATE_MINUTES_BEFORE_EXPIRY)
            if fresh is not None:
                store.save_bot(fresh)
                bot = fresh
        return bot.bot_token or None

    def seal_tokens(self) -> dict[str, int]:
        """Bring every stored token under the first key of ``TOKEN_ENCRYPTION_KEY`` (run at start):
        plain tokens are sealed, tokens under an older configured key re-encrypted. Returns what
        was done, counted from the rows actually written (a row changed meanwhile is left as the
        other writer left it): ``plain`` tokens sealed, ``older`` tokens re-encrypted, ``current``
        tokens already under the first key. Raises :class:`TokenKeyError` (with the counts, never a
        key), changing nothing, when a stored token opens with none of the configured keys."""
        counts = {"plain": 0, "older": 0, "current": 0, "unreadable": 0}
        done = {"plain": 0, "older": 0, "current": 0}
        with self._write() as s:
            pending = []
            for table in (slack_installations, slack_bots):
                names = [n for n in TOKEN_FIELDS if n in table.c]
                for row in s.execute(select(table.c.id, *[table.c[n] for n in names])).all():
                    states = {n: self._cipher.state(getattr(row, n)) for n in names if getattr(row, n)}
                    for state in states.values():
                        counts[state] += 1
                    if {"plain", "older"} & set(states.values()):
                        pending.append((table, row, {n: v for n, v in states.items() if v != "current"}))
            if counts["unreadable"]:
                raise TokenKeyError(
                    _unreadable_message(self._cipher, counts["unreadable"]),
                    unreadable=counts["unreadable"],
                    readable=counts["plain"] + counts["older"] + counts["current"],
                )
            done["current"] = counts["current"]
            for table, row, states in pending:
                values = {n: self._cipher.reseal(getattr(row, n)) for n in states}
                unchanged = [table.c[n] == getattr(row, n) for n in states]
                if changed(s, update(table).where(table.c.id == row.id, *unchanged).values(**values)):
                    for state in states.values():
                        done[state] += 1
        if done["plain"]:
            log.warning("sealed %d Slack token(s) stored in plain text by an older release", done["plain"])
        if done["older"]:
            log.info("re-encrypted %d Slack token(s) under the first key of TOKEN_ENCRYPTION_KEY", done["older"])
        return done

    def claim_welcome(self, tenant: str, user_id: str) -> bool:
        """Claim the welcome DM of ``tenant`` for its installer ``user_id``: True the first time only."""
        check_id(tenant, "tenant"), check_id(user_id, "user_id")
        return self._insert_new(InstallationWelcome, tenant_id=tenant, user_id=user_id, welcomed_at=self._now())

    def release_welcome(self, tenant: str) -> None:
        """Forget a welcome claim whose DM Slack refused (the next install tries again)."""
        self._change(delete(InstallationWelcome).where(InstallationWelcome.c.tenant_id == tenant))

    def installation_store(self, client_id: str | None = None) -> EncryptedInstallationStore:
        """The :class:`EncryptedInstallationStore` on this engine for Bolt, cached per
        ``client_id`` (default: the store's; ValueError if neither is set). Its module, and with it
        ``sqlalchemy.orm``, is imported on the first call (a deferral: ``serve_memory.py`` idle
        70.3 MB without it, target 70; :mod:`bot.store.slack_stores`)."""
        client_id = client_id or self._client_id
        if not client_id:
            raise ValueError("installation_store needs the Slack app's client_id")
        from bot.store.slack_stores import EncryptedInstallationStore  # deferred: the ORM, see its module

        store = self._installation_stores.get(client_id)
        if not isinstance(store, EncryptedInstallationStore):
            store = EncryptedInstallationStore(client_id=client_id, engine=self._engine, cipher=self._cipher)
            self._installation_stores[client_id] = store
        return store

    def oauth_state_store(self, expiration_seconds: int = 600) -> SQLAlchemyOAuthStateStore:
        """slack_sdk's OAuth state store on this engine; states expire after ``expiration_seconds``."""
        from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore  # imports the ORM

        return SQLAlchemyOAuthStateStore(expiration_seconds=expiration_seconds, engine=self._engine)


def rotation_due(tokens: Installation | Bot | None, minutes: float) -> bool:
    """Whether a rotating token of ``tokens`` (the bot's; an installation's user token too)
    expires within ``minutes``: slack-sdk's ``TokenRotator`` would refresh it."""
    if tokens is None:
        return False
    pairs = [(tokens.bot_refresh_token, tokens.bot_token_expires_at)]
    if isinstance(tokens, Installation):
        pairs.append((tokens.user_refresh_token, tokens.user_token_expires_at))
    return any(refresh and expires is not None and expires - time.time() <= minutes * 60 for refresh, expires in pairs)


class TokenKeyError(ValueError):
    """``TOKEN_ENCRYPTION_KEY`` cannot read the stored tokens (:meth:`InstallationsRepo.seal_tokens`):
    ``unreadable`` tokens open with none of its keys, ``readable`` ones do (nothing was changed)."""

    def __init__(self, message: str, *, unreadable: int = 0, readable: int = 0) -> None:
        super().__init__(message)
        self.unreadable = unreadable
        self.readable = readable


def _unreadable_message(cipher: object, unreadable: int) -> str:
    """Why ``unreadable`` stored tokens cannot be opened, by where ``cipher``'s keys came from:
    ``TOKEN_ENCRYPTION_KEY``, the local key file, or no key at all (the variable unset and no key
    file: none was written, :class:`bot.store.crypto.LocalKeyCipher`)."""
    from bot.store.crypto import LocalKeyCipher

    if isinstance(cipher, LocalKeyCipher) and cipher.key_unset:
        return (
            f"TOKEN_ENCRYPTION_KEY is not set and {unreadable} sealed Slack token(s) are stored: "
            "set TOKEN_ENCRYPTION_KEY to the key they were sealed with and start again"
        )
    if isinstance(cipher, LocalKeyCipher):
        return (
            f"{unreadable} stored Slack token(s) cannot be read with the key in {cipher.path} "
            "(TOKEN_ENCRYPTION_KEY is not set): set TOKEN_ENCRYPTION_KEY to the key they were "
            "sealed with and start again"
        )
    return (
        f"{unreadable} stored Slack token(s) cannot be read with any key in "
        "TOKEN_ENCRYPTION_KEY: put back the key they were sealed with (first the new "
        "key, then the old one, comma separated) and start again"
    )


def _rows_of(table: Table, enterprise_id: str | None, team_id: str | None, org_wide: bool) -> ColumnElement[bool]:
    c = table.c
    if org_wide:
        return and_(c.enterprise_id == enterprise_id, org_wide_rows(table))
    if enterprise_id:
        return and_(c.team_id == team_id, or_(c.enterprise_id == enterprise_id, c.enterprise_id.is_(None)))
    return c.team_id == team_id


def _auth_pause(model: Table) -> ColumnElement[bool]:
    reasons = [model.c.pause_reason == UNINSTALLED]
    reasons += [model.c.pause_reason.like(f"Slack error {code}:%") for code in AUTH_ERRORS]
    return or_(*reasons)
