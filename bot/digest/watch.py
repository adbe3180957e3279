"""The daily watch of the blog's feed: tell the catalog admins what the catalog lacks.

With ``CATALOG_FEED_URL`` set, the clock (:mod:`bot.digest.clock`) runs :func:`check_feed` once
a day. It fetches the feed (:func:`bot.cli.importer.fetch`), lists the posts the served catalog
lacks (:func:`bot.cli.importer.missing_posts`), and posts **one** short notice to
``CATALOG_ADMIN_CHANNEL`` naming the posts not announced before, with the import command to run.
Each post is announced once: the store remembers it (:meth:`bot.store.Store.claim_feed_notice`,
table ``catalog_feed_notices``); a failed post forgets the claims so the next check tries again.

Nothing is published: importing writes drafts that ``catalog check`` refuses until a person has
written their summaries and placed them in tracks. The notice mentions nobody (no ``@here``):
every title is escaped mrkdwn.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from bot.cli.importer import ImportSourceError, SourcePost, fetch, missing_posts
from bot.digest.deliver import Clients
from bot.slack.mrkdwn import Mrkdwn, link, truncate
from bot.slack.views.blocks import context, make_reply, section

log = logging.getLogger(__name__)

MAX_LISTED = 10
"""Posts listed one by one in a notice; more are counted in one line."""


@dataclass(frozen=True)
class WatchReport:
    """What one check did: ``missing`` the posts the catalog lacks (feed order), ``announced``
    those named in this check's notice (new since the last notices), ``error`` why the check
    could not run (unreachable or malformed feed, no token, Slack error), else ``None``."""

    missing: tuple[SourcePost, ...] = ()
    announced: tuple[SourcePost, ...] = ()
    error: str | None = None
    skipped: bool = False


def notice(posts: list[SourcePost], feed_url: str, total_missing: int) -> tuple[str, list[dict[str, Any]]]:
    """The notice for ``posts`` (new to the admins): ``(fallback text, blocks)``. Escaped
    mrkdwn; links only to the feed's own post URLs."""
    lines = [Mrkdwn("*The vLLM blog has {} post(s) the catalog does not hold yet:*").format(len(posts))]
    for post in posts[:MAX_LISTED]:
        lines.append(Mrkdwn("• {} · {}").format(link(post.url, truncate(post.title, 200)),
                                                post.date.isoformat()))
    if len(posts) > MAX_LISTED:
        lines.append(Mrkdwn("… and {} more").format(len(posts) - MAX_LISTED))
    command = Mrkdwn("`vllm-path catalog import {} --write`").format(truncate(feed_url, 500))
    how = Mrkdwn("Import them as drafts with {}, then write each summary in our own words and place "
                 "the post in a track: `catalog check` refuses drafts, so nothing is published "
                 "until a person has done that.").format(command)
    blocks: list[Any] = [section(Mrkdwn("\n").join(lines)), section(how)]
    if total_missing > len(posts):
        blocks.append(context(Mrkdwn("{} more missing post(s) were announced before.").format(
            total_missing - len(posts))))
    reply = make_reply(blocks, Mrkdwn("\n").join(lines))
    return reply.text, reply.blocks


def check_feed(runtime: Any, *, clients: Any = None) -> WatchReport:
    """Check ``runtime.settings.catalog_feed_url`` against the served catalog and announce new
    missing posts in ``catalog_admin_channel`` (see the module docstring).

    ``runtime``: a :class:`bot.runtime.Runtime`; ``clients``: a
    :class:`bot.digest.deliver.Clients` (default: from the runtime's settings). Never raises for
    a bad feed or a Slack error: the report says what happened (and the log, without secrets).
    Skipped (``skipped=True``) when the feed URL or the admin channel is not set.
    """
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
    if clients is None:
        clients = Clients(runtime)
    client = clients.for_team(settings.catalog_admin_team)
    error = None
    if client is None:
        error = "no bot token for the catalog admin channel's workspace"
    else:
        text, blocks = notice(claimed, feed_url, len(missing))
        try:
            client.chat_postMessage(channel=channel, text=text, blocks=blocks, unfurl_links=False,
                                    unfurl_media=False)
        except Exception as exc:  # slack_sdk errors and network errors alike
            error = getattr(getattr(exc, "response", None), "data", {}).get("error") or type(exc).__name__
    if error is not None:
        for post in claimed:
            store.release_feed_notice(post.url)
        log.warning("catalog watch: notice not posted: %s", error)
        return WatchReport(tuple(missing), (), error)
    log.info("catalog watch: announced %d new post(s) the catalog lacks", len(claimed))
    return WatchReport(tuple(missing), tuple(claimed))
