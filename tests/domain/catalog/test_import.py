"""`vllm-path catalog import SOURCE [--write] [--json]` on a feed file, a feed URL served on
127.0.0.1 and a Jekyll `_posts` folder, all made here, against a copy of the catalog.

Each source holds: a post the catalog lacks, a post whose URL fills a URL-less catalog entry, a
post with a non-ASCII title, and a malformed entry. The command prints exactly that, writes exactly
that, changes nothing the second time, and a truncated or unreachable source writes nothing.
"""

from __future__ import annotations

import difflib
import hashlib
import http.server
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest
import yaml

from bot.cli.importer import (
    DRAFTS_FILE,
    ImportSourceError,
    missing_posts,
    normalize_title,
    parse_feed,
)
from bot.domain.catalog import check_catalog, load_catalog
from tests.domain.catalog.helpers import catalog_copy, run_cli

BLOG = "https://vllm-project.github.io"
NEW_TITLE = "Elastic Expert Parallelism: Scaling MoE Serving Up and Down in vLLM"
NEW_URL = f"{BLOG}/2026/12/01/elastic-ep-scaling.html"
ZH_TITLE = "vLLM 推理加速：Überblick über Structured Decoding"
ZH_URL = f"{BLOG}/2026/12/02/structured-decoding-ueberblick.html"


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    return catalog_copy(tmp_path / "catalog")


def urlless(root: Path) -> dict:
    """The first post of the copy without a URL (raw YAML), the one the source fills."""
    posts = yaml.safe_load((root / "posts/vllm-blog.yaml").read_text(encoding="utf-8"))
    return next(p for p in posts if p.get("url") is None)


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def fill_url(post: dict) -> str:
    return f"/2026/09/10/{post['id']}.html"


def make_feed(root: Path) -> str:
    """An Atom feed as jekyll-feed writes it: the four kinds of entry (newest first)."""
    target = urlless(root)
    # The catalog's title, typed differently (case, curly quotes): matched after normalising.
    fill_title = target["title"].upper().replace("'", "’")
    entries = [
        (
            NEW_TITLE,
            NEW_URL,
            "2026-12-01T09:00:00+00:00",
            ["Ada Lovelace", "Alan Turing"],
            ["moe", "expert-parallelism"],
        ),
        (fill_title, BLOG + fill_url(target), "2026-09-10T00:00:00-07:00", ["Grace Hopper"], ["performance"]),
        (ZH_TITLE, ZH_URL, "2026-12-02T00:00:00+08:00", ["李雷"], ["structured-output"]),
    ]
    parts = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        "<title>vLLM Blog</title>",
        f'<link href="{BLOG}/feed.xml" rel="self"/>',
        "<updated>2026-12-02T00:00:00+00:00</updated>",
        f"<id>{BLOG}/feed.xml</id>",
    ]
    for title, url, date, authors, tags in entries:
        parts.append("<entry>")
        parts.append(f'<title type="html">{escape(title)}</title>')
        parts.append(f'<link href="{url}" rel="alternate" type="text/html"/>')
        parts.append(f"<published>{date}</published><updated>{date}</updated><id>{url}</id>")
        parts.extend(f"<author><name>{escape(a)}</name></author>" for a in authors)
        parts.extend(f'<category term="{t}"/>' for t in tags)
        parts.append("<summary>The blog's own summary.</summary></entry>")
    # Malformed: no link and no date.
    parts.append("<entry><title>An entry without a link</title><id>urn:x</id></entry>")
    parts.append("</feed>")
    return "\n".join(parts) + "\n"


def make_posts(tmp: Path, root: Path) -> Path:
    """A Jekyll source: ``_posts`` with the same four kinds of file."""
    target = urlless(root)
    posts = tmp / "blog" / "_posts"
    posts.mkdir(parents=True)
    (posts / "2026-12-01-elastic-ep-scaling.md").write_text(
        f'---\nlayout: post\ntitle: "{NEW_TITLE}"\nauthor: "Ada Lovelace, and Alan Turing"\n'
        "tags:\n  - moe\n  - expert-parallelism\n---\nBody.\n",
        encoding="utf-8",
    )
    (posts / f"2026-09-10-{target['id']}.md").write_text(
        f"---\ntitle: {json.dumps(target['title'])}\nauthor: Grace Hopper\ntags: performance\n---\n", encoding="utf-8"
    )
    (posts / "2026-12-02-structured-decoding-ueberblick.md").write_text(
        f'---\ntitle: "{ZH_TITLE}"\nauthor: 李雷\ntags: structured-output\n---\n', encoding="utf-8"
    )
    (posts / "2026-12-03-broken.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    (posts / "README.txt").write_text("not a post", encoding="utf-8")
    return tmp / "blog"


def imported(root: Path, source: str, *extra: str) -> dict:
    result = run_cli("catalog", "import", source, "--catalog", str(root), "--json", *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def assert_plan(data: dict, root: Path, skipped_origin: str, counted: bool = False) -> None:
    """Exactly: two new posts, three fills of the URL-less entry (four with its reading time when
    the source holds the posts' text, ``counted``), one skipped entry."""
    target = urlless(root)
    new = {p["title"]: p for p in data["new_posts"]}
    assert set(new) == {NEW_TITLE, ZH_TITLE}
    ep = new[NEW_TITLE]
    assert (ep["id"], ep["url"], ep["published"]) == (
        "elastic-ep-scaling",
        "/2026/12/01/elastic-ep-scaling.html",
        "2026-12-01",
    )
    assert ep["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert ep["tags"] == ["moe", "expert-parallelism"]
    zh = new[ZH_TITLE]
    assert (zh["id"], zh["url"], zh["published"]) == (
        "structured-decoding-ueberblick",
        "/2026/12/02/structured-decoding-ueberblick.html",
        "2026-12-02",
    )
    assert zh["authors"] == ["李雷"]
    for post in new.values():
        for guess in post["tracks"]:
            assert 0 <= guess["score"] <= 100 and guess["via"]
    fills = {(f["post_id"], f["file"], f["field"]): (f["old"], f["new"]) for f in data["fills"]}
    assert fills == {
        (target["id"], "posts/vllm-blog.yaml", "url"): (None, fill_url(target)),
        (target["id"], "posts/vllm-blog.yaml", "published"): (target["published"], "2026-09-10"),
        (target["id"], "posts/vllm-blog.yaml", "authors"): ([], ["Grace Hopper"]),
        **({(target["id"], "posts/vllm-blog.yaml", "minutes"): (None, 1)} if counted else {}),
    }
    assert [p["minutes"] for p in new.values()] == ([1, 1] if counted else [None, None])
    assert data["conflicts"] == []
    assert [s["origin"] for s in data["skipped"]] == [skipped_origin]


def assert_written(root: Path, before: dict[str, str], original_posts: str, counted: bool = False) -> None:
    """drafts.yaml holds exactly the two drafts; vllm-blog.yaml differs only in the filled lines."""
    target_before = urlless(Path(original_posts))
    after = snapshot(root)
    changed = {k for k in after if before.get(k) != after[k]}
    assert changed == {DRAFTS_FILE, "posts/vllm-blog.yaml"}
    drafts = yaml.safe_load((root / DRAFTS_FILE).read_text(encoding="utf-8"))
    assert [(d["id"], d["title"], d["status"]) for d in drafts] == [
        ("elastic-ep-scaling", NEW_TITLE, "draft"),
        ("structured-decoding-ueberblick", ZH_TITLE, "draft"),
    ]
    assert all("summary" not in d for d in drafts)
    assert all(d.get("minutes") == (1 if counted else None) for d in drafts)
    assert all(d.get("minutes_source") == ("counted" if counted else None) for d in drafts)
    old_lines = (Path(original_posts) / "posts/vllm-blog.yaml").read_text(encoding="utf-8").splitlines()
    new_lines = (root / "posts/vllm-blog.yaml").read_text(encoding="utf-8").splitlines()
    if counted:  # the reading time goes right before the post's tags, and nowhere else
        at = new_lines.index("  minutes: 1", new_lines.index(f"- id: {target_before['id']}"))
        assert new_lines[at - 2 : at + 3] == [
            "  source:",
            "    kind: vllm-blog",
            "  minutes: 1",
            "  minutes_source: counted",
            "  tags:",
        ]
        assert new_lines.count("  minutes_source: counted") == old_lines.count("  minutes_source: counted") + 1
        del new_lines[at : at + 2]
    diff = [
        line
        for line in difflib.unified_diff(old_lines, new_lines, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert diff == [
        "-  url: null",
        "-  published:",
        "-    from: '2026-08-14'",
        "-    to: '2026-11-30'",
        "-  authors: []",
        f"+  url: {fill_url(target_before)}",
        "+  published: '2026-09-10'",
        "+  authors:",
        "+  - Grace Hopper",
    ]
    filled = {p["id"]: p for p in yaml.safe_load((root / "posts/vllm-blog.yaml").read_text(encoding="utf-8"))}
    assert filled[target_before["id"]]["url"] == fill_url(target_before)
    # catalog check refuses exactly the two drafts and asks the post that gained a link for the
    # questions it answers, naming file, entry and field.
    cat, issues = check_catalog(root)
    errors = [str(i) for i in issues if i.severity == "error"]
    assert cat is None
    drafts = [
        f"{DRAFTS_FILE}: post '{pid}': status: draft {title!r} cannot be published: write its summary "
        "(summary.en, and summary.zh on a bilingual track), make it a step of a track, then remove "
        "'status: draft'"
        for pid, title in (("elastic-ep-scaling", NEW_TITLE), ("structured-decoding-ueberblick", ZH_TITLE))
    ]
    questions = [
        f"posts/vllm-blog.yaml: post '{target_before['id']}': questions.{lang}: 0 {name} question(s); a linked "
        f"post needs {low} to {high}: the problems it answers, as a reader would type them, in our own words"
        for lang, name, low, high in (("en", "English", 3, 6), ("zh", "Chinese", 2, 4))
    ]
    assert sorted(errors) == sorted(drafts + questions)


def run_twice(root: Path, source: str, skipped_origin: str, tmp_path: Path, counted: bool = False) -> None:
    pristine = catalog_copy(tmp_path / "pristine")
    before = snapshot(root)
    dry = imported(root, source)
    assert_plan(dry, root, skipped_origin, counted)
    assert dry["written"] == [] and snapshot(root) == before  # no --write: nothing written
    first = imported(root, source, "--write")
    assert_plan(first, pristine, skipped_origin, counted)
    assert first["written"] == [DRAFTS_FILE, "posts/vllm-blog.yaml"]
    assert_written(root, before, str(pristine), counted)
    written = snapshot(root)
    second = imported(root, source, "--write")
    assert second["new_posts"] == [] and second["fills"] == [] and second["conflicts"] == []
    assert second["unchanged"] == 3 and second["written"] == []
    assert snapshot(root) == written


def test_feed_file(copy: Path, tmp_path: Path):
    feed = tmp_path / "feed.xml"
    feed.write_text(make_feed(copy), encoding="utf-8")
    run_twice(copy, str(feed), "entry 4 ('An entry without a link')", tmp_path)


def test_jekyll_posts_folder(copy: Path, tmp_path: Path):
    blog = make_posts(tmp_path, copy)
    run_twice(copy, str(blog), "_posts/2026-12-03-broken.md", tmp_path, counted=True)


def test_text_output_names_what_it_found(copy: Path, tmp_path: Path):
    feed = tmp_path / "feed.xml"
    feed.write_text(make_feed(copy), encoding="utf-8")
    result = run_cli("catalog", "import", str(feed), "--catalog", str(copy))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "new posts the catalog lacks: 2" in out and f"+ {NEW_TITLE}" in out and f"+ {ZH_TITLE}" in out
    assert f"post '{urlless(copy)['id']}': url: null -> {fill_url(urlless(copy))}" in out
    assert "source entries skipped: 1" in out and "An entry without a link'): no date" in out
    assert "dry run" in out


def test_truncated_feed_exits_non_zero_and_writes_nothing(copy: Path, tmp_path: Path):
    text = make_feed(copy)
    feed = tmp_path / "feed.xml"
    feed.write_text(text[: len(text) // 2], encoding="utf-8")
    before = snapshot(copy)
    result = run_cli("catalog", "import", str(feed), "--catalog", str(copy), "--write")
    assert result.returncode == 1
    assert "not a well-formed feed" in result.stderr and "nothing written" in result.stderr
    assert result.stdout == ""
    assert snapshot(copy) == before


@pytest.mark.parametrize("content", ["", "<html><body>Not a feed</body></html>"])
def test_empty_or_html_source_is_refused(copy: Path, tmp_path: Path, content: str):
    source = tmp_path / "page.xml"
    source.write_text(content, encoding="utf-8")
    before = snapshot(copy)
    result = run_cli("catalog", "import", str(source), "--catalog", str(copy), "--write")
    assert result.returncode == 1 and "nothing written" in result.stderr
    assert snapshot(copy) == before


def test_missing_source_and_folder_without_posts_are_refused(copy: Path, tmp_path: Path):
    for source, reason in ((tmp_path / "nope.xml", "no such file"), (tmp_path, "no _posts folder")):
        result = run_cli("catalog", "import", str(source), "--catalog", str(copy))
        assert result.returncode == 1 and reason in result.stderr


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A real HTTP server on 127.0.0.1 serving ``tmp_path/www``: ``(base URL, folder)``."""
    www = tmp_path / "www"
    www.mkdir()

    def handler(*a: Any, **k: Any) -> _Quiet:
        return _Quiet(*a, directory=str(www), **k)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", www
    finally:
        server.shutdown()
        server.server_close()


def test_feed_url(copy: Path, tmp_path: Path, served: tuple[str, Path]):
    base, www = served
    (www / "feed.xml").write_text(make_feed(copy), encoding="utf-8")
    run_twice(copy, f"{base}/feed.xml", "entry 4 ('An entry without a link')", tmp_path)


def test_feed_url_errors_write_nothing(copy: Path, served: tuple[str, Path]):
    base, www = served
    text = make_feed(copy)
    (www / "cut.xml").write_text(text[: len(text) // 3], encoding="utf-8")
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}/feed.xml"
    before = snapshot(copy)
    for url, reason in (
        (f"{base}/missing.xml", "HTTP 404"),
        (f"{base}/cut.xml?token=secret", "not a well-formed feed"),
        (closed, "unreachable"),
    ):
        result = run_cli("catalog", "import", url, "--catalog", str(copy), "--write")
        assert result.returncode == 1, url
        assert reason in result.stderr and "nothing written" in result.stderr
        assert "secret" not in result.stderr  # a query string (maybe a token) is never printed
    assert snapshot(copy) == before


def test_a_published_value_is_never_changed_a_conflict_is_reported(copy: Path, tmp_path: Path):
    cat = load_catalog(copy)
    known = next(p for p in cat.posts if p.url and p.url.startswith("/") and p.published.precision == "day")
    feed = tmp_path / "feed.xml"
    feed.write_text(
        '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>'
        f"<id>x</id><updated>2026-12-01T00:00:00Z</updated><entry><title>{escape(known.title)}</title>"
        f'<link href="{BLOG}/2030/01/01/moved.html"/><id>y</id><published>2030-01-01T00:00:00Z</published>'
        "</entry></feed>",
        encoding="utf-8",
    )
    before = snapshot(copy)
    data = imported(copy, str(feed), "--write")
    assert data["new_posts"] == [] and data["fills"] == []
    assert {(c["post_id"], c["field"]) for c in data["conflicts"]} == {(known.id, "url"), (known.id, "published")}
    assert snapshot(copy) == before


def test_missing_posts_for_the_feed_watch(copy: Path):
    cat = load_catalog(copy)
    feed = make_feed(copy)
    missing = missing_posts(feed, cat)
    assert [p.title for p in missing] == [NEW_TITLE, ZH_TITLE]
    assert missing[0].url == NEW_URL
    with pytest.raises(ImportSourceError):
        missing_posts(feed[:200], cat)
    # Every post of the catalog is known to the watch: a feed of them all is "nothing missing".
    entries = "".join(
        f"<entry><title>{escape(p.title)}</title><link href='{cat.url_of(p) or BLOG + '/x/' + p.id}'/>"
        f"<id>{p.id}</id><published>2026-01-01T00:00:00Z</published></entry>"
        for p in cat.posts
    )
    full = (
        f'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>i</id>'
        f"<updated>2026-01-01T00:00:00Z</updated>{entries}</feed>"
    )
    assert missing_posts(full, cat) == []


def test_rss_dates_keep_their_own_day():
    rss = (
        "<?xml version='1.0'?><rss version='2.0'><channel><title>t</title><link>https://b.example/</link>"
        "<description>d</description><item><title>Late post</title><link>https://b.example/p</link>"
        "<pubDate>Tue, 01 Dec 2026 23:30:00 -0800</pubDate><category>rl</category></item></channel></rss>"
    )
    posts, skipped = parse_feed(rss)
    assert skipped == []
    assert [(p.title, p.date.isoformat(), p.tags) for p in posts] == [("Late post", "2026-12-01", ("rl",))]


def test_normalize_title():
    assert normalize_title("“vLLM”: Fast—Cheap  LLM’s") == normalize_title('"VLLM": fast-cheap llm\'s')
    assert normalize_title("推理 加速：Überblick") == "推理 加速 überblick"


def test_likely_tracks_come_from_tags_and_similar_posts(copy: Path):
    import datetime as dt

    from bot.cli.importer import SourcePost, load_for_import, plan_against

    cat, known = load_for_import(copy)
    posts = [
        SourcePost(
            "Capturing drafter features at serving time",
            f"{BLOG}/2026/12/05/hidden-states.html",
            dt.date(2026, 12, 5),
            (),
            ("speculative-decoding",),
            "entry 1",
        ),
        SourcePost(
            "Serving P/D disaggregated prefill and decode with NIXL KV transfer",
            f"{BLOG}/2026/12/06/pd-nixl.html",
            dt.date(2026, 12, 6),
            (),
            (),
            "entry 2",
        ),
    ]
    plan = plan_against(posts, [], known, cat, "test")
    first = {p.id: p.tracks[0] for p in plan.new_posts}
    assert first["hidden-states"].track_id == "spec" and first["hidden-states"].via == "tag 'speculative-decoding'"
    assert first["pd-nixl"].track_id == "pd" and first["pd-nixl"].via.startswith("like ")
    for post in plan.new_posts:
        scores = [g.score for g in post.tracks]
        assert scores == sorted(scores, reverse=True) and all(40 <= s <= 100 for s in scores)


def test_fills_edit_only_their_lines_even_where_a_field_is_missing():
    from bot.cli.importer.drafts import edit_fields

    text = (
        "# header\n- id: a\n  title: A\n  published:\n    from: '2026-08-14'\n    to: '2026-11-30'\n\n"
        "  source:\n    kind: vllm-blog\n  summary:\n    en: x\n"
        "# comment\n- id: b\n  title: B\n  url: null\n  published: '2026-01-02'\n  authors: []\n"
    )
    out = edit_fields(
        text,
        [
            ("a", "url", ["url: /a.html"]),
            ("a", "published", ["published: '2026-09-01'"]),
            ("a", "authors", ["authors:", "- Ann"]),
            ("b", "url", ["url: /b.html"]),
            ("b", "authors", ["authors:", "- Bo"]),
        ],
    )
    assert out == (
        "# header\n- id: a\n  title: A\n  url: /a.html\n  published: '2026-09-01'\n  authors:\n"
        "  - Ann\n\n  source:\n    kind: vllm-blog\n  summary:\n    en: x\n"
        "# comment\n- id: b\n  title: B\n  url: /b.html\n  published: '2026-01-02'\n  authors:\n"
        "  - Bo\n"
    )
