"""A lazy listener's failure is answered in the asker's language (QA: the generic failure reply was
English for someone who chose Chinese): Chinese when the command was typed in Chinese or the
person chose it, English otherwise and when the language cannot be looked up."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from bot.slack.handlers import Handlers
from bot.slack.i18n import t
from bot.slack.listeners.context import provide_handlers
from bot.slack.listeners.errors import answers_failure


@answers_failure("slash command")
def _failing(body: dict[str, Any], respond: Any, context: BoltContext) -> None:
    raise RuntimeError("the store went away")


def _reply(runtime: Any, text: str, with_handlers: bool = True) -> str:
    said: list[str] = []
    context = BoltContext(team_id="T1", user_id="U1", channel_id="C1")
    if with_handlers:
        provide_handlers(context, Handlers(runtime))
    body = {"team_id": "T1", "text": text, "response_url": "https://hooks.slack.com/commands/T1/1/x"}
    _failing(body=body, respond=lambda **kw: said.append(kw["text"]), context=context)
    return said[0]


def test_the_failure_reply_speaks_the_chosen_or_typed_language(runtime) -> None:
    assert _reply(runtime, "read p-eagle") == str(t("error.generic", "en"))
    assert _reply(runtime, "推测解码") == str(t("error.generic", "zh"))
    runtime.store.set_lang("T1", "U1", "zh")
    assert _reply(runtime, "read p-eagle") == str(t("error.generic", "zh"))
    assert _reply(runtime, "read p-eagle", with_handlers=False) == str(t("error.generic", "en"))


def test_an_org_wide_failure_reply_finds_the_language_by_the_enterprise(runtime) -> None:
    """An org-wide install's body carries no outer ``team_id``: the person's language is kept under
    the enterprise (the tenant), and the failure reply finds it there."""
    runtime.store.set_lang("E1", "U1", "zh")
    said: list[str] = []
    context = BoltContext(enterprise_id="E1", is_enterprise_install=True, user_id="U1", channel_id="C1")
    provide_handlers(context, Handlers(runtime))
    body = {"enterprise_id": "E1", "is_enterprise_install": "true", "text": "read p-eagle",
            "response_url": "https://hooks.slack.com/commands/E1/1/x"}  # fmt: skip
    _failing(body=body, respond=lambda **kw: said.append(kw["text"]), context=context)
    assert said == [str(t("error.generic", "zh"))]
