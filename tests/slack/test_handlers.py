"""Command and button handlers against a real database (SQLite and PostgreSQL) and the real catalog."""

from __future__ import annotations

from datetime import UTC

from sqlalchemy import event

from bot.domain import paths
from bot.domain.schedule import WeeklySchedule
from bot.slack.commands.subscribe import next_fire_label
from bot.slack.handlers import Caller, Handlers, UserInfo

ALICE = Caller("T1", "U1", "C1")


def handlers(runtime, locale=None, tz=None):
    return Handlers(runtime, users_info=lambda team, user: UserInfo(locale=locale, tz=tz))


def test_track_query_shows_the_path_and_the_next_step(runtime):
    h = handlers(runtime)
    reply = h.command(ALICE, "speculative")
    first = runtime.holder.catalog.post(runtime.holder.catalog.order("spec")[0])
    assert first.title in reply.text
    assert reply.response_type == "ephemeral"


def test_search_keyword_lists_posts_even_for_a_track_name(runtime):
    h = handlers(runtime)
    cat = runtime.holder.catalog
    path = h.command(ALICE, "speculative")
    assert path.blocks != h.command(ALICE, "search speculative").blocks
    search = runtime.holder.loaded.matcher.search("speculative", limit=5)
    reply = h.command(ALICE, "search speculative")
    for match in search.results:
        assert cat.post(match.post_id).title in reply.text
    llmd = runtime.holder.loaded.matcher.search("llm-d", limit=5)
    assert llmd.results
    assert h.command(ALICE, "search llm-d").blocks == h.command(ALICE, "llm-d").blocks
    assert "Type a topic" in h.command(ALICE, "search").text


def test_read_follow_next_flow(runtime):
    h = handlers(runtime)
    cat = runtime.holder.catalog
    order = cat.order("pd")
    h.command(ALICE, "follow pd")
    assert runtime.store.follows("T1", "U1") == ["pd"]
    h.command(ALICE, f"read {order[0]}")
    assert order[0] in runtime.store.read_posts("T1", "U1")
    reply = h.command(ALICE, "next")
    assert cat.post(order[1]).title in reply.text
    # Idempotent: reading again changes nothing and says so.
    again = h.command(ALICE, f"read {order[0]}")
    assert "Already read" in again.text
    h.command(ALICE, f"unread {order[0]}")
    assert order[0] not in runtime.store.read_posts("T1", "U1")


def test_read_by_query_marks_the_best_match(runtime):
    h = handlers(runtime)
    h.command(ALICE, "read torch.compile")
    assert "torch-compile" in runtime.store.read_posts("T1", "U1")
    reply = h.command(ALICE, "read &&&")
    assert "nothing was marked" in reply.text
    assert runtime.store.read_posts("T1", "U1") == {"torch-compile"}


def test_buttons_mark_read_and_redraw(runtime):
    h = handlers(runtime)
    cat = runtime.holder.catalog
    first = cat.order("spec")[0]
    reply = h.action(ALICE, "mark_read", {"p": first, "t": "spec", "v": "track:spec"})
    assert first in runtime.store.read_posts("T1", "U1")
    nxt = paths.next_step(cat, "spec", {first})
    assert cat.post(nxt.post).title in reply.text
    share = h.action(ALICE, "share", {"t": "spec", "v": "track:spec"})
    assert share.response_type == "in_channel"
    assert h.action(ALICE, "follow", {"t": "spec", "v": "home"}) is None
    assert runtime.store.follows("T1", "U1") == ["spec"]
    # Garbage in a button value changes nothing.
    h.action(ALICE, "mark_read", {"p": "no-such-post", "v": "track:spec"})
    assert runtime.store.read_posts("T1", "U1") == {first}


def test_reading_several_posts_says_which_were_read_already(runtime):
    """(QA) ``read a b`` with ``a`` read before said "Marked read: a, b"; each is now said as
    what it was."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    first, second = cat.order("spec")[:2]
    h.command(ALICE, f"read {first}")
    text = h.command(ALICE, f"read {first} {second}").text
    marked, _, already = text.partition("Already read: ")
    assert "Marked read: " in marked and cat.post(second).title in marked and cat.post(first).title not in marked
    assert cat.post(first).title in already.split("\n")[0] and cat.post(second).title not in already.split("\n")[0]
    again = h.command(ALICE, f"read {first} {second}").text
    assert "Marked read" not in again and "Already read: " in again


def test_next_without_a_followed_track_shows_the_tracks_begun(runtime):
    """(QA) ``next`` / ``progress`` after reading two spec posts said only "you don't follow any
    track"; they show each track begun, how far ("2 of 17 read", not a bare 2/17 before a title)."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    assert "don't follow any track" in h.command(ALICE, "next").text
    essential = paths.essentials(cat, "spec")
    h.command(ALICE, "read " + " ".join(essential[:2]))
    for asked in ("next", "progress"):
        reply = h.command(ALICE, asked)
        text = reply.text
        assert "`/vllm-path follow spec`" in str(reply.blocks) and f"2 of {len(essential)} essential read" in text
        assert cat.post(paths.next_step(cat, "spec", set(essential[:2])).post).title in text


def test_lang_and_dm_alone_say_where_they_stand_and_daily_is_weekly(runtime):
    """(QA) ``lang`` and ``dm`` alone gave only their usage; ``subscribe agentic daily`` said it did
    not understand "daily"."""
    h = handlers(runtime, locale="en-US")
    assert "I reply to you in English" in h.command(ALICE, "lang").text
    assert h.command(ALICE, "dm").text.startswith("Your weekly DM is off.")
    h.command(ALICE, "dm on friday 08:30 UTC")
    assert h.command(ALICE, "dm").text.startswith("Weekly DM on: Fridays at 08:30 (UTC)")
    for daily in ("subscribe agentic daily", "subscribe agentic every day"):
        assert "Digests are weekly" in h.command(ALICE, daily).text
    assert runtime.store.subscriptions("T1", ALICE.channel_id) == []


def test_a_track_to_read_first_is_named_as_its_essential_path_until_that_is_read(runtime):
    """(QA) "Read first: Engine internals" before speculative decoding read as all 19 steps of it:
    it names the essential path, its length and command, and goes once that path is read."""
    h = handlers(runtime, locale="en-US")
    cat = runtime.holder.catalog
    assert "internals" in cat.track("spec").before
    steps = len(paths.essentials(cat, "internals"))
    line = f"Read first: *Engine internals*, its essential path ({steps} steps, `/vllm-path internals`)"
    assert line in str(h.command(ALICE, "speculative").blocks)
    h.command(ALICE, "read " + " ".join(paths.essentials(cat, "internals")))
    assert "Engine internals*, its essential path" not in str(h.command(ALICE, "speculative").blocks)


def test_reading_several_posts_shows_the_track_most_of_them_are_in(runtime):
    """(QA) ``read`` of three internals steps showed the first post's first track (Agentic, which
    holds only that post); the path shown is the one most of the posts are in."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    posts = cat.order("internals")[:3]
    assert [cat.tracks_of(p)[0] for p in posts] != ["internals"] * 3  # a first track elsewhere
    reply = h.command(ALICE, "read " + " ".join(posts))
    read = sum(1 for p in posts if p in cat.essentials("internals"))
    assert f"{read} of {len(cat.essentials('internals'))} essential read" in reply.text  # issue 40: one line
    assert cat.track("internals").names.en in reply.text and '"t":"internals"' in str(reply.blocks)


def test_an_old_button_pressed_again_says_it_was_already_done(runtime):
    """A reply stays in Slack: its Mark read / Follow buttons can be pressed after the command
    or another button already did it. The notice says so instead of "Marked read" again."""
    h = handlers(runtime)
    first = runtime.holder.catalog.order("spec")[0]
    read = {"p": first, "t": "spec", "v": "track:spec"}
    assert "Marked read" in h.action(ALICE, "mark_read", read).text
    assert "Already read" in h.action(ALICE, "mark_read", read).text
    assert "Marked unread" in h.action(ALICE, "mark_unread", read).text
    assert "was not marked read" in h.action(ALICE, "mark_unread", read).text
    track = {"t": "spec", "v": "track:spec"}
    assert "You now follow" in h.action(ALICE, "follow", track).text
    assert "already follow" in h.action(ALICE, "follow", track).text
    assert "no longer follow" in h.action(ALICE, "unfollow", track).text
    assert "were not following" in h.action(ALICE, "unfollow", track).text


def test_subscribe_in_channel_with_schedule(runtime):
    h = handlers(runtime, tz="America/Los_Angeles")
    reply = h.command(ALICE, "subscribe spec decode friday 10:30")
    assert "Fridays at 10:30 (America/Los_Angeles)" in reply.text
    subs = runtime.store.subscriptions("T1", "C1")
    assert [(s.track_id, s.weekday, s.at_time, s.timezone) for s in subs] == [
        ("spec", 4, "10:30", "America/Los_Angeles")
    ]
    assert "Updated" in h.command(ALICE, "subscribe spec monday 09:00 europe/berlin").text
    assert runtime.store.subscriptions("T1", "C1")[0].timezone == "Europe/Berlin"
    assert "Speculative decoding" in h.command(ALICE, "subscriptions").text
    assert "time zone" in h.command(ALICE, "subscribe pd monday 09:00 Mars/Olympus").text
    assert "channel" in h.command(Caller("T1", "U1", "D123"), "subscribe pd").text
    assert "no longer" in h.command(ALICE, "unsubscribe spec").text
    assert runtime.store.subscriptions("T1", "C1") == []


def test_dm_and_lang(runtime):
    h = handlers(runtime, locale="zh-CN")
    assert "每周私信" in h.command(ALICE, "dm on thursday 08:00 Asia/Shanghai").text
    dm = runtime.store.get_dm("T1", "U1")
    assert (dm.enabled, dm.weekday, dm.at_time, dm.timezone) == (True, 3, "08:00", "Asia/Shanghai")
    h.command(ALICE, "lang en")
    assert "Weekly DM off" in h.command(ALICE, "dm off").text
    assert runtime.store.get_dm("T1", "U1").enabled is False


def test_a_command_typed_in_chinese_is_answered_in_chinese_unless_a_language_was_chosen(runtime):
    h = handlers(runtime, locale="en-US")
    assert "已读 0/" in h.command(ALICE, "推测解码").text + str(h.command(ALICE, "推测解码").blocks)
    english = str(h.command(ALICE, "speculative").blocks)
    assert "0 of " in english and "已读" not in english
    h.command(ALICE, "lang en")  # a chosen language wins over the text
    chosen = str(h.command(ALICE, "推测解码").blocks)
    assert "0 of " in chosen and "已读" not in chosen
    first = runtime.holder.catalog.order("spec")[0]
    value = {"p": first, "t": "spec", "v": "track:spec"}
    bob_h, bob = handlers(runtime, locale="en-US"), Caller("T1", "U3", "C1")
    redrawn = bob_h.action(bob, "mark_read", value, "标记已读")  # a click in the Chinese reply
    assert redrawn is not None and "已读 1/" in str(redrawn.blocks)
    english_click = bob_h.action(bob, "mark_unread", value, "Mark unread")
    assert english_click is not None and "0 of " in str(english_click.blocks)
    zh_locale = handlers(runtime, locale="zh-CN")
    bob = Caller("T1", "U2", "C1")
    assert "已读 0/" in str(zh_locale.command(bob, "speculative").blocks)  # the locale, as before


def test_workspaces_are_isolated(runtime):
    h = handlers(runtime)
    other = Caller("T2", "U1", "C1")
    h.command(ALICE, "follow spec")
    h.command(ALICE, "read p-eagle")
    h.command(ALICE, "subscribe pd")
    assert runtime.store.follows("T2", "U1") == []
    assert runtime.store.read_posts("T2", "U1") == set()
    assert "no digests" in h.command(other, "subscriptions").text


def test_unknown_things_get_a_friendly_did_you_mean(runtime):
    h = handlers(runtime)
    assert "Try `/vllm-path follow spec`" in h.command(ALICE, "follow sepc").text  # the same command
    assert "Try `/vllm-path next spec`" in h.command(ALICE, "next sepc").text
    assert runtime.store.follows("T1", "U1") == []
    assert "follow spec" in h.command(ALICE, "folow spec").text
    h.command(ALICE, "follow specualtive")
    assert runtime.store.follows("T1", "U1") == ["spec"]
    assert "Which track" in h.command(ALICE, "follow").text
    assert "lang en" in h.command(ALICE, "lang fr").text


def test_next_fire_label_uses_the_local_zone():
    from datetime import datetime

    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # a Monday
    nine, two = WeeklySchedule.of(0, "09:00", "Europe/Berlin"), WeeklySchedule.of(0, "14:00", "Europe/Berlin")
    assert next_fire_label(nine, now) == "Monday 7 Dec 2026 09:00 Europe/Berlin"
    assert next_fire_label(nine, now, lang="zh") == "2026年12月7日 周一 09:00 Europe/Berlin"
    assert next_fire_label(two, now) == "Monday 30 Nov 2026 14:00 Europe/Berlin"


def test_resubscribing_keeps_the_schedule_and_resumes_a_paused_digest(runtime):
    h = handlers(runtime, tz="Asia/Shanghai")
    h.command(ALICE, "subscribe spec friday 10:00 Europe/Berlin")
    sub = runtime.store.subscriptions("T1", "C1")[0]
    assert "already gets" in h.command(ALICE, "subscribe spec").text
    runtime.store.pause_subscription(sub.id, "channel_not_found")
    assert "/vllm-path subscribe spec" in h.command(ALICE, "subscriptions").text
    reply = h.command(ALICE, "subscribe spec")
    assert "Resumed" in reply.text
    again = runtime.store.subscriptions("T1", "C1")[0]
    assert (again.weekday, again.at_time, again.timezone, again.status) == (4, "10:00", "Europe/Berlin", "active")
    h.command(ALICE, "subscribe spec monday")
    assert runtime.store.subscriptions("T1", "C1")[0].at_time == "10:00"  # only the weekday moved


def test_schedules_typed_as_numbers_crontab_or_ambiguous_zones_get_the_right_form(runtime):
    """Refused, nothing stored, and the reply shows the command written the right way."""
    h = Handlers(runtime)
    for text, shown in (
        ("subscribe quant 0 9 * * 0", "/vllm-path subscribe quant sun 09:00 Europe/Berlin"),
        ("subscribe spec 7 09:00 UTC", "/vllm-path subscribe spec sun 09:00 UTC"),
        ("subscribe spec mon 09:00 IST", "/vllm-path subscribe spec mon 09:00 Asia/Kolkata"),
    ):
        reply = h.command(ALICE, text)
        assert shown in reply.text, reply.text
    assert "Asia/Kolkata, Europe/Dublin, Asia/Jerusalem" in h.command(ALICE, "subscribe spec mon 09:00 IST").text
    assert runtime.store.subscriptions(ALICE.team_id, ALICE.channel_id) == []
    reply = h.command(ALICE, "subscribe spec mon 09:00 EST")
    assert "America/New_York" in reply.text
    assert [s.timezone for s in runtime.store.subscriptions(ALICE.team_id, ALICE.channel_id)] == ["America/New_York"]
    assert "America/Phoenix" in h.command(ALICE, "subscribe pd mon 09:00 MST").text


def test_subscribe_blames_the_words_it_did_not_understand(runtime):
    h = handlers(runtime)
    reply = h.command(ALICE, "subscribe spec funday")
    assert "funday" in reply.text and "No track" not in reply.text
    assert runtime.store.subscriptions("T1", "C1") == []
    assert h.command(ALICE, "subscribe spec friday 10:00 utc").text.count("UTC") >= 1


def test_read_with_an_unclear_query_lets_the_reader_pick(runtime):
    h = handlers(runtime)
    reply = h.command(ALICE, "read kimi k3")
    assert runtime.store.read_posts("T1", "U1") == set()
    assert "Mark read" in str(reply.blocks) and "nothing was marked yet" in reply.text


def _selects(runtime):
    """The SELECT statements the store runs, recorded as they run; a reader-state read (one
    statement, or none when its cache answers) counts once, as ``SELECT <reader state>``."""
    seen: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("SELECT") and " AS kind, " not in statement:
            seen.append(statement)

    store = runtime.store
    reader_state = store.reader_state

    def recorded_reader_state(team, user):
        seen.append("SELECT <reader state>")
        return reader_state(team, user)

    event.listen(store._engine, "before_cursor_execute", record)
    store.reader_state = recorded_reader_state

    def stop():
        event.remove(store._engine, "before_cursor_execute", record)
        del store.reader_state

    return seen, stop


def test_a_track_view_reads_the_reader_state_in_one_statement(runtime):
    h = handlers(runtime)
    h.command(ALICE, "follow pd")
    h.command(ALICE, "read p-eagle")
    seen, stop = _selects(runtime)
    try:
        h.command(ALICE, "speculative")
        h.action(ALICE, "unfollow", {"t": "pd", "v": "next"})
    finally:
        stop()
    # one read for the command; the button: one read, then its write, then no second read
    assert len(seen) == 2, seen


def test_session_state_follows_its_own_writes(runtime):
    h = handlers(runtime)
    cat = runtime.holder.catalog
    order = cat.order("pd")
    s = h.context(ALICE).reader
    assert s.follows() == [] and s.read() == set()
    assert s.follow("pd") and not s.follow("pd")
    assert s.follow("spec")
    assert s.mark_read([order[0], order[1]]) == {order[0], order[1]}
    assert s.mark_unread([order[0]]) == {order[0]}
    assert s.unfollow("pd") and not s.unfollow("pd")
    assert s.follows() == runtime.store.follows("T1", "U1") == ["spec"]
    assert s.read() == runtime.store.read_posts("T1", "U1") == {order[1]}


def test_next_asked_with_the_keyword_last_names_the_track_or_searches_the_whole_text(runtime):
    """``pd next`` and 推测解码的下一篇 are ``next <track>``; ``qwen3 next`` names no track, so it
    is searched as typed and finds the Qwen3-Next post."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    assert h.command(ALICE, "pd next").blocks == h.command(ALICE, "next pd").blocks
    assert h.command(ALICE, "推测解码的下一篇").blocks == h.command(ALICE, "下一篇 推测解码").blocks
    qwen = h.command(ALICE, "qwen3 next")
    assert cat.post("qwen3-next").title in qwen.text
    assert qwen.blocks == h.command(ALICE, "search qwen3 next").blocks
    # a track's name mistyped is still that track; a topic alone is searched without "next"
    assert h.command(ALICE, "qaunt next").blocks == h.command(ALICE, "next quant").blocks
    assert h.command(ALICE, "eagle next").blocks == h.command(ALICE, "search eagle").blocks


def test_read_or_remind_with_a_topic_asks_which_post_and_changes_nothing(runtime):
    """A track's name or a topic several posts share (``kv cache``, ``fp8``, ``nixl``) is no one
    post: nothing is marked and no reminder is set; a distinctive title part still acts."""
    h = handlers(runtime)
    for topic in ("quantization", "量化", "kv cache", "fp8", "nixl"):
        h.command(ALICE, f"read {topic}")
        h.command(ALICE, f"remind {topic} tomorrow")
        assert runtime.store.read_posts("T1", "U1") == set(), topic
    assert runtime.store.read_posts("T1", "U1") == set()
    assert runtime.store.reminders("T1", "U1") == []
    h.command(ALICE, "read eagle 3.1")
    assert runtime.store.read_posts("T1", "U1") == {"eagle-3-1"}


def test_reading_a_post_of_two_tracks_shows_the_one_the_reader_follows(runtime):
    h = handlers(runtime)
    cat = runtime.holder.catalog
    tracks = cat.tracks_of("distributed-inference")
    assert len(tracks) >= 2
    followed = tracks[1]
    h.command(ALICE, f"follow {followed}")
    reply = h.command(ALICE, "read distributed-inference")
    assert f'"t":"{followed}"' in str(reply.blocks) and f'"t":"{tracks[0]}"' not in str(reply.blocks)


def test_setting_up_a_send_in_chinese_stores_no_language_and_says_how_to_choose_one(runtime):
    """A DM or reminder keeps the language of the command that set it up (``dm_preferences.lang``,
    ``reminders.lang``): a person answered in Chinese who chose no language is answered in Chinese,
    told it will come in Chinese and how to make every reply Chinese; the person's language is not
    stored (QA: a Chinese ``remind`` stored zh as their choice) but by ``lang``; an English reader
    and an explicit choice are told nothing."""
    h = handlers(runtime)
    note = "`/vllm-path lang zh` 让所有回复都用中文"
    reply = h.command(ALICE, "提醒 p-eagle 明天")
    assert note in reply.text
    assert runtime.store.get_lang("T1", "U1") is None
    assert [r.lang for r in runtime.store.reminders("T1", "U1")] == ["zh"]
    assert note in h.command(ALICE, "私信 开").text  # still no choice: said again
    assert runtime.store.get_lang("T1", "U1") is None and runtime.store.get_dm("T1", "U1").lang == "zh"
    bob = Caller("T1", "U2", "C1")
    assert note not in h.command(bob, "remind p-eagle tomorrow").text
    h.command(bob, "dm on")
    assert runtime.store.get_lang("T1", "U2") is None
    carol = Caller("T1", "U3", "C1")
    h.command(carol, "lang en")
    h.command(carol, "提醒 p-eagle 明天")
    assert runtime.store.get_lang("T1", "U3") == "en"
    erin = Caller("T1", "U5", "C1")
    h.command(ALICE, "subscribe spec")
    h.command(erin, "订阅 spec")  # changes nothing: keeps nothing
    assert runtime.store.get_lang("T1", "U5") is None
    zh_locale = handlers(runtime, locale="zh-CN")
    dave = Caller("T1", "U4", "C1")
    assert note in zh_locale.command(dave, "dm on").text
    assert runtime.store.get_lang("T1", "U4") is None
    frank = Caller("T1", "U6", "C1")
    h.command(frank, "lang zh")
    assert note not in h.command(frank, "提醒 p-eagle 明天").text
    assert runtime.store.get_lang("T1", "U6") == "zh"


def test_follow_a_post_follows_its_track_or_offers_its_tracks(runtime):
    h = handlers(runtime)
    cat = runtime.holder.catalog
    path = cat.post("p-eagle").url
    assert path
    h.command(ALICE, f"follow <https://vllm-project.github.io{path}>")  # as Slack sends a pasted link
    assert runtime.store.follows("T1", "U1") == ["spec"]
    h.command(ALICE, "unfollow p-eagle")
    assert runtime.store.follows("T1", "U1") == []
    several = h.command(ALICE, "follow distributed-inference")
    assert "several tracks" in several.text and "`internals`" in several.text and "`ops`" in several.text
    assert runtime.store.follows("T1", "U1") == []


def test_remind_of_a_post_nothing_matches_says_so_and_sets_nothing(runtime):
    h = handlers(runtime)
    reply = h.command(ALICE, "remind nonexistentpost tomorrow")
    assert "No post matches “nonexistentpost”" in reply.text and "no reminder was set" in reply.text
    assert runtime.store.reminders("T1", "U1") == []
    assert "Which post?" in h.command(ALICE, "remind").text


def test_a_chinese_day_word_in_an_english_command_answers_in_chinese_and_keeps_nothing(runtime):
    """(QA) ``dm on 周五 08:30`` and ``remind <post> 礼拜一`` kept Chinese for every later reply: nothing
    is kept. QA round 18 changed which language answers: a command holding Chinese words (day words
    too) is answered in Chinese (``dm on 周五`` answered in English while ``plan 30分钟`` in Chinese)."""
    h = handlers(runtime, locale="en-US")
    post = runtime.holder.catalog.order("spec")[0]
    assert "已开启每周私信" in h.command(ALICE, "dm on 周五 08:30").text
    assert "我会在" in h.command(ALICE, f"remind {post} on 礼拜一").text
    later = runtime.holder.catalog.order("spec")[1]
    for day in ("下周一", "3天后", "12月24日", "本周五"):  # all words Chinese (but the id): Chinese (QA)
        assert "提醒你" in h.command(ALICE, f"remind {later} {day}").text, day
    assert runtime.store.reader_state("T1", "U1").lang is None  # nothing kept
    assert "Pick a topic" in h.command(ALICE, "help").text
    assert "提醒你" in h.command(ALICE, f"提醒 {post} 礼拜一").text  # already set that day (QA round 18)


def test_minutes_left_say_when_they_leave_out_steps_not_linked_yet(runtime):
    """(QA) "N further reading left (M min)" counted nothing for posts without a link, silently."""
    h, cat = handlers(runtime), runtime.holder.catalog
    track = next(t for t in cat.tracks if any(cat.post(p).minutes is None for p in paths.further(cat, t.id)))
    unknown = sum(1 for p in paths.further(cat, track.id) if cat.post(p).minutes is None)
    h.command(ALICE, "read " + " ".join(paths.essentials(cat, track.id)))
    text = h.command(ALICE, "next").text
    further = len(paths.further(cat, track.id))  # the count holds them, the minutes do not (QA round 7)
    assert f"{further} further reading left" in text, text
    said = "1 more has no link yet" if unknown == 1 else f"{unknown} more have no link yet"  # QA round 8: wording
    assert f"(minutes for the {further - unknown} with a link; {said})" in text, text
    linked = [p for p in paths.further(cat, track.id) if cat.post(p).minutes is not None]
    h.command(ALICE, f"follow {track.id}")
    h.command(ALICE, "read " + " ".join(linked))
    left = h.command(ALICE, "next").text  # only unlinked steps left: "? min", not "0 min ... of 0" (roadmap)
    assert f"? min to go (reading time unknown: {unknown} left without a link yet) · next:" in left, left  # QA round 20
    assert "minutes are of 0" not in left and "(0 min)" not in left


def test_the_finish_message_shows_the_readers_streak(runtime):
    """Issue 44: finishing an essential path this week, at the budget, shows a 1-week streak."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    h.command(ALICE, "follow quant")
    h.command(ALICE, "plan 20m")
    reply = h.command(ALICE, "read " + " ".join(paths.essentials(cat, "quant")))
    assert "finished the essential path" in reply.text and "Reading streak: 1 week so far." in reply.text
    zh = h.command(Caller("T1", "U2", "C1"), "lang zh")
    assert zh.text
    h.command(Caller("T1", "U2", "C1"), "follow quant")
    unfinished = h.command(Caller("T1", "U2", "C1"), "read " + paths.essentials(cat, "quant")[0])
    assert "连续" not in unfinished.text  # no finish, no streak line


def test_app_home_shows_the_readers_streak(runtime):
    """Issue 44: App Home shows the streak line once a week counts (and none before)."""
    h = handlers(runtime)
    cat = runtime.holder.catalog
    h.command(ALICE, "follow quant")
    h.command(ALICE, "plan 20m")
    assert "Reading streak" not in str(h.home(ALICE, []))
    h.command(ALICE, "read " + " ".join(paths.essentials(cat, "quant")))
    assert "Reading streak: 1 week so far." in str(h.home(ALICE, []))
