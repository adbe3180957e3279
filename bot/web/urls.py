"""The public path pages' addresses, for the replies that link to them (standard library only)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

PATHS_PREFIX = "/paths"
"""The path pages: ``/paths`` (every track) and ``/paths/<track>``."""


def path_page_url(settings: Any, track_id: str, lang: str = "en") -> str | None:
    """``<PUBLIC_URL>/paths/<track>`` (``?lang=zh`` for Chinese); None without ``public_url``."""
    base = getattr(settings, "public_url", None)
    if not base:
        return None
    return f"{str(base).rstrip('/')}{PATHS_PREFIX}/{quote(track_id)}" + ("?lang=zh" if lang == "zh" else "")
