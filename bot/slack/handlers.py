"""What each command and button does: parse -> domain (catalog, paths, search, store) -> a Reply.

Listeners (``bot/slack/listeners``) only extract the Slack fields and call these; the console
and tests call them the same way. Nothing here talks to Slack except through the optional
``users_info`` callable (for the locale and time zone), which must never raise.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone as dt_timezone
from typing import Callable

from rapidfuzz import fuzz, process

from bot import paths
from bot.digest.weekly import DEFAULT_TIME, DEFAULT_WEEKDAY, next_fire
from bot.digest.actions import handle_digest_action
from bot.runtime import Runtime
from bot.slack import grammar
from bot.slack.i18n import LANGS, t, weekday_name
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply

log = logging.getLogger(__name__)

CLEAR_MARGIN = 3.0
"""Score points by which the best search match must lead for ``read <query>`` to mark it."""
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{2,30}$")


@dataclass(frozen=True)
class Caller:
    """Who asked, from where: Slack team, user and channel ids (``channel_id`` may be a DM ``D…``)."""

    team_id: str
    user_id: str
    channel_id: str = ""


@dataclass(frozen=True)
class UserInfo:
    """A person's Slack locale (``en-US``, ``zh-CN`` …) and IANA time zone, when known."""

    locale: str | None = None
    tz: str | None = None


UsersInfo = Callable[[str, str], UserInfo]
"""``(team_id, user_id) -> UserInfo``; must not raise (return ``UserInfo()`` on failure)."""


class UserInfoCache:
    """Remembers ``users.info`` answers for ``ttl`` seconds, so a command costs at most one call."""

    def __init__(self, fetch: UsersInfo, ttl: float = 3600.0):
        self._fetch = fetch
        self._ttl = ttl
        self._data: dict[tuple[str, str], tuple[float, UserInfo]] = {}
        self._lock = threading.Lock()

    def __call__(self, team_id: str, user_id: str) -> UserInfo:
        key = (team_id, user_id)
        now = time.monotonic()
        with self._lock:
            hit = self._data.get(key)
            if hit and now - hit[0] < self._ttl:
                return hit[1]
        info = self._fetch(team_id, user_id)
        with self._lock:
            if len(self._data) > 10_000:
                self._data.clear()
            self._data[key] = (now, info)
        return info


def no_users_info(team_id: str, user_id: str) -> UserInfo:
    """A ``UsersInfo`` that knows nothing (English, the default time zone)."""
    return UserInfo()


class Handlers:
    """Command and action handlers bound to a :class:`Runtime` (store + catalog holder)."""

    def __init__(self, runtime: Runtime, users_info: UsersInfo = no_users_info):
        self.rt = runtime
        self.users_info = users_info

    # --- helpers ---------------------------------------------------------------------------

    def lang(self, caller: Caller) -> str:
        """``/vllm-path lang`` setting, else the Slack locale (zh* -> zh), else English."""
        chosen = self.rt.store.get_lang(caller.team_id, caller.user_id)
        if chosen in LANGS:
            return chosen
        locale = (self.users_info(caller.team_id, caller.user_id).locale or "").lower()
        return "zh" if locale.startswith("zh") else "en"

    def _read(self, caller: Caller) -> set[str]:
        return self.rt.store.read_posts(caller.team_id, caller.user_id)

    def _mark_read(self, caller: Caller, post_ids: list[str]) -> set[str]:
        """Record current post ids as read; a post already read under a former id (an alias, from
        before a rename) counts as read. Returns the ids newly marked."""
        cat = self.rt.holder.catalog
        done = {cat.resolve_post_id(p) or p for p in self._read(caller)}
        fresh = [p for p in post_ids if p not in done]
        return self.rt.store.mark_read(caller.team_id, caller.user_id, fresh) if fresh else set()

    def _mark_unread(self, caller: Caller, post_ids: list[str]) -> set[str]:
        """Forget that posts were read, including progress stored under their former ids."""
        cat = self.rt.holder.catalog
        ids = list(dict.fromkeys(x for p in post_ids for x in (p, *cat.post(p).aliases)))
        return self.rt.store.mark_unread(caller.team_id, caller.user_id, ids)

    def _tracks_list(self, lang: str) -> str:
        cat = self.rt.holder.catalog
        return Mrkdwn(", ").join(Mrkdwn("`{}` ({})").format(tr.id, tr.names.get(lang)) for tr in cat.tracks)

    def _resolve_track(self, text: str):
        """A track id for text (id, name, alias, typo) via the matcher, else ``None``."""
        if not text.strip():
            return None
        match = self.rt.holder.loaded.matcher.match_track(text)
        return match.track_id if match else None

    def _resolve_posts(self, text: str):
        """Post ids named by ``text``: exact ids / former ids (space-separated), else the search's
        best match when it is clear. Returns ``(post ids, search result or None)``; when the
        best matches are close (:data:`CLEAR_MARGIN` points) the ids are empty and the result
        lets the person pick."""
        loaded = self.rt.holder.loaded
        cat = loaded.catalog
        words = text.split()
        ids = [cat.resolve_post_id(w.strip("`,")) for w in words]
        if words and all(ids):
            return list(dict.fromkeys(ids)), None
        result = loaded.matcher.search(text, limit=5)
        if not result.results:
            return [], None
        top = result.results
        if len(top) > 1 and top[1].score >= top[0].score - CLEAR_MARGIN:
            return [], result
        return [top[0].post_id], None

    def _suggest(self, text: str, lang: str) -> str | None:
        """A did-you-mean line: the closest track name or alias for unmatched text."""
        cat = self.rt.holder.catalog
        choices = {}
        for tr in cat.tracks:
            for name in (tr.id, tr.names.en, tr.names.zh or "", *tr.aliases):
                if name:
                    choices[name.casefold()] = tr.id
        best = process.extractOne(text.casefold()[:100], list(choices), scorer=fuzz.WRatio, score_cutoff=70)
        if not best:
            return None
        tid = choices[best[0]]
        return t("didyoumean.track", lang, track=cat.track(tid).names.get(lang), track_id=tid)

    # --- slash command ---------------------------------------------------------------------------

    def command(self, caller: Caller, text: str) -> Reply:
        """Answer ``/vllm-path <text>`` for ``caller``. Never raises for bad input."""
        cmd = grammar.parse(text)
        lang = self.lang(caller)
        reply = self._dispatch(caller, cmd, lang)
        if cmd.truncated:
            notice = t("error.too_long", lang, n=grammar.MAX_TEXT)
            reply = Reply(text=str(notice + "\n" + Mrkdwn(reply.text)),
                          blocks=[views.section(notice).to_dict()] + reply.blocks[:49],
                          response_type=reply.response_type)
        return reply

    def _dispatch(self, caller: Caller, cmd: grammar.Command, lang: str) -> Reply:
        cat = self.rt.holder.catalog
        store = self.rt.store
        if cmd.kind == "help":
            return views.help_reply(cat, lang)
        if cmd.kind == "did_you_mean":
            return views.help_reply(cat, lang, prefix=t("didyoumean.command", lang,
                                                        suggestion=truncate(cmd.suggestion or "", 200)))
        if cmd.kind == "query":
            return self.query(caller, cmd.arg, lang)
        if cmd.kind == "next":
            return views.next_reply(cat, store.follows(caller.team_id, caller.user_id), self._read(caller), lang)
        if cmd.kind in ("read", "unread"):
            return self.mark(caller, cmd.arg, lang, read=cmd.kind == "read")
        if cmd.kind in ("follow", "unfollow"):
            return self.follow(caller, cmd.arg, lang, follow=cmd.kind == "follow")
        if cmd.kind == "subscribe":
            return self.subscribe(caller, cmd, lang)
        if cmd.kind == "unsubscribe":
            tid = self._resolve_track(cmd.arg)
            if tid is None:
                return views.text_reply(self._unknown_track(cmd.arg, lang))
            name = views.track_name(cat, tid, lang)
            removed = store.unsubscribe(caller.team_id, caller.channel_id, tid)
            return views.text_reply(t("unsub.done" if removed else "unsub.not", lang, track=name))
        if cmd.kind == "subscriptions":
            return views.subscriptions_reply(cat, store.subscriptions(caller.team_id, caller.channel_id), lang)
        if cmd.kind == "dm":
            return self.dm(caller, cmd, lang)
        if cmd.kind == "lang":
            if cmd.arg in LANGS:
                store.set_lang(caller.team_id, caller.user_id, cmd.arg)
                return views.text_reply(t("lang.done", cmd.arg))
            return views.text_reply(t("lang.bad", lang))
        return views.help_reply(cat, lang)  # pragma: no cover - every kind is handled above

    def _unknown_track(self, text: str, lang: str) -> str:
        if not text.strip():
            return t("track.which", lang, tracks=self._tracks_list(lang))
        suggestion = self._suggest(text, lang)
        base = t("track.unknown", lang, query=truncate(text, 100), tracks=self._tracks_list(lang))
        return base + (Mrkdwn("\n") + suggestion if suggestion else Mrkdwn())

    def query(self, caller: Caller, text: str, lang: str, notice: str | None = None) -> Reply:
        """A track's path when ``text`` names a track, otherwise search results."""
        loaded = self.rt.holder.loaded
        track = loaded.matcher.match_track(text) if text.strip() else None
        if track is not None:
            return self.track_view(caller, track.track_id, lang, notice=notice)
        result = loaded.matcher.search(text, limit=views.MAX_RESULTS)
        suggestion = None if result.results or not text.strip() else self._suggest(text, lang)
        return views.search_reply(loaded.catalog, text, result, self._read(caller), lang,
                                  notice=notice, suggestion=suggestion)

    def track_view(self, caller: Caller, track_id: str, lang: str, notice: str | None = None) -> Reply:
        """The track reply for ``caller`` (progress, next step, buttons)."""
        followed = track_id in self.rt.store.follows(caller.team_id, caller.user_id)
        return views.track_reply(self.rt.holder.catalog, track_id, self._read(caller), lang,
                                 followed=followed, notice=notice)

    def mark(self, caller: Caller, text: str, lang: str, *, read: bool) -> Reply:
        """``read``/``unread``: resolve posts (ids or a query), update progress, confirm."""
        cat = self.rt.holder.catalog
        if not text.strip():
            return views.text_reply(t("read.which", lang))
        post_ids, candidates = self._resolve_posts(text)
        if candidates is not None:  # several posts match about as well: let the reader pick
            return views.search_reply(cat, text, candidates, self._read(caller), lang,
                                      notice=t("read.pick", lang))
        if not post_ids:
            suggestion = self._suggest(text, lang)
            msg = t("read.no_match", lang, query=truncate(text, 100))
            return views.text_reply(msg + (Mrkdwn("\n") + suggestion if suggestion else Mrkdwn()))
        titles = Mrkdwn(", ").join(views.post_link(cat, p) for p in post_ids)
        if read:
            changed = self._mark_read(caller, post_ids)
            msg = t("read.done" if changed else "read.already", lang, posts=titles)
            # Show where that leaves the reader in the post's first track.
            tracks = cat.tracks_of(post_ids[0])
            if tracks:
                return self.track_view(caller, tracks[0], lang, notice=msg)
            return views.text_reply(msg)
        changed = self._mark_unread(caller, post_ids)
        return views.text_reply(t("unread.done" if changed else "unread.already", lang, posts=titles))

    def follow(self, caller: Caller, text: str, lang: str, *, follow: bool) -> Reply:
        """``follow``/``unfollow`` a track."""
        cat = self.rt.holder.catalog
        tid = self._resolve_track(text)
        if tid is None:
            return views.text_reply(self._unknown_track(text, lang))
        name = views.track_name(cat, tid, lang)
        if follow:
            new = self.rt.store.follow(caller.team_id, caller.user_id, tid)
            if not new:
                return views.text_reply(t("follow.already", lang, track=name))
            nxt = paths.next_step(cat, tid, self._read(caller))
            post = views.post_link(cat, nxt.post) if nxt else t("track.done", lang)
            return self.track_view(caller, tid, lang, notice=t("follow.done", lang, track=name, post=post))
        removed = self.rt.store.unfollow(caller.team_id, caller.user_id, tid)
        return views.text_reply(t("unfollow.done" if removed else "unfollow.not", lang, track=name))

    def _timezone(self, caller: Caller, typed: str | None) -> tuple[str | None, str | None]:
        """``(IANA zone, error text)`` for a typed zone, else the person's Slack zone or the default."""
        if typed:
            zone = grammar.canonical_zone(typed)
            return (zone, None) if zone else (None, typed)
        tz = self.users_info(caller.team_id, caller.user_id).tz
        return (tz if tz and grammar.canonical_zone(tz) else self.rt.settings.default_timezone), None

    def subscribe(self, caller: Caller, cmd: grammar.Command, lang: str) -> Reply:
        """``subscribe <track> [weekday] [HH:MM] [zone]`` in a channel."""
        cat = self.rt.holder.catalog
        if not caller.channel_id or caller.channel_id.startswith("D"):
            return views.text_reply(t("sub.not_channel", lang))
        if cmd.error:
            return views.text_reply(t(cmd.error, lang, value=cmd.error_value or ""))
        tid = self._resolve_track(cmd.arg)
        if tid is None:
            return views.text_reply(self._unknown_schedule_part(cmd.arg, lang)
                                    or self._unknown_track(cmd.arg, lang))
        existing = {s.track_id: s for s in self.rt.store.subscriptions(caller.team_id, caller.channel_id)}
        old = existing.get(tid)
        # Parts left out keep the channel's current schedule (re-subscribing resumes a paused
        # digest without moving it), else the defaults and the person's Slack time zone.
        if cmd.timezone is None and old is not None:
            tz, bad = old.timezone, None
        else:
            tz, bad = self._timezone(caller, cmd.timezone)
        if tz is None:
            return views.text_reply(t("sub.bad_tz", lang, tz=truncate(bad or "", 60)))
        weekday = cmd.weekday if cmd.weekday is not None else (old.weekday if old else DEFAULT_WEEKDAY)
        at_time = cmd.at_time or (old.at_time if old else DEFAULT_TIME)
        sub = self.rt.store.subscribe(caller.team_id, caller.channel_id, tid, weekday, at_time, tz,
                                      created_by=caller.user_id)
        first = next_fire_label(weekday, at_time, tz, lang=lang)
        if old is None:
            key = "sub.done"
        elif (old.weekday, old.at_time, old.timezone, old.status) == (sub.weekday, sub.at_time, sub.timezone, sub.status):
            key = "sub.already"
        elif old.status != "active":
            key = "sub.resumed"
        else:
            key = "sub.updated"
        return views.text_reply(t(key, lang, track=views.track_name(cat, tid, lang),
                                  weekday=weekday_name(weekday, lang), time=at_time, tz=tz, first=first))

    def _unknown_schedule_part(self, text: str, lang: str) -> str | None:
        """When the leading words name a track and the rest is not a schedule, say which words
        were not understood (instead of blaming the track)."""
        words = text.split()
        for cut in range(len(words) - 1, 0, -1):
            if self._resolve_track(" ".join(words[:cut])):
                rest = " ".join(words[cut:])
                return t("sub.bad_part", lang, value=truncate(rest, 80))
        return None

    def dm(self, caller: Caller, cmd: grammar.Command, lang: str) -> Reply:
        """``dm on [weekday] [HH:MM] [zone]`` / ``dm off``."""
        store = self.rt.store
        if cmd.enabled is None:
            return views.text_reply(t("dm.usage", lang))
        if cmd.enabled is False:
            store.set_dm(caller.team_id, caller.user_id, False)
            return views.text_reply(t("dm.off", lang))
        if cmd.error:
            return views.text_reply(t(cmd.error, lang, value=truncate(cmd.error_value or "", 100)))
        tz, bad = self._timezone(caller, cmd.timezone)
        if tz is None:
            return views.text_reply(t("sub.bad_tz", lang, tz=truncate(bad or "", 60)))
        weekday = DEFAULT_WEEKDAY if cmd.weekday is None else cmd.weekday
        at_time = cmd.at_time or DEFAULT_TIME
        store.set_dm(caller.team_id, caller.user_id, True, weekday=weekday, at_time=at_time, timezone=tz)
        return views.text_reply(t("dm.on", lang, weekday=weekday_name(weekday, lang), time=at_time, tz=tz))

    # --- buttons ---------------------------------------------------------------------------

    def action(self, caller: Caller, kind: str, data: dict) -> Reply | None:
        """Handle a button click (``kind`` = the action id's prefix, ``data`` = its decoded value).

        Returns the redrawn message for ``response_url`` (or an in-channel share), or ``None``
        when the click came from App Home (the caller republishes Home instead).
        """
        cat = self.rt.holder.catalog
        store = self.rt.store
        lang = self.lang(caller)
        if kind in ("snooze", "stop"):  # a digest's own buttons (bot/digest/actions.py)
            return handle_digest_action(self.rt, caller, kind, data, lang=lang)
        post_id = data.get("p") if isinstance(data.get("p"), str) else None
        track_id = data.get("t") if isinstance(data.get("t"), str) and cat.has_track(data["t"]) else None
        notice = None
        if kind in ("mark_read", "mark_unread") and post_id and cat.has_post(post_id):
            pid = cat.resolve_post_id(post_id)
            if kind == "mark_read":
                self._mark_read(caller, [pid])
                notice = t("read.done", lang, posts=views.post_link(cat, pid))
            else:
                self._mark_unread(caller, [pid])
                notice = t("unread.done", lang, posts=views.post_link(cat, pid))
        elif kind == "follow" and track_id:
            store.follow(caller.team_id, caller.user_id, track_id)
            notice = t("follow.done_short", lang, track=views.track_name(cat, track_id, lang))
        elif kind == "unfollow" and track_id:
            store.unfollow(caller.team_id, caller.user_id, track_id)
            notice = t("unfollow.done", lang, track=views.track_name(cat, track_id, lang))
        elif kind == "share" and track_id:
            return views.track_reply(cat, track_id, set(), lang, followed=False, shared=True)
        elif kind == "dm_on":
            tz, _ = self._timezone(caller, None)
            store.set_dm(caller.team_id, caller.user_id, True, weekday=DEFAULT_WEEKDAY,
                         at_time=DEFAULT_TIME, timezone=tz)
        elif kind == "dm_off":
            store.set_dm(caller.team_id, caller.user_id, False)
        return self.redraw(caller, str(data.get("v") or ""), lang, notice)

    def redraw(self, caller: Caller, view: str, lang: str, notice: str | None) -> Reply | None:
        """The message a button lived in, drawn again with the new state (``None`` for Home)."""
        cat = self.rt.holder.catalog
        if view == "home":
            return None
        if view.startswith("track:") and cat.has_track(view[6:]):
            return self.track_view(caller, view[6:], lang, notice=notice)
        if view.startswith("search:"):
            return self.query(caller, view[7:], lang, notice=notice)
        if view.startswith("digest"):
            return views.text_reply(notice or t("done", lang))
        if view == "next":
            return views.next_reply(cat, self.rt.store.follows(caller.team_id, caller.user_id),
                                    self._read(caller), lang, notice=notice)
        return views.text_reply(notice or t("error.generic", lang))

    # --- App Home ------------------------------------------------------------------------------

    def home(self, caller: Caller, channel_ids: list[str] | None) -> dict:
        """The Home view for ``caller``; ``channel_ids`` are the channels they are in (``None``:
        unknown, so no channel digests are listed)."""
        store = self.rt.store
        lang = self.lang(caller)
        subs = []
        if channel_ids:
            wanted = {c for c in channel_ids if _CHANNEL_ID.match(c)}
            subs = [s for s in store.subscriptions(caller.team_id) if s.channel_id in wanted]
        state = views.HomeState(follows=store.follows(caller.team_id, caller.user_id),
                                read=self._read(caller), dm=store.get_dm(caller.team_id, caller.user_id),
                                channel_subs=subs, lang=lang)
        return views.home_view(self.rt.holder.catalog, state)


def next_fire_label(weekday: int, at_time: str, tz: str, now: datetime | None = None,
                    lang: str = "en") -> str:
    """When a weekly schedule next fires, as ``Monday 2026-12-07 09:00 Europe/Berlin`` (local
    time; the weekday in ``lang``): the clock's own :func:`bot.digest.weekly.next_fire`, so the
    reply and the scheduler never disagree."""
    fire = next_fire(weekday, at_time, tz, now or datetime.now(dt_timezone.utc))
    if not fire:
        return "-"
    return f"{weekday_name(fire.weekday(), lang)} {fire:%Y-%m-%d %H:%M} {tz}"
