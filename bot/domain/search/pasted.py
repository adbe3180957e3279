"""Pasted code in a chat message: the message's own words are read before it.

A help-channel message often pastes a config, a launch command or a log in a fenced block
(```` ``` … ``` ````) before it asks its question (``every turn recomputes the history ``` kv_transfer_config:
{…} ``` can the KV go back from decode to prefill?``). Search reads at most
:data:`~bot.domain.search.results.MAX_QUERY_CHARS` characters of a normalized query, so a long paste
could push the question itself past the cut (holdout round q, 2026-12-07). :func:`words_first` moves
each closed fenced block after the message's words: the question as told is read first and the
paste's words (flag names, config keys) fill what is left. Inline code (one backtick: ```
`VLLM_USE_V2_MODEL_RUNNER=1` ```) is part of the sentence and stays in place; an unclosed fence, or
a message that is only code, is read as typed.

A pure function of the text; no index is read.
"""

from __future__ import annotations

import re

_FENCE_RE = re.compile(r"```(.*?)```", re.DOTALL)
"""A closed fenced code block (Slack's triple backticks), its content as group 1."""


def words_first(text: str) -> str:
    """``text`` (a raw query, Slack markup and all) with each closed ```` ``` ```` block moved after
    the words around it, each block's content kept in its fences in the order pasted; ``text``
    itself when it holds no closed block or no words outside one."""
    if "```" not in text:
        return text
    blocks = [m.group(0) for m in _FENCE_RE.finditer(text)]
    if not blocks:
        return text
    words = _FENCE_RE.sub(" ", text)
    if not words.strip():
        return text
    return " ".join([words.strip(), *blocks])


__all__ = ["words_first"]
