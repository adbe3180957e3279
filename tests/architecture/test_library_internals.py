"""Issue 39: ``bot/`` uses no private name of slack-sdk or Bolt but the ones listed in :data:`KEPT`, each
pinned below the library's next minor in ``pyproject.toml`` and checked here for the shape it relies
on, so that a release that changes it fails here rather than in production. And the public Bolt
contract :mod:`bot.slack.lazy` relies on instead: with ``process_before_response=True`` the ack runs in
the dispatching thread and only lazy listeners go to ``App(listener_executor=...)``."""

from __future__ import annotations

import ast
import inspect
import threading
import tomllib
from concurrent.futures import Future, ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path
from typing import Any

import slack_bolt
import slack_sdk
from packaging.requirements import Requirement
from slack_bolt import App, BoltRequest
from slack_bolt.authorization import AuthorizeResult
from slack_sdk.http_retry.handler import RetryHandler
from slack_sdk.web.base_client import BaseClient

ROOT = Path(__file__).resolve().parents[2]
KEPT = {
    ("bot/slack/retry.py", "_can_retry"),  # the method every slack-sdk retry handler overrides
}
"""(module, private name) pairs allowed in ``bot/``: the only ones, each checked below."""


def _authorize(**_: Any) -> AuthorizeResult:
    return AuthorizeResult(enterprise_id=None, team_id="T1", bot_token="xoxb-1", bot_user_id="U0")


def _app(**kwargs: Any) -> App:
    return App(signing_secret="unused", request_verification_enabled=False, authorize=_authorize, name="t", **kwargs)


def _private_library_names() -> set[str]:
    """The single-underscore names of the classes the slack libraries export at their top (and of an
    ``App``'s and a ``WebClient``'s instance attributes), with ``BaseClient``'s and ``RetryHandler``'s."""
    classes = [getattr(m, n) for m in (slack_bolt, slack_sdk) for n in dir(m)] + [BaseClient, RetryHandler]
    names = {n for c in classes if inspect.isclass(c) for n in dir(c)} | {*vars(_app()), *vars(slack_sdk.WebClient())}
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def test_bot_uses_no_private_name_of_the_slack_libraries_but_the_kept_ones() -> None:
    private, found = _private_library_names(), set()
    for path in sorted((ROOT / "bot").rglob("*.py")):
        module = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("slack_bolt", "slack_sdk")):
                parts = (node.module or "").split(".") + [a.name for a in node.names]
                found |= {(module, p) for p in parts if p.startswith("_") or p == "internals"}
            elif isinstance(node, ast.Attribute) and node.attr in private:
                if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                    found.add((module, node.attr))
            elif isinstance(node, ast.Constant) and node.value in private:  # getattr(app, "_name")
                found.add((module, node.value))
    assert found <= KEPT, sorted(found - KEPT)


def test_each_slack_library_is_pinned_below_its_next_release_that_may_break_us() -> None:
    """slack-sdk below its next minor (a private method is kept: re-read it and this file before raising
    the pin), Bolt below 2; the installed versions within."""
    pins = {
        (r := Requirement(line)).name: r.specifier
        for line in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    }
    assert str(pins["slack-sdk"]).count("<3.") == 1 and version("slack-sdk") in pins["slack-sdk"]
    assert "<2" in str(pins["slack-bolt"]) and version("slack-bolt") in pins["slack-bolt"]


def test_retry_handlers_still_decide_in_can_retry() -> None:
    """:class:`bot.slack.retry.CountingRateLimitRetryHandler` overrides ``_can_retry``, which
    ``can_retry`` calls with keywords only."""
    keywords = inspect.signature(RetryHandler._can_retry).parameters
    assert [n for n, p in keywords.items() if p.kind is p.KEYWORD_ONLY] == ["state", "request", "response", "error"]
    assert "return self._can_retry(" in inspect.getsource(RetryHandler.can_retry)


class _Recording(ThreadPoolExecutor):
    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.submitted: list[Any] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted.append(fn)
        return super().submit(fn, *args, **kwargs)


def test_bolt_sends_only_lazy_listeners_to_the_listener_executor() -> None:
    executor, ran = _Recording(), {}
    app = _app(process_before_response=True, listener_executor=executor)

    def ack_now(ack: Any) -> None:
        ran["ack"] = threading.current_thread().name
        ack()

    def later() -> None:
        ran["lazy"] = threading.current_thread().name

    app.command("/x")(ack=ack_now, lazy=[later])
    body = "command=%2Fx&text=&team_id=T1&user_id=U1&channel_id=C1&response_url=https%3A%2F%2Fexample.com%2Fr"
    response = app.dispatch(BoltRequest(body=body, headers={"content-type": ["application/x-www-form-urlencoded"]}))
    executor.shutdown(wait=True)
    assert response.status == 200
    assert ran["ack"] == threading.current_thread().name
    assert len(executor.submitted) == 1 and ran["lazy"] != ran["ack"]


def test_bm25s_is_pinned_and_still_selects_its_scorers_by_name() -> None:
    """:class:`bot.domain.search.ranking` builds its sparse index from bm25s's private
    ``scoring._select_idf_scorer`` / ``_select_tfc_scorer`` (a vectorised build for large catalogs):
    bm25s is pinned below its next minor, and both still take the method name and return scorers of
    the keywords the index passes."""
    import bm25s.scoring
    import numpy as np

    pins = {
        (r := Requirement(line)).name: r.specifier
        for line in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    }
    assert "<0." in str(pins["bm25s"]) and version("bm25s") in pins["bm25s"]
    idf = bm25s.scoring._select_idf_scorer("lucene")
    assert idf(1, N=10) > idf(5, N=10) > 0
    tfc = bm25s.scoring._select_tfc_scorer("lucene")
    out = tfc(tf_array=np.array([1.0, 3.0]), l_d=np.array([10, 10]), l_avg=10.0, k1=1.5, b=0.75, delta=0.5)
    assert out.shape == (2,) and out[1] > out[0] > 0
