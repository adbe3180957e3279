"""QA round 8, reading paths: one post read as further reading of several tracks starts none of them
(``next`` listed Benchmarking and Hardware at "0 of N essential read"; a started track is one with an
essential step read); a finished track is not offered to ``follow`` as started; ``next`` passing
over steps it listed as further reading says why; the minutes' note reads plainly; a finished
essential path shows its prerequisite track as background, not "Read first"."""

from __future__ import annotations

import pytest

from bot.domain import paths
from bot.domain.related import related_track
from bot.slack.handlers import Caller, Handlers, UserInfo

ALICE = Caller("T1", "U1", "C1")
AGENTIC_READ = "vllm-pagedattention-launch kv-offloading-connector mooncake-store pegaflow redhat-vllm-vs-sglang"


def _handlers(runtime) -> Handlers:
    return Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"))


def _all_text(reply) -> str:
    """Every text of a reply's blocks (the notice too, which the fallback text leaves out)."""
    out = []
    for block in reply.blocks:
        if isinstance(block.get("text"), dict):
            out.append(block["text"]["text"])
        out += [e["text"] for e in block.get("elements", []) if isinstance(e, dict) and isinstance(e.get("text"), str)]
    return "\n".join(out)


def _name(runtime, tid: str, lang: str = "en") -> str:
    return str(runtime.holder.catalog.track(tid).names.get(lang)).replace("&", "&amp;")


def test_one_post_read_starts_only_the_track_it_is_essential_in(runtime):
    cat = runtime.holder.catalog
    post = "deepseek-v3-2-gb300"
    essential_in = [tid for tid in cat.tracks_of(post) if post in paths.essentials(cat, tid)]
    further_in = [tid for tid in cat.tracks_of(post) if tid not in essential_in]
    assert essential_in == ["quant"] and further_in, cat.tracks_of(post)  # the QA's case still holds
    h = _handlers(runtime)
    h.command(ALICE, f"read {post}")
    for command in ("next", "recommend"):
        text = _all_text(h.command(ALICE, command))
        assert _name(runtime, "quant") in text, text
        for tid in further_in:
            assert _name(runtime, tid) not in text, (command, tid, text)
        assert "0 of" not in text, text
    assert "`/vllm-path follow quant` adds it" in _all_text(h.command(ALICE, "next"))


def test_a_finished_track_is_not_offered_to_follow_as_started(runtime):
    cat = runtime.holder.catalog
    h = _handlers(runtime)
    h.command(ALICE, "read " + " ".join(paths.essentials(cat, "quant")))
    text = _all_text(h.command(ALICE, "next"))
    assert "follow quant" not in text and "0 of" not in text, text
    assert "you have finished the essential path of these" in text and "essential path done" in text, text
    # with another track started, only that one is offered to follow; the finished one is listed after it
    h.command(ALICE, "read " + paths.essentials(cat, "spec")[0])
    text = _all_text(h.command(ALICE, "next"))
    assert "`/vllm-path follow spec` adds it" in text, text
    assert text.index(_name(runtime, "spec")) < text.index(_name(runtime, "quant")), text
    # QA round 18: a finished path's next track is what `recommend` recommends; never the finished
    # track. QA round 19: quant shares at most one post with any track, so it offers none
    offered = related_track(cat, "quant")
    recommended = _all_text(h.command(ALICE, "recommend"))
    assert offered is None
    assert "follow quant" not in recommended


def test_a_post_read_only_as_further_reading_starts_one_track_not_all_of_its_tracks(runtime):
    cat = runtime.holder.catalog
    post = next(
        p.id
        for p in cat.posts
        if len(cat.tracks_of(p.id)) >= 3 and not any(p.id in paths.essentials(cat, tid) for tid in cat.tracks_of(p.id))
    )
    assert paths.started_tracks(cat, [post]) == cat.tracks_of(post)[:1]
    h = _handlers(runtime)
    h.command(ALICE, f"read {post}")
    text = _all_text(h.command(ALICE, "next"))
    shown = [tid for tid in cat.tracks_of(post) if _name(runtime, tid) in text]
    assert len(shown) == 1, (post, shown, text)


def test_each_unread_step_next_passes_is_said_passed_over_or_waiting():
    """Over every track and reader who read a prefix of its path (the catalog's reading order), each
    unread step before ``next`` is one ``passed_over`` (no link) or ``held_back`` (after an unread
    step) names: none passed silently."""
    from bot.domain.catalog import load_catalog
    from bot.locations import catalog_dir

    cat = load_catalog(catalog_dir())
    for track in cat.tracks:
        order = paths.reading_order(cat, track.id)
        for n in range(len(order)):
            state = paths.track_state(cat, track.id, order[:n])
            if state.next is None or state.next.post.url is None:
                continue
            skipped = {s.post_id for s in state.path.steps[: state.next.number - 1] if not state.is_read(s)}
            said = {s.post_id for s in state.passed_over + state.held_back}
            assert skipped == said, (track.id, n, skipped - said)


def test_next_past_listed_further_reading_says_why(runtime):
    """The QA's agentic case: the finish message listed AgentX, Decode Context Parallelism, Taking
    vLLM Apart… then said "next: Session-Aware Agentic Routing" (step 13) without a word. Decode
    Context Parallelism comes after AgentX, which has no link: the catalog's order holds, said so."""
    cat = runtime.holder.catalog
    state = paths.track_state(cat, "agentic", AGENTIC_READ.split())
    assert state.next is not None and [s.post_id for s in state.held_back] == ["decode-context-parallelism"]
    skipped = len(state.passed_over) + len(state.held_back)
    h = _handlers(runtime)
    reply = h.command(ALICE, f"read {AGENTIC_READ}").text
    assert "You finished the essential path" in reply and "Decode Context Parallelism" in reply, reply
    dcp = next(line for line in reply.split("\n") if "Decode Context Parallelism" in line)
    assert "comes after vLLM x AgentX" in dcp, dcp
    assert f"Passed over for now ({skipped} earlier): no link yet, or they come after a post without one." in reply
    assert "Passed over for now" in h.command(ALICE, "next").text
    view = _all_text(h.command(ALICE, "agentic"))
    assert "Waiting for the step they come after: Efficient Decode Context Parallelism" in view, view
    h.command(ALICE, "lang zh")
    assert f"暂时跳过前面 {skipped} 篇" in h.command(ALICE, "next").text


def test_minutes_note_says_for_how_many_with_a_link(runtime):
    cat = runtime.holder.catalog
    h = _handlers(runtime)
    h.command(ALICE, "read " + " ".join(paths.essentials(cat, "quant")))
    state = paths.track_state(cat, "quant", paths.essentials(cat, "quant"))
    assert state.unknown_left == 1  # quant's further reading: one step without a link
    known = state.further_left - 1
    text = h.command(ALICE, "next").text
    assert f"(minutes for the {known} with a link; 1 more has no link yet)" in text, text
    assert "the minutes are of" not in text
    state = paths.track_state(cat, "agentic", AGENTIC_READ.split())
    h.command(ALICE, f"read {AGENTIC_READ}")
    text = h.command(ALICE, "next agentic").text
    n = state.unknown_left
    assert n > 1 and f"(minutes for the {state.further_left - n} with a link; {n} more have no link yet)" in text
    h.command(ALICE, "lang zh")
    assert (
        f"（分钟数只算有链接的 {state.further_left - n} 篇；另有 {n} 篇尚无链接）"
        in h.command(ALICE, "next agentic").text
    )


@pytest.mark.parametrize(
    ("lang", "first", "background"), [("en", "Read first: ", "Background: "), ("zh", "先读：", "背景知识：")]
)
def test_a_finished_essential_path_shows_its_prerequisite_as_background(runtime, lang, first, background):
    cat = runtime.holder.catalog
    path = paths.track_path(cat, "agentic")
    assert path.before, "agentic names a track to read first"
    h = _handlers(runtime)
    h.command(ALICE, f"lang {lang}")
    name = _name(runtime, path.before[0], lang)

    def before_line() -> str:
        view = _all_text(h.command(ALICE, "agentic"))
        return next(x for x in view.split("\n") if name in x and ("核心路径" in x or "essential path" in x))

    assert before_line().startswith(first)  # not started: read that track first
    h.command(ALICE, "read " + " ".join(s.post_id for s in path.essentials))
    assert before_line().startswith(background)  # finished: no longer "first"
