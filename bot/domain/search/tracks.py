"""Track matching (:class:`TrackIndex`, the base of :class:`bot.domain.search.Matcher`): does a
query name a track, which track's name does it hold, and which track did a near miss mean."""

from __future__ import annotations

from functools import cached_property

from rapidfuzz import fuzz

from bot.domain.search.analysis import _Unit, _unit_key, normalize, one_han_apart
from bot.domain.search.index import _GENERIC_DF, _GENERIC_FACTOR, Index
from bot.domain.search.results import MAX_QUERY_CHARS, TRACK_THRESHOLD, TrackMatch
from bot.domain.text import has_han

SHORT_QUERY_CHARS = 3
"""A query of at most this many letters (``tts``, ``kv``) names a track only as its exact id or alias."""

AMBIGUITY_MARGIN = 3.0
"""A partial-name track match is dropped when another track scores within this margin."""

CONTAINED_SCORE = 70.0
"""The score of a track whose name a query holds among other words (:meth:`TrackIndex._track_in`)."""

TYPO_HAN_SCORE = 90.0
"""The track score of a query that is one track's Chinese name with one character mistyped."""

SUGGEST_MIN_CHARS = 2
"""A did-you-mean track needs a query of at least this many letters, unless it is an alias."""

SUGGEST_CUTOFF = 75.0
"""The word-by-word ``fuzz.ratio`` score (0..100) a did-you-mean track name needs."""

_Scores = dict[str, tuple[float, str, bool]]
"""track id -> (score 0..100, the name matched, whether the query is the whole name)."""


class TrackIndex(Index):
    """Track matching over one catalog version (read-only, like :class:`Index`, but for a table
    built on first use)."""

    def match_track(self, query: str) -> TrackMatch | None:
        """The track the query names, or ``None`` (below :data:`TRACK_THRESHOLD`). Scores (0..100):
        100 when the normalized query is a track's id, name or alias (spaces ignored); 95 when equal
        after synonyms and stemming (``model quantization`` = ``模型量化``); 90 for a Chinese name with
        one character mistyped (``推侧解码``); 60-95 when every word of the query is a word of one
        name, by the share covered (a word in over half the posts, ``vllm``, weighs at least a
        quarter and cannot name a track alone), dropped when another track scores within
        :data:`AMBIGUITY_MARGIN`; times the typo correction's ratio/100. A word of no single name
        (``fp8 kv cache``), a sentence or a short abbreviation (:data:`SHORT_QUERY_CHARS`) names
        nothing; "where do I start" with a topic is read as the topic."""
        return self._match_track(normalize(query[: MAX_QUERY_CHARS * 4])[:MAX_QUERY_CHARS])

    @cached_property
    def _start_keys(self) -> list[str]:
        """The keys of "getting started" (the where-to-start group)."""
        return self._canon_keys(self._units("getting started"))

    def _exact_track(self, norm: str) -> TrackMatch | None:
        """The track whose name ``norm`` is exactly (100), spaces ignored."""
        exact = self._track_exact.get(norm) or self._track_exact.get(norm.replace(" ", ""))
        return TrackMatch(exact[0], 100.0, exact[1]) if exact else None

    def _han_typo_track(self, norm: str) -> TrackMatch | None:
        """The one track whose Chinese name ``norm`` is with one character off (:data:`TYPO_HAN_SCORE`)."""
        if not has_han(norm):
            return None
        typo = {(tid, name) for tid, name, name_norm, _ in self._track_names if one_han_apart(norm, name_norm)}
        if len({tid for tid, _ in typo}) != 1:
            return None
        tid, name = min(typo)
        return TrackMatch(tid, TYPO_HAN_SCORE, name)

    def _query_name_keys(self, norm: str) -> tuple[list[str], float]:
        """The query's canonical keys for name matching (typos corrected; stop words and a
        where-to-start phrase beside a topic left out) and the correction factor."""
        corrected, factor = self._speller.correct(norm)
        skip = self._ignorable | self._vocab.track_stopwords
        units = [u for u in self._units(corrected) if u.group is not None or u.text not in skip]
        keys = self._canon_keys(units)
        start = self._start_keys
        if len(keys) > len(start) and set(start) <= set(keys):
            keys = [k for k in keys if k not in start]  # "where do i start with spec"
        return keys, factor

    def _name_scores(self, q_canon: list[str], factor: float) -> _Scores:
        """Per track, its best name's score for the query keys (see :meth:`match_track`)."""
        q_set, q_tuple = set(q_canon), tuple(q_canon)
        per_track: _Scores = {}
        for (tid, name, _, canon), canon_set in zip(self._track_names, self._track_name_sets, strict=True):
            if not canon or (q_tuple != canon and not q_set <= canon_set):
                continue
            score = 95.0 if q_tuple == canon else self._partial_score(q_set, canon)
            if score is None:
                continue
            score = round(score * factor, 1)
            if score > per_track.get(tid, (0.0, "", False))[0]:
                per_track[tid] = (score, name, q_tuple == canon)
        return per_track

    def _partial_score(self, q_set: set[str], canon: tuple[str, ...]) -> float | None:
        """60-95 by the weighted share of ``canon`` covered; ``None`` for generic words only (``vllm``)."""
        weights = {k: self._key_weight(k) for k in canon}
        if max(weights[k] for k in q_set) < 0.5:
            return None
        covered = sum(weights[k] for k in q_set)
        return 60.0 + 35.0 * covered / sum(weights[k] for k in set(canon))

    def _match_track(self, norm: str) -> TrackMatch | None:
        """:meth:`match_track` of an already normalized query (at most MAX_QUERY_CHARS)."""
        if not norm or not self._track_names:
            return None
        norm = self._rewrite(norm)
        exact = self._exact_track(norm)
        if exact is not None or len(norm.replace(" ", "")) <= SHORT_QUERY_CHARS:
            return exact  # an abbreviation names a track only when it is an id or alias
        if (typo := self._han_typo_track(norm)) is not None:
            return typo
        if len(norm.split()) > 2 * self._max_name_units + 2:
            return None  # a sentence, not a name
        q_canon, factor = self._query_name_keys(norm)
        if not q_canon:
            return None
        ranked = sorted(self._name_scores(q_canon, factor).items(), key=lambda kv: -kv[1][0])
        if not ranked or ranked[0][1][0] < TRACK_THRESHOLD:
            return None
        tid, (score, name, whole) = ranked[0]
        if not whole and len(ranked) > 1 and ranked[1][1][0] >= score - AMBIGUITY_MARGIN:
            return None  # a partial name of two tracks ("serving") names neither
        return TrackMatch(tid, score, name)

    def suggest_track(self, text: str) -> TrackMatch | None:
        """A did-you-mean track for text that matched nothing, or ``None``. An exact id or alias
        wins; else, stop and question words left out, text of :data:`SUGGEST_MIN_CHARS`+ letters is
        scored against each track name: the mean over its words of ``fuzz.ratio`` with the name's
        closest word (so ``world`` does not suggest the alias ``rl``), at least :data:`SUGGEST_CUTOFF`;
        two tracks equally close suggest neither. ``score`` is that 0..100 score, ``matched`` the name."""
        norm = normalize(text[: MAX_QUERY_CHARS * 4])[:MAX_QUERY_CHARS]
        if not norm:
            return None
        if (exact := self._exact_track(norm)) is not None:
            return exact
        words = [w for w in norm.split() if w not in self._ignorable]
        if len("".join(words)) < SUGGEST_MIN_CHARS:
            return None
        # track -> (score, -words in the name, name): at equal scores the shorter name is closer
        best: dict[str, tuple[float, int, str]] = {}
        for tid, name, name_norm, _ in self._track_names:
            name_words = name_norm.split()
            score = sum(max(fuzz.ratio(w, n) for n in name_words) for w in words) / len(words)
            if len(words) > 1:  # a typo that splits or joins words: the whole text against the name
                score = max(score, fuzz.ratio("".join(words), name_norm.replace(" ", "")))
            ranked_name = (score, -len(name_words), name)
            if tid not in best or ranked_name[:2] > best[tid][:2]:
                best[tid] = ranked_name
        ranked = sorted(best.items(), key=lambda kv: kv[1][:2], reverse=True)
        if not ranked or ranked[0][1][0] < SUGGEST_CUTOFF:
            return None
        tid, (score, size, name) = ranked[0]
        if len(ranked) > 1 and ranked[1][1][:2] >= (score, size):
            return None  # as close to another track: a guess would be a coin toss
        return TrackMatch(tid, round(score, 1), name)

    def _key_weight(self, key: str) -> float:
        """1, or for a word in over half the posts the share without it (at least ``_GENERIC_FACTOR``)."""
        if key.startswith("="):
            df = max((min(self._df(t) for t in terms) for terms in self._group_terms[int(key[1:])]), default=0)
        else:
            df = self._df(key)
        share = df / max(self._n, 1)
        return max(_GENERIC_FACTOR, 1.0 - share) if share > _GENERIC_DF else 1.0

    def _track_in(self, units: list[_Unit]) -> TrackMatch | None:
        """The track whose name a query's ``units`` hold as a run of canonical words (the longest;
        no tie, no generic name), scored :data:`CONTAINED_SCORE`: a search's hint."""
        keys = tuple(self._canon_keys(units))
        if self._name_heads is None:  # specific names by first key, on first use (needs the df)
            self._name_heads = {}
            for tid, name, _, canon in (n for n in self._track_names if n[3]):
                if max(map(self._key_weight, canon)) >= 0.5:
                    self._name_heads.setdefault(canon[0], []).append((tid, name, canon, self._name_rank(name)))
        found: dict[str, tuple[int, int, str]] = {}  # the longest name, then one telling more than a shared word
        for i, key in enumerate(keys):
            for tid, name, canon, rank in self._name_heads.get(key, ()):
                if keys[i : i + len(canon)] == canon:
                    found[tid] = max(found.get(tid, (0, 0, "")), (len(canon), rank, name))
        ranked = sorted(found.items(), key=lambda kv: kv[1][:2], reverse=True)
        if not ranked or (len(ranked) > 1 and ranked[1][1][:2] >= ranked[0][1][:2]):
            return None  # two tracks' names as long and as telling: neither
        return TrackMatch(ranked[0][0], CONTAINED_SCORE, ranked[0][1][2])

    def _path_order(self, named: TrackMatch | None) -> dict[str, tuple[int, float]]:
        """Per post id of the named track's path, its place (its steps in reading order): how posts
        tied at the top score are ordered when a query names a track (``vllm 怎么做 PD 分离`` lists
        the path's intro before the cases that assume it; a post off the path after them)."""
        steps = self._catalog.track(named.track_id).steps if named is not None else ()
        return {step.post: (i, 0.0) for i, step in enumerate(steps)}

    @cached_property
    def _name_words(self) -> dict[str, frozenset[str]]:
        """Each word key (a Latin stem, a glossary group ``=<id>``) of the tracks' English and
        Chinese names → the tracks whose names hold it."""
        out: dict[str, set[str]] = {}
        for track in self._catalog.tracks:
            for name in (track.names.en, track.names.zh or ""):
                units = self._units(normalize(name))
                keys = {*self._canon_keys(units), *(_unit_key(u) for u in units if len(u.text) >= 2)}
                for key in keys:
                    out.setdefault(key, set()).add(track.id)
        return {k: frozenset(v) for k, v in out.items()}

    def _name_word_track(self, units: list[_Unit]) -> TrackMatch | None:
        """The track of a query that is one word or glossary term of one track's name and of no
        other's (``kv`` and ``KV 缓存`` of "Agentic serving & KV cache"; not ``serving``, a word of
        two names, nor ``vllm``, a word of most posts), scored :data:`CONTAINED_SCORE`: the hint a
        short topic word gives beside its posts, as an alias gives one (``pd``, ``quant``)."""
        skip = self._ignorable | self._vocab.track_stopwords
        content = [u for u in units if u.group is not None or u.text not in skip]
        keys = set(self._canon_keys(content))
        if len(keys) != 1 or any(u.kind == "cjkchunk" for u in content):
            return None
        key = keys.pop()
        tracks = self._name_words.get(key, frozenset())
        if len(tracks) != 1 or self._key_weight(key) < 0.5:
            return None
        tid = next(iter(tracks))
        return TrackMatch(tid, CONTAINED_SCORE, " ".join(u.text for u in content))

    def _name_rank(self, name: str) -> int:
        """0 for a track name that is one shared or everyday glossary word (``部署``, ``deploy``), which
        yields to another track's name as long (``AMD`` of ``如何在 AMD 上部署模型``), else 1."""
        units = self._units(normalize(name))
        return 0 if units and all(u.sense in ("shared", "everyday") for u in units) else 1
