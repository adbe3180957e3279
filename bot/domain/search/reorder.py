"""Reorderings of a ranked result list that the ranking itself does not decide (QA): ``latest
<topic>`` lists the posts on the topic newest first, and a query with no telling term (``what is
vllm``, every title says it) lists the posts tied at 100 most general first. Pure functions over the
matcher's ranked rows ``(fused score 0..100, doc number, matched field, coverage 0..1)``."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bot.domain.catalog import Catalog
from bot.domain.search.weights import ASKED_UNLINKED_PENALTY, TRACK_HINT_BONUS, UNLINKED_PENALTY

Ranked = tuple[float, int, str, float]
"""A ranked post: fused score (0..100), doc number, matched field, coverage (0..1)."""

NEWEST_LEAD = re.compile(
    r"^\s*(?:(?:the\s+)?(?:latest|newest|most\s+recent)\s+(?:(?:posts?|articles?)\s+)?(?:on|in|about|for)?\s*"
    r"|最新(?:的\s*|\s+))",
    re.IGNORECASE,
)
"""A query's lead asking for the newest posts on what follows (``latest eagle``, ``最新 推测解码``):
the posts on it are shown newest first (:func:`newest_first`)."""

NEWEST_SHARE = 0.8
"""The share of the best score a post needs to be listed by date for ``latest <topic>``: weaker
matches (a mention in a question) follow, as ranked."""

GENERAL_LEVELS = frozenset({"intro", "core"})
"""Levels of the getting-started track's steps that rank first among ties (:func:`general_first`)."""


def generality(catalog: Catalog, post_ids: Sequence[str], start_track: str | None) -> dict[str, tuple[int, float]]:
    """Post id -> ``(its place among the essential intro and core steps of ``start_track`` (the
    getting-started track's id; None: no such track), in reading order, else after them; its earliest
    place in any track's reading order as a share of the track, 0..1, 1 when on no track)``: the
    smaller, the more general the post (what a newcomer reads first, then what a path starts with)."""
    first: list[str] = []
    if start_track is not None:  # its essential intro and core steps: the advanced ones are no general post
        steps = {st.post: st for st in catalog.track(start_track).steps}
        first = [p for p in catalog.order(start_track) if steps[p].essential and steps[p].level in GENERAL_LEVELS]
    place = {pid: i for i, pid in enumerate(first)}
    earliest: dict[str, float] = {}
    for track in catalog.tracks:
        order = catalog.order(track.id)
        for i, pid in enumerate(order):
            earliest[pid] = min(earliest.get(pid, 1.0), i / len(order))
    return {pid: (place.get(pid, len(first)), earliest.get(pid, 1.0)) for pid in post_ids}


def newest_first(
    good: list[Ranked], catalog: Catalog, post_ids: Sequence[str], on_topic: Callable[[int], bool]
) -> list[Ranked]:
    """``good`` with the posts ``on_topic`` (doc number -> holds the query's telling terms) that score
    at least :data:`NEWEST_SHARE` of the best first, newest first by publication date (the latest day
    of a range), then the others as ranked: ``latest eagle`` (QA: it was ranked by relevance only)."""
    bar = NEWEST_SHARE * min(100.0, good[0][0]) - 1e-9 if good else 0.0
    holders = [r for r in good if r[0] >= bar and on_topic(r[1])]
    if not holders:
        return good
    dated = sorted(holders, key=lambda r: catalog.post(post_ids[r[1]]).published.latest, reverse=True)
    taken = {r[1] for r in holders}
    return dated + [r for r in good if r[1] not in taken]


def general_first(good: list[Ranked], general: dict[str, tuple[int, float]], post_ids: Sequence[str]) -> list[Ranked]:
    """``good`` with the posts tied at the shown score of 100 (QA: ``what is vllm`` listed a dozen,
    each title saying "vLLM") the most general first (``general``: :func:`generality`, or a track's
    path order; a post it does not hold comes after those it holds), after the posts
    ``answers.yaml`` lists for the query; the order is otherwise kept."""
    head = 0
    while head < len(good) and good[head][2] == "answers":
        head += 1
    end = head
    while end < len(good) and good[end][0] >= 100.0 - 1e-9:
        end += 1
    if end - head < 2:
        return good
    last = (len(general), 0.0)  # a post ``general`` does not hold: after those it holds
    tied = sorted(good[head:end], key=lambda r: general.get(post_ids[r[1]], last))  # stable: ranked order within
    return good[:head] + tied + good[end:]


SHOWN_TOP = 99.95
"""The raw score from which a post is shown at 100 (scores are shown rounded to a tenth, at most 100)."""


def originals_first(good: list[Ranked], summary: Callable[[int], bool]) -> list[Ranked]:
    """``good`` with, among its leading posts shown tied at 100 (:data:`SHOWN_TOP`; after the posts
    ``answers.yaml`` lists), the original articles before the summaries of another's article
    (``summary(doc)``: a post whose link is a summary page): a name of a post's subject (``PEAGLE``)
    leads with the post that introduces it, the company summary of it after (QA round 20: the raw
    score a summary's title gains past 100 decided a tie the reader sees as one). Stable otherwise."""
    head = 0
    while head < len(good) and good[head][2] == "answers":
        head += 1
    end = head
    while end < len(good) and good[end][0] >= SHOWN_TOP:
        end += 1
    tied = good[head:end]
    if len(tied) < 2 or not any(summary(r[1]) for r in tied):
        return good
    return good[:head] + sorted(tied, key=lambda r: summary(r[1])) + good[end:]


def in_track_first(
    ranked: list[Ranked], track_id: str, tracks_of: Callable[[str], Sequence[str]], post_ids: Sequence[str]
) -> list[Ranked]:
    """``ranked`` with the posts of ``track_id`` (the track whose name the query holds)
    :data:`~bot.domain.search.weights.TRACK_HINT_BONUS` points higher, best first."""
    bonus = [(s + (TRACK_HINT_BONUS if track_id in tracks_of(post_ids[d]) else 0.0), d, f, c) for s, d, f, c in ranked]
    return sorted(bonus, key=lambda r: -r[0])


def answered_first(docs: Sequence[int], ranked: list[Ranked]) -> list[Ranked]:
    """``ranked`` with ``docs`` (the posts whose ``answers.yaml`` lists the query as a phrase) first,
    at score 100 (or the best raw score above it) and coverage 1."""
    if not docs:
        return ranked
    top = max(100.0, ranked[0][0]) if ranked else 100.0  # first whatever the others' raw scores
    first = [(top, doc, "answers", 1.0) for doc in docs]
    return first + [r for r in ranked if r[1] not in docs]


def linked_first(
    good: list[Ranked], linked: Sequence[bool], held: Callable[[int], int] | None = None, told: int = 0
) -> list[Ranked]:
    """``good`` with each post without a link (``linked[doc]`` false) scored
    :data:`~bot.domain.search.weights.UNLINKED_PENALTY` points lower (the score it is ranked and
    shown by). ``held(doc)``: how many of the question's ``told`` telling terms (three or more) a
    post holds: an unlinked post holding three or more is scored
    :data:`~bot.domain.search.weights.ASKED_UNLINKED_PENALTY` lower, and one holding them all when
    no linked post does is not lowered (the question is about it: holdout rounds i and j). Best first."""
    if all(linked[r[1]] for r in good):
        return good
    full = held is not None and any(linked[r[1]] and held(r[1]) >= told for r in good)

    def cut(doc: int) -> float:
        n = held(doc) if held is not None else 0
        if n < 3:
            return UNLINKED_PENALTY
        return ASKED_UNLINKED_PENALTY if full or n < told else 0.0

    return sorted(((r if linked[r[1]] else (r[0] - cut(r[1]), *r[1:])) for r in good), key=lambda r: -r[0])


def id_first(doc: int | None, ranked: list[Ranked]) -> list[Ranked]:
    """``ranked`` with ``doc`` (the post whose id the query is: ``p-eagle``, not a summary of it
    that scores as well; None: the query is no post id) first, at the top score."""
    if doc is None or not ranked or ranked[0][1] == doc:
        return ranked
    found = next((r for r in ranked if r[1] == doc), None)
    if found is None:
        return ranked
    return [(max(found[0], ranked[0][0]), doc, found[2], found[3])] + [r for r in ranked if r[1] != doc]


def adjusted(ranked: list[Ranked], points: Callable[[int], float]) -> list[Ranked]:
    """``ranked`` with each post's score moved by ``points(doc)`` (a bonus above 0, a penalty below),
    best first again (stable: posts moved alike keep their order); unchanged when none moves."""
    moves = [points(r[1]) for r in ranked]
    if not any(moves):
        return ranked
    return sorted(((s + m, d, f, c) for (s, d, f, c), m in zip(ranked, moves, strict=True)), key=lambda r: -r[0])


CHECKLIST_TERMS = 4
"""A question listing this many telling terms or more reads as a checklist (``engine core → scheduler
→ chunked prefill, prefix caching, guided decoding, multi-node``): :func:`checklist_first`."""


def checklist_first(ranked: list[Ranked], held: Callable[[int], int] | None, told: int) -> list[Ranked]:
    """``ranked`` with the best post holding every one of the question's ``told`` telling terms
    (``held(doc)``: how many it holds; :data:`CHECKLIST_TERMS` or more) first, at the top score, when
    the top post holds at most half of them: the rare word of one item (``FSM``) no longer outranks
    the post on the whole list (holdout round m). Unchanged otherwise (``held`` None: fewer terms)."""
    if held is None or told < CHECKLIST_TERMS or not ranked or held(ranked[0][1]) * 2 > told:
        return ranked
    found = next((r for r in ranked if held(r[1]) >= told), None)
    if found is None:
        return ranked
    return [(max(found[0], ranked[0][0]), *found[1:])] + [r for r in ranked if r is not found]
