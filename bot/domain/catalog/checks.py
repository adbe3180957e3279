"""The rules of ``catalog check`` over the validated posts and tracks: each a function from
``(file in the catalog folder, model)`` pairs to :class:`~bot.domain.catalog.issues.CatalogIssue` s,
run in a fixed order. Pure: no I/O.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterator

import bot.domain.paths as paths  # module import: bot.domain.paths imports the catalog models too
from bot.domain.catalog.issues import CatalogIssue
from bot.domain.catalog.models import QUESTIONS_EN, QUESTIONS_ZH, Post, Step, Track

Posts = list[tuple[str, Post]]
"""Posts with the file each came from (``posts/vllm-blog.yaml``), in file order."""
Tracks = list[tuple[str, Track]]
"""Tracks with the file each came from (``tracks/spec.yaml``), in file order."""

TRACK_NAME_MAX = 120
"""Characters of a track name (``names.en`` / ``names.zh``): the digest's header block (150
characters in Slack) shows ``"{name}: this week's reading"``, 129 for the name, rounded down."""
TRACK_ID_MAX = 60
"""Characters of a track id: the digest's Stop confirm dialog (300 characters) shows name and id
around 112 characters of wording: 300 - 112 - :data:`TRACK_NAME_MAX` = 68, rounded down."""
POST_TITLE_MAX = 250
"""Characters of a post title: a digest's notification text (3,000 characters) lists up to 10
after the track name: (3,000 - 120 - 40) / 10 = 284, less the separators, rounded down."""

_DRAWS_NOTHING_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Unicode categories that show nothing on their own: controls, format characters (bidi controls,
zero-width characters, the soft hyphen), separators and combining marks."""
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that render blank: the Hangul fillers and the blank braille pattern."""


def has_visible_character(text: str) -> bool:
    """Whether ``text`` shows a reader a character (not only spaces, controls, marks, blank glyphs)."""
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
    """An error per post title, track name or external prerequisite title that shows nothing."""
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
    """An error per title, track name or id longer than the views show whole (the ``*_MAX`` above)."""
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
    """An error on each later copy of a post id, title (case-folded) or URL, naming the first's file."""
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
    """A known post, once; ``after`` and ``claims.among`` name other steps; a Chinese note if bilingual."""
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
    """Per track: a unique id and aliases, valid steps, ``resolutions.steps`` naming its steps."""
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
        for essential in (True, False):  # one ending per part of the path
            closing = [s.post for s in track.steps if s.closes and s.essential is essential]
            if len(closing) > 1:
                part = "essential path" if essential else "further reading"
                yield CatalogIssue(rel, entry, "closes", f"{len(closing)} steps close the {part}: {', '.join(closing)}")


def post_place_issues(posts: Posts, tracks: Tracks) -> Iterator[CatalogIssue]:
    """Every published post is a step of a track, with a Chinese summary on a bilingual one."""
    in_track = {s.post for _, t in tracks for s in t.steps}
    bilingual_posts = {s.post for _, t in tracks if t.bilingual for s in t.steps}
    for rel, post in posts:
        if tracks and post.id not in in_track:
            yield CatalogIssue(rel, f"post '{post.id}'", "tracks", "the post is not a step of any track")
        if post.id in bilingual_posts and not post.summary.zh:
            needs = "the post is on a bilingual track and needs a Chinese summary"
            yield CatalogIssue(rel, f"post '{post.id}'", "summary.zh", needs)


def question_issues(posts: Posts) -> Iterator[CatalogIssue]:
    """An error per linked post whose ``questions`` miss the counts of
    :data:`~bot.domain.catalog.models.QUESTIONS_EN` (English) and ``QUESTIONS_ZH`` (Chinese): search
    finds a post by the problems it answers, so every post a reader can open needs them. A catalog
    where no post has questions (before 2026.12.8) is not asked for them, so old versions still load."""
    if not any(post.questions.en or post.questions.zh for _, post in posts):
        return
    for rel, post in posts:
        if post.url is None:
            continue
        for lang, (low, high) in (("en", QUESTIONS_EN), ("zh", QUESTIONS_ZH)):
            have = len(getattr(post.questions, lang))
            if not low <= have <= high:
                what = "English" if lang == "en" else "Chinese"
                message = (
                    f"{have} {what} question(s); a linked post needs {low} to {high}: the problems it answers, "
                    "as a reader would type them, in our own words"
                )
                yield CatalogIssue(rel, f"post '{post.id}'", f"questions.{lang}", message)


def cross_check(posts: Posts, tracks: Tracks) -> list[CatalogIssue]:
    """Every rule above over posts and tracks, in report order."""
    return [
        *view_limit_issues(posts, tracks),
        *blank_title_issues(posts, tracks),
        *duplicate_post_issues(posts),
        *post_alias_issues(posts),
        *track_issues(posts, tracks),
        *post_place_issues(posts, tracks),
    ]


def publishing_issues(posts: Posts) -> list[CatalogIssue]:
    """A warning per post without a URL plus one counting them; an error per linked post without
    its questions (:func:`question_issues`)."""
    no_url = [(rel, p) for rel, p in posts if p.url is None]
    archive = "no URL known yet: readers get the blog's archive page"
    issues = [CatalogIssue(rel, f"post '{post.id}'", "url", archive, "warning") for rel, post in no_url]
    if no_url:
        issues.append(CatalogIssue("posts/", "-", "url", f"{len(no_url)} post(s) without a URL", "warning"))
    issues.extend(question_issues(posts))
    return issues


def track_orders(posts: Posts, tracks: Tracks) -> tuple[dict[str, tuple[str, ...]], list[CatalogIssue]]:
    """Each track's reading order (track id -> post ids) and the issues found computing it: an error
    per ``after`` cycle, a warning per broken soft claim. A track with an unknown ``after``, a step
    twice or a shared id (reported by :func:`track_issues`) gets no order."""
    by_id = {p.id: p for _, p in posts}
    track_ids = Counter(t.id for _, t in tracks)
    orders: dict[str, tuple[str, ...]] = {}
    issues: list[CatalogIssue] = []
    for rel, track in tracks:
        known = {s.post for s in track.steps}
        unknown_after = any(a not in known for s in track.steps for a in s.after)
        if unknown_after or len(known) != len(track.steps) or track_ids[track.id] > 1:
            continue
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
        last = by_id.get(orders[track.id][-1]) if orders[track.id] else None
        if last is not None and last.url is None:  # a reader would finish on a post they cannot open
            why = "the path ends on a post without a link: give a linked step `closes: true`"
            issues.append(CatalogIssue(rel, f"track '{track.id}' step '{last.id}'", "closes", why, "warning"))
    return orders, issues
