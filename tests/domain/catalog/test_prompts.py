"""Issue 44: the reading clubs' discussion prompts (``catalog/prompts.yaml``) are loaded with the
catalog, and ``catalog check`` asks one of every essential step, in English and Chinese, and
refuses an id that is no post."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain import paths
from bot.domain.catalog.loader import check_catalog, load_catalog


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    shutil.copytree(DEFAULT_CATALOG_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _prompt_errors(root: Path) -> list[str]:
    _, issues = check_catalog(root)
    return [str(i) for i in issues if i.file == "prompts.yaml" and i.severity == "error"]


def test_every_essential_step_of_every_track_has_a_prompt_in_both_languages() -> None:
    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    for track in catalog.tracks:
        for pid in paths.essentials(catalog, track.id):
            prompt = catalog.prompt(pid)
            assert prompt is not None, (track.id, pid)
            assert prompt.get("en") != prompt.get("zh")
            assert any("\u4e00" <= ch <= "\u9fff" for ch in prompt.get("zh")), pid


def test_a_missing_prompt_an_unknown_id_and_a_missing_language_are_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    data = yaml.safe_load((root / "prompts.yaml").read_text(encoding="utf-8"))
    del data["spec-decode"]
    data["no-such-post"] = {"en": "A question?", "zh": "一个问题？"}
    data["p-eagle"] = {"en": "Only English?"}
    (root / "prompts.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    errors = _prompt_errors(root)
    assert any("step 'spec-decode'" in e and "no discussion prompt" in e for e in errors), errors
    assert any("unknown post id 'no-such-post'" in e for e in errors), errors
    assert any("prompt 'p-eagle'" in e and "zh" in e for e in errors), errors
    assert check_catalog(root)[0] is None


def test_the_shipped_prompts_pass_and_a_catalog_without_the_file_loads(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    assert _prompt_errors(root) == []
    (root / "prompts.yaml").unlink()
    catalog, _ = check_catalog(root)
    assert catalog is not None and catalog.prompt("spec-decode") is None


def test_catalog_export_carries_the_prompts() -> None:
    from bot.domain.catalog.export import export_catalog

    catalog = load_catalog(DEFAULT_CATALOG_DIR)
    exported = export_catalog(catalog)["prompts"]
    assert exported["spec-decode"] == {"en": catalog.prompt("spec-decode").en, "zh": catalog.prompt("spec-decode").zh}
    assert len(exported) == len(catalog.prompts)
