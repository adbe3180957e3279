"""Bolt's OAuth install flow with our install, success and error pages (:mod:`bot.web.pages`). A
failure's internals are logged; the person sees plain words and the right status."""

from __future__ import annotations

import logging
from collections.abc import Callable

from slack_bolt.oauth import OAuthFlow
from slack_bolt.oauth.callback_options import FailureArgs, SuccessArgs
from slack_bolt.request import BoltRequest
from slack_bolt.response import BoltResponse

from bot.web import pages

log = logging.getLogger(__name__)

HTML = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}


class PageOAuthFlow(OAuthFlow):
    """Bolt's OAuth flow with our install page (linking Bolt's authorize URL, with its state)."""

    def build_install_page_html(self, url: str, request: BoltRequest) -> str:
        return pages.install_page(url, self.settings.scopes or [])


def failure(args: FailureArgs) -> BoltResponse:
    """Bolt's OAuth ``failure`` callback: log the reason (and error), answer our error page."""
    error = f" ({type(args.error).__name__})" if args.error is not None else ""
    log.warning("OAuth install failed: %s%s", args.reason, error)
    status, html = pages.failure_page(args.reason)
    return BoltResponse(status=status, body=html, headers=dict(HTML))


def success_page(after: Callable[[SuccessArgs], None]) -> Callable[[SuccessArgs], BoltResponse]:
    """Bolt's OAuth ``success`` callback: run ``after`` (resume paused digests, welcome the
    installer; its errors are logged, the page still shows), then answer our success page."""

    def success(args: SuccessArgs) -> BoltResponse:
        try:
            after(args)
        except Exception:  # the install itself succeeded; never fail the page
            log.exception("after-install work failed")
        team = args.installation.team_name or args.installation.enterprise_name
        return BoltResponse(status=200, body=pages.success_page(team), headers=dict(HTML))

    return success
