"""Every user-facing string, in English (``en``) and Chinese (``zh``); :func:`t` formats one into
:class:`~bot.slack.mrkdwn.Mrkdwn`, escaping every value that is not ``Mrkdwn`` already."""

from __future__ import annotations

from bot.slack.mrkdwn import Mrkdwn

LANGS = ("en", "zh")

WEEKDAYS = {
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "zh": ("周一", "周二", "周三", "周四", "周五", "周六", "周日"),
}

# fmt: off
STRINGS: dict[str, dict[str, str]] = {
    "help.title": {"en": "vllm-path: reading paths through the vLLM blog",
                   "zh": "vllm-path：vLLM 博客阅读路径"},
    "help.intro": {
        "en": "Pick a topic and I show its posts in reading order, where you are, and the one post to read next.",
        "zh": "选一个主题，我按阅读顺序列出文章、标出你的进度，并告诉你下一篇读什么。"},
    "help.commands": {
        "en": ("*Find*\n"
               "`/vllm-path speculative` · a track's path with your progress (also `pd`, `quant`, `推测解码` …)\n"
               "`/vllm-path nixl` · posts matching a query, and where each sits in its path (`search spec`: posts only, never a path)\n"
               "`/vllm-path next` · your next read in every track you follow · `next spec`: in one track\n"
               "`/vllm-path what's new` · the newest posts\n"
               "*Progress*\n"
               "`/vllm-path read p-eagle` · mark a post read (an id or a query) · `unread …` undoes it\n"
               "`/vllm-path follow pd` · follow a track · `unfollow pd`\n"
               "*Digests*\n"
               "`/vllm-path subscribe spec monday 09:00 Europe/Berlin 2 steps` · weekly digest in this channel\n"
               "`/vllm-path unsubscribe spec` · `/vllm-path subscriptions` · this channel's digests\n"
               "Stopping or removing a channel's digest: the person who set it up, or a workspace admin\n"
               "`/vllm-path dm on friday 08:30` · a weekly DM with your own next reads · `dm off`\n"
               "`/vllm-path plan 30m` · minutes a week: digests and DMs bring what fits · `plan off`\n"
               "`/vllm-path remind p-eagle next monday` · a DM at 09:00 that day · `reminders` lists yours, each with *Cancel*\n"
               "*Settings*\n"
               "`/vllm-path lang zh` · reply in Chinese (`lang en` for English)\n"
               "`/vllm-path stats` · the workspace's reading insights (workspace admins)"),
        "zh": ("*查找*\n"
               "`/vllm-path 推测解码` · 某个主题的阅读路径和你的进度（也可用 `pd`、`量化`、`speculative` …）\n"
               "`/vllm-path nixl` · 搜索文章，并显示每篇在路径中的位置（`search spec`：只搜文章，不显示路径）\n"
               "`/vllm-path next` · 你关注的每个主题的下一篇 · `next spec`：只看一个主题\n"
               "`/vllm-path 最新文章` · 最新发布的文章\n"
               "*进度*\n"
               "`/vllm-path read p-eagle` · 标记已读（文章 id 或搜索词）· `unread …` 取消\n"
               "`/vllm-path follow pd` · 关注主题 · `unfollow pd` 取消关注\n"
               "*周报*\n"
               "`/vllm-path subscribe spec monday 09:00 Asia/Shanghai 2 steps` · 在本频道订阅每周推荐\n"
               "`/vllm-path unsubscribe spec` · `/vllm-path subscriptions` · 本频道的订阅\n"
               "停止或取消频道订阅：仅限设置者或工作区管理员\n"
               "`/vllm-path dm on friday 08:30` · 每周私信你的下一篇 · `dm off`\n"
               "`/vllm-path 计划 30分钟` · 每周阅读分钟数：摘要和私信带来放得下的几篇 · `plan off`\n"
               "`/vllm-path remind p-eagle next monday` · 当天 09:00 私信提醒 · `reminders` 列出你的提醒（可 *取消*）\n"
               "*设置*\n"
               "`/vllm-path lang en` · 用英文回复（`lang zh` 用中文）\n"
               "`/vllm-path stats` · 本工作区的阅读统计（工作区管理员）")},
    "help.tracks": {"en": "*Tracks:* {tracks}", "zh": "*主题：* {tracks}"},
    "help.footer": {"en": "Replies are visible only to you unless you press *Share to channel*. Catalog {version}.",
                    "zh": "回复仅你可见，点击 *分享到频道* 才会公开。目录版本 {version}。"},
    "track.progress": {"en": "{read} of {total} read · catalog {version}",
                       "zh": "已读 {read}/{total} · 目录版本 {version}"},
    "track.path": {"en": "*Reading path*", "zh": "*阅读路径*"},
    "track.next": {"en": "*Read next:* {post}", "zh": "*下一篇：* {post}"},
    "track.done": {"en": "You have read the whole path. :tada: New posts will show up here when the catalog adds them.",
                   "zh": "你已读完整条路径 :tada: 目录新增文章后会显示在这里。"},
    "track.read_first": {"en": "Read first: {items}", "zh": "先读：{items}"},
    "track.background": {"en": "Background: {items}", "zh": "背景知识：{items}"},
    "track.then": {"en": "Afterwards (outside this catalog): {items}", "zh": "之后可读（目录外）：{items}"},
    "track.more_steps": {"en": "… and {n} more steps", "zh": "… 还有 {n} 步"},
    "step.position": {"en": "step {position} of {of} in {track}", "zh": "{track} 第 {position}/{of} 步"},
    "step.next": {"en": "next: {post}", "zh": "下一篇：{post}"},
    "step.last": {"en": "last step", "zh": "最后一步"},
    "link.summary": {"en": "(summary of the {company} article)", "zh": "（{company} 原文的摘要）"},
    "link.none": {"en": "(no link yet: see {archive})", "zh": "(暂无链接：见 {archive})"},
    "link.archive": {"en": "the vLLM blog archive", "zh": "vLLM 博客文章列表"},
    "track.showing": {"en": "Steps {first}–{last} of {total}", "zh": "第 {first}–{last} 步，共 {total} 步"},
    "latest.header": {"en": "Newest posts", "zh": "最新文章"},
    "latest.more_count": {"en": "Posts {first}–{last} of {total}, newest first",
                          "zh": "共 {total} 篇，按发布时间从新到旧，当前第 {first}–{last} 篇"},
    "search.more_count": {"en": "Showing {first}–{last} of {total} matches",
                          "zh": "共 {total} 篇匹配，当前第 {first}–{last} 篇"},
    "search.unknown_link": {"en": "That link is on the vLLM blog, but the post is not in the catalog yet: {url}",
                            "zh": "这个链接来自 vLLM 博客，但这篇文章还没有收入目录：{url}"},
    "search.home_link": {"en": "That is the vLLM blog's home page ({url}): `/vllm-path what's new` lists the catalog's newest posts.",
                         "zh": "这是 vLLM 博客的首页（{url}）：`/vllm-path 最新文章` 列出目录中最新的文章。"},
    "btn.more_results": {"en": "More results", "zh": "更多结果"},
    "btn.more_steps": {"en": "Show more steps", "zh": "显示更多步骤"},
    "btn.earlier_steps": {"en": "Earlier steps", "zh": "前面的步骤"},
    "step.before": {"en": "before: {post}", "zh": "上一篇：{post}"},
    "btn.cancel": {"en": "Cancel", "zh": "取消"},
    "btn.close": {"en": "Close", "zh": "关闭"},
    "sub.steps": {"en": "{n} steps each week.", "zh": "每周 {n} 篇。"},
    "sub.bad_steps": {"en": "A digest sends {min} to {max} steps a week, not {n}.",
                      "zh": "每周推荐可发送 {min} 到 {max} 篇，不能是 {n}。"},
    "stats.header": {"en": "Reading insights", "zh": "阅读概况"},
    "stats.activity": {
        "en": ("Active readers in the last {days} days: *{active}* ({total} ever) · reads per week, "
               "last {weeks} weeks: `{spark}` ({counts})"),
        "zh": "最近 {days} 天活跃读者 *{active}* 人（累计 {total} 人）· 最近 {weeks} 周每周阅读：`{spark}`（{counts}）"},
    "stats.funnels": {"en": "*Completion per track* (readers who have read at least 1, 2, 3… of its steps)",
                      "zh": "*各主题完成情况*（至少读完 1、2、3… 篇的读者数）"},
    "stats.funnel": {"en": "*{track}* · {readers} readers · {steps} steps\n{funnel}",
                     "zh": "*{track}* · {readers} 位读者 · 共 {steps} 步\n{funnel}"},
    "stats.top": {"en": "*Most read*", "zh": "*最多人读*"},
    "stats.readers": {"en": "{n} readers", "zh": "{n} 位读者"},
    "stats.top_hidden": {"en": "*Most read*: no post has more than {n} readers yet.",
                         "zh": "*最多人读*：还没有超过 {n} 位读者的文章。"},
    "stats.digests": {"en": "*Digests* (last {days} days)", "zh": "*周报*（最近 {days} 天）"},
    "stats.channel": {
        "en": "{channel} · {active} active, {paused} paused · {sent} sent, {skipped} skipped, {failed} failed",
        "zh": "{channel} · {active} 个进行中，{paused} 个已暂停 · 已发送 {sent}，跳过 {skipped}，失败 {failed}"},
    "stats.reasons": {"en": "paused: {reasons}", "zh": "暂停原因：{reasons}"},
    "stats.footer": {"en": "Counts only; a post or step read by {n} people or fewer shows no number.",
                     "zh": "仅显示人数；某篇文章或某一步的读者不超过 {n} 人时不显示数字。"},
    "stats.refused": {"en": "Reading insights are for workspace admins and owners.",
                      "zh": "阅读概况仅对工作区管理员和所有者开放。"},
    "remind.set": {"en": "I will remind you of {post} on {when}.",
                   "zh": "我会在{when} 私信提醒你阅读：{post}"},
    "remind.moved": {"en": "I will remind you of {post} on {when} instead of {before}.",
                     "zh": "改为在{when} 私信提醒你阅读：{post}（原定 {before}）"},
    "remind.dm": {"en": "You asked me to remind you of {post}:", "zh": "你让我提醒你阅读 {post}："},
    "remind.bad_day": {
        "en": ("I could not use “{value}” as a day: try `tomorrow`, `next monday`, `in 3 days` or "
               "`2026-12-07` (a day after today, within a year)."),
        "zh": "无法识别日期“{value}”：可以用 `明天`、`下周一`、`3天后`、`12月7日` 或 `2026-12-07`（今天之后、一年以内）。"},
    "remind.which": {
        "en": "Which post? For example `/vllm-path remind p-eagle next monday` (a post id or a query, then the day).",
        "zh": "提醒哪篇文章？例如 `/vllm-path remind p-eagle next monday`（文章 id 或搜索词，后接日期）。"},
    "remind.no_match": {
        "en": "No post matches “{query}”, so no reminder was set. Use a post's id or words from its title, e.g. `/vllm-path remind p-eagle next monday`.",
        "zh": "没有与“{query}”匹配的文章，未设置提醒。请用文章 id 或标题中的词，例如 `/vllm-path remind p-eagle next monday`。"},
    "remind.pick": {
        "en": "I am not sure which post “{query}” means. Name one by its id (under each title), e.g. `/vllm-path remind {example} {day}`, or press *Remind me next week* on one.",
        "zh": "不确定“{query}”指的是哪篇文章。请用文章 id（标题下方）指明，例如 `/vllm-path remind {example} {day}`，或在某篇上点 *下周提醒我*。"},
    "reminders.header": {"en": "Your reminders", "zh": "你的提醒"},
    "reminders.none": {
        "en": ("No reminders. Set one with `/vllm-path remind p-eagle next monday` or *Remind me next week* "
               "on a shared link."),
        "zh": "暂无提醒。可用 `/vllm-path remind p-eagle next monday`，或点击分享链接上的 *下周提醒我*。"},
    "reminders.cancelled": {"en": "Reminder cancelled.", "zh": "已取消提醒。"},
    "reminders.cancelled_post": {"en": "Cancelled the reminder of {post}.", "zh": "已取消提醒：{post}"},
    "reminders.not_found": {"en": "That reminder is already sent or cancelled.", "zh": "该提醒已发送或已取消。"},
    "reminders.no_number": {"en": "There is no reminder {n}: the list below numbers your pending reminders.",
                            "zh": "没有第 {n} 个提醒：下方列表为待发送的提醒编号。"},
    "reminders.no_number_none": {"en": "There is no reminder {n}.", "zh": "没有第 {n} 个提醒。"},
    "reminders.usage": {"en": "Use `/vllm-path reminders` to list your reminders and "
                              "`/vllm-path reminders cancel 1` to cancel the first.",
                        "zh": "用 `/vllm-path reminders` 查看提醒，用 `/vllm-path reminders cancel 1` 取消第一个。"},
    "btn.remind_next_week": {"en": "Remind me next week", "zh": "下周提醒我"},
    "unfurl.footer": {"en": "vllm-path · catalog {version} · `/vllm-path help`",
                      "zh": "vllm-path · 目录版本 {version} · `/vllm-path help`"},
    "btn.mark_read": {"en": "Mark read", "zh": "标记已读"},
    "btn.mark_unread": {"en": "Mark unread", "zh": "标记未读"},
    "btn.follow": {"en": "Follow track", "zh": "关注主题"},
    "btn.unfollow": {"en": "Unfollow", "zh": "取消关注"},
    "btn.share": {"en": "Share to channel", "zh": "分享到频道"},
    "btn.open_path": {"en": "Open path", "zh": "查看路径"},
    "btn.dm_on": {"en": "Turn on weekly DM", "zh": "开启每周私信"},
    "btn.dm_off": {"en": "Turn off weekly DM", "zh": "关闭每周私信"},
    "btn.snooze": {"en": "Snooze a week", "zh": "暂停一周"},
    "btn.stop": {"en": "Stop", "zh": "停止"},
    "search.header": {"en": "Posts matching “{query}”", "zh": "与“{query}”匹配的文章"},
    "search.track_hint": {"en": "This looks like the *{track}* track: `/vllm-path {track_id}` shows its path.",
                          "zh": "这像是 *{track}* 主题：`/vllm-path {track_id}` 查看路径。"},
    "search.none": {"en": "No post matches “{query}”.", "zh": "没有与“{query}”匹配的文章。"},
    "search.partly": {"en": "No post answers “{query}”: the catalog has nothing on the rest of it. "
                      "`/vllm-path search {words}` lists the posts on *{words}* alone.",
                      "zh": "没有文章回答“{query}”：目录里没有其余部分的内容。`/vllm-path search {words}` 只列出关于 *{words}* 的文章。"},
    "search.closest": {"en": "Closest posts to “{query}” (no post matches every word)",
                       "zh": "与“{query}”最接近的文章（没有完全匹配的文章）"},
    "search.none_offer": {"en": "The tracks: {tracks}. Or try a topic, for example `/vllm-path what is prefix caching` or `/vllm-path speculative decoding`.",
                          "zh": "可选主题：{tracks}。也可以搜索一个话题，例如 `/vllm-path 什么是前缀缓存` 或 `/vllm-path 推测解码`。"},
    "search.empty": {"en": "Type a topic or a few words, for example `/vllm-path speculative`, `/vllm-path nixl` or `/vllm-path 量化`.",
                     "zh": "请输入主题或关键词，例如 `/vllm-path speculative`、`/vllm-path nixl` 或 `/vllm-path 量化`。"},
    "search.not_in_track": {"en": "not in a path yet", "zh": "尚未加入路径"},
    "didyoumean.command": {"en": "Did you mean `/vllm-path {suggestion}`?", "zh": "你是不是想输入 `/vllm-path {suggestion}`？"},
    "didyoumean.track": {"en": "Did you mean the *{track}* track? Try `/vllm-path {track_id}`.",
                         "zh": "你是不是想找 *{track}* 主题？试试 `/vllm-path {track_id}`。"},
    "didyoumean.help": {"en": "`/vllm-path help` lists everything I understand.", "zh": "`/vllm-path help` 列出所有命令。"},
    "next.header": {"en": "Your next reads", "zh": "你的下一篇"},
    "next.none_followed": {"en": "You don't follow any track yet. Follow one with `/vllm-path follow spec`, or open one with `/vllm-path speculative`.",
                           "zh": "你还没有关注任何主题。用 `/vllm-path follow spec` 关注，或用 `/vllm-path 推测解码` 查看路径。"},
    "next.track_line": {"en": "*{track}* ({read} of {total} read): {post}", "zh": "*{track}*（已读 {read}/{total}）：{post}"},
    "next.started": {"en": "You follow no track; these are the ones you have started. `/vllm-path follow {track_id}` "
                     "adds it to your weekly DM.", "zh": "你还没有关注路径；以下是你已开始读的路径。`/vllm-path follow {track_id}` 可把它加入每周私信。"},
    "next.track_done": {"en": "*{track}*: path complete :white_check_mark:", "zh": "*{track}*：已读完 :white_check_mark:"},
    "read.done": {"en": "Marked read: {posts}", "zh": "已标记为已读：{posts}"},
    "read.already": {"en": "Already read: {posts}", "zh": "已经读过：{posts}"},
    "unread.done": {"en": "Marked unread: {posts}", "zh": "已标记为未读：{posts}"},
    "unread.already": {"en": "{posts} was not marked read.", "zh": "{posts} 本来就未标记已读。"},
    "read.which": {"en": "Which post? Give its id or a few words: `/vllm-path read p-eagle`.",
                   "zh": "哪一篇？请给出文章 id 或关键词：`/vllm-path read p-eagle`。"},
    "unread.which": {"en": "Which post? Give its id or a few words: `/vllm-path unread p-eagle`.",
                     "zh": "哪一篇？请给出文章 id 或关键词：`/vllm-path unread p-eagle`。"},
    "read.no_match": {"en": "No post matches “{query}”, so nothing was marked.",
                      "zh": "没有与“{query}”匹配的文章，未做任何标记。"},
    "follow.done": {"en": "You now follow *{track}*. Your next read: {post}", "zh": "已关注 *{track}*。下一篇：{post}"},
    "done": {"en": "Done.", "zh": "好的。"},
    "follow.done_short": {"en": "You now follow *{track}*.", "zh": "已关注 *{track}*。"},
    "follow.already": {"en": "You already follow *{track}*.", "zh": "你已经关注了 *{track}*。"},
    "unfollow.done": {"en": "You no longer follow *{track}*. Your progress is kept.", "zh": "已取消关注 *{track}*，阅读进度会保留。"},
    "unfollow.not": {"en": "You were not following *{track}*.", "zh": "你没有关注 *{track}*。"},
    "track.which": {"en": "Which track? One of: {tracks}", "zh": "哪个主题？可选：{tracks}"},
    "track.unknown": {"en": "No track matches “{query}”. Tracks: {tracks}", "zh": "没有与“{query}”匹配的主题。可选主题：{tracks}"},
    "sub.done": {"en": "This channel now gets a weekly *{track}* digest on {weekday}s at {time} ({tz}). First one: {first}. Nobody is @-mentioned.",
                 "zh": "本频道已订阅 *{track}* 每周推荐：每{weekday} {time}（{tz}）。第一期：{first}。不会 @ 任何人。"},
    "sub.already": {"en": "This channel already gets the *{track}* digest on {weekday}s at {time} ({tz}). Next one: {first}.",
                    "zh": "本频道已订阅 *{track}*：每{weekday} {time}（{tz}）。下一期：{first}。"},
    "sub.resumed": {"en": "Resumed: the *{track}* digest picks up where it left off, on {weekday}s at {time} ({tz}). Next one: {first}.",
                    "zh": "已恢复：*{track}* 推荐从上次停下的地方继续，每{weekday} {time}（{tz}）。下一期：{first}。"},
    "sub.weekly_only": {"en": "Digests are weekly: name the day, e.g. `/vllm-path subscribe spec monday 09:00`.",
                        "zh": "摘要每周发送一次：请指定星期几，例如 `/vllm-path subscribe spec 周一 09:00`。"},
    "sub.bad_part": {"en": "I didn't understand “{value}”. Use `/vllm-path subscribe &lt;track&gt; [weekday] [HH:MM] [time zone]`, e.g. `/vllm-path subscribe spec friday 10:00 Europe/Berlin`.",
                     "zh": "无法理解“{value}”。用法：`/vllm-path subscribe &lt;主题&gt; [星期] [HH:MM] [时区]`，例如 `/vllm-path subscribe spec friday 10:00 Asia/Shanghai`。"},
    "read.pick": {"en": "I am not sure which post you mean, so nothing was marked yet: press *Mark read* on the one you read.",
                  "zh": "不确定你指的是哪篇文章，所以还没有标记：请在你读过的那篇上点 *标记已读*。"},
    "unread.pick": {"en": "I am not sure which post you mean, so nothing was changed: name it by its id (under each "
                          "title), e.g. `/vllm-path unread {example}`.",
                    "zh": "不确定你指的是哪篇文章，所以没有改动：请用文章 id（标题下方）指明，例如 `/vllm-path unread {example}`。"},
    "sub.updated": {"en": "Updated: the *{track}* digest now comes on {weekday}s at {time} ({tz}). Next one: {first}.",
                    "zh": "已更新：*{track}* 推荐改为每{weekday} {time}（{tz}）。下一期：{first}。"},
    "sub.not_channel": {"en": "Digests go to channels: run `/vllm-path subscribe …` in the channel that should get them. For yourself, use `/vllm-path dm on`.",
                        "zh": "周报只能发到频道：请在目标频道里运行 `/vllm-path subscribe …`。个人推荐请用 `/vllm-path dm on`。"},
    "sub.bad_tz": {"en": "“{tz}” is not a time zone I know. Use an IANA name such as Europe/Berlin, America/Los_Angeles or Asia/Shanghai.",
                   "zh": "无法识别时区“{tz}”。请使用 IANA 名称，例如 Asia/Shanghai、Europe/Berlin。"},
    "sub.bad_time": {"en": "“{value}” is not a time: use HH:MM in 24-hour form, e.g. 09:00.",
                     "zh": "“{value}”不是有效时间：请用 24 小时制 HH:MM，例如 09:00。"},
    "sub.crontab": {
        "en": "“{value}” looks like crontab text; I read schedules as words: a weekday name, HH:MM "
              "and a time zone. Write it as `{form}`.",
        "zh": "“{value}”像是 crontab 写法；请用星期名称、HH:MM 和时区来写，例如 `{form}`。"},
    "sub.weekday_number": {
        "en": "“{value}” is a number; write the weekday as a name (mon … sun, or 周一 … 周日) "
              "and the time as HH:MM, e.g. `{form}`.",
        "zh": "“{value}”是数字；请用星期名称（周一 … 周日，或 mon … sun）和 HH:MM 时间，例如 `{form}`。"},
    "sub.ambiguous_tz": {
        "en": "“{value}” names several time zones ({choices}). Which one? Type its IANA name, "
              "e.g. `{form}`.",
        "zh": "“{value}”可能指多个时区（{choices}），是哪一个？请输入 IANA 名称，例如 `{form}`。"},
    "tz.offset_note": {
        "en": "A fixed UTC offset has no daylight saving; to follow local time the year round, "
              "use your city's zone, e.g. Europe/London or Asia/Shanghai.",
        "zh": "固定的 UTC 偏移不实行夏令时；如需全年跟随当地时间，请使用所在城市的时区，"
              "例如 Asia/Shanghai。"},
    "tz.mst_note": {
        "en": "MST is read as America/Denver, which observes daylight saving; for Arizona "
              "(no daylight saving) use America/Phoenix.",
        "zh": "MST 按 America/Denver 处理（实行夏令时）；亚利桑那州（不实行夏令时）请用 America/Phoenix。"},
    "someone": {"en": "someone", "zh": "某人"},
    "sub.invite": {"en": "I can't post in this channel yet, so nothing is set up. Invite me first with "
                         "`/invite @vllm-path`, then run `/vllm-path {command}` again.",
                   "zh": "我还不能在本频道发消息，所以没有订阅。请先用 `/invite @vllm-path` 邀请我，"
                         "再运行 `/vllm-path {command}`。"},
    "sub.not_allowed": {"en": "Only the person who set up this digest ({person}) or a workspace admin can stop it.",
                        "zh": "只有设置这个推荐的人（{person}）或工作区管理员可以停止它。"},
    "sub.change_not_allowed": {
        "en": "Only the person who set up this digest ({person}) or a workspace admin can change its schedule.",
        "zh": "只有设置这个推荐的人（{person}）或工作区管理员可以修改它的时间。"},
    "announce.new": {"en": "{person} subscribed this channel to the weekly {track} digest ({weekday}s {time} {tz}).",
                     "zh": "{person} 为本频道订阅了每周『{track}』推荐（每{weekday} {time} {tz}）。"},
    "announce.resumed": {"en": "{person} resumed this channel's weekly {track} digest ({weekday}s {time} {tz}).",
                         "zh": "{person} 恢复了本频道的每周『{track}』推荐（每{weekday} {time} {tz}）。"},
    "announce.updated": {"en": "{person} moved this channel's weekly {track} digest to {weekday}s {time} {tz}.",
                         "zh": "{person} 将本频道的每周『{track}』推荐改到每{weekday} {time} {tz}。"},
    "announce.changed": {"en": "{person} changed how much this channel's weekly {track} digest brings ({amount}).",
                         "zh": "{person} 调整了本频道每周『{track}』推荐的分量（{amount}）。"},
    "sub.amount_min": {"en": "{n} min of reading a week", "zh": "每周 {n} 分钟阅读"},
    "sub.amount_steps": {"en": "{n} steps a week", "zh": "每周 {n} 篇"},
    "sub.amount_step": {"en": "1 step a week", "zh": "每周 1 篇"},
    "announce.unsub": {"en": "{person} unsubscribed this channel from the weekly {track} digest.",
                       "zh": "{person} 为本频道取消了每周『{track}』推荐。"},
    "announce.snooze": {"en": "{person} snoozed this channel's {track} digest: the next one is skipped, "
                              "it comes back after.",
                        "zh": "{person} 暂停了本频道下一期『{track}』推荐，之后照常。"},
    "announce.stop": {"en": "{person} stopped this channel's weekly {track} digest.",
                      "zh": "{person} 停止了本频道的每周『{track}』推荐。"},
    "unsub.done": {"en": "This channel no longer gets the *{track}* digest.", "zh": "本频道已取消 *{track}* 推荐。"},
    "unsub.not": {"en": "This channel has no *{track}* digest.", "zh": "本频道没有订阅 *{track}*。"},
    "subs.header": {"en": "Digests in this channel", "zh": "本频道的订阅"},
    "subs.none": {"en": "This channel has no digests. Start one with `/vllm-path subscribe spec monday 09:00`.",
                  "zh": "本频道还没有订阅。用 `/vllm-path subscribe spec monday 09:00` 开始。"},
    "subs.hint": {"en": "Stop one: `/vllm-path unsubscribe {track}` · change its day: `/vllm-path subscribe {track} friday 16:30`",
                  "zh": "停止：`/vllm-path unsubscribe {track}` · 改时间：`/vllm-path subscribe {track} friday 16:30`"},
    "subs.line": {"en": "*{track}*: {weekday}s {time} ({tz}), {steps} a week, {progress}",
                  "zh": "*{track}*：每{weekday} {time}（{tz}），每周 {n} 篇，{progress}"},
    "subs.line_minutes": {"en": "*{track}*: {weekday}s {time} ({tz}), about {minutes} min of reading a week, {progress}",
                          "zh": "*{track}*：每{weekday} {time}（{tz}），每周约 {minutes} 分钟的阅读，{progress}"},
    "subs.then_stop": {"en": ", stopping after the essential path", "zh": "，读完核心路径后停止"},
    "subs.progress": {"en": "{sent} of {total} steps sent", "zh": "已发送 {sent}/{total} 步"},
    "subs.paused": {"en": ":double_vertical_bar: paused: {reason} · `/vllm-path subscribe {track_id}` resumes it",
                    "zh": ":double_vertical_bar: 已暂停：{reason} · `/vllm-path subscribe {track_id}` 可恢复"},
    "level.intro": {"en": "intro", "zh": "入门"},
    "level.core": {"en": "core", "zh": "核心"},
    "level.advanced": {"en": "advanced", "zh": "进阶"},
    "level.capstone": {"en": "capstone", "zh": "收官"},
    "catalog.version": {"en": "catalog {version}", "zh": "目录版本 {version}"},
    "dm.on": {"en": "Weekly DM on: {weekday}s at {time} ({tz}), with your next read in each track you follow.",
              "zh": "已开启每周私信：每{weekday} {time}（{tz}），推送你关注主题的下一篇。"},
    "dm.unknown_part": {"en": "I didn't understand “{value}”. Try `/vllm-path dm on friday 08:30 Europe/Berlin`.",
                        "zh": "无法理解“{value}”。试试 `/vllm-path dm on friday 08:30 Asia/Shanghai`。"},
    "dm.usage": {"en": "Use `/vllm-path dm on [weekday] [HH:MM] [time zone]` or `/vllm-path dm off`.",
                 "zh": "用法：`/vllm-path dm on [星期] [HH:MM] [时区]` 或 `/vllm-path dm off`。"},
    "error.outdated": {
        "en": "This message is out of date: the catalog has changed since. Ask again, e.g. `/vllm-path next`.",
        "zh": "这条消息已过期：目录已更新。请重新查询，例如 `/vllm-path next`。"},
    "install.resumed_channel": {
        "en": "vllm-path is installed again: this channel's weekly digest resumes on its usual schedule.",
        "zh": "vllm-path 已重新安装：本频道的每周摘要按原定时间恢复。"},
    "install.resumed_dm": {
        "en": "vllm-path is installed again: your weekly DM digest resumes on its usual schedule.",
        "zh": "vllm-path 已重新安装：你的每周私信摘要按原定时间恢复。"},
    "dm.paused": {"en": ":double_vertical_bar: paused: {reason} · `/vllm-path dm on` resumes it",
                  "zh": ":double_vertical_bar: 已暂停：{reason} · `/vllm-path dm on` 可恢复"},
    "dm.off": {"en": "Weekly DM off.", "zh": "已关闭每周私信。"},
    "dm.now_off": {"en": "Your weekly DM is off.", "zh": "你的每周私信目前是关闭的。"},
    "dm.status_off": {"en": "Weekly DM: off", "zh": "每周私信：关闭"},
    "lang.done": {"en": "I'll reply in English.", "zh": "之后我会用中文回复。"},
    "follow.post_tracks": {"en": "That post is in several tracks: {tracks}. Pick one, e.g. `/vllm-path {command} {track_id}`.",
                           "zh": "这篇文章属于多个主题：{tracks}。请选一个，例如 `/vllm-path {command} {track_id}`。"},
    "lang.kept": {"en": "From now on I reply, and send digests and reminders, in English (`/vllm-path lang zh` switches).",
                  "zh": "之后我的回复、推荐和提醒都会用中文（`/vllm-path lang en` 可改为英文）。"},
    "dm.no_follows": {"en": "You follow no track yet, so there is nothing to send: `/vllm-path follow spec` adds one.",
                      "zh": "你还没有关注任何主题，暂时没有可发送的内容：用 `/vllm-path follow spec` 关注一个。"},
    "lang.now": {"en": "I reply to you in English; `/vllm-path lang zh` switches to Chinese.",
                 "zh": "我现在用中文回复你；`/vllm-path lang en` 可改为英文。"},
    "lang.bad": {"en": "Use `/vllm-path lang en` or `/vllm-path lang zh`.", "zh": "请使用 `/vllm-path lang en` 或 `/vllm-path lang zh`。"},
    "error.generic": {"en": "Something went wrong on my side and nothing was changed. Please try again in a moment.",
                      "zh": "我这边出了点问题，没有做任何更改。请稍后再试。"},
    "thanks": {"en": "You're welcome! `/vllm-path next` shows your next read.",
               "zh": "不客气！输入 `/vllm-path next` 查看下一篇。"},
    "error.too_long": {"en": "That was long: I only read the first {n} characters.", "zh": "输入太长，我只读取了前 {n} 个字符。"},
    "share.footer": {"en": "Shared from /vllm-path · catalog {version}", "zh": "来自 /vllm-path 的分享 · 目录版本 {version}"},
    "home.header": {"en": "Your vLLM reading paths", "zh": "你的 vLLM 阅读路径"},
    "home.following": {"en": "*Tracks you follow*", "zh": "*你关注的主题*"},
    "home.none_followed": {"en": "You don't follow a track yet. Pick one below or type `/vllm-path help`.",
                           "zh": "你还没有关注主题。可在下方选择，或输入 `/vllm-path help`。"},
    "home.other_tracks": {"en": "*More tracks*", "zh": "*更多主题*"},
    "home.dm": {"en": "*Weekly DM*", "zh": "*每周私信*"},
    "home.channels": {"en": "*Digests in your channels*", "zh": "*你所在频道的订阅*"},
    "home.no_channels": {"en": "None of your channels get a digest yet.", "zh": "你所在的频道还没有订阅。"},
    "home.more": {"en": "… and {n} more", "zh": "… 还有 {n} 个"},
    "busy": {"en": "Sorry, I have too much to do right now: please try again in a minute.",
             "zh": "抱歉，我现在有点忙，请一分钟后再试。"},
    "install.welcome": {
        "en": ("*Thanks for installing vllm-path.* It turns the vLLM blog into reading paths you can finish.\n"
               "Three commands to start:\n"
               "• `/vllm-path help`: what it can do (only you see the answer)\n"
               "• `/vllm-path speculative`: a reading path, with the minutes each post takes\n"
               "• `/vllm-path plan 30m`: a weekly reading budget; then `/vllm-path dm on` for your own weekly next read\n"
               "For a channel's weekly digest, invite the app there first: `/invite @vllm-path`, then `/vllm-path subscribe spec`."),
        "zh": ("*感谢安装 vllm-path。* 它把 vLLM 博客整理成读得完的阅读路径。\n"
               "从这三个命令开始：\n"
               "• `/vllm-path help`：看看它能做什么（只有你能看到回复）\n"
               "• `/vllm-path 推测解码`：一条阅读路径，附每篇文章的阅读时长\n"
               "• `/vllm-path plan 30m`：设定每周阅读时间；再用 `/vllm-path dm on` 每周私信你下一篇\n"
               "想在频道里收每周摘要，先邀请应用：`/invite @vllm-path`，再 `/vllm-path subscribe spec`。")},
    # the weekly digests (channel and DM), their buttons' confirmations and answers
    "digest.header": {"en": "{track}: this week's reading", "zh": "{track}：本周阅读"},
    "digest.intro": {
        "en": "This channel reads the *{track}* path together: {total} steps, {k} a week, each "
              "with why and when to read it. Here is where it starts.",
        "zh": "本频道一起读 *{track}* 路径：共 {total} 步，每周 {k} 篇，每篇附阅读理由和时机。从这里开始。"},
    "digest.step_meta": {"en": "step {position} of {total} · {level} · {source} · {date}",
                  "zh": "第 {position}/{total} 步 · {level} · {source} · {date}"},
    "digest.new_header": {"en": "*New in this track since the last digest*",
                   "zh": "*自上期以来本主题新增*"},
    "digest.new_behind": {"en": "step {position} of {total}, before where the channel is: worth catching up",
                   "zh": "第 {position}/{total} 步，在本频道当前进度之前，建议补读"},
    "digest.new_ahead": {"en": "step {position} of {total}, coming up in the path",
                  "zh": "第 {position}/{total} 步，稍后会按顺序推送"},
    "digest.moved": {"en": "step {position} of {total}, moved before where the channel is",
              "zh": "第 {position}/{total} 步，调整到了本频道当前进度之前"},
    "digest.new_badge": {"en": "new in catalog {version}", "zh": "目录 {version} 新增"},
    "digest.more": {"en": "… and {n} more: `/vllm-path {track_id}` shows the whole path",
             "zh": "… 还有 {n} 篇：`/vllm-path {track_id}` 查看完整路径"},
    "digest.closing": {
        "en": "That was the last step: this channel has been through all {total} steps of *{track}*. "
              ":tada: From now on I'll only post here when the catalog adds to this track.",
        "zh": "这是最后一步：本频道已读完 *{track}* 的全部 {total} 步 :tada: 之后只有目录为本主题新增文章时才会在这里发消息。"},
    "digest.footer": {
        "en": "catalog {version} · {sent} of {total} steps so far · `/vllm-path {track_id}` shows "
              "the path with your own progress",
        "zh": "目录版本 {version} · 已推送 {sent}/{total} 步 · `/vllm-path {track_id}` 查看路径和你自己的进度"},
    "digest.fallback": {"en": "{track}, this week: {posts}", "zh": "{track} 本周：{posts}"},
    "digest.fallback_new": {"en": "{track}: new in the track: {posts}", "zh": "{track} 新增：{posts}"},
    "digest.stop_confirm_title": {"en": "Stop this digest?", "zh": "停止这个推荐？"},
    "digest.stop_confirm_text": {
        "en": "The *{track}* digest stops for everyone in this channel. "
              "`/vllm-path subscribe {track_id}` starts it again where it left off.",
        "zh": "本频道所有人都将不再收到 *{track}* 推荐。`/vllm-path subscribe {track_id}` 可从中断处重新开始。"},
    "digest.dm_header": {"en": "Your next reads this week", "zh": "本周你的下一篇"},
    "digest.dm_footer": {
        "en": "Your weekly DM · catalog {version} · `/vllm-path dm off` turns it off",
        "zh": "每周私信 · 目录版本 {version} · `/vllm-path dm off` 关闭"},
    "digest.dm_fallback": {"en": "Your next reads: {posts}", "zh": "你的下一篇：{posts}"},
    "digest.snoozed_channel": {
        "en": "The *{track}* digest skips its next one ({when}) and comes back the week after.",
        "zh": "*{track}* 推荐将跳过下一期（{when}），之后照常。"},
    "digest.snoozed_dm": {"en": "Snoozed: no weekly DM until {until}.", "zh": "已暂停：{until} 之前不再发每周私信。"},
    "digest.stopped_channel": {
        "en": "The *{track}* digest is stopped in this channel. `/vllm-path subscribe {track_id}` "
              "starts it again where it left off.",
        "zh": "本频道的 *{track}* 推荐已停止。`/vllm-path subscribe {track_id}` 可从中断处重新开始。"},
    "digest.stopped_dm": {"en": "Weekly DM off. `/vllm-path dm on` turns it on again.",
                   "zh": "已关闭每周私信。`/vllm-path dm on` 可重新开启。"},
    "digest.gone": {"en": "That digest no longer exists in this workspace.", "zh": "这个推荐已不存在。"},
    # reading time, budgets, essential paths (issue 24)
    "budget.min": {"en": "{n} min", "zh": "{n} 分钟"},
    "budget.min_estimate": {"en": "~{n} min", "zh": "约 {n} 分钟"},
    "budget.further": {"en": "further reading", "zh": "延伸阅读"},
    "budget.path_line": {"en": "Essential path: {steps} steps · {minutes} min",
                  "zh": "核心路径：{steps} 篇 · {minutes} 分钟"},
    "budget.path_steps": {"en": "Essential path: {steps} steps", "zh": "核心路径：{steps} 篇"},
    "budget.path_finish": {"en": " · at {budget} min a week you finish around {day}",
                    "zh": " · 按每周 {budget} 分钟，大约 {day} 读完"},
    "budget.path_finished": {"en": " · finished :white_check_mark:", "zh": " · 已读完 :white_check_mark:"},
    "budget.before": {"en": "*{track}*, its essential path ({steps} steps, `/vllm-path {track_id}`)",
                      "zh": "*{track}* 的核心路径（{steps} 篇，`/vllm-path {track_id}`）"},
    "budget.path_default": {"en": " (the default; set yours with `plan 30m`)",
                     "zh": "（默认值；用 `plan 30m` 设置你的）"},
    "budget.whole_path": {"en": "see the whole path", "zh": "查看完整路径"},
    "budget.plan.set": {"en": "Your reading plan: *{budget} min a week*. Digests and DMs bring the next steps "
                       "that fit, at least one a week.",
                 "zh": "你的阅读计划：*每周 {budget} 分钟*。摘要和私信会带来放得下的下几篇，每周至少一篇。"},
    "budget.plan.off": {"en": "Your reading plan is back to the default: {budget} min a week.",
                 "zh": "你的阅读计划已恢复默认：每周 {budget} 分钟。"},
    "budget.plan.show": {"en": "Your reading plan: {budget} min a week{default}.",
                  "zh": "你的阅读计划：每周 {budget} 分钟{default}。"},
    "budget.plan.default": {"en": " (the default)", "zh": "（默认）"},
    "budget.plan.bad": {"en": "I could not read {value} as minutes a week. Try `plan 30m`, `plan 1h`, "
                       "`plan 45 min` or `plan off` (also `计划 30分钟`, `每周 1小时`).",
                 "zh": "无法把 {value} 读成每周分钟数。试试 `计划 30分钟`、`每周 1小时`、`plan 45m` 或 `plan off`。"},
    "budget.plan.range": {"en": "A plan is {low}–{high} minutes a week; {value} min is outside that.",
                   "zh": "计划应在每周 {low}–{high} 分钟之间；{value} 分钟不在范围内。"},
    "budget.plan.weeks": {"en": "• *{track}*: {minutes} min · {weeks} weeks",
                   "zh": "• *{track}*：{minutes} 分钟 · {weeks} 周"},
    "budget.plan.week": {"en": "• *{track}*: {minutes} min · 1 week",
                   "zh": "• *{track}*：{minutes} 分钟 · {weeks} 周"},
    "budget.home.finished": {"en": "*Finished paths:* {tracks} · {minutes} min read in all",
                      "zh": "*已读完的路径：*{tracks} · 共读 {minutes} 分钟"},
    "budget.home.none_finished": {"en": "No essential path finished yet · {minutes} min read in all",
                           "zh": "还没有读完的核心路径 · 共读 {minutes} 分钟"},
    "budget.home.picture_alt": {"en": "The reading path of {track}, with your progress",
                         "zh": "{track} 的阅读路径与你的进度"},
    "budget.stats.finished": {"en": ":checkered_flag: Essential paths finished: *{n}* ({tracks})",
                       "zh": ":checkered_flag: 读完的核心路径：*{n}*（{tracks}）"},
    "budget.dm.budget": {"en": "This week's reading at {budget} min a week:", "zh": "本周阅读（每周 {budget} 分钟）："},
    "budget.channel.essentials_done": {
        "en": ":checkered_flag: This channel has been through the essential path of *{track}*.{after}",
        "zh": ":checkered_flag: 本频道已读完 *{track}* 的核心路径。{after}"},
    "budget.channel.intro": {
        "en": "This channel reads the *{track}* path together: {total} steps, about {minutes} min of reading "
              "a week, essential steps first. Here is where it starts.",
        "zh": "本频道一起读 *{track}* 路径：共 {total} 篇，每周约 {minutes} 分钟，先读核心路径。从这里开始。"},
    "budget.channel.after_further": {"en": " Further reading follows in the next digests.",
                              "zh": "后续摘要继续推送延伸阅读。"},
    "budget.channel.after_stop": {"en": " The digest stops here, as set up.", "zh": "按设置，摘要到此为止。"},
    "budget.channel.set": {"en": "This channel's digest: *{budget} min of reading a week*, at least one step.",
                    "zh": "本频道的摘要：*每周 {budget} 分钟的阅读*，每周至少一篇。"},
    "budget.channel.set_stop": {"en": "It stops after the essential path.", "zh": "读完核心路径后停止。"},
    "budget.channel.set_further": {"en": "After the essential path it goes on with further reading.",
                            "zh": "读完核心路径后继续推送延伸阅读。"},
    # the finish line (issue 24)
    "finish.done": {"en": ":checkered_flag: *You finished the essential path of {track}!* {steps} steps · {minutes} min.",
             "zh": ":checkered_flag: *你读完了 {track} 的核心路径！*{steps} 篇 · {minutes} 分钟。"},
    "finish.covered": {"en": "You covered: {titles}", "zh": "你读过：{titles}"},
    "finish.further": {"en": "Further reading, when you want more:", "zh": "想继续的话，延伸阅读："},
    "finish.next": {"en": "Next track: *{track}* · `/vllm-path {track_id}`",
             "zh": "下一个路径：*{track}* · `/vllm-path {track_id}`"},
}
# fmt: on


def t(key: str, lang: str = "en", **values: object) -> Mrkdwn:
    """The string ``key`` in ``lang`` (English when missing), formatted with ``values`` (escaped
    unless :class:`Mrkdwn`). Raises ``KeyError`` for an unknown key."""
    entry = STRINGS[key]
    template = Mrkdwn(entry.get(lang) or entry["en"])
    return template.format(**values) if values else template


def level_name(level: str, lang: str = "en") -> Mrkdwn:
    """A step's level (``intro``, ``core``, ``advanced``, ``capstone``) as a reader sees it in ``lang``."""
    return t("level." + level, lang)


def weekday_name(index: int, lang: str = "en") -> str:
    """Weekday name for 0=Monday … 6=Sunday."""
    return WEEKDAYS.get(lang, WEEKDAYS["en"])[index]
