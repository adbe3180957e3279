"""Pydantic models of the catalog files: ``catalog/manifest.yaml`` (:class:`Manifest`),
``catalog/posts/*.yaml`` (a list of :class:`Post`) and ``catalog/tracks/*.yaml`` (one :class:`Track`
each). Every model is frozen and forbids unknown fields, so a misspelt field is an error naming it.
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
    """A validator raising ``ValueError(message.format(value=...))`` for a value (with ``each``:
    a tuple item) ``regex`` does not match; ``None`` passes."""

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

PostType = Literal["explainer", "tutorial", "benchmark", "problem-and-solution", "announcement"]


class _Frozen(BaseModel):
    # defer_build: each model's validator is built on its first validation (loading the catalog's
    # files), not at import: a process that reads the kept catalog (bot.domain.search.cache)
    # validates none and builds none (issue 43, benchmarks/cli_cold.py)
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, defer_build=True)


class LocalizedText(_Frozen):
    """A short text in English and, where the track is bilingual, Chinese (``zh``)."""

    en: str = Field(min_length=1)
    zh: str | None = Field(default=None, min_length=1)

    def get(self, lang: str) -> str:
        """The text in ``lang`` ("en" or "zh"), falling back to English when there is no Chinese."""
        return self.zh if lang == "zh" and self.zh else self.en


QUESTIONS_EN = (3, 6)
"""How many English problem questions (fewest, most) a linked post carries (``catalog check``)."""
QUESTIONS_ZH = (2, 4)
"""How many Chinese ones."""
MAX_SUMMARY = 600
"""Characters of a new post's summary a curator writes (the review modal's input and ``catalog
accept`` alike; QA round 15: the command line took 5,100)."""


class Questions(_Frozen):
    """The problem questions a post answers, in our own words, as readers type them: ``en`` and
    ``zh`` (a tuple of short strings each). Search reads them as a field of their own; ``catalog
    check`` asks :data:`QUESTIONS_EN` English and :data:`QUESTIONS_ZH` Chinese ones of every linked post."""

    en: tuple[Annotated[str, Field(min_length=1, max_length=200)], ...] = ()
    zh: tuple[Annotated[str, Field(min_length=1, max_length=200)], ...] = ()


class Published(_Frozen):
    """When a post was published: ``'2026-03-13'`` (a day) or ``{from: '2026-08-14', to:
    '2026-11-30'}`` (a range, both ends inclusive)."""

    earliest: dt.date = Field(alias="from")
    latest: dt.date = Field(alias="to")

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

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
    """A day reads ``13 Mar 2026`` / ``2026年3月13日``; a range (its ``to`` is when the seed was
    read, not a fact about the post) ``after 14 Aug 2026`` / ``2026年8月14日之后``."""
    day = format_day(published.earliest, lang)
    if published.precision == "day":
        return day
    return f"{day}之后" if lang == "zh" else f"after {day}"


class Source(_Frozen):
    """Where a post was published: the vLLM blog, or a company's blog (named). ``link_kind``:
    the ``url`` opens the ``article`` itself or a third-party ``summary`` page of it (yomu.fyi)."""

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


class Post(_Frozen):
    """One blog post.

    ``id`` is a stable slug; a renamed or merged post's old ids go in ``aliases`` (progress follows
    them). ``url`` is absolute or a ``/path`` on the manifest's ``blog_base_url``, ``None`` when not
    known. ``tags`` are our search terms; ``blog_tags`` and ``redirect_from`` (older paths the blog
    redirects here) are verbatim from its Jekyll front matter (shared/reference/blog-front-matter.tsv).
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
    questions: Questions = Questions.model_construct()  # Questions(), without building its validator
    """The problem questions the post answers (:class:`Questions`); empty for a post without a link."""
    added: dt.date | None = None
    """The day the post entered the catalog (the date of the catalog version that added it); absent:
    the last day of ``published`` (see :attr:`entered`)."""
    minutes: int | None = Field(default=None, gt=0, strict=True)
    """Reading time in whole minutes, ``None`` when the text is not available; only with ``minutes_source``."""
    minutes_source: MinutesSource | None = None
    """``counted`` (:mod:`bot.domain.catalog.reading_time`) or ``estimate`` (a person's guess)."""

    @model_validator(mode="after")
    def _minutes_with_source(self) -> Post:
        if (self.minutes is None) != (self.minutes_source is None):
            if self.minutes is None:
                raise ValueError("minutes_source is set but minutes is not: give both or neither")
            raise ValueError("minutes needs minutes_source (counted or estimate): give both or neither")
        return self

    @property
    def entered(self) -> dt.date:
        """When the post entered the catalog: ``added``, else the last day of ``published`` (a post
        seeded before ``added`` existed entered no later than that: the day it was published, or
        the day its seed was read)."""
        return self.added or self.published.latest

    def read_link(self, manifest: Manifest) -> tuple[str, ReadKind]:
        """``(url, kind)``: ``article`` (a ``/path`` resolved against ``manifest.blog_base_url``),
        ``summary`` (``link_kind: summary`` or a host in ``manifest.summary_hosts``) or ``archive``
        (no URL known: ``manifest.archive_url``)."""
        if self.url is None:
            return manifest.archive_url, "archive"
        url = manifest.blog_base_url + self.url if self.url.startswith("/") else self.url
        host = (urlsplit(url).hostname or "").casefold()
        on_summary_host = any(host == h or host.endswith("." + h) for h in manifest.summary_hosts)
        return url, ("summary" if self.source.link_kind == "summary" or on_summary_host else "article")


class ExternalPrerequisite(_Frozen):
    """Something outside the catalog a step points to: a ``prerequisite`` or a ``follow-up``."""

    title: str = Field(min_length=1)
    url: Annotated[str | None, _HTTP_URL] = None
    kind: Literal["prerequisite", "follow-up"] = "prerequisite"
    note: LocalizedText | None = None


class SoftClaim(_Frozen):
    """A note's soft claim "read this first/last" among the post ids ``among`` (empty: the whole
    path); the checker warns when it does not hold or two claims collide."""

    position: Literal["first", "last"]
    among: tuple[str, ...] = ()
    source: str = "seed note"


class Step(_Frozen):
    """A post's place in a track: ``after`` names steps of the track to read first (a prerequisite:
    the reader is not offered the step before them); ``essential`` marks the short path a reader is
    asked to finish (the rest is further reading, read after it); ``closes`` places the step last
    among the essential or the further steps (an editor's choice of ending, not a prerequisite: it
    keeps a path from ending on a post with no link yet)."""

    post: str
    level: Level = "core"
    essential: bool = False
    after: tuple[str, ...] = ()
    closes: bool = False
    note: LocalizedText | None = None
    external_prerequisites: tuple[ExternalPrerequisite, ...] = ()
    claims: tuple[SoftClaim, ...] = ()


class Resolution(_Frozen):
    """How the catalog resolved conflicting notes about the given steps, and why."""

    steps: tuple[str, ...] = Field(min_length=1)
    reason: LocalizedText


class Track(_Frozen):
    """A topic track and its reading path. ``names`` needs English and Chinese; ``aliases`` are what
    people type ("spec decode", "投机解码"); ``bilingual`` tracks need Chinese notes and summaries;
    ``before`` names tracks to read first; ``essentials_reason`` says why those steps are essential.
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
        """Post ids of the essential steps in file order (reading order: ``Catalog.essentials``)."""
        return tuple(s.post for s in self.steps if s.essential)

    @field_validator("names")
    @classmethod
    def _both_names(cls, value: LocalizedText) -> LocalizedText:
        if not value.zh:
            raise ValueError("a track needs a Chinese name (names.zh)")
        return value


class Relation(_Frozen):
    """One entry of ``catalog/relations.yaml``: ``post`` revisits an earlier post, either ``updates``
    it (a newer release or a rewrite of what that post describes) or ``follows`` it (a sequel: part
    II, the launch after a preview); exactly one of the two. ``note`` says how, in our own words,
    English and Chinese."""

    post: Annotated[str, _matching(SLUG_RE, "{value!r} is not a post id")]
    updates: Annotated[str | None, _matching(SLUG_RE, "{value!r} is not a post id")] = None
    follows: Annotated[str | None, _matching(SLUG_RE, "{value!r} is not a post id")] = None
    note: LocalizedText

    @model_validator(mode="after")
    def _one_kind(self) -> Relation:
        if (self.updates is None) == (self.follows is None):
            raise ValueError("give exactly one of updates or follows")
        if self.note.zh is None:
            raise ValueError("a relation's note needs Chinese (note.zh)")
        if self.post == self.earlier:
            raise ValueError("a post cannot revisit itself")
        return self

    @property
    def kind(self) -> Literal["updates", "follows"]:
        """``updates`` or ``follows``."""
        return "updates" if self.updates is not None else "follows"

    @property
    def earlier(self) -> str:
        """The id of the post revisited."""
        return str(self.updates or self.follows)


class Manifest(_Frozen):
    """``catalog/manifest.yaml``: the version (CalVer ``YYYY.MM.N``), the blog host, the page
    listing its posts (linked for a post without URL) and the hosts of summary pages."""

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
