"""What :mod:`bot.digest` posts: :data:`RENDERER`, via :attr:`bot.runtime.Runtime.renderer`."""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog import Catalog
from bot.slack.views.blocks import Reply
from bot.slack.views.digest import compose_channel_digest
from bot.slack.views.feed import draft_card, feed_notice
from bot.slack.views.plan_dm import budget_dm_composer, with_new
from bot.slack.views.reminders import reminder_message
from bot.slack.views.together import club_thread, nudge_message


class SlackDigestRenderer:
    """The :class:`bot.digest.render.DigestRenderer` of Block Kit :class:`Reply` values. Stateless."""

    channel_digest = staticmethod(compose_channel_digest)
    reminder = staticmethod(reminder_message)
    feed_notice = staticmethod(feed_notice)
    draft_card = staticmethod(draft_card)
    club_thread = staticmethod(club_thread)
    nudge = staticmethod(nudge_message)

    @staticmethod
    def dm_digest(
        catalog: Catalog,
        follows: Sequence[str],
        read: set[str],
        lang: str,
        minutes_per_week: int | None = None,
        new: Sequence[tuple[str, str, int]] = (),
    ) -> Reply | None:
        """The weekly DM at ``minutes_per_week`` (``None``: the default) naming ``new`` posts
        (:func:`bot.slack.views.plan_dm.with_new`); None when nothing is left."""
        reply = budget_dm_composer(catalog, lang).compose(follows, read, minutes_per_week or DEFAULT_MINUTES)
        return None if reply is None else with_new(reply, catalog, new, lang)


RENDERER = SlackDigestRenderer()
