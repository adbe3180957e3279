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
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
CALVER_RE = re.compile(r"^(?P<year>20\d\d)\.(?P<month>0[1-9]|1[0-2])\.(?P<micro>0|[1-9]\d*)$")
URL_RE = re.compile(r"^https?://[A-Za-z0-9.-]+(?::\d+)?(?:/[^\s<>\"]*)?$")
PATH_RE = re.compile(r"^/[^\s<>\"]*$")


def _matching(regex: re.Pattern[str], message: str, *, each: bool = False) -> AfterValidator:
    """A field validator refusing a value (with ``each``: any item of a tuple) that ``regex`` does
    not match, with ``ValueError(message)`` (``{value!r}`` in it names the value); ``None`` passes."""

    def check(value: Any) -> Any:
        for item in value if each else (value,):
            if item is not None and not regex.match(item):
                raise ValueError(message.format(value=item))
        return value

    return AfterValidator(check)


_HTTP_URL = _matching(URL_RE, "{value!r} is not an http(s) URL")
_URL_OR_PATH = _matching(
    re.compile(f"{URL_RE.pattern}|{PATH_RE.pattern}"), "{value!r} is not an http(s) URL or a /path on the blog host"
)

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
        return self.zh if lang == "zh" and self.zh else self.en


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
        return {"from": value, "to": value} if isinstance(value, (str, dt.date)) else value

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
        return self.earliest.isoformat() if self.precision == "day" else f"{self.earliest}..{self.latest}"

    def display(self, lang: str = "en") -> str:
        """The date for a reader: see :func:`format_published`."""
        return format_published(self, lang)


_MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def format_day(day: dt.date, lang: str = "en") -> str:
    """A calendar day for a reader: ``14 Aug 2026`` (en) or ``2026年8月14日`` (zh). Pure."""
    return (
        f"{day.year}年{day.month}月{day.day}日" if lang == "zh" else f"{day.day} {_MONTHS_EN[day.month - 1]} {day.year}"
    )


def format_published(published: Published, lang: str = "en") -> str:
    """When a post was published, in words a reader expects (English ``en`` or Chinese ``zh``).

    A known day reads ``13 Mar 2026`` / ``2026年3月13日``. A range (the day is not known, only that
    the post came out on or after ``from``; its ``to`` is the day the seed was read, not a fact
    about the post) reads ``after 14 Aug 2026`` / ``2026年8月14日之后``. Pure; never raises.
    """
    if published.precision == "day":
        return format_day(published.earliest, lang)
    return (
        f"{format_day(published.earliest, 'zh')}之后"
        if lang == "zh"
        else f"after {format_day(published.earliest, 'en')}"
    )


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

    id: Annotated[str, _matching(SLUG_RE, "{value!r} is not a slug (lower-case letters, digits and single hyphens)")]
    title: str = Field(min_length=1)
    url: Annotated[str | None, _URL_OR_PATH] = None
    redirect_from: Annotated[
        tuple[str, ...], _matching(PATH_RE, "redirect_from {value!r} is not a /path on the blog host", each=True)
    ] = ()
    published: Published
    authors: tuple[str, ...] = ()
    source: Source
    type: PostType | None = None
    tags: tuple[str, ...] = ()
    blog_tags: tuple[str, ...] = ()
    aliases: Annotated[tuple[str, ...], _matching(SLUG_RE, "alias {value!r} is not a slug", each=True)] = ()
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
        return url, ("summary" if self.source.link_kind == "summary" or on_summary_host else "article")


class ExternalPrerequisite(_Frozen):
    """Something outside this catalog that a step's note points to (title, URL if known).

    ``kind`` is ``prerequisite`` (know it before the step) or ``follow-up`` (the note says to read
    it after the step).
    """

    title: str = Field(min_length=1)
    url: Annotated[str | None, _HTTP_URL] = None
    kind: Literal["prerequisite", "follow-up"] = "prerequisite"
    note: LocalizedText | None = None


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

    id: Annotated[str, _matching(SLUG_RE, "{value!r} is not a slug")]
    names: LocalizedText
    aliases: tuple[str, ...] = ()
    description: LocalizedText
    bilingual: bool = False
    steps: tuple[Step, ...] = Field(min_length=1)
    resolutions: tuple[Resolution, ...] = ()
    before: Annotated[tuple[str, ...], _matching(SLUG_RE, "{value!r} is not a track id", each=True)] = ()
    essentials_reason: LocalizedText | None = None

    @property
    def essentials(self) -> tuple[str, ...]:
        """Post ids of the essential steps, in the order of the track file. The reading order is
        :meth:`bot.domain.catalog.compiled.Catalog.essentials` (the same posts; the checked catalog reads
        them first, before every further step)."""
        return tuple(s.post for s in self.steps if s.essential)

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

    version: Annotated[str, _matching(CALVER_RE, "{value!r} is not CalVer YYYY.MM.N (for example 2026.11.0)")]
    blog_base_url: Annotated[str, _HTTP_URL, AfterValidator(lambda url: url.rstrip("/"))] = (
        "https://vllm-project.github.io"
    )
    blog_archive_url: Annotated[str | None, _HTTP_URL] = None
    summary_hosts: tuple[str, ...] = ("yomu.fyi",)
    title: str = "vLLM reading paths"

    @property
    def archive_url(self) -> str:
        """The blog's archive page: ``blog_archive_url``, else ``<blog_base_url>/``."""
        return self.blog_archive_url or self.blog_base_url + "/"
