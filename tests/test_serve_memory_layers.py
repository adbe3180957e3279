"""What ``vllm-path serve`` leaves out of its memory until asked (issue 43: ``serve`` <= 70 MB idle,
<= 80 MB after 10,000 commands; ``benchmarks/serve_memory.py``): the search index (numpy, bm25s)
until the first search, and the web pages (jinja2) until the first page is asked for."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from bot.config import Settings


class _Stop(Exception):
    pass


def test_serve_builds_no_search_index_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.doors import serve as serve_module
    from bot.runtime import Runtime

    seen: dict[str, Any] = {}

    def create(settings: Settings | None = None, **options: Any) -> Runtime:
        seen.update(options)
        raise _Stop

    monkeypatch.setattr(Runtime, "create", staticmethod(create))
    settings = Settings(
        _env_file=None, slack_bot_token=SecretStr("xoxb-t"), slack_signing_secret=SecretStr("s"), log_level="WARNING"
    )
    with pytest.raises(_Stop):
        serve_module.serve(settings)
    assert seen.get("index_now") is False


def test_the_web_pages_are_built_on_the_first_page_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.web.routes
    from bot.doors.http import _WebRoutes

    built: list[object] = []

    def routes(runtime: object) -> Any:
        built.append(runtime)
        return lambda path, method, environ: ("200 OK", [], path.encode())

    monkeypatch.setattr(bot.web.routes, "routes", routes)
    runtime = object()
    pages = _WebRoutes(runtime)  # type: ignore[arg-type]
    assert pages("/slack/events", "POST", {}) is None and pages("/paths", "PUT", {}) is None
    assert built == []  # Slack's requests never build them
    assert pages("/paths", "GET", {}) == ("200 OK", [], b"/paths")
    assert pages("/", "HEAD", {})[2] == b"/" and built == [runtime]  # built once


def test_the_metrics_are_made_on_first_use_and_count_from_there() -> None:
    import subprocess
    import sys

    code = (
        "import sys, bot.metrics as m, bot.slack.app\n"
        "print('prometheus_client' in sys.modules)\n"
        "m.observe_reply('command', {m.RECEIVED_AT: 0.0}); m.LAZY_SHED.inc()\n"
        "print('prometheus_client' in sys.modules, m.REGISTRY.get_sample_value('vllm_path_lazy_shed_total'))\n"
        "print(m.REGISTRY.get_sample_value('vllm_path_reply_seconds_count', {'kind': 'command'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True", "1.0", "1.0"]
