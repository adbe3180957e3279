"""Issue 41 leftovers: the review cards the clock DMs to the curators. A card whose post to Slack
fails is posted again on the next run (not lost), and each curator reads it in their language.
Real store (SQLite) and the Slack stand-in; :func:`post_draft_cards` is what the clock's
``watch_sources`` job calls after each run."""

from __future__ import annotations

from pathlib import Path

from bot.digest.clients import Clients
from bot.digest.sources import post_draft_cards
from bot.domain.catalog import load_catalog
from bot.domain.catalog.drafts import Draft, FeedSource, new_drafts, read_state, reject, write_draft
from bot.domain.feed import parse_feed
from bot.runtime import CatalogHolder, Runtime
from tests.digest.conftest import TEAM, make_runtime
from tests.domain.catalog.helpers import catalog_copy
from tests.domain.catalog.test_feed_drafts import CONTENT, NEW_TITLE, atom, entry
from tests.standin import SlackStandIn

EN, ZH = "U0CURATOREN", "U0CURATORZH"


def drafted(root: Path, title: str = NEW_TITLE, slug: str = "eagle") -> Draft:
    """One draft of a new vLLM-blog post, written beside the catalog at ``root``."""
    url = f"https://vllm-project.github.io/2026/12/03/{slug}.html"
    posts, _ = parse_feed(atom([entry(title, url, "2026-12-03", "", CONTENT)]))
    feed = FeedSource(name="vLLM blog", url="https://vllm-project.github.io/feed.xml", kind="vllm-blog")
    (draft,) = new_drafts(posts, feed, load_catalog(root), [])
    write_draft(root, draft)
    return draft


def curated(sqlite_url: str, standin: SlackStandIn, root: Path) -> Runtime:
    return make_runtime(
        sqlite_url,
        standin,
        CatalogHolder(root),
        catalog_dir=root,
        catalog_curators=f"{EN},{ZH}",
        catalog_admin_team=TEAM,
    )


def cards_to(standin: SlackStandIn, user: str) -> list[str]:
    return [c.args["text"] for c in standin.calls("chat.postMessage") if c.args["channel"] == user]


def test_a_card_whose_post_failed_is_posted_on_the_next_run(sqlite_url: str, tmp_path: Path, standin: SlackStandIn):
    root = catalog_copy(tmp_path / "catalog")
    draft = drafted(root)
    rt = curated(sqlite_url, standin, root)
    try:
        clients = Clients(rt)
        standin.configure(channel_errors={ZH: "channel_not_found"})
        assert post_draft_cards(rt, clients, [draft]) == 1
        assert read_state(root)["unsent"] == {draft.id: [ZH]}

        standin.configure(channel_errors={})
        assert post_draft_cards(rt, clients, []) == 1  # the next run: no new draft, the card again
        assert len(cards_to(standin, ZH)) == 2 and len(cards_to(standin, EN)) == 1
        assert read_state(root)["unsent"] == {}
        assert post_draft_cards(rt, clients, []) == 0  # posted once it went through

        second = drafted(root, "Serving speculative drafters on a budget", "drafters")  # rejected before its retry
        standin.configure(channel_errors={EN: "channel_not_found", ZH: "channel_not_found"})
        assert post_draft_cards(rt, clients, [second]) == 0
        assert read_state(root)["unsent"] == {second.id: [EN, ZH]}
        standin.configure(channel_errors={})
        reject(root, second.id)
        assert post_draft_cards(rt, clients, []) == 0 and read_state(root)["unsent"] == {}
    finally:
        rt.store.close()


def test_each_curator_reads_the_card_in_their_language(sqlite_url: str, tmp_path: Path, standin: SlackStandIn):
    root = catalog_copy(tmp_path / "catalog")
    draft = drafted(root)
    rt = curated(sqlite_url, standin, root)
    try:
        rt.store.set_lang(TEAM, ZH, "zh")
        assert post_draft_cards(rt, Clients(rt), [draft]) == 2
        (zh,) = cards_to(standin, ZH)
        (en,) = cards_to(standin, EN)
        assert "待收录的新文章" in zh and "待收录" not in en
        assert NEW_TITLE in zh and NEW_TITLE in en
    finally:
        rt.store.close()
