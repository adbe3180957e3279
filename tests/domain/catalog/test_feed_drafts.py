"""Issue 41: several feeds -> drafts with a suggested place -> a curator's accept or reject.

Feeds are served on 127.0.0.1 by a real ``http.server`` that answers ``ETag`` / ``If-None-Match``
with 304, plus a feed that answers 500 and one slower than the watch's timeout; the catalog is a
copy of the repo's (``CATALOG_DIR``); the CLI runs as a subprocess (the real entry point) with its
working directory in ``tmp_path`` (so it signals no other test's process).
"""

from __future__ import annotations

import datetime as dt
import email.utils
import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
import yaml

from bot.digest.sources import watch_sources
from bot.domain.catalog import check_catalog, load_catalog
from bot.domain.catalog.drafts import read_drafts
from tests.domain.catalog.helpers import catalog_copy
from tests.evaldata import REPO

BLOG = "https://vllm-project.github.io"
PARAGRAPH = (
    "<p>Speculative decoding lets a small EAGLE drafter propose several tokens that the target model "
    "verifies in one forward pass; a higher acceptance rate of the drafted tokens means lower latency. "
    "We trained new drafters with Speculators and measured acceptance length on MT-Bench.</p>"
)
CONTENT = PARAGRAPH * 40 + '<pre><code>vllm serve model --speculative-config \'{"method": "eagle3"}\'</code></pre>'
NEW_TITLE = "Faster Drafting: Training EAGLE Drafters for Speculative Decoding"
NEW_URL = f"{BLOG}/2026/12/03/eagle-drafters.html"


def entry(title: str, url: str, day: str, summary: str = "", content: str = "", tags: tuple[str, ...] = ()) -> str:
    parts = [
        f'<entry><title>{escape(title)}</title><link href="{url}"/><id>{url}</id>',
        f"<published>{day}T00:00:00Z</published><updated>{day}T00:00:00Z</updated>",
        f"<summary>{escape(summary)}</summary>" if summary else "",
        f'<content type="html">{escape(content)}</content>' if content else "",
        *(f'<category term="{t}"/>' for t in tags),
        "</entry>",
    ]
    return "".join(parts)


def atom(entries: list[str]) -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>'
        f"<id>urn:t</id><updated>2026-12-03T00:00:00Z</updated>{''.join(entries)}</feed>"
    )


class Feeds:
    """A loopback server of ``folder/*.xml`` honouring ETag (304 on a matching If-None-Match;
    ``company.xml`` Last-Modified and If-Modified-Since instead);
    ``/broken.xml`` answers 500, ``/slow.xml`` waits ``slow_s`` first. ``seen`` records
    ``(path, If-None-Match, status)`` per request."""

    def __init__(self, folder: Path, slow_s: float) -> None:
        self.seen: list[tuple[str, str | None, int]] = []
        feeds = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                name = self.path.lstrip("/")
                if name == "slow.xml":
                    time.sleep(slow_s)
                path = folder / name
                if name == "broken.xml" or not path.is_file():
                    status, body, tag = 500, b"oops", ""
                else:
                    body = path.read_bytes()
                    tag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
                    status = 304 if self.headers.get("If-None-Match") == tag else 200
                    if name == "company.xml":  # this one says Last-Modified only (its body's hash as a date)
                        tag = email.utils.formatdate(1.7e9 + int(hashlib.sha256(body).hexdigest()[:6], 16), usegmt=True)
                        status = 304 if self.headers.get("If-Modified-Since") == tag else 200
                sent = self.headers.get("If-None-Match") or self.headers.get("If-Modified-Since")
                feeds.seen.append((name, sent, status))
                self.send_response(status)
                if tag:
                    self.send_header("Last-Modified" if name == "company.xml" else "ETag", tag)
                if status == 304:
                    self.end_headers()
                    return
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    return catalog_copy(tmp_path / "catalog")


@pytest.fixture()
def feeds(tmp_path: Path) -> Iterator[Feeds]:
    folder = tmp_path / "www"
    folder.mkdir()
    served = Feeds(folder, slow_s=3.0)
    yield served
    served.server.shutdown()
    served.server.server_close()


def unlinked(root: Path) -> dict:
    posts = yaml.safe_load((root / "posts/vllm-blog.yaml").read_text(encoding="utf-8"))
    return next(p for p in posts if p.get("url") is None)


def linked(root: Path) -> dict:
    posts = yaml.safe_load((root / "posts/vllm-blog.yaml").read_text(encoding="utf-8"))
    return next(p for p in posts if p.get("url"))


def serve_feeds(root: Path, feeds: Feeds) -> None:
    """The blog feed (a new post with content, a title variant of an unlinked post, a known post),
    a company feed (one post about vLLM, one not), a broken feed and a slow one."""
    www = root.parent / "www"
    gap, known = unlinked(root), linked(root)
    variant = gap["title"].rsplit(" ", 1)[0].upper()  # one word short, in capitals
    blog = [
        entry(NEW_TITLE, NEW_URL, "2026-12-03", "EAGLE drafters trained with Speculators.", CONTENT, ("speculative",)),
        entry(variant, f"{BLOG}/2026/11/20/{gap['id']}.html", "2026-11-20", content=CONTENT),
        entry(known["title"], BLOG + known["url"], "2025-01-01", content=CONTENT),
    ]
    (www / "blog.xml").write_text(atom(blog), encoding="utf-8")
    company = [
        entry(
            "Serving Gemma with vLLM on GKE",
            "https://example.com/gemma-vllm?utm_source=x",
            "2026-12-02",
            "How to run vLLM on GKE with autoscaling.",
        ),
        entry("Our new office in Zurich", "https://example.com/zurich", "2026-12-01", "We moved."),
    ]
    (www / "company.xml").write_text(atom(company), encoding="utf-8")
    sources = {
        "feeds": [
            {"name": "vLLM blog", "url": f"{feeds.base}/blog.xml", "kind": "vllm-blog"},
            {"name": "Example", "url": f"{feeds.base}/company.xml", "kind": "company", "about": "vllm"},
            {"name": "Broken", "url": f"{feeds.base}/broken.xml", "kind": "company", "about": "vllm"},
            {"name": "Slow", "url": f"{feeds.base}/slow.xml", "kind": "company", "about": "vllm"},
        ]
    }
    (root / "sources.yaml").write_text(yaml.safe_dump(sources), encoding="utf-8")
    (www / "slow.xml").write_text(atom([]), encoding="utf-8")


def test_the_watch_drafts_each_new_post_once_with_conditional_requests(copy: Path, feeds: Feeds, caplog):
    serve_feeds(copy, feeds)
    gap = unlinked(copy)
    report = watch_sources(copy, load_catalog(copy), timeout=1.0)

    by_title = {d.title: d for d in report.drafts}
    assert set(by_title) == {NEW_TITLE, gap["title"].rsplit(" ", 1)[0].upper(), "Serving Gemma with vLLM on GKE"}
    new = by_title[NEW_TITLE]
    assert (new.minutes_source, new.fills) == ("counted", None)
    assert new.minutes >= 4  # ~1,100 words of prose at 230 a minute
    assert new.suggested and new.suggested[0].track == "spec", new.suggested
    assert "shares" in new.suggested[0].reason and new.suggested[0].position >= 1
    fill = by_title[gap["title"].rsplit(" ", 1)[0].upper()]
    assert (fill.fills, fill.id, fill.suggested) == (gap["id"], gap["id"], ())
    company = by_title["Serving Gemma with vLLM on GKE"]
    assert (company.minutes_source, company.source.name) == ("estimate", "Example")
    assert set(report.errors) == {"Broken", "Slow"}
    assert "HTTP 500" in report.errors["Broken"]
    assert {d.id for d in read_drafts(copy)} == {d.id for d in report.drafts}

    # Second run: the served feeds answer 304 to the remembered ETag / Last-Modified; nothing new.
    again = watch_sources(copy, load_catalog(copy), timeout=1.0)
    assert again.drafts == [] and set(again.unchanged) == {"vLLM blog", "Example"}
    second = [(name, tag, status) for name, tag, status in feeds.seen[-4:] if name in ("blog.xml", "company.xml")]
    assert all(tag and status == 304 for _, tag, status in second), feeds.seen

    # A changed feed is fetched again; the same posts under another URL (utm) stay one draft.
    www = copy.parent / "www"
    www.joinpath("company.xml").write_text(
        atom([entry("Serving Gemma with vLLM on GKE", "https://www.example.com/gemma-vllm/", "2026-12-02", "vLLM")]),
        encoding="utf-8",
    )
    third = watch_sources(copy, load_catalog(copy), timeout=1.0)
    assert third.drafts == [] and "Example" not in third.unchanged

    # Past the run's deadline no feed is started: one WARNING line names them all.
    late = watch_sources(copy, load_catalog(copy), timeout=1.0, deadline_s=-1.0)
    assert late.late == ["vLLM blog", "Example", "Broken", "Slow"] and late.drafts == []
    assert [r.message for r in caplog.records if "deadline" in r.message] == [
        "catalog sources: -1 s deadline reached; not fetched: vLLM blog, Example, Broken, Slow"
    ]


def test_a_draft_never_stops_the_catalog_and_the_cli_reviews_it(copy: Path, feeds: Feeds, tmp_path: Path):
    serve_feeds(copy, feeds)
    (copy / "drafts").mkdir()
    (copy / "drafts" / "half-written.yaml").write_text("id: [unfinished\n", encoding="utf-8")

    watched = cli(tmp_path, copy, "catalog", "watch", "--json")
    assert watched.returncode == 0, watched.stderr
    assert len(json.loads(watched.stdout)["drafts"]) == 3

    for args in (("catalog", "check", str(copy)), ("ask", "eagle", "--json")):
        done = cli(tmp_path, copy, *args)
        assert done.returncode == 0, done.stderr

    listed = json.loads(cli(tmp_path, copy, "catalog", "drafts", "--json").stdout)["drafts"]
    assert [set(d) >= {"id", "title", "url", "minutes", "minutes_source", "suggested", "fills"} for d in listed]
    new = next(d for d in listed if d["title"] == NEW_TITLE)
    assert new["suggested"][0]["track"] == "spec"
    assert all(set(s) == {"track", "position", "reason"} for s in new["suggested"])
    scores = [d for d in listed if d["fills"]]
    assert [d["fills"] for d in scores] == [unlinked(copy)["id"]]

    before = load_catalog(copy)
    position = len(before.essentials("spec")) + 2
    questions = [
        "How do I train an EAGLE drafter?",
        "What acceptance rate do drafters reach?",
        "Which flag turns it on?",
    ]
    accept = [
        "catalog", "accept", new["id"], "--track", "spec", "--position", str(position),
        "--summary", "Training EAGLE drafters and what they buy.", "--summary-zh", "训练 EAGLE 草稿模型及其收益。",
        *(a for q in questions for a in ("--question", q)),
        "--question-zh", "怎么训练 EAGLE 草稿模型？", "--question-zh", "接受率能到多少？",
    ]  # fmt: skip
    done = cli(tmp_path, copy, *accept)
    assert done.returncode == 0, done.stderr
    after = load_catalog(copy)
    assert after.version != before.version and after.changelog_versions[0] == after.version
    assert after.order("spec").index(new["id"]) + 1 == position
    assert after.post(new["id"]).minutes == new["minutes"]
    changelog = (copy / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {after.version} — {dt.datetime.now(dt.UTC).date().isoformat()}" in changelog and new["id"] in changelog
    assert not (copy / "drafts" / f"{new['id']}.yaml").exists()

    # The fill: the unlinked post gets its link, day and counted minutes; no new post.
    fill = scores[0]
    zh = ["第一个问题是什么？", "第二个问题是什么？"]
    done = cli(tmp_path, copy, "catalog", "accept", fill["id"], *(a for q in questions for a in ("--question", q)),
               *(a for q in zh for a in ("--question-zh", q)))  # fmt: skip
    assert done.returncode == 0, done.stderr
    filled = load_catalog(copy)
    assert len(filled.posts) == len(after.posts)
    assert filled.post(fill["id"]).url == fill["url"].removeprefix(BLOG)
    assert (filled.post(fill["id"]).minutes, filled.post(fill["id"]).minutes_source) == (fill["minutes"], "counted")

    # Reject: gone, and the next watch does not draft it again (its feed changed meanwhile).
    other = next(d for d in listed if d["title"].startswith("Serving Gemma"))
    assert cli(tmp_path, copy, "catalog", "reject", other["id"]).returncode == 0
    again = cli(tmp_path, copy, "catalog", "reject", other["id"])  # twice: said so, not "no draft"
    assert (again.returncode, again.stdout.strip()) == (0, f"{other['id']} was already rejected"), again.stderr
    assert cli(tmp_path, copy, "catalog", "reject", "never-drafted").stderr.startswith("error: no draft")
    (copy.parent / "www" / "company.xml").write_text(
        atom([entry(other["title"], other["url"], "2026-12-02", "vLLM on GKE")]), encoding="utf-8"
    )
    assert cli(tmp_path, copy, "catalog", "watch", "--json").returncode == 0
    assert read_drafts(copy) == []
    assert check_catalog(copy)[0] is not None


def test_a_refused_accept_changes_nothing(copy: Path, feeds: Feeds, tmp_path: Path):
    serve_feeds(copy, feeds)
    watch_sources(copy, load_catalog(copy), timeout=1.0)
    new = next(d for d in read_drafts(copy) if d.title == NEW_TITLE)
    files = {p: p.read_bytes() for p in copy.rglob("*.yaml")} | {copy / "CHANGELOG.md": b""}
    files[copy / "CHANGELOG.md"] = (copy / "CHANGELOG.md").read_bytes()
    done = cli(tmp_path, copy, "catalog", "accept", new.id, "--track", "spec", "--summary", "No questions given.")
    assert done.returncode == 1
    assert "questions" in done.stderr and "nothing written" in done.stderr
    assert {p: p.read_bytes() for p in files} == files


def test_minutes_are_counted_only_from_a_feed_entry_with_the_full_post(copy: Path, tmp_path: Path):
    """One rule for a feed entry's minutes: counted when its content is the full post (at least
    FULL_TEXT_WORDS words, more than its summary), else estimated; `catalog drafts` says which."""
    teaser = PARAGRAPH * 2  # about 100 words: an excerpt, not the post
    long_summary = " ".join(["speculative decoding"] * 400)
    feed = tmp_path / "feed.xml"
    entries = [
        entry("Teaser Content Only About Drafters", f"{BLOG}/2026/12/01/teaser.html", "2026-12-01", "EAGLE.", teaser),
        entry("No Content At All About Drafters", f"{BLOG}/2026/12/02/bare.html", "2026-12-02", "EAGLE drafters."),
        entry("Content No Longer Than Its Summary", f"{BLOG}/2026/12/03/same.html", "2026-12-03", long_summary,
              f"<p>{long_summary}</p>"),
        entry(NEW_TITLE, NEW_URL, "2026-12-04", "EAGLE drafters trained with Speculators.", CONTENT),
    ]  # fmt: skip
    feed.write_text(atom(entries), encoding="utf-8")
    assert cli(tmp_path, copy, "catalog", "import", str(feed), "--write").returncode == 0
    drafts = {d.title: d for d in read_drafts(copy)}
    assert {t: d.minutes_source for t, d in drafts.items()} == {
        "Teaser Content Only About Drafters": "estimate",
        "No Content At All About Drafters": "estimate",
        "Content No Longer Than Its Summary": "estimate",
        NEW_TITLE: "counted",
    }
    listed = cli(tmp_path, copy, "catalog", "drafts").stdout
    line = next(x for x in listed.splitlines() if x.startswith(drafts["Teaser Content Only About Drafters"].id))
    assert "(estimated: the feed has no full text" in line, listed
    line = next(x for x in listed.splitlines() if x.startswith(drafts[NEW_TITLE].id))
    assert line.endswith(f"{drafts[NEW_TITLE].minutes} min (counted)"), listed


def cli(cwd: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``vllm-path ARGS`` with ``CATALOG_DIR=root``, run in ``cwd``."""
    env = {**os.environ, "CATALOG_DIR": str(root), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "bot.cli.main", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )
