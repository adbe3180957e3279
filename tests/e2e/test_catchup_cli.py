"""``vllm-path ask "catch me up" --user U`` on a copy of the catalog whose followed track gained
posts after the reader's last read (issue 44): exactly those, with their place; nothing new says so
and gives the next step; the four phrasings answer alike."""

from __future__ import annotations

import copy as copying
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bot.cli.main import main
from bot.doors.console.slack import CONSOLE_TEAM_ID
from bot.store import Store
from tests.dbutil import migrated_sqlite_url
from tests.domain.catalog.helpers import catalog_copy

READ_AT = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
ADDED = "2026-12-04"
NEW_SPEC = {"spec-late-drafting": "Later Drafting Notes for Speculative Decoding", "p-eagle-2": "P-EAGLE 2 in vLLM"}
NEW_QUANT = {"quant-late": "A Late Quantization Study"}


def _add_posts(root: Path) -> None:
    """Three posts entered on ``ADDED``: two further steps of spec (the second updates P-EAGLE),
    one of quant; the copy's other posts keep their days (all before ``READ_AT``)."""
    path = root / "posts" / "vllm-blog.yaml"
    posts = yaml.safe_load(path.read_text(encoding="utf-8"))
    model = next(p for p in posts if p["id"] == "p-eagle")
    for i, (pid, title) in enumerate({**NEW_SPEC, **NEW_QUANT}.items()):
        post = copying.deepcopy(model)
        post.update(id=pid, title=title, url=f"/2026/12/0{i + 1}/{pid}.html", added=ADDED, aliases=[])
        post.update(published="2026-12-01", redirect_from=[])
        posts.append(post)
    path.write_text(yaml.safe_dump(posts, allow_unicode=True, sort_keys=False), encoding="utf-8")
    for track, ids in (("spec", NEW_SPEC), ("quant", NEW_QUANT)):
        tpath = root / "tracks" / f"{track}.yaml"
        data = yaml.safe_load(tpath.read_text(encoding="utf-8"))
        data["steps"] += [{"post": pid, "level": "advanced"} for pid in ids]
        tpath.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    relations = yaml.safe_load((root / "relations.yaml").read_text(encoding="utf-8"))
    note = {"en": "The second version of the parallel drafter.", "zh": "并行草稿模型的第二版。"}
    relations.append({"post": "p-eagle-2", "updates": "p-eagle", "note": note})
    (root / "relations.yaml").write_text(yaml.safe_dump(relations, allow_unicode=True), encoding="utf-8")


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """A catalog copy with the new posts and a database where U1 and U2 follow spec; U1 last read
    before the posts were added, U2 after."""
    root = catalog_copy(tmp_path / "catalog")
    _add_posts(root)
    url = migrated_sqlite_url(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("CATALOG_DIR", str(root))
    clock = {"now": READ_AT}
    store = Store.from_url(url, clock=lambda: clock["now"])
    for user in ("U1", "U2"):
        store.follow(CONSOLE_TEAM_ID, user, "spec")
        store.mark_read(CONSOLE_TEAM_ID, user, ["spec-decode"])
    clock["now"] = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
    store.mark_read(CONSOLE_TEAM_ID, "U2", ["laguna-xs2-dflash-llm-compressor"])
    yield store
    store.close()


def _ask(*args: str) -> str:
    result = CliRunner().invoke(main, ["ask", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_ask_catch_me_up_lists_exactly_the_posts_added_since_the_last_read_with_their_place(env: Store) -> None:
    from bot.domain.catalog import load_catalog
    from bot.domain.paths import track_path
    from bot.locations import catalog_dir

    path = track_path(load_catalog(catalog_dir()), "spec")
    out = _ask("catch me up", "--user", "U1")
    listed = [line for line in out.splitlines() if line.lstrip().startswith("•")]
    assert len(listed) == 2, out
    drafting = next(line for line in listed if NEW_SPEC["spec-late-drafting"] in line)
    assert f"further reading in *Speculative decoding* (step {path.step('spec-late-drafting').number})" in drafting
    eagle = next(line for line in listed if NEW_SPEC["p-eagle-2"] in line)
    assert f"updates step {path.step('p-eagle').number} of *Speculative decoding*" in eagle
    assert "The second version of the parallel drafter." in eagle and " min" in eagle
    assert NEW_QUANT["quant-late"] not in out  # quant: neither followed nor started
    assert "*New since 2 Dec 2026*" in out and "Your next step" in out
    for ask in ("what did I miss", "Catch me up!"):
        assert _ask(ask, "--user", "U1") == out


def test_nothing_new_says_so_and_gives_the_next_step(env: Store) -> None:
    out = _ask("catch me up", "--user", "U2")
    assert "Nothing new since 5 Dec 2026 in *Speculative decoding*." in out
    assert "Your next step" in out and "•" not in out


def test_the_chinese_phrasings_answer_alike(env: Store) -> None:
    out = _ask("跟上进度", "--user", "U1")
    assert _ask("我错过了什么", "--user", "U1") == out
    assert "2026年12月2日以来" in out and NEW_SPEC["p-eagle-2"] in out and "更新了*推测解码*第 " in out
    assert NEW_QUANT["quant-late"] not in out
