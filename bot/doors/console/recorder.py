"""The console's Slack in process (errbot's text backend): a :class:`Recorder` answers the app's
Web API calls as Slack does (:mod:`~bot.doors.console.answers`) and keeps them and the replies
sent to ``response_url``. The real app runs; nothing goes over a network."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from slack_sdk import WebClient
from slack_sdk.web import SlackResponse

from bot.doors.console.answers import ok_body
from bot.doors.console.slack import (
    CONSOLE_CHANNEL,
    CONSOLE_TEAM_ID,
    RESPONSE_PREFIX,
    ApiCall,
    ResponsePost,
    response_key,
)

_loads = json.loads  # api_call's parameter named ``json`` hides the module there


def _plain(value: Any) -> Any:
    """``value`` as the JSON Slack would receive (slack-sdk models as their dicts)."""
    return json.loads(json.dumps(value, default=lambda o: o.to_dict() if hasattr(o, "to_dict") else str(o)))


class Recorder:
    """The console's Slack: answers Web API calls as Slack does for one workspace (its team, its
    people ``users`` (None: anyone named by id), its ``channels``) and records them and the replies
    to response URLs. Thread-safe. :meth:`client` is the app's Web API client, :meth:`middleware`
    sends ``respond`` here."""

    base_url = "https://console.invalid"

    def __init__(self, users: dict[str, dict[str, Any]] | None = None) -> None:
        self.team_id, self.team_name = CONSOLE_TEAM_ID, "Console"
        self.users = users
        self.channels = [dict(CONSOLE_CHANNEL)]
        self._lock = threading.Lock()
        self._calls: list[ApiCall] = []
        self._posts: list[ResponsePost] = []
        self._ids = itertools.count(1)

    def __deepcopy__(self, memo: dict[int, Any]) -> Recorder:
        """Itself: Bolt deep-copies a request's context (its client, ``respond``) for lazy listeners,
        which must record here too."""
        return self

    def next_ts(self) -> str:
        """A fresh message ``ts`` (epoch seconds, 6 decimals, unique)."""
        return f"{int(time.time())}.{next(self._ids):06d}"

    def next_id(self) -> int:
        """A fresh number for ids (views, response URLs)."""
        return next(self._ids)

    def calls(self, method: str | None = None) -> list[ApiCall]:
        """The Web API calls so far (of ``method``), oldest first."""
        with self._lock:
            return [c for c in self._calls if method is None or c.method == method]

    def responses(self, url: str | None = None) -> list[ResponsePost]:
        """The posts to response URLs so far (to ``url``), oldest first."""
        with self._lock:
            return [p for p in self._posts if url is None or p.url == url]

    def response_url(self) -> str:
        """A fresh response URL for a request."""
        return f"{self.base_url}{RESPONSE_PREFIX}{self.next_id()}"

    def answer_ack(self, url: str, raw: bytes) -> int:
        """Record a command's reply given in its ack as a post to its ``url``; the status (200)."""
        self._post(url, raw, ack=True)
        return 200

    def _post(self, url: str, raw: bytes, ack: bool = False) -> None:
        post = ResponsePost(response_key(urlsplit(url).path) or url, url, raw, 200, time.monotonic(), ack)
        with self._lock:
            self._posts.append(post)

    def call(self, method: str, args: dict[str, Any], token: str | None) -> dict[str, Any]:
        """Slack's answer to ``method`` with ``args``, recorded."""
        response = ok_body(self, method, args)
        digest = hashlib.sha256(token.encode()).hexdigest()[:8] if token else None
        call = ApiCall(method, args, bool(token), digest, 200, response, time.monotonic())
        with self._lock:
            self._calls.append(call)
        return response

    def client(self) -> WebClient:
        """A Web API client whose calls this recorder answers."""
        return _RecordingClient(self)

    def middleware(self, context: Any, body: dict[str, Any], next: Callable[[], Any]) -> Any:
        """Bolt global middleware: a request's ``client`` (Bolt makes a plain ``WebClient`` per
        request) and ``respond`` call here; lazy listeners get both, Bolt copies them with the context."""
        context["client"] = self.client()
        url = body.get("response_url")
        if isinstance(url, str):
            context["respond"] = _Respond(self, url)
        return next()


class _RecordingClient(WebClient):
    """slack-sdk's ``WebClient`` whose ``api_call`` (its public seam) is answered by a :class:`Recorder`."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(token="xoxb-console-local", base_url=recorder.base_url + "/api/")
        self._recorder = recorder

    def api_call(  # the same arguments, answered in process
        self,
        api_method: str,
        *,
        http_verb: str = "POST",
        files: dict[str, Any] | None = None,
        data: dict[str, Any] | Any = None,
        params: dict[str, Any] | None = None,
        json: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None,
        auth: dict[str, Any] | None = None,
    ) -> SlackResponse:
        args = _plain({**(params or {}), **(data if isinstance(data, dict) else {}), **(json or {})})
        for key, value in list(args.items()):  # form fields holding JSON, as Slack decodes them
            if isinstance(value, str) and value[:1] in "[{":
                with contextlib.suppress(ValueError):
                    args[key] = _loads(value)
        answer = self._recorder.call(api_method, args, self.token)
        return SlackResponse(
            client=self,
            http_verb=http_verb,
            api_url=self.base_url + api_method,
            req_args={},
            data=answer,
            headers={},
            status_code=200,
        ).validate()


class _Respond:
    """Bolt's ``respond`` for one response URL, recorded instead of posted."""

    def __init__(self, recorder: Recorder, url: str) -> None:
        self._recorder, self.response_url = recorder, url

    def __call__(self, text: str | dict[str, Any] = "", **fields: Any) -> None:
        message = dict(text) if isinstance(text, dict) else {"text": text, **fields}
        message = {k: v for k, v in message.items() if v is not None}
        self._recorder._post(self.response_url, json.dumps(_plain(message)).encode("utf-8"))
