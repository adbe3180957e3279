"""``vllm-path search``, ``next`` and ``stats``: what a reader (or a workspace admin) would look up,
in the terminal (registered by bot/cli/main.py)."""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import Any, cast

import click

from bot.cli.common import (
    SlackId,
    catalog_option,
    catalog_or_exit,
    dump_json,
    fail,
    load_catalog_or_exit,
    option,
    track_or_exit,
)
from bot.cli.show import minutes_words, post_where
from bot.domain.catalog import Catalog
from bot.domain.catalog.models import ExternalPrerequisite
from bot.domain.outside_refs import covering_post, reference_title
from bot.domain.paths import TrackState, next_step, positions, progress, read_after, track_state
from bot.i18n import text
from bot.locations import catalog_dir as configured_catalog_dir


def _post_brief(cat, post_id: str) -> dict:
    post = cat.post(post_id)
    return {"post_id": post.id, "title": post.title}


def _search_json(cat, result) -> dict:
    """The ``search --json`` document (see the command's help)."""
    track = None
    if result.track is not None:
        track = {"id": result.track.track_id, "name": cat.track(result.track.track_id).names.en}
    results = []
    for match in result.results:
        post = cat.post(match.post_id)
        places = positions(cat, post.id)
        after = read_after(cat, places[0].track_id, post.id) if places else ()
        results.append(
            {
                "post_id": post.id,
                "title": post.title,
                "url": cat.url_of(post),
                "score": match.score,
                "tracks": [{"id": p.track_id, "position": p.position, "of": p.of} for p in places],
                "next": _post_brief(cat, after[0].post) if after else None,
            }
        )
    return {
        "query": result.query,
        "catalog_version": cat.version,
        "track": track,
        "results": results,
        "total": result.total,
        "offset": result.offset,
        "confidence": result.confidence,
        "link": None if result.link is None else asdict(result.link),
    }


@click.command("search")
@click.argument("query")
@option("--limit", default=5, type=click.IntRange(1, 50), help="At most this many posts.")
@option(
    "--offset",
    default=0,
    type=click.IntRange(0, 100),
    help="Skip this many good matches (paging: the next page starts at offset + limit).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@catalog_option
def search_cmd(query: str, limit: int, offset: int, as_json: bool, catalog_dir: str | None) -> None:
    """Find posts (and the track QUERY names) in English or Chinese; typos are fine; a link to a
    post finds that post.

    JSON: {"query", "catalog_version", "track": {"id", "name"} | null, "total" (good matches),
    "offset", "confidence": "confident" | "closest" | "none" (none: no post matches),
    "link": {"status": "post" | "unknown" | "home" | "foreign", "url", "post_id"} | null,
    "results": [{"post_id", "title", "url", "score" (0-100), "tracks": [{"id", "position", "of"}],
    "next": {"post_id", "title"} | null}]}; "next" is what comes after the post in its first
    track; link status "unknown" means a blog URL whose post is not in the catalog yet. "total"
    counts at most the first 100 good matches: an --offset at or past it lists none and says so. An
    empty QUERY is a usage error (exit 2); a punctuation-only one gives no results (exit 0).
    """
    if not query.strip():  # QA round 8: `search ''` said how to search, and exited 0
        raise click.UsageError("QUERY is empty: give words to search for, e.g. `vllm-path search nixl`")
    from bot.domain.search import Matcher, default_vocabulary
    from bot.domain.search.cache import kept_matcher  # deferred: numpy, rapidfuzz and bm25s

    if (configured_catalog_dir(catalog_dir) / "vocabulary.yaml").is_file():  # the index (and catalog) kept there
        cat, matcher = catalog_or_exit(catalog_dir, kept_matcher)
    else:
        cat = load_catalog_or_exit(catalog_dir)
        matcher = Matcher(cat, default_vocabulary())
    result = matcher.search(query, limit=limit, offset=offset)
    data = _search_json(cat, result)
    if as_json:
        dump_json(data)
        return
    if data["track"]:
        click.echo(
            f"Track: {data['track']['name']} ({data['track']['id']}): "
            f"`vllm-path next {data['track']['id']}` shows where to start"
        )
    if result.link is not None and result.link.status in ("unknown", "home"):
        click.echo(
            f"{result.link.url} is "
            + ("the blog's home page." if result.link.status == "home" else "not in the catalog yet.")
        )
        return
    if not data["results"] and result.total and offset >= result.total:  # QA round 8: "No post matches"
        last = max(0, result.total - limit)
        click.echo(
            f"--offset {offset} is past the {_listed(result.total)} for {query!r}; the last page: --offset {last}"
        )
        return
    if not data["results"]:
        click.echo(result.hint or f"No post matches {query!r}.")
        return
    if result.confidence == "closest":
        click.echo("Closest posts (no post matches every word):")
    for i, item in enumerate(data["results"], offset + 1):
        click.echo(f"{i}. {item['title']}  [{item['score']:.1f}]")
        click.echo(f"   {item['url'] or '(no URL known)'}  ({item['post_id']})")
        places = ", ".join(f"{p['id']} step {p['position']} of {p['of']}" for p in item["tracks"])
        nxt = f"; next: {item['next']['title']}" if item["next"] else ""
        click.echo(f"   {places or 'not in a track'}{nxt}")
    if result.has_more:
        click.echo(f"{result.total - offset - len(result.results)} more: --offset {offset + len(result.results)}")


def _listed(total: int) -> str:
    """The good matches ``total`` counts, in words: all of them, or the first :data:`MAX_TOTAL` listed."""
    from bot.domain.search.weights import MAX_TOTAL  # deferred: the CLI's cold start

    return f"first {total} good matches listed" if total >= MAX_TOTAL else f"{total} good matches"


@click.command("next")
@click.argument("tracks", nargs=-1, metavar="[TRACK...|all]")
@click.option(
    "--read", multiple=True, metavar="POST_ID", help="A post already read (id or former id); repeat for several."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@catalog_option
def next_cmd(tracks: tuple[str, ...], read: tuple[str, ...], as_json: bool, catalog_dir: str | None) -> None:
    """The next step of each TRACK (id, name, alias, even misspelt; several as chat's `next spec pd`)
    for a reader who has read --read; no TRACK, or `all`: of every track, in the catalog's order.

    The next step is the first one in path order whose prerequisites are all read. JSON, per track:
    {"catalog_version", "track": {"id", "name"}, "next": {"post_id", "title", "url", "level",
    "position", "of", "note", "minutes" (reading time; null: unknown), "after": [{"post_id",
    "title", "read"}], "external_prerequisites": [{"title", "url", "kind", "label", "covered_by"}]}
    | null, "progress": {"read", "total", "essential_read", "essential"}, "done"}; several tracks
    give a list of those. Text counts and labels its references as Slack does (Read first,
    Background, Afterwards). Exit 1 for an unknown post id, 2 for words naming no track.
    """
    cat = load_catalog_or_exit(catalog_dir)
    whole = " ".join(tracks)  # `next speculative decoding`: one name in two words first
    every = whole.casefold() in _EVERY_TRACK  # QA round 20: the help promised "(or of all)"
    from bot.domain.search import track_named

    ids = [track_named(cat, whole)] if len(tracks) > 1 and not every else []
    if every:
        ids = [tr.id for tr in cat.tracks]
    elif not ids or ids[0] is None:
        ids = list(dict.fromkeys(track_or_exit(cat, word) for word in tracks))
    if unknown := [p for p in read if not cat.has_post(p)]:
        fail(f"Unknown post id(s): {', '.join(unknown)}", 1)
    done = cast(set[str], {cat.resolve_post_id(p) for p in read})
    found = [(_next_data(cat, str(track_id), done), track_state(cat, str(track_id), done)) for track_id in ids]
    if as_json:
        dump_json(found[0][0] if len(found) == 1 and not every else [data for data, _ in found])
        return
    for i, (data, state) in enumerate(found):
        if i:
            click.echo()
        _echo_next(cat, data, state)


_EVERY_TRACK = frozenset({"", "all", "all tracks", "every track", "everything"})
"""What ``next`` takes for every track: nothing, or ``all``."""


def _next_data(cat: Catalog, track_id: str, done: set[str]) -> dict[str, Any]:
    """One track's ``next --json`` document (see :func:`next_cmd`)."""
    trk = cat.track(track_id)
    step = next_step(cat, track_id, done)
    n_read, total = progress(cat, track_id, done)
    nxt: dict[str, Any] | None = None
    if step is not None:
        post = cat.post(step.post)
        nxt = {
            "post_id": post.id,
            "title": post.title,
            "url": cat.url_of(post),
            "level": step.level,
            "position": cat.order(track_id).index(post.id) + 1,
            "of": total,
            "note": step.note.en if step.note else None,
            "minutes": post.minutes,
            "after": [
                dict(_post_brief(cat, ref), read=ref in done) for ref in cat.order(track_id) if ref in set(step.after)
            ],
            "external_prerequisites": [_outside(cat, e) for e in step.external_prerequisites],
        }
    state = track_state(cat, track_id, done)
    data = {
        "catalog_version": cat.version,
        "track": {"id": trk.id, "name": trk.names.en},
        "next": nxt,
        "progress": {
            "read": n_read,
            "total": total,
            "essential_read": state.essentials_read,
            "essential": len(state.path.essentials),
        },
        "done": step is None,
    }
    return data


def _echo_next(cat: Catalog, data: dict[str, Any], state: TrackState) -> None:
    """One track's ``next`` as text (see :func:`next_cmd`)."""
    trk, nxt, total = data["track"], data["next"], data["progress"]["total"]
    click.echo(f"{trk['name']} ({trk['id']}): {_count(state)}")
    if nxt is None:
        click.echo("Path done: every step is read.")
        return
    minutes = f", {minutes_words(cat.post(nxt['post_id']))}" if nxt["minutes"] is not None else ""  # QA round 20
    click.echo(f"Next: step {nxt['position']} of {total} ({nxt['level']}{minutes}): {nxt['title']}")
    click.echo(f"  {post_where(cat, cat.post(nxt['post_id']))}  ({nxt['post_id']})")  # chat's words (QA round 7)
    if nxt["note"]:
        click.echo(f"  Why: {nxt['note']}")
    # the labels Slack, App Home and the web page give them (bot.slack.views.links.reference_lines)
    for ref in nxt["after"]:
        click.echo(f"  {text('ref.read_first')}: {ref['title']} ({'read' if ref['read'] else 'unread'})")
    for ext in nxt["external_prerequisites"]:
        label = text("ref.background" if ext["kind"] == "prerequisite" else "ref.afterwards")
        shown = f"{ext['label']} <{ext['url']}>" if ext["url"] else ext["label"]
        if ext["covered_by"]:
            cover = ext["covered_by"]
            post = cover["title"] + (f" <{cover['url']}>" if cover["url"] else "")
            shown = text("ref.covered").format(title=shown, post=post)
        click.echo(f"  {label}: {shown}")


def _count(state: TrackState) -> str:
    """How far the reader is, worded as Slack's replies word it
    (:func:`bot.slack.views.parts.read_count`): the essential path first, then all steps."""
    if state.path.essentials and not state.essentials_done:
        return text("count.essential_and_all").format(
            done=state.essentials_read, essential=len(state.path.essentials), read=state.read_count, total=state.total
        )
    return text("count.all").format(read=state.read_count, total=state.total)


def _outside(cat: Catalog, ref: ExternalPrerequisite) -> dict[str, Any]:
    """A reference outside the catalog for ``next``: ``{"title", "url", "kind", "label" (as the
    doors name it, :func:`bot.domain.outside_refs.reference_title`), "covered_by" ({"post_id",
    "title", "url"} of the post its note names as covering the same ground, or null)}``."""
    cover = covering_post(cat, ref)
    return {
        "title": ref.title,
        "url": ref.url,
        "kind": ref.kind,
        "label": reference_title(ref),
        "covered_by": None if cover is None else {"post_id": cover.id, "title": cover.title, "url": cat.url_of(cover)},
    }


@click.command("stats")
@click.option(
    "--team",
    "team_id",
    type=SlackId("T0123ABCD"),
    help="Slack team id (T…) of the workspace (default: the only one the database knows).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as JSON.")
@click.option("--lang", default="en", type=click.Choice(["en", "zh"]), help="Language of the text.")
def stats_cmd(team_id: str | None, as_json: bool, lang: str) -> None:
    """Reading insights of one workspace (what `/vllm-path stats` shows its admins): active
    readers, reads per week, completion per track, the share of each track's followers who finished
    its essential path within 4 weeks of following, most-read posts, digest health. Counts only;
    a post or step read by 3 people or fewer shows no number, nor a share of fewer than 4 followers.

    JSON: the numbers, with "completions": [{"track_id", "cohort" (followers of 4 weeks or more),
    "finished", "share" (0..1)}], all three null for a cohort of 1 to 3."""
    from bot.cli.digest import _runtime
    from bot.doors.console import render_blocks
    from bot.slack.commands.stats import finished_counts, team_insights
    from bot.slack.views.insights import insights_reply
    from bot.slack.views.plan import with_finished

    runtime = _runtime()
    try:
        if team_id is None:  # QA round 13: "Missing option '--team'" with one workspace in the database
            team_id = _only_team(runtime.store)
        ins = team_insights(runtime, team_id)
        if ins.readers_total == 0 and not ins.channels:  # a mistyped id looks like an empty workspace
            click.echo(
                f"note: nothing recorded for {team_id!r} (no reader, no channel digest): check the "
                "id (a workspace's starts with T, an Enterprise Grid org's with E).",
                err=True,
            )
        if as_json:
            dump_json(ins.as_dict())
        else:
            cat = runtime.holder.catalog  # as in Slack, with the paths finished (QA round 2: the line was missing)
            reply = with_finished(insights_reply(cat, ins, lang), cat, finished_counts(runtime, team_id), lang)
            click.echo(terminal_text(render_blocks(reply.blocks)[0]))
    finally:
        runtime.store.close()


def _only_team(store) -> str:
    """The one workspace ``store`` knows (readers' progress and settings, follows, channel
    digests, installations); exit 2 listing them when there are several, or saying there is none."""
    from sqlalchemy import select, union

    from bot.store.models import ChannelSubscription, ReadingProgress, TrackFollow, UserSettings, slack_bots

    tables = (ReadingProgress, UserSettings, TrackFollow, ChannelSubscription, slack_bots)
    with store.engine.connect() as conn:
        teams = sorted({t for t in conn.scalars(union(*(select(x.c.team_id) for x in tables))) if t})
    if len(teams) == 1:
        return teams[0]
    if not teams:
        fail("error: the database knows no workspace yet: pass --team T… (a workspace's id)", 2)
    fail(f"error: the database knows {len(teams)} workspaces: pass --team with one of {', '.join(teams)}", 2)


_BOLD = re.compile(r"\*([^*\n]+)\*")
_CODE = re.compile(r"`{1,3}([^`]*)`{1,3}")
_EMOJI_CODE = re.compile(r" ?:([a-z][a-z0-9_+\-]*): ?")


def terminal_text(text: str) -> str:
    """The console's rendering of a reply (:func:`bot.doors.console.render_blocks`) as plain text
    for a terminal: ``*bold*`` and ``code`` marks dropped, an ``:emoji:`` code the console draws
    (its ``EMOJI``) as the character, any other dropped."""
    from bot.doors.console.render import EMOJI

    def emoji(m: re.Match[str]) -> str:
        drawn = EMOJI.get(m.group(1))
        if drawn is None:  # dropped, with one of the spaces around it
            return " " if m.group(0).startswith(" ") and m.group(0).endswith(" ") else ""
        return m.group(0).replace(f":{m.group(1)}:", drawn)

    return _EMOJI_CODE.sub(emoji, _CODE.sub(r"\1", _BOLD.sub(r"\1", text)))
