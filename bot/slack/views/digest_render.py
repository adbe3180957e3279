"""The digest's renderer: what :mod:`bot.digest` posts, written by the views.

:data:`RENDERER` is the :class:`bot.digest.render.DigestRenderer` the composition root
(:attr:`bot.runtime.Runtime.renderer`) hands the clock and the workers, so that the digest
decides when and sends and never imports Block Kit or the string table.
"""

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
    """The :class:`bot.digest.render.DigestRenderer` of Block Kit :class:`Reply` values, each
    method one view function. Stateless; the composers it uses are cached per catalog."""

    channel_digest = staticmethod(compose_channel_digest)
    reminder = staticmethod(reminder_message)
    feed_notice = staticmethod(feed_notice)

    @staticmethod
    def dm_digest(
        catalog: Catalog, follows: Sequence[str], read: set[str], lang: str, minutes_per_week: int | None = None
    ) -> Reply | None:
        """The weekly DM planned by the reader's budget, ``minutes_per_week``, or the default
        (:data:`bot.domain.budget.DEFAULT_MINUTES`) when they set none
        (:class:`bot.slack.views.plan_dm.BudgetDmComposer`). None when there is nothing to
        suggest."""
        return budget_dm_composer(catalog, lang).compose(follows, read, minutes_per_week or DEFAULT_MINUTES)


RENDERER = SlackDigestRenderer()
"""The app's digest renderer."""
