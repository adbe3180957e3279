"""Phrases that are requests about the app itself, not searches: the newest posts, catch me up,
recommend, settings, stop, snooze, the terminal's digest commands, what the app does (help) and the
command words whose arguments did not parse (their usage). Pure regular expressions, read by
:func:`bot.slack.grammar.parse`."""

from __future__ import annotations

import re
from typing import Literal

# fmt: off
Kind = Literal["help", "query", "search", "next", "read", "unread", "follow", "unfollow", "subscribe",
               "unsubscribe", "subscriptions", "dm", "lang", "remind", "reminders", "stats",
               "did_you_mean", "thanks", "latest", "plan", "catchup", "recommend", "settings", "stop_what",
               "snooze_what", "digest_cli", "usage", "my_data", "tracks"]
# fmt: on

LATEST = re.compile(
    r"^(?:(?:show me|give me|list)\s+)?(?:(?:what'?s|what is|whats|anything|any)\s+(?:new|the latest|news)"
    r"(?:\s+(?:posts?|articles?))?(?:\s+(?:this week|this month|today|lately|recently|on the blog|in vllm"
    r"|on the vllm blog))?"
    r"|(?:the\s+)?(?:latest|newest|new|recent|most recent)"
    r"(?:\s+(?:vllm\s+)?(?:blog(?:\s+(?:posts?|articles?))?|posts?|articles?|news))?"
    r"(?:\s+(?:on the blog|from the blog|please|pls))?"
    r"|(?:最近|本周|这周)?(?:有)?(?:什么)?(?:最新|新)(?:的)?(?:文章|博客|博文|文)?(?:有哪些|有什么)?(?:吗|呢)?"
    r"|(?:最近|本周|这周)(?:有什么|有哪些)?(?:的)?(?:文章|博客|博文|更新)(?:有哪些|有什么)?(?:吗|呢)?)$"
)
"""Asking for the newest posts (``what's new?``, ``latest posts``, ``最新文章``; ``最近有咩新文`` read as
``最近有什么新文``, QA round 15), not for a topic."""

CATCH_UP = re.compile(
    r"^(?:(?:(?:please|pls|can you|could you)\s+)?(?:catch\s*(?:me\s+)?up|fill me in|bring me up to speed"
    r"|what\s+(?:did|have)\s+i\s+miss(?:ed)?|what\s+i(?:'ve|\s+have)?\s+missed|(?:anything|what'?s)\s+i\s+missed"
    r"|(?:what'?s|what is)\s+new\s+(?:for me|since (?:i last read|my last read|last time)))"
    r"(?:\s+(?:please|pls|on my reading|on my tracks|since last time))?"
    r"|(?:请|帮我|请帮我)?(?:跟上进度|追上进度|补上进度|我错过了?(?:什么|啥|哪些)|错过了(?:什么|啥|哪些)|我漏(?:看)?了(?:什么|啥|哪些))"
    r"(?:吗|呢|啊)?"
    r"|(?:我要|我想|帮我)?补(?:一下|下)?课(?:吧|啦)?|(?:最近)?有(?:什么|啥|哪些)新的?(?:文章)?(?:要|需要|可以|得)补(?:的)?(?:吗|呢)?)$"
)
"""Asking what is new since one last read (``catch me up``, ``what did I miss``, ``跟上进度``,
``我错过了什么``, ``补课``, ``有什么新的要补``: QA round 15): never a search."""

RECOMMEND = re.compile(
    r"^(?:(?:(?:please|pls|can you|could you|would you)\s+)?(?:recommend|suggest)(?:\s+(?:me|us))?"
    r"(?:\s+(?:something|anything|some posts?|a post|a read|an article|a good (?:post|read|article)|one"
    r"|what to read|something (?:good|new)))?(?:\s+(?:to read|for me|please|pls))*"
    r"|(?:any|some|your)\s+recommendations?(?:\s+(?:for me|please|pls))?|recommendations?"
    r"|(?:请|给我|帮我|请给我)?推荐(?:一下|一点|点|一些|些|一篇|几篇)?(?:什么|啥|文章|好文章|读物)?(?:吧|呢|吗|给我)?"
    r"|有(?:什么|啥)推荐(?:的)?(?:吗|呢)?)$"
)
"""Asking for a recommendation with no topic (``recommend something``, ``any recommendations``,
``推荐点什么``): the reader's next step, or the getting-started track (QA: it was searched)."""

SETTINGS = re.compile(
    r"^(?:(?:(?:show|see|view|check)\s+)?(?:me\s+)?(?:my\s+)?(?:settings|preferences|prefs)"
    r"|(?:查看|看看)?(?:我的)?(?:设置|偏好设置|偏好))$"
)
"""Asking for one's own settings (``settings``, ``my settings``, ``设置``): DM, plan, language."""

STOP = re.compile(
    r"^(?:(?:please\s+)?(?:stop|pause|mute|opt[\s-]?out|暂停)"
    r"(?:\s+(?:it|this|that|please|pls|now|sending|messaging me|all|everything|of everything|of all))*|make it stop"
    r"|(?:please\s+)?stop\s+(?:the\s+|my\s+|this\s+|all\s+)?(?:digests?|reminders?|notifications?|messages?)"
    r"|(?:请)?(?:停止|停下|停|别发了|不要再发了|退出|全部停止|都停了|不再接收|不要再接收)(?:吧|了)?)$"
)
"""``stop`` alone (``停止``, ``stop all``, ``pause``, ``opt out``): which of the DM, a channel digest or a
reminder, never a search."""

SNOOZE = re.compile(
    r"^(?:(?:please\s+)?(?:un-?)?snooze(?:\s+.*)?|取消暂停|取消推迟|暂停一周|推迟\s*(?:\d+|一|两|二|三)?\s*(?:周|个星期|星期|天)?|稍后提醒(?:我)?)$"
)
"""``snooze`` with anything after it (``snooze 2 weeks``, ``snooze spec``): the *Snooze a week* button
of a digest does it (QA: it was searched); ``unsnooze`` / ``取消暂停`` too (QA round 11)."""

DIGEST_CLI = re.compile(r"^(?:vllm-path\s+)?digests?\s+(?:preview|run-now|run\s+now)(?:\s+.*)?$")
"""``digest preview`` / ``digest run-now`` typed in Slack: terminal commands (QA: they were searched)."""

PROGRESS = re.compile(
    r"^(?:(?:so|and|ok|okay|hey)\s+)?(?:"
    r"how\s+(?:much|many(?:\s+(?:posts?|articles?|steps?))?)\s+(?:have\s+i|did\s+i|i(?:'ve|\s+have)?)"
    r"\s+(?:read|done|finished|covered|gotten\s+through|got\s+through)(?:\s+(?:so\s+far|already|yet))?"
    r"|how\s+far\s+(?:am\s+i|have\s+i\s+(?:got|gotten|come|read)|along\s+am\s+i)(?:\s+(?:so\s+far|now))?"
    r"|how\s+am\s+i\s+doing|where\s+am\s+i(?:\s+(?:at|up\s+to|now))?(?:\s+in\s+my\s+(?:reading|tracks?|paths?))?"
    r"|what\s+have\s+i\s+(?:read|finished)(?:\s+so\s+far)?"
    r"|(?:show\s+(?:me\s+)?|check\s+|see\s+)?(?:my\s+(?:reading\s+)?(?:progress|stats|statistics)|reading\s+progress)"
    r"(?:\s+so\s+far)?"
    r"|(?:我)?(?:已经|一共|总共)?(?:读|看)了(?:多少|几篇|多少篇|哪些)(?:了|文章)?(?:呢|啊)?"
    r"|我(?:读|看)到哪(?:里|儿)?了(?:呢|啊)?|我的(?:阅读)?进度(?:怎么样|如何)?(?:呢|啊)?|(?:阅读)?进度(?:怎么样|如何)(?:呢|啊)?"
    r"|我(?:的)?(?:阅读)?(?:统计|情况))$"
)
"""Asking how far one has read (``how much have I read``, ``how far am I``, ``my reading progress``,
``我读了多少``; QA round 16: each was searched): the ``next`` command, which shows each track's progress."""

TRACKS = re.compile(
    r"^(?:(?:(?:the|all|all\s+the|my|available|your)\s+)?(?:tracks?|reading\s+paths?|paths?|topics?)"
    r"(?:\s+(?:list|available|please|pls))?|(?:list|index)\s+of\s+(?:the\s+)?(?:tracks|paths|topics)"
    r"|(?:所有|全部)?(?:的)?(?:主题|路径|学习路径|阅读路径)(?:列表|清单|有哪些)?)$"
)
"""A track list asked for in one or two words (``tracks``, ``all tracks``, ``track list``, ``主题``; QA
round 16: ``tracks`` was searched and refused): the tracks, each with what it holds; ``list tracks``
and ``show all tracks`` too (QA round 20: they got the help), read as ``tracks`` by
:func:`~bot.slack.grammar_polite.polite`. ``有哪些主题`` is :data:`ABOUT_APP`'s (the help, which ends
with the tracks). ``主题列表`` too (QA round 21: it got the help)."""

ALONE: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (RECOMMEND, "recommend"),
    (SETTINGS, "settings"),
    (STOP, "stop_what"),
    (SNOOZE, "snooze_what"),
    (PROGRESS, "next"),
    (TRACKS, "tracks"),
)
"""Questions with no argument that are commands of their own (QA: each was searched)."""

STOP_TOPIC = re.compile(
    r"^(?:please\s+)?(?:(?:stop|pause)\s+|(?:停止|暂停)\s*)(?:following\s+|receiving\s+|getting\s+)?(?:the\s+|my\s+|this\s+)?"
    r"(?P<t>\S+(?:\s+\S+){0,2}?)"
    r"(?:\s+(?:digests?|track|posts?|please))?$"
)
"""``stop|pause <track>`` (``stop spec``, ``停止 推测解码``): ``stop_what`` with the words as ``arg``, the whole
text as ``query`` (:func:`~bot.slack.commands.settings.stop_what` searches it when no track is named)."""

STOP_TERM = re.compile(
    r"^(?:stop|停止)[\s_-]*(?:sequences?|tokens?|token[\s_-]?ids?|strings?|words?|criteria|conditions?|reasons?"
    r"|序列|词|符|字符串|条件|标记|token)(?:\s.*)?$"
)
"""``stop`` as the first word of a sampling parameter's name (``stop sequences``, ``stop_token_ids``,
``停止词``): a search, never the stop command (QA: ``stop sequences`` answered "no track matches")."""

LATEST_IN = re.compile(
    r"^(?:(?:what'?s|whats|what is|anything)\s+new\s+(?:in|on|about|for|with)\s+(?P<a>.+)"
    r"|(?:latest|newest|new|recent)\s+(?P<b>.+?)\s+(?:posts?|articles?|blog posts?)"
    r"|(?:the\s+)?(?:latest|newest)\s+(?:on\s+|in\s+|about\s+)?(?P<d>.+?)"
    r"|(?P<c>.+?)\s*(?:有什么新文章|有哪些新文章|的?最新文章|最近有什么新的?)"
    r"|最新(?:的\s*|\s+)(?P<e>.+?)(?:的?(?:文章|博客|博文))?)$",
    re.IGNORECASE,
)
"""What is new in a topic (``what's new in quantization``, ``new pd posts``, ``推测解码最新文章``,
``最新的推测解码文章``):
the ``latest`` command with the topic as its argument (a track's newest posts, else a search)."""

_THIS = r"(?:this|it|you|u|the\s+(?:bot|app)|vllm-path|vllm\s+path)(?:\s+(?:bot|app))?"

_APP_WORDS = (
    r"(?:\s+(?:a|an|the|my|this|that|to|it|all|weekly|channel|channels|dm|dms|digest|digests|reminder|reminders"
    r"|track|tracks|notifications?|messages?|read|as|posts?|paths?|language|lang|plan|up|here|bot|app|vllm-path))*"
)
"""What may follow a verb in a question about the app (``how do I stop the dm``): the app's own
nouns only, so ``how do I use speculative decoding`` stays a question about vLLM."""

ABOUT_APP = re.compile(
    r"^(?:(?:so|and|ok|okay)\s+)?(?:"
    rf"what\s+(?:can|do|could|does)\s+{_THIS}\s+(?:do|help(?:\s+me)?(?:\s+with)?)(?:\s+for\s+me)?"
    rf"|what\s+(?:are|is)\s+{_THIS}(?:\s+for)?|what\s+(?:are\s+)?(?:the|your)\s+commands"
    rf"|how\s+(?:do|can|should)\s+i\s+use\s+{_THIS}|how\s+to\s+use\s+{_THIS}"
    rf"|how\s+(?:does|do)\s+{_THIS}\s+work|(?:show\s+|list\s+)?(?:the\s+|all\s+)?(?:commands|usage|(?:app\s+)?home|menu)"
    r"|what\s+commands(?:\s+(?:are\s+there|do\s+you\s+have|can\s+i\s+use|exist))?"
    r"|(?:what|which)\s+tracks(?:\s+(?:are\s+there|do\s+you\s+have|can\s+i\s+follow|exist))?"
    r"|how\s+(?:do|can|should)\s+i\s+(?:subscribe|unsubscribe|follow|unfollow|stop|cancel|pause|snooze|turn\s+off"
    rf"|turn\s+on|set\s+up|change|get|mark|use){_APP_WORDS}"
    r"|how\s+to\s+(?:subscribe|unsubscribe|follow|unfollow|stop|cancel|pause|snooze|turn\s+off|turn\s+on|set\s+up"
    rf"|mark){_APP_WORDS}"
    r"|(?:我)?(?:该|要)?(?:怎么|如何|怎样)(?:用|使用)(?:这个|你)?(?:机器人|应用)?(?:呢|啊)?"
    r"|你(?:能|会|可以)(?:做|干)?(?:什么|啥|些什么)(?:呢|啊)?|(?:使用)?(?:帮助|说明)|使用指南|(?:有哪些)?命令(?:列表)?|主页|首页"
    r"|这(?:个)?(?:是什么|怎么用|如何使用)(?:呢|啊)?|(?:该)?(?:怎么|如何)(?:订阅|取消订阅|退订|关注|取消关注|取消提醒|设置提醒|标记已读)"
    r"(?:呢|啊)?|有(?:哪些|什么)(?:主题|路径|学习路径)(?:呢|啊)?|(?:主题|路径)列表)$"
)
"""Asking what the app does or how to use it (``what can you do``, ``how do I use this``, ``home``,
``怎么用``, ``你能做什么``): the help, never a search (QA: each was refused as off-topic)."""

HOME_ASKED = re.compile(r"^(?:(?:show\s+|open\s+)?(?:the\s+|my\s+)?(?:app\s+)?home(?:\s+tab)?|主页|首页)$")
"""``home`` (``app home``, ``主页``): one of :data:`ABOUT_APP`, answered by where App Home is, not the help."""

CANCEL_REMINDER_N = re.compile(
    r"^(?:cancel|delete|remove|取消|删除)\s*(?:the\s+|my\s+)?(?:reminders?|提醒)\s*(?:#|no\.?\s*|number\s+|第)?(?P<n>\d+)(?:个)?$"
)
"""``cancel reminder 1`` / ``取消提醒 1``: ``reminders cancel 1`` (QA: it answered the usage)."""

CANCEL_REMINDER = re.compile(
    r"^(?:cancel|delete|remove|取消|删除)\s*(?:#\s*)?\d+$|^(?:cancel|delete|remove)\s+(?:all\s+)?(?:my\s+)?reminders$"
    r"|^(?:取消|删除)(?:所有|全部)?提醒$"
)
"""``cancel 1``, ``取消 1``, ``cancel all reminders``: the usage of ``reminders cancel <n>`` (QA: searched)."""

USAGE_WORDS: dict[str, str] = {
    "digest": "digest", "digests": "digest", "摘要": "digest", "频道摘要": "digest", "每周推荐": "digest",
    "频道推荐": "digest", "weekly": "weekly", "每周提醒": "weekly", "每周推送": "weekly",
}  # fmt: skip
"""First words of commands that have no keyword of their own: text starting with one that does not
parse as anything else gets that command's usage (the key :func:`bot.slack.commands.help.usage` reads)."""

END_MARKS = "!！?？.。,，:：;；"
"""Punctuation after a keyword that changes nothing (``help!``)."""
OWN_NAME = re.compile(r"^(?:/?vllm-path(?:\s+|$))+", re.IGNORECASE)
"""The command's own name typed in its text (``/vllm-path /vllm-path spec``, ``vllm-path help``)."""
ZH_DAY = r"明天|后天|(?:下|这|本)?(?:周|星期|礼拜)[一二三四五六日天]|下周|下星期|\d{1,3}天后|\d{1,2}月\d{1,2}[日号]"
"""A Chinese day typed before 提醒我 (``明天提醒我读 p-eagle``)."""
ZH_TIME = (
    r"(?:上午|下午|晚上|早上|早晨|中午|傍晚)?\d{1,2}(?:点半|点\d{1,2}分?|点钟?)|\d{1,2}[:：]\d{2}"
    r"|上午|下午|晚上|早上|早晨|中午|傍晚"
)
"""A Chinese time of day typed before 提醒我, maybe after a day (``明天上午9点提醒我``)."""
ZH_SPAN = (
    r"(?:过)?(?:\d{1,4}|[一二两三四五六七八九十几半]{1,3})(?:个)?(?:半)?(?:小时|钟头|分钟)(?:后|以后|之后)"
    r"|(?:过)?(?:\d{1,3}|[一两二三四五六七八九十])(?:天|周|个星期|星期|个礼拜)(?:后|以后|之后)|过(?:一|两|二|三|几)天"
)
"""A Chinese span from now typed before 提醒我 (``半小时后提醒我``, ``2小时后提醒我``, ``一周后提醒我``)."""

PRONOUN_POST = re.compile(
    r"^(?:it|this|that|them|these|those|this\s+one|that\s+one|the\s+one|one"
    r"|(?:the\s+)?(?:first|second|third|last|top|latest|previous|1st|2nd|3rd)(?:\s+(?:one|post|article|result|link))?"
    r"|(?:this|that|the)\s+(?:post|article|link|blog\s+post)|all\s+of\s+(?:them|these|those)"
    r"|它|这篇|那篇|这一篇|那一篇|这个|那个|第[一二三四五1-5]篇|上一篇|刚才那篇|刚刚那篇|这篇文章|那篇文章)"
    r"(?:\s*(?:了|啦|as\s+read|as\s+done|already|now|too|please|pls))?\s*[.!。！]*$",
    re.IGNORECASE,
)
"""What a reader types for "the post I mean" without naming it (``read it``, ``I've read it``, ``read
the first one``, ``已读 这篇``): the read command asks which post (QA round 12: "it" was searched),
never guessing one (marking the wrong post is worse than asking)."""

QUOTES = "\"'“”‘’„‚«»「」『』`"
"""Quotes typed around a post id (``read “p-eagle”``), left out (QA round 12)."""


MARKUP = "*_~"
"""Slack's bold, italic and strike marks typed around a post id (``read *p-eagle*``), left out (QA round 15)."""
EMOJI_CODE = re.compile(r"^:[a-z0-9_+'-]+:$", re.IGNORECASE)
"""A Slack emoji code typed as a word (``:coffee:``, ``:white_check_mark:``, ``:+1:``)."""


DONE_MARKERS = frozenset({"已读", "读完", "读完了", "已读完", "看完", "看完了", "done", "finished", "read"})
"""Words saying "read" typed before or after the post a ``read`` names (``read p-eagle 已读``, ``read
p-eagle done``: QA round 19, searched for ``p-eagle 已读``): no part of the post's name."""


def post_arg(rest: list[str]) -> str:
    """The post a ``read`` / ``unread`` names: each word without the :data:`QUOTES` and :data:`MARKUP`
    typed around it (``read “p-eagle”``, ``read *p-eagle*``) and without emoji codes (``read
    :white_check_mark: p-eagle``; QA round 15); ``""`` (the command asks which post) for words that
    only point at one (``read it``, ``read the first one``: :data:`PRONOUN_POST`; QA round 12);
    :data:`DONE_MARKERS` at either end left out while other words remain."""
    words = [w for w in (w.strip(QUOTES + MARKUP).strip(QUOTES) for w in rest if not EMOJI_CODE.match(w)) if w]
    while len(words) > 1 and words[-1].casefold().strip(".!。！") in DONE_MARKERS:
        words.pop()
    while len(words) > 1 and words[0].casefold() in DONE_MARKERS:
        words.pop(0)
    text = " ".join(words)
    return "" if PRONOUN_POST.match(text) else text


GREETING_LEAD = re.compile(  # before a command ("hey, what's next?", "你好，推测解码"): read what follows
    r"^(?:(?:hi|hello|hey) there|good (?:morning|afternoon|evening)|hi|hello|hey|yo|thanks|thank you|thx"
    r"|你好|您好|嗨|哈喽|早上好|下午好|晚上好|谢谢|多谢)(?:[\s,，]+(?:bot|vllm[- ]path))?[\s,，!！.。~～]+(?=\S)",
    re.IGNORECASE,
)
"""A greeting before a command: the command is what follows it."""

HELP_TOPICS: dict[str, str] = {
    "stop": "stop", "停止": "stop", "reminder": "remind", "digest": "subscribe", "digests": "subscribe",
    "channel": "subscribe", "摘要": "subscribe", "每周推荐": "subscribe",
}  # fmt: skip
"""Topics of ``help <topic>`` that are no keyword of their own (QA: ``help stop``, ``help digest`` and
``help reminder`` searched): the keyword whose lines of the help answer them."""

TRACK_QUESTION = re.compile(
    r"^(?P<t>.+?)\s*(?:的)?\s*(?:(?:应该|该|要)?(?:(?:怎么|如何)(?:开始)?(?:读|看|学|入门)|(?:从哪里?|从哪儿)(?:开始)?(?:读|看|学|入门|读起|看起)?)"
    r"|(?:是什么|是啥|讲什么|讲的是什么|入门)"
    r"|(?:,\s*|\s+)(?:how\s+(?:do\s+i\s+|should\s+i\s+|to\s+)(?:read|start|begin|learn)(?:\s+it)?"
    r"|where\s+(?:do\s+i\s+|should\s+i\s+|to\s+)(?:start|begin)|what\s+is\s+it))(?:呢|吗|啊)?\s*[?？。.!！]*$",
    re.IGNORECASE,
)
"""A track's name followed by words that only ask how to read it (``spec 怎么读``, ``pd 从哪开始``,
``spec how to read``, ``pd where to start``): ``t`` is the name; the reply opens its path."""

ASKED_TOPIC = re.compile(
    r"^(?:(?:what\s+(?:is|are)|what's|whats|tell\s+me\s+about|explain|什么是|啥是|介绍一下|介绍)\s*)?"
    r"(?P<t>.+?)\s*(?:(?:是什么|是啥|是什么意思|是什么东西)\s*(?:呢|啊)?)?\s*[?？。.!！]*$",
    re.IGNORECASE,
)
"""A question that only frames its topic (``qwen3 是什么``, ``what is qwen3?``, ``什么是 kv cache``):
``t`` the words searched, quoted in the results' heading (QA: it quoted the question words)."""

_HOW_VERBS = {
    "subscribe": "subscribe", "unsubscribe": "unsubscribe", "follow": "follow", "unfollow": "unfollow",
    "stop": "stop", "mark": "read", "订阅": "subscribe", "取消订阅": "unsubscribe", "退订": "unsubscribe",
    "关注": "follow", "取消关注": "unfollow", "取消提醒": "remind", "设置提醒": "remind", "标记已读": "read",
}  # fmt: skip
_HOW_NOUNS = {
    "dm": "dm", "dms": "dm", "reminder": "remind", "reminders": "remind", "digest": "subscribe",
    "digests": "subscribe", "channel": "subscribe", "channels": "subscribe", "plan": "plan", "language": "lang",
    "lang": "lang", "track": "follow", "tracks": "follow", "read": "read", "post": "read", "posts": "read",
}  # fmt: skip
_HOW_TO = re.compile(
    r"^(?:(?:so|and|ok|okay)\s+)?(?:how\s+(?:do|can|should)\s+i|how\s+to)\s+(?P<v>\w+)(?P<rest>(?:\s+\w+)*)$"
    r"|^(?:我)?(?:该|要)?(?:怎么|如何|怎样)(?P<zh>订阅|取消订阅|退订|关注|取消关注|取消提醒|设置提醒|标记已读)(?:呢|啊)?$"
)


def how_to_topic(asked: str) -> str | None:
    """The command a "how do I …" question about the app asks about (``how do I subscribe``,
    ``how to unsubscribe``, ``how do I stop the dm``, ``怎么订阅``): the keyword whose lines of the
    help answer it (QA round 8: the whole help was shown); None for a question about the app as a
    whole (``how do I use this``)."""
    m = _HOW_TO.match(asked)
    if m is None:
        return None
    if m["zh"]:
        return _HOW_VERBS[m["zh"]]
    nouns = [_HOW_NOUNS[w] for w in m["rest"].split() if w in _HOW_NOUNS]
    return nouns[0] if nouns else _HOW_VERBS.get(m["v"])


MY_DATA = re.compile(
    r"^(?:(?:please|pls|can you|could you|how\s+(?:do|can|would|should)\s+i|how\s+to|can\s+i|i\s+want\s+to"
    r"|i'd\s+like\s+to|i\s+would\s+like\s+to)\s+|(?:如何|怎么|怎样|我想|我要|能不能|可以)\s*)?(?:"
    r"(?:delete|remove|erase|wipe|purge|clear)\s+(?:all\s+(?:of\s+)?)?(?:my|me)(?:\s+(?:data|info|information|account"
    r"|records?|history|details|profile|everything))?|(?:delete|erase|wipe)\s+(?:all\s+)?(?:my\s+)?(?:data|everything)"
    r"(?:\s+(?:about|of|on)\s+me)?|forget\s+(?:about\s+)?me|forget\s+(?:everything|all)(?:\s+about\s+me)?"
    r"|what\s+(?:data\s+)?do\s+you\s+(?:keep|store|know|have|save)(?:\s+(?:about|on|of)\s+me)?"
    r"|what\s+(?:data|information|info)\s+(?:do\s+you\s+)?(?:keep|store|have|save)(?:\s+(?:about|on|of)\s+me)?"
    r"|(?:my\s+)?(?:privacy|gdpr|data\s+(?:deletion|privacy|protection))(?:\s+policy)?|my\s+data"
    r"|(?:请)?(?:删除|清除|删掉|抹掉)(?:我的)?(?:全部|所有)?(?:数据|信息|记录|资料|账号)|(?:请)?(?:忘记|忘掉)我"
    r"|(?:你)?(?:保存|存储|存|记录)了?(?:我的)?(?:哪些|什么)(?:数据|信息)?|隐私(?:政策)?|我的数据)"
    r"(?:\s+(?:please|pls|now))?(?:吧|呢|吗)?$"
)
"""Asking what the app keeps about one or to have it deleted (``delete my data``, ``forget me``,
``删除我的数据``): what is kept and how to remove it, never a search (QA round 8)."""


_I_HAVE = r"(?:(?:i|we)\s+(?:only\s+)?(?:have|got|can\s+(?:read|spend|do|manage))\s+|i['’]ve\s+got\s+)?"
WEEKLY_TIME_EN = (
    rf"^(?:plan\s+)?{_I_HAVE}(?:about\s+|around\s+)?"
    r"(?P<t>(?:\d{1,4}(?:\.\d)?|an?|half\s+an|one|two|three|four|five|ten|fifteen|twenty|thirty|forty|sixty"
    r"|ninety)\s*(?:m|min|mins|minutes?|h|hrs?|hours?))"
    r"\s+(?:(?:a|per|each|every)\s+week|weekly|(?P<m>(?:a|per|each|every)\s+month|monthly))[.!]*$"
)
"""A reader's weekly reading time as a sentence, with or without ``plan`` (QA round 13: ``I have 30
minutes a week``, ``i can spend an hour a week``, ``30 min per week``); ``t``: the time; ``m``: ``a
month`` when the time is a month's (QA round 15: ``i can spend 2 hours a month``), which ``plan``
refuses, saying a plan is minutes a week; QA round 17: ``one hour a week``, ``I have 90 minutes weekly``."""
WEEKLY_TIME_ZH = (
    r"^(?:(?:plan|计划)\s*)?我?(?:每周|每星期|每个星期|一周|(?P<m>每月|每个月|一个月))"
    r"(?:有|能读|能看|可以读|可以看|能花|可以花|只有|大概有)?\s*"
    r"(?P<t>\d{1,4}\s*(?:分钟|分|个?小时)|半个?小时|一个半小时|[一两二三]个?小时)(?:的时间)?[。！]*$"
)
"""The same in Chinese (``我每周有30分钟``, ``每周能读半小时``, ``每星期半个小时``, ``plan 我每周有30分钟``;
``每月``: ``m``, refused); ``t``: the time. Traditional and Cantonese forms (``我每週有半個鐘``) are
read as these (:func:`~bot.slack.grammar_forms.tidy`)."""
