"""pytest fixtures for Slack contract tests: Prism serving Slack's adapted spec, behind a recorder.

``tests/contract/conftest.py`` imports them, so tests under ``tests/contract/`` get them as is.
Tests elsewhere can import them into their own ``conftest.py``::

    from tests.contract.fixtures import prism, slack_api, slack_api_server, slack_client
    __all__ = ["prism", "slack_api", "slack_api_server", "slack_client"]

Prism is started once per test process however many conftest files import these (see
``slack_mock.shared_prism``). When Node.js or ``tests/contract/node_modules`` is missing the
fixtures skip with "Node.js/Prism not installed: run `npm ci --prefix tests/contract`"; set
``SLACK_CONTRACT_REQUIRED=1`` (e.g. in CI) to make that a failure instead.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.contract.slack_mock import (
    PrismUnavailable,
    RecordingProxy,
    prism_missing_reason,
    require_prism,
    shared_prism,
    stop_shared_prism,
)


@pytest.fixture(scope="session")
def prism(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT``) of Prism mocking Slack's Web API at ``/api/<method>``."""
    reason = prism_missing_reason()
    if reason:
        if require_prism():
            pytest.fail(reason + " (SLACK_CONTRACT_REQUIRED is set)", pytrace=False)
        pytest.skip(reason)
    try:
        server = shared_prism(tmp_path_factory.mktemp("prism"))
    except PrismUnavailable as exc:  # pragma: no cover - raced with the check above
        pytest.skip(str(exc))
    yield server.base_url
    stop_shared_prism()


@pytest.fixture(scope="session")
def slack_api_server(prism: str) -> Iterator[RecordingProxy]:
    """The recording proxy in front of Prism, one per session (prefer ``slack_api``)."""
    proxy = RecordingProxy(prism).start()
    yield proxy
    proxy.stop()


@pytest.fixture
def slack_api(slack_api_server: RecordingProxy) -> RecordingProxy:
    """The recording proxy with an empty call log for this test.

    ``slack_api.base_url`` -> ``WebClient(base_url=...)``; ``slack_api.calls``,
    ``slack_api.calls_to("chat.postMessage")``, ``slack_api.assert_all_ok()``.
    """
    slack_api_server.reset()
    return slack_api_server


@pytest.fixture
def slack_client(slack_api: RecordingProxy):
    """A real ``slack_sdk.WebClient(token="xoxb-test")`` talking to Prism through the proxy."""
    return slack_api.client()
