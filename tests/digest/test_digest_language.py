"""QA: a channel digest keeps the language it was created in, and a Chinese word in a command
never changes the person's stored language. Through the real handlers, a real database (SQLite and
PostgreSQL), the real catalog and the HTTP stand-in for Slack; the CLI through click's runner."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from click.testing import CliRunner

from bot.cli.main import main
from bot.digest.deliver import Deliverer, Outcome, Pacer
from bot.domain.schedule import WeeklySchedule
from bot.domain.text import has_han
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.store import Store
from tests.digest.conftest import TEAM
from tests.digest.test_cli import _env

FIRE = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)  # Monday 09:00 in Berlin
ANN = Caller(TEAM, "UANN", "C1")  # an English reader (Slack locale en-US), no language chosen
BEN = Caller(TEAM, "UBEN", "C1")  # another English reader in the channel


def _handlers(runtime, said: list[str], locale: str = "en-US") -> Handlers:
    def info(team: str, user: str) -> UserInfo:
        return UserInfo(name={"UANN": "Ann", "UBEN": "Ben"}.get(user), locale=locale, tz="Europe/Berlin")

    return Handlers(runtime, users_info=info, announce=lambda team, channel, text: said.append(str(text)))


def _deliver(runtime, sub_id: int):
    return Deliverer(runtime, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=50)).deliver_subscription(
        sub_id, FIRE
    )


def _sub(runtime, track: str):
    return next(s for s in runtime.store.subscriptions(TEAM, "C1") if s.track_id == track)


def test_one_chinese_option_word_keeps_an_english_command_english(runtime, standin) -> None:
    """``subscribe rl monday 读书会`` (读书会: ``club``) typed by an English reader: the reply, the
    channel's line and the digest are English, and their stored language is still unset."""
    said: list[str] = []
    h = _handlers(runtime, said)
    reply = h.command(ANN, "subscribe rl monday 读书会")
    assert "reading club" in reply.text and not has_han(reply.text), reply.text
    assert runtime.store.get_lang(TEAM, "UANN") is None
    assert len(said) == 1 and "Ann subscribed this channel" in said[0] and not has_han(said[0])
    sub = _sub(runtime, "rl")
    assert sub.club and sub.lang == "en"


def test_a_chinese_subscribe_stores_the_digests_language_not_the_persons(runtime, standin) -> None:
    """``订阅 pd 读书会``: answered and announced in Chinese, the digest is Chinese; the person who
    typed it chose no language and still has none (only ``lang`` stores one)."""
    said: list[str] = []
    h = _handlers(runtime, said)
    reply = h.command(ANN, "订阅 pd 读书会")
    assert has_han(reply.text) and "lang en" not in reply.text  # nothing said about a kept language
    assert runtime.store.get_lang(TEAM, "UANN") is None
    assert len(said) == 1 and said[0].startswith("Ann ") and has_han(said[0])
    assert _sub(runtime, "pd").lang == "zh"
    assert not has_han(h.command(ANN, "help").text)  # their own replies stay as before


def test_the_creators_later_lang_switch_leaves_the_channel_digest_alone(runtime, standin) -> None:
    """Set up in English, the digest, its club thread and every later line in the channel about it
    stay English after its creator's ``lang zh``; their own replies are Chinese."""
    said: list[str] = []
    h = _handlers(runtime, said)
    h.command(ANN, "subscribe spec monday 09:00 club")
    h.command(ANN, "lang zh")
    sub = _sub(runtime, "spec")
    assert _deliver(runtime, sub.id).outcome is Outcome.SENT
    posts = [c for c in standin.calls("chat.postMessage") if c.ok and c.channel == "C1"]
    digest, thread = posts[0].args, posts[1].args
    assert digest["blocks"][0]["text"]["text"] == "Speculative decoding: this week's reading"
    assert thread.get("thread_ts") and not has_han(thread["text"]), thread["text"]
    moved = h.command(ANN, "subscribe spec tuesday no club")  # answered in the person's language …
    assert has_han(moved.text)
    assert said[-1].startswith("Ann moved this channel's weekly") and "no longer a reading club" in said[-1]
    assert has_han(h.command(ANN, "unsubscribe spec").text)
    assert said[-1] == "Ann unsubscribed this channel from the weekly Speculative decoding digest."


def test_a_chinese_digest_stays_chinese_for_an_english_admin(runtime, standin) -> None:
    """A digest created in Chinese: an English reader's change is answered in English and announced
    in Chinese, and the digest is Chinese."""
    said: list[str] = []
    h = _handlers(runtime, said)
    h.command(ANN, "lang zh")
    h.command(ANN, "subscribe spec monday 09:00")
    h.command(ANN, "lang en")
    assert _deliver(runtime, _sub(runtime, "spec").id).outcome is Outcome.SENT
    header = standin.calls("chat.postMessage")[0].args["blocks"][0]["text"]["text"]
    assert header == "推测解码：本周阅读"
    reply = h.command(ANN, "subscribe spec 3 steps")
    assert not has_han(reply.text) and has_han(said[-1]) and said[-1].startswith("Ann")


def test_a_digest_from_before_the_column_speaks_its_creators_language(runtime, standin) -> None:
    """Rows without a stored language (NULL, as migrated) follow their creator's current choice."""
    store = runtime.store
    sub = store.subscribe(TEAM, "C1", "spec", WeeklySchedule.of(0, "09:00", "UTC"), created_by="UANN")
    assert sub.lang is None and store.digest_lang(sub) == "en"
    store.set_lang(TEAM, "UANN", "zh")
    assert store.digest_lang(store.get_subscription(sub.id)) == "zh"
    nobody = store.subscribe(TEAM, "C2", "spec", WeeklySchedule.of(0, "09:00", "UTC"))
    assert store.digest_lang(nobody) == "en"
    again = store.subscribe(TEAM, "C1", "spec", WeeklySchedule.of(1, "09:00", "UTC"), lang="en")
    assert again.lang is None  # a re-subscribe keeps the language the digest has


def test_digest_preview_speaks_the_subscriptions_language(catalog, sqlite_url) -> None:
    """``digest preview --channel`` without ``--lang``: the subscription's language (not en);
    ``--lang`` still chooses; without ``--channel``: en."""
    store = Store.from_url(sqlite_url)
    store.set_lang(TEAM, "UANN", "en")
    store.subscribe(TEAM, "C1", "pd", WeeklySchedule.of(0, "09:00", "UTC"), created_by="UANN", lang="zh")
    store.close()
    runner = CliRunner()

    def header(*args: str) -> str:
        out = runner.invoke(main, ["digest", "preview", "--track", "pd", "--json", *args], env=_env(sqlite_url))
        assert out.exit_code == 0, out.output
        return str(json.loads(out.stdout)["blocks"][0]["text"]["text"])

    assert has_han(header("--channel", "C1"))
    assert not has_han(header("--channel", "C1", "--lang", "en"))
    assert not has_han(header())
