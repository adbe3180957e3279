"""QA round 13, ``vllm-path stats`` (click's runner, real store): without ``--team`` it reports the
only workspace the database knows, else lists the known ones; a funnel stops after the last step
anyone reached and says how long the path is (not "5 → 5 → 5 → 0 → 0 → …")."""

from __future__ import annotations

from click.testing import CliRunner

from bot.cli.main import main
from bot.slack.commands.stats import team_insights
from bot.slack.views.insights import funnel_line

TEAM, OTHER = "TQA13", "TQA13B"


def test_stats_without_team_uses_the_only_workspace_and_the_funnel_is_cut(runtime, monkeypatch) -> None:
    catalog = runtime.holder.catalog
    order = catalog.order("spec")
    for user in ("U1", "U2", "U3", "U4", "U5"):
        runtime.store.mark_read(TEAM, user, list(order[:3]))
    monkeypatch.setenv("DATABASE_URL", runtime.store.engine.url.render_as_string(hide_password=False))
    result = CliRunner().invoke(main, ["stats"])
    assert result.exit_code == 0, result.output
    assert f"5 → 5 → 5 → 0 · no one past step 3 of {len(order)}" in result.stdout, result.stdout
    assert "→ 0 →" not in result.stdout and "0 …" not in result.stdout
    spec = next(f for f in team_insights(runtime, TEAM).funnels if f.track_id == "spec")
    zh = funnel_line(catalog, spec, "zh")
    assert f"5 → 5 → 5 → 0 · 没有人读到第 3 步之后（共 {len(order)} 步）" in zh
    runtime.store.mark_read(OTHER, "U1", [order[0]])
    several = CliRunner().invoke(main, ["stats"])
    assert several.exit_code == 2
    assert f"knows 2 workspaces: pass --team with one of {TEAM}, {OTHER}" in several.output
    named = CliRunner().invoke(main, ["stats", "--team", TEAM])
    assert named.exit_code == 0 and "5 → 5 → 5 → 0" in named.stdout


def test_a_funnel_through_the_whole_path_has_no_stop(runtime) -> None:
    catalog = runtime.holder.catalog
    order = catalog.order("quant")
    for user in ("U1", "U2", "U3", "U4"):
        runtime.store.mark_read(TEAM, user, list(order))
    quant = next(f for f in team_insights(runtime, TEAM).funnels if f.track_id == "quant")
    line = funnel_line(catalog, quant, "en")
    assert " → ".join(["4"] * len(order)) in line and "no one past" not in line
