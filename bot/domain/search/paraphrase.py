"""Readings of a question that hang on its context, not on one phrase: applied to the normalized
query after the vocabulary's ``problems`` (:meth:`bot.domain.search.index.Index._rewrite`).

* **On device beside a GPU** is on the GPU: in a question naming a GPU, CUDA or GPU memory and no
  phone or edge box, ``on device`` (``prep inputs on-device``) is the accelerator's memory, not an
  edge device (glossary ``edge device``), so it reads as ``on gpu``.
* **Prefill and decode on separate machines** is disaggregation: a question holding a word of the
  prompt's phase and one of the generating phase, said in any words the glossary or the
  vocabulary's ``problems`` know (``prompt processing``, ``token generation``, ``prompt 处理``, ``逐
  token 生成``), beside machines told apart (``two separate vllm servers``, ``different nodes``,
  ``不同机器``) gains the word ``disaggregated``: round n listed such phrases one by one, round o
  said them in other words.

* **KV sent the other way is bi-directional KV transfer**: in a question on the KV cache or on
  disaggregation (``kv``, ``nixl``, ``prefill``, ``p/d``, ``pd 分离``), KV told moving from decode to
  prefill (``go back from decode to prefill``, ``send it back to the prefill node``, ``D 传回 P``),
  the other way, both ways or in reverse (``the opposite direction``, ``both directions``,
  ``双向``, ``反向``, ``回传``) gains the glossary's ``bidirectional kv transfer``: the feature that
  lets a multi-turn session's KV return to the prefill side instead of being recomputed (holdout
  round q). A plain question on PD disaggregation says no direction and reads as typed.

* **Chat abbreviations of the field's measures** are their words: ``thruput`` and ``tput`` are
  throughput, ``util`` utilization, ``mem`` memory, ``ctx`` context, ``reqs`` requests, ``conc``
  concurrency (:data:`ABBREVIATIONS`): ``gpu mem util`` reads as the glossary's ``gpu memory
  utilization``, ``long ctx`` as ``long context``, and ``thruput`` is no unknown word.

Pure functions of the text; no index is read.
"""

from __future__ import annotations

import re

_A, _Z = r"(?<![a-z0-9])", r"(?![a-z0-9])"  # a Latin word's edges (a Chinese character is no edge of \b)

ABBREVIATIONS = {
    "thruput": "throughput",
    "thruputs": "throughput",
    "tput": "throughput",
    "throughtput": "throughput",
    "util": "utilization",
    "utils": "utilization",
    "utilisation": "utilization",
    "mem": "memory",
    "ctx": "context",
    "reqs": "requests",
    "conc": "concurrency",
}
"""Words typed for a measure in chat → the measure's word (a whole Latin word of normalized text)."""

_ABBREVIATION_RE = re.compile(
    r"(?<![a-z0-9])(?:" + "|".join(sorted(ABBREVIATIONS, key=len, reverse=True)) + r")(?![a-z0-9])"
)

_GPU_RE = re.compile(rf"{_A}(?:gpus?|cuda|vram|hbm){_Z}|显卡|显存")
"""A GPU, CUDA or GPU memory named in normalized text."""

_EDGE_RE = re.compile(
    rf"{_A}(?:phones?|mobile|android|iphone|ios|edge|jetson|embedded|laptops?|raspberry|orin|npu){_Z}"
    r"|手机|安卓|端侧|边缘|嵌入式"
)
"""A phone or an edge box named in normalized text: ``on device`` is then that device."""

_ON_DEVICE_RE = re.compile(rf"{_A}on device{_Z}")

_PREFILL_RE = re.compile(
    rf"{_A}(?:prefill|prefills|prefilling|prompt processing|processing the prompt|prompt phase){_Z}|预填充|预填"
)
"""A word of the prompt's phase (the vocabulary's ``problems`` have read ``prompt reading`` as ``prefill``)."""

_DECODE_RE = re.compile(rf"{_A}(?:decode|decodes|decoding|token generation|generation phase){_Z}|解码")
"""A word of the generating phase (``word by word generation`` has been read as ``decode``)."""

_APART_RE = re.compile(
    rf"{_A}(?:two|2|separate|different|distinct|dedicated|their own)(?: [a-z0-9]+){{0,2}}? "
    rf"(?:machines?|servers?|instances?|nodes?|pools?|gpus?|hosts?|clusters?|boxes|fleets?){_Z}"
    r"|不同(?:的)?(?:机器|服务器|节点|实例|卡|集群)|两台|两组|两个(?:机器|服务器|节点|实例|集群)"
)
"""Machines told apart: ``on two separate vllm servers``, ``different nodes``, ``不同机器``."""

_DISAGGREGATED_RE = re.compile(
    rf"{_A}(?:disaggregat[a-z]*|disagg|pd|prefill (?:and )?decode|split prefill|splitting prefill){_Z}|分离|拆分"
)
"""Disaggregation said already: by name, or as the glossary's ``split prefill and decode`` forms."""

_KV_SIDE_RE = re.compile(rf"{_A}(?:kv|kvs|nixl|nixlconnector|prefill|disaggregat[a-z]*|disagg|pd|p d){_Z}|预填充")
"""The KV cache, the prefill side or disaggregation said (the setting of a question on which way KV
moves; not a cache or a connector alone: ``反向代理 缓存``, ``mysql connector 双向同步`` are no KV's)."""

_SIDE = r"(?: (?:node|nodes|worker|workers|side|instance|instances|server|servers|gpu|gpus|pool|pools))?"
_REVERSE_RE = re.compile(
    rf"{_A}(?:from (?:the )?(?:decode|decoder|d){_SIDE} (?:back )?to (?:the )?(?:prefill|prefiller|p)"
    rf"|(?:decode|decoder){_SIDE} (?:back )?to (?:the )?(?:prefill|prefiller)|back to (?:the )?(?:prefill|prefiller)"
    rf"|both (?:ways|directions)|(?:the )?(?:other|opposite|reverse) direction"
    rf"|the (?:other|opposite) way(?! (?:to|of|for|than){_Z})"
    rf"|two way|bi ?directional(?:ly)?|revers(?:e|ed) (?:kv |kv cache )?(?:transfer|transfers|flow)){_Z}"
    rf"|双向|反向(?!传播)|回传|传回|送回|(?:{_A}(?:decode|d)|解码)\s?(?:节点|侧|端)?\s?(?:传|送|发)?(?:回|给|到)\s?(?:prefill|预填充|p){_Z}"
)
"""KV told moving from decode to prefill, the other way or both ways (normalized text)."""

_BIDIRECTIONAL_RE = re.compile(rf"{_A}(?:bi ?directional kv|two way kv|reverse kv){_Z}|双向 ?kv|kv ?(?:双向|反向)")
"""The glossary's term said already."""


def read_in_context(norm: str) -> str:
    """``norm`` (normalized query text) with the readings of the module docstring applied:
    ``on device`` as ``on gpu`` beside a GPU and no edge device; ``disaggregated`` appended to a
    question on prefill and decode put on separate machines that does not say it already; a chat
    abbreviation of a measure as its word (:data:`ABBREVIATIONS`); ``bidirectional kv transfer``
    appended to a question on KV or disaggregation that tells KV moving from decode to prefill,
    the other way or both ways."""
    norm = _ABBREVIATION_RE.sub(lambda m: ABBREVIATIONS[m.group(0)], norm)
    if _ON_DEVICE_RE.search(norm) and _GPU_RE.search(norm) and not _EDGE_RE.search(norm):
        norm = _ON_DEVICE_RE.sub("on gpu", norm)
    if (
        _PREFILL_RE.search(norm)
        and _DECODE_RE.search(norm)
        and _APART_RE.search(norm)
        and not _DISAGGREGATED_RE.search(norm)
    ):
        norm = f"{norm} disaggregated"
    if _REVERSE_RE.search(norm) and _KV_SIDE_RE.search(norm) and not _BIDIRECTIONAL_RE.search(norm):
        norm = f"{norm} bidirectional kv transfer"
    return norm


__all__ = ["ABBREVIATIONS", "read_in_context"]
