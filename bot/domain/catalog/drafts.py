"""Drafts of new posts, beside the catalog: ``<catalog>/drafts/<id>.yaml``, one a file, written by
the clock's feed watch (:mod:`bot.digest.sources`) from the feeds of ``<catalog>/sources.yaml``, read
by ``vllm-path catalog drafts`` and the review cards. The loader never reads this folder, so an
unfinished draft never stops the catalog from loading; accepting one (:mod:`bot.domain.catalog.accept`)
writes it into ``posts/`` and a track.

A feed post becomes a draft unless the catalog or a draft already has it: the same canonical URL
(:func:`bot.domain.feed.canonical_url`) or a title within :data:`FUZZY_TITLE` (rapidfuzz's
``token_sort_ratio`` of :func:`bot.domain.feed.normalize_title`). A title variant of an unlinked
catalog post makes a draft that ``fills`` that post (its link, date and minutes).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import statistics
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.edit import write_atomic
from bot.domain.catalog.loader import parse_yaml_text
from bot.domain.catalog.models import SLUG_RE, MinutesSource, Source
from bot.domain.catalog.placement import Placer
from bot.domain.feed import FULL_TEXT_WORDS, SourcePost, canonical_url, normalize_title
from bot.domain.search.vocabulary import Vocabulary

DRAFTS_DIR = "drafts"
SOURCES_FILE = "sources.yaml"
STATE_FILE = ".feeds.json"
"""In :data:`DRAFTS_DIR`: each feed's ``ETag`` / ``Last-Modified``, the rejected URLs and the review
cards not yet posted (JSON)."""
FUZZY_TITLE = 88.0
"""Two titles at least this alike (0..100) name the same post."""
ESTIMATED_MINUTES = 8
"""Minutes of a draft without full content when the catalog counts none to take the median of."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FeedSource(_Model):
    """One feed of ``sources.yaml``: ``about`` keeps only the entries whose title, summary or
    content names that word (a company blog's posts about vLLM); ``company`` the name a company
    source is published under."""

    name: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://")
    kind: Literal["vllm-blog", "company"] = "company"
    about: str | None = None

    @property
    def source(self) -> Source:
        """The catalog :class:`Source` of its posts."""
        return Source(kind="vllm-blog") if self.kind == "vllm-blog" else Source(kind="company", name=self.name)


class Placement(_Model):
    """A suggested place: ``track`` id, 1-based ``position`` in its reading order, ``reason``;
    ``weak`` when it rests on loose words only (:attr:`bot.domain.catalog.placement.Suggestion.weak`:
    the post may not be about vLLM; the reason then says so first)."""

    track: str
    position: int = Field(ge=1)
    reason: str
    weak: bool = False


class Draft(_Model):
    """A new post waiting for a curator. ``url`` absolute; ``minutes_source`` ``counted`` (from the
    feed's full content) or ``estimate``; ``suggested`` best first; ``fills`` the unlinked catalog
    post it completes, else ``None``; ``feed`` the source's name."""

    id: str = Field(pattern=SLUG_RE.pattern)
    title: str = Field(min_length=1)
    url: str
    published: dt.date
    authors: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    source: Source
    feed: str
    minutes: int = Field(gt=0)
    minutes_source: MinutesSource
    suggested: tuple[Placement, ...] = ()
    fills: str | None = None

    @property
    def minutes_note(self) -> str:
        """How its minutes were found, for a curator: ``counted`` or why estimated."""
        if self.minutes_source == "counted":
            return "counted"
        return f"estimated: the feed has no full text, an excerpt under {FULL_TEXT_WORDS} words or none"

    def to_json(self) -> dict[str, Any]:
        """``{"id", "title", "url", "minutes", "minutes_source", "suggested": [{"track",
        "position", "reason"} and "weak": true for a weak one], "fills", "published", "feed"}`` (JSON-ready)."""
        data = self.model_dump(mode="json", include={"id", "title", "url", "minutes", "minutes_source", "fills"})
        data["suggested"] = [s.model_dump(exclude_defaults=True) for s in self.suggested]
        return {**data, "published": self.published.isoformat(), "feed": self.feed}


def read_sources(root: Path) -> list[FeedSource]:
    """The feeds of ``root/sources.yaml`` (``feeds:`` list); ``[]`` without the file. Raises
    ``ValueError`` naming the file when it is not valid."""
    path = root / SOURCES_FILE
    if not path.is_file():
        return []
    try:
        raw = parse_yaml_text(path.read_text(encoding="utf-8")) or {}
        return [FeedSource.model_validate(item) for item in raw.get("feeds") or []]
    except (yaml.YAMLError, ValidationError, AttributeError) as exc:
        raise ValueError(f"{path}: not a valid sources file: {exc}") from None


def read_drafts(root: Path) -> list[Draft]:
    """The drafts of ``root/drafts/*.yaml``, newest first; a file that is not a valid draft is left
    out (never raises for one)."""
    drafts = []
    for path in sorted((root / DRAFTS_DIR).glob("*.yaml")):
        try:
            drafts.append(Draft.model_validate(parse_yaml_text(path.read_text(encoding="utf-8"))))
        except (yaml.YAMLError, ValidationError, OSError, UnicodeDecodeError):
            continue
    return sorted(drafts, key=lambda d: (d.published, d.id), reverse=True)


def draft_path(root: Path, draft_id: str) -> Path:
    """Where draft ``draft_id`` lives; ``KeyError`` when it is no slug or no such draft."""
    path = root / DRAFTS_DIR / f"{draft_id}.yaml"
    if not SLUG_RE.match(draft_id) or not path.is_file():
        raise KeyError(draft_id)
    return path


def write_draft(root: Path, draft: Draft) -> Path:
    """Write ``draft`` to its file (created with its folder)."""
    path = root / DRAFTS_DIR / f"{draft.id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "# A draft from the feed watch: `vllm-path catalog accept|reject " + draft.id + "`.\n"
    write_atomic(path, text + yaml.safe_dump(draft.model_dump(mode="json"), allow_unicode=True, sort_keys=False))
    return path


def read_state(root: Path) -> dict[str, Any]:
    """``{"feeds": {url: {"etag", "modified"}}, "rejected": [canonical URL, …], "rejected_ids": [draft
    id, …], "unsent": {draft id: [curator user id, …]}, "carded": [draft id, …]}`` (``unsent``:
    review cards whose post to Slack failed, tried again on the next run; ``carded``: the drafts
    whose cards were sent or queued, so a draft written by the command line gets its cards too;
    empty when absent or unreadable)."""
    try:
        data = json.loads((root / DRAFTS_DIR / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    unsent = {str(k): [str(u) for u in v] for k, v in dict(data.get("unsent") or {}).items() if isinstance(v, list)}
    carded = [str(d) for d in data.get("carded") or []]
    feeds, rejected = dict(data.get("feeds") or {}), list(data.get("rejected") or [])
    ids = [str(d) for d in data.get("rejected_ids") or []]
    return {"feeds": feeds, "rejected": rejected, "rejected_ids": ids, "unsent": unsent, "carded": carded}


def write_state(root: Path, state: dict[str, Any]) -> None:
    """Write the watch state (:func:`read_state`'s shape)."""
    (root / DRAFTS_DIR).mkdir(parents=True, exist_ok=True)
    write_atomic(root / DRAFTS_DIR / STATE_FILE, json.dumps(state, indent=1, sort_keys=True) + "\n")


def reject(root: Path, draft_id: str) -> Draft:
    """Remove draft ``draft_id`` and remember its URL so the watch never drafts it again.
    Raises ``KeyError`` for an unknown draft."""
    path = draft_path(root, draft_id)
    draft = Draft.model_validate(parse_yaml_text(path.read_text(encoding="utf-8")))
    state = read_state(root)
    state["rejected"] = sorted({*state["rejected"], _match_key(draft.url)})
    state["rejected_ids"] = sorted({*state["rejected_ids"], draft.id})
    write_state(root, state)
    path.unlink()
    return draft


def was_rejected(root: Path, draft_id: str) -> bool:
    """Whether draft ``draft_id`` was rejected: its id is kept in the watch state (since QA round
    10: a draft named from its title, or with a ``-2``, is no URL's slug), or a rejected URL names
    it (the id a draft of it takes: its last path part as a slug)."""
    state = read_state(root)
    return draft_id in state["rejected_ids"] or any(_url_slug(url) == draft_id for url in state["rejected"])


TRACKING_PARAMS = frozenset({"fbclid", "gclid"})
"""Query parameters that only track who clicked (with every ``utm_*``): a draft's link is kept without them."""


def without_tracking(url: str) -> str:
    """``url`` without its tracking query parameters (``utm_*``, :data:`TRACKING_PARAMS`), the
    others kept in their order; a URL with none is returned as is. Pure."""
    parts = urlsplit(url.strip())
    if not parts.query:
        return url.strip()
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if not k.lower().startswith("utm_") and k.lower() not in TRACKING_PARAMS]
    if len(kept) == len(pairs):
        return url.strip()
    return urlunsplit(parts._replace(query=urlencode(kept)))


def _match_key(url: str) -> str:
    """``url`` as drafts are matched: :func:`bot.domain.feed.canonical_url` without tracking parameters."""
    return canonical_url(without_tracking(url))


def _same_title(a: str, b: str) -> bool:
    from rapidfuzz import fuzz  # deferred: the review card's reader needs no fuzzy matching

    return bool(fuzz.token_sort_ratio(a, b) >= FUZZY_TITLE)


def estimated_minutes(catalog: Catalog) -> int:
    """The median of the catalog's counted minutes (:data:`ESTIMATED_MINUTES` when it has none)."""
    counted = [p.minutes for p in catalog.posts if p.minutes and p.minutes_source == "counted" and p.minutes > 1]
    return int(statistics.median(counted)) if counted else ESTIMATED_MINUTES


def _slug(text: str) -> str:
    """``text`` as an ASCII slug of whole words, at most 60 characters (accents dropped: ü → u)."""
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower())
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > 60:
            break
        slug = f"{slug}-{word}" if slug else word
    return slug


_DATE_PART = re.compile(r"^(?:\d{4}-\d{1,2}-\d{1,2}|\d{8})(?:-|$)|(?:^|-)(?:\d{4}-\d{1,2}-\d{1,2}|\d{8})$")
_COMMON = (
    "a an and are as at be by for from how in into is it its of on or the to with what why "
    "vllm llm llms post posts blog news article index page home update updates release new introducing "
    "model models inference serving"
)
COMMON_WORDS = frozenset(_COMMON.split(" "))
"""Words too common to be a post's whole id (QA round 15: a Chinese title left ``vllm``, which
``read vllm`` then marked): an id of one of these alone is never made, and such words do not count
as a title's usable words."""


def _url_slug(url: str) -> str:
    """The slug of ``url``'s last path part without its suffix and a date at its start or end
    (``/2026/12/05/x-y.html`` → ``x-y``, ``/2026-12-05-x-y`` → ``x-y``, ``/2026-12-05.html`` → ``""``)."""
    return _DATE_PART.sub("", _slug(PurePosixPath(urlsplit(url).path).stem))


def reserved_ids(catalog: Catalog) -> set[str]:
    """The slugs a new post id must not be (QA round 15): the catalog's track ids, its tracks'
    aliases and its posts' former ids (each as a slug), which people type to name a track or post."""
    out = {t.id for t in catalog.tracks} | {a for p in catalog.posts for a in p.aliases}
    return out | {s for t in catalog.tracks for a in t.aliases if (s := _slug(a))}


def usable_id(slug: str, reserved: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether ``slug`` may be a new post's id: at least 3 characters with a letter, not one of
    :data:`COMMON_WORDS` alone, not all its words common, and not ``reserved`` (:func:`reserved_ids`)."""
    words = slug.split("-")
    if len(slug) < 3 or not re.search("[a-z]", slug) or slug in reserved:
        return False
    return not all(w in COMMON_WORDS or w.isdigit() for w in words)


def fallback_id(url: str, published: dt.date) -> str:
    """The id of a post whose link and title give no usable one: ``post-<date>-<6 hex of the link>``."""
    return f"post-{published.isoformat()}-{hashlib.sha256(url.encode()).hexdigest()[:6]}"


def new_post_id(url: str, title: str, published: dt.date, reserved: set[str] | frozenset[str] = frozenset()) -> str:
    """A new post's id (before a ``-2`` when taken): the slug of its link's last path part without its
    date (the blog's own), else of its title when that gives at least two usable ASCII words (not
    :data:`COMMON_WORDS`), else :func:`fallback_id`; never a ``reserved`` id (:func:`usable_id`). Pure."""
    named = _url_slug(url)
    if usable_id(named, reserved):
        return named
    titled = _slug(title)
    usable_words = [w for w in titled.split("-") if w and w not in COMMON_WORDS and not w.isdigit()]
    if len(usable_words) >= 2 and usable_id(titled, reserved):
        return titled
    return fallback_id(url, published)


def _new_id(post: SourcePost, taken: set[str], reserved: set[str]) -> str:
    """A new post's id (:func:`new_post_id`), ``-2``, ``-3``… after it when ``taken``; added to ``taken``."""
    base = new_post_id(post.url, post.title, post.date, reserved)
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    taken.add(candidate)
    return candidate


def placement_vocabulary(root: Path) -> Vocabulary | None:
    """The vocabulary of the catalog folder ``root`` for placing drafts (:func:`new_drafts`), or
    None when it has none or it is invalid (``catalog check`` says why; drafts are still made)."""
    from bot.domain.search.vocabulary import VocabularyError, load_vocabulary

    try:
        return load_vocabulary(root)
    except (VocabularyError, OSError):
        return None


def new_drafts(
    posts: Iterable[SourcePost],
    feed: FeedSource,
    catalog: Catalog,
    known: list[Draft],
    rejected: Iterable[str] = (),
    placer: Placer | None = None,
    vocabulary: Vocabulary | None = None,
) -> list[Draft]:
    """The drafts for ``posts`` of ``feed`` that neither ``catalog``, the ``known`` drafts, the
    ``rejected`` URLs nor an earlier post of ``posts`` already has (see the module), placed with the
    catalog's ``vocabulary`` (its glossary's words of each track and its blog hosts, for the links a
    post makes: :func:`placement_vocabulary`; None: without them). Pure."""
    seen_urls = {_match_key(u) for u in rejected} | {_match_key(d.url) for d in known}
    titles = [normalize_title(d.title) for d in known]
    unlinked: dict[str, str] = {}
    for post in catalog.posts:
        if (url := catalog.url_of(post)) is not None:
            seen_urls.add(_match_key(url))
            titles.append(normalize_title(post.title))
        else:
            unlinked[normalize_title(post.title)] = post.id
    taken = {p.id for p in catalog.posts} | {d.id for d in known}
    reserved = reserved_ids(catalog)
    estimate = estimated_minutes(catalog)
    out: list[Draft] = []
    for sp in posts:
        link = without_tracking(sp.url)
        title, url = normalize_title(sp.title), _match_key(link)
        if url in seen_urls or any(_same_title(title, t) for t in titles):
            continue
        if feed.about and not sp.mentions(feed.about):
            continue
        seen_urls.add(url)
        titles.append(title)
        fills = next((pid for t, pid in unlinked.items() if _same_title(title, t)), None)
        suggested: tuple[Placement, ...] = ()
        if fills is None:
            placer = placer or Placer(catalog, vocabulary=vocabulary)
            found = placer.suggest(
                sp.title,
                sp.summary,
                sp.content,
                tags=sp.tags,
                published=sp.date,
                minutes=sp.minutes if sp.minutes is not None else estimate,
                vllm_blog=feed.source.kind == "vllm-blog",  # a company's post is further reading
            )
            suggested = tuple(
                Placement(track=s.track, position=s.position, reason=s.reason, weak=s.weak) for s in found
            )
        counted = sp.minutes is not None
        out.append(
            Draft(
                id=fills or _new_id(sp, taken, reserved),
                title=sp.title,
                url=link,
                published=sp.date,
                authors=sp.authors,
                tags=sp.tags,
                source=feed.source,
                feed=feed.name,
                minutes=sp.minutes if sp.minutes is not None else estimate,
                minutes_source="counted" if counted else "estimate",
                suggested=suggested,
                fills=fills,
            )
        )
    return out
