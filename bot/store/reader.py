"""One person's reading state in one database round trip: language, posts read, tracks followed.

A command typically needs all three; reading them through :meth:`ReaderRepo.reader_state` costs one
``SELECT … UNION ALL …`` instead of three transactions.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import String, bindparam, cast, literal, null, select, union_all
from sqlalchemy.sql.expression import CompoundSelect

from bot.store.base import StoreCore
from bot.store.models import ReadingProgress, TrackFollow, UserSettings


@dataclass(frozen=True, slots=True)
class ReaderState:
    """``lang``: the chosen language (``'en'`` | ``'zh'``) or None (use Slack's locale);
    ``read``: ids of the posts read; ``follows``: followed track ids, oldest follow first.
    Equal to what :meth:`~bot.store.Store.get_lang`, :meth:`~bot.store.Store.read_posts` and
    :meth:`~bot.store.Store.follows` return, read in one statement."""

    lang: str | None
    read: frozenset[str]
    follows: tuple[str, ...]


def _reader_statement() -> CompoundSelect[Any]:
    """The combined read, built once: ``:team`` and ``:user`` are bound at each execution (so
    neither the statement nor its compiled SQL is rebuilt per request)."""
    team, user = bindparam("team", type_=String), bindparam("user", type_=String)
    no_time = cast(null(), TrackFollow.followed_at.type)
    lang = (select(literal("lang").label("kind"), UserSettings.lang.label("value"),
                   no_time.label("at"))
            .where(UserSettings.team_id == team, UserSettings.user_id == user))
    read = (select(literal("read"), ReadingProgress.post_id, no_time)
            .where(ReadingProgress.team_id == team, ReadingProgress.user_id == user))
    follows = (select(literal("follow"), TrackFollow.track_id, TrackFollow.followed_at)
               .where(TrackFollow.team_id == team, TrackFollow.user_id == user))
    return union_all(lang, read, follows)


_READER_STATE = _reader_statement()


class ReaderRepo(StoreCore):
    """The combined per-person read."""

    def reader_state(self, team: str, user: str) -> ReaderState:
        """``user``'s :class:`ReaderState` in ``team`` (empty for someone never seen). One
        statement in one short read transaction, on a Core connection (no ORM session: the
        rows are plain values)."""
        chosen: str | None = None
        posts: set[str] = set()
        followed: list[tuple[datetime, str]] = []
        with self._engine.connect() as conn:
            for kind, value, at in conn.execute(_READER_STATE, {"team": team, "user": user}):
                if kind == "lang":
                    chosen = value
                elif kind == "read":
                    posts.add(value)
                else:
                    followed.append((at, value))
        followed.sort()  # as follows(): by followed_at, then track id
        return ReaderState(chosen, frozenset(posts), tuple(track for _, track in followed))
