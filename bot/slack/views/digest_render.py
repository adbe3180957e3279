"""What :mod:`bot.digest` posts: :data:`RENDERER`, via :attr:`bot.runtime.Runtime.renderer`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog import Catalog
from bot.domain.catchup import CatchUp
from bot.slack.views.blocks import Reply
from bot.slack.views.catchup import HOME_NEW, home_catchup_blocks
from bot.slack.views.digest import compose_channel_digest
from bot.slack.views.feed import draft_card
from bot.slack.views.plan_dm import budget_dm_composer, with_new
from bot.slack.views.reminders import reminder_message
from bot.slack.views.together import club_thread, nudge_message


class SlackDigestRenderer:
    """The :class:`bot.digest.render.DigestRenderer` of Block Kit :class:`Reply` values. Stateless."""

    channel_digest = staticmethod(compose_channel_digest)
    reminder = staticmethod(reminder_message)
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
        catchup: CatchUp | None = None,
    ) -> Reply | None:
        """The weekly DM at ``minutes_per_week`` (``None``: the default) naming ``new`` posts
        (:func:`bot.slack.views.plan_dm.with_new`; those the catch-up lists are left out), then
        ``catchup``'s newest posts as App Home lists them (:func:`bot.slack.views.catchup.home_catchup_blocks`);
        None when nothing is left."""
        reply = budget_dm_composer(catalog, lang).compose(follows, read, minutes_per_week or DEFAULT_MINUTES)
        if reply is None:
            return None
        missed = home_catchup_blocks(catalog, catchup, lang)
        if missed and catchup is not None:  # a post the catch-up names is not named again (QA)
            listed = {n.step.post_id for n in catchup.new[:HOME_NEW]}
            new = [item for item in new if item[1] not in listed]
        reply = with_new(reply, catalog, new, lang)
        return replace(reply, blocks=[*reply.blocks[:2], *missed, *reply.blocks[2:]]) if missed else reply


RENDERER = SlackDigestRenderer()
