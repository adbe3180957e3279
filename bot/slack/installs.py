"""OAuth installations in the app: after a (re)install (:func:`after_install`) resume what was paused
for auth and welcome once; in every request, Bolt's authorize with rotating tokens refreshed under
the store's cross-process lock (:class:`LockedRotationAuthorize`)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from slack_bolt import BoltContext
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth.callback_options import SuccessArgs
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.oauth import InstallationStore
from slack_sdk.oauth.installation_store.models.installation import Installation

from bot.runtime import Runtime
from bot.slack.i18n import t
from bot.store.installations import ROTATE_MINUTES_BEFORE_EXPIRY, Resumed, rotation_due, tenant_of

log = logging.getLogger(__name__)

DUE_MARGIN_MINUTES = 1
""":class:`LockedRotationAuthorize` takes the lock for a token expiring within this many minutes
more than Bolt's refresh threshold: a token Bolt would refresh is never missed by the check made
before (a request would need a minute between the two)."""


class LockedRotationAuthorize(InstallationStoreAuthorize):
    """Bolt's installation-store authorize (through its public constructor) whose token refresh runs
    under ``rotation_lock(tenant)`` (:meth:`bot.store.installations.InstallationsRepo.rotation_lock`,
    shared with the digest clock and workers) and goes to Slack through ``client`` (on
    ``SLACK_API_URL``). A request finding a rotating token due takes the lock, then Bolt re-reads
    the installation: the first holder refreshes and saves, the ones after it find the fresh token.
    Tokens are refreshed :data:`~bot.store.installations.ROTATE_MINUTES_BEFORE_EXPIRY` minutes
    before they expire, as outside a request. Requests whose token is not due take no lock."""

    def __init__(
        self,
        *,
        installation_store: InstallationStore,
        client_id: str,
        client_secret: str,
        client: WebClient,
        rotation_lock: Callable[[str], AbstractContextManager[None]],
        logger: logging.Logger,
    ) -> None:
        super().__init__(
            logger=logger,
            installation_store=installation_store,
            client_id=client_id,
            client_secret=client_secret,
            token_rotation_expiration_minutes=ROTATE_MINUTES_BEFORE_EXPIRY,
            client=client,
        )
        self.rotation_lock = rotation_lock

    def __call__(
        self, *, context: BoltContext, enterprise_id: str | None, team_id: str | None, **rest: Any
    ) -> AuthorizeResult | None:
        """Bolt's authorize, under the rotation lock of the tenant when its token is due."""
        tenant = self.due_tenant(enterprise_id, team_id, context.is_enterprise_install)
        with self.rotation_lock(tenant) if tenant is not None else contextlib.nullcontext():
            return super().__call__(context=context, enterprise_id=enterprise_id, team_id=team_id, **rest)

    def due_tenant(
        self, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None
    ) -> str | None:
        """The tenant (:func:`~bot.store.installations.tenant_of`) of the installation Bolt will
        find for these keys when one of its rotating tokens is due (within Bolt's threshold plus
        :data:`DUE_MARGIN_MINUTES`); else None."""
        store, org_wide = self.installation_store, is_enterprise_install
        found = store.find_installation(
            enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=org_wide
        ) or store.find_bot(enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=org_wide)
        if not rotation_due(found, self.token_rotation_expiration_minutes + DUE_MARGIN_MINUTES) or found is None:
            return None
        return tenant_of(found.enterprise_id, found.team_id, found.is_enterprise_install)


def resume_after_install(runtime: Runtime, installation: Installation, client: WebClient) -> Resumed:
    """Resume the tenant's digests paused for auth (:meth:`bot.store.Store.resume_after_install`)
    and post a note in each resumed channel and DM with ``client`` (refusals logged, skipped)."""
    tenant = tenant_of(installation.enterprise_id, installation.team_id, installation.is_enterprise_install)
    resumed: Resumed = runtime.store.resume_after_install(tenant)
    for channel in resumed.channels:
        _post(client, channel, str(t("install.resumed_channel")))
    for user in resumed.users:
        _post(client, None, str(t("install.resumed_dm", runtime.store.get_lang(tenant, user) or "en")), user)
    if len(resumed):
        channels, users = len(resumed.channels), len(resumed.users)
        log.info("reinstalled in %s: %d channel digests and %d DM digests resumed", tenant, channels, users)
    return resumed


def _post(client: WebClient, channel: str | None, text: str, user: str = "") -> bool:
    """Post ``text`` (no unfurls) in ``channel``, or the DM with ``user``; whether it was posted."""
    try:
        if channel is None:
            channel = (client.conversations_open(users=user).get("channel") or {}).get("id")
        if channel:
            client.chat_postMessage(channel=channel, text=text, unfurl_links=False)
            return True
    except SlackApiError as exc:
        log.info("install note not posted: %s", exc.response.get("error"))
    return False


def welcome(runtime: Runtime, installation: Installation, client: WebClient) -> bool:
    """DM the installer the commands to start, at the tenant's first install only
    (:meth:`bot.store.Store.claim_welcome`; a refused DM may be sent at the next); whether sent."""
    user = installation.user_id
    if not user:
        return False
    tenant = tenant_of(installation.enterprise_id, installation.team_id, installation.is_enterprise_install)
    if not runtime.store.claim_welcome(tenant, user):
        return False
    if _post(client, None, str(t("install.welcome")), user):
        return True
    runtime.store.release_welcome(tenant)
    return False


def after_install(runtime: Runtime, make_client: Callable[[str], WebClient]) -> Callable[[SuccessArgs], bool]:
    """The success callback's work: :func:`resume_after_install`, :func:`welcome` (``make_client(token)``);
    returns whether the welcome DM was sent (the success page mentions it only then)."""

    def run(args: SuccessArgs) -> bool:
        installation = args.installation
        if not installation.bot_token:
            return False
        client = make_client(installation.bot_token)
        resume_after_install(runtime, installation, client)
        return welcome(runtime, installation, client)

    return run
