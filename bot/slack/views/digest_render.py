"""What :mod:`bot.digest` posts: :data:`RENDERER`, via :attr:`bot.runtime.Runtime.renderer`."""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog import Catalog
from bot.slack.views.blocks import Reply
from bot.slack.views.digest import compose_channel_digest
from bot.slack.views.feed import feed_notice
from bot.slack.views.plan_dm import budget_dm_composer
from bot.slack.views.reminders import reminder_message


class SlackDigestRenderer:
    """The :class:`bot.digest.render.DigestRenderer` of Block Kit :class:`Reply` values. Stateless."""

    channel_digest = staticmethod(compose_channel_digest)
    reminder = staticmethod(reminder_message)
    feed_notice = staticmethod(feed_notice)

    @staticmethod
    def dm_digest(
        catalog: Catalog, follows: Sequence[str], read: set[str], lang: str, minutes_per_week: int | None = None
    ) -> Reply | None:
        """The weekly DM at ``minutes_per_week`` (``None``: the default); None when nothing is left."""
        return budget_dm_composer(catalog, lang).compose(follows, read, minutes_per_week or DEFAULT_MINUTES)


RENDERER = SlackDigestRenderer()
