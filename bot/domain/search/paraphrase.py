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


def read_in_context(norm: str) -> str:
    """``norm`` (normalized query text) with the readings of the module docstring applied:
    ``on device`` as ``on gpu`` beside a GPU and no edge device; ``disaggregated`` appended to a
    question on prefill and decode put on separate machines that does not say it already; a chat
    abbreviation of a measure as its word (:data:`ABBREVIATIONS`)."""
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
    return norm


__all__ = ["ABBREVIATIONS", "read_in_context"]
