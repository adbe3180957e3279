"""The request context a use case gets: caller, language, runtime, the caller's progress
(:class:`Reader`) and search (:class:`Finder`) over one catalog snapshot, and the Slack look-ups."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cachetools import TTLCache
from pydantic import BaseModel, ConfigDict

from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog
from bot.domain.search import LinkResult, SearchResult, TrackMatch, track_named
from bot.domain.search.confidence import clear_best
from bot.domain.text import has_han
from bot.domain.words import canonical_zone
from bot.runtime import Loaded, Runtime
from bot.slack.i18n import LANGS, t
from bot.slack.mrkdwn import Mrkdwn
from bot.store import ReaderState

MAX_OFFSET = 10_000
"""The largest paging offset a button value may carry."""


@dataclass(frozen=True)
class Caller:
    """Who asked, from where: Slack team, user and channel ids (``channel_id`` may be a DM ``D…``);
    ``channel_name`` as a slash command's body gives it ("" when unknown: a click, an event)."""

    team_id: str
    user_id: str
    channel_id: str = ""
    channel_name: str = ""


@dataclass(frozen=True)
class UserInfo:
    """A person's ``users.info``: locale (``zh-CN`` …), IANA zone, display else real name, admin/owner."""

    locale: str | None = None
    tz: str | None = None
    name: str | None = None
    is_admin: bool = False
    is_owner: bool = False


UsersInfo = Callable[[str, str], UserInfo]
"""``(team_id, user_id) -> UserInfo``; must not raise (return ``UserInfo()`` on failure)."""


class NotCached(LookupError):
    """Raised by :meth:`UserInfoCache.cached` (and the ack's look-ups) when a Web API call is needed."""


class UserInfoCache:
    """Remembers ``users.info`` answers (at most 10,000 people) for ``ttl`` seconds.

    Speed layer needed by ``benchmarks/command_latency.py`` (50 people): a remembered person's
    language lets the reply go in the ack; without it every command called ``users.info`` and
    answered after the ack, at 4.8-4.9x the no-op's CPU per request (target <= 1.3x;
    docs/benchmarks.md, "Speed layers and the benchmarks that need them")."""

    def __init__(self, fetch: UsersInfo, ttl: float = 3600.0):
        self._fetch = fetch
        self._data: TTLCache[tuple[str, str], UserInfo] = TTLCache(10_000, ttl, timer=time.monotonic)
        self._lock = threading.Lock()

    def cached(self, team_id: str, user_id: str) -> UserInfo:
        """The remembered answer, without calling Slack; raises :class:`NotCached` when there is none."""
        with self._lock:
            info = self._data.get((team_id, user_id))
        if info is None:
            raise NotCached(user_id)
        return info

    def __call__(self, team_id: str, user_id: str) -> UserInfo:
        try:
            return self.cached(team_id, user_id)
        except NotCached:
            info = self._fetch(team_id, user_id)
        with self._lock:
            self._data[(team_id, user_id)] = info
        return info


def no_users_info(team_id: str, user_id: str) -> UserInfo:
    """A ``UsersInfo`` that knows nothing (English, the default time zone)."""
    return UserInfo()


OPTION_WORDS = frozenset({"读书会"})
"""Chinese names of a command's options (``club``'s ``读书会``, :mod:`bot.slack.grammar`): one of them
alone in an English command does not make it Chinese (QA: ``subscribe rl monday 读书会`` answered,
and set up the channel's digest, in Chinese); any other Chinese word does (QA rounds 18 and 19)."""

CHANNEL_OK = "ok"
""":data:`ChannelCheck` answer: the bot can post in the channel."""
CHANNEL_INVITE = "invite"
""":data:`ChannelCheck` answer: the bot is not in the channel (no ``channels:join``): ``/invite`` it."""

ChannelCheck = Callable[[str, str], str]
"""``(team_id, channel_id) -> CHANNEL_OK | CHANNEL_INVITE`` from ``conversations.info``; must
not raise (an answer it cannot read is :data:`CHANNEL_OK`)."""

Announce = Callable[[str, str, Mrkdwn], str | None]
"""``(team_id, channel_id, text)``: post one line (``chat.postMessage``); Slack's refusal
(``not_in_channel`` …), None when posted or nothing was posted to; must not raise (logs a refusal)."""


def any_channel(team_id: str, channel_id: str) -> str:
    """A :data:`ChannelCheck` that lets every channel through (no Slack to ask)."""
    return CHANNEL_OK


def no_announce(team_id: str, channel_id: str, text: Mrkdwn) -> None:
    """An :data:`Announce` that posts nothing (no Slack to post to)."""


class ButtonValue(BaseModel):
    """A button's value (JSON, :func:`bot.slack.views.blocks.encode_value`): ``p`` post id, ``t``
    track id, ``v`` the view it lives in (``track:<id>``, ``search:<query>``, ``next``, ``home``,
    ``digest:<subscription id>``, ``digest-dm``, ``unfurl``, ``reminders``), ``d`` a *Remind me*
    day or a reminder's id, ``o`` the first item shown, 0..:data:`MAX_OFFSET`."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    p: str | None = None
    t: str | None = None
    v: str = ""
    o: int = 0
    d: str | None = None

    @classmethod
    def parse(cls, data: dict[str, Any]) -> ButtonValue:
        """The value of decoded ``data``: unknown keys and fields of the wrong type are dropped, ``o`` clamped."""
        clean: dict[str, Any] = {k: v for k in ("p", "t", "d") if isinstance(v := data.get(k), str)}
        clean["v"] = str(data.get("v") or "")
        if isinstance(raw_o := data.get("o"), int) and not isinstance(raw_o, bool):
            clean["o"] = max(0, min(raw_o, MAX_OFFSET))
        return cls.model_validate(clean)


class Finder:
    """The one seam onto search, over the request's :attr:`bot.runtime.CatalogHolder.loaded` snapshot."""

    def __init__(self, loaded: Loaded) -> None:
        self.catalog = loaded.catalog
        self._loaded = loaded

    def track(self, text: str) -> str | None:
        """A track id for text (id, name, alias, typo), else ``None``."""
        return track_named(self.catalog, text, lambda: self._loaded.matcher)

    def topic(self, text: str) -> str | None:
        """The track a topic question asks about as a whole (``where do I begin with X``, ``X 入门看什么``;
        :meth:`bot.domain.search.Matcher.topic_track`), else ``None``."""
        match = self._loaded.matcher.topic_track(text)
        return match.track_id if match is not None else None

    def near_track(self, text: str) -> TrackMatch | None:
        """The track whose name ``text`` is close to (:meth:`bot.domain.search.Matcher.suggest_track`)."""
        return self._loaded.matcher.suggest_track(text)

    def link(self, text: str) -> LinkResult | None:
        """What a link in ``text`` points to (``None``: no link)."""
        return self._loaded.matcher.resolve_link(text)

    def posts(self, text: str, limit: int = 5, offset: int = 0) -> SearchResult:
        """The search for ``text``: ``limit`` ranked posts from ``offset``."""
        return self._loaded.matcher.search(text, limit=limit, offset=offset)

    def exact_post_ids(self, words: list[str]) -> list[str] | None:
        """The posts ``words`` name when each is a post id or former id (case-folded, without
        quotes or backticks around it: ``“p-eagle”``), in order without repeats; else (or for no words) ``None``."""
        ids = [self.catalog.resolve_post_id(w.strip("`,\"'“”‘’").casefold()) for w in words]
        return list(dict.fromkeys(i for i in ids if i)) if words and all(ids) else None

    def resolve_posts(self, text: str) -> tuple[list[str], SearchResult | None]:
        """``(post ids, None)``: exact or former ids, else the clear best match
        (:func:`~bot.domain.search.confidence.clear_best`); ``([], result)`` when none is clear, ``([], None)``."""
        ids = self.exact_post_ids(text.split())
        if ids is not None:
            return ids, None
        if (titled := title_start(self.catalog, text)) is not None:  # QA 13: `read parallel all the way down`
            return [titled], None
        result = self.posts(text, limit=5)
        if not result.results:
            return [], None
        best = clear_best(result)
        return ([best], None) if best else ([], result)


_TITLE_WORDS = re.compile(r"[^\W_]+")
MIN_TITLE_START = 12
"""The fewest letters and digits of a title's start that name its post (``read next-level`` is a search)."""
_titles: PerCatalog[tuple[tuple[str, str], ...]] = PerCatalog()


def _title_key(text: str) -> str:
    """``text``'s words, case-folded, one space apart (punctuation, dashes and quotes dropped)."""
    return " ".join(_TITLE_WORDS.findall(text.casefold()))


def title_start(catalog: Catalog, text: str) -> str | None:
    """The post whose title starts with ``text``'s words (case, punctuation and dashes aside: ``read
    parallel all the way down`` for "Parallel All the Way Down: …"), when exactly one title does and
    the words hold at least :data:`MIN_TITLE_START` letters or digits; else None. A reader who types
    a title's start means that post, even when its words are too common for the search to be sure."""
    key = _title_key(text)
    if sum(c.isalnum() for c in key) < MIN_TITLE_START:
        return None
    titles = _titles.get(catalog, "keys", lambda: tuple((_title_key(p.title), p.id) for p in catalog.posts))
    found = {pid for title, pid in titles if title == key or title.startswith(key + " ")}
    return found.pop() if len(found) == 1 else None


class Reader:
    """The caller's reading state, read on first use (:meth:`bot.store.Store.reader_state`) and
    kept equal to the store's by its own writes (a write made around it is not seen)."""

    def __init__(self, rt: Runtime, caller: Caller, catalog: Catalog) -> None:
        self._rt, self._team, self._user, self._catalog = rt, caller.team_id, caller.user_id, catalog
        self._state: ReaderState | None = None
        self._read: set[str] = set()
        self._follows: list[str] = []

    def _load(self) -> ReaderState:
        if self._state is None:
            self._state = self._rt.store.reader_state(self._team, self._user)
            self._read, self._follows = set(self._state.read), list(self._state.follows)
        return self._state

    @property
    def chosen_lang(self) -> str | None:
        """The ``/vllm-path lang`` setting, else ``None``."""
        return self._load().lang

    @property
    def budget(self) -> int | None:
        """The weekly reading budget in minutes (``plan 30m``), else ``None`` (the default)."""
        return self._load().budget

    def read(self) -> set[str]:
        """Post ids the caller has read (as stored: may include former ids); a fresh copy."""
        self._load()
        return set(self._read)

    def mark_read(self, post_ids: list[str]) -> set[str]:
        """Record current post ids as read; returns the ids newly marked."""
        self._load()
        fresh = paths.unread_among(self._catalog, self._read, post_ids)
        if not fresh:
            return set()
        marked: set[str] = self._rt.store.mark_read(self._team, self._user, fresh)
        self._read.update(fresh)  # every fresh id is stored now (newly, or by a racing request)
        return marked

    def mark_unread(self, post_ids: list[str]) -> set[str]:
        """Forget that posts were read, including progress stored under their former ids."""
        self._load()
        ids = paths.with_former_ids(self._catalog, post_ids)
        removed: set[str] = self._rt.store.mark_unread(self._team, self._user, ids)
        self._read.difference_update(ids)
        return removed

    def state(self, track_id: str) -> paths.TrackState:
        """The caller's :class:`~bot.domain.paths.TrackState` in ``track_id`` (``KeyError``: unknown track)."""
        self._load()
        return paths.track_state(self._catalog, track_id, self._read)

    def states(self, track_ids: Sequence[str]) -> list[paths.TrackState]:
        """:meth:`state` of each of ``track_ids`` the catalog has, in their order."""
        return [self.state(tid) for tid in track_ids if self._catalog.has_track(tid)]

    def follows(self) -> list[str]:
        """Track ids the caller follows, oldest follow first; a fresh copy."""
        self._load()
        return list(self._follows)

    def follow(self, track_id: str) -> bool:
        """Follow ``track_id``; ``False`` when the caller already followed it."""
        self._load()
        added: bool = self._rt.store.follow(self._team, self._user, track_id)
        if added and self._follows:
            self._state = None  # its place among equal follow times is the store's: read again
        elif added:
            self._follows.append(track_id)
        return added

    def unfollow(self, track_id: str) -> bool:
        """Stop following ``track_id``; ``False`` when the caller did not follow it."""
        self._load()
        removed: bool = self._rt.store.unfollow(self._team, self._user, track_id)
        if track_id in self._follows:
            self._follows.remove(track_id)
        return removed


@dataclass
class Context:
    """One request: ``rt``, ``caller``, ``lang`` (chosen with ``lang``, else zh when ``typed`` holds a
    Chinese word other than an option name (:data:`OPTION_WORDS`), a Chinese track or post name
    included (``dm on 周五``, ``plan 30分钟``: QA round 18;
    ``follow 推测解码``, ``推测解码 spec``: QA round 19), else the Slack locale
    zh* -> zh, else en: the language of this reply, stored only by ``lang``); Slack only through ``users_info``,
    ``channel_check``, ``announce``."""

    rt: Runtime
    caller: Caller
    users_info: UsersInfo = no_users_info
    lang: str = ""
    channel_check: ChannelCheck = any_channel
    announce: Announce = no_announce
    typed: str = ""
    find: Finder = field(init=False, repr=False)
    reader: Reader = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.find = Finder(self.rt.holder.loaded)
        self.reader = Reader(self.rt, self.caller, self.find.catalog)
        if not self.lang:
            self.lang = self._language()

    @property
    def catalog(self) -> Catalog:
        """The catalog of this request (the snapshot search uses too)."""
        return self.find.catalog

    def _language(self) -> str:
        chosen = self.reader.chosen_lang
        if chosen in LANGS:
            return chosen
        if has_han(" ".join(w for w in self.typed.split() if w not in OPTION_WORDS)):
            return "zh"  # QA round 19: `follow 推测解码`, `推测解码 spec` were answered in English
        locale = (self.users_info(self.caller.team_id, self.caller.user_id).locale or "").lower()
        return "zh" if locale.startswith("zh") else "en"

    def person(self, user_id: str) -> str:
        """``user_id``'s Slack name (``users.info``), else "someone" (never a raw id or a mention)."""
        name = self.users_info(self.caller.team_id, user_id).name if user_id else None
        return name or str(t("name.someone", self.lang))

    def is_admin(self) -> bool:
        """Whether the caller is an admin or owner of the workspace (``users.info``)."""
        info = self.users_info(self.caller.team_id, self.caller.user_id)
        return info.is_admin or info.is_owner

    def may_stop(self, created_by: str | None) -> bool:
        """Whether the caller may stop a channel digest: its creator ``created_by`` (anyone when none
        was recorded), or a workspace admin or owner (``users.info``)."""
        return not created_by or created_by == self.caller.user_id or self.is_admin()

    def later_language(self) -> Mrkdwn | None:
        """When setting up something sent to the caller later (their DM, a reminder, which keeps the
        language of this reply: ``dm_preferences.lang``, ``reminders.lang``): a note, in a Chinese
        reply to one who chose no language, that it will come in Chinese and how to make every reply
        Chinese; else ``None``. The person's language is not stored: only ``lang`` stores it (QA: one
        Chinese ``remind`` stored zh and changed every later reply)."""
        if self.lang == "en" or self.reader.chosen_lang in LANGS:
            return None
        return t("lang.later", self.lang)

    def tell_channel(self, text: Mrkdwn) -> None:
        """Post ``text`` as one line in the caller's channel (never raises)."""
        if self.caller.channel_id and not self.caller.channel_id.startswith("D"):
            self.announce(self.caller.team_id, self.caller.channel_id, text)

    def timezone(self) -> str:
        """The caller's IANA zone: their Slack ``tz`` when zoneinfo knows it, else the default zone."""
        tz = self.users_info(self.caller.team_id, self.caller.user_id).tz
        return tz if tz and canonical_zone(tz) else self.rt.settings.default_timezone
