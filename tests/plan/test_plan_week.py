"""Plans by minutes: the channel digest and the reader's week fit the budget; a channel is told
once that it has been through the essential path."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.domain import budget, paths
from bot.domain.plan import BudgetPreview, plan_channel_digest, plan_reader_week
from bot.slack.views.digest import compose_channel_digest
from tests.standin.blockkit import validate_blocks


def _walk(catalog, track_id: str, minutes: int, after: str = "further"):
    """Every weekly plan of a channel at ``minutes`` from its first digest to the end."""
    cursor, version, plans = 0, None, []
    for _ in range(100):
        sub = BudgetPreview(1, track_id, cursor, 1, version, minutes_per_week=minutes, after_essentials=after)
        plan = plan_channel_digest(catalog, sub)
        if plan.empty:
            break
        plans.append((sub, plan))
        cursor, version = plan.cursor, plan.version
    return plans


@pytest.mark.parametrize("minutes", [20, 45, 60])
def test_each_week_fits_the_budget_or_is_one_longer_step(timed_catalog, minutes: int) -> None:
    for tr in timed_catalog.tracks:
        walked = []
        for _sub, plan in _walk(timed_catalog, tr.id, minutes):
            lengths = [timed_catalog.post(p).minutes for p in plan.steps]
            assert plan.steps
            assert sum(lengths) <= minutes or len(lengths) == 1, (tr.id, lengths)
            walked += plan.steps
        order = timed_catalog.order(tr.id)  # QA round 8: steps without a link (and after one) wait
        end = plans[-1][1].cursor if (plans := _walk(timed_catalog, tr.id, minutes)) else 0
        assert walked == [p for p in order[:end] if timed_catalog.post(p).url is not None]


def test_a_channel_is_told_once_that_the_essential_path_is_done(timed_catalog) -> None:
    plans = _walk(timed_catalog, "spec", 30)
    told = [i for i, (_s, p) in enumerate(plans) if p.essentials_finished]
    assert len(told) == 1
    ess = set(paths.essentials(timed_catalog, "spec"))
    sent_until = {p for _s, plan in plans[: told[0] + 1] for p in plan.steps}
    assert ess <= sent_until and not ess <= {p for _s, plan in plans[: told[0]] for p in plan.steps}
    texts = []
    for sub, _plan in plans:
        digest = compose_channel_digest(timed_catalog, sub, lang="en")
        validate_blocks(digest.reply.blocks)
        texts.append(json.dumps(digest.reply.blocks))
    assert sum("every step of the essential path" in t for t in texts) == 1
    told_plan = plans[told[0]][1]
    listed = any(p not in ess for p in told_plan.steps)
    assert told_plan.cursor < told_plan.total
    promise = "More further reading follows" if listed else "Further reading follows"
    assert promise in texts[told[0]]


def test_a_digest_listing_further_reading_promises_only_more_of_it(timed_catalog) -> None:
    """QA: quant at 45 min a week listed steps 5-8 (further reading) and said "Further reading
    follows in the next digests" as if none had come yet."""
    ess = set(paths.essentials(timed_catalog, "quant"))
    for sub, plan in _walk(timed_catalog, "quant", 45):
        if not plan.essentials_finished:
            continue
        text = json.dumps(compose_channel_digest(timed_catalog, sub, lang="en").reply.blocks)
        listed = any(p not in ess for p in plan.steps)
        assert ("More further reading follows" in text) == (listed and plan.cursor < plan.total)
        assert ("Further reading follows" in text) == (not listed and plan.cursor < plan.total)


def test_a_digest_that_ends_the_path_promises_no_further_reading(timed_catalog) -> None:
    """One digest sending the whole path: nothing is left to follow, in either language."""
    sub = BudgetPreview(1, "quant", 0, 1, None, minutes_per_week=100_000, after_essentials="further")
    plan = plan_channel_digest(timed_catalog, sub)
    assert plan.essentials_finished and plan.cursor >= plan.total
    for lang, words in (("en", "follows in the next digests"), ("zh", "后续推荐继续推送")):
        text = json.dumps(compose_channel_digest(timed_catalog, sub, lang=lang).reply.blocks, ensure_ascii=False)
        assert "every step of the essential path" in text or "核心路径的每一步" in text
        assert words not in text


def test_a_channel_set_to_stop_gets_nothing_after_the_essential_path(timed_catalog) -> None:
    plans = _walk(timed_catalog, "spec", 30, after="stop")
    ess = set(paths.essentials(timed_catalog, "spec"))
    sent = [p for _s, plan in plans for p in plan.steps]
    assert ess <= set(sent) and len(sent) < len(timed_catalog.order("spec"))
    assert plans[-1][1].essentials_finished
    last = compose_channel_digest(timed_catalog, plans[-1][0], lang="zh")
    assert "推荐到此为止" in json.dumps(last.reply.blocks, ensure_ascii=False)


@pytest.mark.parametrize("minutes", [30, 60, 120])
def test_a_channel_set_to_stop_gets_no_further_step_in_the_week_it_finishes(repo_catalog, minutes: int) -> None:
    """QA: ``subscribe quant … 60m then stop`` sent two further-reading steps (no minutes) after
    the last essential step, in the same digest as the finish line."""
    for tr in repo_catalog.tracks:
        plans = _walk(repo_catalog, tr.id, minutes, after="stop")
        sent = [p for _s, plan in plans for p in plan.steps]
        ess = set(paths.essentials(repo_catalog, tr.id))
        assert ess <= set(sent), tr.id
        assert sent[-1] in ess, (tr.id, minutes, sent[-3:])
        assert plans[-1][1].essentials_finished and plans[-1][1].cursor == len(sent)


def test_the_readers_week_fits_the_budget_across_followed_tracks(timed_catalog) -> None:
    read: set[str] = set()
    weeks = 0
    while not all(paths.essentials_done(timed_catalog, t, read) for t in ("spec", "pd")):
        steps = plan_reader_week(timed_catalog, ["spec", "pd"], read, 40)
        lengths = [timed_catalog.post(p).minutes for _t, p in steps]
        assert steps and (sum(lengths) <= 40 or len(steps) == 1)
        assert not {p for _t, p in steps} & read
        read |= {p for _t, p in steps}
        weeks += 1
        assert weeks < 50
    assert plan_reader_week(timed_catalog, ["spec"], set(timed_catalog.order("spec")), 40) == ()


def test_a_linked_step_always_comes_before_one_without_a_link(repo_catalog) -> None:
    for tr in repo_catalog.tracks:
        read: set[str] = set()
        while (step := paths.next_step(repo_catalog, tr.id, read)) is not None:
            if repo_catalog.post(step.post).url is None:
                rest = [p for p in repo_catalog.order(tr.id) if p not in read]
                ready = [p for p in rest if all(a in read for a in repo_catalog.step(tr.id, p).after)]
                assert all(repo_catalog.post(p).url is None for p in ready), tr.id
            read.add(step.post)


def test_digest_preview_with_minutes_lists_what_fits() -> None:
    result = CliRunner().invoke(main, ["digest", "preview", "--track", "spec", "--minutes", "60", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    steps = out["steps"]
    assert steps and out["minutes_per_week"] == 60
    lengths = [budget.step_cost(s["minutes"]) for s in steps]
    assert sum(lengths) <= 60 or len(steps) == 1
    validate_blocks(out["blocks"])
    text = CliRunner().invoke(main, ["digest", "preview", "--track", "spec", "--minutes", "5"])
    assert text.exit_code == 0 and "steps this week: spec-decode;" in text.output


def test_the_reader_week_starts_on_the_step_next_would_give(repo_catalog) -> None:
    """(QA) The weekly DM and the course page's time plan listed a step before the step it must be
    read after when that one had no link yet; ``next`` waited for it. One rule now: for any reader
    of one track, the week's first step is :func:`paths.next_step`."""
    import random

    rng = random.Random(7)
    checked = 0
    for track in repo_catalog.tracks:
        order = repo_catalog.order(track.id)
        for _ in range(40):
            read = {p for p in order if rng.random() < rng.choice((0.2, 0.5, 0.8))}
            expected = paths.next_step(repo_catalog, track.id, read)
            week = plan_reader_week(repo_catalog, [track.id], read, 1)
            assert (week[0][1] if week else None) == (expected.post if expected else None), (track.id, sorted(read))
            checked += expected is not None
    assert checked > 100
