"""Pydantic models of the catalog as it is written in ``catalog/`` (YAML) and as it is served.

The files people edit:

* ``catalog/manifest.yaml``: :class:`Manifest` (catalog version in CalVer ``YYYY.MM.N``, the blog
  host every relative post URL is resolved against).
* ``catalog/posts/*.yaml``: a YAML list of :class:`Post` entries.
* ``catalog/tracks/*.yaml``: one :class:`Track` per file, holding its path as a list of :class:`Step`.
* ``catalog/CHANGELOG.md``: one ``## <version>`` heading per catalog version.

Every model is frozen (immutable) and forbids unknown fields, so a typo in a field name is an error
that names the field rather than a silently ignored key.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
CALVER_RE = re.compile(r"^(?P<year>20\d\d)\.(?P<month>0[1-9]|1[0-2])\.(?P<micro>0|[1-9]\d*)$")
URL_RE = re.compile(r"^https?://[A-Za-z0-9.-]+(?::\d+)?(?:/[^\s<>\"]*)?$")
PATH_RE = re.compile(r"^/[^\s<>\"]*$")

Level = Literal["intro", "core", "advanced", "capstone"]
LEVELS: tuple[str, ...] = ("intro", "core", "advanced", "capstone")
"""Step levels in reading order; the path order breaks ties by this rank."""

MinutesSource = Literal["counted", "estimate"]
"""Where a post's ``minutes`` come from: counted from its text, or estimated by a person."""

PostType = Literal["explainer", "tutorial", "benchmark", "problem-and-solution", "announcement"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, defer_build=True)


class LocalizedText(_Frozen):
    """A short text in English and, where the track is bilingual, Chinese (``zh``)."""

    en: str = Field(min_length=1)
    zh: str | None = Field(default=None, min_length=1)

    def get(self, lang: str) -> str:
        """The text in ``lang`` ("en" or "zh"), falling back to English when there is no Chinese."""
        if lang == "zh" and self.zh:
            return self.zh
        return self.en


class Published(_Frozen):
    """When a post was published: a day, or a range of days where only the seed order brackets it.

    Written in YAML either as ``'2026-03-13'`` (precision ``day``) or as
    ``{from: '2026-08-14', to: '2026-11-30'}`` (precision ``range``, both ends inclusive).
    """

    earliest: dt.date = Field(alias="from")
    latest: dt.date = Field(alias="to")

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _from_day(cls, value: object) -> object:
        if isinstance(value, (str, dt.date)):
            return {"from": value, "to": value}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> Published:
        if self.latest < self.earliest:
            raise ValueError("'to' is before 'from'")
        return self

    @property
    def precision(self) -> Literal["day", "range"]:
        """``day`` when the exact day is known, ``range`` otherwise."""
        return "day" if self.earliest == self.latest else "range"

    def label(self) -> str:
        """``2026-03-13`` for a day, ``2026-08-14..2026-11-30`` for a range (ISO dates)."""
        if self.precision == "day":
            return self.earliest.isoformat()
        return f"{self.earliest.isoformat()}..{self.latest.isoformat()}"

    def display(self, lang: str = "en") -> str:
        """The date for a reader: see :func:`format_published`."""
        return format_published(self, lang)


_MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def format_day(day: dt.date, lang: str = "en") -> str:
    """A calendar day for a reader: ``14 Aug 2026`` (en) or ``2026年8月14日`` (zh). Pure."""
    if lang == "zh":
        return f"{day.year}年{day.month}月{day.day}日"
    return f"{day.day} {_MONTHS_EN[day.month - 1]} {day.year}"


def format_published(published: Published, lang: str = "en") -> str:
    """When a post was published, in words a reader expects (English ``en`` or Chinese ``zh``).

    A known day reads ``13 Mar 2026`` / ``2026年3月13日``. A range (the day is not known, only that
    the post came out on or after ``from``; its ``to`` is the day the seed was read, not a fact
    about the post) reads ``after 14 Aug 2026`` / ``2026年8月14日之后``. Pure; never raises.
    """
    if published.precision == "day":
        return format_day(published.earliest, lang)
    if lang == "zh":
        return f"{format_day(published.earliest, 'zh')}之后"
    return f"after {format_day(published.earliest, 'en')}"


class Source(_Frozen):
    """Where a post was published: the vLLM blog, or a company's blog (named).

    ``link_kind`` says what the post's ``url`` opens: ``article`` (the post itself, the default) or
    ``summary`` (a third-party summary page of the company's article, such as the yomu.fyi pages
    seed 002 links to), so that views can label the link honestly.
    """

    kind: Literal["vllm-blog", "company"]
    name: str | None = None
    link_kind: Literal["article", "summary"] = "article"

    @model_validator(mode="after")
    def _company_named(self) -> Source:
        if self.kind == "company" and not self.name:
            raise ValueError("a company source needs a name")
        return self

    def label(self, lang: str = "en") -> str:
        """Human label: ``vLLM blog`` (``vLLM 博客`` for ``lang="zh"``) or the company name."""
        if self.kind == "vllm-blog":
            return "vLLM 博客" if lang == "zh" else "vLLM blog"
        return str(self.name)


ReadKind = Literal["article", "summary", "archive"]
"""What a post's reading link leads to (:meth:`Post.read_link`)."""

DRAFT_SUMMARY = "(draft: summary not written yet)"
"""The placeholder a draft post without a summary carries (``catalog check`` refuses drafts)."""


class Post(_Frozen):
    """One blog post.

    ``id`` is a stable slug; when a post is renamed or merged its old ids go in ``aliases`` so that
    people's progress follows it. ``url`` is absolute (``https://…``) or a path (``/2026/…html``) on
    the manifest's ``blog_base_url``; ``None`` where the URL is not known (never a guess).
    ``tags`` are our search terms; ``blog_tags`` are the tags the vLLM blog itself gives the post
    (its Jekyll front matter, shared/reference/blog-front-matter.tsv), kept verbatim as facts.
    ``redirect_from`` (optional) lists the older paths on the blog host that the blog redirects to
    this post (the ``redirect_from`` key of its Jekyll front matter, jekyll-redirect-from), facts
    kept so that an old link a reader pastes still finds the post.
    """

    id: str
    title: str = Field(min_length=1)
    url: str | None = None
    redirect_from: tuple[str, ...] = ()
    published: Published
    authors: tuple[str, ...] = ()
    source: Source
    type: PostType | None = None
    tags: tuple[str, ...] = ()
    blog_tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    summary: LocalizedText
    minutes: int | None = Field(default=None, gt=0, strict=True)
    """Reading time in whole minutes (a positive integer), or ``None`` where the post's text is not
    available. ``minutes_source`` says where it comes from; one is refused without the other."""
    minutes_source: MinutesSource | None = None
    """``counted`` (from the post's own text under :mod:`bot.domain.catalog.reading_time`'s rule, e.g. the
    body of its file in the blog source) or ``estimate`` (a person's guess, shown as one)."""
    status: Literal["published", "draft"] = "published"
    """``published`` (the default) or ``draft``: a draft is written by ``vllm-path catalog import``
    with the facts only; it may omit ``summary`` (then it holds :data:`DRAFT_SUMMARY`), and
    ``catalog check`` refuses a catalog that still has one, so a person writes its summary and
    places it in a track before it is published."""

    @model_validator(mode="before")
    @classmethod
    def _draft_summary(cls, value: object) -> object:
        if isinstance(value, dict) and value.get("status") == "draft" and not value.get("summary"):
            return {**value, "summary": {"en": DRAFT_SUMMARY}}
        return value

    @model_validator(mode="after")
    def _minutes_with_source(self) -> Post:
        if (self.minutes is None) != (self.minutes_source is None):
            if self.minutes is None:
                raise ValueError("minutes_source is set but minutes is not: give both or neither")
            raise ValueError("minutes needs minutes_source (counted or estimate): give both or neither")
        return self

    @property
    def is_draft(self) -> bool:
        """Whether the post is a draft (facts imported, summary and track place not written yet)."""
        return self.status == "draft"

    def read_link(self, manifest: Manifest) -> tuple[str, ReadKind]:
        """Where a reader can read this post, and what that link is: ``(url, kind)``.

        ``kind`` is ``article`` (the post itself; a ``/path`` resolves against
        ``manifest.blog_base_url``), ``summary`` (a page summarising a company's article: the
        source says ``link_kind: summary``, or the URL is on one of ``manifest.summary_hosts``
        such as yomu.fyi) or ``archive`` (no URL is known yet: the URL is
        ``manifest.archive_url``, the blog's list of posts). Pure; never raises.
        """
        if self.url is None:
            return manifest.archive_url, "archive"
        url = manifest.blog_base_url + self.url if self.url.startswith("/") else self.url
        host = (urlsplit(url).hostname or "").casefold()
        on_summary_host = any(host == h or host.endswith("." + h) for h in manifest.summary_hosts)
        if getattr(self.source, "link_kind", None) == "summary" or on_summary_host:
            return url, "summary"
        return url, "article"

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not SLUG_RE.match(value):
            raise ValueError(f"{value!r} is not a slug (lower-case letters, digits and single hyphens)")
        return value

    @field_validator("aliases")
    @classmethod
    def _alias_slugs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for alias in value:
            if not SLUG_RE.match(alias):
                raise ValueError(f"alias {alias!r} is not a slug")
        return value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not (URL_RE.match(value) or PATH_RE.match(value)):
            raise ValueError(f"{value!r} is not an http(s) URL or a /path on the blog host")
        return value

    @field_validator("redirect_from")
    @classmethod
    def _redirect_paths(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for path in value:
            if not PATH_RE.match(path):
                raise ValueError(f"redirect_from {path!r} is not a /path on the blog host")
        return value


class ExternalPrerequisite(_Frozen):
    """Something outside this catalog that a step's note points to (title, URL if known).

    ``kind`` is ``prerequisite`` (know it before the step) or ``follow-up`` (the note says to read
    it after the step).
    """

    title: str = Field(min_length=1)
    url: str | None = None
    kind: Literal["prerequisite", "follow-up"] = "prerequisite"
    note: LocalizedText | None = None

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not URL_RE.match(value):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value


class SoftClaim(_Frozen):
    """A soft ordering claim a source note makes ("read this first/last"), optionally within a group.

    ``among`` lists the post ids of the group the claim speaks of (the whole path when empty).
    The checker warns when a claim does not hold in the computed order or when two claims collide.
    """

    position: Literal["first", "last"]
    among: tuple[str, ...] = ()
    source: str = "seed note"


class Step(_Frozen):
    """A post's place in a track's path.

    ``after`` names the post ids of steps in the same track that must be read first (hard
    prerequisites); ``level`` is intro, core, advanced or capstone; ``note`` says why and when to read
    it (English, plus Chinese on bilingual tracks). ``essential`` marks a step of the track's
    essential path (the short path a reader is asked to finish); the other steps are further
    reading, read after every essential step.
    """

    post: str
    level: Level = "core"
    essential: bool = False
    after: tuple[str, ...] = ()
    note: LocalizedText | None = None
    external_prerequisites: tuple[ExternalPrerequisite, ...] = ()
    claims: tuple[SoftClaim, ...] = ()


class Resolution(_Frozen):
    """How the catalog resolved conflicting notes about the given steps, and why."""

    steps: tuple[str, ...] = Field(min_length=1)
    reason: LocalizedText


class Track(_Frozen):
    """A topic track and its reading path.

    ``names`` holds the English and Chinese names (both required); ``aliases`` are what people type
    ("spec decode", "投机解码"); ``bilingual`` tracks need Chinese step notes and post summaries.
    ``before`` names the tracks to read before this one (cross-track prerequisites, track ids;
    may be empty); ``essentials_reason`` says why the essential steps were chosen (English, and
    Chinese on a bilingual track). ``catalog check`` (:mod:`bot.domain.catalog.loader`) enforces the
    essential path's limits.
    """

    id: str
    names: LocalizedText
    aliases: tuple[str, ...] = ()
    description: LocalizedText
    bilingual: bool = False
    steps: tuple[Step, ...] = Field(min_length=1)
    resolutions: tuple[Resolution, ...] = ()
    before: tuple[str, ...] = ()
    essentials_reason: LocalizedText | None = None

    @property
    def essentials(self) -> tuple[str, ...]:
        """Post ids of the essential steps, in the order of the track file. The reading order is
        :meth:`bot.domain.catalog.compiled.Catalog.essentials` (the same posts; the checked catalog reads
        them first, before every further step)."""
        return tuple(s.post for s in self.steps if s.essential)

    @property
    def further(self) -> tuple[str, ...]:
        """Post ids of the further-reading steps (not essential), in the order of the track file;
        in reading order: :meth:`bot.domain.catalog.compiled.Catalog.further`."""
        return tuple(s.post for s in self.steps if not s.essential)

    @field_validator("before")
    @classmethod
    def _before_slugs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for tid in value:
            if not SLUG_RE.match(tid):
                raise ValueError(f"{tid!r} is not a track id")
        return value

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not SLUG_RE.match(value):
            raise ValueError(f"{value!r} is not a slug")
        return value

    @field_validator("names")
    @classmethod
    def _both_names(cls, value: LocalizedText) -> LocalizedText:
        if not value.zh:
            raise ValueError("a track needs a Chinese name (names.zh)")
        return value


class Manifest(_Frozen):
    """``catalog/manifest.yaml``: the catalog version (CalVer ``YYYY.MM.N``) and the blog host.

    ``blog_archive_url`` is the page that lists every post of the blog, linked for a post whose
    URL is not known yet; when not set it is the blog's home page (``<blog_base_url>/``, where
    the Jekyll blog lists its posts), so a move of the blog stays a one-line change.
    ``summary_hosts`` are the hosts whose links are summaries of another company's article
    (yomu.fyi, seed 002), not the article itself.
    """

    version: str
    blog_base_url: str = "https://vllm-project.github.io"
    blog_archive_url: str | None = None
    summary_hosts: tuple[str, ...] = ("yomu.fyi",)
    title: str = "vLLM reading paths"

    @property
    def archive_url(self) -> str:
        """The blog's archive page: ``blog_archive_url``, else ``<blog_base_url>/``."""
        return self.blog_archive_url or self.blog_base_url + "/"

    @field_validator("blog_archive_url")
    @classmethod
    def _archive(cls, value: str | None) -> str | None:
        if value is not None and not URL_RE.match(value):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value

    @field_validator("version")
    @classmethod
    def _calver(cls, value: str) -> str:
        if not CALVER_RE.match(value):
            raise ValueError(f"{value!r} is not CalVer YYYY.MM.N (for example 2026.11.0)")
        return value

    @field_validator("blog_base_url")
    @classmethod
    def _base(cls, value: str) -> str:
        if not URL_RE.match(value):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value.rstrip("/")
