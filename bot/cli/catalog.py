"""``vllm-path catalog check|export|show|diff|import|reload``: the versioned catalog's tooling
(registered by bot/cli/main.py)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import click

from bot.cli.common import (
    PID_GLOB,
    catalog_option,
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
from bot.domain.catalog.export import export_catalog, render_track
from bot.domain.catalog.loader import CatalogIssue


@click.group("catalog")
def catalog() -> None:
    """Check, export, show and diff the versioned catalog."""


@catalog.command("check")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
def catalog_check(directory: str | None) -> None:
    """Validate the catalog and its search vocabulary (``vocabulary.yaml``, ``answers.yaml``:
    :func:`bot.domain.search.validate`, every answers key a post id): exit 0 when valid (warnings
    listed), 1 with every error otherwise."""
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
    track_id = track_or_exit(cat, track, 1)
    click.echo(render_track(cat, track_id, lang))
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
    path = Path(catalog_dir) if catalog_dir else Settings().catalog_dir
    # deferred: feedparser and frontmatter (~0.2 s), for this command only
    from bot.cli.importer import DRAFTS_FILE, ImportSourceError, apply_import, plan_import

    try:
        plan = plan_import(source, path)
    except ImportSourceError as exc:
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
        if plan.new_posts:
            click.echo(
                f"next: write the drafts' summaries in {DRAFTS_FILE} and place them in "
                "tracks; `vllm-path catalog check` refuses drafts until then"
            )
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
        click.echo(f"sent SIGHUP to process {pid} ({path}): it reloads catalog {cat.version} and logs the outcome")
    if not signalled:
        where = ", ".join(str(p) for p in paths) or f"{PID_GLOB} in {Path.cwd()}"
        fail(
            f"catalog {cat.version} is valid, but no running vllm-path process was found "
            f"({where}); start `vllm-path serve` or send it SIGHUP",
            1,
        )
