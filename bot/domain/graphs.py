"""One depth-first search for a cycle, for ``after`` (between steps) and ``before`` (tracks)."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def first_cycle(graph: Mapping[str, Iterable[str]], nodes: Iterable[str]) -> list[str] | None:
    """The first cycle met searching from ``nodes`` in sorted order, following ``graph``'s edges
    (node -> the nodes it points to), as ``[a, b, …, a]`` in edge direction; ``None`` when there
    is none. Edges to nodes missing from ``graph`` lead nowhere."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(nodes):
        if node not in state and (found := visit(node)):
            return found
    return None


def ordered(
    nodes: Iterable[str], before: Mapping[str, Iterable[str]], key: Callable[[str], tuple[Any, ...]]
) -> list[str]:
    """``nodes`` in an order that puts each after every node of its ``before`` (Kahn's algorithm),
    the lowest ``key`` first among those ready (a key ends with the node, so keys differ). Nodes on
    a cycle, and those after them, are left out: compare the length to find one."""
    nodes = list(nodes)
    waiting = {n: 0 for n in nodes}
    followers: dict[str, list[str]] = {n: [] for n in nodes}
    for n in nodes:
        for ref in set(before.get(n, ())):
            waiting[n] += 1
            followers[ref].append(n)
    ready = [(key(n), n) for n, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    out: list[str] = []
    while ready:
        _, n = heapq.heappop(ready)
        out.append(n)
        for nxt in followers[n]:
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                heapq.heappush(ready, (key(nxt), nxt))
    return out
