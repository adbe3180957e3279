"""Hostile text for the fuzz properties: any Unicode, Slack's live syntax, mrkdwn control
characters, bidi marks, emoji, Chinese, and the app's own keywords so that every command path
is reached."""

from __future__ import annotations

from hypothesis import strategies as st

MAX_COMMAND_TEXT = 4000
"""Slack's limit on a slash command's text (characters)."""

LIVE = (
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "<!here|here>",
    "<@U123>",
    "<@U123|bob>",
    "<@W0ADMIN>",
    "<#C123>",
    "<#C123|general>",
    "<!subteam^S123|@team>",
    "<https://evil.example|click>",
    "<https://evil.example>",
    "<http://x.test/?a=1&b=2|x>",
    "<mailto:a@evil.example|mail>",
    "<tel:123|call>",
    "<slack://open>",
    "<!date^0^{date}|x>",
    "&lt;!channel&gt;",
    "&amp;",
    "&lt;",
    "&gt;",
    "&#60;",
    "&",
    "<",
    ">",
    "|",
    "<<>>",
    "<!channel",
    "!channel>",
    "@channel",
    "@here",
    "@everyone",
    "#general",
    "#random",
    "https://evil.example/path",
    "http://evil.example",
    "www.evil.example",
    "evil@example.com",
)
MRKDWN = (
    "*",
    "_",
    "~",
    "`",
    "```",
    "> quote",
    ">>>",
    "*bold*",
    "_it_",
    "~s~",
    "`code`",
    "```block```",
    ":smile:",
    ":",
    "\\",
    "/",
    "\n",
    "\r\n",
    "\t",
    " ",
    "  ",
)
UNICODE = (
    "\u200f",
    "\u200e",
    "\u202e",
    "\u202d",
    "\u2066",
    "\u2067",
    "\u2069",
    "\u061c",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\u2029",
    "\x00",
    "\x07",
    "\x1b[31m",
    "\x7f",
    "\ud7ff",
    "\ue000",
    "\U0010fffd",
    "🎉",
    "👍🏽",
    "👨‍👩‍👧",
    "🏳️‍🌈",
    "\u0301",
    "é",
    "e\u0301",
    "ﬁ",
    "Ⅻ",
    "𝐁𝐨𝐥𝐝",
    "推测解码",
    "量化",
    "关注",
    "订阅",
    "取消关注",
    "已读",
    "下一篇",
    "帮助",
    "语言",
    "私信",
    "中文标题",
    "שלום",
    "مرحبا",
    "Ελληνικά",
    "Ｆｕｌｌ",
)
KEYWORDS = (
    "help",
    "?",
    "next",
    "read",
    "done",
    "unread",
    "follow",
    "unfollow",
    "subscribe",
    "sub",
    "unsubscribe",
    "unsub",
    "subscriptions",
    "subs",
    "dm",
    "dm on",
    "dm off",
    "lang",
    "lang en",
    "lang zh",
    "language",
    "folow",
    "subscibe",
    "unfolow",
    "raed",
)
ARGS = (
    "spec",
    "speculative",
    "pd",
    "quant",
    "agentic",
    "rl",
    "omni",
    "eagle",
    "nixl",
    "torch.compile",
    "p-eagle",
    "spec-decode",
    "monday",
    "fri",
    "周五",
    "09:00",
    "9am",
    "25:99",
    "13pm",
    "UTC",
    "Europe/Berlin",
    "Asia/Shanghai",
    "Mars/Olympus",
    "Etc/GMT+12",
    "on",
    "off",
    "en",
    "zh",
    "fr",
    "-1",
    "0",
    "9" * 30,
    "1e308",
    "NaN",
    "None",
    "null",
    "{}",
    "[]",
    '{"p":1}',
)

token = st.one_of(
    st.sampled_from(LIVE),
    st.sampled_from(MRKDWN),
    st.sampled_from(UNICODE),
    st.sampled_from(ARGS),
    st.text(max_size=12),
)


@st.composite
def command_text(draw: st.DrawFn) -> str:
    """Slash command text: a keyword (or not) followed by hostile tokens, or any Unicode at all,
    up to 4,000 characters."""
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(st.text(max_size=MAX_COMMAND_TEXT))
    if kind == 1:  # long: repeat a hostile chunk to reach the limits
        chunk = draw(st.lists(token, min_size=1, max_size=6).map(" ".join))
        n = draw(st.integers(1, 400))
        return (chunk * n)[:MAX_COMMAND_TEXT]
    head = draw(st.sampled_from((*KEYWORDS, "")))
    words = draw(st.lists(token, max_size=12))
    sep = draw(st.sampled_from((" ", "  ", "\t", "\n", "\u3000")))
    return (head + sep + sep.join(words))[:MAX_COMMAND_TEXT]


hostile_text = st.one_of(
    st.text(min_size=1, max_size=300),
    st.lists(
        st.one_of(
            st.sampled_from(LIVE), st.sampled_from(MRKDWN), st.sampled_from(UNICODE), st.text(min_size=1, max_size=8)
        ),
        min_size=1,
        max_size=10,
    ).map(" ".join),
)
"""Catalog text (titles, summaries, notes, names): short to long, with live syntax and Unicode."""


def json_value() -> st.SearchStrategy:
    """Any JSON value (for a forged button ``value``)."""
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=200)
        | st.sampled_from(ARGS + LIVE),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
        max_leaves=10,
    )
