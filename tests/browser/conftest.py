"""Browser tests (issue 25): Playwright for Python driving Debian's Chromium (``/usr/bin/chromium``;
Playwright's own browser download is not used). Without Chromium or Playwright they skip with the
reason; with ``BROWSER_REQUIRED=1`` (CI) they fail instead. Screenshots go to ``$BROWSER_ARTIFACTS``
(default ``tests/browser/artifacts/``, git-ignored)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS") or Path(__file__).resolve().parent / "artifacts")
CLIENT_ID, CLIENT_SECRET = "5151.1515", "browser-client-secret"


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)"
    if shutil.which("dot") is None:
        return "Graphviz's dot is not installed (apt-get install -y graphviz)"
    return None


@pytest.fixture(scope="session")
def browser():
    missing = _missing()
    if missing:
        if os.environ.get("BROWSER_REQUIRED") == "1":
            pytest.fail(f"BROWSER_REQUIRED=1 but {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def site(tmp_path):
    """The real HTTP door in OAuth mode with the Slack stand-in (authorize URL pointed at it):
    ``(door url, stand-in)``."""
    from tests.e2e.conftest import oauth_door

    with oauth_door(tmp_path, CLIENT_ID, CLIENT_SECRET) as (door, standin):
        yield door.url, standin
