"""Tests of the spec adaptation itself (no Prism needed)."""

from __future__ import annotations

import copy
import hashlib
import json

import jsonschema
import pytest

from tests.contract.adapt_spec import (
    FORM,
    JSON,
    SPEC_DIR,
    WEB_SPEC_PATH,
    adapt_web_spec,
    load_web_spec,
    write_adapted_spec,
)

VENDORED_SHA256 = {
    "slack_web_openapi_v2.json": "742a5c977180a829df8767cf57bc417d99b3713583aee83741efb9c08ca731e7",
    "slack_events_api_async_v1.json": "a491c82393abf9ef1aa38334cf71c747fbc2ea7a2b78533882ea24c888fe84be",
    "slack_common_event_wrapper_schema.json": "f6d1704676f4866fc62704086a916dd4c3d9f53a570b9e2976a80450e641d05a",
    "LICENSE": "5fca42e1431e247c120ab9c787ff16a26a538633852821e4865d05fe4cfea98e",
}
GET_ONLY_USED_BY_APP = ["auth.test", "users.info", "conversations.info", "views.publish"]


@pytest.fixture(scope="module")
def original():
    return load_web_spec()


@pytest.fixture(scope="module")
def adapted(original):
    return adapt_web_spec(original)


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", sorted(VENDORED_SHA256))
def test_vendored_spec_files_are_byte_identical_to_slacks(name):
    assert _sha256(SPEC_DIR / name) == VENDORED_SHA256[name]


def test_adaptation_changes_neither_the_file_nor_the_loaded_dict(original, tmp_path):
    before_file = _sha256(WEB_SPEC_PATH)
    before_dict = copy.deepcopy(original)
    adapt_web_spec(original)
    write_adapted_spec(tmp_path / "out.json")
    assert original == before_dict
    assert _sha256(WEB_SPEC_PATH) == before_file
    assert json.loads((tmp_path / "out.json").read_text())["openapi"] == "3.1.0"


def test_every_method_is_kept_under_the_api_base_path(original, adapted):
    assert len(original["paths"]) == 174
    assert sorted(adapted["paths"]) == sorted("/api" + p for p in original["paths"])


@pytest.mark.parametrize("method", GET_ONLY_USED_BY_APP)
def test_get_only_methods_gain_a_post_mirroring_the_get(original, adapted, method):
    assert list(original["paths"][f"/{method}"]) == ["get"]
    ops = adapted["paths"][f"/api/{method}"]
    assert set(ops) == {"get", "post"}
    query = {p["name"] for p in original["paths"][f"/{method}"]["get"]["parameters"] if p["in"] == "query"}
    for media in (FORM, JSON):
        props = ops["post"]["requestBody"]["content"][media]["schema"]["properties"]
        assert query <= set(props)
    assert ops["post"]["security"] == ops["get"]["security"]


def test_views_publish_post_keeps_user_id_and_view_required(adapted):
    body = adapted["paths"]["/api/views.publish"]["post"]["requestBody"]
    assert body["required"] is True
    for media in (FORM, JSON):
        assert body["content"][media]["schema"]["required"] == ["user_id", "view"]


def _required_args(op):
    """(location, name) of the required non-token arguments of an adapted operation."""
    out = {(p["in"], p["name"]) for p in op.get("parameters", []) if p.get("required")}
    for media, content in op.get("requestBody", {}).get("content", {}).items():
        out |= {(media, n) for n in content["schema"].get("required", [])}
    return out


def test_token_is_never_required_but_security_remains(adapted):
    for path, ops in adapted["paths"].items():
        for method, op in ops.items():
            assert ("header", "token") not in _required_args(op) and ("query", "token") not in _required_args(op)
            for media in (FORM, JSON):
                assert "token" not in {n for m, n in _required_args(op) if m == media}, (path, method)
            assert op["security"], (path, method)
    scheme = adapted["components"]["securitySchemes"]["slackAuth"]
    assert scheme["type"] == "oauth2"
    assert "chat:write:bot" in scheme["flows"]["authorizationCode"]["scopes"]


def test_every_methods_required_arguments_are_preserved(original, adapted):
    for path, ops in original["paths"].items():
        for method, op in ops.items():
            want = {p["name"] for p in op["parameters"] if p.get("required") and p["name"] != "token"}
            body_in = "formData"
            new = adapted["paths"]["/api" + path][method]
            got = {n for _m, n in _required_args(new)}
            assert got == want, (path, method)
            if any(p["in"] == body_in for p in op["parameters"]):
                form = set(new["requestBody"]["content"][FORM]["schema"].get("required", []))
                js = set(new["requestBody"]["content"][JSON]["schema"].get("required", []))
                assert (
                    form
                    == js
                    == {
                        p["name"]
                        for p in op["parameters"]
                        if p["in"] == body_in and p.get("required") and p["name"] != "token"
                    }
                )


def test_post_bodies_accept_form_and_json(adapted):
    for path, ops in adapted["paths"].items():
        if "post" in ops and "requestBody" in ops["post"]:
            assert set(ops["post"]["requestBody"]["content"]) == {FORM, JSON}, path


def test_json_bodies_take_blocks_as_array_and_form_bodies_as_string(adapted):
    content = adapted["paths"]["/api/chat.postMessage"]["post"]["requestBody"]["content"]
    json_schema, form_schema = content[JSON]["schema"], content[FORM]["schema"]
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "hi"}}]
    jsonschema.validate({"channel": "C1", "blocks": blocks}, json_schema)
    jsonschema.validate({"channel": "C1", "blocks": json.dumps(blocks)}, json_schema)
    jsonschema.validate({"channel": "C1", "blocks": json.dumps(blocks)}, form_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"channel": "C1", "blocks": blocks}, form_schema)
    with pytest.raises(jsonschema.ValidationError, match="'channel' is a required property"):
        jsonschema.validate({"text": "hi"}, json_schema)
    view = adapted["paths"]["/api/views.publish"]["post"]["requestBody"]["content"][JSON]["schema"]
    jsonschema.validate({"user_id": "U1", "view": {"type": "home", "blocks": []}}, view)


def test_form_booleans_accept_slack_sdks_1_and_0(adapted):
    form = adapted["paths"]["/api/users.info"]["post"]["requestBody"]["content"][FORM]["schema"]
    for value in ("1", "0", "true", "false", True):
        jsonschema.validate({"user": "U1", "include_locale": value}, form)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"user": "U1", "include_locale": "yes"}, form)
    js = adapted["paths"]["/api/users.info"]["post"]["requestBody"]["content"][JSON]["schema"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"user": "U1", "include_locale": "1"}, js)


def test_success_examples_say_ok_true(adapted):
    for path, ops in adapted["paths"].items():
        for method, op in ops.items():
            assert op["responses"]["200"]["content"][JSON]["example"]["ok"] is True, (path, method)


def test_definitions_moved_to_components_and_refs_follow(adapted):
    text = json.dumps(adapted)
    assert "#/definitions/" not in text
    assert "defs_ok_true" in adapted["components"]["schemas"]
    assert '"$ref": "#/components/schemas/defs_ok_true"' in text


def test_argument_less_post_methods_still_accept_a_body(adapted):
    body = adapted["paths"]["/api/auth.test"]["post"]["requestBody"]
    assert body["required"] is False
    for media in (FORM, JSON):
        schema = body["content"][media]["schema"]
        assert set(schema["properties"]) == {"token"} and "required" not in schema
