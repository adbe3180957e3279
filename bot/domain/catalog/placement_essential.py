"""Whether a new post becomes an essential step of a track or further reading: a small logistic
model that :class:`bot.domain.catalog.placement.Placer` fits on its own catalog's steps (so a
placer built with ``leave_out`` has never seen the left-out post, its step nor its flag). Pure.

Three features, each read the same way for a catalog step (its track without it) and for a new
post (:func:`features`): the share of the track's other steps published before it (a path's
essentials are mostly its older, foundational posts), the share of its most similar steps'
similarity that is on essential steps, and whether the track is the post's best-scoring one of
all tracks (a post is essential mostly in its home track; in a second track it is mostly further
reading). ``benchmarks/placement.py`` (leave-one-out over catalog 2026.12.17, feed text / no
texts / title only), position within one step of the curated one: 0.567 / 0.535 / 0.478 before,
with the model, :data:`~bot.domain.catalog.placement.SINGLE_LEVELS` and markup-free bodies 0.586 /
0.573 / 0.516.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

L2 = 1.0
"""The ridge penalty on every weight but the intercept (a hundred-odd rows, three features)."""
ITERATIONS = 25
"""Newton steps of the fit (it converges in well under ten)."""


def features(before: float, similar: float, home: bool) -> tuple[float, ...]:
    """The model's inputs: an intercept, ``before`` (share of the track's other steps published
    before the post, 0..1), ``similar`` (:func:`essential_share` of its most similar steps) and
    ``home`` (the track is the post's best-scoring one)."""
    return (1.0, before, similar, 1.0 if home else 0.0)


def essential_share(sims: Iterable[tuple[float, bool]]) -> float:
    """The share of the positive cosines in ``sims`` (cosine, that step is essential) that fall on
    essential steps; 0.5 when none is positive (no evidence either way)."""
    total = essential = 0.0
    for sim, is_essential in sims:
        if sim > 0:
            total += sim
            essential += sim if is_essential else 0.0
    return essential / total if total > 0 else 0.5


@dataclass(frozen=True)
class EssentialModel:
    """Logistic weights over :func:`features`; with no weights (too few steps to fit) every post
    gets ``prior``, the share of essential steps seen."""

    weights: tuple[float, ...] = ()
    prior: float = 0.5

    def probability(self, row: Sequence[float]) -> float:
        """The chance a post with these :func:`features` is an essential step."""
        if not self.weights:
            return self.prior
        return _sigmoid(sum(w * x for w, x in zip(self.weights, row, strict=True)))


def fit(rows: Sequence[Sequence[float]], labels: Sequence[bool]) -> EssentialModel:
    """Fit an :class:`EssentialModel` to ``rows`` of :func:`features` and whether each step is
    essential (ridge-penalised Newton steps, :data:`L2`, :data:`ITERATIONS`); fewer than ten rows
    or a single class give the bare share."""
    share = sum(labels) / len(labels) if labels else 0.5
    if len(rows) < 10 or share in (0.0, 1.0):
        return EssentialModel(prior=share)
    size = len(rows[0])
    weights = [0.0] * size
    for _ in range(ITERATIONS):
        grad = [L2 * w if i else 0.0 for i, w in enumerate(weights)]
        hess = [[L2 if i == j and i else 0.0 for j in range(size)] for i in range(size)]
        for row, label in zip(rows, labels, strict=True):
            p = _sigmoid(sum(w * x for w, x in zip(weights, row, strict=True)))
            for i in range(size):
                grad[i] += (p - label) * row[i]
                for j in range(size):
                    hess[i][j] += p * (1 - p) * row[i] * row[j]
        step = _solve(hess, grad)
        weights = [w - s for w, s in zip(weights, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return EssentialModel(tuple(weights), share)


def cross_cosines(
    queries: Mapping[str, Mapping[str, float]], docs: Mapping[str, Mapping[str, float]]
) -> dict[str, dict[str, float]]:
    """Cosines of every query vector with every doc vector (both unit length), through an
    inverted index of the docs over the queries' terms: query id -> doc id -> cosine (pairs
    sharing no term left out). Summed in the mappings' order, so the same on every run (a set's
    order changes with the hash seed, and a float sum with its order)."""
    wanted = {t for q in queries.values() for t in q}
    postings: dict[str, list[tuple[str, float]]] = {}
    for did, doc in docs.items():
        for term, value in doc.items():
            if term in wanted:
                postings.setdefault(term, []).append((did, value))
    out: dict[str, dict[str, float]] = {}
    for qid, query in queries.items():
        acc: dict[str, float] = {}
        for term, value in query.items():
            for did, weight in postings.get(term, ()):
                acc[did] = acc.get(did, 0.0) + value * weight
        out[qid] = acc
    return out


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``x`` with ``a x = b`` (Gaussian elimination with partial pivoting; ``a`` is small and,
    ridge-penalised, positive definite)."""
    n = len(b)
    m = [[*row, rhs] for row, rhs in zip(a, b, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            return [0.0] * n
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x
