"""`catalog diff` between the catalog versions (2026.11.0, 2026.12.0, the repo's), and its detection of
changes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bot.cli.main import main
from bot.domain.catalog import load_catalog
from bot.domain.catalog.diff import diff_catalogs
from tests.evaldata import REPO

V1 = REPO / "tests/fixtures/catalog-2026.11.0"
V2 = REPO / "tests/fixtures/catalog-2026.12.0"
CURRENT = REPO / "catalog"
ADDED = {"spec-decode", "speculators-parallel-drafting", "vllm-router-release"}


def test_the_two_versions():
    assert load_catalog(V1).version == "2026.11.0"
    assert len(load_catalog(V1).posts) == 104
    assert load_catalog(V2).version == "2026.12.0"
    assert len(load_catalog(V2).posts) == 107


def test_diff_between_the_two_versions_json():
    result = CliRunner().invoke(main, ["catalog", "diff", str(V1), str(V2), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["old_version"], data["new_version"]) == ("2026.11.0", "2026.12.0")
    assert set(data["posts_added"]) == ADDED
    assert data["posts_removed"] == [] and data["posts_renamed"] == []
    assert set(data["steps_added"]["spec"]) == {"spec-decode", "speculators-parallel-drafting"}
    assert data["steps_added"]["pd"] == ["vllm-router-release"]
    changed = {(c["kind"], c["id"], c["field"]) for c in data["text_changed"]}
    assert ("step", "pd/taking-vllm-apart", "external_prerequisites") in changed


def test_diff_text_output():
    result = CliRunner().invoke(main, ["catalog", "diff", str(V1), str(V2)])
    assert result.exit_code == 0
    assert "catalog 2026.11.0 -> 2026.12.0" in result.output
    assert "posts added: spec-decode, speculators-parallel-drafting, vllm-router-release" in result.output


def test_diff_by_git_revision():
    if not (REPO / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    found = subprocess.run(
        ["git", "log", "--format=%H", "--", "catalog/manifest.yaml"], cwd=REPO, capture_output=True, text=True
    )
    if found.returncode != 0 or len(found.stdout.split()) < 2:
        pytest.skip("shallow clone: the 2026.11.0 commit is not in the history")
    result = CliRunner().invoke(main, ["catalog", "diff", "2026.11.0", str(V2), "--json"])
    assert result.exit_code == 0, result.output
    assert set(json.loads(result.stdout)["posts_added"]) == ADDED


def test_diff_from_2026_12_0_to_the_repo_catalog_lists_the_whole_blog_backfill():
    """2026.12.1 added the 50 posts of the blog's 2026-08-21 snapshot the catalog lacked, and three
    tracks for groups of them; nothing was removed or renamed."""
    result = CliRunner().invoke(main, ["catalog", "diff", str(V2), str(CURRENT), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["old_version"] == "2026.12.0"
    assert len(data["posts_added"]) == 50
    assert {"vllm-pagedattention-launch", "anatomy-of-vllm", "struct-decode-intro", "extract-hidden-states"} <= set(
        data["posts_added"]
    )
    assert data["posts_removed"] == [] and data["posts_renamed"] == []
    # anatomy-of-vllm joined spec in 2026.12.1 and left it in 2026.12.5 (spec names the internals
    # track in `before` instead); extract-hidden-states stays.
    assert "extract-hidden-states" in data["steps_added"]["spec"]
    assert "anatomy-of-vllm" not in data["steps_added"]["spec"]


def test_rename_reorder_and_rewording_are_detected(tmp_path: Path):
    new = tmp_path / "catalog"
    shutil.copytree(V2, new)
    posts = new / "posts/elsewhere.yaml"
    data = yaml.safe_load(posts.read_text())
    old_id = data[0]["id"]
    data[0]["id"] = "renamed-post"
    data[0]["aliases"] = [old_id]
    data[1]["summary"]["en"] = "A freshly written summary."
    posts.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    for track_file in new.glob("tracks/*.yaml"):
        text = track_file.read_text().replace(f"post: {old_id}\n", "post: renamed-post\n")
        text = text.replace(f"{old_id}]", "renamed-post]").replace(f"{old_id},", "renamed-post,")
        track_file.write_text(text)
    quant = new / "tracks/quant.yaml"
    qd = yaml.safe_load(quant.read_text())
    for step in qd["steps"]:
        step["after"] = []
        step["level"] = "core"
    qd["steps"][-1]["level"] = "intro"
    quant.write_text(yaml.safe_dump(qd, allow_unicode=True, sort_keys=False))
    manifest = new / "manifest.yaml"
    manifest.write_text(manifest.read_text().replace("2026.12.0", "2026.12.1"))
    changelog = new / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace("## 2026.12.0", "## 2026.12.1\n\nTest.\n\n## 2026.12.0", 1))

    diff = diff_catalogs(load_catalog(V2), load_catalog(new))
    assert diff.posts_renamed == [(old_id, "renamed-post")]
    assert diff.posts_added == [] and diff.posts_removed == []
    assert "quant" in diff.steps_reordered
    assert any(c.kind == "post" and c.field == "summary" for c in diff.text_changed)
    # Progress recorded under the old id still resolves to the renamed post.
    assert load_catalog(new).resolve_post_id(old_id) == "renamed-post"
