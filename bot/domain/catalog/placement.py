"""Where a new post belongs: the tracks whose steps share its distinctive words, and its place in
each path, put where the catalog's own order puts it (:func:`bot.domain.paths.compute_order` on
the track with the post added as a step). Pure.

A post's text (title, summary, feed content) becomes a TF-IDF vector of its words and neighbouring
word pairs (sublinear term counts, idf over the catalog's posts, light stemming:
:func:`bot.domain.search.analysis.stem`); each catalog post's vector is built from what the
catalog says of it (title, summary, tags, the blog's tags, questions) and, when given, its own
text as its feed gives it (a body's markup left out: :func:`plain`;
:mod:`bot.domain.catalog.placement_text`). A post is compared by its
:data:`QUERY_TERMS` heaviest terms; a track scores the mean of its :data:`TOP_STEPS` most similar
steps' cosines plus the cosine with its own words (names, aliases, description, why its
essentials are essential) plus, for the feed's tags (the blog's categories), how much the
catalog's steps with those tags are this track's (:data:`TAG_WEIGHT`), plus, given the catalog's
``vocabulary``, the cosine with the glossary's words of the track (:data:`GLOSSARY_WEIGHT`). A post
with more than its title is ranked by that score beside the same score of its title alone
(:data:`TITLE_VOTE`); the second place then goes to the title's own best of the rest, and another
company's post leans to the tracks holding such posts (:mod:`~bot.domain.catalog.placement_rank`).

The step it becomes, in each of the best tracks: the position with the most weight within one
step of it, of the ``(essential, level)`` kinds it could take (:meth:`Placer._place`,
:mod:`bot.domain.catalog.placement_position`): its most similar steps vote with
their cosines, and the catalog's steps of its kind (how its date falls among the track's steps,
and whether it could be essential at all: a linked vLLM-blog post, within the path's step and
minute budget, :mod:`bot.domain.budget`) with their shares: a post newer than most of its track
is mostly further reading, an early one mostly essential. How that weight splits between
essential and further reading is then set by a small logistic model the placer fits on its own
steps (:mod:`bot.domain.catalog.placement_essential`: date share, similar essentials, home track);
a level a track holds once (:data:`SINGLE_LEVELS`, the capstone) is not offered again. Dated when
it was published; a post whose text links to steps of the track comes after them
(:mod:`bot.domain.catalog.placement_links`). ``leave_out`` builds a placer that has never seen one catalog post
(``benchmarks/placement.py`` measures with it, leave-one-out): not its text, step, tags, nor its
kind among the counts or the essential model's rows.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from bot.domain.budget import ESSENTIAL_MAX_MINUTES, ESSENTIAL_STEPS_MAX, step_cost
from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.models import Level, LocalizedText, Post, Published, Source, Step, Track
from bot.domain.catalog.placement_essential import EssentialModel, cross_cosines, essential_share, features, fit
from bot.domain.catalog.placement_links import after_links, linked_posts
from bot.domain.catalog.placement_position import hedged_position
from bot.domain.catalog.placement_rank import SOURCE_WEIGHT, second_opinion, source_shares
from bot.domain.catalog.placement_text import Vector, plain, terms
from bot.domain.catalog.placement_text import cosine as _cosine
from bot.domain.catalog.placement_text import vector as _vector
from bot.domain.catalog.placement_text import vector_tf as _vector_tf
from bot.domain.catalog.placement_text import weighted as _weighted
from bot.domain.search.links import LinkIndex
from bot.domain.search.vocabulary import Vocabulary

_SENTENCE = re.compile(r"(?<=[.;:])\s+")
TITLE_WEIGHT, SUMMARY_WEIGHT = 40, 10
"""How many times a title's and a summary's words count against the content's."""
CATALOG_WEIGHT = 10
"""How many times the catalog's words of a post count against its own text's (``texts``)."""
TOP_STEPS = 8
"""A track's score averages its this many most similar steps."""
QUERY_TERMS = 150
"""A post is compared by its this many heaviest terms (a long text's tail is noise). ``benchmarks/placement.py``,
feed text / no other texts, track first, top two, position: 80 terms 0.879 / 0.860, 0.936 / 0.917, 0.548 /
0.541; 150: 0.879 / 0.879, 0.943 / 0.917, 0.567 / 0.541 (120, 200 and 300 no better: 1–3 posts either way)."""
TRACK_WORDS_WEIGHT = 1.0
"""What the cosine with a track's own words adds to its score."""
GLOSSARY_WEIGHT = 0.2
"""What the cosine with the glossary's words of a track adds to its score: the forms of every
``catalog/glossary.yaml`` term whose ``track`` it is (the terms a track teaches), from the
placer's ``vocabulary``. ``benchmarks/placement.py``, feed text / no other texts / title only,
track first: 0.873 / 0.834 / 0.739 without, 0.892 / 0.860 / 0.771 with (catalog 2026.12.19; 0.25:
0.898 / 0.847 / 0.758, but the title-only position 0.516 → 0.510)."""
TITLE_VOTE = 0.3
"""How much a post's title alone weighs in ranking its tracks beside its whole text (each as a share
of its best track's score), when the feed gives more than the title (:meth:`Placer._title_vote`).
``benchmarks/placement.py`` with :data:`GLOSSARY_WEIGHT`, feed text, track first / top two: 0 →
0.892 / 0.943, 0.2 → 0.898 / 0.949, 0.25 and 0.3 → 0.904 / 0.949, 0.35 → 0.911, 0.4 → 0.898, 0.5 →
0.892 / 0.943 (the middle of the best plateau kept); no other texts 0.860 → 0.873 track first. The
essential model's ``home`` stays the best track by score alone."""
TAG_WEIGHT = 0.1
"""What the feed's tags add to a track's score: this times the mean, over the tags the catalog's
steps have, of the share of a tag's steps that are this track's (one step more counted, unseen)."""
VOTE_STEPS = 5
"""The step a post becomes is voted by its this many most similar steps of the track ..."""
PRIOR_WEIGHT = 0.25
"""... and by the catalog's steps of its kind (see :meth:`Placer.kind_counts`), as shares summing to this.
Replayed on the feed-text suggestions of ``benchmarks/placement.py`` (catalog 2026.12.32), posts
within one step with :func:`~bot.domain.catalog.placement_position.hedged_position`: 1.0 → 97 of
157, 0.5 → 102, 0.25 → 104, 0.125 → 99 (the kinds' own positions only: 94 at 1.0 and at 0.25)."""
DATE_BINS = 4
"""A step's date is placed in one of this many equal slices of its track's other steps' dates."""
SINGLE_LEVELS: frozenset[Level] = frozenset({"capstone"})
"""Levels a track holds one step of at most (every track of the catalog ends on one capstone): a
new post is not offered a level its track already has."""
_LEVELS: tuple[Level, ...] = ("intro", "core", "advanced", "capstone")
_KINDS: tuple[tuple[bool, Level], ...] = tuple((e, level) for e in (True, False) for level in _LEVELS)
"""Every (essential, level) a step can take."""


_PLACED = "placed-here"
"""The id the post being placed takes in a trial order (never a catalog id: ids are slugs of real posts)."""


@functools.lru_cache(maxsize=1024)
def _query_tf(title: str, summary: str, content: str, tags: tuple[str, ...]) -> Mapping[str, float]:
    """Sublinear term counts (``1 + ln n``) of a post's texts as :meth:`Placer.vector` weighs them.
    Cached (each placer's essential model reads every catalog post again); read only."""
    counts = Counter(terms(plain(content)))
    for text, weight in ((title, TITLE_WEIGHT), (summary, SUMMARY_WEIGHT), (" ".join(tags), TITLE_WEIGHT)):
        for term in terms(text):
            counts[term] += weight
    return {t: 1 + math.log(n) for t, n in counts.items() if n > 0}


@functools.lru_cache(maxsize=1024)
def _tf(catalog_words: str, text: str) -> Mapping[str, float]:
    """Sublinear term counts (``1 + ln n``) of a catalog post: what the catalog says of it
    (counted :data:`CATALOG_WEIGHT` times) and its own ``text``. Cached (a placer per left-out post
    rebuilds the same documents); read only."""
    counts = Counter({t: n * CATALOG_WEIGHT for t, n in Counter(terms(catalog_words)).items()})
    counts.update(terms(plain(text)))
    return {t: 1 + math.log(n) for t, n in counts.items()}


@dataclass(frozen=True)
class Suggestion:
    """A place for a post: ``track`` id, 1-based ``position`` in its reading order, ``score``
    (cosines, 0..2) and ``reason``: what it shares with the track's steps (``shares "eagle",
    "drafter" with p-eagle, eagle-3-1``); ``neighbour`` the most similar step, ``terms`` the
    shared words, strongest first; ``essential`` and ``level`` the step it would be; ``weak``: the
    place rests on loose words only (the reason then says so first)."""

    track: str
    position: int
    score: float
    reason: str
    neighbour: str | None
    terms: tuple[str, ...]
    essential: bool = False
    level: Level = "core"
    weak: bool = False
    """The post never names vLLM and shares only loose words (:meth:`Placer._loose`) with each of
    its :data:`WEAK_TRACKS` best tracks: it may not be about vLLM at all, so every place is a guess
    for the curator to check (the same for all of a post's suggestions)."""


_VLLM = re.compile(r"(?<![a-z0-9])vllm(?![a-z0-9])", re.IGNORECASE)
"""The project's name as a word (``vLLM``, ``vllm-omni``), which :data:`_STOP_WORDS` keeps out of the terms."""
WEAK_TRACKS = 3
"""A post is weak when its words tie it to none of its this many best tracks."""
ANCHOR_STEPS = 2
"""A shared word ties a post to a track when at least this many of the track's steps have it ..."""
ANCHOR_SHARE = 0.5
"""... and at least this share of the catalog's posts that have it are the track's steps; any other
shared word is loose (``gpu``: in 70 posts across every track). Measured on catalog 2026.12.17,
leave-one-out as ``benchmarks/placement.py`` places: with the feed texts, none of the 139 posts
whose text names vLLM is weak and 11 of the 18 others are (company posts known by their title
alone); by title alone, 9 of 157. Off-topic posts (cooking, a picnic, hiring, gaming
GPUs) are weak; one on gardening with Python is not (``python`` is mostly the developers track's)."""


class Placer:
    """Track and position suggestions against one catalog (built in ~0.1 s for 200 posts; its
    :attr:`essential_model` is fitted on the first placement that may be essential, ~0.1–0.3 s).

    ``texts``: catalog post id -> that post's own text as its feed gives it (body), read beside
    what the catalog says of it; ``leave_out``: a catalog post id the placer never sees (not its
    step in any track, its words, nor the sentences of a track's description or reason that name
    it by a word or word pair of its title that no other post's words or text have; the ``after``
    references to it are dropped). An unknown ``leave_out`` id leaves the catalog whole.
    ``vocabulary``: the catalog's glossary (each track's words, :data:`GLOSSARY_WEIGHT`; a word of
    it that only the left-out post has weighs nothing, having no idf) and its blog hosts (the links
    a post's text makes, :mod:`~bot.domain.catalog.placement_links`); without it, neither."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        texts: Mapping[str, str] | None = None,
        leave_out: str | None = None,
        vocabulary: Vocabulary | None = None,
    ):
        self.posts = {p.id: p for p in catalog.posts if p.id != leave_out}
        self.texts = {pid: text for pid, text in (texts or {}).items() if pid != leave_out}
        self.tracks = [_without(t, leave_out) for t in catalog.tracks]
        docs = {
            post.id: _tf(
                " ".join([post.title, post.summary.en, *post.tags, *post.blog_tags * 3, *post.questions.en]),
                (texts or {}).get(post.id, ""),
            )
            for post in self.posts.values()
        }
        df = Counter(t for doc in docs.values() for t in doc)
        self.idf = {t: math.log((len(docs) + 1) / (1 + k)) + 1 for t, k in df.items()}
        self.vectors = {pid: _weighted(doc, self.idf) for pid, doc in docs.items()}
        left_out = catalog.post(leave_out) if leave_out is not None and catalog.has_post(leave_out) else None
        names = set(terms(left_out.title)) - set(df) if left_out else set()
        self.track_vectors = {}
        for t in self.tracks:
            why = t.essentials_reason.en if t.essentials_reason else ""
            said = [s for s in _SENTENCE.split(f"{t.description.en} {why}") if not names & set(terms(s))]
            self.track_vectors[t.id] = _vector(Counter(terms(" ".join([t.names.en, *t.aliases, *said]))), self.idf)
        taught: dict[str, list[str]] = {}
        for term in vocabulary.glossary if vocabulary is not None else ():
            if term.track is not None:
                taught.setdefault(term.track, []).extend(term.forms)
        self.glossary_vectors = {
            tid: _vector(Counter(terms(" ".join(forms))), self.idf) for tid, forms in taught.items()
        }
        """Track id -> the vector of the glossary's words of that track (:data:`GLOSSARY_WEIGHT`)."""
        self.links = LinkIndex(catalog, vocabulary) if vocabulary is not None else None
        """Resolves the links of a post's text to catalog posts (:mod:`~bot.domain.catalog.placement_links`)."""
        self.base_url = catalog.manifest.blog_base_url
        self.elsewhere = source_shares(
            (t.id, self.posts[s.post].source.kind == "vllm-blog") for t in self.tracks for s in t.steps
        )
        """Track id -> its share of the steps whose post is not the vLLM blog's (:data:`SOURCE_WEIGHT`)."""
        self.tagged: dict[str, Counter[str]] = {}
        """A blog tag (folded) -> how many steps of each track have a post with it."""
        self.kind_counts: dict[tuple[bool, int], Counter[tuple[bool, Level]]] = {
            (may, b): Counter() for may in (True, False) for b in range(DATE_BINS)
        }
        """``(may be essential, date slice)`` -> how many steps of the tracks are of each
        ``(essential, level)``: a step's post may be essential when it is a linked vLLM-blog post;
        its date slice is :func:`_date_bin` among the other steps of its track."""
        for t in self.tracks:
            days = [self._day(s.post) for s in t.steps]
            for i, s in enumerate(t.steps):
                post = self.posts[s.post]
                for tag in post.blog_tags:
                    self.tagged.setdefault(tag.casefold(), Counter())[t.id] += 1
                may = post.source.kind == "vllm-blog" and post.url is not None
                self.kind_counts[(may, _date_bin(days[i], days[:i] + days[i + 1 :]))][(s.essential, s.level)] += 1

    def vector(
        self,
        title: str,
        summary: str = "",
        content: str = "",
        tags: Iterable[str] = (),
        surface: dict[str, str] | None = None,
    ) -> dict[str, float]:
        """The TF-IDF vector of a post's texts (title, summary and the feed's tags weighted up);
        ``surface`` collects each term's word as written."""
        if surface is None:
            return _vector_tf(_query_tf(title, summary, content, tuple(tags)), self.idf, QUERY_TERMS)
        counts = Counter(terms(plain(content), surface))
        for text, weight in ((title, TITLE_WEIGHT), (summary, SUMMARY_WEIGHT), (" ".join(tags), TITLE_WEIGHT)):
            for term in terms(text, surface):
                counts[term] += weight
        return _vector(counts, self.idf, QUERY_TERMS)

    def suggest(
        self,
        title: str,
        summary: str = "",
        content: str = "",
        *,
        tags: Iterable[str] = (),
        published: dt.date | None = None,
        minutes: int | None = None,
        vllm_blog: bool = True,
        linked: bool = True,
        limit: int = 3,
    ) -> list[Suggestion]:
        """The best ``limit`` places for a post, best first (tracks with no shared word left out).
        ``published`` (default: today) dates it among its track's steps; ``minutes`` (its reading
        time, unknown: :data:`bot.domain.budget.UNKNOWN_STEP_MINUTES`), ``vllm_blog`` (from the vLLM
        blog, not another company's) and ``linked`` (it has a URL) decide whether it may be essential."""
        surface: dict[str, str] = {}
        query = self.vector(title, summary, content, tags, surface)
        day = (published or dt.date.today()).isoformat()
        tagged = [self.tagged[t.casefold()] for t in tags if t.casefold() in self.tagged]
        cites = linked_posts(content, self.links, self.base_url, self.posts) if self.links and content else ()
        scored: list[tuple[float, Track, list[tuple[float, str]]]] = []
        sourced = self.elsewhere if not vllm_blog else {}
        for track in self.tracks:
            sims = sorted(((_cosine(query, self.vectors[s.post]), s.post) for s in track.steps), reverse=True)
            if sims and sims[0][0] > 0:
                score = self._track_score(track, sims, query, tagged) + SOURCE_WEIGHT * sourced.get(track.id, 0.0)
                scored.append((score, track, sims))
        if TITLE_VOTE and scored and (summary or content):
            key, alone = self._title_vote(title, scored)
            scored.sort(key=key, reverse=True)
            scored = second_opinion(scored, alone, lambda item: item[1].id)
        else:
            scored.sort(key=lambda item: -item[0])
        weak = not _VLLM.search(" ".join([title, summary, content, *tags])) and all(
            self._loose(_shared(query, [self.vectors[p] for _, p in sims[:TOP_STEPS]]), track)
            for _, track, sims in scored[:WEAK_TRACKS]
        )
        out: list[Suggestion] = []
        best = max((score for score, _, _ in scored), default=0.0)  # home: by score, as the essential model reads it
        for score, track, sims in scored[:limit]:
            top = sims[:TOP_STEPS]
            shared = _shared(query, [self.vectors[p] for _, p in top])
            names = ", ".join(p for _, p in top[:2])
            words = ", ".join(f'"{surface.get(t, t)}"' for t in shared[:4])
            reason = f"shares {words} with {names}" if words else f"closest to {names}"
            if weak:
                reason = f"weak: it never names vLLM and shares only loose words, so it may not be about vLLM; {reason}"
            position, step = self._place(
                track, sims, day, minutes, linked, may=vllm_blog and linked, home=score == best, cites=cites
            )
            out.append(
                Suggestion(
                    track.id, position, round(score, 4), reason, top[0][1], shared, step.essential, step.level, weak
                )
            )
        return out

    def _track_score(
        self, track: Track, sims: list[tuple[float, str]], query: Vector, tagged: list[Counter[str]]
    ) -> float:
        """How well a post fits ``track``: the mean of its :data:`TOP_STEPS` best cosines in ``sims``
        (best first), plus the cosine of ``query`` with the track's words and with its glossary words
        (:data:`GLOSSARY_WEIGHT`), plus the tag share (``tagged``: for each of its tags, the count of
        steps with it by track)."""
        top = sims[:TOP_STEPS]
        score = sum(s for s, _ in top) / len(top) + TRACK_WORDS_WEIGHT * _cosine(query, self.track_vectors[track.id])
        if track.id in self.glossary_vectors:
            score += GLOSSARY_WEIGHT * _cosine(query, self.glossary_vectors[track.id])
        if tagged:
            score += TAG_WEIGHT * sum(c[track.id] / (sum(c.values()) + 1) for c in tagged) / len(tagged)
        return score

    def _title_vote(
        self, title: str, scored: list[tuple[float, Track, list[tuple[float, str]]]]
    ) -> tuple[Callable[[tuple[float, Track, list[tuple[float, str]]]], float], dict[str, float]]:
        """The sort key of the ``scored`` tracks of a post with a text beyond its ``title``: each
        score over the best one, plus :data:`TITLE_VOTE` times the same share of the track's score
        for the title alone (the author's own summary of the post, which a long body's side topics
        do not dilute); and that score of the title alone by track id
        (:func:`~bot.domain.catalog.placement_rank.second_opinion`)."""
        query = self.vector(title)
        alone: dict[str, float] = {}
        for _, track, _ in scored:
            sims = sorted(((_cosine(query, self.vectors[s.post]), s.post) for s in track.steps), reverse=True)
            alone[track.id] = self._track_score(track, sims, query, []) if sims and sims[0][0] > 0 else 0.0
        best, best_alone = max(s for s, _, _ in scored) or 1.0, max(alone.values()) or 1.0
        return (lambda item: item[0] / best + TITLE_VOTE * alone[item[1].id] / best_alone), alone

    @functools.cached_property
    def essential_model(self) -> EssentialModel:
        """The :mod:`~bot.domain.catalog.placement_essential` model fitted on this placer's own
        steps whose post may be essential (a linked vLLM-blog post), each read as a new post would
        be: its post's text as :meth:`vector` reads a feed's (its blog tags as the feed's tags), its
        track without it, every track scored without its step. Fitted once, on first use; the
        left-out post of ``leave_out`` is in none of it."""
        queries = {
            pid: self.vector(p.title, p.summary.en, self.texts.get(pid, ""), p.blog_tags)
            for pid in dict.fromkeys(s.post for t in self.tracks for s in t.steps)
            for p in (self.posts[pid],)
            if p.source.kind == "vllm-blog" and p.url is not None
        }
        cosines = cross_cosines(queries, self.vectors)
        rows: list[tuple[float, ...]] = []
        labels: list[bool] = []
        for pid, query in queries.items():
            own = {tag.casefold() for tag in self.posts[pid].blog_tags}
            best: tuple[float, str] | None = None
            held: list[tuple[Track, Step, list[tuple[float, str]]]] = []
            for track in self.tracks:
                sims = sorted(
                    ((cosines[pid].get(s.post, 0.0), s.post) for s in track.steps if s.post != pid), reverse=True
                )
                if not sims or sims[0][0] <= 0:
                    continue
                step = next((s for s in track.steps if s.post == pid), None)
                tagged = [self.tagged[t] - Counter({track.id: 1} if step else {}) for t in own if t in self.tagged]
                best = max(best or (-math.inf, ""), (self._track_score(track, sims, query, tagged), track.id))
                if step is not None:
                    held.append((track, step, sims))
            for track, step, sims in held:
                others = [s for s in track.steps if s.post != pid]
                rows.append(self._features(others, sims, self._day(pid), home=best is not None and best[1] == track.id))
                labels.append(step.essential)
        return fit(rows, labels)

    def _features(
        self, steps: Iterable[Step], sims: list[tuple[float, str]], day: str, *, home: bool
    ) -> tuple[float, ...]:
        """The essential model's :func:`~bot.domain.catalog.placement_essential.features` of a post
        published on ``day`` whose cosines with a track's ``steps`` (without the post) are ``sims``
        (best first); ``home``: the track is the post's best-scoring one."""
        essential = {s.post: s.essential for s in steps}
        before = sum(self._day(p) < day for p in essential) / max(len(essential), 1)
        return features(before, essential_share((sim, essential[p]) for sim, p in sims[:VOTE_STEPS]), home)

    def _loose(self, shared: Iterable[str], track: Track) -> bool:
        """Whether none of the ``shared`` terms ties a post to ``track``: each is in fewer than
        :data:`ANCHOR_STEPS` of its steps' posts, or fewer than :data:`ANCHOR_SHARE` of the catalog's
        posts that have it are its steps (counted over the placer's post vectors)."""
        steps = {s.post for s in track.steps}
        for term in shared:
            having = [pid for pid, vec in self.vectors.items() if term in vec]
            inside = sum(pid in steps for pid in having)
            if inside >= ANCHOR_STEPS and inside >= ANCHOR_SHARE * len(having):
                return False
        return True

    def _place(
        self,
        track: Track,
        sims: list[tuple[float, str]],
        day: str,
        minutes: int | None,
        linked: bool,
        may: bool,
        home: bool = True,
        cites: tuple[str, ...] = (),
    ) -> tuple[int, Step]:
        """1-based position and step of a post whose cosines with the steps of ``track`` are
        ``sims`` (cosine, post id; best first), published on ``day`` (ISO), ``minutes`` long; ``may``:
        it may be essential (a linked vLLM-blog post). Each ``(essential, level)`` a step can take
        (essential only when it ``may`` and fits the path's budget: :mod:`bot.domain.budget`) gets a
        weight: the cosines of the :data:`VOTE_STEPS` most similar steps of that kind, plus its share
        (times :data:`PRIOR_WEIGHT`) among the catalog's steps of the post's kind
        (:attr:`kind_counts`: its date slice in this track, whether it may be essential). Each puts
        the post where the catalog's order (:func:`bot.domain.paths.compute_order`) puts it; the
        position with the most weight within one step of it wins, any position of the path
        (:func:`~bot.domain.catalog.placement_position.hedged_position`).
        When it may be essential, the essential kinds' weights are scaled to sum to the chance
        :attr:`essential_model` gives (``home``: ``track`` is the post's best-scoring one) and the
        further ones to the rest; no kind takes a level of :data:`SINGLE_LEVELS` its track has. The
        trial step comes after the steps of the track the post's text links to (``cites``, catalog
        post ids: :func:`~bot.domain.catalog.placement_links.after_links`)."""
        from bot.domain.paths import compute_order  # deferred: paths imports the catalog package

        steps = {s.post: s for s in track.steps}
        essentials = [s.post for s in track.steps if s.essential]
        spent = sum(step_cost(self.posts[p].minutes) for p in essentials) + step_cost(minutes)
        fits = len(essentials) < ESSENTIAL_STEPS_MAX and spent <= ESSENTIAL_MAX_MINUTES
        capped = {s.level for s in track.steps if s.level in SINGLE_LEVELS}
        kinds = [(e, lev) for e, lev in _KINDS if ((may and fits) or not e) and lev not in capped]
        seen = self.kind_counts[(may, _date_bin(day, [self._day(s.post) for s in track.steps]))]
        total = sum(seen.values()) + 0.5 * len(_KINDS)
        weights = {kind: PRIOR_WEIGHT * (seen[kind] + 0.5) / total for kind in _KINDS}
        for sim, pid in sims[:VOTE_STEPS]:
            weights[(steps[pid].essential, steps[pid].level)] += max(sim, 0.0)
        weights = {kind: weights[kind] for kind in kinds}
        if may and fits:
            chance = self.essential_model.probability(self._features(track.steps, sims, day, home=home))
            for flag, share in ((True, chance), (False, 1 - chance)):
                group = sum(w for k, w in weights.items() if k[0] == flag)
                for kind in [k for k in weights if k[0] == flag]:
                    weights[kind] *= share / group
        placed = Post(id=_PLACED, title="-", url="/-" if linked else None, published=Published.model_validate(day),
                      source=Source(kind="vllm-blog"), summary=LocalizedText(en="-"))  # fmt: skip
        where: dict[tuple[bool, Level], int] = {}
        for essential, level in kinds:
            after = after_links(cites, steps, essential=essential)
            step = Step(post=_PLACED, level=level, essential=essential, after=after)
            order = compute_order(
                track.model_copy(update={"steps": (*track.steps, step)}), {**self.posts, _PLACED: placed}
            )
            where[(essential, level)] = order.index(_PLACED) + 1

        at, (essential, level) = hedged_position(where, weights, len(essentials))
        return at, Step(post=_PLACED, level=level, essential=essential)

    def _day(self, pid: str) -> str:
        return self.posts[pid].published.earliest.isoformat()


def _date_bin(day: str, others: list[str]) -> int:
    """Which of :data:`DATE_BINS` equal slices of ``others`` (ISO days) ``day`` falls in by the
    share of them published before it (0: before all of them)."""
    before = sum(o < day for o in others) / max(len(others), 1)
    return min(int(before * DATE_BINS), DATE_BINS - 1)


def _without(track: Track, pid: str | None) -> Track:
    """``track`` without post ``pid``'s step (and the ``after`` references to it)."""
    if all(s.post != pid for s in track.steps):
        return track
    steps = tuple(
        s.model_copy(update={"after": tuple(a for a in s.after if a != pid)}) for s in track.steps if s.post != pid
    )
    return track.model_copy(update={"steps": steps})


def _shared(query: Vector, steps: Iterable[Vector]) -> tuple[str, ...]:
    weight: dict[str, float] = {}
    for vec in steps:
        for term, value in query.items():
            if term in vec:
                weight[term] = weight.get(term, 0.0) + value * vec[term]
    return tuple(sorted(weight, key=lambda t: -weight[t])[:6])
