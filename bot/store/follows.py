"""Track follows: which tracks each person follows, oldest follow first."""

from __future__ import annotations

from sqlalchemy import delete, select

from bot.store.base import StoreCore
from bot.store.models import TrackFollow
from bot.store.validate import check_id


class FollowsRepo(StoreCore):
    """Per-user track follows, keyed by (team, user, track id)."""

    def follow(self, team: str, user: str, track: str) -> bool:
        """Follow a track. True if newly followed, False if already following."""
        check_id(team, "team"), check_id(user, "user"), check_id(track, "track")
        return self._insert_new(TrackFollow, team_id=team, user_id=user, track_id=track, followed_at=self._now())

    def unfollow(self, team: str, user: str, track: str) -> bool:
        """Stop following a track. True if the user was following it."""
        mine = (TrackFollow.team_id == team, TrackFollow.user_id == user)
        return self._change(delete(TrackFollow).where(*mine, TrackFollow.track_id == track)) > 0

    def follows(self, team: str, user: str) -> list[str]:
        """Track ids ``user`` follows, oldest follow first."""
        stmt = select(TrackFollow.track_id).where(TrackFollow.team_id == team, TrackFollow.user_id == user)
        with self._read() as s:
            return list(s.scalars(stmt.order_by(TrackFollow.followed_at, TrackFollow.track_id)))
