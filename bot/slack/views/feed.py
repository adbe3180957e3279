"""The review card of a draft for a curator and the modal that accepts it (issue 41), pure."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import MAX_SUMMARY
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, as_plain, link, truncate
from bot.slack.views.blocks import Reply, actions, button, cut, make_reply, section

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog.drafts import Draft


def draft_card(draft: Draft, catalog: Catalog, lang: str = "en") -> Reply:
    """The review card of one draft for a curator: title (linked), source, day and minutes, the
    suggested place with its reason (or the unlinked post it fills), and the buttons *Accept*,
    *Change place* (``draft_accept:`` / ``draft_place:``, both open :func:`review_modal`) and *Not
    for the catalog* (``draft_reject:``); each button's value is ``{"d": draft id}``."""
    key = "draft.card.facts" if draft.minutes_source == "counted" else "draft.card.facts_estimated"
    facts = t(key, lang, source=draft.source.label(lang), day=draft.published.isoformat(), minutes=draft.minutes)
    lines = [t("draft.card.title", lang, link=link(draft.url, truncate(draft.title, 200))), facts]
    if draft.fills is not None and catalog.has_post(draft.fills):
        lines.append(t("draft.card.fills", lang, title=truncate(catalog.post(draft.fills).title, 200)))
    elif draft.suggested:
        best = draft.suggested[0]
        name = catalog.track(best.track).names.get(lang) if catalog.has_track(best.track) else best.track
        lines.append(t("draft.card.place", lang, track=name, position=best.position, reason=truncate(best.reason, 300)))
    else:
        lines.append(t("draft.card.no_place", lang))
    value = {"d": draft.id}
    buttons = [
        button(t("draft.button.accept", lang), f"draft_accept:{draft.id}", value, style="primary"),
        button(t("draft.button.place", lang), f"draft_place:{draft.id}", value),
        button(t("draft.button.reject", lang), f"draft_reject:{draft.id}", value, style="danger"),
    ]
    text = Mrkdwn("\n").join(lines)
    return make_reply([section(text), actions(buttons)], text)


def _input(block_id: str, label: str, element: dict[str, Any], optional: bool = False) -> dict[str, Any]:
    """An input block whose element's ``action_id`` is its ``block_id``."""
    label = cut(as_plain(label), 2000)
    element = {**element, "action_id": block_id}
    return {"type": "input", "block_id": block_id, "label": plain_text(label), "element": element, "optional": optional}


def plain_text(text: str) -> dict[str, Any]:
    """A plain_text object (emoji on)."""
    return {"type": "plain_text", "text": text, "emoji": True}


def review_modal(draft: Draft, catalog: Catalog, lang: str = "en") -> dict[str, Any]:
    """The modal a curator accepts a draft with (``callback_id`` ``draft_review``, the draft id in
    ``private_metadata``): track (the suggestion first), position, essential or further reading,
    the discussion prompt (English and Chinese, which an essential step needs), the summary
    (English; Chinese optional) and the problem questions, one a line. A draft that
    fills an unlinked post asks for its questions only, optional (accepting takes the post's, else
    those of ``answers.yaml``)."""
    best = draft.suggested[0] if draft.suggested else None
    blocks: list[dict[str, Any]] = [section(Mrkdwn("*{}*").format(truncate(draft.title, 250)))]
    if draft.fills is None:
        tracks = sorted(catalog.tracks, key=lambda tr: tr.id != (best.track if best else None))[:100]
        options = [{"text": plain_text(truncate(tr.names.get(lang), 75)), "value": tr.id} for tr in tracks]
        select: dict[str, Any] = {"type": "static_select", "options": options}
        select["initial_option"] = options[0]
        position = {"type": "number_input", "is_decimal_allowed": False, "min_value": "1"}
        if best is not None:
            position["initial_value"] = str(best.position)
        reading = [("further", "draft.modal.further"), ("essential", "draft.modal.essential")]
        radios = [{"text": plain_text(as_plain(t(key, lang))), "value": value} for value, key in reading]
        blocks += [
            _input("track", t("draft.modal.track", lang), select),
            _input("position", t("draft.modal.position", lang), position),
            _input(
                "reading",
                t("draft.modal.reading", lang),
                {"type": "radio_buttons", "options": radios, "initial_option": radios[0]},
            ),
            _input(  # the reading clubs' discussion prompt: an essential step needs it (both languages)
                "prompt",
                t("draft.modal.prompt", lang),
                {"type": "plain_text_input", "multiline": True, "max_length": 500},
                optional=True,
            ),
            _input(
                "prompt_zh",
                t("draft.modal.prompt_zh", lang),
                {"type": "plain_text_input", "multiline": True, "max_length": 500},
                optional=True,
            ),
            _input(
                "summary",
                t("draft.modal.summary", lang),
                {"type": "plain_text_input", "multiline": True, "max_length": MAX_SUMMARY},
            ),
            _input(
                "summary_zh",
                t("draft.modal.summary_zh", lang),
                {"type": "plain_text_input", "multiline": True, "max_length": MAX_SUMMARY},
                optional=True,
            ),
        ]
    blocks += [
        _input(
            "questions",
            t("draft.modal.questions", lang),
            {"type": "plain_text_input", "multiline": True},
            optional=draft.fills is not None,  # a filled post keeps its questions or takes answers.yaml's
        ),
        _input(
            "questions_zh",
            t("draft.modal.questions_zh", lang),
            {"type": "plain_text_input", "multiline": True},
            optional=draft.fills is not None,
        ),
    ]
    return {
        "type": "modal",
        "callback_id": "draft_review",
        "private_metadata": draft.id,
        "title": plain_text(cut(as_plain(t("draft.modal.title", lang)), 24)),
        "submit": plain_text(as_plain(t("draft.modal.submit", lang))),
        "close": plain_text(as_plain(t("draft.modal.cancel", lang))),
        "blocks": blocks,
    }
