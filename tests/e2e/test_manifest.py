"""manifest.yaml parses and matches the code: the command, the events, the one request URL, scopes."""

from __future__ import annotations

import re

import pytest
import yaml

from bot.config import REPO_ROOT, Settings
from bot.doors.serve import EVENTS_PATH
from tests.standin import (
    SLASH_COMMAND,
    app_home_opened_event,
    event_body,
    link_shared_event,
    slash_command_body,
)
from tests.waits import PATIENCE_S

MANIFEST = REPO_ROOT / "manifest.yaml"
LISTENERS = REPO_ROOT / "bot" / "slack" / "listeners"


@pytest.fixture(scope="module")
def manifest() -> dict:
    return yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))


def _path(url: str) -> str:
    return re.sub(r"^https://[^/]+", "", url)


def test_manifest_names_the_slash_command(manifest):
    (command,) = manifest["features"]["slash_commands"]
    assert command["command"] == SLASH_COMMAND
    assert command["should_escape"] is False
    assert command["description"] and command["usage_hint"]
    assert _path(command["url"]) == EVENTS_PATH


def test_every_url_is_the_one_events_path(manifest):
    s = manifest["settings"]
    assert s["interactivity"]["is_enabled"] is True
    assert _path(s["interactivity"]["request_url"]) == EVENTS_PATH
    assert _path(s["event_subscriptions"]["request_url"]) == EVENTS_PATH
    assert s["socket_mode_enabled"] is False
    assert _path(manifest["oauth_config"]["redirect_urls"][0]) == "/slack/oauth_redirect"


def test_app_home_and_bot_user(manifest):
    home = manifest["features"]["app_home"]
    assert home["home_tab_enabled"] is True and home["messages_tab_enabled"] is True
    assert manifest["features"]["bot_user"]["display_name"]
    assert manifest["display_information"]["name"]


def test_scopes_match_the_settings_default(manifest):
    default = Settings.model_fields["slack_scopes"].default
    assert manifest["oauth_config"]["scopes"]["bot"] == default.split(",")


def test_events_match_the_listeners_in_the_code(manifest):
    source = "\n".join(p.read_text(encoding="utf-8") for p in LISTENERS.glob("*.py"))
    registered = set(re.findall(r"""\.event\(\s*["']([a-z_]+)["']""", source))
    assert registered, "no app.event(...) listeners found"
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == registered


def test_the_app_handles_what_the_manifest_subscribes(manifest, tmp_path):
    """Each subscribed event and the command reach a listener (Bolt answers 404 when none does)."""
    from slack_bolt.request import BoltRequest

    from bot.doors.console import console_settings, open_console

    settings = console_settings(Settings(_env_file=None, database_url=f"sqlite:///{tmp_path}/m.db"))
    events = {
        "app_home_opened": app_home_opened_event("U1"),
        "app_uninstalled": {"type": "app_uninstalled"},
        "tokens_revoked": {"type": "tokens_revoked", "tokens": {"bot": ["U0BOT"]}},
        "link_shared": link_shared_event(["https://yomu.fyi/nothing-here"]),
        "reaction_added": {
            "type": "reaction_added",
            "user": "U1",
            "reaction": "white_check_mark",
            "item": {"type": "message", "channel": "C1", "ts": "1.000001"},
        },
    }
    with open_console(settings, strict=True) as console:  # the stand-in checks every call and reply
        for name in manifest["settings"]["event_subscriptions"]["bot_events"]:
            body = event_body(events[name], team_id="T9").decode()
            resp = console.app.dispatch(BoltRequest(body=body, headers={"content-type": ["application/json"]}))
            assert resp.status == 200, name
        console.standin.wait_for_call("views.publish", timeout=PATIENCE_S)  # before the stand-in closes
        command = manifest["features"]["slash_commands"][0]["command"]
        url = console.standin.response_url()
        body = slash_command_body("help", command=command, response_url=url).decode()
        resp = console.app.dispatch(
            BoltRequest(body=body, headers={"content-type": ["application/x-www-form-urlencoded"]})
        )
        assert resp.status == 200
        if resp.body:  # answered in the ack: Slack shows it
            console.standin.answer_ack(url, resp.body.encode())
        console.standin.wait_for_response(url, timeout=PATIENCE_S)


def test_unfurl_domains_match_the_catalog(manifest):
    """Every host whose links we resolve is an unfurl domain, and no other."""
    from bot.domain.catalog import load_catalog
    from bot.domain.links import unfurl_domains

    catalog = load_catalog(REPO_ROOT / "catalog")
    assert set(manifest["features"]["unfurl_domains"]) == set(unfurl_domains(catalog))
    bot_scopes = manifest["oauth_config"]["scopes"]["bot"]
    assert "links:read" in bot_scopes and "links:write" in bot_scopes


def test_procfile_runs_the_two_processes():
    lines = dict(line.split(":", 1) for line in (REPO_ROOT / "Procfile").read_text().strip().splitlines())
    assert lines["web"].strip() == "vllm-path serve --host 0.0.0.0 --port $PORT"
    # the clock fetches the catalog's feeds hourly unless told otherwise (issue 41: a new post before a
    # curator within the hour); tests and local runs leave CATALOG_SOURCES_EVERY_S unset: no fetch
    assert lines["clock"].strip() == "CATALOG_SOURCES_EVERY_S=${CATALOG_SOURCES_EVERY_S:-3600} vllm-path scheduler"


def test_org_wide_installs_are_offered_where_the_manifest_enables_them(manifest):
    """Issue 25: the README offers org-wide installs on Enterprise Grid, so the manifest enables
    org deploy, and the README says how distribution to other workspaces is turned on."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert manifest["settings"]["org_deploy_enabled"] is True
    assert "org-wide" in readme and "### Public distribution and Grid org deploy" in readme
    section = readme.split("### Public distribution and Grid org deploy", 1)[1].split("\n## ", 1)[0]
    for words in (
        "Manage Distribution",
        "Activate Public Distribution",
        "org_deploy_enabled: true",
        "/slack/install",
        "Organization",
    ):
        assert words in section, words
