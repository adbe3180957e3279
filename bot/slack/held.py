"""What is acknowledged is answered (issue 42, docs/architecture.md "acknowledged is stored").

A slash command or a click whose answer comes after the ack (a lazy listener) is held in the store
before the ack (:class:`HoldUntilAnswered`, a listener middleware: one insert, committed with other
threads' in a group commit, :mod:`bot.store.held_batch`; a door that sends its acks itself, the Socket
Mode door, sets :data:`ACK_WHEN_HELD` and sends the ack once the hold's :class:`~bot.store.held_batch.HeldTicket`
says it is committed, instead of the request's thread waiting for it) and released once its lazy listener has
answered or failed for good (:func:`release`). A process that dies in between (``kill -9``, a
deploy's SIGTERM past the grace period, a crash) leaves it held; the next process answers it at
start (:func:`answer_held`): the body as Slack sent it, signed again with the app's signing secret
and dispatched to the app, so the use case runs (its change stored) and the answer goes to the
request's ``response_url``, which Slack keeps valid for 30 minutes. A change stored twice is a
change stored once: every use case a held request runs is idempotent (a post marked read again, a
track followed again, a subscription set to the schedule it has); the person may then see a second answer.

A *Mark read* click's change goes further: it is written in its hold's transaction
(:class:`HoldUntilAnswered`'s ``effect``, :func:`bot.slack.listeners.actions.mark_read_effect`), so
the change itself, not only the request, is stored when the ack goes; its follow-up answers from what
that write marked (:func:`written`) and writes nothing again. The hold is still released only once
answered: a crash before the answer leaves the request to the next process, which marks the post
read again (nothing new) and answers (the person may be told it was already read).

Commands answered in the ack (read-only, :class:`bot.slack.listeners.commands.AnswerInAck`) are
never held. The legacy verification ``token`` of a body is not stored.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode

from slack_bolt import App, BoltContext, BoltRequest, BoltResponse
from slack_bolt.middleware import Middleware
from slack_sdk.signature import SignatureVerifier

from bot.slack.listeners.context import handlers_of, tenant
from bot.store.held_batch import HeldTicket, MarkRead

log = logging.getLogger(__name__)

HELD = "vllm_path_held"
"""Key of Bolt's context: the id of the held request being answered, or the :class:`HeldTicket` of
a hold on its way (with :data:`ACK_WHEN_HELD`)."""
ACK_WHEN_HELD = "vllm_path_ack_when_held"
"""Key of Bolt's context a door sets (True) when it sends each ack itself, after ``context[HELD]``'s
:class:`HeldTicket`, if any, is committed: :class:`HoldUntilAnswered` does not wait for the hold."""
ANSWERABLE = timedelta(minutes=30)
"""How long a ``response_url`` stays valid (Slack's documentation): older held requests are dropped."""


WRITTEN = "vllm_path_written"
"""Key of Bolt's context: the :class:`HeldTicket` of a hold that carries the request's change
(:class:`HoldUntilAnswered`'s ``effect``): :meth:`HeldTicket.marked` once committed."""


def _cut_token(body: str, token: str) -> str | None:
    """``body`` (a form, as Slack encodes it) without its one ``token`` field of value ``token``, or
    the one ``"token":"<token>"`` member of its ``payload``'s JSON, cut out of the text as it came
    (nothing decoded or encoded again); None when that cannot be told for sure (then parsed)."""
    if not token.replace("-", "").replace("_", "").isalnum():
        return None
    fields = body.count("&token=") + body.startswith("token=")
    if fields + body.count("%22token%22") != 1:  # one field or member of that name, one "token" string
        return None
    if body.startswith(f"token={token}&"):
        return body[len(token) + 7 :]
    field = f"&token={token}"
    if body.endswith(field) or f"{field}&" in body:
        return body.replace(field, "", 1)
    for colon in ("%3A", "%3A+"):  # compact JSON (Slack's), or with spaces (Python's json.dumps)
        member = f"%22token%22{colon}%22{token}%22"
        if member not in body:
            continue
        for comma in ("%2C", "%2C+"):
            for cut in (comma + member, member + comma):
                if cut in body:
                    return body.replace(cut, "", 1)
    return None


def _without_token(body: str, content_type: str, token: object = None) -> str:
    """``body`` without the legacy verification ``token`` (form field, or in a ``payload``'s JSON);
    ``token``: its value as Bolt parsed it, when known (then cut out of the text, :func:`_cut_token`:
    parsing and encoding the body again was 0.13 ms of a click, ``benchmarks/clicks.py``)."""
    if "json" in content_type:
        return body
    if isinstance(token, str) and token:
        cut = _cut_token(body, token)
        if cut is not None:
            return cut
    fields = []
    for name, value in parse_qsl(body, keep_blank_values=True):
        if name == "token":
            continue
        if name == "payload":
            try:
                payload = json.loads(value)
            except ValueError:
                payload = None
            if isinstance(payload, dict):
                payload.pop("token", None)
                value = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        fields.append((name, value))
    return urlencode(fields)


Effect = Callable[[BoltContext, dict[str, Any]], MarkRead | None]
"""What a held request changes, from its context and body, to write with its hold (None: nothing;
the listener writes it after the ack). Raises nothing it means: an exception is logged and taken as None."""


class HoldUntilAnswered(Middleware):
    """Hold the request in the store before the listener acks it (a replayed one is held already).
    With :data:`ACK_WHEN_HELD` in the context the hold is not waited for: ``context[HELD]`` is its
    :class:`HeldTicket`, and the door sends the ack once the ticket is done.

    ``effect``: the request's change (a *Mark read* click's, :mod:`bot.slack.listeners.actions`),
    written in the hold's transaction, so stored before the ack like the hold; ``context[WRITTEN]``
    is then the hold's ticket, for the listener to answer from what it marked instead of writing it
    again (the click's own write transaction was 0.54 ms of its CPU, ``benchmarks/clicks.py``)."""

    def __init__(self, effect: Effect | None = None) -> None:
        self.effect = effect

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse | None:
        """Store the request (see the module docstring), note its id in ``req.context``, go on."""
        context = req.context
        if not isinstance(context.get(HELD), int | HeldTicket):
            content_type = (req.headers.get("content-type") or [""])[0]
            if req.raw_body:
                body = _without_token(req.raw_body, content_type, req.body.get("token"))
            else:  # a Socket Mode payload given as a dict (without its token)
                body, content_type = json.dumps(req.body, separators=(",", ":"), ensure_ascii=False), "application/json"
            try:
                batcher = handlers_of(context).rt.store.held_batch()
                effect = self._effect(context, req.body)
                if context.get(ACK_WHEN_HELD):  # the door acks once the ticket is done
                    ticket = batcher.hold_later(tenant(context), body, content_type, effect)
                else:  # this thread waits for the commit before the ack: it leads it
                    ticket = batcher.hold_led(tenant(context), body, content_type, effect)
                if effect is not None:
                    context[WRITTEN] = ticket
                context[HELD] = ticket if context.get(ACK_WHEN_HELD) else ticket.wait()
            except Exception:  # the database is down: the ack still goes, and the answer says so
                log.warning("request not held: the store refused it", exc_info=True)
        else:  # held already (answered again): whatever its change was, the use case writes it now
            context.pop(WRITTEN, None)
        return next()

    def _effect(self, context: BoltContext, body: dict[str, Any]) -> MarkRead | None:
        if self.effect is None:
            return None
        try:
            return self.effect(context, body)
        except Exception:  # the listener writes it after the ack, as without an effect
            log.warning("a held request's change could not be told before its ack", exc_info=True)
            return None


def written(context: BoltContext | None) -> frozenset[str] | None:
    """What the hold of the request answered in ``context`` marked read with it (waiting for its
    commit), or None when it carried no change or failed (the listener then writes as before)."""
    ticket = context.get(WRITTEN) if context is not None else None
    if not isinstance(ticket, HeldTicket):
        return None
    try:
        return ticket.marked()
    except Exception:  # not held: logged when the ack went
        return None


def written_cancels(context: BoltContext | None) -> dict[str, int] | None:
    """With :func:`written`: how many pending reminders of each post marked the hold's write
    cancelled (:meth:`HeldTicket.cancelled`), or None when not counted (the use case looks them up)."""
    ticket = context.get(WRITTEN) if context is not None else None
    if not isinstance(ticket, HeldTicket):
        return None
    try:
        return ticket.cancelled()
    except Exception:  # not held: logged when the ack went
        return None


def release(context: BoltContext | None) -> None:
    """After a held request's lazy listener has run (answered or failed): forget it (with the next
    batch of :meth:`bot.store.held_batch.HeldBatcher.release`, not waited for). Never raises."""
    held = context.get(HELD) if context is not None else None
    if isinstance(held, HeldTicket):  # committed long before the lazy listener ends, but wait if not
        try:
            held = held.wait()
        except Exception:  # never held (the failure was logged when the ack went): nothing to release
            return
    if context is not None and isinstance(held, int):
        handlers_of(context).rt.store.held_batch().release(held)


def answer_held(app: App, signing_secret: str | None, started: float, now: Callable[[], float] = time.time) -> int:
    """Answer every request held before ``started`` (this process's start, epoch seconds: what
    earlier processes acknowledged and did not answer) and less than :data:`ANSWERABLE` ago (older
    ones are dropped): each dispatched to ``app`` as Slack sent it, signed again with
    ``signing_secret`` (None: as a Socket Mode request, unsigned). Returns how many were
    dispatched (their answers follow on the lazy pool)."""
    store = app.handlers.rt.store  # type: ignore[attr-defined]  # set by bot.slack.app.build_app
    since = datetime.fromtimestamp(now(), UTC) - ANSWERABLE
    dropped = store.forget_held_requests(since)
    held = store.held_requests(since, datetime.fromtimestamp(started, UTC))
    if dropped:
        log.warning("%d acknowledged request(s) held over 30 minutes dropped: their response URLs expired", dropped)
    verifier = SignatureVerifier(signing_secret) if signing_secret else None
    for request_id, body, content_type in held:
        headers: dict[str, str | Sequence[str]] = {"content-type": [content_type]}
        if verifier is not None:  # signed again, as the HTTP door's requests are
            stamp = str(int(now()))
            headers["x-slack-request-timestamp"] = [stamp]
            headers["x-slack-signature"] = [verifier.generate_signature(timestamp=stamp, body=body) or ""]
        mode = "http" if verifier is not None else "socket_mode"  # Socket Mode requests carry no signature
        try:
            app.dispatch(BoltRequest(body=body, headers=headers, context={HELD: request_id}, mode=mode))
        except Exception:
            log.exception("held request %d could not be answered again", request_id)
    if held:
        log.info("answering %d request(s) acknowledged by the previous process", len(held))
    return len(held)


def answer_held_soon(app: App, signing_secret: str | None, delay_s: float = 30.0) -> threading.Thread:
    """:func:`answer_held` of what was held before now, on a daemon thread after ``delay_s``: the
    door opens first, and a request that another process still alive is answering (several
    ``serve`` processes on one database) is answered and released by then, not answered twice."""
    started = time.time()

    def run() -> None:
        time.sleep(delay_s)
        try:
            answer_held(app, signing_secret, started)
        except Exception:
            log.exception("answering held requests failed")

    thread = threading.Thread(target=run, name="answer-held", daemon=True)
    thread.start()
    return thread


__all__ = [
    "ACK_WHEN_HELD",
    "ANSWERABLE",
    "HELD",
    "WRITTEN",
    "Effect",
    "HoldUntilAnswered",
    "answer_held",
    "answer_held_soon",
    "release",
    "written",
    "written_cancels",
]
