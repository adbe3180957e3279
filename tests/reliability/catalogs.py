"""Editing a copy of the catalog the way a maintainer would: a new version, a renamed post (its
old id kept as an alias), a broken edit."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from bot.config import DEFAULT_CATALOG_DIR


def copy_catalog(dest: Path) -> Path:
    """A copy of the repo's catalog at ``dest`` (returned)."""
    shutil.copytree(DEFAULT_CATALOG_DIR, dest)
    return dest


def bump_version(root: Path, version: str, note: str = "Test edit.") -> None:
    """Set the manifest's version and add its CHANGELOG entry (what `catalog check` wants)."""
    manifest = root / "manifest.yaml"
    data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    data["version"] = version
    manifest.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    changelog = root / "CHANGELOG.md"
    text = changelog.read_text(encoding="utf-8")
    head, sep, rest = text.partition("\n## ")
    dated = f"{version[:4]}-{version[5:7]}-01"  # the first day of the version's month
    changelog.write_text(f"{head}\n## {version} — {dated}\n\n{note}\n{sep}{rest}", encoding="utf-8")


def rename_post(root: Path, old: str, new: str, title: str | None = None) -> None:
    """Give post ``old`` the id ``new`` (``old`` becomes an alias) and update every track that
    names it; optionally a new title."""
    for path in sorted((root / "posts").glob("*.yaml")):
        posts = yaml.safe_load(path.read_text(encoding="utf-8"))
        changed = False
        for post in posts:
            if post["id"] == old:
                post["id"] = new
                post["aliases"] = [*post.get("aliases", []), old]
                if title:
                    post["title"] = title
                changed = True
        if changed:
            path.write_text(yaml.safe_dump(posts, allow_unicode=True, sort_keys=False), encoding="utf-8")
    for path in sorted((root / "tracks").glob("*.yaml")):
        track = yaml.safe_load(path.read_text(encoding="utf-8"))
        changed = False
        for step in track["steps"]:
            if step["post"] == old:
                step["post"], changed = new, True
            if old in step.get("after", []):
                step["after"] = [new if a == old else a for a in step["after"]]
                changed = True
        for res in track.get("resolutions", []):
            if old in res.get("steps", []):
                res["steps"] = [new if a == old else a for a in res["steps"]]
                changed = True
        if changed:
            path.write_text(yaml.safe_dump(track, allow_unicode=True, sort_keys=False), encoding="utf-8")


BROKEN_STEP = "no-such-post-for-the-test"


def break_catalog(root: Path, track: str = "spec") -> str:
    """Make ``track``'s first step name a post that does not exist (an error the checker names by
    file, entry and field). Returns the file name the error will mention."""
    path = root / "tracks" / f"{track}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["steps"][0]["post"] = BROKEN_STEP
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return f"tracks/{track}.yaml"
