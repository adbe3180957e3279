"""The catalog watch's notice to admins (pure): the blog's posts the catalog lacks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.domain.feed import SourcePost
from bot.slack.mrkdwn import Mrkdwn, link, truncate
from bot.slack.views.blocks import Reply, context, make_reply, section

MAX_LISTED = 10
"""Posts listed one by one in a notice; more are counted in one line."""


def feed_notice(posts: Sequence[SourcePost], feed_url: str, total_missing: int) -> Reply:
    """The notice for ``posts`` (new to the admins) of ``total_missing`` missing in all; no mention."""
    lines = [Mrkdwn("*The vLLM blog has {} post(s) the catalog does not hold yet:*").format(len(posts))]
    for post in posts[:MAX_LISTED]:
        lines.append(Mrkdwn("• {} · {}").format(link(post.url, truncate(post.title, 200)), post.date.isoformat()))
    if len(posts) > MAX_LISTED:
        lines.append(Mrkdwn("… and {} more").format(len(posts) - MAX_LISTED))
    command = Mrkdwn("`vllm-path catalog import {} --write`").format(truncate(feed_url, 500))
    how = Mrkdwn(
        "Import them as drafts with {}, then write each summary in our own words and place "
        "the post in a track: `catalog check` refuses drafts, so nothing is published "
        "until a person has done that."
    ).format(command)
    blocks: list[Any] = [section(Mrkdwn("\n").join(lines)), section(how)]
    if total_missing > len(posts):
        before = Mrkdwn("{} more missing post(s) were announced before.").format(total_missing - len(posts))
        blocks.append(context(before))
    return make_reply(blocks, Mrkdwn("\n").join(lines))
