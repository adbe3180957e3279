"""Adapt Slack's published Web API spec so that Stoplight Prism can validate what slack-sdk sends.

Source: ``spec/slack_web_openapi_v2.json`` -- Slack's own Swagger/OpenAPI 2.0 description of the
Web API (slackapi/slack-api-specs, MIT, see ``spec/LICENSE``). The file is never modified: every
function here works on a deep copy and :func:`write_adapted_spec` writes the result elsewhere.

The spec is from 2020 and disagrees with what slack-sdk (3.x) puts on the wire; the project's notes
(``docs/slack-contract.md``) list points
(a)-(d), and measuring Prism 5.14.2 against slack-sdk 3.48 found (e). Each adaptation is generic --
applied to every operation by rule, never to a hand-picked list -- so the contract stays Slack's:

(a) **token** -- every operation declares a ``token`` parameter (header, query or form) and most
    mark it required; slack-sdk sends ``Authorization: Bearer xoxb-...`` instead. We keep the
    parameter but make it optional, and every POST body may carry an optional ``token`` field (as
    Slack allows) -- which also gives argument-less methods such as auth.test a body schema, since
    Prism answers 415 to any non-empty body on an operation that declares none. Authentication is
    still enforced: the spec's ``slackAuth`` oauth2 security scheme (kept, with its scopes) makes
    Prism answer **401** when a request carries no ``Authorization: Bearer`` header (measured), so
    no extra apiKey scheme is needed.

(b) **GET-only methods** -- 80 operations (auth.test, users.info, conversations.info,
    views.publish, ...) are declared ``get`` only. slack-sdk POSTs every call (its urllib client
    ignores ``http_verb``; ``users_info`` and ``conversations_info`` say GET and still POST a
    form body). We add a ``post`` operation that mirrors the GET: the GET's query parameters
    become body fields with the same names, types and ``required`` flags. The GET stays.

(c) **Bodies are declared form-encoded only** -- arguments are ``in: formData`` parameters, and
    Prism 5.14.2 turns those into an ``application/x-www-form-urlencoded`` body only: a JSON body
    gets **415** even where the operation's ``consumes`` lists ``application/json``. slack-sdk posts
    JSON for chat.postMessage, chat.update, chat.postEphemeral, views.publish, chat.unfurl and
    form bodies for the rest. Swagger 2.0 cannot say "this body may be a form *or* JSON": a body
    may be ``in: body`` (one schema, JSON only -- measured: Prism then validates JSON, e.g. 422 for
    a missing ``channel``, but refuses form bodies with 415) *or* ``in: formData`` (form only),
    never both (measured: with both declared Prism keeps only the JSON one). OpenAPI 3 can:
    ``requestBody.content`` maps each media type to a schema. **So we convert the document to
    OpenAPI 3.1** (3.1 rather than 3.0 because Slack's schemas use JSON-Schema type arrays such as
    ``["null", "string"]``, which 3.1 allows) and give every POST a request body with both
    ``application/x-www-form-urlencoded`` and ``application/json``, each an object schema with the
    method's fields and its ``required`` list. The conversion is mechanical: definitions move to
    ``components/schemas``, parameters get a ``schema``, responses get ``content``, the oauth2
    ``accessCode`` flow becomes ``authorizationCode``.

(d) **JSON-in-a-string arguments** -- ``blocks``, ``attachments``, ``view``, ``unfurls``,
    ``profile`` ... are declared ``type: string`` ("a JSON-based array ..., presented as a
    URL-encoded string"). That is right for a form body, but in a JSON body slack-sdk sends the
    array/object itself. In the JSON media type only, every string field whose description
    mentions JSON accepts a string, an array or an object. There is no Block Kit schema in the
    spec; ``bot/slack/blockkit.py`` checks block payloads separately.

(e) **Booleans in form bodies** -- slack-sdk turns ``True``/``False`` into ``"1"``/``"0"`` in form
    bodies (``convert_bool_to_0_or_1``), which Slack accepts. Prism coerces ``"true"``/``"false"``
    to booleans but not ``"1"``/``"0"`` (measured: 422 "must be boolean" for ``users.info`` with
    ``include_locale=1``). In the form media type only, boolean fields also accept those strings.

Also:

* **basePath** -- Prism 5.14.2 ignores Swagger's ``basePath: /api`` when routing (``/api/auth.test``
  got 404, ``/auth.test`` matched), so paths are prefixed with it: the mock then answers on the
  same ``/api/<method>`` URLs as slack.com and ``WebClient(base_url=<mock>/api/)`` works.
* **Success examples** -- Prism (static mode, no ``--dynamic``) answers a valid request with the
  200 response's example. All but one (oauth.access) already contain ``"ok": true``; we set it
  where missing so slack-sdk never raises on a valid call. Examples are otherwise Slack's.

Not adapted, on purpose: request bodies allow fields the 2020 spec does not list (the schemas are
open, as in the original) -- newer arguments such as ``metadata`` must not fail the suite; and
Slack's own examples sometimes violate Slack's own response schemas (e.g. chat.postMessage's
``message.attachments[0].text``): Prism reports those as ``response`` violations in the
``sl-violations`` header, which the recording proxy keeps but does not fail on.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SPEC_DIR = HERE / "spec"
WEB_SPEC_PATH = SPEC_DIR / "slack_web_openapi_v2.json"

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
TOKEN = "token"
FORM_BOOLEANS = ("1", "0", "true", "false")

_SCHEMA_KEYS = (
    "type",
    "format",
    "items",
    "enum",
    "default",
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "description",
)


def load_web_spec(path: Path | str = WEB_SPEC_PATH) -> dict[str, Any]:
    """Read Slack's Web API spec (Swagger 2.0) from ``path``; the file is only read."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _rewrite_refs(node: Any) -> Any:
    """Point Swagger ``#/definitions/X`` references at OpenAPI 3 ``#/components/schemas/X``."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/definitions/"):
                out[key] = "#/components/schemas/" + value[len("#/definitions/") :]
            else:
                out[key] = _rewrite_refs(value)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v) for v in node]
    return node


def _param_schema(param: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema of a Swagger 2.0 non-body parameter (its type, format, items...)."""
    return {k: copy.deepcopy(param[k]) for k in _SCHEMA_KEYS if k in param}


def _is_json_string(param: dict[str, Any]) -> bool:
    """A string argument that holds JSON (blocks, attachments, view, ...): adaptation (d)."""
    return param.get("type") == "string" and "json" in param.get("description", "").lower()


def _body_schema(fields: list[dict[str, Any]], *, media_type: str) -> dict[str, Any]:
    """An object schema with one property per field; ``required`` is the fields' required flags.

    For JSON bodies, JSON-holding string fields also accept the array or object itself (d); for
    form bodies, boolean fields also accept ``"1"``/``"0"`` (e).
    """
    properties: dict[str, Any] = {}
    for field in fields:
        schema = _param_schema(field)
        if media_type == JSON and _is_json_string(field):
            schema = {
                "description": field.get("description", ""),
                "anyOf": [{"type": "string"}, {"type": "array"}, {"type": "object"}],
            }
        elif media_type == FORM and field.get("type") == "boolean":
            schema = {
                "description": field.get("description", ""),
                "anyOf": [{"type": "boolean"}, {"type": "string", "enum": list(FORM_BOOLEANS)}],
            }
        properties[field["name"]] = schema
    body: dict[str, Any] = {"type": "object", "properties": properties}
    required = [f["name"] for f in fields if f.get("required")]
    if required:
        body["required"] = required
    return body


def _request_body(fields: list[dict[str, Any]]) -> dict[str, Any]:
    """A request body accepted both form-encoded and as JSON (adaptation c)."""
    return {
        "required": any(f.get("required") for f in fields),
        "content": {
            FORM: {"schema": _body_schema(fields, media_type=FORM)},
            JSON: {"schema": _body_schema(fields, media_type=JSON)},
        },
    }


def _parameter(param: dict[str, Any]) -> dict[str, Any]:
    """A Swagger 2.0 query/header/path parameter as an OpenAPI 3 parameter."""
    out = {"name": param["name"], "in": param["in"], "schema": _param_schema(param)}
    if "description" in param:
        out["description"] = param["description"]
    if param.get("required"):
        out["required"] = True
    return out


def _responses(responses: dict[str, Any]) -> dict[str, Any]:
    """Swagger 2.0 responses (schema + examples) as OpenAPI 3 responses (content)."""
    out = {}
    for code, resp in responses.items():
        media: dict[str, Any] = {}
        if "schema" in resp:
            media["schema"] = resp["schema"]
        example = resp.get("examples", {}).get(JSON)
        if example is not None:
            if str(code).startswith("2") and isinstance(example, dict) and "ok" not in example:
                example = {"ok": True, **example}
            media["example"] = example
        out[code] = {"description": resp.get("description", ""), "content": {JSON: media}}
    return out


def _operation(op: dict[str, Any], *, is_post: bool, fields_from_query: bool = False) -> dict[str, Any]:
    """One Swagger 2.0 operation as OpenAPI 3, with ``token`` optional (a).

    ``fields_from_query`` builds the POST mirror of a GET-only method (b): the GET's query
    parameters become body fields. Otherwise formData parameters become body fields.
    """
    params = [dict(p) for p in op.get("parameters", [])]
    for p in params:
        if p["name"] == TOKEN:
            p["required"] = False
    body_in = "query" if fields_from_query else "formData"
    fields = [p for p in params if p["in"] in (body_in, "formData")]
    others = [p for p in params if p not in fields and p["in"] != "body"]
    if is_post and not any(f["name"] == TOKEN for f in fields):
        # Slack takes `token` as a body field on every method; it also gives every POST a body
        # schema, so an argument-less method (auth.test) still accepts a form or JSON body
        # instead of Prism's 415 "No supported content types".
        fields.append(
            {
                "name": TOKEN,
                "in": "formData",
                "type": "string",
                "description": "Authentication token (slack-sdk sends a Bearer header instead).",
            }
        )
    out = {k: op[k] for k in ("operationId", "description", "tags", "externalDocs", "security") if k in op}
    if fields_from_query and "operationId" in out:
        out["operationId"] += "_post"
    if others:
        out["parameters"] = [_parameter(p) for p in others]
    if fields and is_post:
        out["requestBody"] = _request_body(fields)
    out["responses"] = _responses(op["responses"])
    return out


def _security_schemes(definitions: dict[str, Any]) -> dict[str, Any]:
    """Swagger 2.0 securityDefinitions as OpenAPI 3 securitySchemes (oauth2 flows renamed)."""
    flow_names = {
        "accessCode": "authorizationCode",
        "implicit": "implicit",
        "password": "password",
        "application": "clientCredentials",
    }
    out = {}
    for name, sd in definitions.items():
        if sd.get("type") == "oauth2":
            flow = {k: sd[k] for k in ("authorizationUrl", "tokenUrl") if k in sd}
            flow["scopes"] = sd.get("scopes", {})
            out[name] = {"type": "oauth2", "flows": {flow_names[sd["flow"]]: flow}}
        else:
            out[name] = copy.deepcopy(sd)
    return out


def adapt_web_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """Return an OpenAPI 3.1 copy of Slack's Swagger 2.0 ``spec`` adapted as the module says.

    ``spec`` itself is left untouched.
    """
    src = _rewrite_refs(copy.deepcopy(spec))
    base = src.get("basePath", "").rstrip("/")
    paths: dict[str, Any] = {}
    for path, ops in src["paths"].items():
        new_ops = {}
        for method, op in ops.items():
            new_ops[method] = _operation(op, is_post=method == "post")
        if "get" in ops and "post" not in ops:
            new_ops["post"] = _operation(ops["get"], is_post=True, fields_from_query=True)
        paths[base + path] = new_ops
    return {
        "openapi": "3.1.0",
        "info": src["info"],
        "externalDocs": src.get("externalDocs", {}),
        "servers": [{"url": f"{(src.get('schemes') or ['https'])[0]}://{src.get('host', 'slack.com')}"}],
        "tags": src.get("tags", []),
        "paths": paths,
        "components": {
            "schemas": src.get("definitions", {}),
            "securitySchemes": _security_schemes(src.get("securityDefinitions", {})),
        },
        "x-adapted-from": {
            "file": "slack_web_openapi_v2.json",
            "by": "tests/contract/adapt_spec.py (see its docstring)",
        },
    }


def write_adapted_spec(dest: Path | str, source: Path | str = WEB_SPEC_PATH) -> Path:
    """Load ``source``, adapt it and write the result to ``dest`` (a file path); return ``dest``."""
    dest = Path(dest)
    dest.write_text(json.dumps(adapt_web_spec(load_web_spec(source)), indent=1), encoding="utf-8")
    return dest


if __name__ == "__main__":  # python tests/contract/adapt_spec.py OUT.json -- to look at it / run Prism by hand
    import sys

    print(write_adapted_spec(sys.argv[1] if len(sys.argv) > 1 else "slack_web_openapi3_adapted.json"))
