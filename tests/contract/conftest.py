"""Fixtures for tests/contract (defined in fixtures.py so other test folders can import them)."""

from tests.contract.fixtures import prism, slack_api, slack_api_server, slack_client

__all__ = ["prism", "slack_api", "slack_api_server", "slack_client"]  # fixtures for pytest
