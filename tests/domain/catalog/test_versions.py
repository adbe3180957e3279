"""CalVer compared as numbers; `catalog check` refuses a version that goes back or a changelog
date before its version's month; warns for posts without a URL; refuses a draft's
``status`` in posts/."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
import yaml

from bot.domain.catalog import check_catalog
from bot.domain.catalog.versions import (
    calver_key,
    changelog_entries,
    newest_version,
    version_problems,
)
from tests.domain.catalog.helpers import catalog_copy, run_cli


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    return catalog_copy(tmp_path / "catalog")


def set_version(root: Path, version: str) -> None:
    manifest = root / "manifest.yaml"
    manifest.write_text(
        re.sub(r"^version: \S+", f"version: {version}", manifest.read_text(encoding="utf-8"), flags=re.MULTILINE),
        encoding="utf-8",
    )


def add_entry(root: Path, heading: str) -> None:
    changelog = root / "CHANGELOG.md"
    head, sep, rest = changelog.read_text(encoding="utf-8").partition("\n## ")
    changelog.write_text(f"{head}\n## {heading}\n\nTest.\n{sep}{rest}", encoding="utf-8")


def current(root: Path) -> str:
    return str(yaml.safe_load((root / "manifest.yaml").read_text(encoding="utf-8"))["version"])


def bump(version: str, by: int = 1) -> str:
    year, month, micro = version.split(".")
    return f"{year}.{month}.{int(micro) + by}"


def errors(root: Path) -> list[str]:
    cat, issues = check_catalog(root)
    found = [str(i) for i in issues if i.severity == "error"]
    assert (cat is None) == bool(found)
    return found


def test_calver_sorts_as_numbers():
    assert newest_version(["2026.12.9", "2026.12.10"]) == "2026.12.10"
    assert newest_version(["2026.12.10", "2026.12.9"]) == "2026.12.10"
    assert sorted(["2027.01.0", "2026.12.10", "2026.12.9", "2026.02.0"], key=calver_key) == [
        "2026.02.0",
        "2026.12.9",
        "2026.12.10",
        "2027.01.0",
    ]
    assert newest_version([]) is None
    # Not CalVer (store tests use v1, v2): sorts before CalVer, by text.
    assert newest_version(["v2", "2026.01.0", "v1"]) == "2026.01.0"
    assert newest_version(["v1", "v2"]) == "v2"


def test_changelog_entries_read_version_date_and_line():
    text = "# Changelog\n\n## 2026.12.10 — 2026-12-03\n\nx\n\n## 2026.12.9 — 2026-13-01\n\n## 2026.11.0\n"
    entries = changelog_entries(text)
    assert [(e.version, e.date, e.line) for e in entries] == [
        ("2026.12.10", dt.date(2026, 12, 3), 3),
        ("2026.12.9", None, 7),
        ("2026.11.0", None, 9),
    ]


def test_version_problems_pure():
    entries = changelog_entries("## 2026.12.10 — 2026-12-02\n## 2026.12.9 — 2026-12-01\n")
    assert version_problems("2026.12.10", entries) == []
    back = version_problems("2026.12.9", entries)
    assert [(e, f, s) for e, f, _, s in back] == [("version 2026.12.9", "version", "error")]
    assert "2026.12.10" in back[0][2]


def test_the_copy_passes_and_counts_urlless_posts_as_warnings(copy: Path):
    cat, issues = check_catalog(copy)
    assert cat is not None, [str(i) for i in issues if i.severity == "error"]
    no_url = [p.id for p in cat.posts if p.url is None]
    assert no_url  # the seed posts newer than the blog snapshot
    url_warnings = [i for i in issues if i.severity == "warning" and i.field == "url" and i.entry != "-"]
    assert sorted(i.entry for i in url_warnings) == sorted(f"post '{p}'" for p in no_url)
    assert all(i.file == "posts/vllm-blog.yaml" for i in url_warnings)
    result = run_cli("catalog", "check", str(copy))
    assert result.returncode == 0, result.stderr
    assert f"{len(no_url)} post(s) without a URL" in result.stdout


def test_version_set_back_is_refused_naming_file_and_field(copy: Path):
    newest = current(copy)
    set_version(copy, "2026.11.0")  # an older version that has a changelog entry
    found = errors(copy)
    assert any(e.startswith("manifest.yaml: version 2026.11.0: version:") and newest in e for e in found), found
    result = run_cli("catalog", "check", str(copy))
    assert result.returncode == 1
    assert "manifest.yaml: version 2026.11.0: version:" in result.stderr


def test_version_equal_to_previous_entry_is_refused(copy: Path):
    version = current(copy)
    add_entry(copy, f"{version} — 2026-12-28")  # a second entry for the same version
    found = errors(copy)
    assert any(e.startswith(f"manifest.yaml: version {version}: version:") for e in found), found


def test_greater_version_is_accepted_and_numeric(copy: Path):
    nine, ten = "2026.12.98", "2026.12.100"  # above the catalog's own; 100 > 98 only as numbers
    assert calver_key(current(copy)) < calver_key(nine)
    add_entry(copy, f"{nine} — 2026-12-05")
    set_version(copy, nine)
    assert errors(copy) == []
    add_entry(copy, f"{ten} — 2026-12-06")
    set_version(copy, ten)
    assert errors(copy) == []  # 100 > 98 as numbers (as text it would be "less")
    set_version(copy, nine)
    assert any(f"manifest.yaml: version {nine}: version:" in e and ten in e for e in errors(copy))


def test_changelog_date_before_the_versions_month_is_refused(copy: Path):
    add_entry(copy, "2027.01.0 — 2026-12-31")
    set_version(copy, "2027.01.0")
    found = errors(copy)
    assert any(e.startswith("CHANGELOG.md: version 2027.01.0: date:") and "2026-12-31" in e for e in found), found


def test_entries_out_of_order_are_refused(copy: Path):
    changelog = copy / "CHANGELOG.md"
    changelog.write_text(
        changelog.read_text(encoding="utf-8") + "\n## 2026.12.5 — 2026-12-05\n\nLate.\n", encoding="utf-8"
    )
    found = errors(copy)
    assert any(e.startswith("CHANGELOG.md: version 2026.12.5: heading:") for e in found), found


def test_a_draft_in_posts_is_refused_naming_file_entry_and_field(copy: Path):
    """Drafts live in drafts/ beside the catalog (never loaded); a ``status`` in a posts file, as
    the importer once wrote into posts/drafts.yaml, is an unknown field."""
    (copy / "posts" / "extra.yaml").write_text(
        yaml.safe_dump(
            [
                {
                    "id": "a-new-post",
                    "title": "A New Post",
                    "url": "/2026/12/01/a-new-post.html",
                    "published": "2026-12-01",
                    "source": {"kind": "vllm-blog"},
                    "summary": {"en": "A summary."},
                    "status": "draft",
                }
            ],
            sort_keys=False,
        ),
        encoding="utf-8",
    )
    found = errors(copy)
    assert [e for e in found if "a-new-post" in e] == [
        "posts/extra.yaml: post 'a-new-post': status: Extra inputs are not permitted"
    ]
    result = run_cli("catalog", "check", str(copy))
    assert result.returncode == 1
    assert "status: Extra inputs are not permitted" in result.stderr


def test_a_published_post_still_needs_a_summary(copy: Path):
    (copy / "posts" / "extra.yaml").write_text(
        yaml.safe_dump(
            [{"id": "a-new-post", "title": "A New Post", "published": "2026-12-01", "source": {"kind": "vllm-blog"}}],
            sort_keys=False,
        ),
        encoding="utf-8",
    )
    assert any(e.startswith("posts/extra.yaml: post 'a-new-post': summary:") for e in errors(copy))


def test_diff_still_reads_a_version_dated_before_the_rule(copy: Path, tmp_path: Path):
    from bot.domain.catalog.diff import diff_refs

    old = catalog_copy(tmp_path / "old")
    version = current(old)
    changelog = old / "CHANGELOG.md"
    text = changelog.read_text(encoding="utf-8")
    changelog.write_text(
        re.sub(rf"^## {re.escape(version)} — \S+", f"## {version} — 2026-01-01", text, flags=re.MULTILINE),
        encoding="utf-8",
    )
    assert errors(old)  # refused by `catalog check` (dated before its month) ...
    add_entry(copy, f"{bump(version)} — 2026-12-30")
    set_version(copy, bump(version))
    result = diff_refs(str(old), str(copy))  # ... but `catalog diff` still reads it
    assert (result.old_version, result.new_version) == (version, bump(version))
