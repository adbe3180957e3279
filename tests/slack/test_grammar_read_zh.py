"""The Chinese read verb (task H7): ``读 <post>``, ``已读 <post>`` and the other ways a reader says
"I read it" are the read command the way ``read <post>`` is; the same verbs starting a question
(``读什么``, ``读书会``, ``看过哪些文章``) stay a query."""

from __future__ import annotations

import pytest

from bot.slack.grammar import parse


@pytest.mark.parametrize(
    ("text", "arg"),
    [
        ("读 p-eagle", "p-eagle"),
        ("读p-eagle", "p-eagle"),
        ("读 推测解码入门", "推测解码入门"),
        (
            "读 https://blog.vllm.ai/2025/01/10/dev-experience.html",
            "https://blog.vllm.ai/2025/01/10/dev-experience.html",
        ),
        ("读完 p-eagle", "p-eagle"),
        ("读完p-eagle", "p-eagle"),
        ("读过 sleep-mode", "sleep-mode"),
        ("看完了 sleep-mode", "sleep-mode"),
        ("已看 sleep-mode", "sleep-mode"),
        ("已读 p-eagle", "p-eagle"),
        ("已读：p-eagle", "p-eagle"),
        ("已读，p-eagle", "p-eagle"),
        ("读：p-eagle", "p-eagle"),
        ("标为已读 p-eagle", "p-eagle"),
    ],
)
def test_a_chinese_read_verb_is_the_read_command(text, arg):
    command = parse(text)
    assert (command.kind, command.arg) == ("read", arg)
    assert parse(f"read {arg}").arg == arg  # the same argument as the English verb


@pytest.mark.parametrize("text", ["取消已读 p-eagle", "标为未读 p-eagle", "标记未读 p-eagle"])
def test_undoing_a_read_in_chinese_is_unread(text):
    assert (parse(text).kind, parse(text).arg) == ("unread", "p-eagle")


@pytest.mark.parametrize(
    "text",
    [
        "读",
        "读什么",
        "读 什么",
        "读 哪篇",
        "读书会",
        "读推测解码",
        "看过哪些文章",
        "看过 哪些 文章",
        "读取 kv cache",
        "读写分离",
    ],
)
def test_a_reading_verb_starting_a_question_stays_a_query(text):
    assert parse(text).kind == "query"
