"""Button clicks (``block_actions``): ack at once; the follow-up (:func:`handle_action`, on the app's
listener executor: the lazy pool) redraws the message through ``response_url``, posts a share
``in_channel``, or shows a modal or App Home.

Not a Bolt lazy listener: Bolt copies the whole request for one (``copy.deepcopy`` of the click's body,
with the clicked message's blocks when Slack sends them, and the raw body parsed again): 0.47 ms of a
*Mark read* click's 4.03 ms of thread CPU in ``benchmarks/clicks.py`` (load 10; ~30 % in cProfile,
``--profile 'mark read'``). A regular listener acks, then hands the follow-up
to the executor Bolt would have used (``App.listener_runner.listener_executor``, public) with the
request's own ``body``, ``respond``, ``client`` and a shallow copy of its ``context``: the request
thread never touches them again once the listener returns (Bolt only sends the ack)."""

from __future__ import annotations

import functools
import logging
import re
import threading
import weakref
from collections import OrderedDict
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot import metrics
from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.slack.commands.context import ButtonValue
from bot.slack.commands.registry import BUTTONS
from bot.slack.handlers import Caller, Handlers
from bot.slack.held import HoldUntilAnswered, written, written_cancels
from bot.slack.home_facts import HomeFacts
from bot.slack.i18n import t
from bot.slack.listeners.context import ack_now, caller_of, handlers_of
from bot.slack.listeners.errors import answers_failure
from bot.slack.listeners.events import open_home
from bot.slack.views.blocks import Reply, decode_value
from bot.slack.views.home import track_modal
from bot.store.held_batch import MarkRead

log = logging.getLogger(__name__)

KINDS = tuple(BUTTONS)
"""Button kinds: the action id's prefix (:data:`bot.slack.commands.registry.BUTTONS`)."""
ACTION = re.compile(r"^({}):".format("|".join(KINDS)))
Payload = dict[str, Any]  # a JSON object: a request body, a view, a button's value


def _modal_track(view: Payload, kind: str, data: Payload) -> str | None:
    """The track a modal shows (its ``callback_id`` ``track:<id>``), or the one *Open path* opens."""
    if kind == "open_path" and isinstance(data.get("t"), str):
        return str(data["t"])
    callback = str(view.get("callback_id") or "")
    return callback[6:] if callback.startswith("track:") else None


def _from_home(body: Payload) -> bool:
    """The click came from App Home (not from a modal opened there)."""
    view_payload = body.get("view") or {}
    return view_payload.get("type") != "modal" and (
        (body.get("container") or {}).get("type") == "view" or view_payload.get("type") == "home"
    )


def _show_in_modal(
    context: BoltContext, client: WebClient, body: Payload, caller: Caller, kind: str, data: Payload, reply: Reply
) -> bool:
    """Show ``reply`` in a modal: redrawn for a click inside one, opened for *Open path* on App
    Home (Home republished for other kinds); ``False``: not a modal's."""
    view_payload = body.get("view") or {}
    in_modal = view_payload.get("type") == "modal"
    track_id = _modal_track(view_payload, kind, data)
    if track_id is None or kind == "share" or not (in_modal or (kind == "open_path" and _from_home(body))):
        return False
    handlers = handlers_of(context)
    modal = track_modal(handlers.rt.holder.catalog, track_id, reply, handlers.context(caller).lang)
    try:
        if in_modal:
            client.views_update(view_id=view_payload.get("id"), view=modal)
        else:
            client.views_open(trigger_id=body.get("trigger_id"), view=modal)
    except SlackApiError as exc:  # expired_trigger_id (a slow click), view gone: Home left as is (QA round 14)
        why = exc.response.get("error") if exc.response is not None else None
        log.info(
            "%s for a %s click failed (team %s): %s",
            "views.update" if in_modal else "views.open",
            kind,
            caller.team_id,
            why,
        )
        return True
    if kind != "open_path":
        open_home(context, caller)
    return True


def mark_read_effect(context: BoltContext, body: Payload) -> MarkRead | None:
    """A *Mark read* click's change, written with its hold before the ack (:class:`HoldUntilAnswered`):
    the button's post (its current id) for the clicker, when the use case would write it
    (:data:`bot.slack.commands.buttons.mark_read`: neither its post nor its track gone from the
    catalog, the post not read before under any of its ids, as the reader's state says now); else
    None (another kind, or nothing to write: the use case runs as before after the ack)."""
    action = (body.get("actions") or [{}])[0]
    if not str(action.get("action_id") or "").startswith("mark_read:"):
        return None
    value = ButtonValue.parse(decode_value(action.get("value")))
    handlers = handlers_of(context)
    catalog = handlers.rt.holder.loaded.catalog
    post = catalog.resolve_post_id(value.p) if value.p else None
    if post is None or (value.t and not _current_track(catalog, value.t)):
        return None  # gone: the use case says so and writes nothing
    caller = caller_of(context, body)  # the one rule, as handle_action's
    if not caller.team_id or not caller.user_id:
        return None
    read = handlers.rt.store.reader_state(caller.team_id, caller.user_id).read
    if not paths.unread_among(catalog, read, [post]):
        return None  # read before: the use case says so and writes nothing
    return MarkRead(caller.team_id, caller.user_id, (post,), functools.partial(_read_in_home, handlers.facts))


def _read_in_home(facts: HomeFacts, team: str, user: str) -> None:
    """A held click's *Mark read*, committed with its hold, told to App Home's facts as a request's write."""
    facts.wrote(team, user, READ_TABLES)


READ_TABLES = frozenset({"reading_progress"})
"""The App Home table a *Mark read* writes (its reminders' cancel is no App Home's)."""


def _current_track(catalog: Catalog, track_id: str) -> bool:
    """Whether today's catalog has ``track_id``, as its id or an alias (as
    :func:`bot.slack.commands.replies.current_track` finds it)."""
    if catalog.has_track(track_id):
        return True
    wanted = track_id.casefold()
    return any(a.casefold() == wanted for tr in catalog.tracks for a in tr.aliases)


@answers_failure("button")
def handle_action(body: Payload, respond: Respond, client: WebClient, context: BoltContext) -> None:
    """After the ack, on the listener executor: run the button's use case and redraw where the click
    came from (message, modal, Home). A change written with the click's hold (:func:`mark_read_effect`)
    is not written again: the use case answers from what that write marked and the reminders it
    cancelled (``written_before``)."""
    handlers = handlers_of(context)
    action = (body.get("actions") or [{}])[0]
    kind = (action.get("action_id") or "").split(":", 1)[0]
    caller = caller_of(context, body)  # the one rule: bot/slack/listeners/context.py
    data = decode_value(action.get("value"))
    label = str((action.get("text") or {}).get("text") or "")  # the clicked button's label
    marked = written(context)
    if marked:
        cancels = written_cancels(context)
        with handlers.rt.store.written_before(caller.team_id, caller.user_id, marked, cancels):
            reply = handlers.action(caller, kind, data, label)
    else:
        reply = handlers.action(caller, kind, data, label)
    if reply is not None and _show_in_modal(context, client, body, caller, kind, data, reply):
        return
    if _from_home(body) or reply is None:
        open_home(context, caller)
        return
    if not (body.get("response_url") or body.get("response_urls")):  # a modal's click: nowhere to answer
        log.info("a %s click without a response_url (team %s): not answered", kind, caller.team_id)
        return
    # a share is a new message; a click on a digest or an unfurl (seen by all) answers privately
    view = str(data.get("v", ""))
    keep_original = kind == "share" or view.startswith("digest") or view == "unfurl" or reply.keep_original
    shared = _share_key(body, caller, data) if kind == "share" and reply.response_type == "in_channel" else None
    if shared is not None and not shares_of(handlers).claim(shared):  # QA round 14: two clicks posted it twice
        lang = handlers.context(caller).lang
        respond(text=str(t("share.already", lang)), response_type="ephemeral", replace_original=False)
        return
    try:
        respond(**reply.payload(), replace_original=not keep_original)
    except Exception:
        if shared is not None:
            shares_of(handlers).release(shared)  # not posted: the person may try again
        raise
    metrics.observe_reply("action", context)


def _share_key(body: Payload, caller: Caller, data: Payload) -> tuple[str, ...]:
    """What makes a *Share to channel* click the same share: who, where, the message clicked, the track."""
    container = body.get("container") or {}
    ts = str(container.get("message_ts") or (body.get("message") or {}).get("ts") or "")
    channel = str(container.get("channel_id") or caller.channel_id or "")
    return (caller.team_id, caller.user_id, channel, ts, str(data.get("t") or ""))


class ClaimedOnce:
    """Keys claimed once in this process (the last :attr:`size` kept; thread-safe): a *Share to channel*
    posts once per message and person even when clicked twice at once. Not in the database: after a
    restart an old message's *Share* may post again (the lead's choice to make durable)."""

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self._keys: OrderedDict[tuple[str, ...], None] = OrderedDict()
        self._lock = threading.Lock()

    def claim(self, key: tuple[str, ...]) -> bool:
        """True the first time ``key`` is claimed (and kept), False after."""
        with self._lock:
            if key in self._keys:
                return False
            self._keys[key] = None
            while len(self._keys) > self.size:
                self._keys.popitem(last=False)
            return True

    def release(self, key: tuple[str, ...]) -> None:
        """Forget ``key`` (its share was not posted)."""
        with self._lock:
            self._keys.pop(key, None)


_SHARES: weakref.WeakKeyDictionary[Handlers, ClaimedOnce] = weakref.WeakKeyDictionary()
_SHARES_LOCK = threading.Lock()


def shares_of(handlers: Handlers) -> ClaimedOnce:
    """The *Share to channel* clicks answered by the app of ``handlers`` (:func:`_share_key`): one
    :class:`ClaimedOnce` per app, so two apps in one process (tests, doors) do not share it."""
    with _SHARES_LOCK:
        claimed = _SHARES.get(handlers)
        if claimed is None:
            claimed = _SHARES[handlers] = ClaimedOnce()
        return claimed


def _follow_up(body: Payload, respond: Respond, client: WebClient, context: BoltContext) -> None:
    """:func:`handle_action` on the executor's thread; what escapes it (its failure answer failed too)
    is logged by name, as Bolt logs a lazy listener's, not left in a future nobody reads."""
    try:
        handle_action(body=body, respond=respond, client=client, context=context)
    except Exception as exc:
        log.error("a click's follow-up failed (team %s): %s", context.team_id, type(exc).__name__)


def register(app: App) -> None:
    """Attach the block_actions listener for every button kind: it acks (after the hold), then submits
    :func:`handle_action` to the app's listener executor (past its bound the person is told "busy")."""
    executor = app.listener_runner.listener_executor

    def click(ack: Ack, body: Payload, respond: Respond, client: WebClient, context: BoltContext) -> None:
        ack_now(ack)
        follow_up = BoltContext(context)  # shallow: the request's values, none copied (see the module docstring)
        executor.submit(_follow_up, body, respond, client, follow_up)

    app.action(ACTION, middleware=[HoldUntilAnswered(mark_read_effect)])(click)
