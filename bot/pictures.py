"""Draw a track's path (:func:`bot.domain.picture.path_graph`) as PNG or SVG with Graphviz.

I/O: runs Graphviz's ``dot`` (the Debian package ``graphviz``) through the ``graphviz`` PyPI
package. :class:`PictureError` when ``dot`` is missing or fails, or the format is unknown.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from bot.domain.catalog import Catalog
from bot.domain.picture import PathGraph, path_graph

FORMATS = ("png", "svg")
_FILL = {"essential": "#dbeafe", "further": "#f3f4f6", "track": "#fef3c7"}


class PictureError(RuntimeError):
    """The picture could not be drawn (``dot`` missing or failing, unknown format)."""


def to_dot(graph: PathGraph) -> object:
    """A ``graphviz.Digraph`` of ``graph``: essential steps top to bottom, further reading beside
    them (dashed), prerequisite tracks above (dotted); read steps ticked and green-bordered."""
    import graphviz

    dot = graphviz.Digraph(graph.track_id, graph_attr={
        "rankdir": "TB", "label": graph.title, "labelloc": "t", "fontname": "Helvetica",
        "fontsize": "16", "nodesep": "0.3", "ranksep": "0.35"},
        node_attr={"shape": "box", "style": "rounded,filled", "fontname": "Helvetica", "fontsize": "10"})
    for node in graph.nodes:
        mark = "" if node.read is None else ("✓ " if node.read else "○ ")
        label = "\n".join([mark + node.label[0], *node.label[1:]])
        attrs = {"fillcolor": _FILL[node.kind]}
        if node.kind == "track":
            attrs["shape"] = "folder"
        if node.read:
            attrs.update(color="#16a34a", penwidth="2")
        if not node.linked:
            attrs["style"] = "rounded,filled,dashed"
        dot.node(node.id, label, **attrs)
    last_anchor = None
    for src, dst, kind in graph.edges:
        if kind == "path":
            dot.edge(src, dst, weight="10")
        elif kind == "further":  # one dashed link per essential step its further reading follows
            if src != last_anchor:
                dot.edge(src, dst, style="dashed", color="#9ca3af", constraint="false")
            last_anchor = src
        else:
            dot.edge(src, dst, style="dotted")
    further = [n.id for n in graph.nodes if n.kind == "further"]
    for a, b in zip(further, further[1:]):  # further reading in a column beside the path
        dot.edge(a, b, color="#d1d5db", arrowsize="0.5")
    return dot


def render(catalog: Catalog, track_id: str, fmt: str, read: Collection[str] | None = None,
           lang: str = "en") -> bytes:
    """The picture of ``track_id`` as ``fmt`` (``png`` or ``svg``) bytes; ``read`` marks a
    reader's progress. Raises ``KeyError`` (unknown track) or :class:`PictureError`."""
    if fmt not in FORMATS:
        raise PictureError(f"unknown picture format {fmt!r}: use one of {', '.join(FORMATS)}")
    import graphviz

    try:
        return bytes(to_dot(path_graph(catalog, track_id, read, lang)).pipe(format=fmt))  # type: ignore[attr-defined]
    except graphviz.ExecutableNotFound as exc:
        raise PictureError("Graphviz's dot is not installed (apt-get install -y graphviz)") from exc
    except graphviz.CalledProcessError as exc:
        raise PictureError(f"dot failed: {exc}") from exc


def write(catalog: Catalog, track_id: str, out: Path, read: Collection[str] | None = None,
          lang: str = "en") -> Path:
    """Write the picture to ``out`` (format from its suffix, ``.png`` or ``.svg``); returns the
    absolute path written. Raises as :func:`render`."""
    fmt = out.suffix.lower().lstrip(".")
    data = render(catalog, track_id, fmt, read, lang)
    out.write_bytes(data)
    return out.resolve()
