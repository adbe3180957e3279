"""``vllm-path digest preview`` and ``vllm-path digest run-now`` (click's runner, real database,
real stand-in)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.schedule import WeeklySchedule
from bot.slack.views.digest import compose_channel_digest, preview_subscription
from bot.store import Store
from tests.dbutil import set_cursor
from tests.digest.conftest import TEAM
from tests.standin.blockkit import validate_blocks


def _env(db_url: str | None = None, standin=None) -> dict[str, str | None]:
    env: dict[str, str | None] = {
        "SLACK_CLIENT_ID": None,
        "SLACK_CLIENT_SECRET": None,
        "SLACK_APP_TOKEN": None,
        "SLACK_BOT_TOKEN": None,
        "SLACK_API_URL": None,
        "DATABASE_URL": db_url,
    }
    if standin is not None:
        env.update(SLACK_BOT_TOKEN="xoxb-test", SLACK_API_URL=standin.api_url)
    return env


def test_preview_json_is_the_first_digest_of_a_new_subscription(catalog, tmp_path) -> None:
    result = CliRunner().invoke(
        main,
        ["digest", "preview", "--track", "speculative decoding", "--steps", "2", "--json"],
        env=_env(f"sqlite:///{tmp_path}/none.db"),
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"text", "blocks"}
    validate_blocks(data["blocks"])
    expected = compose_channel_digest(catalog, preview_subscription("spec", 2)).reply
    assert data == {"text": expected.text, "blocks": expected.blocks}
    assert not (tmp_path / "none.db").exists()  # a preview opens no database


def test_preview_text_and_a_subscribed_channels_next_digest(catalog, sqlite_url) -> None:
    store = Store.from_url(sqlite_url)
    sub = store.subscribe(TEAM, "C1", "pd", WeeklySchedule.of(0, "09:00", "UTC"), steps_per_week=1)
    set_cursor(store, sub.id, 2, catalog.version)
    store.close()
    runner = CliRunner()
    text = runner.invoke(main, ["digest", "preview", "--track", "pd"], env=_env(sqlite_url))
    assert text.exit_code == 0 and "== PD disaggregated serving: this week's reading ==" in text.output
    nxt = runner.invoke(main, ["digest", "preview", "--track", "pd", "--channel", "C1", "--json"], env=_env(sqlite_url))
    assert nxt.exit_code == 0, nxt.output
    assert catalog.order("pd")[2] in json.dumps(json.loads(nxt.stdout)["blocks"])
    missing = runner.invoke(main, ["digest", "preview", "--track", "pd", "--channel", "C404"], env=_env(sqlite_url))
    assert missing.exit_code == 1
    unknown = runner.invoke(main, ["digest", "preview", "--track", "no such thing at all"], env=_env(sqlite_url))
    assert unknown.exit_code == 2


def test_run_now_sends_this_weeks_digests_once(sqlite_url, standin) -> None:
    store = Store.from_url(sqlite_url)
    store.subscribe(TEAM, "C1", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    store.subscribe(TEAM, "C2", "pd", WeeklySchedule.of(3, "18:00", "Asia/Tokyo"))
    store.subscribe(TEAM, "C3", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    store.close()
    runner = CliRunner()
    args = ["digest", "run-now", "--track", "spec", "--channel-interval", "0.01"]
    first = runner.invoke(main, args, env=_env(sqlite_url, standin))
    assert first.exit_code == 0, first.output
    assert "2 digest(s): sent 2" in first.output
    assert sorted(c.channel for c in standin.calls("chat.postMessage")) == ["C1", "C3"]
    again = runner.invoke(main, args, env=_env(sqlite_url, standin))
    assert again.exit_code == 0 and "already sent this week 2" in again.output and "taken" not in again.output
    everything = runner.invoke(main, ["digest", "run-now"], env=_env(sqlite_url, standin))
    assert "sent 1" in everything.output and len(standin.calls("chat.postMessage")) == 3


def test_run_now_reports_paused_subscriptions_and_needs_credentials(sqlite_url, standin) -> None:
    store = Store.from_url(sqlite_url)
    store.subscribe(TEAM, "CGONE", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    store.close()
    standin.configure(channel_errors={"CGONE": "channel_not_found"})
    result = CliRunner().invoke(main, ["digest", "run-now"], env=_env(sqlite_url, standin))
    assert result.exit_code == 1 and "paused 1" in result.output
    no_token = CliRunner().invoke(main, ["digest", "run-now"], env=_env(sqlite_url))
    assert no_token.exit_code == 2 and "no Slack credentials" in no_token.output
