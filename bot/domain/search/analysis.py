"""Text analysis for search (pure functions over ``str``): normalisation, the stemmer, index terms,
CJK bigrams and segmentation."""

from __future__ import annotations

import functools
import itertools
import operator
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from bot.domain.text import TRADITIONAL, fold, fold_accents

_CJK = "\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")

_SUFFIXES = (  # by family, the longer forms first: the first that fits wins
    *("izations", "isations", "ization", "isation", "ations", "ation", "ators", "ator"),
    *("ities", "ity", "ives", "ive", "ings", "ing", "ions", "ion"),
    *("ized", "ised", "izes", "ises", "ize", "ise", "ated", "ates", "ate", "ers", "er", "ed"),
)
_SUFFIXES_BY_LAST: dict[str, tuple[str, ...]] = {}
for _suffix in _SUFFIXES:  # the same priority order, looked up by the word's last letter
    _SUFFIXES_BY_LAST[_suffix[-1]] = (*_SUFFIXES_BY_LAST.get(_suffix[-1], ()), _suffix)
del _suffix


_NUMBER_FORMAT_RE = re.compile(r"(?<![\w-])(fp|int|uint|bf|nvfp|mxfp)-(\d{1,2})(?![\w-])", re.IGNORECASE)
"""A number format written with a hyphen (``fp-8``, ``INT-4``, ``nvfp-4``): read joined, as the
posts write it (``fp8``; QA round 10: ``fp-8`` found nothing)."""


def _join_formats(text: str) -> str:
    """``text`` with each number format written with a hyphen joined (:data:`_NUMBER_FORMAT_RE`)."""
    return _NUMBER_FORMAT_RE.sub(r"\1\2", text) if "-" in text else text


def normalize(text: str) -> str:
    """The preprocessing of every query and indexed text: :func:`bot.domain.text.fold`, then only
    runs of letters/digits and runs of CJK characters are kept, joined by one space (``""`` when
    none is left): punctuation, symbols, emoji and underscores separate words. Traditional
    characters of ``TRADITIONAL`` are read as Simplified; a number format with a hyphen is joined
    (:data:`_NUMBER_FORMAT_RE`)."""
    if not text:
        return ""
    text = _join_formats(text)
    return " ".join(_TOKEN_RE.findall(fold(text).translate(TRADITIONAL)))


def _normalize_text(text: str) -> str:
    """:func:`normalize` for catalog text (titles): no Slack markup to decode, so it skips that."""
    text = _join_formats(text)
    if text.isascii():  # NFKC and casefold are lower() here; words are [a-z0-9]+
        return " ".join(_ASCII_WORD_RE.findall(text.lower()))
    return " ".join(_TOKEN_RE.findall(_fold_text(text)))


_PARTS_RE = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")

_FULLWIDTH_PUNCT_RE = re.compile("[\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff5e]")
"""Full-width ASCII punctuation (``，：（）！``): read as a space before NFKC, so that most Chinese
text is already NFKC-normal and the quick check skips the full pass."""


def _fold_text(text: str) -> str:
    """:func:`bot.domain.text.fold` for catalog text (no Slack markup): the same words and CJK runs."""
    folded = unicodedata.normalize("NFKC", _FULLWIDTH_PUNCT_RE.sub(" ", text)).casefold()
    return fold_accents(folded).translate(TRADITIONAL)


def _parts(text: str) -> list[tuple[str, str]]:
    """``normalize`` as ``[(cjk run, "") or ("", latin word)]``."""
    return _PARTS_RE.findall(_fold_text(text)) if text else []


_CJK_RUN_RE = re.compile(rf"[{_CJK}]+")
_WORD_RUN_RE = re.compile(rf"[^\W_{_CJK}]+")
_ASCII_WORD_RE = re.compile(r"[a-z0-9]+")
_ASCII_WORD2_RE = re.compile(r"[a-z0-9]{2,}")


def _text_terms(text: str, joins: bool, surface: set[str], cjk_runs: list[str] | None = None) -> list[str]:
    """Index terms of raw text: stems of Latin words (2+ chars) and, with ``joins``, of adjacent
    pairs; CJK bigrams. Adds the Latin words to ``surface`` and the CJK runs to ``cjk_runs``."""
    if not text:
        return []
    text = _join_formats(text)
    if text.isascii():  # NFKC and casefold are lower() here; words are [a-z0-9]+
        lowered = text.lower()
        if not joins:
            words = _ASCII_WORD2_RE.findall(lowered)
            surface.update(words)
            return list(map(stem, words))
        words = _ASCII_WORD_RE.findall(lowered)
        surface.update(words)
        out = list(map(stem, _ASCII_WORD2_RE.findall(lowered)))
        if len(words) > 1:
            out.extend(map(stem, map(operator.add, words, words[1:])))
        return out
    if not joins:  # no adjacency needed: CJK runs and words by two scans (the same maximal runs)
        norm = _fold_text(text)
        runs = _CJK_RUN_RE.findall(norm)
        words = _WORD_RUN_RE.findall(norm)
        parts = []
    else:
        parts = _parts(text)
        runs = [c for c, _ in parts if c]
        words = [w for _, w in parts if w]
    surface.update(words)
    out = list(map(stem, [w for w in words if len(w) > 1]))
    for run in runs:
        out.extend(_bigrams(run))
    if cjk_runs is not None:
        cjk_runs.extend(runs)
    if joins:  # joins of Latin words that are adjacent (no CJK run between them)
        out.extend(stem(a[1] + b[1]) for a, b in itertools.pairwise(parts) if a[1] and b[1])
    return out


def _deletes(word: str) -> set[str]:
    """The word and every string one character shorter (the symmetric-delete neighbourhood)."""
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


def _member_terms(member: str, loose: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """Terms a vocabulary entry requires (all of them): stems and CJK bigrams. A Latin word of
    the entry that is in ``loose`` (a question word: ``first`` of ``first token``, ``first token
    latency``) is required side by side with the Latin word after it (before it, when last), as
    their join (``firsttoken``): "first" and "token" anywhere in a post say nothing (HaluGate's
    "token-level" and "first decides" are no first-token latency)."""
    parts = _parts(member)
    joined: dict[int, str] = {}  # part index -> the join that stands for it
    for i, (_, latin) in enumerate(parts):
        if latin and latin in loose and len(parts) > 1:
            j = i + 1 if i + 1 < len(parts) else i - 1
            if parts[j][1] and j not in joined:
                a, b = sorted((i, j))
                joined[i] = joined[j] = stem(parts[a][1] + parts[b][1])
    terms: list[str] = []
    for i, (cjk, latin) in enumerate(parts):
        if i in joined:
            terms.append(joined[i])
        elif cjk:
            terms.extend(_bigrams(cjk))
        elif len(latin) >= 2:
            terms.append(stem(latin))
    return tuple(dict.fromkeys(terms))


_COUNTED_NAME_RE = re.compile(r"(?:\d+x)?([a-z]+\d+[a-z0-9]*?)s?")
"""A name with digits, a count before it or a plural after it: ``8xh100``, ``a100s``, ``mi300xs``."""


IRREGULAR_VERBS = {
    "rewrote": "rewrite",
    "rewritten": "rewrite",
    "wrote": "write",
    "written": "write",
    "built": "build",
    "rebuilt": "rebuild",
    "ran": "run",
    "hung": "hang",
    "froze": "freeze",
    "frozen": "freeze",
    "broke": "break",
    "broken": "break",
    "chose": "choose",
    "chosen": "choose",
    "fell": "fall",
    "fallen": "fall",
    "grew": "grow",
    "grown": "grow",
    "spent": "spend",
    "sped": "speed",
    "taught": "teach",
    "thrown": "throw",
    "threw": "throw",
}
"""Past forms of irregular verbs read as the verb (``rewrote`` as ``rewrite``, ``hung`` as ``hang``),
which no suffix of :func:`stem` undoes (holdout round o: ``someone rewrote that part`` of the post on
a rewrite)."""


KEPT_WHOLE = frozenset({"internals"})
"""Words :func:`stem` leaves whole: a plural noun whose singular is another word (``internals``, the
engine's inner workings and a track's name, is no ``internal`` of ``an internal api``: holdout round o)."""


def stem(word: str) -> str:
    """A light suffix stemmer for normalized Latin words: one suffix (``-ization``, ``-ing``, ``-s``
    …) when 3+ letters remain (``-ing`` with an ``-iz``/``-is`` before it: ``denoising``,
    ``denoises`` and ``denoise`` → ``deno``), then a final ``e`` (``decoding``/``decode`` → ``decod``,
    ``quantized`` → ``quant``). A word with digits keeps its letters; a hardware or model name drops
    a count before it and a plural ``s`` after it (``8xh100`` → ``h100``, ``a100s`` → ``a100``,
    ``mi300xs`` → ``mi300x``); an irregular verb's past form is the verb's (:data:`IRREGULAR_VERBS`);
    a word of :data:`KEPT_WHOLE` is kept whole."""
    if word in KEPT_WHOLE:
        return word
    word = IRREGULAR_VERBS.get(word, word)
    if not word.isalpha():
        match = _COUNTED_NAME_RE.fullmatch(word)
        return match.group(1) if match is not None else word
    if len(word) < 4:
        return word
    for suffix in _SUFFIXES_BY_LAST.get(word[-1], ()):
        if word.endswith(suffix) and len(word) - len(suffix) >= (4 if suffix == "ed" else 3):
            word = word[: -len(suffix)]
            if suffix in ("ing", "ings") and word.endswith(("iz", "is")) and len(word) >= 5:
                word = word[:-2]  # the -ize/-ise verb's own stem: denoising as denoise(s), quantizing as quantized
            break
    else:
        if word.endswith(("ches", "shes", "xes", "sses")) and len(word) > 5:
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "is")):
            word = word[:-1]
    if len(word) >= 5 and word.endswith("e"):
        word = word[:-1]
    return word


ENGLISH_WORDS_FILE = Path(__file__).with_name("data") / "english-words.txt"


@functools.cache
def english_words() -> frozenset[str]:
    """Everyday English words (lower case, ASCII letters; SCOWL's American list of size 50, see
    ``data/README.md``), read once: a catalog word among them (``engine``, ``sleep``) does not make
    a question on-topic alone, and a query word among them is never typo-corrected (``hard`` is
    no misspelt ``hardware``). About 64,000 words, 10 ms to read."""
    return frozenset(ENGLISH_WORDS_FILE.read_text(encoding="ascii").split())


def swapped(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with two neighbouring letters swapped (``eagel`` / ``eagle``)."""
    if len(a) != len(b) or a == b:
        return False
    i = next(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
    return i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]


_CJK_RANGES = tuple((ord(a), ord(b)) for a, b in re.findall(r"(.)-(.)", _CJK))
"""The code point ranges of :data:`_CJK` (inclusive pairs)."""


def _cjk_char(char: str) -> bool:
    """Whether the one character ``char`` is in :data:`_CJK` (no pattern: compiling a CJK class
    costs ~2 ms of a cold start)."""
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _CJK_RANGES)


def _latin_word_char(char: str) -> bool:
    """Whether ``char`` is what ``[^\\W_{_CJK}]`` matches: a word character of ``re`` (``isalnum``),
    neither ``_`` nor CJK (a Latin, Greek, Cyrillic... letter or a digit)."""
    return char.isalnum() and not _cjk_char(char)


class PhraseFinder:
    """Finds whole phrases in normalized text as ``re.finditer`` of ``(?<!E)(?:p1|p2|…)(?!E)`` does,
    ``E`` a Latin word character (:func:`_latin_word_char`) and the phrases tried longest first: left
    to right, non-overlapping, a phrase not inside a Latin word (inside a CJK run it may be).

    Why not that pattern: compiling it (226 phrases and two CJK-excluding classes) took ~16 ms, and a
    kept index is unpickled by compiling its patterns again: a cold ``search`` paid it every run.
    Building this takes a sort and a dict; finding costs a dict lookup per character of the text."""

    __slots__ = ("_by_first",)

    def __init__(self, phrases: Iterable[str]) -> None:
        by_first: dict[str, list[str]] = {}
        for phrase in sorted({p for p in phrases if p}, key=len, reverse=True):
            by_first.setdefault(phrase[0], []).append(phrase)
        self._by_first = {first: tuple(found) for first, found in by_first.items()}

    def __bool__(self) -> bool:
        return bool(self._by_first)

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """``[(start, end, phrase)]`` of every phrase found in ``text``, in order (offsets into ``text``)."""
        out: list[tuple[int, int, str]] = []
        by_first = self._by_first
        i, n = 0, len(text)
        while i < n:
            found = by_first.get(text[i])
            if found and not (i and _latin_word_char(text[i - 1])):
                for phrase in found:
                    end = i + len(phrase)
                    if text.startswith(phrase, i) and not (end < n and _latin_word_char(text[end])):
                        out.append((i, end, phrase))
                        i = end
                        break
                else:
                    i += 1
                continue
            i += 1
        return out


def one_han_apart(a: str, b: str, min_chars: int = 4) -> bool:
    """Whether ``a`` and ``b`` (spaces ignored, ``min_chars`` or more) differ in exactly one place,
    a CJK character in both: a Chinese name typed by sound (``推侧解码`` for ``推测解码``)."""
    a, b = a.replace(" ", ""), b.replace(" ", "")
    if len(a) != len(b) or len(a) < min_chars:
        return False
    diffs = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return len(diffs) == 1 and _cjk_char(diffs[0][0]) and _cjk_char(diffs[0][1])


def _bigrams(run: str) -> list[str]:
    return [run] if len(run) == 1 else list(map(operator.add, run, run[1:]))


def _cjk_segment(run: str, dictionary: frozenset[str], max_len: int, firsts: frozenset[str]) -> list[tuple[str, bool]]:
    """Forward maximum matching: ``[(piece, is_dictionary_word)]``, left-over characters grouped
    into chunks; ``firsts``: first characters of the 2+ character words (others skip longer tries)."""
    out: list[tuple[str, bool]] = []
    chunk = ""
    i = 0
    while i < len(run):
        longest = min(max_len, len(run) - i) if run[i] in firsts else 1
        n = next((n for n in range(longest, 0, -1) if run[i : i + n] in dictionary), 0)
        if not n:
            chunk += run[i]
            i += 1
            continue
        if chunk:
            out.append((chunk, False))
            chunk = ""
        out.append((run[i : i + n], True))
        i += n
    if chunk:
        out.append((chunk, False))
    return out


class _Concept(NamedTuple):
    """A query concept: its weight and alternatives."""

    weight: float
    alternatives: tuple[tuple[tuple[str, ...], float], ...]  # (conjunctive terms, similarity)


class _Unit(NamedTuple):
    """A query/name word after segmentation: Latin word, CJK dictionary word or CJK chunk."""

    text: str
    kind: str  # "latin" | "cjkword" | "cjkchunk"
    group: int | None = None  # synonym group covering it
    sense: str | None = None  # the sense of the glossary form covering it ("specific", "shared", "everyday")
    track: str | None = None  # the track that teaches that form
    start: int = -1  # the index of the form's first unit (one form: one term)


def _unit_key(unit: _Unit) -> str:
    return stem(unit.text) if unit.kind == "latin" else unit.text


def _joins(units: list[_Unit], i: int) -> list[str]:
    """``units[i]``'s Latin word joined with the Latin word before it, then with the one after; a
    number followed by a number, also with a ``v`` before it: a version typed without its ``v``
    (``vllm 0.6`` as the title's ``v0.6.0``, ``deepseek 3.2`` as ``V3.2``)."""
    text = units[i].text
    out = [
        text + units[j].text if j > i else units[j].text + text
        for j in (i - 1, i + 1)
        if 0 <= j < len(units) and units[j].kind == "latin"
    ]
    if text.isdigit() and i + 1 < len(units) and units[i + 1].text.isdigit():
        out.append(f"v{text}{units[i + 1].text}")
    return out
