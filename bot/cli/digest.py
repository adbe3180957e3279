"""``vllm-path scheduler`` and ``vllm-path digest preview|run-now`` (registered by bot/cli/main.py)."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading

import click

from bot.cli.common import (
    Minutes,
    SlackId,
    dump_json,
    exit_on_catalog_error,
    fail,
    load_catalog_or_exit,
    option,
    track_or_exit,
    write_pid_file,
)
from bot.domain.budget import MAX_MINUTES, MIN_MINUTES  # the chat's range (QA: 1–10000 here)


def _runtime():
    """Settings, logging and the runtime (catalog + migrated database), or exit 1 listing the
    catalog's errors."""
    from bot.config import Settings
    from bot.logging_setup import setup_logging
    from bot.runtime import Runtime

    settings = Settings()
    setup_logging(settings)
    with exit_on_catalog_error():
        return Runtime.create(settings)


def _require_credentials(runtime) -> None:
    if missing := runtime.settings.missing_slack_credentials():
        fail(f"error: {missing}", 2)


pacing_options = [
    option("--workers", default=8, type=click.IntRange(1, 64), help="Digests sent at once."),
    option(
        "--channel-interval",
        default=1.05,
        type=click.FloatRange(0, 60),
        help="Seconds between two posts to one channel.",
    ),
    option(
        "--team-rate", default=10.0, type=click.FloatRange(0.1, 1000), help="Posts per second per workspace, at most."
    ),
    option(
        "--stale-after",
        default=300.0,
        type=click.FloatRange(1),
        help="Seconds after which another sender's unfinished claim is taken over.",
    ),
]


def _with_pacing(func):
    for decorate in reversed(pacing_options):
        func = decorate(func)
    return func


def _clock(runtime, workers, channel_interval, team_rate, stale_after, reconcile_every, deliverer=None):
    """A :class:`bot.digest.clock.DigestClock` paced by the :data:`pacing_options`' values."""
    from bot.digest.clock import DigestClock

    return DigestClock(
        runtime,
        workers=workers,
        reconcile_every_s=reconcile_every,
        stale_after_s=stale_after,
        channel_interval_s=channel_interval,
        team_rate_per_s=team_rate,
        deliverer=deliverer,
    )


@click.command("scheduler")
@option(
    "--reconcile-every",
    default=30.0,
    type=click.FloatRange(0.5),
    help="Seconds between syncs of the jobs with the database (and catch-up).",
)
@_with_pacing
def scheduler_cmd(
    reconcile_every: float, workers: int, channel_interval: float, team_rate: float, stale_after: float
) -> None:
    """Run the digest clock (the Procfile's clock: process) until SIGTERM/SIGINT.

    One cron job per channel subscription and per DM digest, in each one's time zone, in an
    APScheduler job store on DATABASE_URL. Several clock processes on one PostgreSQL database
    still deliver every digest once. SIGHUP reloads the catalog.
    """
    from bot.digest.queue import DigestQueue, EnqueueingDeliverer
    from bot.doors.serve import install_signal_handlers

    runtime = _runtime()
    _require_credentials(runtime)
    if logging.getLogger().level > logging.DEBUG:  # APScheduler logs every job run at INFO
        logging.getLogger("apscheduler").setLevel(logging.WARNING)
    queue = DigestQueue.from_settings(runtime.settings)  # None without REDIS_URL: the clock sends itself
    deliverer = EnqueueingDeliverer(queue, stale_after_s=stale_after) if queue is not None else None
    clock = _clock(runtime, workers, channel_interval, team_rate, stale_after, reconcile_every, deliverer)
    stop = threading.Event()
    install_signal_handlers(runtime, stop.set, logger=logging.getLogger("bot.digest.clock"))  # QA round 8
    clock.start()
    click.echo(f"digest clock running (catalog {runtime.holder.catalog.version}); Ctrl-C or SIGTERM stops it", err=True)
    try:
        # for `vllm-path catalog reload`; one per process, as several clocks may share a database
        with write_pid_file(f"vllm-path-scheduler-{os.getpid()}.pid"):
            while not stop.wait(1.0):
                pass
    except KeyboardInterrupt:
        pass
    finally:
        clock.shutdown(wait=True)
        runtime.store.close()


@click.group("digest")
def digest() -> None:
    """Preview digests and send this week's now."""


@digest.command("preview")
@click.option("--track", "track_text", required=True, help="Track id, name or alias.")
@click.option(
    "--channel",
    type=SlackId("C0123ABCD"),
    help="A subscribed channel id: its next digest (default: a newly subscribed channel's first).",
)
@click.option(
    "--team", type=SlackId("T0123ABCD"), help="Team id, when the channel id is subscribed in several workspaces."
)
@option(
    "--steps",
    type=click.IntRange(1, 3),
    help="Steps per week instead of a budget (with --channel, instead of its own pace; default: 45 min of reading).",
)
@click.option(
    "--minutes",
    type=Minutes(MIN_MINUTES, MAX_MINUTES),
    help="A weekly budget in minutes: the steps that fit (with --channel, instead of the channel's own budget).",
)
@option(
    "--lang",
    type=click.Choice(["en", "zh"]),
    default=None,
    help="Default: the --channel digest's own language (the one it was created in), else en.",
)
@click.option("--json", "as_json", is_flag=True, help='Print {"text", "blocks"} exactly as they would be posted.')
def digest_preview(
    track_text: str,
    channel: str | None,
    team: str | None,
    steps: int | None,
    lang: str | None,
    as_json: bool,
    minutes: int | None = None,
) -> None:
    """Show a channel digest without sending it (nothing is recorded)."""
    from bot.slack.i18n import t
    from bot.slack.mrkdwn import plain
    from bot.slack.views.digest import compose_channel_digest
    from bot.slack.views.together import club_preview

    runtime = None if channel is None else _runtime()  # without a channel, no database is opened or created
    catalog = load_catalog_or_exit(None) if runtime is None else runtime.holder.catalog
    track = track_or_exit(catalog, track_text)
    if runtime is None:  # no --channel (the runtime is opened exactly when one is given)
        sub, snapshot = _preview_sub(track, steps, minutes), None
    else:
        subs = [s for s in _all_subscriptions(runtime.store, team) if s.channel_id == channel and s.track_id == track]
        if not subs:
            fail(f"error: channel {channel} has no {track} subscription", 1)
        if len({s.team_id for s in subs}) > 1:
            fail("error: that channel id is subscribed in several workspaces: add --team", 2)
        sub = _with_pace(subs[0], steps, minutes)
        snapshot = runtime.store.catalog_snapshot(sub.last_catalog_version) if sub.last_catalog_version else None
    if lang is None:  # as the deliverer would send it
        lang = "en" if runtime is None else runtime.store.digest_lang(sub)
    from bot.config import Settings
    from bot.web.urls import path_page_url

    settings = runtime.settings if runtime is not None else Settings()
    page = path_page_url(settings, track, lang)  # as the deliverer sends it (PUBLIC_URL)
    readers = runtime.store.club_readers_last(sub.id) if runtime is not None and getattr(sub, "club", False) else None
    result = compose_channel_digest(catalog, sub, snapshot, lang=lang, page_url=page, readers=readers)
    thread = club_preview(catalog, sub, result.steps, lang)  # issue 44 QA: a club's thread prompt too
    if result.reply is None:
        if as_json:
            click.echo(json.dumps({"text": None, "blocks": []}))
        click.echo(f"nothing to send this week: {_why_nothing(catalog, sub, snapshot)}", err=True)
        return
    if as_json:
        from bot.domain.plan import channel_minutes

        out = _preview_json(catalog, result, channel_minutes(sub))
        dump_json(out if thread is None else {**out, "thread": {"text": thread.text, "blocks": thread.blocks}})
        return
    from bot.doors.console import render_blocks

    click.echo(render_blocks(result.reply.blocks)[0])
    if thread is not None:
        click.echo(f"\n{plain(t('digest.preview_thread', lang))}\n{render_blocks(thread.blocks)[0]}")
    click.echo(f"\n({_preview_trailer(catalog, sub, snapshot, result)})", err=True)


def _preview_trailer(catalog, sub, snapshot, result) -> str:
    """The preview's last line: the week's post ids and their minutes (QA round 13: a budget far
    above what is sent, said as such), the steps sent after it, and what waits for a link."""
    from bot.domain.plan import channel_minutes, plan_channel_digest

    plan = plan_channel_digest(catalog, sub, snapshot)
    total = len(catalog.order(sub.track_id))
    minutes = sum(catalog.post(p).minutes or 0 for p in result.steps)
    budget = channel_minutes(sub)
    parts = [f"steps this week: {', '.join(result.steps) or '-'}"]
    if result.steps:
        week = f"{minutes} min" + (f" of a {budget}-min weekly budget" if budget else "")
        order = catalog.order(sub.track_id)
        if budget and minutes < budget and all(catalog.post(p).url is None for p in order[plan.cursor :]):
            week += ": all the linked steps left"
        elif budget and minutes > budget:  # QA round 20: why the budget is exceeded
            week += ": one step always goes out, even when longer than the budget"
        parts.append(week)
    sent = min(result.cursor, total) - plan.passed_over  # a step waiting for a link is not sent (QA round 15)
    parts.append(f"{sent} of {total} steps of the path sent after it")  # no "cursor" (QA)
    if plan.unlinked_left:
        parts.append(f"waiting for a link: {_waiting_for_links(catalog, plan.unlinked_left)}")
    elif result.done:
        parts.append("path done")
    return "; ".join(parts)


def _waiting_for_links(catalog, post_ids) -> str:
    """``"N steps, <title> (<id>); ...; each sent once it is published"`` (QA round 13: named)."""
    named = [f"{catalog.post(p).title} ({p})" for p in post_ids[:3]]
    more = f" and {len(post_ids) - 3} more" if len(post_ids) > 3 else ""
    steps = "1 step" if len(post_ids) == 1 else f"{len(post_ids)} steps"
    return f"{steps}, {'; '.join(named)}{more}, each sent once it is published"


def _why_nothing(catalog, sub, snapshot) -> str:
    """Why a channel's digest has nothing this week: the rest of the path waits for a link (named),
    the channel stops after the essential path, or the path is done and nothing was added."""
    from bot.domain.plan import plan_channel_digest

    plan = plan_channel_digest(catalog, sub, snapshot)
    if plan.unlinked_left:
        return f"the rest of the path waits for a link: {_waiting_for_links(catalog, plan.unlinked_left)}"
    if not plan.done:
        return "the essential path is done and this channel stops after it (nothing was added)"
    return "the path is done and nothing was added"


def _with_pace(sub, steps: int | None, minutes: int | None):
    """``sub`` (a :class:`bot.store.snapshots.Subscription`) with the pace the options ask for
    instead of its own: ``minutes`` a week (wins over ``steps``), else ``steps`` a week, else as is.
    Nothing is stored: the preview shows the next digest that channel would get at that pace."""
    if minutes is not None:
        return dataclasses.replace(sub, minutes_per_week=minutes)
    if steps is not None:
        return dataclasses.replace(sub, steps_per_week=steps, minutes_per_week=None)
    return sub


def _preview_sub(track: str, steps: int | None, minutes: int | None):
    """A newly subscribed channel's stand-in: ``steps`` a week, or ``minutes`` a week (issue 24),
    else the default pace a ``subscribe`` without an amount sets (45 min of reading, issue 40)."""
    from bot.domain.budget import DEFAULT_MINUTES
    from bot.domain.plan import BudgetPreview
    from bot.slack.views.digest import preview_subscription

    if minutes is None and steps is not None:
        return preview_subscription(track, steps_per_week=steps)
    return BudgetPreview(0, track, 0, steps or 1, None, minutes_per_week=minutes or DEFAULT_MINUTES)


def _preview_json(catalog, result, minutes: int | None) -> dict:
    """``{"text", "blocks"}`` as posted; with a weekly budget (``minutes``) also ``minutes_per_week``
    and the week's ``steps`` (``{"post_id", "minutes"}``, minutes null when unknown)."""
    out: dict[str, object] = {"text": result.reply.text, "blocks": result.reply.blocks}
    if minutes is not None:
        out.update(
            minutes_per_week=minutes, steps=[{"post_id": p, "minutes": catalog.post(p).minutes} for p in result.steps]
        )
    return out


def _all_subscriptions(store, team: str | None):
    if team is not None:
        return store.subscriptions(team)
    from sqlalchemy import select

    from bot.store.models import ChannelSubscription

    with store.engine.connect() as conn:
        teams = sorted(set(conn.scalars(select(ChannelSubscription.c.team_id))))
    return [sub for t in teams for sub in store.subscriptions(t)]


@digest.command("run-now")
@click.option("--track", "track_text", default=None, help="Only this track's subscriptions.")
@option("--dms/--no-dms", default=False, help="Also the DM digests.")
@_with_pacing
def digest_run_now(
    track_text: str | None, dms: bool, workers: int, channel_interval: float, team_rate: float, stale_after: float
) -> None:
    """Send this week's digest of every active subscription now (exactly once per week: one
    already sent this week, by the clock or an earlier run, is not sent again)."""
    runtime = _runtime()
    track = track_or_exit(runtime.holder.catalog, track_text) if track_text else None  # before credentials
    _require_credentials(runtime)
    clock = _clock(runtime, workers, channel_interval, team_rate, stale_after, None)
    try:
        counts = clock.run_now(track=track, dms=dms)
    finally:
        clock.shutdown(wait=True)
        runtime.store.close()
    total = sum(counts.values())
    said = {"taken": "already sent this week"}  # QA round 8: "taken" said nothing to an operator
    parts = ", ".join(f"{said.get(name, name)} {n}" for name, n in sorted(counts.items())) or "nothing to do"
    click.echo(f"{total} digest(s): {parts}")
    if counts.get("failed") or counts.get("paused"):
        fail("some digests failed or were paused: see the log and `/vllm-path subscriptions`", 1)
