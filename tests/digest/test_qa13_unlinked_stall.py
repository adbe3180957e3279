"""QA round 13: a channel digest stalled on a step read after one with no link yet (agentic after
5 of 13 steps, spec after 13 of 17) and the preview then said "the path is done". Real catalog,
real SQLite store, the CLI (``ask "subscribe ..."``, ``digest run-now`` to the Slack stand-in,
``digest preview``)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.catalog import Catalog
from bot.domain.plan import BudgetPreview, plan_channel_digest
from bot.slack.views.digest import compose_channel_digest
from tests.digest.test_cli import _env


def _unlinked(catalog: Catalog, track: str) -> set[str]:
    return {p for p in catalog.order(track) if catalog.post(p).url is None}


def _blocked_tracks(catalog: Catalog) -> list[str]:
    """Tracks with a linked step to read after a step without a link."""
    out = []
    for tr in catalog.tracks:
        unlinked = _unlinked(catalog, tr.id)
        if any(s.post not in unlinked and set(s.after) & unlinked for s in catalog.path(tr.id)):
            out.append(tr.id)
    return out


@pytest.mark.parametrize("k", [1, 3])
def test_a_channel_is_sent_every_linked_step_even_after_a_step_without_a_link(catalog: Catalog, k: int) -> None:
    blocked = _blocked_tracks(catalog)
    assert {"agentic", "spec"} <= set(blocked)  # the tester's two tracks (catalog 2026.12.21)
    for track in blocked:
        sub = BudgetPreview(0, track, 0, k, None)
        sent: list[str] = []
        for _ in range(40):
            plan = plan_channel_digest(catalog, sub, None)
            if plan.empty:
                break
            sent += plan.steps
            sub = replace(sub, cursor=plan.cursor, last_catalog_version=plan.version)
        linked = [p for p in catalog.order(track) if p not in _unlinked(catalog, track)]
        assert sent == linked, track  # every linked step, once, in path order
        assert plan.unlinked_left == tuple(p for p in catalog.order(track) if p in _unlinked(catalog, track))
        assert plan.waiting == len(plan.unlinked_left)


def test_subscribe_run_now_then_preview_names_what_waits_for_a_link(catalog: Catalog, sqlite_url, standin) -> None:
    runner = CliRunner()
    env = _env(sqlite_url, standin)
    said = runner.invoke(main, ["ask", "subscribe agentic monday 09:00 Europe/Berlin 600m"], env=env)
    assert said.exit_code == 0, said.output
    sent = runner.invoke(main, ["digest", "run-now", "--track", "agentic", "--channel-interval", "0.01"], env=env)
    assert sent.exit_code == 0 and "sent 1" in sent.output, sent.output
    posted = json.dumps([c.args["blocks"] for c in standin.calls("chat.postMessage")], ensure_ascii=False)
    unlinked = _unlinked(catalog, "agentic")
    after_unlinked = [s.post for s in catalog.path("agentic") if s.post not in unlinked and set(s.after) & unlinked]
    assert after_unlinked and all(p in posted for p in after_unlinked)  # not held back by the unlinked step
    assert f"{len(unlinked)} steps of this path wait for a link" in posted
    preview = runner.invoke(main, ["digest", "preview", "--track", "agentic", "--channel", "C0CONSOLE"], env=env)
    assert preview.exit_code == 0
    assert "the path is done" not in preview.output
    assert "the rest of the path waits for a link" in preview.output
    first = next(p for p in catalog.order("agentic") if p in unlinked)
    assert catalog.post(first).title in preview.output and first in preview.output


def test_the_preview_says_what_a_week_sends_against_its_budget(catalog: Catalog) -> None:
    """``--minutes 600`` said "about 600 min of reading a week" and sent 39 min: the stall; the
    path has fewer linked minutes than that, which the preview now says."""
    result = CliRunner().invoke(main, ["digest", "preview", "--track", "agentic", "--minutes", "600"], env=_env(None))
    assert result.exit_code == 0, result.output
    week = compose_channel_digest(catalog, BudgetPreview(0, "agentic", 0, 1, None, minutes_per_week=600))
    linked_minutes = sum(catalog.post(p).minutes or 0 for p in catalog.order("agentic") if catalog.post(p).url)
    assert sum(catalog.post(p).minutes or 0 for p in week.steps) == linked_minutes
    assert f"; {linked_minutes} min of a 600-min weekly budget: all the linked steps left;" in result.output
    assert "waiting for a link: " in result.output and "path done" not in result.output
