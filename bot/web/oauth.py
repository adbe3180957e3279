"""Bolt's OAuth install flow with our install, success and error pages (:mod:`bot.web.pages`). A
failure's internals are logged; the person sees plain words and the right status. Every page
forbids framing (:data:`CSP`); a Slack that does not answer the code exchange gets a page asking
to try again in a minute and one WARNING line (:class:`PageOAuthFlow`)."""

from __future__ import annotations

import contextlib
import http.client
import logging
from collections.abc import Callable, Sequence

from slack_bolt.oauth import OAuthFlow
from slack_bolt.oauth.callback_options import FailureArgs, SuccessArgs
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_bolt.request import BoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk import WebClient
from slack_sdk.oauth.installation_store import InstallationStore
from slack_sdk.oauth.installation_store.models.installation import Installation

from bot.web import pages

log = logging.getLogger(__name__)

CSP = "frame-ancestors 'none'"
"""``Content-Security-Policy`` of every install page: no site may frame them (clickjacking)."""

HTML = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": CSP}

INSTALLED_BEFORE = "vllm_path_installed_before"
"""Key in the callback request's context: whether the installation store already held an
installation of the workspace (or org) being installed (set by :meth:`PageOAuthFlow.store_installation`)."""

EXCHANGE_LOG = logging.getLogger("slack_sdk.web.base_client.oauth")
"""The logger of the OAuth flow's Web API client: slack-sdk's own lines, except each failed
attempt's ERROR (a DEBUG line here), which :meth:`PageOAuthFlow.handle_callback` sums up in one WARNING."""

UNREACHABLE_ERRORS: tuple[type[Exception], ...] = (OSError, http.client.HTTPException)
"""What urllib raises when Slack cannot be reached or does not answer in time (``URLError`` for
a refused connection, ``TimeoutError``, a dropped connection)."""


class SlackUnreachable(Exception):
    """Slack did not answer ``oauth.v2.access`` (or the ``auth.test`` after it); nothing was installed."""


class _QuietAttempts(logging.Filter):
    """slack-sdk's ERROR for each failed attempt, and its INFO naming the retry handler (logged
    when its logger's own level is unset), made DEBUG lines (dropped unless DEBUG is on)."""

    CHATTER = ("Failed to send a request to Slack", "A retry handler found")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.DEBUG and str(record.msg).startswith(self.CHATTER):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return EXCHANGE_LOG.isEnabledFor(logging.DEBUG)
        return True


EXCHANGE_LOG.addFilter(_QuietAttempts())


class PageOAuthFlow(OAuthFlow):
    """Bolt's OAuth flow with our install page (linking Bolt's authorize URL, with its state), the
    :data:`CSP` header on it, a page with status 503 when Slack cannot be reached, and a note in the
    request's context of whether the workspace was installed before (:data:`INSTALLED_BEFORE`).
    ``client``: its Web API client's settings, copied to one that logs to :data:`EXCHANGE_LOG`."""

    def __init__(
        self, *, client: WebClient | None = None, logger: logging.Logger | None = None, settings: OAuthSettings
    ) -> None:
        if client is not None:
            client = WebClient(
                token=client.token,
                base_url=client.base_url,
                timeout=client.timeout,
                ssl=client.ssl,
                proxy=client.proxy,
                headers=dict(client.headers),
                retry_handlers=list(client.retry_handlers),
                logger=EXCHANGE_LOG,
            )
        super().__init__(client=client, logger=logger, settings=settings)

    def build_install_page_html(self, url: str, request: BoltRequest) -> str:
        return pages.install_page(url, self.settings.scopes or [])

    def handle_installation(self, request: BoltRequest) -> BoltResponse:
        """Bolt's install page (or redirect), its state cookie set, with the :data:`CSP` header."""
        response = super().handle_installation(request)
        response.headers["content-security-policy"] = [CSP]
        return response

    def handle_callback(self, request: BoltRequest) -> BoltResponse:
        """Bolt's callback; when Slack cannot be reached, one WARNING (no traceback) and our page
        with status :data:`~bot.web.pages.UNREACHABLE_STATUS` and ``Retry-After: 60``."""
        try:
            return super().handle_callback(request)
        except SlackUnreachable as exc:
            cause = exc.__cause__
            why = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
            log.warning("OAuth install not finished: Slack could not be reached (%s); asked to try again", why)
            status, html = pages.unreachable_page()
            return BoltResponse(status=status, body=html, headers={**HTML, "Retry-After": "60"})

    def run_installation(self, code: str) -> Installation | None:
        """Bolt's code exchange; raises :class:`SlackUnreachable` when Slack does not answer."""
        try:
            return super().run_installation(code)
        except UNREACHABLE_ERRORS as exc:
            raise SlackUnreachable("Slack did not answer the code exchange") from exc

    def store_installation(self, request: BoltRequest, installation: Installation) -> None:
        """Note in ``request.context`` whether the workspace was installed before, then save."""
        request.context[INSTALLED_BEFORE] = installed_before(self.settings.installation_store, installation)
        super().store_installation(request, installation)


def installed_before(store: InstallationStore, installation: Installation) -> bool:
    """Whether ``store`` holds an installation (or a bot) of ``installation``'s workspace or org:
    a reinstall. An uninstall deletes them, so a return after one counts as a first install."""
    enterprise, team, org_wide = installation.enterprise_id, installation.team_id, installation.is_enterprise_install
    found = store.find_installation(enterprise_id=enterprise, team_id=team, is_enterprise_install=org_wide)
    return (
        found is not None
        or store.find_bot(enterprise_id=enterprise, team_id=team, is_enterprise_install=org_wide) is not None
    )


INSTALLED_COOKIE = "vllm-path-installed"
"""The cookie the success page sets (:func:`installed_cookie`): the install's state and the
installation's ids, so that the same browser reloading the used redirect link is told the app is
installed (:func:`already_installed`), not that the link expired (QA round 8)."""
INSTALLED_COOKIE_MAX_AGE = 86_400
"""Seconds the browser keeps :data:`INSTALLED_COOKIE` (a day of reloads and back buttons)."""
RELOAD_REASONS = frozenset({"invalid_state", "invalid_browser"})
"""Bolt's failure reasons a reload of the used redirect link meets (the state consumed; its cookie gone)."""


def installed_cookie(state: str, installation: Installation) -> str:
    """The ``Set-Cookie`` value of :data:`INSTALLED_COOKIE` for a good install with ``state``."""
    ids = (
        installation.enterprise_id or "",
        installation.team_id or "",
        "1" if installation.is_enterprise_install else "",
    )
    value = ".".join((state, *ids))
    return f"{INSTALLED_COOKIE}={value}; Secure; HttpOnly; SameSite=Lax; Path=/; Max-Age={INSTALLED_COOKIE_MAX_AGE}"


def _cookie(request: BoltRequest, name: str) -> str | None:
    """The value of the cookie ``name`` the request carries, or None."""
    from http.cookies import CookieError, SimpleCookie

    jar: SimpleCookie = SimpleCookie()
    for header in request.headers.get("cookie", []):
        with contextlib.suppress(CookieError):
            jar.load(header)
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None


def already_installed(args: FailureArgs) -> BoltResponse | None:
    """For a reload of the redirect link a good install used, in the browser that made it (its
    :data:`INSTALLED_COOKIE` names the link's state) and the installation still stored: the page
    saying the app is already installed (200, *Open Slack*); else None."""
    request = args.request
    state = next(iter(request.query.get("state") or []), None)
    cookie = _cookie(request, INSTALLED_COOKIE)
    if args.reason not in RELOAD_REASONS or not state or not cookie:
        return None
    parts = cookie.rsplit(".", 3)
    if len(parts) != 4 or parts[0] != state:
        return None
    enterprise, team, org_wide = parts[1] or None, parts[2] or None, parts[3] == "1"
    store = args.settings.installation_store
    found = store.find_installation(enterprise_id=enterprise, team_id=team, is_enterprise_install=org_wide)
    if found is None and store.find_bot(enterprise_id=enterprise, team_id=team, is_enterprise_install=org_wide) is None:
        return None  # removed since: the link has expired after all
    name = (found.team_name or found.enterprise_name) if found is not None else None
    app_id = found.app_id if found is not None else None
    log.info("OAuth redirect link reloaded after a good install (team %s): said it is installed", team or enterprise)
    html = pages.success_page(name, already=True, open_url=pages.open_slack_url(app_id, team))
    return BoltResponse(status=200, body=html, headers=dict(HTML))


def failure(args: FailureArgs) -> BoltResponse:
    """Bolt's OAuth ``failure`` callback: a reload of a link a good install used is told so
    (:func:`already_installed`); else log the reason (and error), answer our error page."""
    gentle = already_installed(args)
    if gentle is not None:
        return gentle
    error = f" ({type(args.error).__name__})" if args.error is not None else ""
    log.warning("OAuth install failed: %s%s", args.reason, error)
    status, html = pages.failure_page(args.reason)
    return BoltResponse(status=status, body=html, headers=dict(HTML))


def success_page(after: Callable[[SuccessArgs], bool | None]) -> Callable[[SuccessArgs], BoltResponse]:
    """Bolt's OAuth ``success`` callback: run ``after`` (resume paused digests, welcome the
    installer; it returns whether the welcome DM was sent; its errors are logged, the page still
    shows), then answer our success page: installed or reinstalled (:data:`INSTALLED_BEFORE`),
    the DM mentioned only when sent, an *Open Slack* button to the app in the workspace; it sets
    :data:`INSTALLED_COOKIE` (:func:`installed_cookie`) for a reload of the link."""

    def success(args: SuccessArgs) -> BoltResponse:
        welcomed = False
        try:
            welcomed = bool(after(args))
        except Exception:  # the install itself succeeded; never fail the page
            log.exception("after-install work failed")
        installation = args.installation
        team = installation.team_name or installation.enterprise_name
        html = pages.success_page(
            team,
            reinstall=bool(args.request.context.get(INSTALLED_BEFORE)),
            welcomed=welcomed,
            open_url=pages.open_slack_url(installation.app_id, installation.team_id),
        )
        headers: dict[str, str | Sequence[str]] = dict(HTML)
        state = next(iter(args.request.query.get("state") or []), None)
        if state:  # a reload of this link is told the app is installed (already_installed)
            headers["Set-Cookie"] = installed_cookie(state, installation)
        return BoltResponse(status=200, body=html, headers=headers)

    return success
