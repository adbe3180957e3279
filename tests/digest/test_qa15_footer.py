"""QA round 15: a channel digest of spec at 60 minutes a week said "17 of 17 steps so far" in its
footer beside "1 step of this path waits for a link" (the preview's trailer too: "17 of 17 sent
after it"): a step waiting for a link is not counted as sent, and the footer says it waits. Real
catalog; the CLI with a real SQLite store and the Slack stand-in."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.catalog import Catalog
from bot.domain.plan import BudgetPreview, plan_channel_digest
from bot.slack.views.digest import compose_channel_digest
from tests.digest.test_cli import _env

FOOTER = re.compile(r"(\d+) of (\d+) steps so far(?: \((\d+) waits? for a link\))?")


def _footer(blocks: list[dict]) -> str:
    return json.dumps(blocks[-1], ensure_ascii=False)


def test_the_footer_counts_only_the_steps_sent_and_says_what_waits(catalog: Catalog) -> None:
    unlinked = {p for p in catalog.order("spec") if catalog.post(p).url is None}
    assert unlinked  # the tester's case: spec has a step without a link (catalog 2026.12.x)
    sub, sent, seen_waiting = BudgetPreview(0, "spec", 0, 1, None, minutes_per_week=60), [], False
    for _ in range(40):
        week = compose_channel_digest(catalog, sub)
        if week.reply is None:
            break
        sent += week.steps
        found = FOOTER.search(_footer(week.reply.blocks))
        assert found, _footer(week.reply.blocks)
        assert int(found.group(1)) == len(sent), (found.group(0), len(sent))  # never a step not sent
        plan = plan_channel_digest(catalog, sub)
        if plan.waiting:
            seen_waiting = True
            assert int(found.group(3) or 0) == plan.waiting, found.group(0)
        sub = replace(sub, cursor=week.cursor, last_catalog_version=week.version)
    assert seen_waiting and len(sent) == len(catalog.order("spec")) - len(unlinked)


def test_the_preview_trailer_counts_a_step_waiting_for_a_link_as_not_sent(
    catalog: Catalog, sqlite_url, standin
) -> None:
    runner = CliRunner()
    env = _env(sqlite_url, standin)
    said = runner.invoke(main, ["ask", "subscribe spec monday 09:00 Europe/Berlin 60m"], env=env)
    assert said.exit_code == 0, said.output
    total = len(catalog.order("spec"))
    linked = total - sum(1 for p in catalog.order("spec") if catalog.post(p).url is None)
    for _ in range(3):
        preview = runner.invoke(main, ["digest", "preview", "--track", "spec", "--channel", "C0CONSOLE"], env=env)
        assert preview.exit_code == 0, preview.output
        found = re.search(r"(\d+) of (\d+) steps of the path sent after it", preview.output)
        assert found and int(found.group(2)) == total, preview.output
        assert int(found.group(1)) <= linked, found.group(0)  # was "17 of 17" with one waiting
        footer = FOOTER.search(preview.output)
        assert footer and footer.group(1) == found.group(1), preview.output
        ran = runner.invoke(main, ["digest", "run-now", "--track", "spec", "--channel-interval", "0.01"], env=env)
        assert ran.exit_code == 0, ran.output
    assert f"{linked} of {total} steps of the path sent after it" in preview.output
    assert f"{linked} of {total} steps so far (" in preview.output
