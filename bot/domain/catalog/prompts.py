"""Reading clubs' discussion prompts (issue 44): ``catalog/prompts.yaml`` maps a post id to a
question for a channel to talk over once its digest brings that step, in our own words, English
and Chinese. Optional as a file; once it is there, ``catalog check`` asks one of every essential
step of every track and refuses an id that is no current post."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.domain.catalog.issues import CatalogIssue
from bot.domain.catalog.models import Post, Track

PROMPTS_FILE = "prompts.yaml"
PROMPT_MAX = 500
"""Characters of one prompt in one language (a thread reply's section holds 3000)."""


class Prompt(BaseModel):
    """A discussion prompt: ``en`` and ``zh``, each 1..:data:`PROMPT_MAX` characters."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # as the catalog's models

    en: str = Field(min_length=1, max_length=PROMPT_MAX)
    zh: str = Field(min_length=1, max_length=PROMPT_MAX)

    def get(self, lang: str) -> str:
        """The prompt in ``lang`` (``zh``; anything else: English)."""
        return self.zh if lang == "zh" else self.en


def read_prompts(
    root: Path,
    posts: Sequence[tuple[Any, Post]],
    tracks: Sequence[tuple[Any, Track]],
    read_yaml: Callable[[Path, str, list[CatalogIssue]], Any],
    issues: list[CatalogIssue],
) -> Mapping[str, Prompt]:
    """``{post id: Prompt}`` of ``root/prompts.yaml`` (empty when absent; ``read_yaml``: the loader's
    reader; a former id of a renamed post names the post); an error in ``issues`` for an entry that
    does not validate, an id that is no post, and each essential step of ``tracks`` without a prompt."""
    path = root / PROMPTS_FILE
    if not path.is_file() or (data := read_yaml(path, PROMPTS_FILE, issues)) is None:
        return {}
    if not isinstance(data, dict):
        issues.append(CatalogIssue(PROMPTS_FILE, "-", "-", "expected a mapping of post id to {en, zh}"))
        return {}
    known = {p.id for _, p in posts}
    former = {alias: p.id for _, p in posts for alias in p.aliases}  # a renamed post keeps its prompt
    out: dict[str, Prompt] = {}
    for pid, raw in data.items():
        entry = f"prompt '{pid}'"
        current = str(pid) if pid in known else former.get(str(pid))
        if current is None:
            issues.append(CatalogIssue(PROMPTS_FILE, entry, "-", f"unknown post id {pid!r}"))
            continue
        try:
            out[current] = Prompt.model_validate(raw)
        except ValidationError as exc:
            issues.extend(
                CatalogIssue(PROMPTS_FILE, entry, ".".join(map(str, e["loc"])) or "-", e["msg"]) for e in exc.errors()
            )
    for _, track in tracks:
        for pid in track.essentials:
            if pid not in out and pid in known:
                what = f"track '{track.id}' step '{pid}'"
                issues.append(CatalogIssue(PROMPTS_FILE, what, "-", "an essential step has no discussion prompt"))
    return out
