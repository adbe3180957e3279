"""Who is asking and the shared steps of the use cases: language, progress, track and post
resolution, the redraw of the message a button lived in.

:class:`Caller`, :class:`UserInfo` and the ``users.info`` cache live here too (the listeners
build a :class:`Session` from Bolt's ``context``). Nothing here talks to Slack except through
the optional ``users_info`` callable, which must never raise.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.domain import paths
from bot.domain.search import TRACK_THRESHOLD, PostMatch, SearchResult, track_named
from bot.domain.text import has_han
from bot.runtime import Runtime
from bot.slack import grammar
from bot.slack.i18n import LANGS, t
from bot.slack.mrkdwn import Mrkdwn, truncate
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.parts import memo, memo_reply
from bot.slack.views.plan import path_line
from bot.slack.views.reminders import reminders_reply
from bot.slack.views.search import search_reply
from bot.store import ReaderState

MAX_OFFSET = 10_000
"""The largest paging offset a button value may carry."""

CLEAR_MARGIN = 15.0
"""Score points by which the best search match must lead the second for ``read`` / ``unread`` /
``remind <query>`` to act on it without asking. A title or its distinctive part leads by 16-32
(``eagle 3.1``, ``agentx``, ``torch.compile``); a topic that several posts share leads by 2-10
(``kv cache``, ``fp8``, ``nixl``, ``dspark``, ``autoround``): those ask which post."""

CONFIDENT_SCORE = 80.0
"""The search score (0-100) a best match needs before ``read`` / ``unread`` / ``remind`` act on it
without asking: named posts, titles and links score 88-100 on the eval sets, while loose text
(``hello world``, ``that post from yesterday``, an unknown id) tops out at 35-72."""


@dataclass(frozen=True)
class Caller:
    """Who asked, from where: Slack team, user and channel ids (``channel_id`` may be a DM ``D…``)."""

    team_id: str
    user_id: str
    channel_id: str = ""


@dataclass(frozen=True)
class UserInfo:
    """A person's Slack locale (``en-US``, ``zh-CN`` …), IANA time zone and name (profile
    display name, else real name), and whether they are a workspace admin or owner
    (``users.info`` ``is_admin`` / ``is_owner``), when known."""

    locale: str | None = None
    tz: str | None = None
    name: str | None = None
    is_admin: bool = False
    is_owner: bool = False


UsersInfo = Callable[[str, str], UserInfo]
"""``(team_id, user_id) -> UserInfo``; must not raise (return ``UserInfo()`` on failure)."""


class NotCached(LookupError):
    """Raised by :meth:`UserInfoCache.cached` (and the look-ups of a reply given in the ack) when
    answering would need a ``users.info`` or other Web API call."""


class UserInfoCache:
    """Remembers ``users.info`` answers for ``ttl`` seconds, so a command costs at most one call."""

    def __init__(self, fetch: UsersInfo, ttl: float = 3600.0):
        self._fetch = fetch
        self._ttl = ttl
        self._data: dict[tuple[str, str], tuple[float, UserInfo]] = {}
        self._lock = threading.Lock()

    def cached(self, team_id: str, user_id: str) -> UserInfo:
        """The remembered answer for the person, without calling Slack. Raises
        :class:`NotCached` when there is none younger than ``ttl`` seconds."""
        with self._lock:
            hit = self._data.get((team_id, user_id))
        if hit is None or time.monotonic() - hit[0] >= self._ttl:
            raise NotCached(user_id)
        return hit[1]

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


CHANNEL_OK = "ok"
""":data:`ChannelCheck` answer: the bot can post in the channel."""
CHANNEL_INVITE = "invite"
""":data:`ChannelCheck` answer: the bot cannot post there until someone runs ``/invite``
(a private channel it is not in, which Slack reports as ``channel_not_found``, or a public
channel it is not in: the manifest has no ``channels:join``)."""

ChannelCheck = Callable[[str, str], str]
"""``(team_id, channel_id) -> CHANNEL_OK | CHANNEL_INVITE`` from ``conversations.info``; must
not raise (an answer it cannot read is :data:`CHANNEL_OK`, so a Slack hiccup keeps today's
behaviour)."""

Announce = Callable[[str, str, Mrkdwn], None]
"""``(team_id, channel_id, text)``: post one line in the channel (``chat.postMessage``); must not
raise (a refused post, e.g. ``not_in_channel``, is logged and dropped)."""


def any_channel(team_id: str, channel_id: str) -> str:
    """A :data:`ChannelCheck` that lets every channel through (no Slack to ask)."""
    return CHANNEL_OK


def no_announce(team_id: str, channel_id: str, text: Mrkdwn) -> None:
    """An :data:`Announce` that posts nothing (no Slack to post to)."""


class ButtonValue(BaseModel):
    """A button's value (JSON, see :func:`bot.slack.views.blocks.encode_value`): ``p`` a post
    id, ``t`` a track id, ``v`` the view the button lives in (``track:<id>``, ``search:<query>``,
    ``next``, ``home``, ``digest:<subscription id>``, ``digest-dm``, ``unfurl``, ``reminders``),
    ``o`` a paging offset, ``d`` the day a *Remind me* button asks for (``next week``) or a
    reminder's id. Unknown keys are ignored; a malformed value reads as empty (:meth:`parse`)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    p: str | None = None
    t: str | None = None
    v: str = ""
    o: int = 0
    """Paging: the index of the first item to show (a search's results for ``More results``, a
    track's steps for ``Show more steps``); 0..:data:`MAX_OFFSET`."""

    d: str | None = None
    """The day a *Remind me* button asks for, or a reminder's id."""

    @classmethod
    def parse(cls, data: dict[str, Any]) -> ButtonValue:
        """The value of decoded ``data``; fields of the wrong type are dropped (an offset that is
        not a whole number reads as 0, one out of range is clamped)."""
        clean: dict[str, Any] = {k: v for k in ("p", "t", "d") if isinstance(v := data.get(k), str)}
        raw_v = data.get("v")
        clean["v"] = str(raw_v) if raw_v else ""
        raw_o = data.get("o")
        if isinstance(raw_o, int) and not isinstance(raw_o, bool):
            clean["o"] = max(0, min(raw_o, MAX_OFFSET))
        try:
            return cls.model_validate(clean)
        except ValidationError:  # pragma: no cover - the fields are checked above
            return cls()


@dataclass
class Session:
    """One request: the runtime, the ``caller``, the ``users_info`` look-up and the language
    (``lang``: the ``/vllm-path lang`` setting, else Chinese when the command's text ``typed``
    holds Chinese characters, else the Slack locale, zh* -> zh, else en).

    The caller's reading state (chosen language, posts read, tracks followed) is read from the
    store once per request, in one statement (:meth:`bot.store.Store.reader_state`), on first
    use; the session's own writes (:meth:`mark_read`, :meth:`mark_unread`, :meth:`follow`,
    :meth:`unfollow`) keep that copy equal to what the store holds. A write made around the
    session (``s.rt.store.…``) is not seen by :meth:`read` / :meth:`follows` afterwards."""

    rt: Runtime
    caller: Caller
    users_info: UsersInfo = no_users_info
    lang: str = field(default="")
    channel_check: ChannelCheck = any_channel
    announce: Announce = no_announce
    typed: str = ""
    _state: ReaderState | None = field(default=None, init=False, repr=False)
    _read: set[str] = field(default_factory=set, init=False, repr=False)
    _follows: list[str] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.lang:
            self.lang = self._language()

    def _reader(self) -> ReaderState:
        """The caller's reading state, read once (one statement) and cached on the session."""
        if self._state is None:
            self._state = self.rt.store.reader_state(self.caller.team_id, self.caller.user_id)
            self._read = set(self._state.read)
            self._follows = list(self._state.follows)
        return self._state

    def _language(self) -> str:
        chosen = self._reader().lang
        if chosen in LANGS:
            return chosen
        if has_han(self.typed):
            return "zh"
        locale = (self.users_info(self.caller.team_id, self.caller.user_id).locale or "").lower()
        return "zh" if locale.startswith("zh") else "en"

    # --- people and channels

    def person(self, user_id: str) -> str:
        """How to name ``user_id`` in a message: their Slack display or real name (``users.info``,
        cached), else "someone" (never a raw id, never a mention)."""
        if not user_id:
            return str(t("someone", self.lang))
        return self.users_info(self.caller.team_id, user_id).name or str(t("someone", self.lang))

    def may_stop(self, created_by: str | None) -> bool:
        """Whether the caller may stop or remove a channel digest set up by ``created_by``: the
        person who set it up, or a workspace admin or owner (``users.info``). A digest with no
        recorded creator may be stopped by anyone (as before)."""
        if not created_by or created_by == self.caller.user_id:
            return True
        info = self.users_info(self.caller.team_id, self.caller.user_id)
        return info.is_admin or info.is_owner

    def keep_language(self) -> Mrkdwn | None:
        """Call when setting up something sent later (a channel digest, the weekly DM, a
        reminder): it goes out with no command to read a language from, so it speaks the
        person's chosen ``lang``, else English. Someone who chose none but is answered in
        Chinese (typed in Chinese, or a Chinese Slack locale) gets Chinese kept as their choice,
        so what comes later reads as this reply does; returns the sentence saying so, else
        ``None``."""
        if self.lang == "en" or self._reader().lang in LANGS:
            return None
        self.rt.store.set_lang(self.caller.team_id, self.caller.user_id, self.lang)
        return t("lang.kept", self.lang)

    def tell_channel(self, text: Mrkdwn) -> None:
        """Post ``text`` as one line in the caller's channel (never raises)."""
        if self.caller.channel_id and not self.caller.channel_id.startswith("D"):
            self.announce(self.caller.team_id, self.caller.channel_id, text)

    # --- progress (the rule "progress under former ids" is paths.unread_among / with_former_ids)

    def read(self) -> set[str]:
        """Post ids the caller has read (as stored: may include former ids); a fresh copy."""
        self._reader()
        return set(self._read)

    def mark_read(self, post_ids: list[str]) -> set[str]:
        """Record current post ids as read; returns the ids newly marked."""
        self._reader()
        fresh = paths.unread_among(self.rt.holder.catalog, self._read, post_ids)
        if not fresh:
            return set()
        marked = self.rt.store.mark_read(self.caller.team_id, self.caller.user_id, fresh)
        self._read.update(fresh)  # every fresh id is stored now (newly, or by a racing request)
        return marked

    def mark_unread(self, post_ids: list[str]) -> set[str]:
        """Forget that posts were read, including progress stored under their former ids."""
        self._reader()
        ids = paths.with_former_ids(self.rt.holder.catalog, post_ids)
        removed = self.rt.store.mark_unread(self.caller.team_id, self.caller.user_id, ids)
        self._read.difference_update(ids)
        return removed

    def follows(self) -> list[str]:
        """Track ids the caller follows, oldest follow first; a fresh copy."""
        self._reader()
        return list(self._follows)

    def follow(self, track_id: str) -> bool:
        """Follow ``track_id``; ``False`` when the caller already followed it."""
        self._reader()
        added = self.rt.store.follow(self.caller.team_id, self.caller.user_id, track_id)
        if added and self._follows:
            self._state = None  # its place among equal follow times is the store's: read again
        elif added:
            self._follows.append(track_id)
        return added

    def unfollow(self, track_id: str) -> bool:
        """Stop following ``track_id``; ``False`` when the caller did not follow it."""
        self._reader()
        removed = self.rt.store.unfollow(self.caller.team_id, self.caller.user_id, track_id)
        if track_id in self._follows:
            self._follows.remove(track_id)
        return removed

    # --- resolving what was typed

    def resolve_track(self, text: str) -> str | None:
        """A track id for text (id, name, alias, typo), else ``None``."""
        return track_named(self.rt.holder.catalog, text, self.rt.holder.loaded.matcher)

    def exact_post_ids(self, words: list[str]) -> list[str] | None:
        """The posts ``words`` name when every word is a post id or former id (ids are lowercase
        slugs: ``P-EAGLE`` names p-eagle), in order without repeats; ``None`` otherwise (or for
        no words)."""
        cat = self.rt.holder.catalog
        ids = [cat.resolve_post_id(w.strip("`,").casefold()) for w in words]
        return list(dict.fromkeys(i for i in ids if i)) if words and all(ids) else None

    def resolve_posts(self, text: str) -> tuple[list[str], SearchResult | None]:
        """Post ids named by ``text``: exact ids / former ids (space-separated), else the search's
        best match when it is clear. Returns ``(post ids, search result or None)``; when the
        best matches are close (:data:`CLEAR_MARGIN` points), the best is weak (under
        :data:`CONFIDENT_SCORE`) or the text names a track, the ids are empty and the result lets
        the person pick."""
        loaded = self.rt.holder.loaded
        ids = self.exact_post_ids(text.split())
        if ids is not None:
            return ids, None
        result = loaded.matcher.search(text, limit=5)
        if not result.results:
            return [], None
        top = result.results
        if top[0].score < CONFIDENT_SCORE:  # a weak match: let the person pick, mark nothing
            return [], result
        if len(top) > 1 and top[1].score >= top[0].score - CLEAR_MARGIN:
            return [], result
        if result.track is not None and result.track.score >= TRACK_THRESHOLD:
            return [], result  # a track's name ("quantization", 量化) is a topic, not one post
        return [top[0].post_id], None

    def suggest_command(self, text: str) -> Mrkdwn | None:
        """A did-you-mean line naming a command, when ``text`` (which matched no post) starts
        with a near miss of one (:func:`bot.slack.grammar.near_command`)."""
        meant = grammar.near_command(text)
        if meant is None:
            return None
        return t("didyoumean.command", self.lang, suggestion=truncate(meant, 200))

    def suggest(self, text: str, command: str = "") -> Mrkdwn | None:
        """A did-you-mean line for unmatched text: the track :meth:`bot.domain.search.Matcher.suggest_track`
        finds (no suggestion for fewer than two letters unless the text is a track alias), with
        the command to try (``command`` before the track id: ``follow sepc`` suggests
        ``/vllm-path follow spec``)."""
        loaded = self.rt.holder.loaded
        match = loaded.matcher.suggest_track(text)
        if match is None:
            return None
        tid = match.track_id
        return t("didyoumean.track", self.lang, track=loaded.catalog.track(tid).names.get(self.lang),
                 track_id=f"{command} {tid}" if command else tid)

    def tracks_list(self) -> Mrkdwn:
        """Every track as ``\\`id\\` (name)``, comma-separated."""
        cat = self.rt.holder.catalog
        return Mrkdwn(", ").join(Mrkdwn("`{}` ({})").format(tr.id, tr.names.get(self.lang))
                                 for tr in cat.tracks)

    def unknown_track(self, text: str, command: str = "") -> Mrkdwn:
        """The answer when ``text`` names no track: the list, and a did-you-mean when close (the
        suggested command is ``command`` with the track, see :meth:`suggest`)."""
        if not text.strip():
            return t("track.which", self.lang, tracks=self.tracks_list())
        suggestion = self.suggest(text, command)
        base = t("track.unknown", self.lang, query=truncate(text, 100), tracks=self.tracks_list())
        return base + (Mrkdwn("\n") + suggestion if suggestion else Mrkdwn())

    def timezone(self, typed: str | None) -> tuple[str | None, str | None]:
        """``(IANA zone, error text)`` for a typed zone, else the person's Slack zone or the default."""
        if typed:
            zone = grammar.canonical_zone(typed)
            return (zone, None) if zone else (None, typed)
        tz = self.users_info(self.caller.team_id, self.caller.user_id).tz
        return (tz if tz and grammar.canonical_zone(tz) else self.rt.settings.default_timezone), None

    # --- replies shared by several use cases

    def track_view(self, track_id: str, notice: str | None = None, offset: int | None = None) -> Reply:
        """The track reply for the caller (progress, next step, buttons); ``offset`` the first
        step listed (``None``: the page around the reader's next step)."""
        followed = track_id in self.follows()
        path = path_line(self.rt.holder.catalog, track_id, self.read(), self._reader().budget,  # issue 24
                         self.rt.store.now().date(), self.lang)
        return views.track_reply(self.rt.holder.catalog, track_id, self.read(), self.lang,
                                 followed=followed, notice=notice, offset=offset, path=path)

    def query(self, text: str, notice: str | None = None, offset: int = 0) -> Reply:
        """A track's path when ``text`` names a track, otherwise search results: the good matches
        ``offset .. offset + views.MAX_RESULTS`` with a *More results* button when more follow."""
        track_id = self.resolve_track(text)
        if track_id is not None:
            return self.track_view(track_id, notice=notice)
        return self.search(text, notice=notice, offset=offset)

    def search(self, text: str, notice: str | None = None, offset: int = 0) -> Reply:
        """Search results for ``text`` from ``offset`` (see :meth:`query`), without the track
        look-up (a *More results* click pages the same search). Results for one word close
        to a track's name (:meth:`bot.domain.search.Matcher.suggest_track`) point at the track too.

        Without a ``notice`` the reply is kept per catalog, text, page, language and posts read
        (:func:`~bot.slack.views.parts.memo_reply`, as a track's path is): what it shows depends
        on nothing else, so a topic many people look up is mostly a look-up. The returned reply
        is shared: do not change it."""
        if notice:  # a notice is one click's answer: not worth keeping
            return self._search(text, notice, offset)
        return memo_reply(self.rt.holder.loaded.catalog,
                          ("search", text, offset, self.lang, frozenset(self.read())),
                          lambda: self._search(text, None, offset))

    def _search(self, text: str, notice: str | None, offset: int) -> Reply:
        loaded = self.rt.holder.loaded
        result = loaded.matcher.search(text, limit=views.MAX_RESULTS, offset=offset)
        if offset and not result.results and result.total:  # the page is gone: show the first
            result = loaded.matcher.search(text, limit=views.MAX_RESULTS)
        quiet = bool(result.results) or not text.strip() or result.link is not None  # a link: no guess
        if result.results and result.track is None and len(text.split()) == 1:
            # posts found for a word near a track name ("qaunt" finds quantization posts): point at it
            near = loaded.matcher.suggest_track(text)
            result = replace(result, track=near) if near is not None else result
        suggestion = None if quiet else self.suggest_command(text) or self.suggest(text)
        return search_reply(loaded.catalog, text, result, self.read(), self.lang,
                            notice=notice, suggestion=suggestion)

    def latest(self, notice: str | None = None, offset: int = 0) -> Reply:
        """The newest posts of the catalog (``what's new``), a page of ``views.MAX_RESULTS`` from
        ``offset``, shown as search results are (place in their tracks, *Mark read*, …); newest
        by publication date (a post known only to be after a day comes before it), drafts left
        out. Kept per page, language and posts read unless there is a ``notice``."""
        catalog = self.rt.holder.loaded.catalog

        def build() -> Reply:
            order = memo(catalog, ("newest order",), lambda: [p.id for p in sorted(
                (p for p in catalog.posts if not p.is_draft),
                key=lambda p: (p.published.latest, p.published.earliest), reverse=True)])
            start = offset if offset < len(order) else 0
            page = tuple(PostMatch(pid, 100.0, "date", catalog.tracks_of(pid))
                         for pid in order[start:start + views.MAX_RESULTS])
            result = SearchResult("", None, page, None, total=len(order), offset=start)
            return search_reply(catalog, "", result, self.read(), self.lang, notice=notice,
                                header=t("latest.header", self.lang), view="latest")

        if notice:
            return build()
        return memo_reply(catalog, ("latest", offset, self.lang, frozenset(self.read())), build)

    def next_reply(self, notice: str | None = None) -> Reply:
        """The caller's next read in each followed track."""
        return views.next_reply(self.rt.holder.catalog, self.follows(), self.read(), self.lang,
                                notice=notice)

    def redraw(self, view: str, notice: str | None, offset: int | None = None) -> Reply | None:
        """The message a button lived in, drawn again with the new state (``None`` for Home);
        ``offset``: the first result of the search page the button was on (the button value's
        ``o``), so a click on page 2 redraws page 2."""
        if view == "home":
            return None
        if view.startswith("track:"):
            tid = self.current_track(view[6:])
            return self.track_view(tid, notice=notice) if tid else self.outdated(notice)
        if view.startswith("search:"):  # search results stay search results (``search spec``)
            return self.search(view[7:], notice=notice, offset=offset or 0)
        if view.startswith("digest") or view == "unfurl":
            return views.text_reply(notice or t("done", self.lang))
        if view == "reminders":
            mine = self.rt.store.reminders(self.caller.team_id, self.caller.user_id)
            return reminders_reply(self.rt.holder.catalog, mine, self.lang, notice=notice)
        if view == "next":
            return self.next_reply(notice=notice)
        if view == "latest":
            return self.latest(notice=notice, offset=offset or 0)
        return views.text_reply(notice) if notice else self.outdated()

    def current_track(self, track_id: str) -> str | None:
        """Today's id of a track a button named: the id itself, or the track that lists it
        among its aliases (a renamed track keeps its old id there); None if none does."""
        cat = self.rt.holder.catalog
        if cat.has_track(track_id):
            return track_id
        wanted = track_id.casefold()
        for track in cat.tracks:
            if any(a.casefold() == wanted for a in track.aliases):
                return track.id
        return None

    def outdated(self, notice: str | None = None) -> Reply:
        """The answer to a button from a message an earlier catalog drew (its track or post is
        gone): says so plainly (after ``notice``, when something was done) and keeps the
        message."""
        text = t("error.outdated", self.lang)
        if notice:
            text = Mrkdwn("{}\n{}").format(notice, text)
        return replace(views.text_reply(text), keep_original=True)
