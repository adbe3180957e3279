"""Load ``catalog/`` into an immutable :class:`~bot.domain.catalog.compiled.Catalog`, collecting every error.

The loader never stops at the first problem: it validates each post and each track on its own,
then the cross-references, and reports all :class:`CatalogIssue` s at once, each naming the file
(relative to the catalog folder), the entry (post or track/step) and the field.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError

import bot.domain.paths as paths  # module import: bot.domain.paths imports the catalog models too
from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.models import Manifest, Post, Track
from bot.domain.catalog.versions import ChangelogEntry, changelog_entries, version_problems

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (about 10x faster), else the pure-Python one."""

CHANGELOG_HEADING = re.compile(r"^##\s+\[?(?P<version>\d{4}\.\d{2}\.\d+)\]?", re.MULTILINE)


@dataclass(frozen=True)
class CatalogIssue:
    """One problem found in the catalog.

    ``file`` is relative to the catalog folder (``tracks/spec.yaml``); ``entry`` names the post or
    the track and step (``track 'spec' step 'p-eagle'``); ``field`` is a dotted field path
    (``after``, ``summary.zh``); ``severity`` is ``error`` (the catalog is refused) or ``warning``.
    """

    file: str
    entry: str
    field: str
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return f"{self.file}: {self.entry}: {self.field}: {self.message}"


class CatalogError(Exception):
    """The catalog is invalid. ``issues`` holds every error (and the warnings found on the way)."""

    def __init__(self, issues: list[CatalogIssue]):
        self.issues = issues
        errors = [i for i in issues if i.severity == "error"]
        super().__init__(f"{len(errors)} catalog error(s):\n" + "\n".join(f"  {e}" for e in errors))

    @property
    def errors(self) -> list[CatalogIssue]:
        """Only the errors."""
        return [i for i in self.issues if i.severity == "error"]


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "-"


def _read_yaml(path: Path, rel: str, issues: list[CatalogIssue]) -> Any:
    try:
        with path.open(encoding="utf-8") as fh:
            return yaml.load(fh, Loader=_SAFE_LOADER)  # a safe loader, C-accelerated
    except FileNotFoundError:
        issues.append(CatalogIssue(rel, "-", "-", "file is missing"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "-"
        issues.append(CatalogIssue(rel, where, "-", f"not valid YAML: {getattr(exc, 'problem', exc)}"))
    except UnicodeDecodeError as exc:
        issues.append(CatalogIssue(rel, "-", "-", f"not UTF-8: {exc}"))
    return None


def _post_entry(raw: Any, index: int) -> str:
    if isinstance(raw, dict) and isinstance(raw.get("id"), str):
        return f"post '{raw['id']}'"
    return f"post #{index + 1}"


def _track_entry(raw: dict[str, Any], loc: tuple[Any, ...], fallback: str) -> tuple[str, tuple[Any, ...]]:
    """Name the track (and the step when ``loc`` points into ``steps``) and return the rest of loc."""
    tid = raw.get("id") if isinstance(raw.get("id"), str) else fallback
    if len(loc) >= 2 and loc[0] == "steps" and isinstance(loc[1], int):
        steps = raw.get("steps") or []
        step = steps[loc[1]] if loc[1] < len(steps) else None
        name = step.get("post") if isinstance(step, dict) and isinstance(step.get("post"), str) else f"#{loc[1] + 1}"
        return f"track '{tid}' step '{name}'", loc[2:]
    return f"track '{tid}'", loc


def changelog_versions(text: str) -> list[str]:
    """Versions that have a ``## <version>`` heading in a changelog, in file order."""
    return [m.group("version") for m in CHANGELOG_HEADING.finditer(text)]


def load_catalog(directory: str | Path, *, check_versions: bool = True) -> Catalog:
    """Load and check the catalog in ``directory``.

    Returns an immutable :class:`Catalog` (its ``warnings`` list the soft problems). Raises
    :class:`CatalogError` with every error found (file, entry, field) when the catalog is invalid.
    ``check_versions=False`` skips the publishing rules of the version history
    (:func:`bot.domain.catalog.versions.version_problems`), for reading an old version (``catalog diff``).
    """
    catalog, issues = check_catalog(directory, check_versions=check_versions)
    if catalog is None:
        raise CatalogError(issues)
    return catalog


def check_catalog(directory: str | Path, *, check_versions: bool = True,
                  allow_drafts: bool = False) -> tuple[Catalog | None, list[CatalogIssue]]:
    """Validate ``directory``; return ``(catalog or None when there are errors, all issues)``.

    Besides the models and cross-references it checks the version history (manifest version
    greater than the previous changelog entry's, compared as numbers; no changelog date before
    its version's month; skipped with ``check_versions=False``), refuses draft posts, and warns
    for each post without a URL plus one warning counting them (field ``url``).
    """
    root = Path(directory)
    issues: list[CatalogIssue] = []
    if not root.is_dir():
        return None, [CatalogIssue(str(root), "-", "-", "catalog folder not found")]

    manifest: Manifest | None = None
    raw_manifest = _read_yaml(root / "manifest.yaml", "manifest.yaml", issues)
    if raw_manifest is not None:
        try:
            manifest = Manifest.model_validate(raw_manifest)
        except ValidationError as exc:
            for err in exc.errors():
                issues.append(CatalogIssue("manifest.yaml", "manifest", _field_path(err["loc"]), err["msg"]))

    # --- posts -------------------------------------------------------------------------------
    posts: list[tuple[str, Post]] = []
    post_files = sorted((root / "posts").glob("*.yaml"))
    if not post_files:
        issues.append(CatalogIssue("posts/", "-", "-", "no post files (posts/*.yaml)"))
    for path in post_files:
        rel = f"posts/{path.name}"
        data = _read_yaml(path, rel, issues)
        if data is None:
            continue
        if not isinstance(data, list):
            issues.append(CatalogIssue(rel, "-", "-", "expected a list of posts"))
            continue
        for index, raw in enumerate(data):
            entry = _post_entry(raw, index)
            if not isinstance(raw, dict):
                issues.append(CatalogIssue(rel, entry, "-", "expected a mapping"))
                continue
            try:
                posts.append((rel, Post.model_validate(raw)))
            except ValidationError as exc:
                for err in exc.errors():
                    issues.append(CatalogIssue(rel, entry, _field_path(err["loc"]), err["msg"]))

    # --- tracks ------------------------------------------------------------------------------
    tracks: list[tuple[str, Track]] = []
    track_files = sorted((root / "tracks").glob("*.yaml"))
    if not track_files:
        issues.append(CatalogIssue("tracks/", "-", "-", "no track files (tracks/*.yaml)"))
    for path in track_files:
        rel = f"tracks/{path.name}"
        raw = _read_yaml(path, rel, issues)
        if raw is None:
            continue
        if not isinstance(raw, dict):
            issues.append(CatalogIssue(rel, "-", "-", "expected a mapping (one track per file)"))
            continue
        try:
            tracks.append((rel, Track.model_validate(raw)))
        except ValidationError as exc:
            for err in exc.errors():
                entry, rest = _track_entry(raw, tuple(err["loc"]), path.stem)
                issues.append(CatalogIssue(rel, entry, _field_path(rest), err["msg"]))

    # --- changelog -----------------------------------------------------------------------------
    changelog_path = root / "CHANGELOG.md"
    versions: list[str] = []
    entries: list[ChangelogEntry] = []
    if changelog_path.is_file():
        text = changelog_path.read_text(encoding="utf-8")
        versions = changelog_versions(text)
        entries = changelog_entries(text)
    if manifest is not None and manifest.version not in versions:
        issues.append(CatalogIssue(
            "CHANGELOG.md", f"version {manifest.version}", "heading",
            f"manifest.yaml declares version {manifest.version} but CHANGELOG.md has no "
            f"'## {manifest.version}' entry"))
    if manifest is not None and check_versions:
        for entry, field, message, severity in version_problems(manifest.version, entries):
            rel = "manifest.yaml" if field == "version" else "CHANGELOG.md"
            issues.append(CatalogIssue(rel, entry, field, message,
                                       "error" if severity == "error" else "warning"))

    # --- drafts and posts without a URL -------------------------------------------------------
    no_url = [(rel, p) for rel, p in posts if p.url is None and not p.is_draft]
    for rel, post in no_url:
        issues.append(CatalogIssue(rel, f"post '{post.id}'", "url",
                                   "no URL known yet: readers get the blog's archive page", "warning"))
    if no_url:
        issues.append(CatalogIssue("posts/", "-", "url",
                                   f"{len(no_url)} post(s) without a URL", "warning"))
    for rel, post in posts:
        if post.is_draft and not allow_drafts:
            issues.append(CatalogIssue(
                rel, f"post '{post.id}'", "status",
                f"draft {post.title!r} cannot be published: write its summary (summary.en, and summary.zh on a "
                "bilingual track), make it a step of a track, then remove 'status: draft'"))

    issues.extend(_cross_check(posts, tracks))

    # --- order ---------------------------------------------------------------------------------
    by_id = {p.id: p for _, p in posts}
    orders: dict[str, tuple[str, ...]] = {}
    for rel, track in tracks:
        known = {s.post for s in track.steps}
        if any(a not in known for s in track.steps for a in s.after):
            continue  # already reported as an unknown step reference
        if len(known) != len(track.steps):
            continue  # duplicate step, reported
        try:
            orders[track.id] = paths.compute_order(track, by_id)
        except paths.CycleError as exc:
            issues.append(CatalogIssue(rel, f"track '{track.id}' step '{exc.cycle[0]}'", "after",
                                       f"cycle in the path: {' -> '.join(exc.cycle)}"))
            continue
        for message, step_id in paths.soft_claim_warnings(track, orders[track.id]):
            issues.append(CatalogIssue(rel, f"track '{track.id}' step '{step_id}'", "claims",
                                       message, "warning"))

    issues.extend(essential_path_issues(posts, tracks, orders))

    if any(i.severity == "error" for i in issues) or manifest is None:
        return None, issues
    catalog = Catalog.build(
        manifest=manifest,
        posts=[p for _, p in posts if not p.is_draft],
        tracks=[t for _, t in tracks],
        orders=orders,
        warnings=tuple(str(i) for i in issues if i.severity == "warning"),
        changelog_versions=tuple(versions),
    )
    return catalog, issues


ESSENTIALS_MAX_STEPS = 8
"""At most this many essential steps per track (issue 24: a path people finish)."""
ESSENTIALS_MAX_MINUTES = 90
"""At most this many minutes of reading (sum of the essential posts' ``minutes``) per track."""


def _before_cycle(tracks: list[tuple[str, Track]]) -> list[str] | None:
    """A cycle of ``before`` references among the tracks (track ids, first == last), or ``None``."""
    graph = {t.id: tuple(b for b in t.before) for _, t in tracks}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in graph:
                continue  # unknown track, reported on its own
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def essential_path_issues(posts: list[tuple[str, Post]], tracks: list[tuple[str, Track]],
                          orders: dict[str, tuple[str, ...]]) -> list[CatalogIssue]:
    """The rules of the essential path and of cross-track prerequisites, as errors.

    For every track: 1 to :data:`ESSENTIALS_MAX_STEPS` essential steps, each a post with a known
    ``url`` and ``minutes``, together at most :data:`ESSENTIALS_MAX_MINUTES` minutes; the first in
    reading order (``orders``, from :func:`bot.domain.paths.compute_order`) at level ``intro``; every
    essential step before every further step in that order; an ``essentials_reason`` (with
    ``zh`` on a bilingual track). ``before`` names known tracks other than the track itself and
    the ``before`` references form no cycle. A track missing from ``orders`` (its order could
    not be computed, already reported) is checked only for what does not need the order. A catalog
    where no track marks an essential step (the versions before 2026.12.5) is not asked for one,
    so old versions still load (``catalog diff``); once one track has essentials, every track needs
    them.
    """
    issues: list[CatalogIssue] = []
    by_id = {p.id: p for _, p in posts}
    track_ids = {t.id for _, t in tracks}
    uses_essentials = any(s.essential for _, t in tracks for s in t.steps)
    for rel, track in tracks:
        entry = f"track '{track.id}'"
        for tid in track.before:
            if tid == track.id:
                issues.append(CatalogIssue(rel, entry, "before", "a track cannot be read before itself"))
            elif tid not in track_ids:
                issues.append(CatalogIssue(rel, entry, "before", f"unknown track {tid!r}"))
        essentials = [s for s in track.steps if s.essential]
        if not essentials and not uses_essentials:
            continue  # a catalog from before essential paths (2026.12.4 and older) still loads
        if not essentials:
            issues.append(CatalogIssue(rel, entry, "essential",
                                       "no essential step: mark 1 to "
                                       f"{ESSENTIALS_MAX_STEPS} steps 'essential: true'"))
            continue
        if len(essentials) > ESSENTIALS_MAX_STEPS:
            issues.append(CatalogIssue(rel, entry, "essential",
                                       f"{len(essentials)} essential steps; at most {ESSENTIALS_MAX_STEPS}"))
        if track.essentials_reason is None:
            issues.append(CatalogIssue(rel, entry, "essentials_reason",
                                       "say why these steps are the essential path"))
        elif track.bilingual and not track.essentials_reason.zh:
            issues.append(CatalogIssue(rel, entry, "essentials_reason.zh",
                                       "bilingual track: the reason needs a Chinese text"))
        total = 0
        for step in essentials:
            post = by_id.get(step.post)
            if post is None:
                continue  # unknown post, reported
            step_entry = f"track '{track.id}' step '{step.post}'"
            if post.url is None:
                issues.append(CatalogIssue(rel, step_entry, "essential",
                                           "a post whose link is not known yet cannot be essential: "
                                           "make it further reading"))
            if post.minutes is None:
                issues.append(CatalogIssue(rel, step_entry, "essential",
                                           "an essential post needs 'minutes' (its reading time) so the "
                                           f"path can be checked against {ESSENTIALS_MAX_MINUTES} minutes"))
            else:
                total += post.minutes
        if total > ESSENTIALS_MAX_MINUTES:
            issues.append(CatalogIssue(rel, entry, "essential",
                                       f"the essential steps take {total} minutes; at most "
                                       f"{ESSENTIALS_MAX_MINUTES}"))
        order = orders.get(track.id)
        if order is None:
            continue
        steps = {s.post: s for s in track.steps}
        flags = [steps[pid].essential for pid in order]
        first = order[0]  # a further step first is reported below (before an essential one)
        if steps[first].essential and steps[first].level != "intro":
            issues.append(CatalogIssue(rel, f"track '{track.id}' step '{first}'", "level",
                                       f"the first essential step is at level {steps[first].level!r}; "
                                       "it must be 'intro' (a post a newcomer to the topic can start with)"))
        if False in flags and True in flags[flags.index(False):]:
            late = order[flags.index(True, flags.index(False))]
            issues.append(CatalogIssue(rel, f"track '{track.id}' step '{late}'", "essential",
                                       "an essential step comes after further reading in the path: "
                                       "it (or a step it comes after) must not follow a further step"))
    cycle = _before_cycle(tracks)
    if cycle:
        rel = next(r for r, t in tracks if t.id == cycle[0])
        issues.append(CatalogIssue(rel, f"track '{cycle[0]}'", "before",
                                   f"cycle in the tracks to read before: {' -> '.join(cycle)}"))
    return issues


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


def _view_limit_issues(posts: list[tuple[str, Post]],
                       tracks: list[tuple[str, Track]]) -> list[CatalogIssue]:
    """Names and titles longer than the views can show whole (see :data:`TRACK_NAME_MAX`,
    :data:`TRACK_ID_MAX`, :data:`POST_TITLE_MAX`), one issue per file, entry and field."""
    issues: list[CatalogIssue] = []
    for rel, post in posts:
        if len(post.title) > POST_TITLE_MAX:
            issues.append(CatalogIssue(rel, f"post '{post.id}'", "title",
                                       f"{len(post.title)} characters; at most {POST_TITLE_MAX} fit whole "
                                       "in a digest's notification text (10 titles in 3,000 characters)"))
    for rel, track in tracks:
        for lang in ("en", "zh"):
            name = getattr(track.names, lang) or ""
            if len(name) > TRACK_NAME_MAX:
                issues.append(CatalogIssue(rel, f"track '{track.id}'", f"names.{lang}",
                                           f"{len(name)} characters; at most {TRACK_NAME_MAX} fit whole in "
                                           "the digest's header block (150 characters with "
                                           "\"{name}: this week's reading\")"))
        if len(track.id) > TRACK_ID_MAX:
            issues.append(CatalogIssue(rel, f"track '{track.id}'", "id",
                                       f"{len(track.id)} characters; at most {TRACK_ID_MAX} fit whole, with "
                                       "the name, in the digest's Stop confirm text (300 characters)"))
    return issues


def _cross_check(posts: list[tuple[str, Post]], tracks: list[tuple[str, Track]]) -> list[CatalogIssue]:
    issues: list[CatalogIssue] = []
    issues.extend(_view_limit_issues(posts, tracks))
    # Duplicate ids, titles and URLs across all post files.
    for attr, label in (("id", "id"), ("title", "title"), ("url", "url")):
        seen: dict[str, str] = {}
        for rel, post in posts:
            value = getattr(post, attr)
            if value is None:
                continue
            key = value.casefold() if attr == "title" else value
            if key in seen:
                issues.append(CatalogIssue(rel, f"post '{post.id}'", label,
                                           f"duplicate {label} {value!r} (also in {seen[key]})"))
            else:
                seen[key] = rel
    ids = {p.id for _, p in posts}
    alias_owner: dict[str, str] = {}
    for rel, post in posts:
        for alias in post.aliases:
            if alias in ids:
                issues.append(CatalogIssue(rel, f"post '{post.id}'", "aliases",
                                           f"alias {alias!r} is the id of another post"))
            elif alias in alias_owner and alias_owner[alias] != post.id:
                issues.append(CatalogIssue(rel, f"post '{post.id}'", "aliases",
                                           f"alias {alias!r} is also an alias of {alias_owner[alias]!r}"))
            alias_owner[alias] = post.id

    track_ids = Counter(t.id for _, t in tracks)
    track_aliases: dict[str, str] = {}
    in_track: dict[str, list[str]] = defaultdict(list)
    bilingual_posts: set[str] = set()
    for rel, track in tracks:
        if track_ids[track.id] > 1:
            issues.append(CatalogIssue(rel, f"track '{track.id}'", "id", f"duplicate track id {track.id!r}"))
        for alias in track.aliases:
            key = alias.casefold()
            if key in track_aliases and track_aliases[key] != track.id:
                issues.append(CatalogIssue(rel, f"track '{track.id}'", "aliases",
                                           f"alias {alias!r} is also an alias of track {track_aliases[key]!r}"))
            track_aliases[key] = track.id
        step_ids = Counter(s.post for s in track.steps)
        for step in track.steps:
            entry = f"track '{track.id}' step '{step.post}'"
            if step.post not in ids:
                issues.append(CatalogIssue(rel, entry, "post", f"unknown post id {step.post!r}"))
            if step_ids[step.post] > 1:
                issues.append(CatalogIssue(rel, entry, "post", "the post is a step of this track twice"))
            for ref in step.after:
                if ref not in step_ids:
                    issues.append(CatalogIssue(rel, entry, "after",
                                               f"unknown step reference {ref!r} (not a step of this track)"))
                elif ref == step.post:
                    issues.append(CatalogIssue(rel, entry, "after", "a step cannot come after itself"))
            for claim in step.claims:
                for ref in claim.among:
                    if ref not in step_ids:
                        issues.append(CatalogIssue(rel, entry, "claims.among",
                                                   f"unknown step reference {ref!r}"))
            if track.bilingual and step.note is not None and not step.note.zh:
                issues.append(CatalogIssue(rel, entry, "note.zh",
                                           "bilingual track: the step note needs a Chinese text"))
            in_track[step.post].append(track.id)
            if track.bilingual:
                bilingual_posts.add(step.post)
        for res in track.resolutions:
            for ref in res.steps:
                if ref not in step_ids:
                    issues.append(CatalogIssue(rel, f"track '{track.id}'", "resolutions.steps",
                                               f"unknown step reference {ref!r}"))
    for rel, post in posts:
        if tracks and not in_track.get(post.id) and not post.is_draft:
            issues.append(CatalogIssue(rel, f"post '{post.id}'", "tracks",
                                       "the post is not a step of any track"))
        if post.id in bilingual_posts and not post.summary.zh:
            issues.append(CatalogIssue(rel, f"post '{post.id}'", "summary.zh",
                                       "the post is on a bilingual track and needs a Chinese summary"))
    return issues
