"""Issue 41's acceptance through `catalog import`, end to end with the real entry point (a
subprocess, ``CATALOG_DIR`` a copy of the catalog): a local Atom feed with two new posts (their full
content) and a title variant of an unlinked catalog post gives three drafts beside the catalog (two
with counted minutes and suggested places, one that fills the unlinked post); `catalog check` and
`ask` keep working with them in place; `catalog accept … --track pd --position 3` moves the
version on, writes the changelog line and puts the post third in the PD path (an essential step,
so with its discussion prompt)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

from bot.domain.catalog import load_catalog
from tests.domain.catalog.helpers import catalog_copy
from tests.domain.catalog.test_feed_drafts import BLOG, CONTENT, NEW_TITLE, NEW_URL, atom, cli, entry, unlinked

PD_TITLE = "Moving the KV Cache Faster: NIXL Transfers for Disaggregated Prefill and Decode"
PD_URL = f"{BLOG}/2026/12/04/nixl-pd-transfers.html"
PD_PARAGRAPH = (
    "<p>With prefill/decode disaggregation, prefill instances compute the KV cache of a prompt and hand it "
    "to decode instances through a KV connector; NIXL moves those blocks over RDMA, so time to first "
    "token and inter-token latency no longer compete on one GPU. We measured transfer time and goodput "
    "with the NixlConnector against the LMCache connector on 1P1D and 2P2D setups.</p>"
)
PD_CONTENT = PD_PARAGRAPH * 25
PROMPT = "Where would a KV transfer between your prefill and decode instances spend its time?"


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    return catalog_copy(tmp_path / "catalog")


def test_import_drafts_review_and_accept_through_the_cli(copy: Path, tmp_path: Path):
    gap = unlinked(copy)
    variant = gap["title"].rsplit(" ", 1)[0].upper()  # one word short, in capitals
    feed = tmp_path / "feed.xml"
    feed.write_text(
        atom(
            [
                entry(PD_TITLE, PD_URL, "2026-12-04", "NIXL moves the KV cache between P and D.", PD_CONTENT),
                entry(NEW_TITLE, NEW_URL, "2026-12-03", "EAGLE drafters trained with Speculators.", CONTENT),
                entry(variant, f"{BLOG}/2026/11/20/{gap['id']}.html", "2026-11-20"),
            ]
        ),
        encoding="utf-8",
    )
    done = cli(tmp_path, copy, "catalog", "import", str(feed), "--write")
    assert done.returncode == 0, done.stderr
    assert "new drafts: 3" in done.stdout and not (copy / "posts" / "drafts.yaml").exists()

    listed = json.loads(cli(tmp_path, copy, "catalog", "drafts", "--json").stdout)["drafts"]
    by_title = {d["title"]: d for d in listed}
    assert set(by_title) == {PD_TITLE, NEW_TITLE, variant}
    pd, spec, fill = by_title[PD_TITLE], by_title[NEW_TITLE], by_title[variant]
    for draft in (pd, spec):
        assert draft["fills"] is None and draft["minutes_source"] == "counted" and draft["minutes"] >= 3
        assert draft["suggested"] and all(set(s) == {"track", "position", "reason"} for s in draft["suggested"])
        assert all(s["position"] >= 1 and "shares" in s["reason"] for s in draft["suggested"])
    assert (pd["suggested"][0]["track"], spec["suggested"][0]["track"]) == ("pd", "spec")
    assert (pd["id"], spec["id"], fill["id"]) == ("nixl-pd-transfers", "eagle-drafters", gap["id"])
    assert (fill["fills"], fill["suggested"]) == (gap["id"], [])

    # The drafts never stop the catalog: it checks, and the app answers.
    checked = cli(tmp_path, copy, "catalog", "check")
    assert checked.returncode == 0, checked.stderr
    asked = cli(tmp_path, copy, "ask", "nixl", "--json")
    assert asked.returncode == 0, asked.stderr
    assert "nixl" in json.dumps(json.loads(asked.stdout)).casefold()

    before = load_catalog(copy)
    accept = [
        "catalog", "accept", pd["id"], "--track", "pd", "--position", "3",
        "--summary", "How NIXL moves the KV cache from prefill to decode instances, and what it costs.",
        "--summary-zh", "NIXL 如何把 KV cache 从 prefill 实例搬到 decode 实例，以及代价。",
        "--question", "How is the KV cache sent from prefill to decode?",
        "--question", "NIXL or LMCache connector for PD?",
        "--question", "How long does a KV transfer take?",
        "--question-zh", "KV cache 怎么从 prefill 传到 decode？", "--question-zh", "NIXL 传输要多久？",
        "--prompt", PROMPT, "--prompt-zh", "你们的 KV 传输瓶颈在哪里？",  # step 3 is essential: clubs discuss it
    ]  # fmt: skip
    done = cli(tmp_path, copy, *accept)
    assert done.returncode == 0, done.stderr
    after = load_catalog(copy)
    assert after.version != before.version and after.changelog_versions[0] == after.version
    assert after.order("pd")[2] == pd["id"] and after.order("pd")[:2] == before.order("pd")[:2]
    assert after.post(pd["id"]).minutes == pd["minutes"] and after.step("pd", pd["id"]).essential
    assert after.prompts[pd["id"]].en == PROMPT
    changelog = (copy / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {after.version} — {dt.datetime.now(dt.UTC).date().isoformat()}" in changelog and pd["id"] in changelog
    assert not (copy / "drafts" / f"{pd['id']}.yaml").exists()
    shown = cli(tmp_path, copy, "catalog", "show", "pd")
    assert shown.returncode == 0, shown.stderr
    assert any(line.startswith(" 3.") and PD_TITLE in line for line in shown.stdout.splitlines()), shown.stdout
    assert cli(tmp_path, copy, "catalog", "check").returncode == 0
    left = json.loads(cli(tmp_path, copy, "catalog", "drafts", "--json").stdout)["drafts"]
    assert {d["title"] for d in left} == {NEW_TITLE, variant}


def _author_entry(title: str, url: str, day: str, author: str) -> str:
    """An Atom entry without content, by ``author``."""
    return entry(title, url, day).replace("</entry>", f"<author><name>{author}</name></author></entry>")


def _unlinked_with_answers(root: Path) -> dict:
    """An unlinked post without questions whose answers.yaml phrases (comma-separated parts)
    hold 3+ English and 2+ Chinese ones."""
    answers = yaml.safe_load((root / "answers.yaml").read_text(encoding="utf-8"))
    posts = yaml.safe_load((root / "posts/vllm-blog.yaml").read_text(encoding="utf-8"))
    for post in posts:
        parts = [p for e in answers.get(post["id"]) or [] for p in e.split(",")]
        zh = [p for p in parts if any("\u4e00" <= c <= "\u9fff" for c in p)]
        if post.get("url") is None and not post.get("questions") and len(parts) - len(zh) >= 3 and len(zh) >= 2:
            return post
    raise AssertionError("no unlinked post with answers.yaml questions in the catalog")


def test_an_accepted_post_is_new_to_catch_me_up(copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """`added` is written on accept: a post published before a reader's last read, accepted after
    it, is listed by "catch me up" (without `added` it would count as entered on its publication day)."""
    today = dt.datetime.now(dt.UTC).date()
    published = (today - dt.timedelta(days=10)).isoformat()
    feed = tmp_path / "feed.xml"
    feed.write_text(atom([entry(NEW_TITLE, NEW_URL, published, "EAGLE drafters.", CONTENT)]), encoding="utf-8")
    assert cli(tmp_path, copy, "catalog", "import", str(feed), "--write").returncode == 0
    position = len(load_catalog(copy).essentials("spec")) + 2
    accept = [
        "catalog", "accept", "eagle-drafters", "--track", "spec", "--position", str(position),
        "--summary", "Training EAGLE drafters and what they buy.", "--summary-zh", "训练 EAGLE 草稿模型及其收益。",
        "--question", "How do I train an EAGLE drafter?", "--question", "What acceptance rate do drafters reach?",
        "--question", "Which flag turns it on?", "--question-zh", "怎么训练草稿模型？", "--question-zh", "接受率多少？",
    ]  # fmt: skip
    done = cli(tmp_path, copy, *accept)
    assert done.returncode == 0, done.stderr
    after = load_catalog(copy)
    assert after.post("eagle-drafters").added == today
    assert f"## {after.version} — {today.isoformat()}" in (copy / "CHANGELOG.md").read_text(encoding="utf-8")

    from click.testing import CliRunner

    from bot.cli.main import main
    from bot.doors.console.slack import CONSOLE_TEAM_ID
    from bot.store import Store
    from tests.dbutil import migrated_sqlite_url

    url = migrated_sqlite_url(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("CATALOG_DIR", str(copy))
    yesterday = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    store = Store.from_url(url, clock=lambda: yesterday)
    try:
        store.follow(CONSOLE_TEAM_ID, "U1", "spec")
        store.mark_read(CONSOLE_TEAM_ID, "U1", [after.order("spec")[0]])
    finally:
        store.close()
    result = CliRunner().invoke(main, ["ask", "catch me up", "--user", "U1"])
    assert result.exit_code == 0, result.output
    listed = [line for line in result.output.splitlines() if line.lstrip().startswith("•")]
    assert any(NEW_TITLE in line for line in listed), result.output


def test_accepting_a_fill_takes_its_answers_questions_and_authors_and_names_the_moves(copy: Path, tmp_path: Path):
    gap = _unlinked_with_answers(copy)
    variant = gap["title"].rsplit(" ", 1)[0].upper()
    feed = tmp_path / "feed.xml"
    url = f"{BLOG}/2026/11/20/{gap['id']}.html"
    feed.write_text(atom([_author_entry(variant, url, "2026-11-20", "Ada Lovelace")]), encoding="utf-8")
    assert cli(tmp_path, copy, "catalog", "import", str(feed), "--write").returncode == 0
    before = load_catalog(copy)
    from bot.domain.catalog.drafts import read_drafts
    from bot.slack.views.feed import review_modal

    blocks = review_modal(read_drafts(copy)[0], before)["blocks"]  # the card's modal asks for none either
    assert {b["block_id"]: b["optional"] for b in blocks if "block_id" in b} == {
        "questions": True,
        "questions_zh": True,
    }

    done = cli(tmp_path, copy, "catalog", "accept", gap["id"])  # no --question: answers.yaml has them
    assert done.returncode == 0, done.stderr
    after = load_catalog(copy)
    post = after.post(gap["id"])
    answers = " ".join(yaml.safe_load((copy / "answers.yaml").read_text(encoding="utf-8"))[gap["id"]])
    assert 3 <= len(post.questions.en) <= 6 and 2 <= len(post.questions.zh) <= 4
    assert all(q in answers for q in (*post.questions.en, *post.questions.zh))
    assert post.authors == ("Ada Lovelace",) and post.url == url.removeprefix(BLOG)
    assert gap.get("added") is None and post.added is not None  # it can be read from this version on
    assert f"## {after.version} — {post.added.isoformat()}" in (copy / "CHANGELOG.md").read_text(encoding="utf-8")

    moved = {
        t.id: after.order(t.id).index(gap["id"]) + 1 for t in after.tracks if before.order(t.id) != after.order(t.id)
    }
    assert moved, "linking the post changes no reading order: pick another post"
    named = ", ".join(f"{tid} (now step {n})" for tid, n in sorted(moved.items()))
    assert f"reading order changed: {named}" in done.stdout
    changelog = (copy / "CHANGELOG.md").read_text(encoding="utf-8")
    line = next(x for x in changelog.splitlines() if f"(`{gap['id']}`)" in x)
    assert repr(gap["title"]) in line and variant not in line and f"Reading order changed: {named}." in line


def test_a_prompt_without_its_chinese_says_so_in_one_line(copy: Path, tmp_path: Path):
    feed = tmp_path / "feed.xml"
    feed.write_text(atom([entry(NEW_TITLE, NEW_URL, "2026-12-03", "EAGLE drafters.", CONTENT)]), encoding="utf-8")
    assert cli(tmp_path, copy, "catalog", "import", str(feed), "--write").returncode == 0
    done = cli(tmp_path, copy, "catalog", "accept", "eagle-drafters", "--track", "spec", "--position", "1",
               "--summary", "Training EAGLE drafters.", "--prompt", "What would you draft with?")  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: --prompt-zh is required with --prompt on a bilingual track "
        "(a discussion prompt has English and Chinese); nothing written"
    ]
    refused = cli(tmp_path, copy, "catalog", "accept", "eagle-drafters", "--track", "spec", "--summary", "x")
    assert "questions.zh: " in refused.stderr and "(pass --question-zh, 2 to 4 times)" in refused.stderr
    assert "(pass --summary-zh)" in refused.stderr
