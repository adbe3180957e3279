"""One track resolver for the commands that take a track (QA round 8): ``follow``, ``unfollow``,
``subscribe`` and ``unsubscribe`` read a track the way ``/vllm-path <words>`` does, so ``kv`` and
``kv cache`` are the *Agentic serving & KV cache* track everywhere (the search's track, the one
its reply says the words look like), a mistyped track name opens its track everywhere
(:func:`typo_track`), and a word the catalog knows that leads elsewhere is never guessed to be
another track (``moe`` is no mistyped ``model``)."""

from __future__ import annotations

from bot.domain.search import TrackMatch
from bot.slack.commands.context import Context, Finder

TYPO_MIN_LETTERS = 5
"""A word mistyped for a track's name has at least this many letters (``omini``, ``reinforcment``)."""
TYPO_MAX_EDITS = 2
"""…and is at most this many edits (Damerau-Levenshtein: a swap is one) from a word of the name."""

_NO_TRACK_WORDS = frozenset({"all", "everything", "every", "all tracks", "全部", "所有", "全部主题", "所有主题"})
"""Words that name every track to ``unfollow all`` (:data:`bot.slack.commands.progress.ALL_WORDS`): never a search."""


def _known(finder: Finder, word: str) -> bool:
    """Whether ``word`` is a word in its own right (an everyday English word, or one the search
    answers with confidence), not a track's name mistyped (as :func:`~bot.slack.commands.replies.known_word`)."""
    from bot.domain.search.analysis import english_words  # deferred: read for a near miss only

    return word in english_words() or finder.posts(word, limit=1).confidence == "confident"


def typo_track(finder: Finder, text: str) -> str | None:
    """The track whose name one word of :data:`TYPO_MIN_LETTERS`+ letters is at most
    :data:`TYPO_MAX_EDITS` edits from (``omini``, ``reinforcment``, ``specualtive``: QA round 8,
    some opened their track and some were "no post matches"), when that word is no word in its own
    right (:func:`_known`); else None."""
    words = text.split()
    word = words[0].casefold() if len(words) == 1 else ""
    if len(word) < TYPO_MIN_LETTERS or not word.replace("-", "").isalpha() or not word.isascii():
        return None
    near = finder.near_track(word)
    if near is None:
        return None
    from rapidfuzz.distance import DamerauLevenshtein  # deferred: a near miss only (the CLI's cold start)

    from bot.domain.search import normalize

    edits = min((DamerauLevenshtein.distance(word, w) for w in normalize(near.matched).split()), default=99)
    if edits > TYPO_MAX_EDITS or _known(finder, word):
        return None
    return near.track_id


class TrackFinder(Finder):
    """A :class:`Finder` whose :meth:`track` is the resolver of the module docstring and whose
    :meth:`near_track` makes no guess the search contradicts; the same catalog snapshot."""

    @classmethod
    def of(cls, finder: Finder) -> TrackFinder:
        """``finder`` (its snapshot) as a :class:`TrackFinder`."""
        made = cls.__new__(cls)
        made.__dict__.update(finder.__dict__)
        return made

    def track(self, text: str) -> str | None:
        """The track ``text`` names (:meth:`Finder.track`), asks about (:meth:`Finder.topic`), is a
        typo of (:func:`typo_track`) or that its search says it looks like (``kv``, ``kv cache``);
        a word repeated counts once (``spec spec``); text naming a post, ``all``, or holding a
        track's own name among other words (``spec pd``, ``spec fridya``: several tracks, or a track
        and words that are none) is left to the caller."""
        base = super().track(text)
        words = list(dict.fromkeys(w.casefold() for w in text.split()))
        if base is not None or not words:
            return base
        if len(words) < len(text.split()):  # "spec spec spec": "spec"
            return self.track(" ".join(words))
        if " ".join(words) in _NO_TRACK_WORDS or self.exact_post_ids(words) is not None:
            return None
        if len(words) > 1 and any(super(TrackFinder, self).track(w) for w in words):
            return None
        found = self.topic(text) or typo_track(self, text)
        return found or self._searched_track(text)

    def _searched_track(self, text: str) -> str | None:
        """The track the search for ``text`` names (:attr:`~bot.domain.search.SearchResult.track`:
        its reply says the words look like it, ``kv``, ``tpu``); a word only near a track's name
        (``speculatve-decodng-xqz``) is left to a did-you-mean."""
        result = self.posts(text, limit=5)
        if result.track is not None and self.catalog.has_track(result.track.track_id):
            return result.track.track_id
        return None

    def near_track(self, text: str) -> TrackMatch | None:
        """:meth:`Finder.near_track`, but none for a word the catalog knows whose posts lead to
        another track (``moe``: the search finds mixture-of-experts posts, not *Model launches*)."""
        near = super().near_track(text)
        if near is None:
            return None
        result = self.posts(text, limit=5)
        if result.confidence == "confident" and result.leading_track != near.track_id:
            return None
        return near


def with_track_finder(ctx: Context) -> Context:
    """``ctx`` with its :attr:`~Context.find` a :class:`TrackFinder` (the same snapshot)."""
    if not isinstance(ctx.find, TrackFinder):
        ctx.find = TrackFinder.of(ctx.find)
    return ctx
