"""The digest's own strings, in English (``en``) and Chinese (``zh``).

Kept beside the digest code so that :mod:`bot.slack.i18n` stays the app's command and button
vocabulary (the digest reuses its button labels and a few lines from there). Values passed in are
inserted as given: callers escape catalog text for mrkdwn first.
"""

from __future__ import annotations

from bot.slack.i18n import lookup

STRINGS: dict[str, dict[str, str]] = {
    "header": {"en": "{track}: this week's reading", "zh": "{track}：本周阅读"},
    "intro": {
        "en": "This channel reads the *{track}* path together: {total} steps, {k} a week, each "
              "with why and when to read it. Here is where it starts.",
        "zh": "本频道一起读 *{track}* 路径：共 {total} 步，每周 {k} 篇，每篇附阅读理由和时机。从这里开始。"},
    "step_meta": {"en": "step {position} of {total} · {level} · {source} · {date}",
                  "zh": "第 {position}/{total} 步 · {level} · {source} · {date}"},
    "new_header": {"en": "*New in this track since the last digest*",
                   "zh": "*自上期以来本主题新增*"},
    "new_behind": {"en": "step {position} of {total}, before where the channel is: worth catching up",
                   "zh": "第 {position}/{total} 步，在本频道当前进度之前，建议补读"},
    "new_ahead": {"en": "step {position} of {total}, coming up in the path",
                  "zh": "第 {position}/{total} 步，稍后会按顺序推送"},
    "moved": {"en": "step {position} of {total}, moved before where the channel is",
              "zh": "第 {position}/{total} 步，调整到了本频道当前进度之前"},
    "new_badge": {"en": "new in catalog {version}", "zh": "目录 {version} 新增"},
    "more": {"en": "… and {n} more: `/vllm-path {track_id}` shows the whole path",
             "zh": "… 还有 {n} 篇：`/vllm-path {track_id}` 查看完整路径"},
    "closing": {
        "en": "That was the last step: this channel has been through all {total} steps of *{track}*. "
              ":tada: From now on I'll only post here when the catalog adds to this track.",
        "zh": "这是最后一步：本频道已读完 *{track}* 的全部 {total} 步 :tada: 之后只有目录为本主题新增文章时才会在这里发消息。"},
    "footer": {
        "en": "catalog {version} · {sent} of {total} steps so far · `/vllm-path {track_id}` shows "
              "the path with your own progress",
        "zh": "目录版本 {version} · 已推送 {sent}/{total} 步 · `/vllm-path {track_id}` 查看路径和你自己的进度"},
    "fallback": {"en": "{track}, this week: {posts}", "zh": "{track} 本周：{posts}"},
    "fallback_new": {"en": "{track}: new in the track: {posts}", "zh": "{track} 新增：{posts}"},
    "stop_confirm_title": {"en": "Stop this digest?", "zh": "停止这个推荐？"},
    "stop_confirm_text": {
        "en": "The *{track}* digest stops for everyone in this channel. "
              "`/vllm-path subscribe {track_id}` starts it again where it left off.",
        "zh": "本频道所有人都将不再收到 *{track}* 推荐。`/vllm-path subscribe {track_id}` 可从中断处重新开始。"},
    "stop_confirm_yes": {"en": "Stop", "zh": "停止"},
    "stop_confirm_no": {"en": "Cancel", "zh": "取消"},
    "dm_header": {"en": "Your next reads this week", "zh": "本周你的下一篇"},
    "dm_meta": {"en": "step {position} of {total} · {level}", "zh": "第 {position}/{total} 步 · {level}"},
    "dm_footer": {
        "en": "Your weekly DM · catalog {version} · `/vllm-path dm off` turns it off",
        "zh": "每周私信 · 目录版本 {version} · `/vllm-path dm off` 关闭"},
    "dm_fallback": {"en": "Your next reads: {posts}", "zh": "你的下一篇：{posts}"},
    "snoozed_channel": {
        "en": "The *{track}* digest skips its next one ({when}) and comes back the week after.",
        "zh": "*{track}* 推荐将跳过下一期（{when}），之后照常。"},
    "snoozed_dm": {"en": "Snoozed: no weekly DM until {until}.", "zh": "已暂停：{until} 之前不再发每周私信。"},
    "stopped_channel": {
        "en": "The *{track}* digest is stopped in this channel. `/vllm-path subscribe {track_id}` "
              "starts it again where it left off.",
        "zh": "本频道的 *{track}* 推荐已停止。`/vllm-path subscribe {track_id}` 可从中断处重新开始。"},
    "stopped_dm": {"en": "Weekly DM off. `/vllm-path dm on` turns it on again.",
                   "zh": "已关闭每周私信。`/vllm-path dm on` 可重新开启。"},
    "gone": {"en": "That digest no longer exists in this workspace.", "zh": "这个推荐已不存在。"},
}


def dt(key: str, lang: str = "en", **values: object) -> str:
    """The digest string ``key`` in ``lang`` (English when missing), formatted with ``values``
    (:func:`bot.slack.i18n.lookup` over this module's table). Raises ``KeyError`` for an unknown key."""
    return lookup(STRINGS, key, lang, **values)
