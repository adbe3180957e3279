"""The digest's renderer: what :mod:`bot.digest` posts, written by the views.

:data:`RENDERER` is the :class:`bot.digest.render.DigestRenderer` the composition root
(:attr:`bot.runtime.Runtime.renderer`) hands the clock and the workers, so that the digest
decides when and sends and never imports Block Kit or the string table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.cli.importer import SourcePost
from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog import Catalog
from bot.domain.plan import SubscriptionLike
from bot.slack.views.blocks import Reply
from bot.slack.views.digest import ChannelDigest, compose_channel_digest
from bot.slack.views.feed import feed_notice
from bot.slack.views.plan_dm import budget_dm_composer
from bot.slack.views.reminders import reminder_message


class SlackDigestRenderer:
    """Channel digests, DM digests (planned by the reader's budget or the default, with the
    cached composer of :mod:`bot.slack.views.plan_dm`), reminder DMs and the catalog watch's notice, as Block
    Kit :class:`Reply` values. Stateless; the composers it uses are cached per catalog."""

    def channel_digest(
        self,
        catalog: Catalog,
        sub: SubscriptionLike,
        snapshot: Mapping[str, Sequence[str]] | None,
        lang: str,
        page_url: str | None = None,
    ) -> ChannelDigest:
        """:func:`bot.slack.views.digest.compose_channel_digest`."""
        return compose_channel_digest(catalog, sub, snapshot, lang=lang, page_url=page_url)

    def dm_digest(
        self, catalog: Catalog, follows: Sequence[str], read: set[str], lang: str, minutes_per_week: int | None = None
    ) -> Reply | None:
        """The weekly DM: the next steps of the followed tracks that fit the reader's budget,
        ``minutes_per_week``, or the default (:data:`bot.domain.budget.DEFAULT_MINUTES`) when
        they set none; always at least one step
        (:class:`bot.slack.views.plan_dm.BudgetDmComposer`). None when there is nothing to
        suggest."""
        return budget_dm_composer(catalog, lang).compose(follows, read, minutes_per_week or DEFAULT_MINUTES)

    def reminder(self, catalog: Catalog, post_id: str, lang: str) -> Reply:
        """:func:`bot.slack.views.reminders.reminder_message`."""
        return reminder_message(catalog, post_id, lang)

    def feed_notice(self, posts: Sequence[SourcePost], feed_url: str, total_missing: int) -> Reply:
        """:func:`bot.slack.views.feed.feed_notice`."""
        return feed_notice(posts, feed_url, total_missing)


RENDERER = SlackDigestRenderer()
"""The app's digest renderer."""
