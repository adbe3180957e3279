"""A broken catalog edit is refused with an error naming the file, the entry and the field."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from bot.cli.main import main
from bot.domain.catalog import CatalogError, check_catalog, load_catalog
from tests.evaldata import REPO

CATALOG = REPO / "catalog"


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "catalog"
    shutil.copytree(CATALOG, target)
    return target


def edit_yaml(path: Path, change) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


def check_cli(folder: Path) -> subprocess.CompletedProcess:
    """``vllm-path catalog check FOLDER`` in a subprocess: the real entry point (the unbroken copy and one
    refused catalog run so; the other refusals in process, :func:`check_in_process`: a second apiece)."""
    return subprocess.run(
        [sys.executable, "-m", "bot.cli.main", "catalog", "check", str(folder)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )


def check_in_process(folder: Path) -> Result:
    """``vllm-path catalog check FOLDER`` through click's runner in this process (exit code, stdout, stderr)."""
    return CliRunner().invoke(main, ["catalog", "check", str(folder)])


def errors_of(folder: Path) -> list[str]:
    catalog, issues = check_catalog(folder)
    assert catalog is None
    return [str(i) for i in issues if i.severity == "error"]


def assert_refused(folder: Path, file: str, entry: str, field: str) -> None:
    """Both the API and the command refuse it, naming file, entry and field."""
    wanted = f"{file}: {entry}: {field}:"
    errors = errors_of(folder)
    assert any(e.startswith(wanted) for e in errors), (wanted, errors)
    with pytest.raises(CatalogError):
        load_catalog(folder)
    result = check_in_process(folder)
    assert result.exit_code == 1
    assert wanted in result.stderr, result.stderr


def test_the_unbroken_copy_passes(copy: Path):
    assert check_cli(copy).returncode == 0


def test_duplicate_post_id(copy: Path):
    edit_yaml(copy / "posts/elsewhere.yaml", lambda d: d[1].update(id=d[0]["id"]))
    assert_refused(copy, "posts/elsewhere.yaml", "post 'redhat-vllm-vs-sglang'", "id")


def test_duplicate_title_and_url(copy: Path):
    def dup(d):
        d[1]["title"] = d[0]["title"]
        d[1]["url"] = d[0]["url"]

    edit_yaml(copy / "posts/elsewhere.yaml", dup)
    errors = errors_of(copy)
    assert any(": title: duplicate title" in e for e in errors)
    assert any(": url: duplicate url" in e for e in errors)


def test_unknown_after_reference(copy: Path):
    edit_yaml(copy / "tracks/spec.yaml", lambda d: d["steps"][2].update(after=["no-such-post"]))
    step = yaml.safe_load((copy / "tracks/spec.yaml").read_text())["steps"][2]["post"]
    assert_refused(copy, "tracks/spec.yaml", f"track 'spec' step '{step}'", "after")


def test_a_cycle(copy: Path):
    def make_cycle(d):
        steps = {s["post"]: s for s in d["steps"]}
        steps["laguna-xs2-dflash-llm-compressor"]["after"] = ["p-eagle"]

    edit_yaml(copy / "tracks/spec.yaml", make_cycle)
    errors = errors_of(copy)
    cycle = [e for e in errors if "cycle in the path" in e]
    assert cycle and cycle[0].startswith("tracks/spec.yaml: track 'spec' step '")
    assert ": after: cycle in the path: " in cycle[0]
    assert check_cli(copy).returncode == 1


def test_missing_title(copy: Path):
    edit_yaml(copy / "posts/vllm-blog.yaml", lambda d: d[3].pop("title"))
    post_id = yaml.safe_load((copy / "posts/vllm-blog.yaml").read_text())[3]["id"]
    assert_refused(copy, "posts/vllm-blog.yaml", f"post '{post_id}'", "title")


def test_malformed_url(copy: Path):
    edit_yaml(copy / "posts/vllm-blog.yaml", lambda d: d[5].update(url="htp:/not a url"))
    post_id = yaml.safe_load((copy / "posts/vllm-blog.yaml").read_text())[5]["id"]
    assert_refused(copy, "posts/vllm-blog.yaml", f"post '{post_id}'", "url")


def test_version_bumped_without_changelog(copy: Path):
    manifest = copy / "manifest.yaml"
    manifest.write_text(re.sub(r"version: \S+", "version: 2027.01.0", manifest.read_text()))
    assert_refused(copy, "CHANGELOG.md", "version 2027.01.0", "heading")


def test_bad_calver_and_unknown_field(copy: Path):
    manifest = copy / "manifest.yaml"
    manifest.write_text(re.sub(r"version: \S+", "version: v1", manifest.read_text()))
    edit_yaml(copy / "tracks/pd.yaml", lambda d: d.update(colour="blue"))
    errors = errors_of(copy)
    assert any(e.startswith("manifest.yaml: manifest: version:") for e in errors)
    assert any(e.startswith("tracks/pd.yaml: track 'pd': colour:") for e in errors)


def test_every_error_is_reported_at_once(copy: Path):
    edit_yaml(copy / "posts/vllm-blog.yaml", lambda d: (d[3].pop("title"), d[5].update(url="nope")))
    edit_yaml(copy / "tracks/spec.yaml", lambda d: d["steps"][2].update(after=["ghost"]))
    errors = errors_of(copy)
    assert len(errors) >= 3


def test_unknown_step_post_and_orphan_post(copy: Path):
    edit_yaml(copy / "tracks/quant.yaml", lambda d: d["steps"].append({"post": "not-a-post"}))
    errors = errors_of(copy)
    assert any("tracks/quant.yaml: track 'quant' step 'not-a-post': post: unknown post id" in e for e in errors)


def test_invalid_yaml_names_the_line(copy: Path):
    (copy / "tracks/rl.yaml").write_text("id: rl\nsteps: [unclosed\n", encoding="utf-8")
    errors = errors_of(copy)
    assert any(e.startswith("tracks/rl.yaml: line ") for e in errors), errors


def test_bilingual_track_needs_chinese_notes(copy: Path):
    edit_yaml(copy / "tracks/pd.yaml", lambda d: d["steps"][0]["note"].pop("zh"))
    step = yaml.safe_load((copy / "tracks/pd.yaml").read_text())["steps"][0]["post"]
    assert_refused(copy, "tracks/pd.yaml", f"track 'pd' step '{step}'", "note.zh")


def test_unresolved_soft_claim_conflict_is_a_warning_not_an_error(copy: Path):
    edit_yaml(copy / "tracks/spec.yaml", lambda d: d.update(resolutions=[]))
    catalog, issues = check_catalog(copy)
    assert catalog is not None  # still valid
    warnings = [str(i) for i in issues if i.severity == "warning"]
    assert any("unresolved" in w for w in warnings)
    result = check_cli(copy)
    assert result.returncode == 0 and "warning:" in result.stdout


def _long_name(n: int) -> str:
    """A track name of exactly ``n`` characters with escapes and marks near any cut point."""
    return ("Speculative & <structured> *decoding* at scale — " * 10)[:n]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_track_name_longer_than_the_views_can_show_is_refused(copy: Path, lang: str):
    """A 300-character name (and already a 180-character one) is refused, naming the field
    that limits it; a name at the limit passes."""
    from bot.domain.catalog.checks import TRACK_NAME_MAX

    def named(n: int):
        return lambda data: data["names"].__setitem__(lang, _long_name(n))

    edit_yaml(copy / "tracks" / "spec.yaml", named(300))
    assert_refused(copy, "tracks/spec.yaml", "track 'spec'", f"names.{lang}")
    assert "header block" in " ".join(errors_of(copy))
    edit_yaml(copy / "tracks" / "spec.yaml", named(180))
    assert any(e.startswith(f"tracks/spec.yaml: track 'spec': names.{lang}:") for e in errors_of(copy))
    edit_yaml(copy / "tracks" / "spec.yaml", named(TRACK_NAME_MAX))
    assert not [e for e in check_catalog(copy)[1] if e.severity == "error" and e.field.startswith("names")]


def test_a_post_title_longer_than_the_views_can_show_is_refused(copy: Path):
    from bot.domain.catalog.checks import POST_TITLE_MAX

    path = copy / "posts" / "vllm-blog.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    posts = data["posts"] if isinstance(data, dict) else data
    posts[0]["title"] = "T" * (POST_TITLE_MAX + 1)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    errors = errors_of(copy)
    assert any(e.startswith(f"posts/vllm-blog.yaml: post '{posts[0]['id']}': title:") for e in errors), errors


def test_the_catalog_limits_fit_the_fields_that_show_names_whole():
    """The limits are derived from Slack's fields: a name at the limit fits the digest header
    whole (en and zh wording), and name and id at their limits fit the Stop confirm text."""
    from bot.domain.catalog.checks import TRACK_ID_MAX, TRACK_NAME_MAX
    from bot.i18n import text
    from tests.standin import blockkit

    for lang in ("en", "zh"):
        header = text("digest.header", lang).replace("{track}", "")
        assert TRACK_NAME_MAX + len(header) <= blockkit.HEADER_TEXT_MAX
        confirm = text("digest.stop_confirm_text", lang).replace("{track}", "").replace("{track_id}", "")
        assert TRACK_NAME_MAX + TRACK_ID_MAX + len(confirm) <= blockkit.CONFIRM_TEXT_MAX


def test_a_duplicate_track_id_is_reported_not_a_crash(copy: Path):
    """Two track files with one id: both named as duplicates (the check used to raise KeyError
    computing the essential path of one track with the other's order)."""
    edit_yaml(copy / "tracks/quant.yaml", lambda d: d.update(id="pd"))
    assert_refused(copy, "tracks/quant.yaml", "track 'pd'", "id")
    assert any(e.startswith("tracks/pd.yaml: track 'pd': id: duplicate track id") for e in errors_of(copy))


BLANK_TITLES = {
    "bidi embeddings and overrides": "\u202a\u202b\u202c\u202d\u202e",
    "bidi isolates": "\u2066\u2067\u2068\u2069",
    "zero-width characters": "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff",
    "controls among spaces": "\u202e \u3000 \u2067\u00a0\u200b",
}


@pytest.mark.parametrize("title", BLANK_TITLES.values(), ids=BLANK_TITLES.keys())
def test_a_post_title_that_shows_nothing_is_refused(copy: Path, title: str):
    path = copy / "posts/vllm-blog.yaml"
    edit_yaml(path, lambda d: d[2].update(title=title))
    post_id = yaml.safe_load(path.read_text(encoding="utf-8"))[2]["id"]
    assert_refused(copy, "posts/vllm-blog.yaml", f"post '{post_id}'", "title")
    message = next(e for e in errors_of(copy) if e.startswith(f"posts/vllm-blog.yaml: post '{post_id}': title:"))
    assert "no visible character" in message and "would see an empty title" in message


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_track_name_that_shows_nothing_is_refused(copy: Path, lang: str):
    edit_yaml(copy / "tracks/spec.yaml", lambda d: d["names"].__setitem__(lang, "\u2067\u200b\u2069"))
    assert_refused(copy, "tracks/spec.yaml", "track 'spec'", f"names.{lang}")
    assert any("no visible character" in e for e in errors_of(copy))


def test_a_title_of_spaces_only_is_refused(copy: Path):
    edit_yaml(copy / "posts/vllm-blog.yaml", lambda d: d[2].update(title=" \u3000\u2003 "))
    post_id = yaml.safe_load((copy / "posts/vllm-blog.yaml").read_text(encoding="utf-8"))[2]["id"]
    assert_refused(copy, "posts/vllm-blog.yaml", f"post '{post_id}'", "title")


def test_bidi_marks_around_visible_text_pass(copy: Path):
    """Controls are fine where they wrap words a reader sees (a right-to-left name in a title)."""
    edit_yaml(copy / "posts/vllm-blog.yaml", lambda d: d[2].update(title="\u2067שלום\u2069 vLLM\u200b"))
    edit_yaml(copy / "tracks/spec.yaml", lambda d: d["names"].update(zh="\u200e投机解码\u200f"))
    catalog, issues = check_catalog(copy)
    assert catalog is not None, [str(i) for i in issues if i.severity == "error"]


def test_which_characters_are_visible():
    from bot.domain.catalog.checks import has_visible_character

    for blank in ("", *BLANK_TITLES.values(), "\u0301\ufe0f", "\u3164\u2800", "\t\n"):
        assert not has_visible_character(blank), repr(blank)
    for shown in ("a", "\u202eabc", "投", "\u200b.", "🙂", "\u00e9"):
        assert has_visible_character(shown), repr(shown)
