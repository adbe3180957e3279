"""A command answered in its ack is computed and acked by the thread serving the HTTP request
(``process_before_response=True``): no hand-over to Bolt's listener pool, no 10 ms ack poll. A
command that needs Slack still acks empty and is answered by a lazy listener on its own pool.
Real signed requests through the HTTP door (waitress + Bolt's WSGI adapter)."""

from __future__ import annotations

import threading

import pytest

from bot import metrics
from bot.slack.handlers import Handlers
from tests.e2e.helpers import block_texts
from tests.waits import PATIENCE_S, wait_until


@pytest.fixture
def threads_seen(monkeypatch):
    """``[(where, thread name)]``: where the use case ran (``answer_now``, ``run``) and where a
    reply was handed to Slack (``reply:<kind>``, recorded when the listener reports it right
    after its ack or its ``respond``). The real functions still run."""
    seen: list[tuple[str, str]] = []
    answer_now, run, observe = Handlers.answer_now, Handlers.run, metrics.observe_reply

    def recording_answer_now(self, *args, **kwargs):
        seen.append(("answer_now", threading.current_thread().name))
        return answer_now(self, *args, **kwargs)

    def recording_run(self, *args, **kwargs):
        seen.append(("run", threading.current_thread().name))
        return run(self, *args, **kwargs)

    def recording_observe(kind, context):
        seen.append((f"reply:{kind}", threading.current_thread().name))
        return observe(kind, context)

    monkeypatch.setattr(Handlers, "answer_now", recording_answer_now)
    monkeypatch.setattr(Handlers, "run", recording_run)
    monkeypatch.setattr(metrics, "observe_reply", recording_observe)
    return seen


def _wait_for(threads_seen, where: str) -> None:
    """Until ``where`` is recorded (a lazy listener reports its reply just after respond())."""
    wait_until(lambda: where in dict(threads_seen), what=f"{where} recorded", every=0.01)


def test_a_reply_in_the_ack_is_computed_and_acked_on_the_request_thread(slack, standin, threads_seen):
    slack.ask("help")  # the first command asks users.info (lazy); the person is remembered now
    _wait_for(threads_seen, "reply:command")  # that lazy listener is done
    threads_seen.clear()

    ack, url = slack.command("speculative")
    assert ack.status == 200 and ack.text.startswith("{")  # the reply itself was the ack's body
    assert ack.headers["content-type"].startswith("application/json")  # else Slack shows it as text
    assert "Speculative decoding" in block_texts(standin.wait_for_response(url, timeout=PATIENCE_S).body["blocks"])
    where = dict(threads_seen)
    assert set(where) == {"answer_now", "reply:command"}, threads_seen  # nothing ran after the ack
    assert where["answer_now"] == where["reply:command"]
    assert where["answer_now"].startswith("waitress"), where  # the HTTP door's request thread


def test_a_command_needing_slack_still_acks_empty_and_answers_from_the_lazy_pool(slack, standin, threads_seen):
    ack, url = slack.command("follow speculative")
    assert ack.status == 200 and not ack.text.strip()
    standin.wait_for_response(url, timeout=PATIENCE_S)
    _wait_for(threads_seen, "reply:command")
    where = dict(threads_seen)
    assert where["answer_now"].startswith("waitress")  # the middleware: nothing to answer in the ack
    assert where["run"].startswith("bolt-lazy") and where["reply:command"].startswith("bolt-lazy"), where
