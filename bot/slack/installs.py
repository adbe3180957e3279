"""OAuth installations in the app: after a (re)install (:func:`after_install`) resume what was paused
for auth and welcome once; in every request, a workspace without an installation answered with our
words and the install link when ``PUBLIC_URL`` makes one (:class:`InstallationGate`), and Bolt's
authorize with rotating tokens refreshed under the store's cross-process lock
(:class:`LockedRotationAuthorize`)."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from slack_bolt import BoltContext, BoltRequest, BoltResponse
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.middleware import Middleware
from slack_bolt.oauth.callback_options import SuccessArgs
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.oauth import InstallationStore
from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation

from bot.domain.text import has_han
from bot.runtime import Runtime
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn
from bot.store.installations import ROTATE_MINUTES_BEFORE_EXPIRY, Resumed, rotation_due, tenant_of

log = logging.getLogger(__name__)

DUE_MARGIN_MINUTES = 1
""":class:`LockedRotationAuthorize` takes the lock for a token expiring within this many minutes
more than Bolt's refresh threshold: a token Bolt would refresh is never missed by the check made
before (a request would need a minute between the two)."""


FOUND = "vllm_path_installation_found"
"""Key in a request's context: ``(installation or bot or None,)`` as :class:`InstallationGate`
found it for the request's workspace, so that :class:`LockedRotationAuthorize` does not look again."""
NO_AUTH_EVENTS = frozenset({"app_uninstalled", "tokens_revoked", "team_access_revoked"})
"""Events Bolt passes without an installation (it authorizes them without a token)."""
WARNED_TEAMS_MAX = 10_000
"""Most workspaces :class:`InstallationGate` remembers having logged (then it starts afresh)."""


class InstallationGate(Middleware):
    """Bolt's ``before_authorize`` of an OAuth app: ``verification`` first (our signature check,
    when given); then a request from a workspace with no installation (never installed, or
    removed by ``app_uninstalled``/``tokens_revoked``) is answered here, not by Bolt's stock
    "your installation … is no longer available" with an ERROR per request: the person who typed
    or clicked gets ``install.missing`` (English or Chinese, :func:`missing_install_text`) through
    ``response_url`` or in the ack, with ``install_url`` when known; an event is acknowledged
    quietly. One WARNING per workspace (then DEBUG). Requests from installed workspaces go on,
    the lookup kept in the context (:data:`FOUND`)."""

    def __init__(
        self,
        runtime: Runtime,
        installation_store: InstallationStore,
        install_url: str | None,
        verification: Middleware | None = None,
    ) -> None:
        self.runtime, self.installation_store, self.install_url = runtime, installation_store, install_url
        self.verification = verification
        self._warned: set[str] = set()
        self._lock = threading.Lock()

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse | None:
        """The signature check (when given), then the installation check."""
        if self.verification is None:
            return self._gate(req, next)
        return self.verification.process(req=req, resp=resp, next=lambda: self._gate(req, next))

    def _gate(self, req: BoltRequest, next: Callable[[], BoltResponse]) -> BoltResponse:
        body, context = req.body or {}, req.context
        raw_event = body.get("event")
        event: dict[str, Any] = raw_event if isinstance(raw_event, dict) else {}
        if body.get("type") in ("url_verification", "ssl_check") or event.get("type") in NO_AUTH_EVENTS:
            return next()
        enterprise, team, org_wide = context.enterprise_id, context.team_id, context.is_enterprise_install
        if not (enterprise or team):
            return next()
        store = self.installation_store
        found = store.find_installation(
            enterprise_id=enterprise, team_id=team, is_enterprise_install=org_wide
        ) or store.find_bot(enterprise_id=enterprise, team_id=team, is_enterprise_install=org_wide)
        if found is not None:
            context[FOUND] = (found,)
            return next()
        tenant = tenant_of(enterprise, team, org_wide)
        if body.get("type") == "event_callback":
            self._log_once(tenant, body, "acknowledged without an answer (an event)")
            return BoltResponse(status=200, body="")
        text = missing_install_text(self.runtime, tenant, context.user_id, body, self.install_url)
        said = (
            "answered with the install link"
            if self.install_url
            else "answered without the install link (PUBLIC_URL is not set)"
        )
        if context.response_url:
            with contextlib.suppress(Exception):  # a response_url that fails: the ack is all there is
                respond = context.respond
                if respond is not None:
                    respond(text=text, response_type="ephemeral", replace_original=False)
                    self._log_once(tenant, body, said)
                    return BoltResponse(status=200, body="")
        if body.get("command"):  # a slash command without a response_url: the ack is its reply
            self._log_once(tenant, body, said)
            return BoltResponse(status=200, body=text)
        self._log_once(tenant, body, "not answered (no response_url to answer through)")
        return BoltResponse(status=200, body="")

    def _log_once(self, tenant: str, body: dict[str, Any], outcome: str) -> None:
        """One WARNING per tenant saying what its request got (``outcome``), then DEBUG lines."""
        with self._lock:
            first = tenant not in self._warned
            if first:
                if len(self._warned) >= WARNED_TEAMS_MAX:
                    self._warned.clear()
                self._warned.add(tenant)
        kind = body.get("command") or body.get("type") or "request"
        where = f"{tenant_kind(tenant)} {tenant}"
        if first:
            log.warning(
                "a request (%s) from %s, where the app is not installed (never, or removed): "
                "%s; further ones from it are logged at DEBUG",
                kind,
                where,
                outcome,
            )
        else:
            log.debug("a request (%s) from %s, where the app is not installed: %s", kind, where, outcome)


def tenant_kind(tenant: str) -> str:
    """``"enterprise"`` for an Enterprise Grid org's id (``E…``), else ``"workspace"`` (``T…``)."""
    return "enterprise" if tenant.startswith("E") else "workspace"


def missing_install_text(
    runtime: Runtime, tenant: str, user_id: str | None, body: dict[str, Any], install_url: str | None
) -> str:
    """``install.missing`` (with ``install_url``) or ``install.missing_no_url``: Chinese when the
    command was typed in Chinese or the person chose Chinese before (kept after an uninstall),
    else English."""
    lang = "zh" if has_han(str(body.get("text") or "")) else "en"
    if lang == "en" and user_id:
        with contextlib.suppress(Exception):  # the store may be what fails: English then
            lang = "zh" if runtime.store.get_lang(tenant, user_id) == "zh" else "en"
    if install_url:
        return str(t("install.missing", lang, url=Mrkdwn(install_url)))
    return str(t("install.missing_no_url", lang))


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
        known = context.get(FOUND)  # InstallationGate's lookup of this request
        found = (
            known[0] if isinstance(known, tuple) else self._find(enterprise_id, team_id, context.is_enterprise_install)
        )
        tenant = self._due(found)
        with self.rotation_lock(tenant) if tenant is not None else contextlib.nullcontext():
            return super().__call__(context=context, enterprise_id=enterprise_id, team_id=team_id, **rest)

    def due_tenant(
        self, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None
    ) -> str | None:
        """The tenant (:func:`~bot.store.installations.tenant_of`) of the installation Bolt will
        find for these keys when one of its rotating tokens is due (within Bolt's threshold plus
        :data:`DUE_MARGIN_MINUTES`); else None."""
        return self._due(self._find(enterprise_id, team_id, is_enterprise_install))

    def _find(self, enterprise_id: str | None, team_id: str | None, org_wide: bool | None) -> Installation | Bot | None:
        """The installation (else the bot) Bolt will find for these keys."""
        store = self.installation_store
        return store.find_installation(
            enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=org_wide
        ) or store.find_bot(enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=org_wide)

    def _due(self, found: Installation | Bot | None) -> str | None:
        """``found``'s tenant when one of its rotating tokens is due, else None."""
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
