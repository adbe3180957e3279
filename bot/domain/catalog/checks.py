"""The per-rule checks of ``catalog check`` over the validated posts and tracks, as issues.

Every rule is a small function from ``(file, model)`` pairs (the file relative to the catalog
folder) to a list of :class:`~bot.domain.catalog.issues.CatalogIssue` s; the loader
(:func:`bot.domain.catalog.loader.check_catalog`) runs them in a fixed order, so the report reads
the same from run to run. The essential-path rules live in :mod:`bot.domain.catalog.essentials`.
Pure: no I/O.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterator

import bot.domain.paths as paths  # module import: bot.domain.paths imports the catalog models too
from bot.domain.catalog.issues import CatalogIssue
from bot.domain.catalog.models import Post, Step, Track

Posts = list[tuple[str, Post]]
"""Posts with the file each came from (``posts/vllm-blog.yaml``), in file order."""
Tracks = list[tuple[str, Track]]
"""Tracks with the file each came from (``tracks/spec.yaml``), in file order."""

TRACK_NAME_MAX = 120
"""Characters of a track name (each of ``names.en`` / ``names.zh``). The tightest Block Kit field
that shows a name whole is the channel digest's header block (Slack: 150 characters of
plain text), ``"{name}: this week's reading"``: 150 less the 21 characters around the name is
129, rounded down to leave room for other languages' wording. Longer names are still cut by the
builders (``bot.slack.views.blocks``), but then every digest would show them cut."""
TRACK_ID_MAX = 60
"""Characters of a track id: the digest's Stop confirm dialog (Slack: 300 characters of text)
shows the name and the id whole (``/vllm-path subscribe <id>``) around 112 characters of
wording: 300 - 112 - :data:`TRACK_NAME_MAX` = 68, rounded down."""
POST_TITLE_MAX = 250
"""Characters of a post title: the tightest field that shows titles whole is a channel digest's
notification text (fallback, cut at 3,000 characters), which lists up to 10 new posts after the
track name: (3,000 - 120 - 40) / 10 = 284, less the separators, rounded down."""

_DRAWS_NOTHING_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Unicode categories that show nothing on their own: controls, format characters (the bidi
embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069, the zero-width characters
U+200B-U+200F, U+2060, U+FEFF, the soft hyphen), separators (spaces) and combining marks (they
draw on a base character, and variation selectors draw nothing)."""
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that render blank: the Hangul fillers and the blank braille pattern."""


def has_visible_character(text: str) -> bool:
    """Whether ``text`` shows at least one character to a reader: ``False`` for ``""`` and for a
    text made only of whitespace, bidi controls, zero-width characters, combining marks or blank
    glyphs (see :data:`_DRAWS_NOTHING_CATEGORIES`, :data:`_BLANK_GLYPHS`). Pure; never raises."""
    return any(
        not ch.isspace() and ch not in _BLANK_GLYPHS and unicodedata.category(ch) not in _DRAWS_NOTHING_CATEGORIES
        for ch in text
    )


def _blank(what: str, text: str) -> str:
    return (
        f"the {what} {text!r} has no visible character (only spaces, bidi controls or "
        f"zero-width characters): readers would see an empty {what}"
    )


def blank_title_issues(posts: Posts, tracks: Tracks) -> Iterator[CatalogIssue]:
    """Post titles, track names (``names.en`` / ``names.zh``) and external prerequisites' titles
    that show nothing (:func:`has_visible_character`): one error per file, entry and field."""
    for rel, post in posts:
        if not has_visible_character(post.title):
            yield CatalogIssue(rel, f"post '{post.id}'", "title", _blank("title", post.title))
    for rel, track in tracks:
        for lang in ("en", "zh"):
            name = getattr(track.names, lang)
            if name is not None and not has_visible_character(name):
                yield CatalogIssue(rel, f"track '{track.id}'", f"names.{lang}", _blank("name", name))
        for step in track.steps:
            for n, ext in enumerate(step.external_prerequisites):
                if not has_visible_character(ext.title):
                    entry = f"track '{track.id}' step '{step.post}'"
                    yield CatalogIssue(rel, entry, f"external_prerequisites.{n}.title", _blank("title", ext.title))


def view_limit_issues(posts: Posts, tracks: Tracks) -> Iterator[CatalogIssue]:
    """Names and titles longer than the views can show whole (see :data:`TRACK_NAME_MAX`,
    :data:`TRACK_ID_MAX`, :data:`POST_TITLE_MAX`), one issue per file, entry and field."""
    for rel, post in posts:
        if len(post.title) > POST_TITLE_MAX:
            fits = f"at most {POST_TITLE_MAX} fit whole in a digest's notification text (10 titles in 3,000 characters)"
            yield CatalogIssue(rel, f"post '{post.id}'", "title", f"{len(post.title)} characters; {fits}")
    for rel, track in tracks:
        entry = f"track '{track.id}'"
        for lang in ("en", "zh"):
            name = getattr(track.names, lang) or ""
            if len(name) > TRACK_NAME_MAX:
                fits = f"at most {TRACK_NAME_MAX} fit whole in the digest's header block (150 characters with "
                yield CatalogIssue(
                    rel, entry, f"names.{lang}", f'{len(name)} characters; {fits}"{{name}}: this week\'s reading")'
                )
        if len(track.id) > TRACK_ID_MAX:
            fits = (
                f"at most {TRACK_ID_MAX} fit whole, with the name, in the digest's Stop confirm text (300 characters)"
            )
            yield CatalogIssue(rel, entry, "id", f"{len(track.id)} characters; {fits}")


def duplicate_post_issues(posts: Posts) -> Iterator[CatalogIssue]:
    """Duplicate ids, titles (compared case-folded) and URLs across all post files: one error on
    each later copy, naming the file of the first."""
    for attr in ("id", "title", "url"):
        seen: dict[str, str] = {}
        for rel, post in posts:
            value = getattr(post, attr)
            if value is None:
                continue
            key = value.casefold() if attr == "title" else value
            if key in seen:
                yield CatalogIssue(rel, f"post '{post.id}'", attr, f"duplicate {attr} {value!r} (also in {seen[key]})")
            else:
                seen[key] = rel


def post_alias_issues(posts: Posts) -> Iterator[CatalogIssue]:
    """A post alias is neither another post's id nor another post's alias."""
    ids = {p.id for _, p in posts}
    alias_owner: dict[str, str] = {}
    for rel, post in posts:
        for alias in post.aliases:
            if alias in ids:
                yield CatalogIssue(rel, f"post '{post.id}'", "aliases", f"alias {alias!r} is the id of another post")
            elif alias in alias_owner and alias_owner[alias] != post.id:
                also = f"alias {alias!r} is also an alias of {alias_owner[alias]!r}"
                yield CatalogIssue(rel, f"post '{post.id}'", "aliases", also)
            alias_owner[alias] = post.id


def _step_issues(
    rel: str, track: Track, step: Step, post_ids: set[str], step_ids: Counter[str]
) -> Iterator[CatalogIssue]:
    """One step: a known post, once in the track; ``after`` and ``claims.among`` name other steps
    of the track (``step_ids``, post id -> count); a Chinese note on a bilingual track."""
    entry = f"track '{track.id}' step '{step.post}'"
    if step.post not in post_ids:
        yield CatalogIssue(rel, entry, "post", f"unknown post id {step.post!r}")
    if step_ids[step.post] > 1:
        yield CatalogIssue(rel, entry, "post", "the post is a step of this track twice")
    for ref in step.after:
        if ref not in step_ids:
            yield CatalogIssue(rel, entry, "after", f"unknown step reference {ref!r} (not a step of this track)")
        elif ref == step.post:
            yield CatalogIssue(rel, entry, "after", "a step cannot come after itself")
    for ref in (ref for claim in step.claims for ref in claim.among if ref not in step_ids):
        yield CatalogIssue(rel, entry, "claims.among", f"unknown step reference {ref!r}")
    if track.bilingual and step.note is not None and not step.note.zh:
        yield CatalogIssue(rel, entry, "note.zh", "bilingual track: the step note needs a Chinese text")


def track_issues(posts: Posts, tracks: Tracks) -> Iterator[CatalogIssue]:
    """Per track, in file order: a unique id, aliases (compared case-folded) no other track has,
    every step (:func:`_step_issues`), and ``resolutions.steps`` naming steps of the track."""
    post_ids = {p.id for _, p in posts}
    track_ids = Counter(t.id for _, t in tracks)
    alias_owners: dict[str, str] = {}  # case-folded alias -> track id
    for rel, track in tracks:
        entry = f"track '{track.id}'"
        if track_ids[track.id] > 1:
            yield CatalogIssue(rel, entry, "id", f"duplicate track id {track.id!r}")
        for alias in track.aliases:
            owner = alias_owners.get(alias.casefold(), track.id)
            if owner != track.id:
                yield CatalogIssue(rel, entry, "aliases", f"alias {alias!r} is also an alias of track {owner!r}")
            alias_owners[alias.casefold()] = track.id
        step_ids = Counter(s.post for s in track.steps)
        for step in track.steps:
            yield from _step_issues(rel, track, step, post_ids, step_ids)
        for ref in (ref for res in track.resolutions for ref in res.steps if ref not in step_ids):
            yield CatalogIssue(rel, entry, "resolutions.steps", f"unknown step reference {ref!r}")


def post_place_issues(posts: Posts, tracks: Tracks) -> Iterator[CatalogIssue]:
    """Every published post is a step of some track (when there are tracks at all), and a post on
    a bilingual track has a Chinese summary."""
    in_track = {s.post for _, t in tracks for s in t.steps}
    bilingual_posts = {s.post for _, t in tracks if t.bilingual for s in t.steps}
    for rel, post in posts:
        if tracks and post.id not in in_track and not post.is_draft:
            yield CatalogIssue(rel, f"post '{post.id}'", "tracks", "the post is not a step of any track")
        if post.id in bilingual_posts and not post.summary.zh:
            needs = "the post is on a bilingual track and needs a Chinese summary"
            yield CatalogIssue(rel, f"post '{post.id}'", "summary.zh", needs)


def cross_check(posts: Posts, tracks: Tracks) -> list[CatalogIssue]:
    """Every rule over posts and tracks together, in report order: view limits, blank titles,
    duplicate posts, post aliases, tracks and their steps, each post's place in a track."""
    return [
        *view_limit_issues(posts, tracks),
        *blank_title_issues(posts, tracks),
        *duplicate_post_issues(posts),
        *post_alias_issues(posts),
        *track_issues(posts, tracks),
        *post_place_issues(posts, tracks),
    ]


def publishing_issues(posts: Posts, *, allow_drafts: bool) -> list[CatalogIssue]:
    """A warning per post without a URL plus one counting them (field ``url``); an error per draft
    post unless ``allow_drafts`` (the importer's own check of what it wrote)."""
    no_url = [(rel, p) for rel, p in posts if p.url is None and not p.is_draft]
    archive = "no URL known yet: readers get the blog's archive page"
    issues = [CatalogIssue(rel, f"post '{post.id}'", "url", archive, "warning") for rel, post in no_url]
    if no_url:
        issues.append(CatalogIssue("posts/", "-", "url", f"{len(no_url)} post(s) without a URL", "warning"))
    how = (
        "write its summary (summary.en, and summary.zh on a bilingual track), make it a step of a track, "
        "then remove 'status: draft'"
    )
    issues.extend(
        CatalogIssue(rel, f"post '{post.id}'", "status", f"draft {post.title!r} cannot be published: {how}")
        for rel, post in posts
        if post.is_draft and not allow_drafts
    )
    return issues


def track_orders(posts: Posts, tracks: Tracks) -> tuple[dict[str, tuple[str, ...]], list[CatalogIssue]]:
    """Each track's reading order (track id -> post ids, :func:`bot.domain.paths.compute_order`)
    and the issues found computing it: an error per cycle of ``after``, a warning per soft claim
    the order breaks. A track with an unknown step reference, a step twice or an id another track
    has too (all reported by :func:`track_issues`) gets no order."""
    by_id = {p.id: p for _, p in posts}
    track_ids = Counter(t.id for _, t in tracks)
    orders: dict[str, tuple[str, ...]] = {}
    issues: list[CatalogIssue] = []
    for rel, track in tracks:
        known = {s.post for s in track.steps}
        if any(a not in known for s in track.steps for a in s.after) or len(known) != len(track.steps):
            continue  # an unknown step reference or a duplicate step, reported
        if track_ids[track.id] > 1:
            continue  # two tracks with one id would share one order, reported
        try:
            orders[track.id] = paths.compute_order(track, by_id)
        except paths.CycleError as exc:
            cycle = f"cycle in the path: {' -> '.join(exc.cycle)}"
            issues.append(CatalogIssue(rel, f"track '{track.id}' step '{exc.cycle[0]}'", "after", cycle))
            continue
        issues.extend(
            CatalogIssue(rel, f"track '{track.id}' step '{step_id}'", "claims", message, "warning")
            for message, step_id in paths.soft_claim_warnings(track, orders[track.id])
        )
    return orders, issues
