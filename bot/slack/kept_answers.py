"""Whole answers to ``/vllm-path <text>`` kept per (text, reader state, Slack locale, day), for the
command kinds whose reply is made of nothing else (:data:`KINDS`: a track's path, search results,
the next reads of ``next``):
a repeated question is answered in the ack without parsing it, routing it to a track or a search,
or drawing the reader's place again.

What such a reply depends on, and where the key has it: the catalog and its search index (the
current :class:`~bot.runtime.Loaded`: all kept answers are let go when it is swapped); the text as
typed (the command, its language when it holds Chinese, a cut notice); the person's
:class:`~bot.store.reader.ReaderState` (reads, follows, chosen language, weekly budget), taken only
as the store keeps it (:meth:`~bot.store.reader.ReaderRepo.kept_reader_state`: on PostgreSQL, or
when it is not kept, nothing is kept here); the Slack locale remembered for the person (their
language when they chose none); the store clock's day (a path line's finish date); the app's
settings (one :class:`KeptAnswers` per app). The person is not in the key: two people with the
same state get the same answer.

An answer is kept only when the state the reply was made from is provably the one in its key: the
store kept the same state object before and after it was made (a changed state is always a new
object), the catalog and the day unchanged meanwhile.

Speed layer needed by ``benchmarks/commands_inproc.py`` (issue 43: track reply and searches <= 1.5x
a no-op Bolt app's in-process CPU): without it a track reply was 2.28-2.83x, ``nixl`` 2.74-3.37x and
a question 3.85-4.41x the no-op's, with it 1.06-1.39x, 1.05-1.09x and 0.99-1.03x (2026-12-07, three
interleaved pairs, load 7-14); ``benchmarks/command_latency.py`` (50 people over HTTP): server CPU
1.44-1.56x the no-op's without it, 1.07-1.33x with it (two pairs, load 13-23); ``benchmarks/clicks.py``
(``next <track>``, target <= 2x): 1.91-2.11x without ``next`` among the kinds, 1.09-1.20x with it
(2026-12-07, interleaved pairs, load 9-11)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from bot.runtime import Loaded, Runtime
from bot.slack.commands.context import NotCached, UserInfoCache, UsersInfo, no_users_info
from bot.slack.views.blocks import Reply
from bot.store.reader import ReaderState

KINDS = frozenset({"query", "search", "next"})
"""Command kinds (:class:`bot.slack.grammar.Command`) whose answers are kept."""

Key = tuple[str, ReaderState, str | None, dt.date]
"""``(text, reader state, Slack locale, day)``."""


class KeptAnswers:
    """At most :data:`MAX` answers of the current catalog (all dropped when full or when the catalog
    is swapped). Thread-safe (dict items are atomic; a lost insert is only a miss)."""

    MAX = 1_000
    """Answers kept; a kept reply is mostly shared with the views' reply memo
    (:func:`bot.slack.views.parts.memo_reply`), so the bound is on keys more than on replies."""

    def __init__(self) -> None:
        self._kept: tuple[Loaded | None, dict[Key, Reply]] = (None, {})
        """The catalog version and its answers, swapped together (one assignment: atomic)."""
        self._texts: frozenset[str] = frozenset()
        """The texts some answer was kept for (a superset after a swap): a command whose text is
        not among them is parsed at once, without making a key (a command not of :data:`KINDS`)."""

    def known(self, text: str) -> bool:
        """Whether an answer to ``text`` may be kept (False: none is; parse the command)."""
        return text in self._texts

    def key(self, rt: Runtime, users_info: UsersInfo, team: str, user: str, text: str) -> Key | None:
        """The key of ``user``'s answer to ``text`` now, else None (their state or Slack locale not kept)."""
        state = rt.store.kept_reader_state(team, user)
        if state is None:
            return None
        if isinstance(users_info, UserInfoCache):
            try:
                locale = users_info.cached(team, user).locale
            except NotCached:
                return None
        elif users_info is no_users_info:
            locale = None
        else:
            return None
        return text, state, locale, rt.store.now().date()

    def get(self, rt: Runtime, key: Key) -> Reply | None:
        """The answer kept for ``key`` with the current catalog, else None."""
        return self._current(rt).get(key)

    def _current(self, rt: Runtime) -> dict[Key, Reply]:
        """The answers kept for the current catalog (a new, empty dict when it was swapped)."""
        loaded, answers = self._kept
        if rt.holder.loaded is not loaded:
            answers = {}
            self._kept, self._texts = (rt.holder.loaded, answers), frozenset()
        return answers

    def forget(self, text: str) -> int:
        """Drop the answers kept for ``text`` (a benchmark's question asked afresh); returns how many."""
        answers = self._kept[1]
        gone = [key for key in list(answers) if key[0] == text]
        for key in gone:
            answers.pop(key, None)
        return len(gone)

    def made(
        self,
        rt: Runtime,
        users_info: UsersInfo,
        caller: tuple[str, str],
        key: Key,
        kind: str,
        make: Callable[[], Reply | None],
    ) -> Reply | None:
        """``make()``'s reply (the answer to ``caller``, ``(team, user)``, of a command of kind ``kind``),
        kept for ``key`` (:meth:`key` just before) when ``kind`` is one of :data:`KINDS` and nothing the
        reply depends on changed while it was made: the same catalog, the same state object, locale
        and day (see the module)."""
        self._current(rt)
        loaded, answers = self._kept
        reply = make()
        if reply is None or kind not in KINDS or rt.holder.loaded is not loaded:
            return reply
        after = self.key(rt, users_info, *caller, key[0])
        if after is None or after[1] is not key[1] or after != key:
            return reply
        if len(answers) >= self.MAX:
            answers = {}
            self._kept, self._texts = (loaded, answers), frozenset()
        answers[key] = reply
        if key[0] not in self._texts:
            self._texts = self._texts | {key[0]}
        return reply
