"""QA round 8: curators' review cards. A draft written by the command line (no feed run of the clock
ever saw it) gets its cards on the clock's next run, once; the cards go to the right tenant (a
single installation, an org-wide install named by a workspace id) in the curator's language; a
card that cannot be sent says why in one WARNING line. Real store, real drafts on a catalog copy,
the Slack stand-in (scope checks on for the OAuth cases)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.digest import curators
from bot.digest.clients import Clients
from bot.digest.sources import post_draft_cards
from bot.domain.catalog import load_catalog
from bot.domain.catalog.drafts import FeedSource, new_drafts, read_drafts, read_state, write_draft
from bot.domain.feed import parse_feed
from bot.runtime import CatalogHolder, Runtime
from bot.store import Store
from tests.digest.conftest import settings_for
from tests.digest.test_grid_tokens import (
    CLIENT_ID,
    CLIENT_SECRET,
    ORG,
    ORG_TOKEN,
    SCOPES,
    WS_IN_ORG,
    WS_TOKEN,
    _install,
)
from tests.domain.catalog.helpers import catalog_copy
from tests.domain.catalog.test_feed_drafts import CONTENT, NEW_TITLE, atom, entry
from tests.standin import SlackStandIn

CURATOR = "U0CURATOR"
SOLO = "T0SOLO"


def _drafts_by_the_cli(root: Path) -> list[str]:
    """Two drafts written as ``catalog import --write`` writes them (no clock run involved)."""
    posts, _ = parse_feed(
        atom(
            [
                entry(NEW_TITLE, "https://vllm-project.github.io/2026/12/03/eagle.html", "2026-12-03", "", CONTENT),
                entry("Serving Gemma with vLLM on GKE", "https://example.com/gemma", "2026-12-02", "vLLM on GKE"),
            ]
        )
    )
    feed = FeedSource(name="vLLM blog", url="https://vllm-project.github.io/feed.xml", kind="vllm-blog")
    drafts = new_drafts(posts, feed, load_catalog(root), [])
    for draft in drafts:
        write_draft(root, draft)
    return [d.id for d in drafts]


def _cards(standin: SlackStandIn) -> list[str]:
    return [
        json.dumps(c.args, ensure_ascii=False)
        for c in standin.calls("chat.postMessage")
        if c.args.get("channel") == CURATOR
    ]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return catalog_copy(tmp_path / "catalog")


def test_drafts_written_by_the_command_line_get_one_card_each_in_the_curators_language(
    root: Path, sqlite_url: str, standin, holder: CatalogHolder
) -> None:
    ids = _drafts_by_the_cli(root)
    settings = settings_for(sqlite_url, standin, catalog_dir=root, catalog_curators=CURATOR)
    rt = Runtime.create(settings)
    try:
        rt.store.set_lang(standin.team_id, CURATOR, "zh")  # set in Slack: under the workspace's id
        clients = Clients(rt)
        assert post_draft_cards(rt, clients, []) == len(ids)  # the clock's run after a 304: no new draft
        cards = _cards(standin)
        assert len(cards) == len(ids) and all("收录" in c for c in cards), cards[0][:400]
        assert sorted(read_state(root)["carded"]) == sorted(ids) and read_state(root)["unsent"] == {}
        assert post_draft_cards(rt, clients, []) == 0 and len(_cards(standin)) == len(ids)  # once each
    finally:
        rt.store.close()


@pytest.fixture
def grid_standin() -> Iterator[SlackStandIn]:
    with SlackStandIn(
        team_id=WS_IN_ORG, token_scopes={WS_TOKEN: SCOPES, ORG_TOKEN: SCOPES}, oauth_client=(CLIENT_ID, CLIENT_SECRET)
    ) as s:
        yield s


def _oauth(db_url: str, standin: SlackStandIn, holder: CatalogHolder, root: Path, admin_team: str = "") -> Runtime:
    settings = settings_for(
        db_url,
        standin,
        slack_bot_token=None,
        slack_client_id=CLIENT_ID,
        slack_client_secret=CLIENT_SECRET,
        catalog_dir=root,
        catalog_curators=CURATOR,
        catalog_admin_team=admin_team,
    )
    return Runtime(settings, Store.from_url(db_url, client_id=CLIENT_ID), holder)


def test_an_org_wide_install_named_by_a_workspace_id_gets_the_cards(
    root: Path, db_url: str, grid_standin: SlackStandIn, holder: CatalogHolder
) -> None:
    ids = _drafts_by_the_cli(root)
    rt = _oauth(db_url, grid_standin, holder, root, admin_team=WS_IN_ORG)
    try:
        _install(rt.store, enterprise_id=ORG, team_id=None, token=ORG_TOKEN, org_wide=True)
        rt.store.set_lang(ORG, CURATOR, "zh")  # an org-wide install keeps settings under the enterprise id
        assert post_draft_cards(rt, Clients(rt), []) == len(ids)
        assert len(_cards(grid_standin)) == len(ids) and "收录" in _cards(grid_standin)[0]
    finally:
        rt.store.close()


def test_a_single_installation_is_used_when_catalog_admin_team_is_unset(
    root: Path, db_url: str, grid_standin: SlackStandIn, holder: CatalogHolder
) -> None:
    ids = _drafts_by_the_cli(root)
    rt = _oauth(db_url, grid_standin, holder, root)
    try:
        _install(rt.store, enterprise_id=None, team_id=WS_IN_ORG, token=WS_TOKEN)
        assert post_draft_cards(rt, Clients(rt), []) == len(ids)
        assert read_state(root)["unsent"] == {}
    finally:
        rt.store.close()


def test_cards_that_cannot_be_sent_say_why_once(
    root: Path,
    db_url: str,
    grid_standin: SlackStandIn,
    holder: CatalogHolder,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(curators, "_warned", set())  # once per process: a fresh process here
    ids = _drafts_by_the_cli(root)
    rt = _oauth(db_url, grid_standin, holder, root)
    try:
        _install(rt.store, enterprise_id=None, team_id=WS_IN_ORG, token=WS_TOKEN)
        _install(rt.store, enterprise_id=None, team_id=SOLO, token=WS_TOKEN + "-2")
        with caplog.at_level(logging.WARNING, logger="bot.digest"):
            for _ in range(3):
                assert post_draft_cards(rt, Clients(rt), []) == 0
        said = [r.getMessage() for r in caplog.records if "held" in r.getMessage()]
        assert len(said) == 1 and "CATALOG_ADMIN_TEAM" in said[0], said
        assert sorted(read_state(root)["unsent"]) == sorted(ids)  # they wait, and go once it is set
        assert {d.id for d in read_drafts(root)} == set(ids)
    finally:
        rt.store.close()
