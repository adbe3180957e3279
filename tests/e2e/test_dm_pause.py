"""``dm pause`` and the weekly DM's *Snooze a week*, end to end through the HTTP door (signed
requests, the stand-in Slack, the real store and senders), once on SQLite and once on PostgreSQL:
the pause shows in ``dm status``, ``settings`` and App Home (a date, no clock time), ``dm resume``
(``dm unpause``, ``dm unsnooze``, ``私信 恢复`` …) and any ``dm on`` / ``dm off`` end it; and the
"fall behind" nudge speaks the language the weekly DM was set up in, unless one was chosen (QA)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from tests.e2e.helpers import block_texts
from tests.waits import PATIENCE_S

_DATE = r"\d{1,2} [A-Z][a-z]{2} \d{4}"  # 14 Dec 2026, as every reply writes a day


def _text(slack, words: str) -> str:
    """The reply to ``/vllm-path words`` as one string: its fallback text and its blocks."""
    body = slack.ask(words).body
    return str(body.get("text", "")) + "\n" + block_texts(body.get("blocks") or [])


def _home(slack, standin) -> str:
    """The App Home published after one more ``app_home_opened``, as one string."""
    count = len(standin.calls("views.publish")) + 1
    assert slack.open_home().status == 200
    call = standin.wait_for_call("views.publish", count=count, timeout=PATIENCE_S)
    return block_texts(call.args["view"]["blocks"])


def _snoozed(runtime, slack) -> datetime | None:
    dm = runtime.store.get_dm(slack.team, slack.user)
    assert dm is not None
    return dm.snoozed_until


def test_a_pause_says_its_dates_shows_everywhere_and_dm_resume_ends_it(slack, standin, runtime):
    slack.ask("dm on monday 03:00")
    paused = _text(slack, "dm pause")
    said = rf"your weekly DM of Monday {_DATE} is skipped; the next one comes on Monday {_DATE}\."
    assert re.search(said, paused), paused
    assert not re.search(r"\d{2}:\d{2}", paused), paused  # a date, not the moment the command was typed
    assert "`/vllm-path dm resume`" in paused
    until = _snoozed(runtime, slack)
    assert until is not None
    for shown in (_text(slack, "dm status"), _text(slack, "settings"), _home(slack, standin)):
        assert re.search(rf"Paused: no DM until Monday {_DATE}", shown), shown
    resumed = _text(slack, "dm resume")
    assert re.search(rf"^Resumed: your next weekly DM comes on Monday {_DATE}\.", resumed), resumed
    assert _snoozed(runtime, slack) is None
    for shown in (_text(slack, "dm status"), _text(slack, "settings"), _home(slack, standin)):
        assert "Paused" not in shown, shown
    assert "isn't paused" in _text(slack, "dm resume")  # a second time: nothing to undo


@pytest.mark.parametrize("words", ["dm unpause", "dm unsnooze", "私信 恢复", "恢复私信", "resume my dm"])
def test_every_way_of_saying_resume_ends_the_pause(slack, runtime, words):
    slack.ask("dm on friday 09:00")
    slack.ask("dm pause")
    assert _snoozed(runtime, slack) is not None
    reply = _text(slack, words)
    assert "didn't understand" not in reply and "没有理解" not in reply, reply
    assert _snoozed(runtime, slack) is None


@pytest.mark.parametrize("again", [["dm on monday 10:00"], ["dm off", "dm on"], ["dm on"], ["dm off"]])
def test_setting_the_dm_up_again_or_off_ends_the_pause(slack, runtime, again):
    slack.ask("dm on monday 03:00")
    slack.ask("dm pause")
    assert _snoozed(runtime, slack) is not None
    for words in again:
        slack.ask(words)
    assert _snoozed(runtime, slack) is None
    assert "Paused" not in _text(slack, "dm status")


def test_the_dms_snooze_button_is_the_same_pause(slack, standin, runtime):
    from bot.digest.deliver import Deliverer, Outcome, Pacer

    slack.ask("follow spec")
    slack.ask("dm on friday 09:00")
    before = len(standin.calls("chat.postMessage"))
    deliverer = Deliverer(runtime, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=50))
    assert deliverer.deliver_dm(slack.team, slack.user, datetime.now(UTC)).outcome is Outcome.SENT
    (dm,) = [c for c in standin.calls("chat.postMessage")[before:] if c.ok]
    _, url = slack.click({"blocks": dm.args["blocks"]}, "snooze:", ephemeral=False)
    answer = standin.wait_for_response(url, timeout=PATIENCE_S).body["text"]
    assert re.search(rf"your weekly DM of Friday {_DATE} is skipped", answer), answer
    assert not re.search(r"\d{2}:\d{2}", answer), answer
    assert re.search(rf"Paused: no DM until Friday {_DATE}", _home(slack, standin))
    slack.ask("dm resume")
    assert _snoozed(runtime, slack) is None


def _han(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text))


@pytest.mark.parametrize(
    "words, then, chinese",
    [
        ("私信 开 周五 09:00", None, True),  # set up in Chinese, no language chosen: a Chinese nudge
        ("dm on friday 09:00", None, False),
        ("私信 开 周五 09:00", "lang en", False),  # a language chosen later wins
        ("dm on friday 09:00", "lang zh", True),
    ],
)
def test_the_nudge_speaks_the_language_the_dm_was_set_up_in(slack, standin, runtime, words, then, chinese):
    from bot.digest.deliver import Deliverer, Pacer
    from bot.digest.reminders import send_nudges

    slack.ask("follow spec")
    slack.ask(words)
    if then:
        slack.ask(then)
    before = len(standin.calls("chat.postMessage"))
    deliverer = Deliverer(runtime, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=50))
    assert send_nudges(runtime, deliverer, datetime.now(UTC) + timedelta(days=23)) == 1  # weeks behind
    (call,) = [c for c in standin.calls("chat.postMessage")[before:] if c.ok]
    assert "lower_budget" in json.dumps(call.args.get("blocks"))  # the nudge
    sent = str(call.args["text"]) + "\n" + block_texts(call.args.get("blocks") or [])
    assert _han(sent) == chinese, sent
