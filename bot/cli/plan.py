"""``vllm-path path-image`` and ``vllm-path plan-weeks`` (registered by bot/cli/main.py)."""

from __future__ import annotations

from pathlib import Path

import click

from bot.cli.common import Minutes, fail, load_catalog_or_exit, option, track_or_exit
from bot.domain.budget import MAX_MINUTES, MIN_MINUTES  # the chat's range (QA: 1–10000 here)


def essential_weeks_line(catalog, track_id: str, minutes_per_week: int | None = None) -> str:
    """``Essential path: 6 steps · 84 min · 3 weeks at 30 min a week`` for ``catalog show``."""
    from bot.domain import budget, paths

    per_week = minutes_per_week or budget.DEFAULT_MINUTES
    ess = paths.essentials(catalog, track_id)
    minutes = paths.total_minutes(catalog, ess)[0]
    weeks = budget.weeks_to_finish([catalog.post(p).minutes for p in ess], per_week)
    unit = "week" if weeks == 1 else "weeks"
    return (
        f"Essential path: {len(ess)} steps · {minutes} min · {weeks} {unit} at {per_week} min a week "
        f"(further reading: {len(paths.further(catalog, track_id))} steps)"
    )


@click.command("plan-weeks")
@click.option(
    "--minutes",
    type=Minutes(MIN_MINUTES, MAX_MINUTES),
    help="Minutes a week (default: the app's default budget).",
)
@click.option("--catalog", "catalog_dir", help="Catalog folder (default: catalog/).")
def plan_weeks_cmd(minutes: int | None, catalog_dir: str | None) -> None:
    """Weeks each track's essential path takes at a weekly budget; exit 1 when one takes more
    than the promised weeks at the default."""
    from bot.domain import budget

    cat = load_catalog_or_exit(catalog_dir)
    worst = 0
    for tr in cat.tracks:
        line = essential_weeks_line(cat, tr.id, minutes)
        worst = max(worst, int(line.split(" week")[0].rsplit(" ", 1)[1]))
        click.echo(f"{tr.id:14} {line}")
    if minutes is None and worst > budget.FINISH_WEEKS:
        fail(f"error: an essential path takes {worst} weeks at the default (promise: {budget.FINISH_WEEKS})", 1)


@click.command("path-image")
@click.argument("track")
@click.option("--read", multiple=True, help="A post id the reader has read (repeatable).")
@click.option(
    "-o",
    "--output",
    "output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The file to write: .png or .svg (the format follows the suffix).",
)
@option("--lang", type=click.Choice(["en", "zh"]), default="en")
@click.option("--catalog", "catalog_dir", help="Catalog folder (default: catalog/).")
def path_image_cmd(track: str, read: tuple[str, ...], output: Path, lang: str, catalog_dir: str | None) -> None:
    """Draw TRACK's path (essential steps, further reading, prerequisite tracks, minutes; with
    --read, the reader's marks) as a PNG or SVG with Graphviz, and say where it was saved."""
    from bot.pictures import FORMATS, PictureError, write

    cat = load_catalog_or_exit(catalog_dir)
    track_id = track_or_exit(cat, track)
    if output.suffix.lower().lstrip(".") not in FORMATS:
        fail(f"error: {output.name}: the file name must end in .png or .svg", 2)
    if unknown := [p for p in read if not cat.has_post(p)]:
        fail(f"error: no post with the id {', '.join(unknown)}", 2)
    folder = output.parent
    if not folder.is_dir():  # QA round 13: said as "[Errno 2] No such file or directory: ..."
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        fail(f"error: the folder {folder} {what}: create it or pass -o with a file in an existing folder", 2)
    try:
        where = write(cat, track_id, output, read=list(read) if read else None, lang=lang)
    except PictureError as exc:
        fail(f"error: {exc}", 1)
    except OSError as exc:  # no right to write there, a full disk: said without Python's [Errno N]
        fail(f"error: cannot write {output}: {exc.strerror or exc}", 1)
    click.echo(f"Saved the {track_id} path picture to {where}")
