"""Reading plans in Block Kit and mrkdwn (issue 24): reading times, the essential path's length and
finish date, the ``plan`` reply, and the App Home part about finished paths.

Strings live in :data:`PLAN_STRINGS` (English and Chinese), looked up like the app's table
(:func:`bot.slack.i18n.lookup`). Pure rendering: callers pass the budget, today's date and what the
reader has read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping

from slack_sdk.models.blocks import Block, ImageBlock

from bot.domain import budget as budgets
from bot.domain import paths
from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Post, Track, format_day
from bot.slack.i18n import lookup
from bot.slack.mrkdwn import Mrkdwn, as_plain
from bot.slack.views.blocks import MAX_BLOCKS_MESSAGE, Reply, context, make_reply, section

PLAN_STRINGS: dict[str, dict[str, str]] = {
    "min": {"en": "{n} min", "zh": "{n} 分钟"},
    "min_estimate": {"en": "~{n} min", "zh": "约 {n} 分钟"},
    "further": {"en": "further reading", "zh": "延伸阅读"},
    "path_line": {"en": "Essential path: {steps} steps · {minutes} min",
                  "zh": "核心路径：{steps} 篇 · {minutes} 分钟"},
    "path_steps": {"en": "Essential path: {steps} steps", "zh": "核心路径：{steps} 篇"},
    "path_finish": {"en": " · at {budget} min a week you finish around {day}",
                    "zh": " · 按每周 {budget} 分钟，大约 {day} 读完"},
    "path_finished": {"en": " · finished :white_check_mark:", "zh": " · 已读完 :white_check_mark:"},
    "path_default": {"en": " (the default; set yours with `plan 45m`)",
                     "zh": "（默认值；用 `plan 45m` 设置你的）"},
    "before": {"en": "Read first: {tracks}", "zh": "先读：{tracks}"},
    "plan.set": {"en": "Your reading plan: *{budget} min a week*. Digests and DMs bring the next steps "
                       "that fit, at least one a week.",
                 "zh": "你的阅读计划：*每周 {budget} 分钟*。摘要和私信会带来放得下的下几篇，每周至少一篇。"},
    "plan.off": {"en": "Your reading plan is back to the default: {budget} min a week.",
                 "zh": "你的阅读计划已恢复默认：每周 {budget} 分钟。"},
    "plan.show": {"en": "Your reading plan: {budget} min a week{default}.",
                  "zh": "你的阅读计划：每周 {budget} 分钟{default}。"},
    "plan.default": {"en": " (the default)", "zh": "（默认）"},
    "plan.bad": {"en": "I could not read {value} as minutes a week. Try `plan 30m`, `plan 1h`, "
                       "`plan 45 min` or `plan off` (also `计划 30分钟`, `每周 1小时`).",
                 "zh": "无法把 {value} 读成每周分钟数。试试 `计划 30分钟`、`每周 1小时`、`plan 45m` 或 `plan off`。"},
    "plan.range": {"en": "A plan is {low}–{high} minutes a week; {value} is outside that.",
                   "zh": "计划应在每周 {low}–{high} 分钟之间；{value} 不在范围内。"},
    "plan.weeks": {"en": "• *{track}*: {minutes} min · {weeks} weeks",
                   "zh": "• *{track}*：{minutes} 分钟 · {weeks} 周"},
    "home.finished": {"en": "*Finished paths:* {tracks} · {minutes} min read in all",
                      "zh": "*已读完的路径：*{tracks} · 共读 {minutes} 分钟"},
    "home.none_finished": {"en": "No essential path finished yet · {minutes} min read in all",
                           "zh": "还没有读完的核心路径 · 共读 {minutes} 分钟"},
    "home.picture_alt": {"en": "The reading path of {track}, with your progress",
                         "zh": "{track} 的阅读路径与你的进度"},
    "stats.finished": {"en": ":checkered_flag: Essential paths finished: *{n}* ({tracks})",
                       "zh": ":checkered_flag: 读完的核心路径：*{n}*（{tracks}）"},
    "dm.header": {"en": "Your reading this week", "zh": "本周阅读"},
    "dm.footer": {"en": "catalog {version} · `/vllm-path plan 45m` changes your minutes a week · "
                        "`dm off` stops this DM",
                  "zh": "目录 {version} · `/vllm-path 计划 45分钟` 修改每周分钟数 · `dm off` 停止私信"},
    "dm.fallback": {"en": "This week's reading: {posts}", "zh": "本周阅读：{posts}"},
    "dm.budget": {"en": "This week's reading at {budget} min a week:", "zh": "本周阅读（每周 {budget} 分钟）："},
    "channel.essentials_done": {
        "en": ":checkered_flag: This channel has been through the essential path of *{track}*.{after}",
        "zh": ":checkered_flag: 本频道已读完 *{track}* 的核心路径。{after}"},
    "channel.intro": {
        "en": "This channel reads the *{track}* path together: {total} steps, about {minutes} min of reading "
              "a week, essential steps first. Here is where it starts.",
        "zh": "本频道一起读 *{track}* 路径：共 {total} 篇，每周约 {minutes} 分钟，先读核心路径。从这里开始。"},
    "channel.after_further": {"en": " Further reading follows in the next digests.",
                              "zh": "后续摘要继续推送延伸阅读。"},
    "channel.after_stop": {"en": " The digest stops here, as set up.", "zh": "按设置，摘要到此为止。"},
}


def pt(key: str, lang: str = "en", **values: object) -> Mrkdwn:
    """A string of :data:`PLAN_STRINGS` in ``lang``, formatted (values escaped)."""
    return lookup(PLAN_STRINGS, key, lang, **values)


def minutes_label(post: Post, lang: str = "en") -> Mrkdwn:
    """A post's reading time as shown: ``12 min`` (counted), ``~12 min`` (an estimate), empty
    when unknown (never a number that looks counted and is not)."""
    if post.minutes is None:
        return Mrkdwn()
    key = "min" if post.minutes_source == "counted" else "min_estimate"
    return pt(key, lang, n=post.minutes)


def step_suffix(catalog: Catalog, track_id: str, post_id: str, lang: str = "en") -> Mrkdwn:
    """What a step line of a track reply adds after its level: `` · 12 min`` and, for a step
    outside the essential path, `` · further reading``."""
    parts = [minutes_label(catalog.post(post_id), lang)]
    if post_id not in paths.essentials(catalog, track_id):
        parts.append(Mrkdwn("_{}_").format(pt("further", lang)))
    return Mrkdwn("").join(Mrkdwn(" · ") + p for p in parts if p)


def path_line(catalog: Catalog, track_id: str, read: Collection[str], minutes_per_week: int | None,
              today: dt.date, lang: str = "en") -> Mrkdwn:
    """``Essential path: 6 steps · 84 min · at 30 min a week you finish around 29 Dec 2026``.

    The finish day counts the unread essential steps from ``today`` at ``minutes_per_week``
    (``None``: :data:`bot.domain.budget.DEFAULT_MINUTES`, said so); a finished path says so; the
    track's ``before`` tracks follow on a second line."""
    ess = paths.essentials(catalog, track_id)
    minutes, _complete = paths.total_minutes(catalog, ess)
    if any(catalog.post(p).minutes for p in ess):
        line = pt("path_line", lang, steps=len(ess), minutes=minutes)
    else:  # no length known yet: never a "0 min" that looks counted
        line = pt("path_steps", lang, steps=len(ess))
    done = {catalog.resolve_post_id(p) or p for p in read}
    left = [catalog.post(p).minutes for p in ess if p not in done]
    if not left:
        line += pt("path_finished", lang)
    else:
        per_week = minutes_per_week or budgets.DEFAULT_MINUTES
        day = budgets.finish_day(today, budgets.weeks_to_finish(left, per_week))
        line += pt("path_finish", lang, budget=per_week, day=format_day(day, lang))
        if minutes_per_week is None:
            line += pt("path_default", lang)
    before = [b for b in catalog.track(track_id).before if catalog.has_track(b)]
    if before:
        names = Mrkdwn(", ").join(Mrkdwn("*{}*").format(catalog.track(b).names.get(lang)) for b in before)
        line += Mrkdwn("\n") + pt("before", lang, tracks=names)
    return line


def plan_reply(catalog: Catalog, minutes_per_week: int | None, lang: str, *, changed_to: str) -> Reply:
    """The answer to ``plan …``: the budget set (``changed_to="set"``), reset (``"off"``) or
    shown (``"show"``), and the weeks each track's essential path takes at it."""
    per_week = minutes_per_week or budgets.DEFAULT_MINUTES
    if changed_to == "set":
        head = pt("plan.set", lang, budget=per_week)
    elif changed_to == "off":
        head = pt("plan.off", lang, budget=per_week)
    else:
        head = pt("plan.show", lang, budget=per_week,
                  default=pt("plan.default", lang) if minutes_per_week is None else Mrkdwn())
    lines = [pt("plan.weeks", lang, track=tr.names.get(lang), minutes=m, weeks=w)
             for tr, m, w in weeks_per_track(catalog, per_week)]
    blocks = [section(head), section(Mrkdwn("\n").join(lines[:40]))]
    return make_reply(blocks, head)


def weeks_per_track(catalog: Catalog, minutes_per_week: int) -> list[tuple[Track, int, int]]:
    """``(track, essential minutes, weeks to finish)`` for every track at ``minutes_per_week``."""
    out = []
    for tr in catalog.tracks:
        ess = paths.essentials(catalog, tr.id)
        out.append((tr, paths.total_minutes(catalog, ess)[0],
                    budgets.weeks_to_finish([catalog.post(p).minutes for p in ess], minutes_per_week)))
    return out


def minutes_read(catalog: Catalog, read: Collection[str]) -> int:
    """Minutes of reading in the posts of ``read`` whose length is known (former ids count)."""
    ids = {pid for p in read if (pid := catalog.resolve_post_id(p))}
    return sum(catalog.post(p).minutes or 0 for p in ids)


def home_finished_blocks(catalog: Catalog, finished: Mapping[str, dt.datetime], read: Collection[str],
                         lang: str, picture_url: str | None = None,
                         picture_track: str | None = None) -> list[Block]:
    """App Home's part about finishing: the finished tracks and the minutes read, then, when
    ``picture_url`` is given (the HTTP door has a public URL), an image block of the reader's
    path picture for ``picture_track``."""
    minutes = minutes_read(catalog, read)
    names = [catalog.track(tid).names.get(lang) for tid in finished if catalog.has_track(tid)]
    if names:
        text = pt("home.finished", lang, tracks=", ".join(names), minutes=minutes)
    else:
        text = pt("home.none_finished", lang, minutes=minutes)
    out: list[Block] = [context(text)]
    if picture_url and picture_track and catalog.has_track(picture_track):
        alt = as_plain(pt("home.picture_alt", lang, track=catalog.track(picture_track).names.get(lang)))
        out.append(ImageBlock(image_url=picture_url[:3000], alt_text=alt[:2000]))
    return out


def with_finished(reply: Reply, catalog: Catalog, counts: Mapping[str, int], lang: str) -> Reply:
    """``reply`` (the ``stats`` insights) with one more context line: essential paths finished
    in the workspace, in all and per track (``counts``: ``{track id: readers}``), within the
    message's block limit."""
    total = sum(counts.values())
    per = ", ".join(f"{catalog.track(tid).names.get(lang)} {n}" for tid, n in
                    sorted(counts.items(), key=lambda kv: -kv[1]) if catalog.has_track(tid))
    line = pt("stats.finished", lang, n=total, tracks=per or "–")
    blocks = [*reply.blocks[:MAX_BLOCKS_MESSAGE - 1], context(line).to_dict()]
    return Reply(text=reply.text, blocks=blocks, response_type=reply.response_type)


def channel_finish_line(track_name: str, after_essentials: str, lang: str = "en") -> Mrkdwn:
    """The one line a channel digest carries when the channel has been through the essential
    path: what comes next follows its setup (``further`` or ``stop``)."""
    after = pt("channel.after_stop" if after_essentials == "stop" else "channel.after_further", lang)
    return pt("channel.essentials_done", lang, track=track_name, after=after)


def channel_budget_intro(track_name: str, total: int, minutes_per_week: int | None, lang: str = "en") -> Mrkdwn | None:
    """A channel's first digest's introduction when it has a weekly budget; None without one
    (the digest's own introduction, in steps a week, applies)."""
    if not minutes_per_week:
        return None
    return pt("channel.intro", lang, track=track_name, total=total, minutes=minutes_per_week)
