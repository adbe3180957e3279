"""Reading time of a post, counted from its own text. Pure. The rule (also in ``catalog/README.md``):

* the body after the front matter (``---`` … ``---``) at :data:`WORDS_PER_MINUTE` words a minute,
  rounded up, at least 1;
* a word is a whitespace-separated token with a letter or digit (``|`` or ``=>`` alone are not);
* fenced code (``````` or ``~~~``) counts half; inline code like prose;
* HTML tags and comments, ``<script>``/``<style>`` contents, Liquid (``{% %}``, ``{{ }}``) and URLs
  count nothing; image alt text, link text and table cells count as prose (pipes and the
  ``---|---`` row do not);
* a Han, Kana or Hangul character counts half a word (460 characters a minute); CJK punctuation
  and full-width forms count nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

WORDS_PER_MINUTE = 230
"""Reading speed, words per minute (prose)."""

CODE_WEIGHT = 0.5
"""What one word inside a fenced code block counts, in words."""

CJK_WEIGHT = 0.5
"""What one CJK character (Han, Kana, Hangul) counts, in words."""

RULE = (
    f"{WORDS_PER_MINUTE} words a minute, rounded up, at least 1; fenced code counts half; HTML tags, "
    "Liquid tags and URLs count nothing; image alt text, link text and table cells count as prose; "
    "a CJK character counts half a word"
)
"""The counting rule in one line (for reports and the catalog README)."""

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n.*?^---[ \t]*\r?$\n?", re.DOTALL | re.MULTILINE)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SCRIPT = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_LIQUID = re.compile(r"\{%.*?%\}|\{\{.*?\}\}", re.DOTALL)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_REF_DEF = re.compile(r"^[ \t]*\[[^\]]+\]:[ \t]*\S+.*$", re.MULTILINE)
_ANGLE_URL = re.compile(r"<(?:https?|ftp)://[^>\s]*>")
_BARE_URL = re.compile(r"(?:https?|ftp)://\S+")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$", re.MULTILINE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u3000-\u303f\uff00-\uffef]")
_CJK_COUNTED = re.compile(r"[\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WORDLIKE = re.compile(r"[^\W_]")


@dataclass(frozen=True)
class WordCount:
    """Words outside fenced code (``prose``), inside it (``code``), and CJK characters anywhere."""

    prose: int
    code: int
    cjk: int

    @property
    def weighted(self) -> float:
        """``prose + CODE_WEIGHT * code + CJK_WEIGHT * cjk``, in words."""
        return self.prose + CODE_WEIGHT * self.code + CJK_WEIGHT * self.cjk

    @property
    def minutes(self) -> int:
        """Whole minutes at :data:`WORDS_PER_MINUTE`, rounded up, at least 1."""
        return max(1, math.ceil(self.weighted / WORDS_PER_MINUTE))


def body_of(file_text: str) -> str:
    """A post file's text without the front matter it starts with (the first two ``---`` lines)."""
    text = file_text.lstrip("\ufeff")
    match = _FRONT_MATTER.match(text)
    return text[match.end() :] if match else text


def _split_code(body: str) -> tuple[str, str]:
    """``(prose, code)``: the lines outside and inside fenced code (an unclosed fence runs to the end)."""
    prose: list[str] = []
    code: list[str] = []
    fence: str | None = None
    for line in body.splitlines():
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                continue
            prose.append(line)
        elif (
            match
            and match.group(1)[0] == fence[0]
            and len(match.group(1)) >= len(fence)
            and not line.strip()[len(match.group(1)) :].strip()
        ):
            fence = None
        else:
            code.append(line)
    return "\n".join(prose), "\n".join(code)


def _strip_markup(text: str) -> str:
    """Prose with HTML, Liquid, URLs, image/link targets and table rules removed."""
    for regex in (_COMMENT, _SCRIPT, _LIQUID, _ANGLE_URL, _TAG):
        text = regex.sub(" ", text)
    text = _LINK.sub(r" \1 ", _IMAGE.sub(r" \1 ", text))  # image alt text, link text
    for regex in (_REF_DEF, _BARE_URL, _TABLE_RULE):
        text = regex.sub(" ", text)
    return text.replace("|", " ")


def _count_tokens(text: str) -> tuple[int, int]:
    """``(words, CJK characters)`` of a text whose markup is already removed."""
    words = sum(1 for token in _CJK.sub(" ", text).split() if _WORDLIKE.search(token))
    return words, len(_CJK_COUNTED.findall(text))


def count_words(body: str) -> WordCount:
    """The :class:`WordCount` of a post body (Markdown with HTML, after :func:`body_of`). Never raises."""
    prose_text, code_text = _split_code(body)
    prose, cjk_prose = _count_tokens(_strip_markup(prose_text))
    code, cjk_code = _count_tokens(code_text)
    return WordCount(prose=prose, code=code, cjk=cjk_prose + cjk_code)


def reading_minutes(body: str) -> int:
    """Whole minutes to read a post body (after :func:`body_of`), at least 1."""
    return count_words(body).minutes


def file_minutes(file_text: str) -> int:
    """Whole minutes to read a post file, front matter removed, at least 1."""
    return reading_minutes(body_of(file_text))
