"""The one entry point, ``vllm-path``: catalog tooling, search, the Slack doors and the scheduler.

Exit codes: 0 success, 1 a check failed or the input was refused, 2 a usage or configuration error.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, cast

import click

from bot.catalog import CatalogError, check_catalog
from bot.catalog.diff import diff_refs
from bot.catalog.export import export_catalog, render_track
from bot.cli_common import load_catalog_or_exit as _load
from bot.cli_common import our_process, write_pid_file
from bot.config import Settings
from bot.logging_setup import redact, secrets_of, setup_logging
from bot.paths import next_step, positions, progress, read_after
from bot.serve import ConfigError, serve


def _settings() -> Settings:
    return Settings()


def _dump(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


catalog_option = click.option("--catalog", "catalog_dir", type=click.Path(file_okay=False),
                              help="Catalog folder (default: CATALOG_DIR or the repo's catalog/).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """vllm-path: reading paths through the vLLM blog, in Slack and in your terminal.

    Start with `vllm-path console` (no Slack workspace needed).
    """


# --- catalog -----------------------------------------------------------------------------------


@main.group()
def catalog() -> None:
    """Check, export, show and diff the versioned catalog."""


@catalog.command("check")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
def catalog_check(directory: str | None) -> None:
    """Validate the catalog and its search vocabulary (``vocabulary.yaml``, ``answers.yaml``:
    :func:`bot.search.validate`, every answers key a post id): exit 0 when valid (warnings
    listed), 1 with every error otherwise."""
    from bot.catalog import check_catalog
    from bot.catalog.loader import CatalogIssue
    from bot.search.vocabulary import validate  # yaml only: no index is built

    path = Path(directory) if directory else _settings().catalog_dir
    cat, issues = check_catalog(path)
    post_ids = {p.id for p in cat.posts} if cat is not None else None
    for message in validate(path, post_ids) if path.is_dir() else []:
        file, _, rest = message.partition(": ")
        issues.append(CatalogIssue(file, "search vocabulary", "-", rest or message))
    for issue in issues:
        click.echo(f"{issue.severity}: {issue}", err=issue.severity == "error")
    errors = [i for i in issues if i.severity == "error"]
    if errors or cat is None:
        click.echo(f"catalog check failed: {len(errors)} error(s), "
                   f"{len(issues) - len(errors)} warning(s) in {path}", err=True)
        sys.exit(1)
    click.echo(f"catalog {cat.version} ok: {len(cat.posts)} posts, {len(cat.tracks)} tracks, "
               f"{len(issues)} warning(s)")


@catalog.command("export")
@click.option("--json", "as_json", is_flag=True, default=True, help="Print JSON (the default).")
@catalog_option
def catalog_export(as_json: bool, catalog_dir: str | None) -> None:
    """Print the compiled catalog as JSON: version, posts, tracks with steps in path order."""

    _dump(export_catalog(_load(catalog_dir)))


@catalog.command("show")
@click.argument("track")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en")
@catalog_option
def catalog_show(track: str, lang: str, catalog_dir: str | None) -> None:
    """Show a track's path in reading order (TRACK is a track id, name or alias)."""

    cat = _load(catalog_dir)
    from bot.search import track_named  # deferred: the search index pulls in numpy and rapidfuzz

    track_id = track_named(cat, track)
    if track_id is None:
        click.echo(f"No track matches {track!r}. Tracks: {', '.join(t.id for t in cat.tracks)}", err=True)
        sys.exit(1)
    click.echo(render_track(cat, track_id, lang))


@catalog.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def catalog_diff(old: str, new: str, as_json: bool) -> None:
    """What changed between two catalogs (folders or git revisions such as HEAD~1)."""

    try:
        result = diff_refs(old, new)
    except (ValueError, CatalogError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    if as_json:
        _dump(result.to_dict())
    else:
        click.echo(result.render())


@catalog.command("import")
@click.argument("source")
@click.option("--write", is_flag=True, help="Write new posts as drafts and fill unknown fields.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@catalog_option
def catalog_import(source: str, write: bool, as_json: bool, catalog_dir: str | None) -> None:
    """Compare SOURCE (an Atom/RSS feed file or http(s) URL, or a Jekyll blog source folder with
    _posts/) with the catalog: posts it lacks (with likely tracks), fields it can fill, conflicts.

    Nothing changes without --write; then new posts become drafts in posts/drafts.yaml (which
    `catalog check` refuses until a person writes their summaries) and only unknown fields
    (url: null, a date range, no authors) are filled. Exit 1 with the reason, writing nothing,
    when the source is unreachable or malformed.
    """
    from bot.catalog.importer import run_import  # deferred: feedparser and frontmatter (~0.2 s)

    path = Path(catalog_dir) if catalog_dir else _settings().catalog_dir
    sys.exit(run_import(source, path, write=write, as_json=as_json))


DEFAULT_PID_FILE = "vllm-path.pid"
"""Where ``serve`` writes its process id (working directory), for ``catalog reload``."""
PID_GLOB = "vllm-path*.pid"
"""``catalog reload`` signals every process named by a pid file matching this (``serve``'s, and
each ``scheduler``'s ``vllm-path-scheduler-<pid>.pid``)."""


@catalog.command("reload")
@click.option("--pid-file", "pid_files", multiple=True, type=click.Path(dir_okay=False),
              help=f"Pid file of a running process (repeatable; default: every {PID_GLOB} in the "
                   "working directory).")
def catalog_reload(pid_files: tuple[str, ...]) -> None:
    """Make the running `serve` (and `scheduler`) load the catalog again, like SIGHUP.

    Checks CATALOG_DIR first: an invalid catalog is refused here with every error (exit 1), and
    the running processes keep serving their version. Otherwise sends SIGHUP to each process
    named by a pid file; each reloads, logs the outcome, and keeps the last good version if the
    reload is refused. Exit 0 when at least one process was signalled, 1 otherwise.
    """


    settings = _settings()
    cat, issues = check_catalog(settings.catalog_dir)
    errors = [i for i in issues if i.severity == "error"]
    if errors or cat is None:
        for issue in errors:
            click.echo(f"error: {issue}", err=True)
        click.echo(f"catalog reload refused: {len(errors)} error(s) in {settings.catalog_dir}; "
                   "running processes keep their current version", err=True)
        sys.exit(1)
    paths = [Path(p) for p in pid_files] or sorted(Path.cwd().glob(PID_GLOB))
    signalled = 0
    for path in paths:
        try:
            pid = int(path.read_text(encoding="ascii").strip())
        except (OSError, ValueError):
            click.echo(f"warning: {path}: no readable pid", err=True)
            continue
        if not our_process(pid):
            click.echo(f"warning: {path}: process {pid} is not running (stale pid file)", err=True)
            continue
        if not hasattr(signal, "SIGHUP"):  # pragma: no cover - Windows
            click.echo("error: SIGHUP is not available on this platform", err=True)
            sys.exit(2)
        os.kill(pid, signal.SIGHUP)
        signalled += 1
        click.echo(f"sent SIGHUP to process {pid} ({path}): it reloads catalog {cat.version} "
                   "and logs the outcome")
    if not signalled:
        where = ", ".join(str(p) for p in paths) or f"{PID_GLOB} in {Path.cwd()}"
        click.echo(f"catalog {cat.version} is valid, but no running vllm-path process was found "
                   f"({where}); start `vllm-path serve` or send it SIGHUP", err=True)
        sys.exit(1)


# --- search and next (owned with bot/search.py) ------------------------------------------------


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
        results.append({
            "post_id": post.id,
            "title": post.title,
            "url": cat.url_of(post),
            "score": match.score,
            "tracks": [{"id": p.track_id, "position": p.position, "of": p.of} for p in places],
            "next": _post_brief(cat, after[0].post) if after else None,
        })
    return {"query": result.query, "catalog_version": cat.version, "track": track,
            "results": results}


@main.command("search")
@click.argument("query")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 50),
              help="At most this many posts.")
@click.option("--offset", default=0, show_default=True, type=click.IntRange(0, 100),
              help="Skip this many good matches (paging: the next page starts at offset + limit).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@catalog_option
def search_cmd(query: str, limit: int, offset: int, as_json: bool, catalog_dir: str | None) -> None:
    """Find posts (and the track QUERY names) in English or Chinese; typos are fine; a link to a
    post finds that post.

    JSON: {"query", "catalog_version", "track": {"id", "name"} | null, "total" (good matches),
    "offset", "link": {"status": "post" | "unknown" | "foreign", "url", "post_id"} | null,
    "results": [{"post_id", "title", "url", "score" (0-100), "tracks": [{"id", "position", "of"}],
    "next": {"post_id", "title"} | null}]}; "next" is what comes after the post in its first
    track; link status "unknown" means a blog URL whose post is not in the catalog yet. An empty
    or punctuation-only query gives no results (exit 0).
    """
    from bot.search import Matcher, load_vocabulary  # deferred: the search index pulls in numpy, rapidfuzz and bm25s

    cat = _load(catalog_dir)
    directory = Path(catalog_dir) if catalog_dir else _settings().catalog_dir
    vocabulary = load_vocabulary(directory) if (directory / "vocabulary.yaml").is_file() else None
    result = Matcher(cat, vocabulary).search(query, limit=limit, offset=offset)
    data = _search_json(cat, result)
    data["total"] = result.total
    data["offset"] = result.offset
    data["link"] = (None if result.link is None else
                    {"status": result.link.status, "url": result.link.url,
                     "post_id": result.link.post_id})
    if as_json:
        _dump(data)
        return
    if data["track"]:
        click.echo(f"Track: {data['track']['name']} ({data['track']['id']}): "
                   f"`vllm-path next {data['track']['id']}` shows where to start")
    if result.link is not None and result.link.status == "unknown":
        click.echo(f"{result.link.url} is not in the catalog yet.")
        return
    if not data["results"]:
        click.echo(result.hint or f"No post matches {query!r}.")
        return
    for i, item in enumerate(data["results"], offset + 1):
        click.echo(f"{i}. {item['title']}  [{item['score']:.1f}]")
        click.echo(f"   {item['url'] or '(no URL known)'}  ({item['post_id']})")
        places = ", ".join(f"{p['id']} step {p['position']} of {p['of']}" for p in item["tracks"])
        nxt = f"; next: {item['next']['title']}" if item["next"] else ""
        click.echo(f"   {places or 'not in a track'}{nxt}")
    if result.has_more:
        click.echo(f"{result.total - offset - len(result.results)} more: "
                   f"--offset {offset + len(result.results)}")


@main.command("next")
@click.argument("track")
@click.option("--read", "read", multiple=True, metavar="POST_ID",
              help="A post already read (id or former id); repeat for several.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@catalog_option
def next_cmd(track: str, read: tuple[str, ...], as_json: bool, catalog_dir: str | None) -> None:
    """The next step of TRACK (id, name, alias, even misspelt) for a reader who has read --read.

    The next step is the first one in path order whose prerequisites are all read. JSON:
    {"catalog_version", "track": {"id", "name"}, "next": {"post_id", "title", "url", "level",
    "position", "of", "note", "after": [{"post_id", "title", "read"}], "external_prerequisites":
    [{"title", "url"}]} | null, "progress": {"read", "total"}, "done"}. Exit 1 for an unknown track
    or post id.
    """

    cat = _load(catalog_dir)
    from bot.search import track_named  # deferred: the search index pulls in numpy and rapidfuzz

    track_id = track_named(cat, track)
    if track_id is None:
        click.echo(f"No track matches {track!r}. Tracks: {', '.join(t.id for t in cat.tracks)}",
                   err=True)
        sys.exit(1)
    unknown = [p for p in read if not cat.has_post(p)]
    if unknown:
        click.echo(f"Unknown post id(s): {', '.join(unknown)}", err=True)
        sys.exit(1)
    # Every id resolves: the unknown ones exited above.
    done = cast(set[str], {cat.resolve_post_id(p) for p in read})
    trk = cat.track(track_id)
    step = next_step(cat, track_id, done)
    n_read, total = progress(cat, track_id, done)
    nxt: dict[str, Any] | None = None
    if step is not None:
        post = cat.post(step.post)
        nxt = {
            "post_id": post.id, "title": post.title, "url": cat.url_of(post), "level": step.level,
            "position": cat.order(track_id).index(post.id) + 1, "of": total,
            "note": step.note.en if step.note else None,
            "after": [dict(_post_brief(cat, ref), read=ref in done)
                      for ref in cat.order(track_id) if ref in set(step.after)],
            "external_prerequisites": [{"title": e.title, "url": e.url}
                                       for e in step.external_prerequisites],
        }
    data = {"catalog_version": cat.version, "track": {"id": trk.id, "name": trk.names.en},
            "next": nxt, "progress": {"read": n_read, "total": total}, "done": step is None}
    if as_json:
        _dump(data)
        return
    click.echo(f"{trk.names.en} ({trk.id}): {n_read} of {total} read")
    if nxt is None:
        click.echo("Path done: every step is read.")
        return
    click.echo(f"Next: step {nxt['position']} of {total} ({nxt['level']}): {nxt['title']}")
    click.echo(f"  {nxt['url'] or '(no URL known)'}  ({nxt['post_id']})")
    if nxt["note"]:
        click.echo(f"  Why: {nxt['note']}")
    for ref in nxt["after"]:
        click.echo(f"  Read first: {ref['title']} ({'read' if ref['read'] else 'unread'})")
    for ext in nxt["external_prerequisites"]:
        click.echo(f"  Know first: {ext['title']}" + (f" <{ext['url']}>" if ext["url"] else ""))


# --- the Slack doors: console, ask, serve ------------------------------------------------------


@main.command("stats")
@click.option("--team", "team_id", required=True, help="Slack team id (T…) of the workspace.")
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as JSON.")
@click.option("--lang", default="en", type=click.Choice(["en", "zh"]), help="Language of the text.")
def stats_cmd(team_id: str, as_json: bool, lang: str) -> None:
    """Reading insights of one workspace (what `/vllm-path stats` shows its admins): active
    readers, reads per week, completion per track, most-read posts, digest health. Counts only;
    a post or step read by 3 people or fewer shows no number."""
    from bot.console import render_blocks
    from bot.digest.cli import _runtime
    from bot.slack.commands.stats import team_insights
    from bot.slack.views.insights import insights_blocks

    runtime = _runtime()
    try:
        ins = team_insights(runtime, team_id)
        if as_json:
            _dump(ins.as_dict())
        else:
            text, _ = render_blocks([b.to_dict() for b in insights_blocks(runtime.holder.catalog, ins, lang)])
            click.echo(text)
    finally:
        runtime.store.close()


@main.command("console")
def console_cmd() -> None:
    """Talk to the bot in your terminal: the real Slack app against a local stand-in for Slack.

    No Slack workspace or credentials needed (SQLite by default). Type `speculative`, `help`,
    a number to press a button, `home`, `calls`, `quit`. Reads a script from stdin too:
    `vllm-path console < script.txt`.
    """
    from bot.console import main as console_main  # deferred: slack_sdk and the Slack stand-in (~0.4 s)

    try:
        sys.exit(console_main())
    except CatalogError as exc:
        for issue in exc.errors:
            click.echo(f"error: {issue}", err=True)
        sys.exit(1)


@main.command("ask")
@click.argument("text", nargs=-1, required=True)
@click.option("--user", "user_id", default="U0CONSOLE", show_default=True,
              help="Slack user id to ask as.")
@click.option("--json", "as_json", is_flag=True,
              help='Print the message as Slack receives it: {"response_type", "text", "blocks"}.')
def ask_cmd(text: tuple[str, ...], user_id: str, as_json: bool) -> None:
    """Send one `/vllm-path TEXT` through the app and print the reply (exit 1 if none comes)."""
    from bot.console import ask  # deferred: slack_sdk and the Slack stand-in (~0.4 s)

    try:
        printed = ask(" ".join(text), user_id=user_id)
    except CatalogError as exc:
        for issue in exc.errors:
            click.echo(f"error: {issue}", err=True)
        sys.exit(1)
    if not printed:
        click.echo("no reply within the timeout", err=True)
        sys.exit(1)
    if as_json:
        raw = printed[0].raw
        _dump({"response_type": raw.get("response_type", "ephemeral"), "text": raw.get("text", ""),
               "blocks": raw.get("blocks", [])})
    else:
        click.echo("\n\n".join(p.text for p in printed))


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP door: address to bind.")
@click.option("--port", default=3000, show_default=True, type=int, help="HTTP door: port.")
@click.option("--threads", default=32, show_default=True, type=int,
              help="HTTP worker threads (acks hold one only briefly; 32 covers bursts).")
@click.option("--pid-file", default=DEFAULT_PID_FILE, show_default=True,
              help="Write the process id here while serving (for `vllm-path catalog reload`); "
                   "'' writes none.")
def serve_cmd(host: str, port: int, threads: int, pid_file: str) -> None:
    """Serve Slack: Socket Mode with SLACK_APP_TOKEN, else HTTP with SLACK_SIGNING_SECRET.

    HTTP: POST /slack/events (commands, buttons, events), GET /healthz, and /slack/install +
    /slack/oauth_redirect with OAuth. SIGHUP (or `vllm-path catalog reload`) reloads the catalog.
    """

    settings = _settings()
    setup_logging(settings)
    try:
        with write_pid_file(pid_file):
            serve(settings, host=host, port=port, threads=threads)
    except click.ClickException:
        raise
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except CatalogError as exc:
        for issue in exc.errors:
            click.echo(f"error: {issue}", err=True)
        sys.exit(1)
    except Exception as exc:  # noqa: BLE001 - start-up failures get one readable line, not a traceback

        click.echo(f"error: could not start: {redact(_startup_problem(exc), secrets_of(settings))}", err=True)
        sys.exit(2)


@main.command("worker")
@click.option("--threads", default=16, show_default=True, type=click.IntRange(1, 256),
              help="Digests sent at once by this process.")
@click.option("--heartbeat-timeout", default=60.0, show_default=True, type=click.FloatRange(1),
              help="Seconds without a heartbeat after which a worker's messages are redelivered.")
@click.option("--stale-after", default=300.0, show_default=True, type=click.FloatRange(1),
              help="Seconds after which a dead sender's ledger claim is taken over.")
def worker_cmd(threads: int, heartbeat_timeout: float, stale_after: float) -> None:
    """Send digests from the queue (needs REDIS_URL and the clock's DATABASE_URL) until SIGTERM.

    Run one `scheduler` and any number of workers; see bot/digest/worker.py."""
    # deferred: dramatiq, redis and SQLAlchemy (~1.8 s at start-up) for this command only
    from bot.digest.worker import WorkerOptions, run, worker_runtime

    settings = _settings()
    setup_logging(settings)
    if not settings.redis_url:
        click.echo("error: REDIS_URL is not set: a worker needs the queue's broker", err=True)
        sys.exit(2)
    try:
        runtime = worker_runtime(settings, threads)
    except CatalogError as exc:
        for issue in exc.errors:
            click.echo(f"error: {issue}", err=True)
        sys.exit(1)
    run(runtime, WorkerOptions(threads=threads, heartbeat_timeout_s=heartbeat_timeout,
                               stale_after_s=stale_after))


def _startup_problem(exc: BaseException) -> str:
    """One line for a start-up failure: Slack refusing the token, Slack out of reach, or else the
    exception's type and message."""
    from slack_sdk.errors import SlackApiError  # deferred: slack_sdk (~0.1 s) only for this command

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, SlackApiError):
            return (f"Slack refused the bot token ({seen.response.get('error')}): check "
                    "SLACK_BOT_TOKEN (or the OAuth settings)")
        if isinstance(seen, OSError) and not isinstance(seen, FileNotFoundError):
            return f"cannot reach Slack's Web API ({type(seen).__name__}: {seen}); check SLACK_API_URL and the network"
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    if "token" in text and "invalid" in text:
        return "Slack refused the bot token (auth.test): check SLACK_BOT_TOKEN"
    return f"{type(exc).__name__}: {text}"


# --- digests: `scheduler` and `digest preview|run-now` live in bot/digest/cli.py -----------------

from bot.digest.cli import register as _register_digest_commands  # noqa: E402

_register_digest_commands(main)


if __name__ == "__main__":  # pragma: no cover
    main()
