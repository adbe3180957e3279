"""Search vocabulary as catalog data: ``catalog/vocabulary.yaml``, ``catalog/glossary.yaml`` and
``catalog/answers.yaml``.

``vocabulary.yaml`` is a mapping: ``version`` (``1``); ``stopwords``, ``question_words``,
``track_stopwords`` (lists of strings); ``blog_hosts``, ``summary_hosts`` (host names, no scheme or
path); optional ``synonyms`` (groups of 2+ distinct non-empty strings, the first canonical),
``other_names`` and ``topic_phrases`` (strings) and ``problems`` (``[phrase, topic]`` pairs).
``glossary.yaml`` (optional) is ``version: 1`` and ``terms``, a list of :class:`GlossaryTerm`
mappings (``term``, ``abbr``, ``also``, ``zh``, ``sense``, ``weak``, ``track``); each term of two
forms or more is also a synonym group. The fields: :class:`Vocabulary`. ``answers.yaml``
(optional) maps a post id to the questions and terms that post answers (non-empty strings); the
matcher ignores an id the catalog does not hold.

Errors name the file and the key (``vocabulary.yaml: synonyms[3][1]: must be a non-empty string``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bot.locations import DEFAULT_CATALOG_DIR

VOCABULARY_FILE = "vocabulary.yaml"
GLOSSARY_FILE = "glossary.yaml"
ANSWERS_FILE = "answers.yaml"
_HOST_RE = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$")
_LIST_KEYS = ("stopwords", "question_words", "track_stopwords", "blog_hosts", "summary_hosts")
_OPTIONAL_LIST_KEYS = (
    "other_names",
    "topic_phrases",
    "symptom_words",
    "platform_tracks",
    "mechanism_words",
    "launch_tracks",
    "recap_tags",
    "training_words",
    "definition_words",
    "task_words",
    "running_words",
)
_OPTIONAL_KEYS = ("problems", "synonyms", "gpu_generations", *_OPTIONAL_LIST_KEYS)
_TERM_KEYS = ("term", "abbr", "also", "zh", "sense", "weak", "track", "intro")
Sense = Literal["specific", "shared", "loose", "everyday"]
SENSES: tuple[Sense, ...] = ("specific", "shared", "loose", "everyday")


@dataclass(frozen=True)
class GlossaryTerm:
    """A term of the field (``catalog/glossary.yaml``): ``term`` its canonical English form,
    ``forms`` every form (the term, abbreviations, other English forms, Chinese names; casefolded,
    the term first); ``sense`` how much it says a question is about the catalog (``specific``: alone;
    ``shared``: a word of computing, with another field term; ``loose``: a field word whose everyday
    sense comes first, with a specific or shared term; ``everyday``: never); ``weak`` the forms that
    count as ``loose`` although the term is specific or shared; ``track`` the track that teaches it;
    ``abbr`` its abbreviations (casefolded, in ``forms`` too): each names what the term names;
    ``intro`` the id of the post that explains the term to a newcomer (a definition question,
    ``what is quantization``, leads with it: :mod:`bot.domain.search.define`)."""

    term: str
    forms: tuple[str, ...]
    sense: Sense = "specific"
    weak: frozenset[str] = frozenset()
    track: str | None = None
    abbr: tuple[str, ...] = ()
    intro: str | None = None

    def sense_of(self, form: str) -> Sense:
        """The sense of one of the term's forms (casefolded): ``loose`` for a ``weak`` one of a
        specific or shared term."""
        return "loose" if form in self.weak and self.sense in ("specific", "shared") else self.sense


class VocabularyError(ValueError):
    """A malformed vocabulary or answers file; ``errors`` lists every problem (file and key)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = list(errors)


@dataclass(frozen=True)
class Vocabulary:
    """The words search reads from the catalog folder: ``synonyms``, groups of equivalent terms
    (first = canonical; the vocabulary's own, then the glossary's); ``glossary``, the terms of the
    field (:class:`GlossaryTerm`); ``topic_phrases``, what asks about a topic as a whole (``where do
    i begin``, ``入门``); ``symptom_words``, how a measure misbehaves (``high``, ``spikes``): beside a
    field term they are no other subject (``latency too high``); ``stopwords``, words with no topic;
    ``question_words`` (``why``, ``怎么``), treated as stop words; ``track_stopwords``, ignored when
    deciding whether a query names a track (``track``, ``路径``); ``blog_hosts``/``summary_hosts``,
    hosts whose links resolve to catalog
    posts; ``answers``, post id → questions and terms the post answers; ``other_names``, other
    tools' names (``ollama``), never read as a typo; ``problems``, ``(phrase, topic)`` pairs;
    ``platform_tracks``, ids of the tracks about where vLLM runs (``hardware``): a question whose
    telling terms are all of such a track's glossary terms (``vllm on Gaudi``, ``在昇腾上部署``) is
    pointed at that track; ``mechanism_words``, words asking how something works inside
    (``implemented``, ``原理``): the essential steps of the tracks of the question's terms lead;
    ``launch_tracks``, ids of the tracks of model launches (``models``): a post of such tracks only,
    whose title names none of the question's terms, ranks lower (``显存不够`` is no question about
    GLM-4.5); ``gpu_generations``, groups of chip names of one generation, the generation's name
    first (``hopper``, ``h100``, ``h200``): a question naming one prefers the posts about its
    generation to those about another (:mod:`bot.domain.search.fit`); ``recap_tags``, tags of posts
    that recap an event or a year (``meetup``): for a question of one term they rank below the posts
    about it; ``training_words``, words asking to train or fine-tune a model (``fine tune``, ``训练``):
    such a question is about training, not serving, unless a term of a track is beside them
    (:mod:`bot.domain.search.scope`); ``definition_words``, words and phrases asking what a term is
    (``what is``, ``explained``, ``是什么``): the post introducing the term leads
    (:mod:`bot.domain.search.define`); ``task_words``, words asking for a piece of work no post is
    (a poem, a translation, a job opening): beside no telling term such a request is refused
    (:mod:`bot.domain.search.scope`); ``running_words``, words saying a model is run (``run``, ``跑``):
    beside field terms they add no other subject to the on-topic decision (:mod:`bot.domain.search.topic`)."""

    synonyms: tuple[tuple[str, ...], ...]
    stopwords: frozenset[str]
    question_words: frozenset[str]
    track_stopwords: frozenset[str]
    blog_hosts: tuple[str, ...]
    summary_hosts: tuple[str, ...]
    answers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    other_names: frozenset[str] = frozenset()
    problems: tuple[tuple[str, str], ...] = ()
    glossary: tuple[GlossaryTerm, ...] = ()
    topic_phrases: frozenset[str] = frozenset()
    symptom_words: frozenset[str] = frozenset()
    platform_tracks: frozenset[str] = frozenset()
    mechanism_words: frozenset[str] = frozenset()
    launch_tracks: frozenset[str] = frozenset()
    gpu_generations: tuple[tuple[str, ...], ...] = ()
    recap_tags: frozenset[str] = frozenset()
    training_words: frozenset[str] = frozenset()
    definition_words: frozenset[str] = frozenset()
    task_words: frozenset[str] = frozenset()
    running_words: frozenset[str] = frozenset()

    @property
    def ignorable(self) -> frozenset[str]:
        """Stop words and question words: never a match on their own."""
        return self.stopwords | self.question_words


def _strings(value: Any, where: str, errors: list[str], min_len: int = 0) -> list[str]:
    if not isinstance(value, list):
        errors.append(f"{where}: must be a list of strings")
        return []
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            errors.append(f"{where}[{i}]: must be a non-empty string (got {item!r})")
        else:
            out.append(item.strip())
    if len(out) < min_len:
        errors.append(f"{where}: needs at least {min_len} entries")
    return out


def _read(path: Path, errors: list[str]) -> Any:
    import yaml  # deferred: a cold search reads the vocabulary kept with its index (bot.domain.search.cache)

    from bot.domain.catalog.loader import parse_yaml

    try:
        return parse_yaml(path)
    except OSError as exc:
        errors.append(f"{path.name}: cannot be read ({exc.strerror})")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        errors.append(f"{path.name}: not valid YAML{where}")
    return None


def _parse_synonyms(value: Any, errors: list[str], seen: dict[str, str]) -> list[tuple[str, ...]]:
    """The synonym groups of ``vocabulary.yaml`` (problems appended to ``errors``; ``seen``: the
    casefolded terms already placed, and where)."""
    name = VOCABULARY_FILE
    if not isinstance(value, list):
        errors.append(f"{name}: synonyms: must be a list of groups (lists of strings)")
        return []
    groups: list[tuple[str, ...]] = []
    for g, group in enumerate(value):
        where = f"{name}: synonyms[{g}]"
        terms = _strings(group, where, errors, min_len=2)
        _place_forms([t.casefold() for t in terms], where, seen, errors)
        if terms:
            groups.append(tuple(terms))
    return groups


def _place_forms(folded: list[str], where: str, seen: dict[str, str], errors: list[str]) -> None:
    """Record the casefolded ``folded`` forms of one group as placed at ``where``; an error for a
    form listed twice in it or already placed in another."""
    if len(set(folded)) != len(folded):
        errors.append(f"{where}: a term is listed twice")
    for form in dict.fromkeys(folded):
        if form in seen and seen[form] != where:
            errors.append(f"{where}: {form!r} is already in {seen[form]}")
        seen.setdefault(form, where)


def _parse_term(i: int, raw: Any, seen: dict[str, str], errors: list[str]) -> GlossaryTerm | None:
    """One ``terms`` entry of ``glossary.yaml`` (problems appended to ``errors``)."""
    where = f"{GLOSSARY_FILE}: terms[{i}]"
    if not isinstance(raw, dict) or not isinstance(raw.get("term"), str) or not raw["term"].strip():
        errors.append(f"{where}: must be a mapping with a non-empty 'term'")
        return None
    errors.extend(f"{where}: {key}: unknown key" for key in sorted(set(raw) - set(_TERM_KEYS)))
    term = raw["term"].strip()
    forms = [term]
    for key in ("abbr", "also", "zh"):
        if key in raw:
            forms.extend(_strings(raw[key], f"{where}: {key}", errors))
    folded = [f.casefold() for f in forms]
    _place_forms(folded, f"{where} ({term})", seen, errors)
    sense = raw.get("sense", "specific")
    if sense not in SENSES:
        errors.append(f"{where}: sense: must be one of {', '.join(SENSES)} (got {sense!r})")
        return None
    weak = {w.casefold() for w in _strings(raw.get("weak", []), f"{where}: weak", errors)}
    errors.extend(f"{where}: weak: {w!r} is not a form of this term" for w in sorted(weak - set(folded)))
    track = raw.get("track")
    if track is not None and (not isinstance(track, str) or not track.strip()):
        errors.append(f"{where}: track: must be a track id")
        track = None
    abbr = tuple(a.casefold() for a in _strings(raw.get("abbr", []), f"{where}: abbr", []))
    intro = raw.get("intro")
    if intro is not None and (not isinstance(intro, str) or not intro.strip()):
        errors.append(f"{where}: intro: must be a post id")
        intro = None
    return GlossaryTerm(term, tuple(dict.fromkeys(folded)), sense, frozenset(weak), track, abbr, intro)


def _parse_glossary(directory: Path, seen: dict[str, str], errors: list[str]) -> tuple[GlossaryTerm, ...]:
    """The terms of ``glossary.yaml`` (none when the file is absent)."""
    path = directory / GLOSSARY_FILE
    if not path.is_file() or (raw := _read(path, errors)) is None:
        return ()
    if not isinstance(raw, dict) or not isinstance(raw.get("terms"), list):
        errors.append(f"{GLOSSARY_FILE}: must be a mapping with version: 1 and a list of terms")
        return ()
    if raw.get("version") != 1:
        errors.append(f"{GLOSSARY_FILE}: version: must be 1 (got {raw.get('version')!r})")
    errors.extend(f"{GLOSSARY_FILE}: {key}: unknown key" for key in sorted(set(raw) - {"version", "terms"}))
    terms = (_parse_term(i, entry, seen, errors) for i, entry in enumerate(raw["terms"]))
    return tuple(t for t in terms if t is not None)


def _parse_problems(value: Any, errors: list[str]) -> tuple[tuple[str, str], ...]:
    """The ``problems`` of ``vocabulary.yaml``: ``[phrase, topic]`` pairs of non-empty strings."""
    where = f"{VOCABULARY_FILE}: problems"
    if not isinstance(value, list):
        errors.append(f"{where}: must be a list of [phrase, topic] pairs")
        return ()
    out: list[tuple[str, str]] = []
    for i, pair in enumerate(value):
        terms = _strings(pair, f"{where}[{i}]", errors, min_len=2)
        if len(terms) != 2 or not isinstance(pair, list) or len(pair) != 2:
            errors.append(f"{where}[{i}]: must be a [phrase, topic] pair")
        else:
            out.append((terms[0], terms[1]))
    return tuple(out)


def _parse_generations(raw: Any, errors: list[str]) -> tuple[tuple[str, ...], ...]:
    """``gpu_generations``: groups of 2+ chip names (casefolded), no name in two groups."""
    where = f"{VOCABULARY_FILE}: gpu_generations"
    if not isinstance(raw, list):
        errors.append(f"{where}: must be a list of lists of names")
        return ()
    out: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for i, group in enumerate(raw):
        names = [n.casefold() for n in _strings(group, f"{where}[{i}]", errors, min_len=2)]
        errors.extend(f"{where}[{i}]: {n!r} is in another generation" for n in names if n in seen)
        seen.update(names)
        out.append(tuple(names))
    return tuple(out)


def _parse_lists(raw: dict[str, Any], errors: list[str]) -> dict[str, list[str]]:
    """The word and host lists of ``vocabulary.yaml`` (``other_names``, ``topic_phrases``,
    ``symptom_words`` optional)."""
    name = VOCABULARY_FILE
    lists: dict[str, list[str]] = {}
    for key in (*_LIST_KEYS, *_OPTIONAL_LIST_KEYS):
        lists[key] = _strings(raw[key], f"{name}: {key}", errors) if key in raw else []
        if key not in raw and key in _LIST_KEYS:
            errors.append(f"{name}: {key}: missing")
    for key in ("blog_hosts", "summary_hosts"):
        errors.extend(
            f"{name}: {key}[{i}]: {host!r} is not a host name (like blog.vllm.ai)"
            for i, host in enumerate(lists[key])
            if not _HOST_RE.match(host)
        )
    return lists


def _parse(directory: Path, post_ids: Collection[str] | None) -> tuple[Vocabulary | None, list[str]]:
    errors: list[str] = []
    raw = _read(directory / VOCABULARY_FILE, errors)
    name = VOCABULARY_FILE
    if errors:
        return None, errors
    if not isinstance(raw, dict):
        return None, [f"{name}: must be a mapping with the keys version, " + ", ".join(_LIST_KEYS)]
    unknown = sorted(set(raw) - {"version", "synonyms", *_LIST_KEYS, *_OPTIONAL_KEYS})
    errors.extend(f"{name}: {key}: unknown key" for key in unknown)
    if raw.get("version") != 1:
        errors.append(f"{name}: version: must be 1 (got {raw.get('version')!r})")
    seen: dict[str, str] = {}
    groups = _parse_synonyms(raw.get("synonyms", []), errors, seen)
    glossary = _parse_glossary(directory, seen, errors)
    groups.extend(t.forms for t in glossary if len(t.forms) > 1)
    lists = _parse_lists(raw, errors)
    problems = _parse_problems(raw.get("problems", []), errors)
    generations = _parse_generations(raw.get("gpu_generations", []), errors)
    answers = _parse_answers(directory, post_ids, errors)
    errors.extend(
        f"{GLOSSARY_FILE}: {t.term}: intro: no post with this id in the catalog"
        for t in glossary
        if post_ids is not None and t.intro is not None and t.intro not in post_ids
    )
    if errors:
        return None, errors

    def folded(key: str) -> frozenset[str]:
        return frozenset(w.casefold() for w in lists[key])

    return Vocabulary(
        synonyms=tuple(groups),
        stopwords=folded("stopwords"),
        question_words=folded("question_words"),
        track_stopwords=folded("track_stopwords"),
        blog_hosts=tuple(h.casefold() for h in lists["blog_hosts"]),
        summary_hosts=tuple(h.casefold() for h in lists["summary_hosts"]),
        answers=answers,
        other_names=folded("other_names"),
        problems=problems,
        glossary=glossary,
        topic_phrases=folded("topic_phrases"),
        symptom_words=folded("symptom_words"),
        platform_tracks=folded("platform_tracks"),
        mechanism_words=folded("mechanism_words"),
        launch_tracks=folded("launch_tracks"),
        gpu_generations=generations,
        recap_tags=folded("recap_tags"),
        training_words=folded("training_words"),
        definition_words=folded("definition_words"),
        task_words=folded("task_words"),
        running_words=folded("running_words"),
    ), []


def _parse_answers(directory: Path, post_ids: Collection[str] | None, errors: list[str]) -> dict[str, tuple[str, ...]]:
    path = directory / ANSWERS_FILE
    if not path.is_file() or (raw := _read(path, errors)) is None:
        return {}
    if not isinstance(raw, dict):
        errors.append(f"{ANSWERS_FILE}: must be a mapping of post id to a list of strings")
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            errors.append(f"{ANSWERS_FILE}: {key!r}: a key must be a post id")
            continue
        if post_ids is not None and key not in post_ids:
            errors.append(f"{ANSWERS_FILE}: {key}: no post with this id in the catalog")
        out[key] = tuple(_strings(value, f"{ANSWERS_FILE}: {key}", errors, min_len=1))
    return out


def load_vocabulary(directory: str | Path) -> Vocabulary:
    """Read ``vocabulary.yaml`` (required), ``glossary.yaml`` and ``answers.yaml`` (optional) from a
    catalog folder; raises :class:`VocabularyError` listing every problem."""
    vocab, errors = _parse(Path(directory), None)
    if vocab is None:
        raise VocabularyError(errors)
    return vocab


def validate(directory: str | Path, post_ids: Collection[str] | None = None) -> list[str]:
    """Every problem of the catalog folder's search vocabulary (``[]`` when valid), for ``vllm-path
    catalog check``; with ``post_ids``, an ``answers.yaml`` key naming no post is one too. Never raises."""
    return _parse(Path(directory), post_ids)[1]


@functools.cache
def default_vocabulary() -> Vocabulary:
    """The shipped catalog's vocabulary (``DEFAULT_CATALOG_DIR``), loaded once; may raise :class:`VocabularyError`."""
    return load_vocabulary(DEFAULT_CATALOG_DIR)
