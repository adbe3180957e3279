"""Load ``catalog/`` into an immutable :class:`~bot.domain.catalog.compiled.Catalog`, reporting every
:class:`CatalogIssue` at once (each post and track validated on its own, then the rules)."""

from __future__ import annotations

import hashlib
import pickle
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from bot.domain.catalog import checks
from bot.domain.catalog.checks import Posts, Tracks
from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.essentials import essential_path_issues
from bot.domain.catalog.issues import CatalogError as CatalogError
from bot.domain.catalog.issues import CatalogIssue as CatalogIssue
from bot.domain.catalog.models import Manifest, Post, Relation, Track
from bot.domain.catalog.prompts import read_prompts
from bot.domain.catalog.versions import changelog_entries, version_problems


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "-"


SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (~10x faster than PyYAML's own), else PyYAML's."""


PARSED_KEPT = 32
"""Parsed YAML texts a process keeps (:func:`parse_yaml_text`), the least recently read dropped first."""

_parsed: OrderedDict[bytes, bytes] = OrderedDict()
_parsed_lock = threading.Lock()


def parse_yaml(path: Path) -> Any:
    """``path`` parsed with :data:`SAFE_LOADER` (:func:`parse_yaml_text`); raises as reading
    (``OSError``, ``UnicodeDecodeError``) and parsing (``yaml.YAMLError``) do."""
    return parse_yaml_text(path.read_bytes().decode("utf-8"))


def parse_yaml_text(text: str) -> Any:
    """``text`` parsed as YAML with :data:`SAFE_LOADER` (what ``yaml.safe_load`` does, faster);
    raises ``yaml.YAMLError`` on text it cannot parse.

    A text this process parsed before (the same bytes: a curator's accept, edit and reload read
    the unchanged files again, and each catalog check reads them all) is rebuilt from a pickle of
    its parse (fresh objects each time, ~10x faster than libyaml's parse and PyYAML's
    construction); :data:`PARSED_KEPT` are kept. The suite's catalog reads spent ~8 s of CPU per
    test file in the YAML (issue 43's ``make test``)."""
    key = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
    with _parsed_lock:
        kept = _parsed.get(key)
        if kept is not None:
            _parsed.move_to_end(key)
    if kept is not None:
        return pickle.loads(kept)
    value = yaml.load(text, Loader=SAFE_LOADER)
    with _parsed_lock:
        _parsed[key] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        while len(_parsed) > PARSED_KEPT:
            _parsed.popitem(last=False)
    return value


def _read_yaml(path: Path, rel: str, issues: list[CatalogIssue]) -> Any:
    try:
        return parse_yaml(path)
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


def load_catalog(directory: str | Path, *, check_versions: bool = True) -> Catalog:
    """The checked :class:`Catalog` in ``directory`` (its ``warnings`` the soft problems); raises
    :class:`CatalogError` with every error. ``check_versions=False`` skips the version-history
    rules, to read an old version."""
    root = Path(directory)
    catalog, issues = check_catalog(root, check_versions=check_versions)
    if catalog is None:
        raise CatalogError(issues)
    return catalog


def _read_manifest(root: Path, issues: list[CatalogIssue]) -> Manifest | None:
    """``manifest.yaml`` validated, or ``None`` (the problems appended to ``issues``)."""
    if (raw := _read_yaml(root / "manifest.yaml", "manifest.yaml", issues)) is None:
        return None
    try:
        return Manifest.model_validate(raw)
    except ValidationError as exc:
        issues.extend(
            CatalogIssue("manifest.yaml", "manifest", _field_path(err["loc"]), err["msg"]) for err in exc.errors()
        )
        return None


def _read_post_file(path: Path, issues: list[CatalogIssue]) -> Posts:
    """The valid posts of one ``posts/*.yaml`` file; the problems appended to ``issues``."""
    rel = f"posts/{path.name}"
    if (data := _read_yaml(path, rel, issues)) is None:
        return []
    if not isinstance(data, list):
        issues.append(CatalogIssue(rel, "-", "-", "expected a list of posts"))
        return []
    posts: Posts = []
    for index, raw in enumerate(data):
        entry = _post_entry(raw, index)
        if not isinstance(raw, dict):
            issues.append(CatalogIssue(rel, entry, "-", "expected a mapping"))
            continue
        try:
            posts.append((rel, Post.model_validate(raw)))
        except ValidationError as exc:
            issues.extend(CatalogIssue(rel, entry, _field_path(err["loc"]), err["msg"]) for err in exc.errors())
    return posts


def _read_track_file(path: Path, issues: list[CatalogIssue]) -> Tracks:
    """The track of one ``tracks/*.yaml`` file as a one-item list, or ``[]`` (problems in ``issues``)."""
    rel = f"tracks/{path.name}"
    if (raw := _read_yaml(path, rel, issues)) is None:
        return []
    if not isinstance(raw, dict):
        issues.append(CatalogIssue(rel, "-", "-", "expected a mapping (one track per file)"))
        return []
    try:
        return [(rel, Track.model_validate(raw))]
    except ValidationError as exc:
        for err in exc.errors():
            entry, rest = _track_entry(raw, tuple(err["loc"]), path.stem)
            issues.append(CatalogIssue(rel, entry, _field_path(rest), err["msg"]))
        return []


RELATIONS_FILE = "relations.yaml"
"""The posts that revisit earlier ones (:class:`~bot.domain.catalog.models.Relation`); optional."""


def _read_relations(root: Path, posts: Posts, issues: list[CatalogIssue]) -> tuple[Relation, ...]:
    """The valid entries of ``relations.yaml`` (none when the file is absent); an error in ``issues``
    for an entry that does not validate, names no post or repeats a pair. A post's former id (one of
    its ``aliases``: ids renamed in the catalog's history) is read as its current id, with a warning
    naming both."""
    if not (root / RELATIONS_FILE).is_file():
        return ()
    if (data := _read_yaml(root / RELATIONS_FILE, RELATIONS_FILE, issues)) is None:
        return ()
    if not isinstance(data, list):
        issues.append(CatalogIssue(RELATIONS_FILE, "-", "-", "expected a list of relations"))
        return ()
    known = {p.id for _, p in posts}
    former = {alias: p.id for _, p in posts for alias in p.aliases if alias not in known}
    out: list[Relation] = []
    for index, raw in enumerate(data):
        entry = f"relation #{index + 1}"
        try:
            rel = Relation.model_validate(raw)
        except ValidationError as exc:
            issues.extend(CatalogIssue(RELATIONS_FILE, entry, _field_path(e["loc"]), e["msg"]) for e in exc.errors())
            continue
        entry = f"relation '{rel.post}' {rel.kind} '{rel.earlier}'"
        renamed = {
            f: former[v] for f, v in (("post", rel.post), (rel.kind, rel.earlier)) if v not in known and v in former
        }
        for field, current in renamed.items():
            said = rel.post if field == "post" else rel.earlier
            message = f"{said!r} is a former id of {current!r}: read as {current!r} (write the current id)"
            issues.append(CatalogIssue(RELATIONS_FILE, entry, field, message, "warning"))
        if renamed:
            try:
                rel = Relation.model_validate({**rel.model_dump(exclude_none=True), **renamed})
            except ValidationError as exc:
                issues.extend(
                    CatalogIssue(RELATIONS_FILE, entry, _field_path(e["loc"]), e["msg"]) for e in exc.errors()
                )
                continue
        unknown = [(f, v) for f, v in (("post", rel.post), (rel.kind, rel.earlier)) if v not in known]
        for field, value in unknown:
            issues.append(CatalogIssue(RELATIONS_FILE, entry, field, f"unknown post id {value!r}"))
        if any((r.post, r.earlier) == (rel.post, rel.earlier) for r in out):
            issues.append(CatalogIssue(RELATIONS_FILE, entry, "-", "the same two posts are related twice"))
        elif not unknown:
            out.append(rel)
    return tuple(out)


def _read_all(root: Path, folder: str, what: str, issues: list[CatalogIssue]) -> list[Path]:
    """The ``<folder>/*.yaml`` files in name order; an error in ``issues`` when there are none."""
    files = sorted((root / folder).glob("*.yaml"))
    if not files:
        issues.append(CatalogIssue(f"{folder}/", "-", "-", f"no {what} files ({folder}/*.yaml)"))
    return files


def _changelog_issues(
    root: Path, manifest: Manifest | None, *, check_versions: bool
) -> tuple[list[str], list[CatalogIssue]]:
    """The changelog's versions, and its issues with the manifest's version."""
    changelog = root / "CHANGELOG.md"
    entries = changelog_entries(changelog.read_text(encoding="utf-8")) if changelog.is_file() else []
    versions = [e.version for e in entries]
    if manifest is None:
        return versions, []
    issues: list[CatalogIssue] = []
    version = manifest.version
    if version not in versions:
        missing = f"manifest.yaml declares version {version} but CHANGELOG.md has no '## {version}' entry"
        issues.append(CatalogIssue("CHANGELOG.md", f"version {version}", "heading", missing))
    if check_versions:
        for entry, field, message, severity in version_problems(manifest.version, entries):
            rel = "manifest.yaml" if field == "version" else "CHANGELOG.md"
            issues.append(CatalogIssue(rel, entry, field, message, "error" if severity == "error" else "warning"))
    return versions, issues


def check_catalog(directory: str | Path, *, check_versions: bool = True) -> tuple[Catalog | None, list[CatalogIssue]]:
    """``(catalog or None when there are errors, all issues)`` for ``directory``: every entry
    validated, then the rules of :mod:`~bot.domain.catalog.checks`, :mod:`~bot.domain.catalog.essentials`
    and (``check_versions``) the version history. Never raises for a bad catalog."""
    root = Path(directory)
    if not root.is_dir():
        return None, [CatalogIssue(str(root), "-", "-", "catalog folder not found")]
    issues: list[CatalogIssue] = []
    manifest = _read_manifest(root, issues)
    posts = [p for path in _read_all(root, "posts", "post", issues) for p in _read_post_file(path, issues)]
    tracks = [t for path in _read_all(root, "tracks", "track", issues) for t in _read_track_file(path, issues)]
    relations = _read_relations(root, posts, issues)
    prompts = read_prompts(root, posts, tracks, _read_yaml, issues)
    versions, changelog = _changelog_issues(root, manifest, check_versions=check_versions)
    issues.extend(changelog)
    issues.extend(checks.publishing_issues(posts))
    issues.extend(checks.cross_check(posts, tracks))
    orders, order_issues = checks.track_orders(posts, tracks)
    issues.extend(order_issues)
    issues.extend(essential_path_issues(posts, tracks, orders))

    if any(i.severity == "error" for i in issues) or manifest is None:
        return None, issues
    catalog = Catalog.build(
        manifest=manifest,
        posts=[p for _, p in posts],
        tracks=[t for _, t in tracks],
        orders=orders,
        warnings=tuple(str(i) for i in issues if i.severity == "warning"),
        changelog_versions=tuple(versions),
        relations=relations,
        prompts=prompts,
    )
    return catalog, issues
