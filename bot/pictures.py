"""Draw a track's path (:func:`bot.domain.picture.path_graph`) as PNG or SVG with Graphviz's ``dot``,
and sign and serve the pictures' URLs."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import secrets
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from bot.domain.catalog import Catalog
from bot.domain.picture import PathGraph, path_graph
from bot.i18n import text

if TYPE_CHECKING:
    from bot.runtime import Runtime

FORMATS = ("png", "svg")
_FILL = {"essential": "#dbeafe", "further": "#f3f4f6", "track": "#fef3c7"}
READ_COLOR = "#16a34a"
"""The border of a read step (green, with a tick)."""
NEXT_COLOR = "#ea580c"
"""The border of the step to read next (orange, thick, with a ``▶``)."""


class PictureError(RuntimeError):
    """The picture could not be drawn (``dot`` missing or failing, unknown format)."""


def to_dot(graph: PathGraph) -> object:
    """A ``graphviz.Digraph`` of ``graph``: essential steps top to bottom, further reading beside
    them (dashed), prerequisite tracks above (dotted); read steps ticked and green-bordered, the next
    one marked ``▶`` with a thick orange border; each post's box links to it (SVG)."""
    import graphviz  # type: ignore[import-untyped]

    dot = graphviz.Digraph(
        graph.track_id,
        graph_attr={
            "rankdir": "TB",
            "label": graph.title,
            "labelloc": "t",
            "fontname": "Helvetica",
            "fontsize": "16",
            "nodesep": "0.3",
            "ranksep": "0.35",
        },
        node_attr={"shape": "box", "style": "rounded,filled", "fontname": "Helvetica", "fontsize": "10"},
    )
    for node in graph.nodes:
        mark = "▶ " if node.next else ("" if node.read is None else ("✓ " if node.read else "○ "))
        label = "\n".join([mark + node.label[0], *node.label[1:]])
        attrs = {"fillcolor": _FILL[node.kind]}
        if node.kind == "track":
            attrs["shape"] = "folder"
        if node.read:
            attrs.update(color=READ_COLOR, penwidth="2")
        if node.next:
            attrs.update(color=NEXT_COLOR, penwidth="3")
        if not node.linked:
            attrs["style"] = "rounded,filled,dashed"
        if node.url:  # in an SVG the box is a link to its post (a PNG ignores it)
            attrs.update(URL=node.url, target="_top", tooltip=node.tooltip or node.label[0])
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
    for a, b in itertools.pairwise(further):  # further reading in a column beside the path
        dot.edge(a, b, color="#d1d5db", arrowsize="0.5")
    return dot


def render(catalog: Catalog, track_id: str, fmt: str, read: Collection[str] | None = None, lang: str = "en") -> bytes:
    """The picture of ``track_id`` as ``fmt`` (``png`` or ``svg``) bytes; ``read`` marks a
    reader's progress. Raises ``KeyError`` (unknown track) or :class:`PictureError`."""
    if fmt not in FORMATS:
        raise PictureError(f"unknown picture format {fmt!r}: use one of {', '.join(FORMATS)}")
    import graphviz

    try:
        words = (text("page.min", lang), text("picture.no_link", lang))
        graph = path_graph(catalog, track_id, read, lang, words)
        return bytes(to_dot(graph).pipe(format=fmt))  # type: ignore[attr-defined]
    except graphviz.ExecutableNotFound as exc:
        raise PictureError("Graphviz's dot is not installed (apt-get install -y graphviz)") from exc
    except graphviz.CalledProcessError as exc:
        raise PictureError(f"dot failed: {exc}") from exc


def write(catalog: Catalog, track_id: str, out: Path, read: Collection[str] | None = None, lang: str = "en") -> Path:
    """Write the picture to ``out`` (format from its suffix); returns its absolute path. Raises as :func:`render`."""
    out.write_bytes(render(catalog, track_id, out.suffix.lower().lstrip("."), read, lang))
    return out.resolve()


# --- signed picture URLs, served by the HTTP door (bot/web/routes.py) -------------------------------

PICTURE_PREFIX = "/paths/"
"""URL path prefix of a reader's picture: ``/paths/<track>.<png|svg>?read=<ids>&sig=<hex>``."""
_PROCESS_KEY = secrets.token_bytes(32)


def _key(settings: Any) -> bytes:
    secret = getattr(settings, "picture_url_secret", None) or getattr(settings, "slack_signing_secret", None)
    if secret is not None and secret.get_secret_value():
        return hashlib.sha256(b"vllm-path picture url\0" + secret.get_secret_value().encode()).digest()
    return _PROCESS_KEY


def signature(settings: Any, name: str, read: Sequence[str]) -> str:
    """The signature (32 hex digits) of the picture ``name`` (``<track>.<fmt>``) with the posts ``read``."""
    return hmac.new(_key(settings), f"{name}?{','.join(read)}".encode(), hashlib.sha256).hexdigest()[:32]


def signed_url(settings: Any, catalog: Catalog, track_id: str, read: Collection[str], fmt: str = "png") -> str | None:
    """The reader's picture URL under ``settings.public_url`` (None when not set): the track's posts
    read (current ids, sorted; no user id) and an HMAC-SHA256 of them."""
    base = getattr(settings, "public_url", None)
    if not base:
        return None
    order = set(catalog.order(track_id))
    ids = sorted({pid for p in read if (pid := catalog.resolve_post_id(p)) and pid in order})
    query = urlencode({"read": ",".join(ids), "sig": signature(settings, f"{track_id}.{fmt}", ids)})
    return f"{base.rstrip('/')}{PICTURE_PREFIX}{quote(track_id)}.{fmt}?{query}"


def console_picture(runtime: Runtime, team: str, user: str, track_text: str, directory: Path | None = None) -> str:
    """The console's ``picture <track>``: draw the reader's path to ``<directory>/vllm-path-<track>.png``
    (default: the working directory) in the reader's language (``lang zh``: title, minutes and
    "no link yet" in Chinese); says where, or why not, in that language too."""
    from bot.domain.search import track_named

    catalog = runtime.holder.catalog
    lang = runtime.store.get_lang(team, user) or "en"
    track_id = track_named(catalog, track_text) if track_text else None
    if track_id is None:
        return text("console.picture_usage", lang).format(tracks=", ".join(t.id for t in catalog.tracks))
    out = (directory or Path.cwd()) / f"vllm-path-{track_id}.png"
    try:
        where = write(catalog, track_id, out, read=runtime.store.read_posts(team, user), lang=lang)
    except (PictureError, OSError) as exc:
        return text("console.picture_failed", lang).format(error=exc)
    return text("console.picture_saved", lang).format(track=catalog.track(track_id).names.get(lang), where=where)
