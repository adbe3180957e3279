"""The console itself: a :class:`Console` driving the Bolt app with Slack's requests and showing
what it answered (:mod:`bot.doors.console.slack`, in process; the tests' strict stand-in with
``strict``), and :func:`ask`."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.doors.console import slack as si
from bot.doors.console.render import Control, mrkdwn_to_text, render_blocks
from bot.i18n import text

if TYPE_CHECKING:
    from bot.runtime import Runtime

REPLY_TIMEOUT_S = 10.0
"""Seconds to wait for the first reply to a command, a click or Home."""
KEPT_CONTROLS = 500
"""Buttons a console session keeps pressable (the newest; each keeps its number for the session)."""

VISIBLE_METHODS = frozenset({"chat.postMessage", "chat.postEphemeral", "chat.update", "chat.delete", "chat.unfurl"})
VISIBLE_METHODS |= {"views.publish", "views.open", "views.update", "views.push"}
"""Web API methods whose effect a person would see; the console prints them."""


@dataclass
class Surface:
    """What printed buttons belong to: a message (its dict as ``payload``) or a view (as published)."""

    kind: str = "message"  # "message" | "view"
    payload: dict[str, Any] = field(default_factory=dict)
    message_ts: str | None = None
    is_ephemeral: bool = True
    channel_id: str = si.CONSOLE_CHANNEL_ID


@dataclass
class Printed:
    """One thing the app made visible: ``title``, ``text``, ``controls``, their ``surface``, ``raw`` dict."""

    title: str
    text: str
    controls: list[Control] = field(default_factory=list)
    surface: Surface = field(default_factory=Surface)
    raw: dict[str, Any] = field(default_factory=dict)

    def render(self) -> str:
        """The title line and the text, ready to print."""
        return f"── {self.title} ──\n{self.text}".rstrip()


class ListenerExecutor(ThreadPoolExecutor):
    """Bolt's listener executor counting unfinished tasks (a lazy listener before the listener that
    started it ends): :meth:`wait_idle` returns, without polling, once the whole reply went out."""

    def __init__(self, max_workers: int = 5) -> None:
        super().__init__(max_workers=max_workers, thread_name_prefix="console-listener")
        self._idle = threading.Condition()
        self._pending = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self._idle:
            self._pending += 1
        try:
            future = super().submit(fn, *args, **kwargs)
        except BaseException:
            self._done()
            raise
        future.add_done_callback(lambda _f: self._done())
        return future

    def _done(self) -> None:
        with self._idle:
            self._pending -= 1
            if self._pending == 0:
                self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Block until no task is pending or running; ``timeout`` in seconds. True if idle."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)


class Console:
    """A conversation with the app as one Slack user in one channel. ``app``: a Bolt ``App`` whose
    client and replies go to ``standin`` (a :class:`~bot.doors.console.recorder.Recorder`, or the tests'
    stand-in: what it exposes of both), running its listeners on ``listeners`` (:func:`open_console`).
    :meth:`command`, :meth:`press`, :meth:`paste` and :meth:`home` send Slack's requests and return
    what became visible (:class:`Printed`; empty when nothing came within ``timeout`` seconds)."""

    def __init__(
        self,
        app: Any,
        standin: Any,
        *,
        user_id: str = si.CONSOLE_USER_ID,
        timeout: float = REPLY_TIMEOUT_S,
        listeners: ListenerExecutor,
        runtime: Runtime | None = None,
    ):
        self.app = app
        self.runtime = runtime  # the path picture reads the reader's progress from its store
        self.standin = standin
        self.user_id = user_id
        self.team_id = si.CONSOLE_TEAM_ID
        self.channel_id = si.CONSOLE_CHANNEL_ID
        self.timeout = timeout
        self.listeners = listeners
        self.controls: dict[int, tuple[Control, Surface]] = {}  # the last output's
        self.pressable: dict[int, tuple[Control, Surface]] = {}  # every output's, the newest KEPT_CONTROLS
        self._next_number = 1
        self._ts = itertools.count(1)
        self._pressed: Surface | None = None

    def _exchange(
        self, body: bytes, content_type: str, pressed: Surface | None = None, response_url: str | None = None
    ) -> list[Printed]:
        mark_calls, mark_resp = len(self.standin.calls()), len(self.standin.responses())
        self._pressed = pressed
        from slack_bolt.request import BoltRequest

        headers: dict[str, str | Sequence[str]] = {"content-type": [content_type]}
        response = self.app.dispatch(BoltRequest(body=body.decode("utf-8"), headers=headers))
        printed: list[Printed] = []
        if response.status != 200:
            printed.append(Printed(text("console.http_error").format(status=response.status), str(response.body or "")))
        elif response.body:
            try:
                ack_message = json.loads(response.body)
            except ValueError:
                ack_message = {"text": str(response.body)}
            shown = isinstance(ack_message, dict) and bool(ack_message.get("text") or ack_message.get("blocks"))
            if shown and response_url:  # a command's reply in its ack: Slack checks and shows it
                self.standin.answer_ack(response_url, str(response.body).encode("utf-8"))
            elif shown:
                printed.append(self._message(text("console.reply"), ack_message, ephemeral=True))

        # When the last listener task ends, every part of the reply has been recorded.
        self.listeners.wait_idle(self.timeout)
        records: list[Any] = [c for c in self.standin.calls()[mark_calls:] if c.method in VISIBLE_METHODS]
        records += self.standin.responses()[mark_resp:]
        for record in sorted(records, key=lambda r: r.at):
            printed += [self._from_response(record)] if isinstance(record, si.ResponsePost) else self._from_call(record)
        # numbers go on across the session, so a button keeps its number (as in Slack, an older
        # message's buttons still work); the oldest are forgotten past KEPT_CONTROLS
        self.controls = {c.number: (c, p.surface) for p in printed for c in p.controls}
        self.pressable.update(self.controls)
        for number in sorted(self.pressable)[:-KEPT_CONTROLS]:
            del self.pressable[number]
        return printed

    def command(self, text: str) -> list[Printed]:
        """Send ``/vllm-path text`` as this console user typed it (:func:`~bot.doors.console.slack.typed_text`:
        ``&<>`` escaped as Slack escapes them); returns what became visible."""
        response_url = self.standin.response_url()
        body = si.slash_command_body(
            si.typed_text(text),
            user_id=self.user_id,
            team_id=self.team_id,
            channel_id=self.channel_id,
            response_url=response_url,
        )
        return self._exchange(body, "application/x-www-form-urlencoded", response_url=response_url)

    def press(self, number: int) -> list[Printed]:
        """Press control ``[number]`` of this session (the last output's or an earlier one's, within
        the newest :data:`KEPT_CONTROLS`); raises ``KeyError`` if there is none."""
        control, surface = self.pressable[number]
        if surface.kind == "view":
            where: dict[str, Any] = {"view": surface.payload}
        else:
            where = {
                "message_ts": surface.message_ts,
                "message": None if surface.is_ephemeral else surface.payload,
                "is_ephemeral": surface.is_ephemeral,
                "response_url": self.standin.response_url(),
                "channel_id": surface.channel_id,
            }
        body = si.block_actions_body(control.action, user_id=self.user_id, team_id=self.team_id, **where)
        return self._exchange(body, "application/x-www-form-urlencoded", pressed=surface)

    def paste(self, url: str) -> list[Printed]:
        """Paste ``url`` in the console's channel (a ``link_shared`` event, as Slack sends for an
        unfurl domain of the app's manifest, :func:`bot.domain.links.unfurl_domains`); returns the
        unfurl the app attached (for a host that is no unfurl domain Slack sends nothing: said so)."""
        from urllib.parse import urlsplit

        from bot.domain.links import unfurl_domains

        host = (urlsplit(url.strip().strip("<>")).hostname or "").removeprefix("www.")
        if host not in unfurl_domains(self.app.handlers.rt.holder.catalog):
            note = f"Slack sends no link_shared for {host or 'this link'}: it is not an unfurl domain of the app."
            return [Printed("no unfurl", note)]
        event = si.link_shared_event([url], user_id=self.user_id, channel=self.channel_id, message_ts=self._fake_ts())
        return self._exchange(si.event_body(event, team_id=self.team_id), "application/json")

    def home(self) -> list[Printed]:
        """Open the App Home tab (an ``app_home_opened`` event); returns the published view."""
        published = [c for c in self.standin.calls("views.publish") if c.ok and c.args.get("user_id") == self.user_id]
        last_view = published[-1].response.get("view") if published else None
        event = si.app_home_opened_event(self.user_id, view=last_view)
        return self._exchange(si.event_body(event, team_id=self.team_id), "application/json")

    def _message(
        self,
        title: str,
        message: dict[str, Any],
        *,
        ephemeral: bool,
        ts: str | None = None,
        channel_id: str | None = None,
    ) -> Printed:
        blocks = message.get("blocks")
        text, controls = self._render(blocks) if blocks else (mrkdwn_to_text(str(message.get("text") or "")), [])
        surface = Surface(
            "message",
            {k: v for k, v in message.items() if k in ("text", "blocks", "ts")},
            message_ts=ts or self._fake_ts(),
            is_ephemeral=ephemeral,
            channel_id=channel_id or self.channel_id,
        )
        return Printed(title, text, controls, surface, dict(message))

    def _fake_ts(self) -> str:
        return f"{int(time.time())}.{next(self._ts):06d}"

    def _from_response(self, post: si.ResponsePost) -> Printed:
        if post.status != 200:
            return Printed(text("console.refused").format(status=post.status), "")
        body = post.body
        if body.get("delete_original"):
            return Printed(text("console.deleted"), "", raw=dict(body))
        pressed = self._pressed
        if body.get("replace_original") and pressed is not None and pressed.kind == "message":
            title = text("console.updated_private" if pressed.is_ephemeral else "console.updated")
            return self._message(
                title, body, ephemeral=pressed.is_ephemeral, ts=pressed.message_ts, channel_id=pressed.channel_id
            )
        if body.get("response_type") == "in_channel":
            title = text("console.in_channel").format(channel=si.CONSOLE_CHANNEL_NAME)
            return self._message(title, body, ephemeral=False)
        return self._message(text("console.reply"), body, ephemeral=True)

    def _from_call(self, call: si.ApiCall) -> list[Printed]:
        """A recorded Web API call as the surfaces it would show (a view, messages, unfurl cards)."""
        args = call.args
        status = "" if call.ok else f" -> {call.response.get('error') or call.status}"
        channel = str(args.get("channel") or "")
        if call.method.startswith("views."):
            return [self._from_view_call(call, status)]
        if call.method == "chat.unfurl":
            cards = args.get("unfurls")
            where, at = f"#{channel or 'composer'} (chat.unfurl{status})", str(args.get("ts") or "")
            return [
                self._message(
                    text("console.unfurl").format(url=url, where=where),
                    card,
                    ephemeral=False,
                    ts=at,
                    channel_id=channel,
                )
                for url, card in (cards.items() if isinstance(cards, dict) else ())
                if isinstance(card, dict)
            ]
        if call.method == "chat.postEphemeral":
            title = text("console.ephemeral").format(channel=args.get("channel"), method=call.method, status=status)
            return [self._message(title, args, ephemeral=True, ts=call.response.get("message_ts"))]
        if call.method in ("chat.postMessage", "chat.update"):
            ts: str | None = call.response.get("ts")
            title = f"DM {channel}" if channel.startswith("D") else f"#{channel}"
            if call.method == "chat.update":
                title, ts = text("console.updated"), str(args.get("ts") or "")
            return [self._message(f"{title} ({call.method}{status})", args, ephemeral=False, ts=ts, channel_id=channel)]
        return [Printed(f"{call.method}{status}", json.dumps(args, ensure_ascii=False)[:300])]

    def _from_view_call(self, call: si.ApiCall, status: str) -> Printed:
        """A views.* call as the view it published, opened or updated."""
        view = call.response.get("view") or call.args.get("view") or {}
        if isinstance(view, str):
            view = json.loads(view)
        text, controls = self._render(view.get("blocks"))
        where = "App Home" if view.get("type") == "home" else f"{view.get('type', 'view')}"
        return Printed(f"{where} ({call.method}{status})", text, controls, Surface("view", dict(view)), dict(view))

    def _render(self, blocks: Any) -> tuple[str, list[Control]]:
        """:func:`render_blocks` numbering on from the controls already shown in this output."""
        text, controls = render_blocks(blocks, start=self._next_number)
        self._next_number += len(controls)
        return text, controls


_CREDENTIALS: tuple[str, ...] = ("slack_bot_token", "slack_signing_secret", "slack_app_token", "slack_client_id")
_CREDENTIALS += ("slack_client_secret", "slack_api_url", "token_encryption_key")


def console_settings(settings: Any = None) -> Any:
    """The settings with every Slack credential removed, so that the console never talks to
    Slack and no secret reaches its recorder (database and catalog settings are kept)."""
    from bot.config import Settings

    return (settings or Settings()).model_copy(update=dict.fromkeys(_CREDENTIALS))


@contextmanager
def open_console(
    settings: Any = None,
    *,
    runtime: Runtime | None = None,
    user_id: str = si.CONSOLE_USER_ID,
    timeout: float = REPLY_TIMEOUT_S,
    strict: bool = False,
) -> Iterator[Console]:
    """A :class:`Console` on the runtime (unless given) and a fresh in-process Slack
    (:class:`~bot.doors.console.recorder.Recorder`) or, ``strict``, the tests' stand-in on loopback
    (closed on exit; needs a checkout: ``tests/standin``); a runtime made here is closed on exit (its
    answered requests released). Raises the runtime's errors
    (:class:`bot.domain.catalog.CatalogError`) and ``ImportError`` for ``strict`` without the tests."""
    from slack_sdk import WebClient

    from bot.runtime import Runtime
    from bot.slack.app import build_app

    with _slack(strict) as slack:
        rt = runtime or Runtime.create(console_settings(settings), index_now=False)  # index: on first search
        local = WebClient(token="xoxb-console-local", base_url=slack.api_url, timeout=10) if strict else None
        client = local or slack.client()
        listeners = ListenerExecutor()
        try:
            app = build_app(rt, client=client, verify_requests=False, listener_executor=listeners)
            if not strict:
                app.use(slack.middleware)  # respond() to the recorder
            yield Console(app, slack, user_id=user_id, timeout=timeout, listeners=listeners, runtime=rt)
        finally:
            listeners.wait_idle(timeout)  # a request's release comes once its listener ends
            listeners.shutdown(wait=False, cancel_futures=True)
            if runtime is None:  # ours: its pending releases written, or a later serve answers them again
                rt.store.close()


@contextmanager
def _slack(strict: bool) -> Iterator[Any]:
    """The console's Slack: a :class:`~bot.doors.console.recorder.Recorder`, or the stand-in."""
    if not strict:
        from bot.doors.console.recorder import Recorder

        yield Recorder()
        return
    from tests.standin import SlackStandIn  # a checkout's strict stand-in (the console may use it)

    with SlackStandIn() as standin:
        yield standin


def ask(text: str, *, user_id: str = si.CONSOLE_USER_ID) -> list[Printed]:
    """One command through the console machinery; returns what became visible (may be empty)."""
    with open_console(user_id=user_id) as console:
        return console.command(text)
