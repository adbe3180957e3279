"""``vllm-path catalog check|export|show|diff|import|reload``: the versioned catalog's tooling
(registered by bot/cli/main.py)."""

from __future__ import annotations

import os
import signal
from dataclasses import asdict
from pathlib import Path

import click

from bot.cli.common import (
    PID_GLOB,
    catalog_option,
    configured_catalog_dir,
    dump_json,
    echo_catalog_errors,
    fail,
    load_catalog_or_exit,
    our_process,
    read_pid,
    track_or_exit,
)
from bot.config import Settings
from bot.domain.catalog import CatalogError, check_catalog
from bot.domain.catalog.diff import diff_refs
from bot.domain.catalog.export import export_catalog
from bot.domain.catalog.loader import CatalogIssue


@click.group("catalog")
def catalog() -> None:
    """Check, export, show and diff the versioned catalog."""


@catalog.command("check")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
def catalog_check(directory: str | None) -> None:
    """Validate the catalog in DIRECTORY (default: CATALOG_DIR, else the shipped one) and its search
    vocabulary (vocabulary.yaml, glossary.yaml, answers.yaml: every answer a post of the catalog).
    Exit 0 when valid (warnings listed), 1 with every error listed otherwise.

    \f
    The vocabulary's rules: :func:`bot.domain.search.validate`."""
    from bot.domain.search.vocabulary import validate  # yaml only: no index is built

    path = Path(directory) if directory else Settings().catalog_dir
    cat, issues = check_catalog(path)
    post_ids = {p.id for p in cat.posts} if cat is not None else None
    for message in validate(path, post_ids) if path.is_dir() else []:
        file, _, rest = message.partition(": ")
        issues.append(CatalogIssue(file, "search vocabulary", "-", rest or message))
    for issue in issues:
        click.echo(f"{issue.severity}: {issue}", err=issue.severity == "error")
    errors = [i for i in issues if i.severity == "error"]
    if errors or cat is None:
        fail(f"catalog check failed: {len(errors)} error(s), {len(issues) - len(errors)} warning(s) in {path}", 1)
    click.echo(f"catalog {cat.version} ok: {len(cat.posts)} posts, {len(cat.tracks)} tracks, {len(issues)} warning(s)")


@catalog.command("export")
@click.option("--json", "as_json", is_flag=True, default=True, help="Print JSON (the default).")
@catalog_option
def catalog_export(as_json: bool, catalog_dir: str | None) -> None:
    """Print the compiled catalog as JSON: version, posts, tracks with steps in path order."""
    dump_json(export_catalog(load_catalog_or_exit(catalog_dir)))


@catalog.command("show")
@click.argument("track")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en")
@catalog_option
def catalog_show(track: str, lang: str, catalog_dir: str | None) -> None:
    """Show a track's path in reading order (TRACK is a track id, name or alias)."""
    cat = load_catalog_or_exit(catalog_dir)
    track_id = track_or_exit(cat, track)
    from bot.cli.show import track_text  # the readers' words (QA round 7), not the curator's levels

    click.echo(track_text(cat, track_id, lang))
    from bot.cli.plan import essential_weeks_line  # issue 24: weeks at the default budget

    click.echo(essential_weeks_line(cat, track_id))


@catalog.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def catalog_diff(old: str, new: str, as_json: bool) -> None:
    """What changed between two catalogs (folders or git revisions such as HEAD~1)."""
    try:
        result = diff_refs(old, new)
    except (ValueError, CatalogError) as exc:
        fail(f"error: {exc}", 1)
    if as_json:
        dump_json(result.to_dict())
    else:
        click.echo(result.render())


@catalog.command("import")
@click.argument("source")
@click.option("--write", is_flag=True, help="Write each new post as a draft in drafts/ and fill unknown fields.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@catalog_option
def catalog_import(source: str, write: bool, as_json: bool, catalog_dir: str | None) -> None:
    """Compare SOURCE (an Atom/RSS feed file or http(s) URL, or a Jekyll blog source folder with
    _posts/) with the catalog and its drafts: the drafts new posts make, fields it can fill,
    conflicts.

    Nothing changes without --write; then each new post becomes a draft in drafts/<id>.yaml beside
    the catalog, as the feed watch makes them (minutes counted from the feed's full content or the
    post's body, else estimated; suggested track and position with the reason; a title variant of
    an unlinked post a draft that fills it), which never stops the catalog from loading: review
    them with `catalog drafts`, `catalog accept` and `catalog reject`. A post the catalog or a
    draft already has (URL or title) makes none; only unknown fields of known posts (a date
    range, no authors, no minutes) are filled. The drafts take the name of SOURCE's feed in
    sources.yaml, else the vLLM blog's. Exit 1 with the reason, writing nothing, when the source
    is unreachable, malformed, larger than CATALOG_IMPORT_MAX_BYTES or (a URL) not received in
    full within CATALOG_FETCH_DEADLINE_S seconds.
    """
    settings = Settings()
    path = Path(catalog_dir) if catalog_dir else settings.catalog_dir
    # deferred: feedparser and frontmatter (~0.2 s), for this command only
    from bot.cli.importer import ImportSourceError, apply_import, plan_import

    try:
        plan = plan_import(
            source, path, max_bytes=settings.catalog_import_max_bytes, deadline_s=settings.catalog_fetch_deadline_s
        )
    except (ImportSourceError, ValueError) as exc:
        fail(f"error: {exc}; nothing written", 1)
    except CatalogError as exc:
        echo_catalog_errors(exc)
        fail(
            f"error: the catalog in {path} has {len(exc.errors)} error(s); fix them "
            "first (`vllm-path catalog check`); nothing written",
            1,
        )
    written = apply_import(plan, path) if write and plan.changes else []
    if as_json:
        dump_json({**plan.to_dict(), "written": written})
        return
    click.echo(plan.render())
    if write:
        click.echo(f"wrote: {', '.join(written)}" if written else "nothing to write")
        if plan.drafts:
            click.echo("next: `vllm-path catalog drafts`, then `catalog accept DRAFT` or `catalog reject DRAFT` each")
    elif plan.changes:
        click.echo("dry run: add --write to write the drafts and fills")


@catalog.command("reload")
@click.option(
    "--pid-file",
    "pid_files",
    multiple=True,
    type=click.Path(dir_okay=False),
    help=f"Pid file of a running process (repeatable; default: every {PID_GLOB} in the working directory).",
)
def catalog_reload(pid_files: tuple[str, ...]) -> None:
    """Make the running `serve` (and `scheduler`) load the catalog again, like SIGHUP.

    Checks CATALOG_DIR first: an invalid catalog is refused here with every error (exit 1), and
    the running processes keep serving their version. Otherwise sends SIGHUP to each process
    named by a pid file; each reloads, logs the outcome, and keeps the last good version if the
    reload is refused. Exit 0 when at least one process was signalled, 1 otherwise.
    """
    settings = Settings()
    cat, issues = check_catalog(settings.catalog_dir)
    errors = [i for i in issues if i.severity == "error"]
    if errors or cat is None:
        for issue in errors:
            click.echo(f"error: {issue}", err=True)
        fail(
            f"catalog reload refused: {len(errors)} error(s) in {settings.catalog_dir}; "
            "running processes keep their current version",
            1,
        )
    paths = [Path(p) for p in pid_files] or sorted(Path.cwd().glob(PID_GLOB))
    signalled = signal_reload(paths, cat.version)
    if not signalled:
        where = ", ".join(str(p) for p in paths) or f"{PID_GLOB} in {Path.cwd()}"
        fail(
            f"catalog {cat.version} is valid, but no running vllm-path process was found "
            f"({where}); start `vllm-path serve` or send it SIGHUP",
            1,
        )


def signal_reload(paths: list[Path], version: str) -> int:
    """Send SIGHUP to the live process of each pid file in ``paths`` (a line each, a warning for a
    stale or unreadable one); the number signalled."""
    signalled = 0
    for path in paths:
        if (pid := read_pid(path)) is None:
            click.echo(f"warning: {path}: no readable pid", err=True)
            continue
        if not our_process(pid):
            click.echo(f"warning: {path}: process {pid} is not running (stale pid file)", err=True)
            continue
        if not hasattr(signal, "SIGHUP"):  # pragma: no cover - Windows
            fail("error: SIGHUP is not available on this platform", 2)
        os.kill(pid, signal.SIGHUP)
        signalled += 1
        click.echo(f"sent SIGHUP to process {pid} ({path}): it reloads catalog {version} and logs the outcome")
    return signalled


@catalog.command("watch")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@catalog_option
def catalog_watch(as_json: bool, catalog_dir: str | None) -> None:
    """Fetch the feeds of sources.yaml once (as the clock does) and draft their new posts."""
    from bot.digest.sources import watch_sources

    root = configured_catalog_dir(catalog_dir)
    try:
        report = watch_sources(root, load_catalog_or_exit(catalog_dir))
    except ValueError as exc:
        fail(f"error: {exc}", 1)
    if as_json:
        dump_json({**asdict(report), "drafts": [d.to_json() for d in report.drafts]})
        return
    click.echo(f"new drafts: {len(report.drafts)}; unchanged feeds: {len(report.unchanged)}")
    for name, error in report.errors.items():
        click.echo(f"feed {name}: {error}", err=True)


@catalog.command("drafts")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@catalog_option
def catalog_drafts(as_json: bool, catalog_dir: str | None) -> None:
    """List the drafts beside the catalog with their suggested places, best first (JSON:
    {"drafts": [{"id", "title", "url", "minutes", "minutes_source", "suggested": [{"track",
    "position", "reason", "weak" (only when true: the post may not be about vLLM)}], "fills",
    "published", "feed"}]})."""
    from bot.domain.catalog.drafts import read_drafts

    drafts = read_drafts(configured_catalog_dir(catalog_dir))
    if as_json:
        dump_json({"drafts": [d.to_json() for d in drafts]})
        return
    for d in drafts:
        minutes = f"{d.minutes} min ({d.minutes_note})"
        click.echo(f"{d.id}: {d.title} · {d.feed} · {d.published.isoformat()} · {minutes}\n  {d.url}")
        if d.fills:
            click.echo(f"  fills the unlinked post {d.fills}")
        for s in d.suggested:
            click.echo(f"  {s.track} step {s.position}: {s.reason}")
    click.echo(f"{len(drafts)} draft(s)")


_ACCEPT_FLAGS = {
    "questions.en": "--question, 3 to 6 times",
    "questions.zh": "--question-zh, 2 to 4 times",
    "summary.en": "--summary",
    "summary.zh": "--summary-zh",
}
"""The `catalog accept` option that writes each field a refused accept names."""
_PROMPT_FLAGS = "--prompt and --prompt-zh"


@catalog.command("accept")
@click.argument("draft")
@click.option("--track", help="Track id (default: the best suggestion).")
@click.option("--position", type=click.IntRange(min=1), help="1-based place in the track (default: suggested).")
@click.option("--essential/--further", default=None, help="Essential or further reading (default: by position).")
@click.option("--summary", help="The summary in our own words (English; needed for a new post).")
@click.option("--summary-zh", help="The Chinese summary (needed on a bilingual track).")
@click.option("--question", "questions", multiple=True, help="A problem question the post answers (3-6).")
@click.option("--question-zh", "questions_zh", multiple=True, help="One in Chinese (2-4).")
@click.option("--prompt", help="The reading clubs' discussion prompt (an essential step needs one).")
@click.option("--prompt-zh", help="The discussion prompt in Chinese (with --prompt).")
@catalog_option
def catalog_accept(
    draft: str,
    track: str | None,
    position: int | None,
    essential: bool | None,
    summary: str | None,
    summary_zh: str | None,
    questions: tuple[str, ...],
    questions_zh: tuple[str, ...],
    prompt: str | None,
    prompt_zh: str | None,
    catalog_dir: str | None,
) -> None:
    """Accept DRAFT into the catalog: the post, its step, a new version and a changelog entry
    naming the tracks whose reading order changed; running processes reload. Exit 1, changing
    nothing, when the catalog would not be valid (each error with the option that fixes it)."""
    from bot.domain.catalog.accept import Review, accept

    root = configured_catalog_dir(catalog_dir)
    review = Review(track, position, essential, summary, summary_zh, questions, questions_zh, prompt, prompt_zh)
    try:
        done = accept(root, draft, review)
    except KeyError:
        fail(f"error: {_no_draft(root, draft)}", 1)
    except ValueError as exc:
        fail(f"error: {exc}; nothing written", 1)
    except CatalogError as exc:
        placed = _placed_track(root, draft, track)
        for issue in exc.errors:  # the flag that fixes an error of this post's fields
            flag = _ACCEPT_FLAGS.get(issue.field if f"'{draft}'" in issue.entry else "")
            flag = flag or (_PROMPT_FLAGS if "discussion prompt" in issue.message else None)
            flag = flag or _essential_flags(root, issue, placed, essential)
            click.echo(f"error: {issue}" + (f" (pass {flag})" if flag else ""), err=True)
        fail("error: the catalog would not be valid; nothing written", 1)
    where = f" in {done.track} at step {done.position}" if done.track else " (link, date and minutes filled)"
    click.echo(f"accepted {done.post}{where}: catalog {done.version}; wrote {', '.join(done.files)}")
    if done.moved:
        click.echo("reading order changed: " + ", ".join(f"{tid} (now step {n})" for tid, n in done.moved))
    signal_reload(sorted(Path.cwd().glob(PID_GLOB)), done.version)


def _no_draft(root: Path, draft: str) -> str:
    """Why ``catalog accept DRAFT`` found no draft (QA round 13): already in the catalog (its tracks
    and steps), else the drafts there are (or that there are none)."""
    from bot.domain import paths
    from bot.domain.catalog import load_catalog
    from bot.domain.catalog.drafts import read_drafts

    try:
        catalog = load_catalog(root)
    except (CatalogError, OSError):
        catalog = None
    pid = catalog.resolve_post_id(draft) if catalog is not None else None
    if catalog is not None and pid is not None and catalog.post(pid).url is not None:
        where = ", ".join(f"{p.track_id} step {p.position} of {p.of}" for p in paths.positions(catalog, pid))
        return f"{draft!r} is already in the catalog ({where or 'in no track'}): accepted before; nothing to do"
    drafts = [d.id for d in read_drafts(root)]
    if not drafts:
        return f"no draft {draft!r}: there are no drafts in {root} (`vllm-path catalog watch` makes them)"
    listed = ", ".join(drafts[:20]) + (f" and {len(drafts) - 20} more" if len(drafts) > 20 else "")
    return f"no draft {draft!r} in {root}; the drafts: {listed} (`vllm-path catalog drafts` shows them)"


def _placed_track(root: Path, draft: str, track: str | None) -> str | None:
    """The track a new post's accept puts it in: ``--track``, else the draft's best suggestion."""
    if track is not None:
        return track
    from bot.domain.catalog.drafts import read_drafts

    found = next((d for d in read_drafts(root) if d.id == draft), None)
    return found.suggested[0].track if found is not None and found.suggested else None


def _essential_flags(root: Path, issue: CatalogIssue, track: str | None, essential: bool | None) -> str | None:
    """For a too-long essential path of the track the post goes into (QA round 13: "9 essential
    steps; at most 8" named no option): ``--further`` or a later ``--position``."""
    if track is None or issue.field != "essential" or issue.entry != f"track '{track}'" or essential is False:
        return None
    from bot.domain.catalog import load_catalog

    try:
        n = len(load_catalog(root).essentials(track))
    except (CatalogError, KeyError, OSError):
        return "--further"
    return f"--further, or --position {n + 1} or later: after the {n} essential steps"


@catalog.command("reject")
@click.argument("draft")
@catalog_option
def catalog_reject(draft: str, catalog_dir: str | None) -> None:
    """Remove DRAFT: not for the catalog (the feed watch never drafts its URL again; rejecting it
    again says so)."""
    from bot.domain.catalog.drafts import reject, was_rejected

    root = configured_catalog_dir(catalog_dir)
    try:
        gone = reject(root, draft)
    except KeyError:
        if was_rejected(root, draft):
            click.echo(f"{draft} was already rejected")
            return
        fail(f"error: no draft {draft!r}", 1)
    click.echo(f"rejected {gone.id}: {gone.title}")
