"""One depth-first search for a cycle, for ``after`` (between steps) and ``before`` (tracks)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


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
