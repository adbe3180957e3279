"""The one Block Kit checker (tests, the stand-in): would Slack accept these ``blocks`` or ``view``?

Two layers: slack-sdk's models (an unknown ``type`` or a key they drop is reported), then the limits
below, from https://docs.slack.dev/reference/block-kit/, and unique ``block_id``/``action_id``.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

MAX_BLOCKS = {"message": 50, "home": 100, "modal": 100}
SECTION_TEXT_MAX = 3000
SECTION_FIELDS_MAX = 10
FIELD_TEXT_MAX = 2000
HEADER_TEXT_MAX = 150
BUTTON_TEXT_MAX = 75
BUTTON_VALUE_MAX = 2000
ACTIONS_ELEMENTS_MAX = 25
CONTEXT_ELEMENTS_MAX = 10
SELECT_OPTIONS_MAX = 100
OPTION_TEXT_MAX = 75
OPTION_VALUE_MAX = 150
CONFIRM_TITLE_MAX = 100
CONFIRM_TEXT_MAX = 300
CONFIRM_BUTTON_MAX = 30
TEXT_OBJECT_MAX = 3000
FALLBACK_TEXT_MAX = 4000
ID_MAX = 255
VIEW_PAYLOAD_MAX_BYTES = 250_000


class BlockKitError(ValueError):
    """A Block Kit payload Slack would refuse. ``problems`` lists every reason found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def _text(obj: Any) -> str:
    """The string of a text object (``{"type": ..., "text": ...}``) or ""."""
    if isinstance(obj, dict):
        value = obj.get("text", "")
        return value if isinstance(value, str) else ""
    return obj if isinstance(obj, str) else ""


def _walk(node: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every dict inside ``node`` (depth first) with a readable path."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}[{i}]")


def _model_problems(block: dict[str, Any], where: str) -> list[str]:
    """Layer 1: slack-sdk's models (parse, validators, unknown type, dropped keys)."""
    sdk_logger = logging.getLogger("slack_sdk.models")
    previous = sdk_logger.level
    sdk_logger.setLevel(logging.ERROR)  # parse() logs a warning for unknown types/keys
    try:
        model = Block.parse(block)
        if model is None:
            return [f"{where}: unknown block type {block.get('type')!r}"]
        rendered = model.to_dict()
    except (SlackObjectFormationError, TypeError, ValueError, AttributeError, KeyError) as exc:
        return [f"{where} ({block.get('type')}): slack-sdk model refused it: {exc}"]
    finally:
        sdk_logger.setLevel(previous)
    dropped = set(block) - set(rendered)
    if dropped:
        return [f"{where} ({block.get('type')}): unknown key(s) {sorted(dropped)}"]
    return []


_BLOCK_TEXT_MAX = {"section": ("section", SECTION_TEXT_MAX), "header": ("header", HEADER_TEXT_MAX)}
_BLOCK_ELEMENTS_MAX = {"actions": ("an actions", ACTIONS_ELEMENTS_MAX), "context": ("a context", CONTEXT_ELEMENTS_MAX)}
_CONFIRM_MAX = dict(title=CONFIRM_TITLE_MAX, text=CONFIRM_TEXT_MAX, confirm=CONFIRM_BUTTON_MAX, deny=CONFIRM_BUTTON_MAX)


def _too_long(value: Any, limit: int) -> bool:
    return isinstance(value, str) and len(value) > limit


def _top_problems(block: dict[str, Any], kind: Any, where: str) -> list[str]:
    """The block's own limits: its text, its fields, how many elements it holds."""
    problems: list[str] = []
    if kind in _BLOCK_TEXT_MAX:
        name, limit = _BLOCK_TEXT_MAX[kind]
        if len(_text(block.get("text"))) > limit:
            problems.append(f"{where}: {name} text longer than {limit} characters")
    if kind == "section":
        fields = block.get("fields") or []
        if len(fields) > SECTION_FIELDS_MAX:
            problems.append(f"{where}: {len(fields)} section fields (max {SECTION_FIELDS_MAX})")
        problems += [
            f"{where}.fields[{j}]: field text longer than {FIELD_TEXT_MAX} characters"
            for j, fld in enumerate(fields)
            if len(_text(fld)) > FIELD_TEXT_MAX
        ]
    if kind in _BLOCK_ELEMENTS_MAX:
        name, limit = _BLOCK_ELEMENTS_MAX[kind]
        n = len(block.get("elements") or [])
        if n > limit:
            problems.append(f"{where}: {n} elements in {name} block (max {limit})")
    return problems


def _node_problems(node: dict[str, Any], path: str, kind: Any) -> list[str]:
    """The limits of one object (button, confirm, option, text, select) inside a ``kind`` block."""
    problems: list[str] = []
    if node.get("type") == "button":
        if isinstance(node.get("text"), dict) and node["text"].get("type") != "plain_text":
            problems.append(f"{path}: button text must be a plain_text object")
        if len(_text(node.get("text"))) > BUTTON_TEXT_MAX:
            problems.append(f"{path}: button text longer than {BUTTON_TEXT_MAX} characters")
        if _too_long(node.get("value"), BUTTON_VALUE_MAX):
            problems.append(f"{path}: button value longer than {BUTTON_VALUE_MAX} characters")
    if path.endswith(".confirm"):
        problems += [
            f"{path}: confirm {key} longer than {limit} characters"
            for key, limit in _CONFIRM_MAX.items()
            if len(_text(node.get(key))) > limit
        ]
    if path.rsplit(".", 1)[-1].startswith(("options[", "initial_option")):
        if len(_text(node.get("text"))) > OPTION_TEXT_MAX:
            problems.append(f"{path}: option text longer than {OPTION_TEXT_MAX} characters")
        if _too_long(node.get("value"), OPTION_VALUE_MAX):
            problems.append(f"{path}: option value longer than {OPTION_VALUE_MAX} characters")
    if kind == "context" and node.get("type") in ("mrkdwn", "plain_text") and len(_text(node)) > TEXT_OBJECT_MAX:
        problems.append(f"{path}: context text longer than {TEXT_OBJECT_MAX} characters")
    options = node.get("options")
    if isinstance(options, list) and str(node.get("type", "")).endswith("select") and len(options) > SELECT_OPTIONS_MAX:
        problems.append(f"{path}: {len(options)} options (max {SELECT_OPTIONS_MAX})")
    return problems


def _limit_problems(block: dict[str, Any], where: str) -> list[str]:
    """Layer 2: limits the models do not (or not always) check."""
    kind = block.get("type")
    problems = _top_problems(block, kind, where)
    for path, node in _walk(block, where):
        if node is not block:
            problems += _node_problems(node, path, kind)
    return problems


_CHECKED: dict[tuple[str, str], tuple[str, ...]] = {}
_CHECKED_MAX = 4096  # what _block_problems found, by (place, JSON): the models cost ~1 ms a block


def _block_problems(block: dict[str, Any], where: str) -> list[str]:
    """Both layers for one block, remembered by the block's content (bounded)."""
    try:
        key = (where, json.dumps(block, sort_keys=True, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError):  # not JSON-shaped: check it afresh (the models will say why)
        return _model_problems(block, where) + _limit_problems(block, where)
    found = _CHECKED.get(key)
    if found is None:
        found = tuple(_model_problems(block, where) + _limit_problems(block, where))
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED[key] = found
    return list(found)


def block_kit_problems(blocks: Any, surface: str = "message") -> list[str]:
    """Every reason ``blocks`` would be refused on ``surface`` ("message", "home" or "modal")."""
    if surface not in MAX_BLOCKS:
        raise ValueError(f"surface must be one of {sorted(MAX_BLOCKS)}, not {surface!r}")
    if isinstance(blocks, str):  # form-encoded calls carry blocks as a JSON string
        try:
            blocks = json.loads(blocks)
        except ValueError as exc:
            return [f"blocks is a string but not JSON: {exc}"]
    if not isinstance(blocks, list):
        return [f"blocks must be a list, not {type(blocks).__name__}"]
    problems: list[str] = []
    limit = MAX_BLOCKS[surface]
    if len(blocks) > limit:
        problems.append(f"{len(blocks)} blocks in a {surface} (max {limit})")
    block_ids: Counter[str] = Counter()
    action_ids: Counter[str] = Counter()
    for i, block in enumerate(blocks):
        where = f"blocks[{i}]"
        if not isinstance(block, dict) or "type" not in block:
            problems.append(f"{where}: not a block object with a type")
            continue
        problems += _block_problems(block, where)
        if "block_id" in block:
            block_ids[str(block["block_id"])] += 1
        for _path, node in _walk(block, where):
            if node is not block and "action_id" in node:
                action_ids[str(node["action_id"])] += 1
    for label, ids in (("block_id", block_ids), ("action_id", action_ids)):
        for ident, count in ids.items():
            if len(ident) > ID_MAX:
                problems.append(f"{label} {ident[:20]!r}... longer than {ID_MAX} characters")
            if count > 1:
                problems.append(f"{label} {ident!r} used {count} times in one {surface}")
    return problems


def validate_blocks(blocks: Any, surface: str = "message") -> None:
    """Raise :class:`BlockKitError` unless ``blocks`` is valid for ``surface``."""
    __tracebackhide__ = True
    if problems := block_kit_problems(blocks, surface):
        raise BlockKitError(problems)


def view_problems(view: Any) -> list[str]:
    """Every reason a ``view`` (views.publish/open/update/push) would be refused."""
    if isinstance(view, str):
        try:
            view = json.loads(view)
        except ValueError as exc:
            return [f"view is a string but not JSON: {exc}"]
    if not isinstance(view, dict):
        return [f"view must be an object, not {type(view).__name__}"]
    kind = view.get("type")
    if kind not in ("home", "modal"):
        return [f"view type must be 'home' or 'modal', not {kind!r}"]
    problems: list[str] = []
    if kind == "modal" and not _text(view.get("title")):
        problems.append("a modal view needs a plain_text title")
    size = len(json.dumps(view, ensure_ascii=False).encode("utf-8"))
    if size > VIEW_PAYLOAD_MAX_BYTES:
        problems.append(f"view payload is {size} bytes (max {VIEW_PAYLOAD_MAX_BYTES})")
    try:
        View(**view).to_dict()
    except (SlackObjectFormationError, TypeError, ValueError, AttributeError, KeyError) as exc:
        problems.append(f"slack-sdk View model refused it: {exc}")
    problems += block_kit_problems(view.get("blocks", []), surface=kind)
    return problems


def validate_fallback(text: Any) -> None:
    """Raise :class:`BlockKitError` unless ``text`` (a message's fallback) has 1 to 4,000 characters."""
    if not isinstance(text, str) or not 1 <= len(text) <= FALLBACK_TEXT_MAX:
        size = len(text) if isinstance(text, str) else type(text).__name__
        raise BlockKitError([f"fallback text must be 1-{FALLBACK_TEXT_MAX} characters, got {size}"])


def validate_view(view: Any) -> None:
    """Raise :class:`BlockKitError` unless ``view`` is a valid Home tab or modal view."""
    __tracebackhide__ = True
    if problems := view_problems(view):
        raise BlockKitError(problems)
