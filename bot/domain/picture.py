"""A track's path as a graph, pure: what :mod:`bot.pictures` draws with Graphviz. The essential
steps form a chain, each further step hangs off the essential step it follows, and the ``before``
tracks point at the first step."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from bot.domain import paths
from bot.domain.catalog import Catalog

NodeKind = Literal["essential", "further", "track"]
MAX_TITLE = 48
"""Characters of a post title in a node label (cut with an ellipsis)."""


@dataclass(frozen=True)
class Node:
    """One box: ``id`` (a post id, or ``track__<id>``: no slug has ``_``), its label lines, its kind,
    ``read`` (``None`` when drawn for nobody), whether the post has a link, and the fields below."""

    id: str
    label: tuple[str, ...]
    kind: NodeKind
    read: bool | None = None
    linked: bool = True
    url: str | None = None
    """Where the box leads: the post's reading link (the blog's archive for a post without one);
    ``None`` for a track."""
    next: bool = False
    """The step to read next: the reader's, or the first essential step when drawn for nobody."""
    tooltip: str = ""
    """The full title (the label may cut it)."""


@dataclass(frozen=True)
class PathGraph:
    """A track's picture: nodes, and edges ``(from id, to id, "path" | "further" | "before")``."""

    track_id: str
    title: str
    nodes: tuple[Node, ...]
    edges: tuple[tuple[str, str, str], ...]


def cut_title(text: str, most: int = MAX_TITLE) -> str:
    """``text`` when at most ``most`` characters, else cut at a word boundary with room for ``…``
    (mid-word only when no space leaves half of it, as in a Chinese title), trailing punctuation
    dropped."""
    if len(text) <= most:
        return text
    head = text[: most - 1]
    if text[most - 1] != " ":  # the cut falls inside a word: go back to its start
        space = head.rfind(" ")
        if space >= most // 2:
            head = head[:space]
    return head.rstrip(" ,;:-–—(/") + "…"


def path_graph(
    catalog: Catalog,
    track_id: str,
    read: Collection[str] | None = None,
    lang: str = "en",
    words: tuple[str, str] = ("{n} min", "no link yet"),
) -> PathGraph:
    """The :class:`PathGraph` of ``track_id`` with a reader's ``read`` posts and next step marked
    (drawn for nobody, ``read`` ``None``: the first essential step is next); ``words``: a post's
    minutes (``{n}``) and "no link yet" in ``lang`` (the caller's strings). ``KeyError``: unknown."""
    track = catalog.track(track_id)
    done = None if read is None else {catalog.resolve_post_id(p) or p for p in read}
    ess = paths.essentials(catalog, track_id)
    if done is None:
        next_id = ess[0] if ess else None
    else:
        step = paths.next_step(catalog, track_id, done)
        next_id = step.post if step else None
    nodes: list[Node] = []
    edges: list[tuple[str, str, str]] = []

    def post_node(pid: str, n: int, kind: NodeKind) -> Node:
        post = catalog.post(pid)
        estimate = "" if post.minutes_source == "counted" else "~"
        minutes = "" if post.minutes is None else estimate + words[0].format(n=post.minutes)
        extra = [x for x in (minutes, "" if post.url else words[1]) if x]
        title = f"{n}. {cut_title(post.title)}"
        label = (title, " · ".join(extra)) if extra else (title,)
        read_mark = None if done is None else pid in done
        url, _kind = post.read_link(catalog.manifest)
        return Node(pid, label, kind, read_mark, post.url is not None, url, pid == next_id, post.title)

    for before in track.before:
        if catalog.has_track(before):
            nodes.append(Node(f"track__{before}", (catalog.track(before).names.get(lang),), "track"))
            if ess:
                edges.append((f"track__{before}", ess[0], "before"))
    for i, pid in enumerate(ess):
        nodes.append(post_node(pid, i + 1, "essential"))
        if i:
            edges.append((ess[i - 1], pid, "path"))
    order = catalog.order(track_id)
    for j, pid in enumerate(paths.further(catalog, track_id)):
        nodes.append(post_node(pid, len(ess) + j + 1, "further"))
        at = order.index(pid)
        anchor = next((e for e in reversed(ess) if order.index(e) < at), ess[-1] if ess else None)
        if anchor is not None:
            edges.append((anchor, pid, "further"))
    return PathGraph(track_id, track.names.get(lang), tuple(nodes), tuple(edges))
