"""Slack installations: slack_sdk's SQLAlchemy installation and OAuth state stores on our
engine, and what an uninstall or a reinstall does to a workspace's state."""

from __future__ import annotations

from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from sqlalchemy import delete, update

from bot.store.base import StoreCore, changed
from bot.store.models import ChannelSubscription, DmPreference, slack_bots, slack_installations
from bot.store.snapshots import TeamRemoval
from bot.store.validate import check_id

UNINSTALLED = "app uninstalled"
"""``pause_reason`` set by :meth:`InstallationsRepo.remove_team`."""


class InstallationsRepo(StoreCore):
    """Workspace installs and uninstalls."""

    def remove_team(self, team: str) -> TeamRemoval:
        """The app was uninstalled from ``team`` (``app_uninstalled`` / ``tokens_revoked``):
        delete its Slack installation and bot rows (all client ids) and pause all its channel
        subscriptions and DM digests with reason ``'app uninstalled'``. Progress, follows and
        the ledger are kept (a reinstall picks up where it left off; see :meth:`resume_team`).
        Idempotent."""
        check_id(team, "team")
        now = self._now()
        with self._write() as s:
            installations = changed(s,
                delete(slack_installations).where(slack_installations.c.team_id == team))
            bots = changed(s, delete(slack_bots).where(slack_bots.c.team_id == team))
            subs = changed(s,
                update(ChannelSubscription)
                .where(ChannelSubscription.team_id == team, ChannelSubscription.status == "active")
                .values(status="paused", pause_reason=UNINSTALLED, updated_at=now)
                .execution_options(synchronize_session=False))
            dms = changed(s,
                update(DmPreference)
                .where(DmPreference.team_id == team, DmPreference.status == "active")
                .values(status="paused", pause_reason=UNINSTALLED, updated_at=now)
                .execution_options(synchronize_session=False))
        return TeamRemoval(installations, bots, subs, dms)

    def resume_team(self, team: str) -> int:
        """After a reinstall: reactivate the subscriptions and DM digests that
        :meth:`remove_team` paused (others paused for other reasons stay paused). Returns how
        many were resumed."""
        now = self._now()
        total = 0
        with self._write() as s:
            for model in (ChannelSubscription, DmPreference):
                total += changed(s,
                    update(model)
                    .where(model.team_id == team, model.status == "paused",
                           model.pause_reason == UNINSTALLED)
                    .values(status="active", pause_reason=None, updated_at=now)
                    .execution_options(synchronize_session=False))
        return total

    # --- slack_sdk stores ----------------------------------------------------------------------

    def installation_store(self, client_id: str | None = None) -> SQLAlchemyInstallationStore:
        """slack_sdk's SQLAlchemy installation store on this engine and the migrated tables
        (``slack_installations``, ``slack_bots``), for Bolt's OAuth settings / authorize.
        ``client_id`` defaults to the store's; ValueError if neither is set."""
        client_id = client_id or self._client_id
        if not client_id:
            raise ValueError("installation_store needs the Slack app's client_id")
        if client_id not in self._installation_stores:
            self._installation_stores[client_id] = SQLAlchemyInstallationStore(
                client_id=client_id, engine=self._engine)
        return self._installation_stores[client_id]

    def oauth_state_store(self, expiration_seconds: int = 600) -> SQLAlchemyOAuthStateStore:
        """slack_sdk's SQLAlchemy OAuth state store (``slack_oauth_states``) on this engine;
        states expire after ``expiration_seconds``."""
        return SQLAlchemyOAuthStateStore(expiration_seconds=expiration_seconds,
                                         engine=self._engine)
