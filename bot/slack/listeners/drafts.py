"""The review of a draft from its card (issue 41): *Accept* and *Change place* open the review modal,
*Not for the catalog* rejects it; the modal's submission accepts it through the same code as
``vllm-path catalog accept`` (:func:`bot.domain.catalog.accept.accept`), then this process reloads
the catalog and records the version (the clock and workers follow it). Only the curators of
``CATALOG_CURATORS`` may act; anyone else gets a polite ephemeral refusal and nothing changes."""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond
from slack_sdk import WebClient

from bot.domain.catalog import CatalogError
from bot.slack.i18n import t
from bot.slack.listeners.context import caller_of, handlers_of
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views.feed import review_modal

log = logging.getLogger(__name__)

ACTION = re.compile(r"^draft_(accept|place|reject):")
CALLBACK = "draft_review"
Payload = dict[str, Any]

_USER_ID = re.compile(r"[UW][A-Z0-9]{2,20}")
"""A Slack user id, mentioned as ``<@…>`` (Slack shows the person's name; an edited card notifies no one)."""


def _lang(context: BoltContext, body: Payload) -> str:
    handlers = handlers_of(context)
    return handlers.context(caller_of(context, body)).lang


def _is_curator(context: BoltContext, body: Payload) -> bool:
    user = str((body.get("user") or {}).get("id") or context.user_id or "")
    return user in handlers_of(context).rt.settings.curator_ids


def on_click(ack: Ack, body: Payload, client: WebClient, context: BoltContext, respond: Respond) -> None:
    """A card's button: refuse a non-curator, reject, or open the review modal."""
    ack()
    lang = _lang(context, body)
    if not _is_curator(context, body):
        respond(text=str(t("draft.not_curator", lang)), response_type="ephemeral", replace_original=False)
        return
    action = (body.get("actions") or [{}])[0]
    kind, _, draft_id = str(action.get("action_id") or "").partition(":")
    from bot.domain.catalog.drafts import read_drafts, reject  # deferred: rapidfuzz, off `ask`'s path

    rt = handlers_of(context).rt
    root = rt.settings.catalog_dir
    draft = next((d for d in read_drafts(root) if d.id == draft_id), None)
    if draft is None:
        respond(text=str(t("draft.gone", lang)), response_type="ephemeral", replace_original=False)
        return
    if kind == "draft_reject":
        reject(root, draft.id)
        uid = str((body.get("user") or {}).get("id", ""))  # QA round 11: was escaped, shown as "<@U…>"
        user = Mrkdwn(f"<@{uid}>") if _USER_ID.fullmatch(uid) else t("draft.a_curator", lang)
        respond(text=str(t("draft.rejected", lang, title=draft.title, user=user)), replace_original=True)
        return
    client.views_open(trigger_id=body.get("trigger_id"), view=review_modal(draft, rt.holder.catalog, lang))


def _value(state: Payload, block: str) -> str:
    element = (state.get(block) or {}).get(block) or {}
    chosen = element.get("selected_option") or {}
    return str(chosen.get("value") or element.get("value") or "").strip()


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.splitlines() if line.strip())


_INTEGER = re.compile(r"[+-]?\d{1,6}")
"""A position as typed: a whole number (one out of the track's range is refused by the accept)."""


def field_errors(state: Payload, lang: str) -> dict[str, str]:
    """The review modal's own checks, each error under its input's ``block_id`` in ``lang``: a
    position that is no whole number (QA round 15: ``abc`` took the suggested place), a new post's
    summary, the questions' counts, and the discussion prompt an essential step needs (in
    English and Chinese, or neither on a further-reading step)."""
    from bot.domain.catalog.models import QUESTIONS_EN, QUESTIONS_ZH  # deferred with the catalog's checks

    errors: dict[str, str] = {}
    new_post = "summary" in state
    position = _value(state, "position")
    if "position" in state and position and not _INTEGER.fullmatch(position):  # QA round 15: "abc" took the default
        errors["position"] = str(t("draft.error.position_number", lang))
    if new_post and not _value(state, "summary"):
        errors["summary"] = str(t("draft.error.summary", lang))
    for block, (low, high) in (("questions", QUESTIONS_EN), ("questions_zh", QUESTIONS_ZH)):
        have = len(_lines(_value(state, block)))
        if block in state and (new_post or have) and not low <= have <= high:
            errors[block] = str(t("draft.error.questions", lang, n=have, low=low, high=high))
    if "prompt" in state:
        essential = _value(state, "reading") == "essential"
        prompt, prompt_zh = _value(state, "prompt"), _value(state, "prompt_zh")
        for block, given, other in (("prompt", prompt, prompt_zh), ("prompt_zh", prompt_zh, prompt)):
            if not given and (essential or other):
                errors[block] = str(t("draft.error.prompt" if essential else "draft.error.prompt_pair", lang))
    return errors


def catalog_errors(exc: Exception, state: Payload, lang: str) -> dict[str, str]:
    """The errors of a refused accept (``exc``: ``ValueError`` or ``CatalogError``), each under the
    input it is about (by the field it names, else the first input), introduced in ``lang``."""
    issues = getattr(exc, "issues", None) or [exc]
    out: dict[str, list[str]] = {}
    said: dict[str, list[str]] = {}  # in Slack's words (QA round 14: "name one with --track")
    for issue in issues:
        message = str(getattr(issue, "message", issue))
        words = f"{getattr(issue, 'field', '')} {message}".casefold()
        known = next(((b, key, m) for pattern, b, key in _SAID if (m := pattern.search(words)) and b in state), None)
        if known is not None:
            where, key, found = known
            said.setdefault(where, []).append(str(t(key, lang, **found.groupdict())))
            continue
        about = next((b for b, w in _ABOUT if w in words and b in state), None)
        out.setdefault(about or ("summary" if "summary" in state else "questions"), []).append(message)
    errors = {b: str(t("draft.error.catalog", lang, why="; ".join(m))[:1500]) for b, m in out.items()}
    for block, lines in said.items():
        errors[block] = " ".join([*lines, errors.get(block, "")]).strip()[:1500]
    return errors


_SAID = (
    (re.compile(r"unknown track"), "track", "draft.error.track"),
    (re.compile(r"needs a chinese summary"), "summary_zh", "draft.error.summary_zh"),
    (re.compile(r"--summary-zh is the chinese summary"), "summary_zh", "draft.error.summary_zh_lang"),
    (re.compile(r"--summary is the english summary"), "summary", "draft.error.summary_lang"),
    (re.compile(r"needs its summary in our own words"), "summary", "draft.error.summary"),
    (re.compile(r"--prompt-zh is required"), "prompt_zh", "draft.error.prompt_pair"),
    (re.compile(r"--prompt is required"), "prompt", "draft.error.prompt_pair"),
    (re.compile(r"position -?\d+ is outside 1\.\.(?P<high>\d+)"), "position", "draft.error.position"),
    (
        re.compile(r"--summary-zh is [\d,]+ characters long: at most (?P<high>\d+)"),
        "summary_zh",
        "draft.error.summary_long",
    ),
    (re.compile(r"--summary is [\d,]+ characters long: at most (?P<high>\d+)"), "summary", "draft.error.summary_long"),
    (re.compile(r"--summary-zh holds slack markup"), "summary_zh", "draft.error.summary_markup"),
    (re.compile(r"--summary holds slack markup"), "summary", "draft.error.summary_markup"),
)
"""Refusals of :func:`bot.domain.catalog.accept.accept` (worded for the command line) said in the
modal's terms: ``(pattern on the field and message, casefolded; block id; i18n key)``, first match."""


_ABOUT = (
    ("questions_zh", "questions.zh"),
    ("questions_zh", "chinese question"),
    ("questions", "question"),
    ("prompt_zh", "prompt-zh"),
    ("prompt", "prompt"),
    ("reading", "essential step"),
    ("summary_zh", "summary_zh"),
    ("summary_zh", "summary.zh"),
    ("summary", "summary"),
    ("position", "position"),
    ("track", "track"),
)
"""Which input a catalog error is about: ``(block id, a word of its field or message)``, first match."""


def on_submit(ack: Ack, body: Payload, client: WebClient, context: BoltContext) -> None:
    """The review modal's submission: accept the draft, or show why not in the modal."""
    lang = _lang(context, body)
    view = body.get("view") or {}
    state = (view.get("state") or {}).get("values") or {}
    first = "questions" if "summary" not in state else "summary"
    if not _is_curator(context, body):
        ack(response_action="errors", errors={first: str(t("draft.not_curator", lang))})
        return
    if problems := field_errors(state, lang):
        ack(response_action="errors", errors=problems)
        return
    position = _value(state, "position")
    from bot.domain.catalog.accept import Review, accept  # deferred: ruamel.yaml and rapidfuzz

    review = Review(
        track=_value(state, "track") or None,
        position=int(position) if position else None,  # a whole number (field_errors); -5 is refused
        essential=(_value(state, "reading") == "essential") if "reading" in state else None,
        summary=_value(state, "summary") or None,
        summary_zh=_value(state, "summary_zh") or None,
        questions=_lines(_value(state, "questions")),
        questions_zh=_lines(_value(state, "questions_zh")),
        prompt=_value(state, "prompt") or None,
        prompt_zh=_value(state, "prompt_zh") or None,
    )
    rt = handlers_of(context).rt
    try:
        done = accept(rt.settings.catalog_dir, str(view.get("private_metadata") or ""), review)
    except KeyError:
        ack(response_action="errors", errors={first: str(t("draft.gone", lang))})
        return
    except (ValueError, CatalogError) as exc:
        ack(response_action="errors", errors=catalog_errors(exc, state, lang))
        return
    ack()
    ok, errors = rt.reload_catalog()
    log.info("draft %s accepted: catalog %s (reload %s)", done.post, done.version, "done" if ok else errors)
    catalog = rt.holder.catalog
    if done.track is not None:  # the track's name in the curator's language (QA: its id)
        name = catalog.track(done.track).names.get(lang) if catalog.has_track(done.track) else done.track
        where = t("draft.accepted.place", lang, track=name, position=done.position)
    else:
        where = t("draft.accepted.filled", lang)
    title = rt.holder.catalog.post(done.post).title if rt.holder.catalog.has_post(done.post) else done.post
    text = str(t("draft.accepted", lang, title=title, where=where, version=done.version))
    client.chat_postMessage(channel=str((body.get("user") or {}).get("id") or ""), text=text)


def register(app: App) -> None:
    """Attach the card buttons' and the review modal's listeners."""
    app.action(ACTION)(on_click)
    app.view(CALLBACK)(on_submit)
