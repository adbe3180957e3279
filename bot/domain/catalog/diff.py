"""What changed between two catalog versions (``vllm-path catalog diff OLD NEW``). A post whose
id lives on as an alias of a new post counts as *renamed*."""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.loader import load_catalog
from bot.domain.catalog.models import CALVER_RE


@dataclass(frozen=True)
class TextChange:
    """One re-worded field: ``kind`` is post, track or step; ``id`` names it (``track/post`` for steps)."""

    kind: str
    id: str
    field: str
    old: Any
    new: Any


@dataclass
class CatalogDiff:
    """The changes from ``old_version`` to ``new_version``. Lists are sorted; dicts keyed by track id."""

    old_version: str
    new_version: str
    posts_added: list[str] = field(default_factory=list)
    posts_removed: list[str] = field(default_factory=list)
    posts_renamed: list[tuple[str, str]] = field(default_factory=list)
    tracks_added: list[str] = field(default_factory=list)
    tracks_removed: list[str] = field(default_factory=list)
    steps_added: dict[str, list[str]] = field(default_factory=dict)
    steps_removed: dict[str, list[str]] = field(default_factory=dict)
    steps_reordered: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    text_changed: list[TextChange] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when nothing changed but (possibly) the version number."""
        return not any(getattr(self, f.name) for f in fields(self) if not f.name.endswith("_version"))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (renames as ``{"old", "new"}`` objects)."""
        data = asdict(self)
        data["posts_renamed"] = [{"old": o, "new": n} for o, n in self.posts_renamed]
        return data

    def render(self) -> str:
        """Human-readable summary for a terminal or a pull request."""
        out = [f"catalog {self.old_version} -> {self.new_version}"]
        if self.empty:
            out.append("  no changes")
        for name in ("posts_added", "posts_removed", "tracks_added", "tracks_removed"):
            if items := getattr(self, name):
                out.append(f"  {name.replace('_', ' ')}: {', '.join(items)}")
        for old, new in self.posts_renamed:
            out.append(f"  post renamed: {old} -> {new}")
        for label, steps in (("added", self.steps_added), ("removed", self.steps_removed)):
            out.extend(f"  track {tid}: steps {label}: {', '.join(items)}" for tid, items in sorted(steps.items()))
        for tid, orders in sorted(self.steps_reordered.items()):
            out.append(f"  track {tid}: re-ordered: {' > '.join(orders['old'])}  =>  {' > '.join(orders['new'])}")
        for ch in self.text_changed:
            out.append(f"  {ch.kind} {ch.id}: {ch.field} changed")
        return "\n".join(out)


def _plain(value: Any) -> Any:
    """Models and tuples of models as JSON-ready data."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True)
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


def _field_changes(kind: str, ident: str, a: Any, b: Any, names: tuple[str, ...]) -> list[TextChange]:
    """A :class:`TextChange` for every attribute in ``names`` that differs between ``a`` and ``b``."""
    return [
        TextChange(kind, ident, name, _plain(getattr(a, name)), _plain(getattr(b, name)))
        for name in names
        if getattr(a, name) != getattr(b, name)
    ]


def _diff_track(result: CatalogDiff, old: Catalog, new: Catalog, tid: str, renamed: dict[str, str]) -> None:
    """Record the step and text changes of track ``tid`` (in both catalogs) into ``result``."""
    a_order = [renamed.get(p, p) for p in old.order(tid)]
    b_order = list(new.order(tid))
    added = [p for p in b_order if p not in a_order]
    removed = [p for p in a_order if p not in b_order]
    if added:
        result.steps_added[tid] = added
    if removed:
        result.steps_removed[tid] = removed
    common_a = [p for p in a_order if p in b_order]
    common_b = [p for p in b_order if p in a_order]
    if common_a != common_b:
        result.steps_reordered[tid] = {"old": common_a, "new": common_b}
    ta, tb = old.track(tid), new.track(tid)
    result.text_changed += _field_changes("track", tid, ta, tb, ("names", "aliases", "description", "resolutions"))
    old_steps = {renamed.get(s.post, s.post): s for s in ta.steps}
    step_fields = ("note", "level", "after", "external_prerequisites")
    for step in (s for s in tb.steps if s.post in old_steps):
        result.text_changed += _field_changes("step", f"{tid}/{step.post}", old_steps[step.post], step, step_fields)


def diff_catalogs(old: Catalog, new: Catalog) -> CatalogDiff:
    """Compare two loaded catalogs. Pure; never raises for valid catalogs."""
    result = CatalogDiff(old.version, new.version)
    old_ids = {p.id for p in old.posts}
    new_ids = {p.id for p in new.posts}
    renamed = {
        alias: post.id for post in new.posts for alias in post.aliases if alias in old_ids and alias not in new_ids
    }
    result.posts_renamed = sorted(renamed.items())
    result.posts_removed = sorted(old_ids - new_ids - set(renamed))
    result.posts_added = sorted(new_ids - old_ids - set(renamed.values()))
    post_fields = ("title", "url", "summary", "tags", "authors", "published", "type")
    for post in new.posts:
        before_id = next((o for o, n in renamed.items() if n == post.id), post.id)
        if before_id in old_ids:
            result.text_changed += _field_changes("post", post.id, old.post(before_id), post, post_fields)
    old_tracks = {t.id for t in old.tracks}
    new_tracks = {t.id for t in new.tracks}
    result.tracks_added = sorted(new_tracks - old_tracks)
    result.tracks_removed = sorted(old_tracks - new_tracks)
    for tid in sorted(old_tracks & new_tracks):
        _diff_track(result, old, new, tid, renamed)
    return result


def resolve_catalog_ref(ref: str, repo: Path | None = None, tmp: Path | None = None) -> Path:
    """A catalog folder for ``ref``: a folder as is, else a catalog version (``2026.11.0``: the
    newest commit declaring it) or git revision (``REV`` means ``REV:catalog``) extracted with
    ``git archive``. Raises ``ValueError`` when ``ref`` is none of these.
    """
    if (path := Path(ref)).is_dir():
        return path
    cwd = repo or Path.cwd()
    if CALVER_RE.match(ref):
        ref = _commit_of_version(ref, cwd)
    rev, _, sub = ref.partition(":")
    sub = sub or "catalog"
    try:
        top = Path(_git(cwd, "rev-parse", "--show-toplevel").strip())
        data = _git(top, "archive", "--format=tar", rev, sub, text=False)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        if isinstance(detail, bytes):
            detail = detail.decode(errors="replace")
        raise ValueError(
            f"{ref!r} is neither a catalog folder nor a git revision with {sub}/ ({detail.strip() or exc})"
        ) from exc
    target = Path(tmp or tempfile.mkdtemp(prefix="vllm-path-catalog-"))
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(target, filter="data")
    return target / sub


def _git(cwd: Path, *args: str, text: bool = True) -> Any:
    """``git ARGS``' stdout in ``cwd``; raises as ``subprocess.run(check=True)`` does."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=text).stdout


def _commit_of_version(version: str, cwd: Path) -> str:
    """The newest commit whose ``catalog/manifest.yaml`` declares ``version``, else ``version``."""
    try:
        for commit in _git(cwd, "log", "--format=%H", "--", "catalog/manifest.yaml").split():
            text = _git(cwd, "show", f"{commit}:catalog/manifest.yaml")
            if re.search(rf"^version:\s*['\"]?{re.escape(version)}['\"]?\s*$", text, re.MULTILINE):
                return str(commit)
    except (subprocess.CalledProcessError, FileNotFoundError):
        pass
    return version


def diff_refs(old_ref: str, new_ref: str) -> CatalogDiff:
    """Load both sides (:func:`resolve_catalog_ref`, without the version-history rules) and diff
    them. Raises ``ValueError`` or ``CatalogError`` when a side cannot be loaded."""
    with tempfile.TemporaryDirectory(prefix="vllm-path-diff-") as tmp:
        a = resolve_catalog_ref(old_ref, tmp=Path(tmp) / "old")
        b = resolve_catalog_ref(new_ref, tmp=Path(tmp) / "new")
        return diff_catalogs(load_catalog(a, check_versions=False), load_catalog(b, check_versions=False))
