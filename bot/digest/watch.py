"""The daily watch of the blog's feed: tell the catalog admins what the catalog lacks.

With ``CATALOG_FEED_URL`` set, the clock runs :func:`check_feed` daily: it posts **one** notice to
``CATALOG_ADMIN_CHANNEL`` naming the feed's posts the served catalog lacks that were not announced
before (:meth:`bot.store.Store.claim_feed_notice`; a failed post releases the claims). Nothing is
published.
"""

from __future__ import annotations

import logging
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from bot.digest.clients import Clients
from bot.domain.feed import ImportSourceError, SourcePost, missing_posts, public_source
from bot.runtime import Runtime

log = logging.getLogger(__name__)

FETCH_TIMEOUT_S = 20.0
"""Seconds one read of a feed (or an ``http(s)`` import source) may wait for bytes."""


def fetch(url: str, max_bytes: int, deadline_s: float) -> bytes:
    """GET ``url`` and return its body: at most ``max_bytes`` bytes, received in full within
    ``deadline_s`` seconds however slowly they come (one read waits at most :data:`FETCH_TIMEOUT_S`).
    Raises :class:`ImportSourceError` when it is unreachable, answers other than 200, is larger or
    slower."""
    request = urllib.request.Request(url, headers={"User-Agent": "vllm-path catalog import"})
    deadline, body = time.monotonic() + deadline_s, bytearray()
    try:
        with urllib.request.urlopen(request, timeout=min(FETCH_TIMEOUT_S, deadline_s)) as response:
            while chunk := response.read1(64 * 1024):
                body += chunk
                if len(body) > max_bytes:
                    raise ImportSourceError(f"{public_source(url)}: larger than {max_bytes:,} bytes")
                if time.monotonic() > deadline:
                    raise ImportSourceError(f"{public_source(url)}: not received in full within {deadline_s:g} s")
    except urllib.error.HTTPError as exc:
        raise ImportSourceError(f"{public_source(url)}: the server answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ImportSourceError(f"{public_source(url)}: unreachable ({reason})") from None
    return bytes(body)


@dataclass(frozen=True)
class WatchReport:
    """One check: ``missing`` the posts the catalog lacks (feed order), ``announced`` those named in
    its notice, ``error`` why it failed (bad feed, no token, Slack error), else None."""

    missing: tuple[SourcePost, ...] = ()
    announced: tuple[SourcePost, ...] = ()
    error: str | None = None
    skipped: bool = False


def check_feed(runtime: Runtime, *, clients: Clients | None = None) -> WatchReport:
    """Check the feed against the served catalog and announce new missing posts with ``clients``
    (default: from the settings). Never raises for a bad feed or a Slack error (the report says);
    ``skipped`` when the feed URL or the admin channel is not set."""
    settings = runtime.settings
    feed_url, channel = settings.catalog_feed_url, settings.catalog_admin_channel
    if not feed_url or not channel:
        return WatchReport(skipped=True)
    try:
        body = fetch(feed_url, settings.catalog_import_max_bytes, settings.catalog_fetch_deadline_s)
        missing = missing_posts(body, runtime.holder.catalog)
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
