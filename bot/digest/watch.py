"""The daily watch of the blog's feed: tell the catalog admins what the catalog lacks.

With ``CATALOG_FEED_URL`` set, the clock runs :func:`check_feed` once a day: it lists the feed's
posts (:func:`bot.cli.importer.fetch`) the served catalog lacks
(:func:`bot.cli.importer.missing_posts`) and posts **one** notice to ``CATALOG_ADMIN_CHANNEL``
naming those not announced before, with the import command to run. Each post is announced once
(:meth:`bot.store.Store.claim_feed_notice`); a failed post forgets the claims so the next check
tries again. Nothing is published (imported drafts wait for a person's summaries), and the notice
(:func:`bot.slack.views.feed.feed_notice`, escaped mrkdwn) mentions nobody.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.cli.importer import ImportSourceError, SourcePost, fetch, missing_posts
from bot.digest.clients import Clients
from bot.runtime import Runtime

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WatchReport:
    """What one check did: ``missing`` the posts the catalog lacks (feed order), ``announced``
    those named in this check's notice (new since the last notices), ``error`` why the check
    could not run (unreachable or malformed feed, no token, Slack error), else ``None``."""

    missing: tuple[SourcePost, ...] = ()
    announced: tuple[SourcePost, ...] = ()
    error: str | None = None
    skipped: bool = False


def check_feed(runtime: Runtime, *, clients: Clients | None = None) -> WatchReport:
    """Check ``runtime.settings.catalog_feed_url`` against the served catalog and announce new
    missing posts (see the module docstring) with ``clients`` (default: from the runtime's
    settings). Never raises for a bad feed or a Slack error: the report (and the log) says what
    happened. Skipped (``skipped=True``) when the feed URL or the admin channel is not set."""
    settings = runtime.settings
    feed_url, channel = settings.catalog_feed_url, settings.catalog_admin_channel
    if not feed_url or not channel:
        return WatchReport(skipped=True)
    try:
        missing = missing_posts(fetch(feed_url), runtime.holder.catalog)
    except ImportSourceError as exc:
        log.warning("catalog watch: %s", exc)
        return WatchReport(error=str(exc))
    store = runtime.store
    known = store.noticed_urls()
    fresh = [p for p in missing if p.url not in known]
    claimed = [p for p in fresh if store.claim_feed_notice(p.url, p.title)]
    if not claimed:
        return WatchReport(tuple(missing))
    client = (clients or Clients(runtime)).for_team(settings.catalog_admin_team)
    error = None
    if client is None:
        error = "no bot token for the catalog admin channel's workspace"
    else:
        message = runtime.renderer.feed_notice(claimed, feed_url, len(missing))
        try:
            client.chat_postMessage(
                channel=channel, text=message.text, blocks=message.blocks, unfurl_links=False, unfurl_media=False
            )
        except Exception as exc:  # slack_sdk errors and network errors alike
            error = getattr(getattr(exc, "response", None), "data", {}).get("error") or type(exc).__name__
    if error is not None:
        for post in claimed:
            store.release_feed_notice(post.url)
        log.warning("catalog watch: notice not posted: %s", error)
        return WatchReport(tuple(missing), (), error)
    log.info("catalog watch: announced %d new post(s) the catalog lacks", len(claimed))
    return WatchReport(tuple(missing), tuple(claimed))
