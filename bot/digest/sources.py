"""The watch of the catalog's feeds (``<catalog>/sources.yaml``): each new post a draft beside the
catalog (:mod:`bot.domain.catalog.drafts`), for a curator to accept or reject.

The clock runs :func:`watch_sources` every ``CATALOG_SOURCES_EVERY_S`` seconds (daily when only the
old ``CATALOG_FEED_URL`` is set, which is read as one more feed):
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
from typing import TYPE_CHECKING

from bot.domain.catalog import Catalog
from bot.domain.catalog.drafts import (
    Draft,
    FeedSource,
    new_drafts,
    placement_vocabulary,
    read_drafts,
    read_sources,
    read_state,
    write_draft,
    write_state,
)
from bot.domain.feed import ImportSourceError, parse_feed, public_source

if TYPE_CHECKING:  # the runtime, the store and SQLAlchemy: not for `catalog import`, which only fetches
    from bot.digest.clients import Clients
    from bot.runtime import Runtime

log = logging.getLogger(__name__)

FEED_TIMEOUT_S = 10.0
"""Seconds one feed may take in all (connecting, each read, the whole body)."""
WATCH_DEADLINE_S = 120.0
"""Seconds after which a run starts no further fetch."""
READ_TIMEOUT_S = 20.0
"""Seconds one read may wait for bytes."""
MAX_FEED_BYTES = 20 * 1024 * 1024
"""A feed larger than this (bytes) is refused."""


def fetch(
    url: str, max_bytes: int = MAX_FEED_BYTES, timeout: float = FEED_TIMEOUT_S, seen: dict[str, str] | None = None
) -> tuple[bytes | None, dict[str, str]]:
    """GET ``url``, with ``If-None-Match`` / ``If-Modified-Since`` from ``seen`` (``{"etag",
    "modified"}``, the validators it last answered). Returns ``(body, validators)``: ``body`` at most
    ``max_bytes`` bytes received in full within ``timeout`` seconds however slowly they come (one
    read waits at most :data:`READ_TIMEOUT_S`), or ``None`` for 304 Not Modified (then the
    validators are ``seen``). Raises :class:`ImportSourceError` when it is unreachable, answers
    neither 200 nor 304, is larger or slower."""
    seen = seen or {}
    headers = {"User-Agent": "vllm-path catalog watch"}
    if seen.get("etag"):
        headers["If-None-Match"] = seen["etag"]
    if seen.get("modified"):
        headers["If-Modified-Since"] = seen["modified"]
    where = public_source(url)
    deadline, body = time.monotonic() + timeout, bytearray()
    try:
        request = urllib.request.Request(url, headers=headers)
        with urllib.request.urlopen(request, timeout=min(READ_TIMEOUT_S, timeout)) as response:
            got = {"etag": response.headers.get("ETag") or "", "modified": response.headers.get("Last-Modified") or ""}
            while chunk := response.read1(64 * 1024):
                body += chunk
                if len(body) > max_bytes:
                    raise ImportSourceError(f"{where}: larger than {max_bytes:,} bytes")
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
    root: Path,
    catalog: Catalog,
    *,
    feed_url: str | None = None,
    timeout: float = FEED_TIMEOUT_S,
    deadline_s: float = WATCH_DEADLINE_S,
) -> SourcesReport:
    """Fetch every feed of ``root/sources.yaml`` (and ``feed_url``, the old ``CATALOG_FEED_URL``,
    as one more vLLM blog feed unless listed there) and write a draft per new post into
    ``root/drafts/``; ``catalog`` is the catalog of ``root``. Never raises for a feed (a failure is
    one WARNING line and an entry of ``errors``); raises ``ValueError`` for an invalid sources file
    or ``feed_url``."""
    report = SourcesReport()
    vocabulary = placement_vocabulary(root)  # glossary words of each track, blog hosts: issue 41's placer
    state = read_state(root)
    known = read_drafts(root)
    feeds = read_sources(root)
    if feed_url and feed_url not in {f.url for f in feeds}:
        feeds.append(
            FeedSource(name="CATALOG_FEED_URL", url=feed_url, kind="vllm-blog")
        )  # ValidationError: a ValueError
    started = time.monotonic()
    for feed in feeds:
        if time.monotonic() - started > deadline_s:
            report.late.append(feed.name)
            continue
        try:
            body, validators = fetch(feed.url, timeout=timeout, seen=state["feeds"].get(feed.url, {}))
            if body is None:
                report.unchanged.append(feed.name)
                continue
            posts, _ = parse_feed(body, where := public_source(feed.url))
        except ImportSourceError as exc:
            log.warning("catalog sources: %s: %s", feed.name, exc)
            report.errors[feed.name] = str(exc)
            continue
        drafts = new_drafts(posts, feed, catalog, known, state["rejected"], vocabulary=vocabulary)
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
    :func:`bot.digest.curators.curator_tenant` finds), in the curator's language (their ``lang``
    setting there, else English); the number of cards posted. ``drafts``: those just written; any
    other waiting draft without cards yet (written by ``catalog watch`` or ``catalog import
    --write``: ``carded`` in ``drafts/.feeds.json`` does not name it) gets them too. A card whose
    post fails, or that cannot be sent (one WARNING line says why), is remembered (``unsent``): each
    later call posts it again first, while its draft still waits and its curator still is one."""
    from bot.digest.curators import CuratorTenant, curator_tenant, warn_held  # deferred: SQLAlchemy and the store

    curators = sorted(runtime.settings.curator_ids)
    root = runtime.settings.catalog_dir
    state = read_state(root)
    unsent: dict[str, list[str]] = state["unsent"]
    waiting = {d.id: d for d in read_drafts(root)}
    carded = set(state["carded"]) & waiting.keys()
    todo: dict[str, tuple[Draft, list[str]]] = {
        pid: (waiting[pid], [u for u in curators if u in users]) for pid, users in unsent.items() if pid in waiting
    }
    todo.update((d.id, (d, curators)) for d in drafts)
    todo.update((pid, (d, curators)) for pid, d in waiting.items() if pid not in carded and pid not in todo)
    where = curator_tenant(runtime, clients) if curators and todo else CuratorTenant(None)
    team = where.tenant
    client = clients.for_team(team) if team is not None else None
    posted = 0
    failed: dict[str, list[str]] = {}
    if client is None:  # no curator: nothing to send; no token for the team yet: every card waits
        failed = {pid: users for pid, (_, users) in todo.items() if users}
        if failed:
            warn_held(sum(map(len, failed.values())), where.why or f"no bot token for {team}")
    else:
        for draft, users in todo.values():
            for user in users:
                try:
                    lang = runtime.store.get_lang(team, user) or "en"
                    card = runtime.renderer.draft_card(draft, runtime.holder.catalog, lang)
                    client.chat_postMessage(channel=user, text=card.text, blocks=card.blocks, unfurl_links=False)
                    posted += 1
                except Exception as exc:  # slack_sdk errors, network and store errors alike
                    error = getattr(getattr(exc, "response", None), "data", {}).get("error") or type(exc).__name__
                    log.warning("catalog sources: card for %s not posted to %s (next run tries again): %s",
                                draft.id, user, error)  # fmt: skip
                    failed.setdefault(draft.id, []).append(user)
    now_carded = carded | (set(todo) if curators else set())
    if failed != unsent or now_carded != set(state["carded"]):
        state["unsent"], state["carded"] = failed, sorted(now_carded)
        write_state(root, state)
    return posted
