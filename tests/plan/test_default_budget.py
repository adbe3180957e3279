"""The default budget (issue 24): every essential path of the real catalog finishes within
FINISH_WEEKS at DEFAULT_MINUTES, a reader without a budget gets the steps that fit it, and the
fan-out's composer gives exactly the reference DM."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.domain import budget, paths
from bot.slack.views.digest_render import RENDERER
from bot.slack.views.plan_dm import BudgetDmComposer, budget_dm
from tests.standin.blockkit import validate_blocks


def test_every_essential_path_of_the_real_catalog_finishes_within_four_weeks_at_the_default(repo_catalog) -> None:
    for tr in repo_catalog.tracks:
        ess = paths.essentials(repo_catalog, tr.id)
        weeks = budget.weeks_to_finish([repo_catalog.post(p).minutes for p in ess], budget.DEFAULT_MINUTES)
        assert 1 <= weeks <= budget.FINISH_WEEKS, tr.id
    result = CliRunner().invoke(main, ["plan-weeks"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()  # the table; a catalog loaded from its files may warn on stderr
    assert len(lines) == len(repo_catalog.tracks), result.output
    assert all(f"at {budget.DEFAULT_MINUTES} min a week" in line for line in lines)


def test_a_reader_without_a_budget_gets_the_steps_that_fit_the_default(repo_catalog) -> None:
    reply = RENDERER.dm_digest(repo_catalog, ["spec"], set(), "en")
    assert reply is not None
    validate_blocks(reply.blocks)
    assert reply.blocks == budget_dm(repo_catalog, ["spec"], set(), budget.DEFAULT_MINUTES).blocks
    marked = [b for b in reply.blocks if b.get("accessory", {}).get("action_id", "").startswith("mark_read")]
    costs = [budget.step_cost(repo_catalog.post(p).minutes) for p in paths.essentials(repo_catalog, "spec")]
    assert len(marked) == budget.fit(costs, budget.DEFAULT_MINUTES) > 1


def _readers(catalog, n: int, seed: int):
    rng = random.Random(seed)
    ids = [t.id for t in catalog.tracks]
    for _ in range(n):
        follows = rng.sample(ids, rng.randint(0, len(ids)))
        read = {p for t in follows for p in catalog.order(t) if rng.random() < rng.random()}
        yield follows, read


@pytest.mark.parametrize("which", ["repo_catalog", "timed_catalog"])
def test_the_fan_out_composer_gives_the_reference_dm(which: str, request) -> None:
    catalog = request.getfixturevalue(which)
    composer = BudgetDmComposer(catalog, "zh" if which == "timed_catalog" else "en")
    lang = composer.lang
    for follows, read in _readers(catalog, 400, seed=len(which)):
        for minutes in (5, 30, budget.DEFAULT_MINUTES, 200, 600):
            want = budget_dm(catalog, follows, read, minutes, lang)
            got = composer.compose(follows, read, minutes)
            assert (want is None) == (got is None), (follows, minutes)
            if want is not None and got is not None:
                assert (got.blocks, got.text) == (want.blocks, want.text), (follows, minutes)
