"""How :class:`bot.domain.catalog.placement.Placer` ranks a post's tracks beyond its words: what
the catalog says of posts from the same kind of source (:func:`source_shares`) and a second
opinion from the post's title alone for the second place (:func:`second_opinion`). Pure.

Measured with ``benchmarks/placement.py`` (leave-one-out over catalog 2026.12.32, feed text), right
track in the top two: 149 of 157 before either; with the title's second opinion 152 (the three
vLLM-blog posts it moves in are a model launch, a meetup and a product integration whose long
bodies dwell on other tracks); with the source shares too 153 (a company's title-only post on
running an API for an organisation, now deployment second). The right track first is unchanged
(142) by both. The live drafts show three suggestions: the whole text's second, when the title's
takes its place, is third.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

SOURCE_WEIGHT = 0.05
"""What being from another company's blog, not the vLLM blog's, adds to a track's score: this times
the share of the catalog's steps from such blogs that are the track's (:func:`source_shares`).
The vLLM blog writes about everything; other companies' posts the catalog files mostly under a few
tracks (deployment guides, quantization recipes, speculative decoding heads). Feed text: 0.02 to
0.2 give the same top two (153 of 157); title only, track first: 0.764 at 0 and at 0.1, 0.771 at 0.05."""

T = TypeVar("T")


def source_shares(steps: Iterable[tuple[str, bool]]) -> dict[str, float]:
    """Track id -> the share of the catalog's steps not from the vLLM blog that are that track's,
    counted over ``steps`` (track id, the step's post is from the vLLM blog), one unseen step more in
    the total (a catalog with few such steps says little); a track with none is left out."""
    counts = Counter(track for track, vllm_blog in steps if not vllm_blog)
    total = sum(counts.values()) + 1
    return {track: n / total for track, n in counts.items()}


def second_opinion(ranked: Sequence[T], alone: Mapping[str, float], track_of: Callable[[T], str]) -> list[T]:
    """``ranked`` (best first, by the whole text) with its second place given to the best of the
    rest by the title alone (``alone``: track id -> the title's own score; ties keep ``ranked``'s
    order). The first place stays the whole text's: the top two then hold both readings when a long
    body dwells on a side topic (a meetup's talks, a launch's kernels) that its title does not."""
    if len(ranked) < 3:
        return list(ranked)
    rest = sorted(ranked[1:], key=lambda item: -alone.get(track_of(item), 0.0))
    second = rest[0]
    return [ranked[0], second, *(item for item in ranked[1:] if item is not second)]
