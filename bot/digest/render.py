"""What the digest needs rendered, as types: the digest decides when and sends, a renderer writes.

``bot/digest/`` never imports Block Kit, the views or the string table: it posts what
:attr:`bot.runtime.Runtime.renderer` (a :class:`DigestRenderer`) returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from bot.domain.catalog import Catalog
    from bot.domain.catalog.drafts import Draft
    from bot.domain.catchup import CatchUp
    from bot.domain.plan import SubscriptionLike


class Message(Protocol):
    """A message to post: ``text`` (plain-text fallback) and ``blocks`` (as ``chat.postMessage`` takes them)."""

    @property
    def text(self) -> str: ...
    @property
    def blocks(self) -> Sequence[Any]: ...


class ChannelDigestLike(Protocol):
    """A channel digest: ``reply`` (None: nothing to post), the new ``cursor``, the catalog ``version``,
    the ``steps`` (post ids) it brings."""

    @property
    def reply(self) -> Message | None: ...
    @property
    def cursor(self) -> int: ...
    @property
    def version(self) -> str: ...
    @property
    def steps(self) -> tuple[str, ...]: ...


class DigestRenderer(Protocol):
    """Renders what the digest sends (pure: catalog and reader state in, a message out)."""

    def channel_digest(
        self,
        catalog: Catalog,
        sub: SubscriptionLike,
        snapshot: Mapping[str, Sequence[str]] | None,
        lang: str,
        page_url: str | None = None,
        readers: int | None = None,
    ) -> ChannelDigestLike:
        """This week's digest for ``sub`` (``snapshot``: the path of its last catalog version,
        ``{track id: [post ids]}``, or None; ``page_url``: the track's public path page, linked
        when set; ``readers``: how many marked a reading club's last digest read, None: no club).
        Raises ``KeyError`` for a track the catalog lacks."""

    def dm_digest(
        self,
        catalog: Catalog,
        follows: Sequence[str],
        read: set[str],
        lang: str,
        minutes_per_week: int | None = None,
        new: Sequence[tuple[str, str, int]] = (),
        catchup: CatchUp | None = None,
    ) -> Message | None:
        """A person's weekly DM (``follows``: track ids; ``read``: post ids; ``minutes_per_week``:
        their budget, None for :data:`bot.domain.budget.DEFAULT_MINUTES`; ``new``: ``(track id,
        post id, step number)`` added behind what they read, :func:`bot.domain.plan.new_behind`,
        named once; ``catchup``: what "catch me up" lists, for ``dm catchup on``, its newest few
        named, None: not asked for); None: nothing to say."""

    def reminder(self, catalog: Catalog, post_id: str, lang: str) -> Message:
        """The reminder DM about ``post_id`` (a current post id of ``catalog``)."""

    def club_thread(self, catalog: Catalog, steps: Sequence[str], lang: str) -> Message:
        """The reply opening a reading club digest's thread: the discussion prompts of ``steps``."""

    def nudge(self, budget: int, lower: int | None, lang: str) -> Message:
        """The gentle DM to a reader two weeks behind their ``budget`` (minutes a week), offering
        ``lower`` minutes (None: none lower), a pause, or no more DMs."""

    def draft_card(self, draft: Draft, catalog: Catalog, lang: str) -> Message:
        """A curator's review card of ``draft`` (a new post from the feeds, issue 41)."""
