"""Events API payload builders are valid against Slack's published schemas; broken ones are not."""

from __future__ import annotations

import pytest

from tests.contract.events import (
    EventPayloadError,
    app_home_opened,
    app_uninstalled,
    event_payload_errors,
    link_shared,
    tokens_revoked,
    url_verification,
    validate_event_payload,
)


@pytest.mark.parametrize("build", [app_home_opened, app_uninstalled, tokens_revoked, link_shared, url_verification])
def test_builders_produce_valid_payloads(build):
    validate_event_payload(build())


def test_app_home_opened_has_the_fields_slack_sends():
    p = app_home_opened(user="U123", tab="messages")
    assert p["type"] == "event_callback"
    assert set(p) >= {
        "token",
        "team_id",
        "api_app_id",
        "event",
        "event_id",
        "event_time",
        "authorizations",
        "event_context",
    }
    assert set(p["event"]) == {"type", "user", "channel", "event_ts", "tab"}
    assert p["authorizations"][0]["is_bot"] is True
    with_view = app_home_opened(view={"type": "home", "blocks": []})
    validate_event_payload(with_view)
    assert with_view["event"]["view"]["type"] == "home"


def test_event_ids_are_unique_per_payload():
    assert app_home_opened()["event_id"] != app_home_opened()["event_id"]


def test_missing_event_id_is_rejected():
    with pytest.raises(EventPayloadError, match="'event_id' is a required property"):
        validate_event_payload(app_home_opened(omit=("event_id",)))


def test_wrong_wrapper_type_is_rejected():
    with pytest.raises(EventPayloadError, match="event_callback"):
        validate_event_payload(app_home_opened(type="event"))


def test_misspelled_event_type_is_rejected():
    payload = app_home_opened()
    payload["event"]["type"] = "app_home_open"
    with pytest.raises(EventPayloadError, match="neither a topic"):
        validate_event_payload(payload)


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda p: p["event"].update(tab="profile"), "'profile' is not one of"),
        (lambda p: p["event"].pop("user"), "'user' is a required property"),
        (lambda p: p["event"].pop("event_ts"), "'event_ts' is a required property"),
        (lambda p: p.update(event_time="1700000000"), "is not of type 'integer'"),
        (lambda p: p.update(authorizations=[]), "should be non-empty"),
        (lambda p: p.pop("event_context"), "'event_context' is a required property"),
        (lambda p: p.pop("team_id"), "'team_id' is a required property"),
    ],
)
def test_broken_app_home_opened_is_rejected(mutate, needle):
    payload = app_home_opened()
    mutate(payload)
    errors = event_payload_errors(payload)
    assert any(needle in e for e in errors), errors


def test_tokens_revoked_needs_tokens():
    payload = tokens_revoked(oauth=["U1"], bot=[])
    validate_event_payload(payload)
    del payload["event"]["tokens"]
    with pytest.raises(EventPayloadError, match="'tokens' is a required property"):
        validate_event_payload(payload)


def test_url_verification_needs_a_challenge():
    with pytest.raises(EventPayloadError, match="challenge"):
        validate_event_payload({"token": "t", "type": "url_verification"})


def test_non_object_payload_is_rejected():
    with pytest.raises(EventPayloadError):
        validate_event_payload([app_home_opened()])
