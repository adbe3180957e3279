"""Accepting a draft (:mod:`bot.domain.catalog.drafts`) into the catalog: what ``vllm-path catalog
accept`` and the review card's *Accept* both run.

A new post is appended to ``posts/vllm-blog.yaml`` (a vLLM-blog post) or ``posts/elsewhere.yaml``
and becomes a step of one track at the position asked (1-based in the track's reading order: the
step is essential when it lands inside the essential path, takes the level of the step it
displaces, comes ``after`` the step before it and, when needed, before the one it displaces) and
its ``added`` day (the version's, UTC: what "catch me up" reads); a draft that ``fills`` an unlinked
post writes that post's link, date and minutes instead (and its ``added`` day when it has none: it
can be read from this version on), its authors when it has none, and its questions from
``answers.yaml`` when the curator gives none. Either way the manifest's version
moves on (``YYYY.MM.N+1``, or ``.0`` in a new month) with a changelog entry naming the tracks whose
reading order changed (:func:`bot.domain.catalog.diff.diff_catalogs`). Every file is written
into a copy of the catalog first and the copy checked in full
(:func:`bot.domain.catalog.check_catalog`): a refused accept changes nothing.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.diff import diff_catalogs
from bot.domain.catalog.drafts import DRAFTS_DIR, Draft, draft_path, fallback_id, reserved_ids, usable_id
from bot.domain.catalog.edit import edit_fields, scalar, write_atomic
from bot.domain.catalog.issues import CatalogError
from bot.domain.catalog.loader import check_catalog, load_catalog, parse_yaml_text
from bot.domain.catalog.models import MAX_SUMMARY, QUESTIONS_EN, QUESTIONS_ZH, Post
from bot.domain.catalog.prompts import PROMPTS_FILE
from bot.domain.catalog.versions import calver_key
from bot.domain.search.vocabulary import ANSWERS_FILE

_VERSION_LINE = re.compile(r"^version:\s*(\S+)\s*$", re.MULTILINE)
_HAN = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Review:
    """A curator's decision on a draft: the ``track`` and 1-based ``position`` (``None``: the best
    suggestion's), ``essential`` (``None``: from the position), the summary (``summary_zh`` needed
    on a bilingual track), the problem questions every linked post carries (3-6 English, 2-4 Chinese)
    and the reading clubs' discussion prompt (``prompt`` and ``prompt_zh``, each at most 500
    characters: :mod:`bot.domain.catalog.prompts`), which an essential step needs."""

    track: str | None = None
    position: int | None = None
    essential: bool | None = None
    summary: str | None = None
    summary_zh: str | None = None
    questions: tuple[str, ...] = ()
    questions_zh: tuple[str, ...] = ()
    prompt: str | None = None
    prompt_zh: str | None = None


@dataclass(frozen=True)
class Accepted:
    """What an accept did: the new catalog ``version``, the ``post`` id, its ``track`` and 1-based
    ``position`` there (``None`` for a fill), the files written (relative to the catalog) and
    ``moved``: ``(track id, the post's new 1-based position)`` for each track whose reading order
    of its earlier steps changed (a linked post sorts before unlinked ones)."""

    version: str
    post: str
    track: str | None
    position: int | None
    files: tuple[str, ...]
    moved: tuple[tuple[str, int], ...] = ()


def next_version(version: str, today: dt.date) -> str:
    """The version after ``version`` released on ``today``: the next micro in the same month, else
    ``YYYY.MM.0``. ``2026.12.9`` → ``2026.12.10``."""
    year, month, micro = (int(x) for x in version.split("."))
    return f"{year}.{month:02d}.{micro + 1}" if (year, month) == (today.year, today.month) else f"{today:%Y.%m}.0"


def _post_text(draft: Draft, review: Review, url: str, today: dt.date) -> str:
    lines = [f"- id: {draft.id}", f"  title: {scalar(draft.title)}", f"  url: {scalar(url)}"]
    lines.append(f"  published: '{draft.published.isoformat()}'\n  added: '{today.isoformat()}'")
    lines.append("  authors:" + ("" if draft.authors else " []"))
    lines.extend(f"  - {scalar(a)}" for a in draft.authors)
    lines.append(f"  source:\n    kind: {draft.source.kind}")
    if draft.source.name:
        lines.append(f"    name: {scalar(draft.source.name)}")
    lines.append("  tags:" + ("" if draft.tags else " []"))
    lines.extend(f"  - {scalar(t)}" for t in draft.tags)
    lines.append(f"  summary:\n    en: {scalar(review.summary or '')}")
    if review.summary_zh:
        lines.append(f"    zh: {scalar(review.summary_zh)}")
    lines.extend(_questions(review.questions, review.questions_zh, "  "))
    lines.append(f"  minutes: {draft.minutes}\n  minutes_source: {draft.minutes_source}")
    return "\n".join(lines) + "\n"


def _questions(en: tuple[str, ...], zh: tuple[str, ...], indent: str) -> list[str]:
    out = []
    for lang, items in (("en", en), ("zh", zh)):
        if items:
            out.append(f"{indent}  {lang}:")
            out.extend(f"{indent}  - {scalar(q)}" for q in items)
    return [f"{indent}questions:", *out] if out else []


def _fill_questions(root: Path, post: Post, review: Review) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(en, zh)`` questions of a filled ``post``: the review's, else the post's, else the
    comma-separated phrases of its ``answers.yaml`` entries (one with a Han character is Chinese),
    at most :data:`QUESTIONS_EN` / :data:`QUESTIONS_ZH`'s upper bound."""
    try:
        raw = parse_yaml_text((root / ANSWERS_FILE).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        raw = None
    entries = raw.get(post.id) if isinstance(raw, dict) else None
    phrases = [p.strip() for e in entries or [] if isinstance(e, str) for p in re.split("[,，、]", e) if p.strip()]
    known_en = tuple(p for p in phrases if not _HAN.search(p))[: QUESTIONS_EN[1]]
    known_zh = tuple(p for p in phrases if _HAN.search(p))[: QUESTIONS_ZH[1]]
    return review.questions or post.questions.en or known_en, review.questions_zh or post.questions.zh or known_zh


def _step_span(text: str) -> tuple[int, int]:
    """``(end line of the steps list, its items' column)`` of a track file."""
    from ruamel.yaml import YAML

    data = YAML(typ="rt").load(text)
    keys = list(data.keys())
    at = keys.index("steps")
    lines = text.splitlines()
    end = int(data.lc.key(keys[at + 1])[0]) if at + 1 < len(keys) else len(lines)
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    return end, int(data["steps"].lc.item(0)[1]) - 2  # the column of its "- "


def _insert_step(text: str, post: str, level: str, essential: bool, after: list[str]) -> str:
    end, col = _step_span(text)
    pad = " " * col
    block = [f"{pad}- post: {post}", f"{pad}  level: {level}"]
    block += [f"{pad}  essential: true"] if essential else []
    block += [f"{pad}  after: [{', '.join(after)}]"] if after else []
    lines = text.splitlines(keepends=True)
    lines[end:end] = [line + "\n" for line in block]
    return "".join(lines)


def _add_after(text: str, step_post: str, new: str) -> str:
    """``text`` (a track file) with ``new`` added to the ``after`` of step ``step_post``."""
    from ruamel.yaml import YAML

    data = YAML(typ="rt").load(text)
    lines = text.splitlines(keepends=True)
    step = next(s for s in data["steps"] if s["post"] == step_post)
    col = int(step.lc.key("post")[1])
    if "after" in step:
        line = int(step.lc.key("after")[0])
        keys = list(step.keys())
        stop = keys.index("after") + 1
        end = int(step.lc.key(keys[stop])[0]) if stop < len(keys) else line + 1 + len(step["after"])
        end = end if "[" not in lines[line] else line + 1
        lines[line:end] = [f"{' ' * col}after: [{', '.join([*step['after'], new])}]\n"]
    else:
        line = int(step.lc.key("post")[0]) + 1
        lines[line:line] = [f"{' ' * col}after: [{new}]\n"]
    return "".join(lines)


def _moved(old: Catalog, new: Catalog, post: str) -> tuple[tuple[str, int], ...]:
    """``(track, new 1-based position of post)`` per track of ``new`` holding ``post`` whose order
    of the steps both catalogs share changed."""
    reordered = diff_catalogs(old, new).steps_reordered
    return tuple((tid, new.order(tid).index(post) + 1) for tid in sorted(reordered) if post in new.order(tid))


def _changelog(text: str, version: str, today: dt.date, line: str, moved: tuple[tuple[str, int], ...]) -> str:
    if moved:
        line += " Reading order changed: " + ", ".join(f"{tid} (now step {n})" for tid, n in moved) + "."
    entry = f"## {version} — {today.isoformat()}\n\n{line}\n\n"
    at = text.find("\n## ")
    return text + "\n" + entry if at < 0 else text[: at + 1] + entry + text[at + 1 :]


def accept(root: Path, draft_id: str, review: Review, today: dt.date | None = None) -> Accepted:
    """Accept draft ``draft_id`` of the catalog in ``root`` with ``review`` (see the module).
    Raises ``KeyError`` for an unknown draft, ``ValueError`` for a track or position the draft
    cannot take or a discussion prompt in one language only, :class:`CatalogError` (every error)
    when the catalog would not be valid."""
    today = today or dt.datetime.now(dt.UTC).date()
    path = draft_path(root, draft_id)
    draft = Draft.model_validate(parse_yaml_text(path.read_text(encoding="utf-8")))
    catalog = load_catalog(root)
    draft = _with_usable_id(catalog, draft)
    texts: dict[str, str] = {}
    base = catalog.manifest.blog_base_url
    url = draft.url.removeprefix(base) if draft.url.startswith(base + "/") else draft.url
    track_id: str | None = None
    position: int | None = None
    if draft.fills is not None:
        post = catalog.post(draft.fills)
        rel = "posts/vllm-blog.yaml" if post.source.kind == "vllm-blog" else "posts/elsewhere.yaml"
        edits = [
            (post.id, "url", [f"url: {scalar(url)}"]),
            (post.id, "published", [f"published: '{draft.published.isoformat()}'"]),
            (post.id, "minutes", [f"minutes: {draft.minutes}", f"minutes_source: {draft.minutes_source}"]),
        ]
        if post.added is None:  # readable from today: "catch me up" tells readers of it from this version
            edits.append((post.id, "added", [f"added: '{today.isoformat()}'"]))
        en, zh = _fill_questions(root, post, review)
        if (en, zh) != (post.questions.en, post.questions.zh):
            edits.append((post.id, "questions", _questions(en, zh, "")))
        if draft.authors and not post.authors:
            edits.append((post.id, "authors", ["authors:", *(f"- {scalar(a)}" for a in draft.authors)]))
        texts[rel] = edit_fields((root / rel).read_text(encoding="utf-8"), edits)
        what = f"now links {post.title!r} ({draft.feed})"
    else:
        track_id, position = _review_place(catalog, draft, review)
        order = catalog.order(track_id)
        rel = "posts/vllm-blog.yaml" if draft.source.kind == "vllm-blog" else "posts/elsewhere.yaml"
        posts_text = (root / rel).read_text(encoding="utf-8")
        texts[rel] = posts_text + ("" if posts_text.endswith("\n") else "\n") + _post_text(draft, review, url, today)
        essentials = catalog.essentials(track_id)
        essential = review.essential if review.essential is not None else position <= len(essentials)
        shown = order[position - 1] if position <= len(order) else order[-1]
        level = catalog.step(track_id, shown).level
        after = [order[position - 2]] if position > 1 else []
        track_rel = f"tracks/{track_id}.yaml"
        track_text = _insert_step((root / track_rel).read_text(encoding="utf-8"), draft.id, level, essential, after)
        if position <= len(order):
            track_text = _add_after(track_text, order[position - 1], draft.id)
        texts[track_rel] = track_text
        if review.prompt and review.prompt_zh:
            old = (root / PROMPTS_FILE).read_text(encoding="utf-8") if (root / PROMPTS_FILE).is_file() else ""
            entry = f"{draft.id}:\n  en: {scalar(review.prompt)}\n  zh: {scalar(review.prompt_zh)}\n"
            texts[PROMPTS_FILE] = old + ("" if old.endswith("\n") or not old else "\n") + entry
        what = f"added {draft.title!r} ({draft.feed}) to {track_id} at step {position}"
    version = next_version(catalog.version, today)
    if calver_key(version) <= calver_key(catalog.version):
        raise ValueError(f"cannot move version {catalog.version} on at {today.isoformat()}")
    manifest = (root / "manifest.yaml").read_text(encoding="utf-8")
    texts["manifest.yaml"] = _VERSION_LINE.sub(f"version: {version}", manifest, count=1)
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    line = f"- Accepted from the feed watch: {what} (`{draft.id}`)."
    texts["CHANGELOG.md"] = _changelog(changelog, version, today, line, ())
    moved = _moved(catalog, _check_copy(root, texts), draft.fills or draft.id)
    texts["CHANGELOG.md"] = _changelog(changelog, version, today, line, moved)  # the line's words are not checked
    for rel, text in texts.items():
        write_atomic(root / rel, text)
    path.unlink()
    return Accepted(version, draft.fills or draft.id, track_id, position, tuple(sorted(texts)), moved)


def _with_usable_id(catalog: Catalog, draft: Draft) -> Draft:
    """``draft`` under an id a new post may take (QA round 15: a draft named ``vllm`` became post
    ``vllm``, which ``read vllm`` then marked): one that is a common word alone, a track id or alias
    or a post's former id (:func:`bot.domain.catalog.drafts.usable_id`) is replaced by
    :func:`bot.domain.catalog.drafts.fallback_id` (``-2``… when taken). A fill keeps its post's id."""
    if draft.fills is not None or usable_id(draft.id, reserved_ids(catalog)):
        return draft
    base = fallback_id(draft.url, draft.published)
    candidate, n = base, 2
    while catalog.has_post(candidate):
        candidate, n = f"{base}-{n}", n + 1
    return draft.model_copy(update={"id": candidate})


def _review_place(catalog: Catalog, draft: Draft, review: Review) -> tuple[str, int]:
    """The track and 1-based position a new post's ``review`` gives it (the best suggestion's by
    default). Raises :class:`ReviewError` with every problem of the review at once (QA round 10:
    a bad ``--track`` only showed after the missing summary was given)."""
    problems: list[str] = []
    if not review.summary:
        problems.append("a new post needs its summary in our own words (English)")
    problems += language_problems(review) + summary_problems(review)
    best = draft.suggested[0] if draft.suggested else None
    track_id = review.track or (best.track if best else None)
    known = track_id is not None and catalog.has_track(track_id)
    if not known:
        tracks = ", ".join(t.id for t in catalog.tracks)
        problems.append(f"unknown track {track_id!r}: name one with --track ({tracks})")
    if bool(review.prompt) != bool(review.prompt_zh):
        need, given = ("--prompt-zh", "--prompt") if review.prompt else ("--prompt", "--prompt-zh")
        where = " on a bilingual track" if known and catalog.track(str(track_id)).bilingual else ""
        problems.append(f"{need} is required with {given}{where} (a discussion prompt has English and Chinese)")
    position = 0
    if known:
        order = catalog.order(str(track_id))
        guess = next((s.position for s in draft.suggested if s.track == track_id), len(order) + 1)
        position = review.position if review.position is not None else guess  # QA round 15: 0 or -5 too
        if not 1 <= position <= len(order) + 1:
            problems.append(f"position {position} is outside 1..{len(order) + 1} of track {track_id!r}")
    if problems:
        raise ReviewError(tuple(problems))
    return str(track_id), position


_LATIN = re.compile(r"[A-Za-z]")


def language_problems(review: Review) -> list[str]:
    """The review's summaries in the wrong language, each a sentence naming the option (QA round
    13: a Chinese text given as the English ``--summary`` was accepted): ``summary`` is English (more
    Latin letters than Chinese characters), ``summary_zh`` Chinese (some Chinese characters). The
    CLI and the Slack review modal both reach this through :func:`accept`."""
    out: list[str] = []
    if review.summary and len(_HAN.findall(review.summary)) > len(_LATIN.findall(review.summary)):
        out.append("--summary is the English summary but it is in Chinese: give that text as --summary-zh")
    if review.summary_zh and not _HAN.search(review.summary_zh):
        out.append("--summary-zh is the Chinese summary but it has no Chinese: give an English text as --summary")
    return out


_SLACK_MARKUP = re.compile(r"<(?:[!@#]|https?://|mailto:)[^>]*>")
"""Slack's markup in a text: ``<!channel>``, ``<@U…>``, ``<#C…>``, ``<https://…|…>`` (QA round 15:
written into the catalog, a summary pinged a channel or hid a link)."""


def summary_problems(review: Review) -> list[str]:
    """The review's summaries the catalog cannot take, each a sentence naming the option (QA round
    15): longer than :data:`MAX_SUMMARY` characters, or holding Slack markup (:data:`_SLACK_MARKUP`:
    a mention or a link written as Slack does). The one rule of the CLI and the review modal."""
    out: list[str] = []
    for option, text in (("--summary", review.summary), ("--summary-zh", review.summary_zh)):
        if not text:
            continue
        if len(text) > MAX_SUMMARY:
            out.append(f"{option} is {len(text):,} characters long: at most {MAX_SUMMARY} characters")
        if found := _SLACK_MARKUP.search(text):
            markup = found.group(0)[:40]
            out.append(
                f"{option} holds Slack markup ({markup}): write plain text, with no mention "
                "(<!channel>, <@user>) and no link written as <url|text>"
            )
    return out


class ReviewError(ValueError):
    """A review a draft cannot take: :attr:`issues`, every problem found, each a sentence naming the
    option that fixes it (the review modal shows each under its input); ``str()`` joins them."""

    def __init__(self, issues: tuple[str, ...]) -> None:
        super().__init__("; ".join(issues))
        self.issues = issues


def _check_copy(root: Path, texts: dict[str, str]) -> Catalog:
    """Write ``texts`` into a copy of the catalog and check it in full: the copy's catalog, else
    :class:`CatalogError` (every error)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "catalog"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(DRAFTS_DIR, "__pycache__", ".*"))
        for rel, text in texts.items():
            (copy / rel).write_text(text, encoding="utf-8")
        catalog, issues = check_catalog(copy)
        if catalog is None:
            raise CatalogError([i for i in issues if i.severity == "error"])
        return catalog
