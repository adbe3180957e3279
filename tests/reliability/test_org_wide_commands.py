"""The commands a reader sets things with (follow, plan, remind, lang, subscribe) from an
org-wide (Enterprise Grid) install, through the real HTTP door with signed bodies shaped as Bolt's
org-wide tests: what each stores is kept under the enterprise (the tenant of an org-wide install),
never under the workspace the person typed in, and the reply is an answer, not an error."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import ack_shown
from tests.e2e.slack_requests import signed_post
from tests.reliability.conftest import SIGNING_SECRET
from tests.reliability.test_grid_identity import ORG, T111, T222, USER, _org_wide_command
from tests.standin.ids import CONSOLE_CHANNEL
from tests.waits import PATIENCE_S


def _reply_text(door, standin, text: str) -> str:
    """The text of the reply to ``/vllm-path text`` sent from the org-wide install."""
    response_url = standin.response_url()
    acked = signed_post(door.url + "/slack/events", _org_wide_command(text, response_url), SIGNING_SECRET)
    assert ack_shown(standin, acked, response_url).status == 200, acked.text
    body = standin.wait_for_response(response_url, timeout=PATIENCE_S).body
    assert body.get("blocks"), body
    return str(body.get("text", "")) + " " + str(body.get("blocks"))


def _nowhere_else(store, read) -> None:
    """Nothing of ``read`` is under either workspace id of the body."""
    for team in (T111, T222):
        assert not read(store, team), team


@pytest.mark.parametrize(
    ("command", "read"),
    [
        ("follow spec", lambda store, team: store.follows(team, USER)),
        ("plan 30m", lambda store, team: store.get_budget(team, USER)),
        ("remind p-eagle tomorrow", lambda store, team: store.reminders(team, USER)),
        ("lang zh", lambda store, team: store.get_lang(team, USER)),
        ("subscribe spec", lambda store, team: store.subscriptions(team)),
    ],
    ids=["follow", "plan", "remind", "lang", "subscribe"],
)
def test_what_an_org_wide_command_stores_is_kept_under_the_enterprise(door, standin, door_runtime, command, read):
    store = door_runtime.store
    # the shared channel the body names, the app a member of it (as after /invite)
    standin.channels.append({**CONSOLE_CHANNEL, "id": "C111", "name": "shared"})
    assert not read(store, ORG)
    text = _reply_text(door, standin, command)
    for failure in ("Traceback", "went wrong", "出错"):
        assert failure not in text, text
    assert read(store, ORG), (command, text)
    _nowhere_else(store, read)
