"""What a reply must satisfy whatever the input: valid Block Kit within Slack's limits, and no live
syntax the app did not mean to send.

:func:`check_message` / :func:`check_view` raise :class:`Unsafe` naming the rule and the text.

Rules (Slack's mrkdwn, https://docs.slack.dev/messaging/formatting-message-text, and the text
object's ``verbatim`` field in Slack's Block Kit reference):

* Every ``<`` in a mrkdwn text object or in the top-level ``text`` opens a link the app built
  from the catalog — ``<https://…|label>`` whose URL is one of ``allowed_urls`` — or a channel
  reference ``<#C…>`` to one of ``allowed_channels``. Nothing else: no ``<!channel>``,
  ``<!here>``, ``<!everyone>``, ``<@U…>``, ``<!subteam^…>``, ``<url>`` of a URL the catalog does
  not hold.
* ``&`` only starts ``&amp;``, ``&lt;`` or ``&gt;`` (user and catalog text is escaped).
* A mrkdwn text object that is not ``verbatim`` is auto-parsed by Slack (URLs become links,
  channel names become channel links, some mentions are parsed): it must then hold no bare URL,
  no ``#name`` and no ``@name``. (The app sends ``verbatim: true``, so this holds trivially.)
* The top-level ``text`` (the notification fallback) holds no bare ``http(s)://`` URL other than
  an allowed one.
* Block Kit: :func:`tests.standin.blockkit.validate_blocks` (slack-sdk's model validation plus the
  limits it leaves out), non-empty texts, fallback text 1..4,000 characters, ``response_type``
  ``ephemeral`` or ``in_channel``, a JSON body that encodes as UTF-8, a view ≤ 250 kB.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tests.standin.blockkit import BlockKitError, validate_blocks

MAX_TOP_TEXT = 4000
MAX_VIEW_BYTES = 250_000

_LINK = re.compile(r"<(https?://[^\s|<>]+)\|([^<>]*)>")
_CHANNEL = re.compile(r"<#([CG][A-Z0-9]{2,30})(?:\|[^<>]*)?>")
_ENTITY = re.compile(r"&(?!(?:amp|lt|gt);)")
_BARE_URL = re.compile(r"(?i)\b(?:https?|ftp)://[^\s<>]*")
_WWW = re.compile(r"(?i)(?<![\w.])www\.[a-z0-9-]+\.[a-z]")
_AT = re.compile(r"(?<![\w])@[\w.-]")
_HASH_NAME = re.compile(r"(?<![\w&])#[\w-]")


class Unsafe(AssertionError):
    """A reply breaks one of the rules; the message names the rule and shows the text."""


def allowed_urls_of(catalog: Any) -> set[str]:
    """Every URL the catalog holds: post URLs (absolute), external prerequisites' URLs, and the
    blog's archive page (the manifest's ``archive_url``, linked for a post without a URL)."""
    urls = {catalog.url_of(p) for p in catalog.posts} | {catalog.manifest.archive_url}
    for track in catalog.tracks:
        for step in track.steps:
            urls.update(x.url for x in step.external_prerequisites)
    return {u.replace("|", "%7C") for u in urls if u}


def iter_text_objects(blocks: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every text object (``{"type": "mrkdwn"|"plain_text", "text": …}``) in ``blocks``."""

    def walk(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, Mapping):
            if node.get("type") in ("mrkdwn", "plain_text") and isinstance(node.get("text"), str):
                yield dict(node)
                return
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    for block in blocks:
        yield from walk(block)


def _fail(rule: str, text: str, where: str) -> None:
    raise Unsafe(f"{rule} in {where}: {text[:600]!r}")


def check_live_syntax(text: str, allowed_urls: set[str], allowed_channels: set[str], where: str) -> None:
    """Every ``<`` opens an allowed link or channel reference; ``&`` only in entities."""
    rest = text
    for m in _LINK.finditer(text):
        if m.group(1) not in allowed_urls:
            _fail(f"link to {m.group(1)!r}, not a catalog URL", text, where)
    rest = _LINK.sub("", rest)
    for m in _CHANNEL.finditer(rest):
        if m.group(1) not in allowed_channels:
            _fail(f"channel reference {m.group(1)!r} the app did not build", text, where)
    rest = _CHANNEL.sub("", rest)
    if "<" in rest:
        i = rest.index("<")
        _fail(f"live syntax {rest[i : i + 40]!r}", text, where)
    if _ENTITY.search(rest):
        _fail("unescaped '&'", text, where)


def check_autoparse(text: str, allowed_urls: set[str], where: str, *, names: bool) -> None:
    """No bare URL (other than an allowed one) and, with ``names``, no ``@name`` / ``#name``."""
    visible = _CHANNEL.sub("", _LINK.sub(lambda m: m.group(2), text))
    for m in _BARE_URL.finditer(visible):
        url = m.group(0).rstrip(").,;:!?*_~")
        if url not in allowed_urls:
            _fail(f"bare URL {url!r} Slack would link", text, where)
    if _WWW.search(visible):
        _fail("bare www. address Slack would link", text, where)
    if names:
        if _AT.search(visible):
            _fail("'@name' Slack would parse as a mention", text, where)
        if _HASH_NAME.search(visible):
            _fail("'#name' Slack would link to a channel", text, where)


def _check_blocks(
    blocks: list[Mapping[str, Any]], surface: str, allowed_urls: set[str], allowed_channels: set[str]
) -> None:
    try:
        validate_blocks(blocks, surface)
    except BlockKitError as exc:
        raise Unsafe(f"Block Kit limit: {exc}") from exc
    for i, obj in enumerate(iter_text_objects(blocks)):
        where = f"{surface} text object {i} ({obj['type']})"
        text = obj["text"]
        if not text.strip():
            _fail("empty text", text, where)
        if obj["type"] != "mrkdwn":
            continue  # plain_text is shown as typed: Slack parses neither links nor mentions
        check_live_syntax(text, allowed_urls, allowed_channels, where)
        if not obj.get("verbatim"):
            check_autoparse(text, allowed_urls, where, names=True)


def _check_json(payload: Any, limit: int | None = None) -> None:
    try:
        raw = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError) as exc:
        raise Unsafe(f"payload does not encode as UTF-8 JSON: {exc}") from exc
    if limit is not None and len(raw) > limit:
        raise Unsafe(f"payload of {len(raw)} bytes (limit {limit})")


def check_message(payload: Mapping[str, Any], allowed_urls: set[str], allowed_channels: Iterable[str] = ()) -> None:
    """Check a message payload (``{"response_type", "text", "blocks", …}`` as sent to a
    response URL or ``chat.postMessage``). Raises :class:`Unsafe`."""
    channels = set(allowed_channels)
    text = payload.get("text")
    if not isinstance(text, str) or not text.strip():
        _fail("missing fallback text", repr(text), "message")
    if len(text) > MAX_TOP_TEXT:
        _fail(f"fallback text of {len(text)} characters", text, "message")
    check_live_syntax(text, allowed_urls, channels, "fallback text")
    check_autoparse(text, allowed_urls, "fallback text", names=False)
    rtype = payload.get("response_type", "ephemeral")
    if rtype not in ("ephemeral", "in_channel"):
        _fail("bad response_type", str(rtype), "message")
    blocks = payload.get("blocks") or []
    _check_blocks(list(blocks), "message", allowed_urls, channels)
    _check_json(dict(payload))


def check_view(view: Mapping[str, Any], allowed_urls: set[str], allowed_channels: Iterable[str] = ()) -> None:
    """Check a Home (or modal) view payload. Raises :class:`Unsafe`."""
    surface = view.get("type", "home")
    _check_blocks(list(view.get("blocks") or []), surface, allowed_urls, set(allowed_channels))
    _check_json(dict(view), MAX_VIEW_BYTES)


def check_reply(reply: Any, allowed_urls: set[str], allowed_channels: Iterable[str] = ()) -> None:
    """Check a :class:`bot.slack.views.blocks.Reply` (or ``None``: nothing sent)."""
    if reply is None:
        return
    check_message(reply.payload(), allowed_urls, allowed_channels)
