"""Feed notices: which posts of the blog's feed the catalog admins were told about (once each)."""

from __future__ import annotations

from sqlalchemy import delete, select

from bot.store.base import StoreCore
from bot.store.models import CatalogFeedNotice

MAX_URL = 2000
MAX_TITLE = 1000


class FeedNoticesRepo(StoreCore):
    """The posts :mod:`bot.catalog_watch` has announced to ``CATALOG_ADMIN_CHANNEL``."""

    def noticed_urls(self) -> set[str]:
        """The URLs of every post already announced."""
        with self._read() as s:
            return set(s.scalars(select(CatalogFeedNotice.url)))

    def claim_feed_notice(self, url: str, title: str) -> bool:
        """Claim the notice for a post (``url`` absolute, at most 2,000 characters): True the first
        time only; :meth:`release_feed_notice` if the announcement fails. Raises ``ValueError``
        for an empty or too long URL."""
        if not url or len(url) > MAX_URL:
            raise ValueError("url must be 1..2000 characters")
        return self._insert_new(CatalogFeedNotice, url=url, title=title[:MAX_TITLE], notified_at=self._now())

    def release_feed_notice(self, url: str) -> None:
        """Forget a claim whose announcement failed (the next check tries again)."""
        self._change(delete(CatalogFeedNotice).where(CatalogFeedNotice.url == url))
