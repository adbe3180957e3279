"""After an OAuth (re)install (:func:`after_install`): resume what was paused for auth, welcome once."""

from __future__ import annotations

import logging
from collections.abc import Callable

from slack_bolt.oauth.callback_options import SuccessArgs
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.oauth.installation_store.models.installation import Installation

from bot.runtime import Runtime
from bot.slack.i18n import t
from bot.store.installations import Resumed, tenant_of

log = logging.getLogger(__name__)


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
