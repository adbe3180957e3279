"""`vllm-path catalog import SOURCE [--write] [--json]` on a feed file, a feed URL served on
127.0.0.1 and a Jekyll `_posts` folder, all made here, against a copy of the catalog.

Each source holds: a post the catalog lacks, a post with a non-ASCII title, a title variant of an
unlinked catalog post, a linked catalog post whose authors (and, in a Jekyll source, minutes) the
catalog lacks, and a malformed entry. The new posts become drafts beside the catalog as the feed
watch makes them (the variant a draft that fills the unlinked post), the known post's missing
facts are edited into its own lines, the catalog still checks, a second run changes nothing, and a
truncated or unreachable source writes nothing.
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
    normalize_title,
    parse_feed,
)
from bot.domain.catalog import Catalog, check_catalog, load_catalog
from bot.domain.catalog.drafts import read_drafts
from bot.domain.catalog.edit import edit_fields
from tests.domain.catalog.helpers import catalog_copy, run_cli

BLOG = "https://vllm-project.github.io"
NEW_TITLE = "Elastic Expert Parallelism: Scaling MoE Serving Up and Down in vLLM"
NEW_URL = f"{BLOG}/2026/12/01/elastic-ep-scaling.html"
ZH_TITLE = "vLLM 推理加速：Überblick über Structured Decoding"
ZH_URL = f"{BLOG}/2026/12/02/structured-decoding-ueberblick.html"
NEW_CONTENT = (
    "<p>Wide expert parallelism spreads the experts of a mixture-of-experts model over many GPUs; "
    "elastic EP lets vLLM add and remove those GPUs while serving, moving experts and rebalancing "
    "the all-to-all dispatch without a restart.</p>"
) * 12


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    """A catalog copy whose :func:`known_gap` post lost its authors and minutes."""
    root = catalog_copy(tmp_path / "catalog")
    posts = root / "posts/vllm-blog.yaml"
    pid = known_gap(root)["id"]
    edits = [(pid, "authors", ["authors: []"]), (pid, "minutes", []), (pid, "minutes_source", [])]
    posts.write_text(edit_fields(posts.read_text(encoding="utf-8"), edits), encoding="utf-8")
    return root


def raw_posts(root: Path) -> list[dict]:
    return yaml.safe_load((root / "posts/vllm-blog.yaml").read_text(encoding="utf-8"))


def urlless(root: Path) -> dict:
    """The first post of the copy without a URL (raw YAML), the one a title variant fills."""
    return next(p for p in raw_posts(root) if p.get("url") is None)


_LOADED: dict[Path, tuple[tuple[tuple[str, int, int], ...], Catalog]] = {}


def loaded(root: Path) -> Catalog:
    """``load_catalog(root)``, loaded again only when a file under ``root`` changed (its path, size
    or modification time): the helpers below ask for the same copy's catalog many times a test."""
    key = tuple((str(p), (st := p.stat()).st_size, st.st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file())
    kept = _LOADED.get(root)
    if kept is None or kept[0] != key:
        _LOADED.clear()  # one test's copy at a time
        kept = _LOADED[root] = (key, load_catalog(root))
    return kept[1]


def known_gap(root: Path) -> dict:
    """The first linked vLLM-blog post on no essential path (raw YAML): the one whose facts the source fills."""
    cat = loaded(root)
    essential = {pid for t in cat.tracks for pid in cat.essentials(t.id)}
    return next(p for p in raw_posts(root) if p.get("url") and p["id"] not in essential)


def variant(post: dict) -> str:
    """The post's title as another site types it: one word short, capitals, a curly quote."""
    return post["title"].rsplit(" ", 1)[0].upper().replace("'", "’")


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def fill_url(post: dict) -> str:
    return f"/2026/09/10/{post['id']}.html"


def make_feed(root: Path) -> str:
    """An Atom feed as jekyll-feed writes it: the five kinds of entry (newest first)."""
    target, known = urlless(root), known_gap(root)
    entries = [
        (NEW_TITLE, NEW_URL, "2026-12-01T09:00:00+00:00", ["Ada Lovelace", "Alan Turing"], ["moe"], NEW_CONTENT),
        (variant(target), BLOG + fill_url(target), "2026-09-10T00:00:00-07:00", ["Grace Hopper"], [], ""),
        (ZH_TITLE, ZH_URL, "2026-12-02T00:00:00+08:00", ["李雷"], ["structured-output"], ""),
        (known["title"], BLOG + known["url"], f"{known['published']}T08:00:00+00:00", ["Grace Hopper"], [], ""),
    ]
    parts = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        "<title>vLLM Blog</title>",
        f'<link href="{BLOG}/feed.xml" rel="self"/>',
        "<updated>2026-12-02T00:00:00+00:00</updated>",
        f"<id>{BLOG}/feed.xml</id>",
    ]
    for title, url, date, authors, tags, content in entries:
        parts.append("<entry>")
        parts.append(f'<title type="html">{escape(title)}</title>')
        parts.append(f'<link href="{url}" rel="alternate" type="text/html"/>')
        parts.append(f"<published>{date}</published><updated>{date}</updated><id>{url}</id>")
        parts.extend(f"<author><name>{escape(a)}</name></author>" for a in authors)
        parts.extend(f'<category term="{t}"/>' for t in tags)
        parts.append(f'<content type="html">{escape(content)}</content>' if content else "")
        parts.append("<summary>The blog's own summary.</summary></entry>")
    # Malformed: no link and no date.
    parts.append("<entry><title>An entry without a link</title><id>urn:x</id></entry>")
    parts.append("</feed>")
    return "\n".join(parts) + "\n"


def make_posts(tmp: Path, root: Path) -> Path:
    """A Jekyll source: ``_posts`` with the same five kinds of file."""
    target, known = urlless(root), known_gap(root)
    posts = tmp / "blog" / "_posts"
    posts.mkdir(parents=True)
    (posts / "2026-12-01-elastic-ep-scaling.md").write_text(
        f'---\nlayout: post\ntitle: "{NEW_TITLE}"\nauthor: "Ada Lovelace, and Alan Turing"\n'
        f"tags:\n  - moe\n---\n{NEW_CONTENT}\n",
        encoding="utf-8",
    )
    (posts / f"2026-09-10-{target['id']}.md").write_text(
        f"---\ntitle: {json.dumps(variant(target))}\nauthor: Grace Hopper\n---\nBody.\n", encoding="utf-8"
    )
    (posts / "2026-12-02-structured-decoding-ueberblick.md").write_text(
        f'---\ntitle: "{ZH_TITLE}"\nauthor: 李雷\ntags: structured-output\n---\nBody.\n', encoding="utf-8"
    )
    (posts / f"{known['published']}-known.md").write_text(
        f"---\ntitle: {json.dumps(known['title'])}\nauthor: Grace Hopper\npermalink: {known['url']}\n---\nBody.\n",
        encoding="utf-8",
    )
    (posts / "2026-12-03-broken.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    (posts / "README.txt").write_text("not a post", encoding="utf-8")
    return tmp / "blog"


def imported(root: Path, source: str, *extra: str) -> dict:
    result = run_cli("catalog", "import", source, "--catalog", str(root), "--json", *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def assert_plan(data: dict, root: Path, skipped_origin: str, jekyll: bool = False) -> None:
    """Exactly: three drafts (two new posts with suggested places, one filling the unlinked post),
    the known post's authors filled (and its minutes, counted from a Jekyll post's body), one skipped
    entry. A feed without an entry's full content gives estimated minutes."""
    target, known = urlless(root), known_gap(root)
    drafts = {d["title"]: d for d in data["drafts"]}
    assert set(drafts) == {NEW_TITLE, ZH_TITLE, variant(target)}
    new, zh, fill = drafts[NEW_TITLE], drafts[ZH_TITLE], drafts[variant(target)]
    assert (new["id"], new["url"], new["published"], new["fills"]) == (
        "elastic-ep-scaling",
        NEW_URL,
        "2026-12-01",
        None,
    )
    assert (zh["id"], zh["url"], zh["published"], zh["fills"]) == (
        "structured-decoding-ueberblick",
        ZH_URL,
        "2026-12-02",
        None,
    )
    assert (fill["id"], fill["fills"], fill["suggested"], fill["url"]) == (
        target["id"],
        target["id"],
        [],
        BLOG + fill_url(target),
    )
    assert new["minutes_source"] == "counted" and new["minutes"] >= 2  # ~400 words of content
    assert (zh["minutes_source"], fill["minutes_source"]) == (("counted",) * 2 if jekyll else ("estimate",) * 2)
    for draft in (new, zh):
        assert draft["suggested"], draft
        for place in draft["suggested"]:
            assert place["position"] >= 1 and place["reason"] and loaded(root).has_track(place["track"])
    fills = {(f["post_id"], f["file"], f["field"]): (f["old"], f["new"]) for f in data["fills"]}
    assert fills == {
        (known["id"], "posts/vllm-blog.yaml", "authors"): ([], ["Grace Hopper"]),
        **({(known["id"], "posts/vllm-blog.yaml", "minutes"): (None, 1)} if jekyll else {}),
    }
    assert data["conflicts"] == []
    assert [s["origin"] for s in data["skipped"]] == [skipped_origin]
    assert data["unchanged"] == 0


def assert_written(root: Path, before: dict[str, str], original: list[str], data: dict, jekyll: bool = False) -> None:
    """A draft file per draft, read back as the watch's drafts; vllm-blog.yaml differs only in the
    filled lines; `catalog check` passes with the drafts in place."""
    known = known_gap(root)
    after = snapshot(root)
    changed = {k for k in after if before.get(k) != after[k]}
    files = {f"drafts/{d['id']}.yaml" for d in data["drafts"]}
    assert changed == files | {"posts/vllm-blog.yaml"} and not (root / "posts/drafts.yaml").exists()
    by_id = {d.id: d.to_json() for d in read_drafts(root)}
    assert by_id == {d["id"]: d for d in data["drafts"]}
    new_lines = (root / "posts/vllm-blog.yaml").read_text(encoding="utf-8").splitlines()
    if jekyll:  # the reading time goes right after the post's source, and nowhere else
        at = new_lines.index("  minutes: 1", new_lines.index(f"- id: {known['id']}"))
        assert new_lines[at - 2 : at + 2] == [
            "  source:",
            "    kind: vllm-blog",
            "  minutes: 1",
            "  minutes_source: counted",
        ]
        del new_lines[at : at + 2]
    diff = [
        line
        for line in difflib.unified_diff(original, new_lines, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert diff == ["-  authors: []", "+  authors:", "+  - Grace Hopper"], diff
    cat, issues = check_catalog(root)
    assert cat is not None, [str(i) for i in issues if i.severity == "error"]
    assert cat.post(known["id"]).authors == ("Grace Hopper",)


def run_twice(root: Path, source: str, skipped_origin: str, jekyll: bool = False) -> None:
    before = snapshot(root)
    original = (root / "posts/vllm-blog.yaml").read_text(encoding="utf-8").splitlines()
    dry = imported(root, source)
    assert_plan(dry, root, skipped_origin, jekyll)
    assert dry["written"] == [] and snapshot(root) == before  # no --write: nothing written
    first = imported(root, source, "--write")
    assert first["drafts"] == dry["drafts"] and first["fills"] == dry["fills"]
    assert first["written"] == sorted([*(f"drafts/{d['id']}.yaml" for d in first["drafts"]), "posts/vllm-blog.yaml"])
    assert_written(root, before, original, first, jekyll)
    written = snapshot(root)
    second = imported(root, source, "--write")
    assert second["drafts"] == [] and second["fills"] == [] and second["conflicts"] == []
    assert second["unchanged"] == 4 and second["written"] == []
    assert snapshot(root) == written


def test_feed_file(copy: Path, tmp_path: Path):
    feed = tmp_path / "feed.xml"
    feed.write_text(make_feed(copy), encoding="utf-8")
    run_twice(copy, str(feed), "entry 5 ('An entry without a link')")


def test_jekyll_posts_folder(copy: Path, tmp_path: Path):
    blog = make_posts(tmp_path, copy)
    run_twice(copy, str(blog), "_posts/2026-12-03-broken.md", jekyll=True)


def test_text_output_names_what_it_found(copy: Path, tmp_path: Path):
    feed = tmp_path / "feed.xml"
    feed.write_text(make_feed(copy), encoding="utf-8")
    result = run_cli("catalog", "import", str(feed), "--catalog", str(copy))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "new drafts: 3" in out and f"+ {NEW_TITLE}" in out and f"+ {ZH_TITLE}" in out
    assert f"fills the unlinked post '{urlless(copy)['id']}'" in out
    assert "    suggested: " in out and "(counted)" in out and "(estimated" in out
    assert f"post '{known_gap(copy)['id']}': authors: [] -> [Grace Hopper]" in out
    assert "source entries skipped: 1" in out and "An entry without a link'): no date" in out
    assert "dry run" in out
    written = run_cli("catalog", "import", str(feed), "--catalog", str(copy), "--write")
    assert written.returncode == 0, written.stderr
    assert "wrote: drafts/" in written.stdout and "next: `vllm-path catalog drafts`" in written.stdout


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
    run_twice(copy, f"{base}/feed.xml", "entry 5 ('An entry without a link')")


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
    assert data["drafts"] == [] and data["fills"] == []
    assert {(c["post_id"], c["field"]) for c in data["conflicts"]} == {(known.id, "url"), (known.id, "published")}
    assert snapshot(copy) == before


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


def test_new_posts_get_places_from_their_content(copy: Path):
    """The drafts' suggestions come from what the feed gives (title, summary, content), through
    the feed watch's :func:`~bot.domain.catalog.drafts.new_drafts`."""
    import datetime as dt

    from bot.cli.importer import SourcePost, load_for_import, plan_against
    from bot.domain.catalog.drafts import FeedSource

    cat, known = load_for_import(copy)
    spec = (
        "A small EAGLE drafter proposes several tokens that the target model verifies in one forward pass; "
        "the acceptance rate of the drafted tokens sets the speed-up of speculative decoding. "
    ) * 6
    pd = (
        "Prefill and decode run on separate instances; the KV cache travels from the prefill node to the "
        "decode node through the NIXL connector, so time to first token and inter-token latency stop "
        "fighting over one GPU. "
    ) * 6
    posts = [
        SourcePost(
            "Capturing features at serving time", f"{BLOG}/2026/12/05/a.html", dt.date(2026, 12, 5), content=spec
        ),
        SourcePost("Moving the cache faster", f"{BLOG}/2026/12/06/b.html", dt.date(2026, 12, 6), content=pd),
    ]
    feed = FeedSource(name="vLLM blog", url=f"{BLOG}/feed.xml", kind="vllm-blog")
    plan = plan_against(posts, [], known, cat, "test", feed)
    first = {d.url: d.suggested[0] for d in plan.drafts}
    assert first[f"{BLOG}/2026/12/05/a.html"].track == "spec" and first[f"{BLOG}/2026/12/06/b.html"].track == "pd"
    for place in first.values():
        assert 1 <= place.position <= len(cat.order(place.track)) + 1 and "shares" in place.reason
    assert all(d.minutes_source == "estimate" for d in plan.drafts)  # SourcePost.minutes: None


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


def test_the_drafts_take_the_feed_of_sources_yaml(copy: Path, tmp_path: Path):
    """A source URL listed in sources.yaml takes its name, kind and ``about`` filter; any other
    source (a file, a Jekyll folder) the vLLM blog's feed there, else a vLLM blog feed."""
    import datetime as dt

    from bot.cli.importer import SourcePost, load_for_import, plan_against
    from bot.cli.importer.plan import feed_for

    url = "https://example.com/blog/feed.xml?utm_source=x"
    (copy / "sources.yaml").write_text(
        yaml.safe_dump(
            {
                "feeds": [
                    {"name": "Example", "url": "https://www.example.com/blog/feed.xml", "about": "vllm"},
                    {"name": "The blog", "url": f"{BLOG}/feed.xml", "kind": "vllm-blog"},
                ]
            }
        ),
        encoding="utf-8",
    )
    company = feed_for(url, copy, BLOG)
    assert (company.name, company.kind, company.about) == ("Example", "company", "vllm")
    assert feed_for(str(tmp_path / "feed.xml"), copy, BLOG).name == "The blog"
    (copy / "sources.yaml").unlink()
    assert feed_for(url, copy, BLOG).model_dump() == {
        "name": "vLLM blog",
        "url": f"{BLOG}/feed.xml",
        "kind": "vllm-blog",
        "about": None,
    }
    cat, known = load_for_import(copy)
    posts = [
        SourcePost("Serving Gemma with vLLM on GKE", "https://example.com/gemma", dt.date(2026, 12, 2)),
        SourcePost("Our new office in Zurich", "https://example.com/zurich", dt.date(2026, 12, 1)),
        SourcePost("Überblick: vLLM’s Structured Decoding, Part Two", "https://example.com/p/12", dt.date(2026, 12, 1)),
    ]
    plan = plan_against(posts, [], known, cat, url, company)
    assert [(d.id, d.feed, d.source.kind, d.source.name) for d in plan.drafts] == [
        ("gemma", "Example", "company", "Example"),  # the URL's slug
        ("uberblick-vllms-structured-decoding-part-two", "Example", "company", "Example"),  # the title's
    ]
    assert plan.unchanged == 1 and plan.feed == "Example"
    long = SourcePost("A " + "very " * 20 + "long title about vLLM", "https://example.com/12", dt.date(2026, 12, 1))
    (draft,) = plan_against([long], [], known, cat, url, company).drafts
    assert draft.id == "a" + "-very" * 11 and len(draft.id) <= 60  # whole words only


def test_an_invalid_sources_file_writes_nothing(copy: Path, tmp_path: Path):
    feed = tmp_path / "feed.xml"
    feed.write_text(make_feed(copy), encoding="utf-8")
    (copy / "sources.yaml").write_text("feeds:\n  - name: x\n    url: ftp://nope\n", encoding="utf-8")
    before = snapshot(copy)
    result = run_cli("catalog", "import", str(feed), "--catalog", str(copy), "--write")
    assert result.returncode == 1 and "not a valid sources file" in result.stderr and "nothing written" in result.stderr
    assert snapshot(copy) == before
