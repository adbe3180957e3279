"""The watch of the catalog's feeds (``<catalog>/sources.yaml``): each new post a draft beside the
catalog (:mod:`bot.domain.catalog.drafts`), for a curator to accept or reject.

The clock runs :func:`watch_sources` every ``CATALOG_SOURCES_EVERY_S`` seconds (default one hour):
each feed is fetched with a conditional request (the ``ETag`` and ``Last-Modified`` it last
answered, remembered in ``drafts/.feeds.json``), so an unchanged feed costs a 304. A broken or slow
feed costs at most ``timeout`` seconds and one WARNING line; after ``deadline_s`` no further feed is
started in that run (the rest wait for the next). Nothing here is published.
"""

from __future__ import annotations

import logging
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bot.digest.clients import Clients
from bot.domain.catalog import Catalog
from bot.domain.catalog.drafts import Draft, new_drafts, read_drafts, read_sources, read_state, write_draft, write_state
from bot.domain.feed import ImportSourceError, parse_feed, public_source
from bot.runtime import Runtime

log = logging.getLogger(__name__)

FEED_TIMEOUT_S = 10.0
"""Seconds one feed may take in all (connecting, each read, the whole body)."""
WATCH_DEADLINE_S = 120.0
"""Seconds after which a run starts no further fetch."""
MAX_FEED_BYTES = 20 * 1024 * 1024
"""A feed larger than this (bytes) is refused."""


def fetch_conditional(url: str, seen: dict[str, str], timeout: float) -> tuple[bytes | None, dict[str, str]]:
    """GET ``url`` with ``If-None-Match`` / ``If-Modified-Since`` from ``seen`` (``{"etag",
    "modified"}``). Returns ``(body, validators)``: ``body`` ``None`` for 304 Not Modified (then the
    validators are ``seen``). ``timeout``: seconds for the whole answer. Raises
    :class:`ImportSourceError` when the feed is unreachable, answers neither 200 nor 304, is larger
    than :data:`MAX_FEED_BYTES` or slower than ``timeout``."""
    headers = {"User-Agent": "vllm-path catalog watch"}
    if seen.get("etag"):
        headers["If-None-Match"] = seen["etag"]
    if seen.get("modified"):
        headers["If-Modified-Since"] = seen["modified"]
    where = public_source(url)
    deadline, body = time.monotonic() + timeout, bytearray()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as response:
            got = {"etag": response.headers.get("ETag") or "", "modified": response.headers.get("Last-Modified") or ""}
            while chunk := response.read1(64 * 1024):
                body += chunk
                if len(body) > MAX_FEED_BYTES:
                    raise ImportSourceError(f"{where}: larger than {MAX_FEED_BYTES:,} bytes")
                if time.monotonic() > deadline:
                    raise ImportSourceError(f"{where}: not received in full within {timeout:g} s")
    except urllib.error.HTTPError as exc:
        if exc.code == 304:
            return None, dict(seen)
        raise ImportSourceError(f"{where}: the server answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise ImportSourceError(f"{where}: unreachable ({getattr(exc, 'reason', exc)})") from None
    return bytes(body), {k: v for k, v in got.items() if v}


@dataclass
class SourcesReport:
    """One run: the drafts written, the feeds that answered 304 (``unchanged``), ``errors`` (feed
    name -> why) and the feeds not started before the deadline (``late``)."""

    drafts: list[Draft] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    late: list[str] = field(default_factory=list)


def watch_sources(
    root: Path, catalog: Catalog, *, timeout: float = FEED_TIMEOUT_S, deadline_s: float = WATCH_DEADLINE_S
) -> SourcesReport:
    """Fetch every feed of ``root/sources.yaml`` and write a draft per new post into
    ``root/drafts/``; ``catalog`` is the catalog of ``root``. Never raises for a feed (a failure is
    one WARNING line and an entry of ``errors``); raises ``ValueError`` for an invalid sources file."""
    report = SourcesReport()
    state = read_state(root)
    known = read_drafts(root)
    started = time.monotonic()
    for feed in read_sources(root):
        if time.monotonic() - started > deadline_s:
            report.late.append(feed.name)
            continue
        try:
            body, validators = fetch_conditional(feed.url, state["feeds"].get(feed.url, {}), timeout)
            if body is None:
                report.unchanged.append(feed.name)
                continue
            posts, _ = parse_feed(body, where := public_source(feed.url))
        except ImportSourceError as exc:
            log.warning("catalog sources: %s: %s", feed.name, exc)
            report.errors[feed.name] = str(exc)
            continue
        drafts = new_drafts(posts, feed, catalog, known, state["rejected"])
        for draft in drafts:
            write_draft(root, draft)
        known.extend(drafts)
        report.drafts.extend(drafts)
        state["feeds"][feed.url] = validators
        write_state(root, state)
        log.debug("catalog sources: %s: %d post(s), %d new", where, len(posts), len(drafts))
    if report.late:
        log.warning("catalog sources: %.0f s deadline reached; not fetched: %s", deadline_s, ", ".join(report.late))
    if report.drafts:
        log.info("catalog sources: %d new draft(s): %s", len(report.drafts), ", ".join(d.id for d in report.drafts))
    return report


def post_draft_cards(runtime: Runtime, clients: Clients, drafts: list[Draft]) -> int:
    """DM each curator of ``CATALOG_CURATORS`` one review card per draft (in the workspace
    ``CATALOG_ADMIN_TEAM``); the number of cards posted. A failed post is one WARNING line."""
    curators = sorted(runtime.settings.curator_ids)
    client = clients.for_team(runtime.settings.catalog_admin_team) if curators and drafts else None
    if client is None:
        return 0
    posted = 0
    for draft in drafts:
        card = runtime.renderer.draft_card(draft, runtime.holder.catalog, "en")
        for user in curators:
            try:
                client.chat_postMessage(channel=user, text=card.text, blocks=card.blocks, unfurl_links=False)
                posted += 1
            except Exception as exc:  # slack_sdk errors and network errors alike
                error = getattr(getattr(exc, "response", None), "data", {}).get("error") or type(exc).__name__
                log.warning("catalog sources: card for %s not posted to %s: %s", draft.id, user, error)
    return posted
