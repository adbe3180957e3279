"""Short questions a reader asks without a keyword's argument (QA: each was searched):
``recommend something`` / ``推荐点什么``, ``settings`` / ``设置``, ``stop [track]`` / ``停止``,
``snooze`` and ``digest preview`` typed in Slack."""

from __future__ import annotations

from bot.domain import budget as budgets
from bot.domain import paths
from bot.domain.schedule import zone_label
from bot.slack import grammar
from bot.slack.commands import plan, query, replies, snooze
from bot.slack.commands.context import Context
from bot.slack.i18n import LANGS, join_list, t
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.subscriptions import dm_status
from bot.store.snapshots import DmSettings

START_TRACK = "getting started"
"""What names the track a reader with no progress is recommended (the catalog's getting-started track)."""


def recommend(ctx: Context, cmd: grammar.Command) -> Reply:
    """``recommend something``: the next step of each followed track whose essential path is not
    all read (:func:`~bot.slack.commands.replies.next_reads`); else, after finishing an essential
    path, the track its finish message offered (:func:`~bot.slack.commands.plan.next_after_finish`
    of the last path finished whose essential steps are still read); else the next step of each
    track the caller follows or has started; a reader with none gets the getting-started track
    (:data:`START_TRACK`, else the catalog's first track) with a line saying why."""
    cat, read = ctx.catalog, ctx.reader.read()
    if unfinished := plan.unfinished_follows(ctx):
        return replies.next_reads(ctx, notice=t("recommend.next", ctx.lang), track_ids=unfinished)
    if (after := _after_finish(ctx)) is not None:
        return after
    mine = [tid for tid in ctx.reader.follows() if cat.has_track(tid)]
    started = paths.started_tracks(cat, read)
    if mine or started:
        return replies.next_reads(ctx, notice=t("recommend.next", ctx.lang))
    tid = ctx.find.track(START_TRACK) or cat.tracks[0].id
    name = views.track_name(cat, tid, ctx.lang)
    return replies.track_view(ctx, tid, notice=t("recommend.start", ctx.lang, track=name, track_id=tid))


def _after_finish(ctx: Context) -> Reply | None:
    """``recommend`` after an essential path: the track its finish message offered, else None."""
    cat, read, caller = ctx.catalog, ctx.reader.read(), ctx.caller
    recorded = ctx.rt.store.finished_paths(caller.team_id, caller.user_id)
    done = [tid for tid in recorded if cat.has_track(tid) and paths.essentials_done(cat, tid, read)]
    if not done:
        return None
    last = max(done, key=lambda tid: recorded[tid])
    tid = plan.next_after_finish(ctx, last, recorded)
    if tid is None:
        return None
    words = {"finished": views.track_name(cat, last, ctx.lang), "track": views.track_name(cat, tid, ctx.lang)}
    return replies.track_view(ctx, tid, notice=t("recommend.after_finish", ctx.lang, **words, track_id=tid))


def show_settings(ctx: Context, cmd: grammar.Command) -> Reply:
    """``settings``: the caller's language, weekly DM, weekly reading plan (minutes; the default
    :data:`~bot.domain.budget.DEFAULT_MINUTES` when none is set), time zone (Slack's ``tz``),
    followed tracks and pending reminders, one line each with the command that changes it. The
    language is "automatic" (what they type, their Slack locale) until they choose one with ``lang``."""
    store, team, user, lang = ctx.rt.store, ctx.caller.team_id, ctx.caller.user_id, ctx.lang
    dm_row = store.get_dm(team, user)
    dm = dm_status(dm_row, lang) or t("dm.now_off", lang)
    budget = ctx.reader.budget
    plan = (
        t("settings.plan", lang, minutes=budget)
        if budget is not None
        else t("settings.plan_default", lang, minutes=budgets.DEFAULT_MINUTES)
    )
    follows = [tid for tid in ctx.reader.follows() if ctx.catalog.has_track(tid)]
    followed = (
        t("settings.follows", lang, tracks=join_list([Mrkdwn("`{}`").format(tid) for tid in follows], lang))
        if follows
        else t("settings.follows_none", lang)
    )
    reminders = store.reminders(team, user)
    chosen = ctx.reader.chosen_lang in ("en", "zh")
    dm_key = "settings.dm" if dm_row is not None and dm_row.enabled else "settings.dm_off"  # QA: no `dm off` when off
    status = Mrkdwn("" if lang == "zh" else " ").join(Mrkdwn(x) for x in str(dm).split("\n"))  # QA: no space after 。
    dm_line = t(dm_key, lang, status=status)
    said_in = _said_in(ctx, [x.lang for x in reminders])
    lines = [
        t("settings.header", lang),
        t("settings.lang" if chosen else "settings.lang_auto", lang),
        dm_line + _dm_in(ctx, dm_row),
        plan,
        t("settings.zone", lang, tz=zone_label(ctx.timezone())),
        followed,
        t("settings.reminders_in", lang, n=len(reminders), languages=said_in)
        if reminders
        else t("settings.reminders", lang, n=0),
    ]
    return views.text_reply(Mrkdwn("\n").join(lines))


def language_name(code: str, lang: str) -> Mrkdwn:
    """The name of language ``code`` (``en`` | ``zh``) said in ``lang``: ``Chinese``, ``英文``."""
    return t("lang.name_zh" if code == "zh" else "lang.name_en", lang)


def _said_in(ctx: Context, set_up_in: list[str | None]) -> Mrkdwn:
    """The languages things sent later speak (:func:`~bot.store.subscriptions.dm_lang`: the chosen
    language, else each one's own, else English), named in the caller's language."""
    chosen = ctx.reader.chosen_lang
    codes = sorted({str(chosen) if chosen in LANGS else x if x in LANGS else "en" for x in set_up_in})
    return join_list([language_name(code, ctx.lang) for code in codes], ctx.lang)


def _dm_in(ctx: Context, dm: DmSettings | None) -> Mrkdwn:
    """`` It comes in Chinese.``: the language of a weekly DM that is on (QA: settings did not say), else empty."""
    if dm is None or not dm.enabled:
        return Mrkdwn()
    said = Mrkdwn("" if ctx.lang == "zh" else " ") + t("settings.dm_in", ctx.lang, languages=_said_in(ctx, [dm.lang]))
    if ctx.reader.chosen_lang not in LANGS and (dm.lang if dm.lang in LANGS else "en") != ctx.lang:
        # QA: "automatic (Chinese now)" beside "it comes in English" read as a contradiction
        said += Mrkdwn("" if ctx.lang == "zh" else " ") + t("settings.dm_in_why", ctx.lang)
    return said


def stop_what(ctx: Context, cmd: grammar.Command) -> Reply:
    """``stop`` alone: a question of what to stop, each with its exact command: the weekly DM (when
    on), this channel's digests (``unsubscribe <track>`` for each, in a channel that has any), the
    tracks followed (``unfollow <track>``, ``unfollow all``) and a reading plan (``plan off``), when
    there are, and reminders (``reminders``: the list with *Cancel*); what is not running is said so too.
    ``stop <track>`` (``cmd.arg``): the same, focused on that track (:func:`_stop_track`); words
    that name no track are searched whole (``stop tokens``, ``cmd.query``); when no word of it is
    about the catalog, the track list ("no track matches"), not the off-topic refusal (``stop nosuchtrack``)."""
    if cmd.arg:
        tid = ctx.find.track(cmd.arg)
        whole = cmd.query or cmd.arg
        found = ctx.find.posts(whole, limit=1) if tid is None and not ctx.find.topic(whole) else None
        if found is not None and not found.results and not found.known:  # never the off-topic refusal
            return views.text_reply(replies.unknown_track(ctx, cmd.arg, "stop"))
        if tid is None:
            return query.find(ctx, grammar.Command("query", arg=whole, truncated=cmd.truncated))
        return _stop_track(ctx, tid)
    store, team, user, lang = ctx.rt.store, ctx.caller.team_id, ctx.caller.user_id, ctx.lang
    lines = [t("stop.question", lang)]
    dm = store.get_dm(team, user)
    lines.append(t("stop.dm" if dm is not None and dm.enabled else "stop.dm_off", lang))
    channel = ctx.caller.channel_id
    subs = store.subscriptions(team, channel) if channel and not channel.startswith("D") else []
    if subs:
        commands = Mrkdwn("、" if lang == "zh" else ", ").join(
            Mrkdwn("`/vllm-path unsubscribe {}`").format(s.track_id) for s in subs
        )
        lines.append(t("stop.digests", lang, commands=commands))
    else:
        lines.append(t("stop.digest_none", lang))
    if follows := ctx.reader.follows():  # QA round 13: following and a reading plan were not listed
        sep = Mrkdwn("、" if lang == "zh" else ", ")
        commands = sep.join(Mrkdwn("`/vllm-path unfollow {}`").format(tid) for tid in follows[:3])
        if len(follows) > 1:
            commands = sep.join([commands, Mrkdwn("`/vllm-path unfollow all`")])
        lines.append(t("stop.follows", lang, commands=commands))
    if (minutes := store.get_budget(team, user)) is not None:
        lines.append(t("stop.plan", lang, minutes=minutes))
    pending = len(store.reminders(team, user))
    lines.append(t("stop.reminders", lang, n=pending) if pending else t("stop.reminders_none", lang))
    return views.text_reply(Mrkdwn("\n").join(lines))


def _stop_track(ctx: Context, tid: str) -> Reply:
    """``stop <track>``: what can be stopped for track ``tid``, each with its command: this channel's
    digest of it (``unsubscribe``; elsewhere: in that channel), following it (``unfollow``, when
    followed), the weekly DM (all tracks; when on) and reminders of the track's posts (when any;
    QA: a reminder of another track's post was listed)."""
    store, team, user, lang = ctx.rt.store, ctx.caller.team_id, ctx.caller.user_id, ctx.lang
    words = {"track": views.track_name(ctx.catalog, tid, lang), "track_id": tid}
    lines = [t("stop.track_question", lang, **words)]
    channel = ctx.caller.channel_id
    subs = store.subscriptions(team, channel) if channel and not channel.startswith("D") else []
    here = any(s.track_id == tid for s in subs)
    lines.append(t("stop.track_digest" if here else "stop.track_digest_elsewhere", lang, **words))
    if tid in ctx.reader.follows():
        lines.append(t("stop.track_follow", lang, **words))
    dm = store.get_dm(team, user)
    if dm is not None and dm.enabled:
        lines.append(t("stop.track_dm", lang))
    pending = sum(tid in ctx.catalog.tracks_of(r.post_id) for r in store.reminders(team, user))
    if pending:
        lines.append(t("stop.reminders", lang, n=pending))
    return views.text_reply(Mrkdwn("\n").join(lines))


def snooze_what(ctx: Context, cmd: grammar.Command) -> Reply:
    """``snooze`` alone: snoozing is a channel digest's *Snooze a week* button (a command has no
    digest to act on); ``stop`` lists what can be stopped for good; ``snooze 2w`` and ``unsnooze``
    (the typed words in ``query``): :func:`~bot.slack.commands.snooze.snooze_reply`."""
    return snooze.snooze_reply(ctx, cmd.query or "")


_TRACK_OPTION = "--track"


def digest_cli(ctx: Context, cmd: grammar.Command) -> Reply:
    """``digest preview …`` / ``digest run-now`` typed in Slack: they are terminal commands of
    ``vllm-path`` (:mod:`bot.cli.digest`); the preview's command line filled in with the track typed
    (``--track`` or a track name) and this channel, when known."""
    words = cmd.arg.split()
    named = words[words.index(_TRACK_OPTION) + 1 : words.index(_TRACK_OPTION) + 2] if _TRACK_OPTION in words else []
    verb = next((i for i, w in enumerate(words) if w.casefold() in ("preview", "run-now", "now")), len(words))
    rest = [w for w in words[verb + 1 :] if not w.startswith("-")]
    tid = ctx.find.track(named[0]) if named else (ctx.find.track(" ".join(rest)) if rest else None)
    channel = ctx.caller.channel_id
    here = channel if channel and not channel.startswith("D") else None
    return views.text_reply(t("digest.cli", ctx.lang, track=tid or "<track>", channel=here or "<channel id>"))


def my_data(ctx: Context, cmd: grammar.Command) -> Reply:
    """``delete my data`` / ``forget me`` / ``删除我的数据`` (QA round 8: "no post matches"): what the app
    keeps about the caller (as the store's tables hold it), what they can remove or stop themselves
    (``unread``, ``unfollow all``, ``plan off`` delete those rows; ``dm off`` and a cancelled
    reminder are kept, switched off), and that no command deletes everything: a workspace admin asks
    whoever runs the app. Nothing is changed."""
    return views.text_reply(t("mydata.kept", ctx.lang))
