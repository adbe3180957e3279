"""The /vllm-path grammar: command text -> typed command."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.domain.schedule import ScheduleParts
from bot.slack.grammar import MAX_TEXT, parse


@pytest.mark.parametrize("text", ["", "   ", "help", "HELP", "帮助", "?"])
def test_help(text):
    assert parse(text).kind == "help"


# What a text reads as (text, kind, arg), a few cases a line.
# fmt: off
READS_AS = [
    # a keyword first, or none (a query)
    ("speculative", "query", "speculative"), ("推测解码", "query", "推测解码"), ("next", "next", ""),
    ("search llm-d", "search", "llm-d"), ("Search  speculative decoding", "search", "speculative decoding"),
    ("搜索 量化", "search", "量化"), ("search", "search", ""),
    ("read p-eagle", "read", "p-eagle"), ("unread fp8 kv cache", "unread", "fp8 kv cache"),
    ("follow spec decode", "follow", "spec decode"), ("unfollow pd", "unfollow", "pd"),
    ("subscriptions", "subscriptions", ""), ("unsubscribe quant", "unsubscribe", "quant"), ("lang ZH", "lang", "zh"),
    # Chinese is written without spaces: 关注推测解码 reads as 关注 推测解码.
    ("关注推测解码", "follow", "推测解码"), ("关注 推测解码", "follow", "推测解码"),
    ("取消关注量化", "unfollow", "量化"), ("已读p-eagle", "read", "p-eagle"), ("未读p-eagle", "unread", "p-eagle"),
    ("下一篇推测解码", "next", "推测解码"), ("提醒列表", "reminders", ""),
    ("提醒p-eagle 明天", "remind", "p-eagle 明天"), ("取消订阅推测解码", "unsubscribe", "推测解码"),
    ("搜索nixl", "search", "nixl"),
    # A curly apostrophe (phones type one), ``next in <track>``, the Chinese button label and
    # common synonyms (退订, 下一步, 接下来, 我的提醒).
    ("what’s next?", "next", ""), ("what's next in pd?", "next", "pd"),
    ("what should I read next for spec", "next", "spec"),
    ("标记已读 p-eagle", "read", "p-eagle"), ("标记已读p-eagle", "read", "p-eagle"),
    ("退订 spec", "unsubscribe", "spec"), ("下一步", "next", ""), ("推测解码 下一步", "next", "推测解码"),
    ("接下来读什么", "next", ""), ("下一步读什么", "next", ""), ("我的提醒", "reminders", ""),
]
# fmt: on


@pytest.mark.parametrize("text, kind, arg", READS_AS)
def test_text_reads_as_a_command_and_its_argument(text, kind, arg):
    cmd = parse(text)
    assert (cmd.kind, cmd.arg) == (kind, arg)


def test_subscribe_schedule_parts():
    cmd = parse("subscribe spec decode friday 10:30 Europe/Berlin")
    assert (cmd.kind, cmd.arg, cmd.schedule) == (
        "subscribe",
        "spec decode",
        ScheduleParts(weekday=4, at_time="10:30", timezone="Europe/Berlin"),
    )
    cmd = parse("subscribe pd")
    assert (cmd.arg, cmd.schedule) == ("pd", ScheduleParts())
    cmd = parse("subscribe 量化 周三 9:05pm UTC")
    assert (cmd.arg, cmd.schedule) == ("量化", ScheduleParts(weekday=2, at_time="21:05", timezone="UTC"))


def test_subscribe_bad_time_is_reported():
    cmd = parse("subscribe pd monday 25:00")
    assert cmd.error == "sub.bad_time" and cmd.error_value == "25:00"


def test_dm():
    assert parse("dm off").enabled is False
    cmd = parse("dm on thursday 08:15 America/Los_Angeles")
    assert (cmd.enabled, cmd.schedule) == (
        True,
        ScheduleParts(weekday=3, at_time="08:15", timezone="America/Los_Angeles"),
    )
    assert parse("dm").enabled is None
    assert parse("dm on next tuesday").error == "dm.unknown_part"
    assert (parse("dm catchup on").catchup, parse("dm catchup off").catchup) == (True, False)
    assert (parse("私信 跟上进度 开").catchup, parse("私信 跟上进度 关").catchup) == (True, False)
    assert parse("dm on").catchup is None and parse("dm catchup maybe").catchup is None


def test_near_miss_keyword_suggests_the_command():
    cmd = parse("folow spec")
    assert cmd.kind == "did_you_mean" and cmd.suggestion == "follow spec"
    cmd = parse("subscibe pd monday")
    assert cmd.kind == "did_you_mean" and cmd.suggestion.startswith("subscribe pd")
    # A single word that is not a keyword is a query, not a command typo.
    assert parse("eagle").kind == "query"
    cmd = parse("remnd spec tomorrow")
    assert cmd.kind == "did_you_mean" and cmd.suggestion == "remind spec tomorrow"


def test_a_lone_near_miss_of_a_keyword_names_the_command_it_meant():
    from bot.slack.grammar import near_command

    assert near_command("hlep") == "help"
    assert near_command("reminder") == "reminders"
    assert near_command("subscription") == "subscriptions"
    assert near_command("dms on") == "dm on"
    assert near_command("nxt") == "next"
    assert near_command("ＨＬＥＰ") == "help"  # full-width, as a Chinese input method types it
    # Not a near miss: real words, keywords themselves, short or non-Latin text, numbers.
    for text in ("eagle", "speculative", "quantization", "help", "ab", "推测解码", "fp8", ""):
        assert near_command(text) is None, text


def test_lang_takes_the_languages_by_name_too():
    for typed, lang in (
        ("中文", "zh"),
        ("Chinese", "zh"),
        ("zh-CN", "zh"),
        ("english", "en"),
        ("英文", "en"),
        ("EN", "en"),
    ):
        assert parse(f"lang {typed}").arg == lang, typed
    assert parse("lang klingon").arg == "klingon"  # refused by the command, with the choices


def test_long_text_is_cut_and_flagged():
    cmd = parse("x" * 3000)
    assert cmd.truncated and len(cmd.arg) == MAX_TEXT


def test_slack_markup_never_reaches_a_query():
    cmd = parse("&lt;b&gt; <!channel> nixl <@U123> <https://example.com|kv cache> &amp;")
    assert cmd.kind == "query"
    assert "<!channel>" not in cmd.arg and "U123" not in cmd.arg
    assert "nixl" in cmd.arg and "kv cache" in cmd.arg and "<b>" in cmd.arg and "&" in cmd.arg


@pytest.mark.parametrize(
    "typed,zone",
    [
        ("utc", "UTC"),
        ("GMT", "UTC"),
        ("CET", "Europe/Berlin"),
        ("cest", "Europe/Berlin"),
        ("PST", "America/Los_Angeles"),
        ("ET", "America/New_York"),
        ("EST", "America/New_York"),
        ("edt", "America/New_York"),
        ("CT", "America/Chicago"),
        ("MST", "America/Denver"),
        ("europe/berlin", "Europe/Berlin"),
        ("Japan", "Japan"),
        ("北京时间", "Asia/Shanghai"),
    ],
)
def test_time_zone_spellings(typed, zone):
    cmd = parse(f"subscribe spec friday 10:00 {typed}")
    assert cmd.error is None
    assert (cmd.arg, cmd.schedule.timezone) == ("spec", zone)


def test_abbreviations_map_to_zones_with_daylight_saving():
    """EST is New York's zone, not zoneinfo's fixed UTC-5: 09:00 is 14:00 UTC in January and
    13:00 UTC in July (EDT). MST is Denver (with DST) and the reply says so."""
    schedule = parse("subscribe spec mon 09:00 EST").schedule.resolve("UTC")
    january = schedule.next_fire(datetime(2027, 1, 1, tzinfo=UTC))
    july = schedule.next_fire(datetime(2027, 7, 1, tzinfo=UTC))
    assert january.astimezone(UTC) == datetime(2027, 1, 4, 14, 0, tzinfo=UTC)
    assert july.astimezone(UTC) == datetime(2027, 7, 5, 13, 0, tzinfo=UTC)
    mst = parse("subscribe spec mon 09:00 MST")
    assert mst.schedule.timezone == "America/Denver" and mst.note == "tz.mst_note"


@pytest.mark.parametrize(
    "text,error,value,form",
    [
        ("subscribe quant 0 9 * * 0", "sub.crontab", "0 9 * * 0", "/vllm-path subscribe quant sun 09:00 Europe/Berlin"),
        (
            "subscribe quant 30 18 * * 5",
            "sub.crontab",
            "30 18 * * 5",
            "/vllm-path subscribe quant fri 18:30 Europe/Berlin",
        ),
        ("subscribe spec 7 09:00 UTC", "sub.weekday_number", "7", "/vllm-path subscribe spec sun 09:00 UTC"),
        ("subscribe spec 1 10:00", "sub.weekday_number", "1", "/vllm-path subscribe spec mon 10:00 Europe/Berlin"),
        ("dm on 3 08:00 Asia/Tokyo", "sub.weekday_number", "3", "/vllm-path dm on wed 08:00 Asia/Tokyo"),
        ("subscribe spec mon 09:00 IST", "sub.ambiguous_tz", "IST", "/vllm-path subscribe spec mon 09:00 Asia/Kolkata"),
    ],
)
def test_numbers_crontab_and_ambiguous_zones_are_refused_with_the_right_form(text, error, value, form):
    cmd = parse(text)
    assert (cmd.schedule, cmd.error, cmd.error_value, cmd.suggestion) == (None, error, value, form)
    if form.startswith("/vllm-path subscribe"):
        assert cmd.arg == form.split()[2]  # the numbers are not taken as part of the track


@pytest.mark.parametrize(
    "typed,choices",
    [
        ("IST", {"Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"}),
        ("cst", {"America/Chicago", "Asia/Shanghai"}),
        ("BST", {"Europe/London", "Asia/Dhaka"}),
    ],
)
def test_an_ambiguous_abbreviation_asks_which_zone(typed, choices):
    cmd = parse(f"subscribe spec mon 09:00 {typed}")
    assert cmd.error == "sub.ambiguous_tz" and choices <= set(cmd.error_choices)


def test_slashed_words_that_are_no_zone_stay_in_the_track():
    assert parse("subscribe p/d fri").arg == "p/d"
    cmd = parse("subscribe spec fri Europe/Atlantis")
    assert (cmd.error, cmd.error_value) == ("sub.bad_tz", "Europe/Atlantis")


def test_times_with_a_spaced_am_pm_and_fixed_utc_offsets_are_read():
    cmd = parse("subscribe spec mon 9:00 PM PT")
    assert cmd.schedule == ScheduleParts(weekday=0, at_time="21:00", timezone="America/Los_Angeles")
    assert parse("dm on fri 8 a.m. ET").schedule == ScheduleParts(
        weekday=4, at_time="08:00", timezone="America/New_York"
    )
    # A fixed offset is IANA's Etc/GMT zone, sign reversed, and the reply says so.
    for typed, zone in (
        ("UTC+8", "Etc/GMT-8"),
        ("GMT+1", "Etc/GMT-1"),
        ("utc-5", "Etc/GMT+5"),
        ("UTC+14", "Etc/GMT-14"),
        ("UTC-0", "UTC"),
        ("GMT+00:00", "UTC"),
    ):
        cmd = parse(f"subscribe spec mon 09:00 {typed}")
        assert cmd.error is None and cmd.schedule.timezone == zone, typed
        assert cmd.arg == "spec"
    assert parse("subscribe spec mon 09:00 UTC+8").note == "tz.offset_note"
    # No Etc zone for half hours or beyond the real offsets: refused, naming what was typed.
    for typed in ("UTC+5:30", "GMT+15", "UTC-13"):
        cmd = parse(f"subscribe spec mon 09:00 {typed}")
        assert (cmd.error, cmd.error_value) == ("sub.bad_tz", typed), typed


def test_fixed_offset_zones_are_shown_the_way_people_write_them():
    from bot.domain.schedule import zone_label

    assert [
        zone_label(z) for z in ("Etc/GMT-8", "Etc/GMT+5", "Etc/GMT-14", "UTC", "Europe/Berlin", "Etc/UTC", "Etc/GMT")
    ] == ["UTC+8", "UTC-5", "UTC+14", "UTC", "Europe/Berlin", "Etc/UTC", "Etc/GMT"]


@pytest.mark.parametrize("text", ["语言模型推理", "推测解码", "量化是什么", "关"])
def test_text_that_only_starts_like_a_keyword_stays_a_query(text):
    assert parse(text).kind == "query"


@pytest.mark.parametrize(
    "text, arg",
    [
        ("spec next", "spec"),
        ("speculative decoding next", "speculative decoding"),
        ("what's next?", ""),
        ("What should I read next", ""),
        ("what comes next", ""),
        ("next?", ""),
        ("推测解码下一篇", "推测解码"),
        ("推测解码 下一篇", "推测解码"),
        ("推测解码的下一篇", "推测解码"),
        ("推测解码的下一篇是什么？", "推测解码"),
        ("我的下一篇", ""),
        ("下一篇读什么", ""),
        ("next 读什么", ""),
        ("next spec", "spec"),
        ("下一篇？", ""),
        ("下一篇文章", ""),
    ],
)
def test_what_next_asked_the_other_way_round_is_next(text, arg):
    """The keyword last (``spec next``, 推测解码的下一篇) or wrapped in a question (``what's next?``,
    下一篇读什么): the question words are dropped, what is left names the track."""
    cmd = parse(text)
    assert (cmd.kind, cmd.arg) == ("next", arg)


@pytest.mark.parametrize(
    "text",
    [
        "a very long sentence about serving that happens to end in next",
        "nextjs",
        "the next big thing",
        "multi-token prediction: what comes after next-token",
    ],
)
def test_next_inside_a_query_leaves_it_a_query(text):
    assert parse(text).kind == "query"


@pytest.mark.parametrize(
    "text, weekday, at_time, zone",
    [
        ("subscribe spec monday 9:00 Beijing", 0, "09:00", "Asia/Shanghai"),
        ("subscribe spec 周一 上午9点 北京", 0, "09:00", "Asia/Shanghai"),
        ("subscribe spec tue 下午3点半 Tokyo", 1, "15:30", "Asia/Tokyo"),
        ("subscribe spec 晚上9点", None, "21:00", None),
        ("subscribe spec friday 9.30", 4, "09:30", None),
        ("subscribe spec friday 21h", 4, "21:00", None),
        ("subscribe spec friday 21h30", 4, "21:30", None),
        ("subscribe spec friday noon", 4, "12:00", None),
        ("subscribe spec tuesday 9am America/New York", 1, "09:00", "America/New_York"),
        ("subscribe spec tue 9am New York", 1, "09:00", "America/New_York"),
        ("subscribe spec fri 10:00 san francisco", 4, "10:00", "America/Los_Angeles"),
        ("subscribe spec fri 10:00 berlin", 4, "10:00", "Europe/Berlin"),
        ("subscribe spec fri 10:00 Bangalore", 4, "10:00", "Asia/Kolkata"),
        ("subscribe spec every monday at 9", 0, "09:00", None),
        ("subscribe spec mon 9", 0, "09:00", None),  # a bare hour after a weekday name
        ("subscribe spec monday 0900", 0, "09:00", None),
        ("subscribe spec monday 9.30am", 0, "09:30", None),
        ("subscribe spec monday 9am Beijing time", 0, "09:00", "Asia/Shanghai"),
        ("subscribe spec 周一 下午三点半", 0, "15:30", None),
        ("subscribe spec 每周一 上午十点", 0, "10:00", None),
    ],
)
def test_schedules_typed_the_ways_people_write_them(text, weekday, at_time, zone):
    """Times with a dot, an h, a word or in Chinese; places instead of zones (a city of an IANA
    zone alone, in any case, or a well-known place such as Beijing); a zone typed as two words."""
    cmd = parse(text)
    assert (cmd.kind, cmd.arg, cmd.error) == ("subscribe", "spec", None)
    assert cmd.schedule == ScheduleParts(weekday=weekday, at_time=at_time, timezone=zone)


@pytest.mark.parametrize(
    "text, bad",
    [
        ("subscribe spec fri 25h", "25h"),
        ("subscribe spec fri 21h77", "21h77"),
        ("subscribe spec fri 9.75", "9.75"),
        ("subscribe spec 下午25点", "下午25点"),
    ],
)
def test_a_time_typed_another_way_is_still_checked(text, bad):
    cmd = parse(text)
    assert (cmd.error, cmd.error_value) == ("sub.bad_time", bad)


@pytest.mark.parametrize(
    "text",
    ["hi", "Hello!", "hey", "你好", "您好！", "嗨", "hi there", "Hello there!", "hey there!", "good morning", "早上好"],
)
def test_a_greeting_alone_gets_the_help(text):
    assert parse(text).kind == "help"


def test_a_greeting_with_a_topic_is_not_help():
    assert parse("hello world").kind == "query"


@pytest.mark.parametrize(
    ("text", "kind", "arg"),
    [
        ("hey, what's next?", "next", ""),
        ("hi there, nixl", "query", "nixl"),
        ("你好，推测解码", "query", "推测解码"),
        ("Hello! follow spec", "follow", "spec"),
        ("yo spec next", "next", "spec"),
        ("thanks, next", "next", ""),
    ],
)
def test_a_greeting_before_a_command_is_read_past(text, kind, arg):
    cmd = parse(text)
    assert (cmd.kind, cmd.arg) == (kind, arg)


@pytest.mark.parametrize(
    "text", ["thanks", "Thank you!", "thx", "谢谢", "多谢！", "thanks a lot.", "thank you very much"]
)
def test_thanks_alone_is_thanks_not_a_search(text):
    assert parse(text).kind == "thanks"


def test_thanks_with_a_topic_is_a_search():
    assert parse("thanks spec").kind == "query"


@pytest.mark.parametrize(
    "text",
    [
        "what's new?",
        "What is new this week",
        "anything new",
        "latest",
        "latest posts",
        "newest posts",
        "recent posts",
        "what's the latest?",
        "最新文章",
        "有什么新文章吗",
        "最近的文章",
        "最新",
        "any new posts?",
        "latest news",
        "show me the latest posts",
        "latest vllm blog",
        "最近更新",
        "本周新文章",
        "最近有什么文章",
        "最新的文章有哪些",
        "hey there, latest",
        "thank you, latest",
        "谢谢，最新文章",
    ],
)
def test_asking_what_is_new_is_latest(text):
    assert parse(text).kind == "latest"


@pytest.mark.parametrize(
    ("text", "arg"),
    [
        ("new quantization posts", "quantization"),
        ("latest eagle", "eagle"),
        ("what's new in quantization", "quantization"),
        ("What's new in PD?", "PD"),
        ("推测解码最新文章", "推测解码"),
    ],
)
def test_new_with_a_topic_is_latest_in_that_topic(text, arg):
    """(QA) ``what's new in pd`` searched for its words and found "A New Course"; it is now the
    newest posts of the topic's track (a search for the topic when it names none)."""
    cmd = parse(text)
    assert (cmd.kind, cmd.arg) == ("latest", arg)


@pytest.mark.parametrize(
    "text, arg",
    [("progress", ""), ("progress spec", "spec"), ("进度", ""), ("我的进度", ""), ("进度推测解码", "推测解码")],
)
def test_asking_for_ones_progress_is_next_which_shows_each_tracks_progress(text, arg):
    cmd = parse(text)
    assert (cmd.kind, cmd.arg) == ("next", arg)


@pytest.mark.parametrize(
    "text",
    [
        "catch me up",
        "Catch me up!",
        "catch up",
        "please catch me up",
        "what did I miss?",
        "What have I missed",
        "what’s new for me",
        "跟上进度",
        "帮我跟上进度",
        "我错过了什么",
        "我错过了什么？",
        "错过了啥",
    ],
)
def test_asking_to_be_caught_up_is_catchup_never_a_search(text):
    assert parse(text).kind == "catchup"


@pytest.mark.parametrize(
    "text, kind",
    [
        ("catching poor llm performance", "query"),  # the post the issue saw answer "catch me up"
        ("catch me up on quantization", "query"),
        ("what did i miss in the v1 release", "query"),
        ("what's new", "latest"),
    ],
)
def test_longer_or_other_texts_are_not_catchup(text, kind):
    assert parse(text).kind == kind


def test_subscribe_reads_club_and_no_club_anywhere_after_the_track() -> None:
    """Issue 44: ``subscribe spec monday club`` makes a reading club; ``no club`` ends one; left out, kept."""
    club = parse("subscribe spec monday club")
    assert (club.arg, club.club, club.schedule.weekday) == ("spec", True, 0)
    assert parse("subscribe spec club mon 09:00 30m").club is True
    assert parse("subscribe spec 读书会").club is True
    assert (parse("subscribe spec no club").club, parse("subscribe spec").club) == (False, None)


@pytest.mark.parametrize("text", ["dm friday 08:30", "私信 周五 08:30", "dm mon 9:00 Europe/Berlin"])
def test_a_whole_dm_schedule_without_on_turns_the_dm_on(text):
    """QA: ``dm friday 08:30`` showed the DM's status and left it off; a schedule alone means ``on``."""
    cmd = parse(text)
    assert cmd.kind == "dm" and cmd.enabled is True and cmd.schedule is not None and cmd.error is None


@pytest.mark.parametrize(("text", "enabled"), [("dm", None), ("dm banana", None), ("dm off", False)])
def test_dm_without_a_schedule_keeps_its_meaning(text, enabled):
    assert parse(text).enabled is enabled


@pytest.mark.parametrize("text", ["订阅列表", "频道订阅", "subscriptions", "subs"])
def test_the_channels_subscriptions_in_chinese_too(text):
    """QA: ``订阅列表`` searched for a track named 列表."""
    assert parse(text).kind == "subscriptions"


@pytest.mark.parametrize(
    ("text", "kind", "arg"),
    [
        ("mark read p-eagle", "read", "p-eagle"),
        ("mark p-eagle as read", "read", "p-eagle"),
        ("Mark p-eagle read", "read", "p-eagle"),
        ("i read p-eagle", "read", "p-eagle"),
        ("I've finished p-eagle", "read", "p-eagle"),
        ("mark p-eagle as unread", "unread", "p-eagle"),
        ("mark unread p-eagle", "unread", "p-eagle"),
        ("remind me about p-eagle next week", "remind", None),
        ("remind me p-eagle on friday", "remind", None),
        ("stop dm", "dm", None),
        ("turn off dms", "dm", None),
        ("cancel reminder", "reminders", ""),
        ("my progress", "next", ""),
        ("30 min a week", "plan", None),
        ("标记 p-eagle 已读", "read", "p-eagle"),
        ("我读完了 p-eagle", "read", "p-eagle"),
        ("提醒我 p-eagle 下周一", "remind", None),
        ("关闭私信", "dm", None),
        ("取消提醒", "reminders", ""),
    ],
)
def test_commands_typed_in_plain_words_are_understood(text, kind, arg):
    """(QA) ``mark p-eagle as read`` showed the path and marked nothing; ``remind me about …`` looked
    for a post called "me about p-eagle"; ``stop dm`` and ``30 min a week`` were refused as off-topic."""
    cmd = parse(text)
    assert cmd.kind == kind and cmd.error is None
    if arg is not None:
        assert cmd.arg == arg
    if kind == "remind":
        assert cmd.arg.split()[0] == "p-eagle"
    if text in ("stop dm", "turn off dms", "关闭私信"):
        assert cmd.enabled is False
    if kind == "plan":
        assert cmd.minutes == 30


@pytest.mark.parametrize("text", ["i read about speculative decoding, what next", "mark my words", "remind"])
def test_plain_words_that_are_no_command_stay_what_they_were(text):
    """Only the exact forms are rewritten: a sentence about reading is still a question."""
    assert parse(text).kind != "read" or text.startswith("read")


@pytest.mark.parametrize(
    ("text", "kind", "arg"),
    [
        ("help with quantization", "query", "quantization"),
        ("help me understand paged attention", "query", "paged attention"),
        ("帮助 量化", "query", "量化"),
        ("help", "help", None),
        ("help me", "help", None),
        ("help me with dm", "help", None),  # a command word after help: the help
        ("digest of kv cache posts", "query", "digest of kv cache posts"),
        ("digest spec", "usage", "digest"),
        ("digest", "usage", "digest"),
    ],
)
def test_help_or_digest_before_a_topic_is_a_question_about_it(text, kind, arg):
    """QA, 2026-12-07: ``help with quantization`` gave the help page and ``digest of kv cache posts``
    the digest's usage; a topic after them is searched, a command word or nothing keeps them."""
    cmd = parse(text)
    assert cmd.kind == kind, cmd
    if arg is not None:
        assert cmd.arg == arg, cmd


@pytest.mark.parametrize(
    ("text", "at_time", "minutes"),
    [
        ("dm on friday 08:30 10h", "08:30", 600),
        ("dm on friday 9am 5h", "09:00", 300),
        ("dm on friday 21h", "21:00", None),  # no other time: 21h is the time
        ("dm on friday 3h", None, 180),
    ],
)
def test_an_hour_count_beside_a_clock_time_is_a_reading_time(text, at_time, minutes):
    """QA, 2026-12-07: ``dm on friday 08:30 10h`` was refused as "08:30 is not a time" (10h read as
    a second time); beside a clock time written out, ``Nh`` is the plan's hours."""
    cmd = parse(text)
    assert cmd.error is None, cmd
    assert cmd.schedule is not None and cmd.schedule.at_time == at_time, cmd
    assert cmd.minutes == minutes, cmd


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("what commands are there", "help"),
        ("list commands", "help"),
        ("app home", "help"),
        ("how do I subscribe", "help"),
        ("how do i stop the dm", "help"),
        ("how do I cancel a reminder", "help"),
        ("how to unsubscribe", "help"),
        ("what tracks are there", "help"),
        ("list tracks", "tracks"),  # QA round 20: the track list, as `tracks`
        ("这个怎么用", "help"),
        ("怎么订阅", "help"),
        ("有哪些主题", "help"),
        ("cancel 1", "usage"),
        ("cancel all reminders", "usage"),
        ("退出", "stop_what"),
        ("不再接收", "stop_what"),
        ("stop following spec", "stop_what"),
        ("推迟两周", "snooze_what"),
        ("每周推荐", "usage"),
        # questions about vLLM that start the same way stay questions
        ("how do i use speculative decoding", "query"),
        ("how do I set up pd disaggregation", "query"),
        ("how to stop generation at a token", "query"),
        ("每周 30分钟", "plan"),
    ],
)
def test_a_question_about_the_app_is_answered_by_the_app(text, kind):
    """QA pass 2, 2026-12-07: each of these about the app was refused as off-topic (or ``每周推荐``,
    the app's own word for a digest, read as a plan); vLLM questions of the same shape still search."""
    assert parse(text).kind == kind, parse(text)
