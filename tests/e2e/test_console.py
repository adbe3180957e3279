"""The console and `ask`: the real app fed locally; and the pure Block Kit -> text renderer."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.config import Settings
from bot.doors.console import calls_text, console_settings, handle, mrkdwn_to_text, open_console, render_blocks
from bot.doors.console.repl import run
from tests.dbutil import migrated_sqlite_url

# --- render_blocks (pure) -----------------------------------------------------------------------


def test_mrkdwn_links_mentions_and_escapes_are_readable():
    assert (
        mrkdwn_to_text("<https://a.b/c|EAGLE &amp; co> and <https://x.y>")
        == "EAGLE & co (https://a.b/c) and https://x.y"
    )
    assert mrkdwn_to_text("<@U1> in <#C1|general> <!here> &lt;b&gt;") == "@U1 in #general @here <b>"
    assert mrkdwn_to_text("<!date^1700000000^{date}|Nov 14> :tada: :unknown_code:") == "Nov 14 🎉 :unknown_code:"
    # escaped text stays text: no link is formed by unescaping
    assert mrkdwn_to_text("&lt;https://evil|click&gt;") == "<https://evil|click>"


def test_render_blocks_numbers_buttons_across_blocks():
    blocks = [
        {"type": "header", "text": {"type": "plain_text", "text": "Speculative decoding"}},
        {
            "type": "section",
            "block_id": "s1",
            "text": {"type": "mrkdwn", "text": "*Read* <https://u|Post>"},
            "accessory": {
                "type": "button",
                "action_id": "mark_read:1",
                "value": "v1",
                "text": {"type": "plain_text", "text": "Mark read"},
            },
        },
        {"type": "divider"},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "1 of 9"}, {"type": "plain_text", "text": "v1"}]},
        {
            "type": "actions",
            "block_id": "a1",
            "elements": [
                {
                    "type": "button",
                    "action_id": "follow:x",
                    "value": "f",
                    "text": {"type": "plain_text", "text": "Follow"},
                },
                {
                    "type": "button",
                    "action_id": "open",
                    "url": "https://v.ai",
                    "text": {"type": "plain_text", "text": "Open"},
                },
            ],
        },
        {"type": "image", "image_url": "https://i", "alt_text": "chart"},
        {"type": "mystery"},
    ]
    text, controls = render_blocks(blocks, start=3)
    assert text.splitlines()[0] == "== Speculative decoding =="
    assert "*Read* Post (https://u)   [3] Mark read" in text
    assert "1 of 9 · v1" in text and "[4] Follow  [5] Open ↗" in text
    assert "[image: chart]" in text and "[mystery block]" in text
    assert [c.number for c in controls] == [3, 4, 5]
    assert controls[0].action == {
        "type": "button",
        "block_id": "s1",
        "action_id": "mark_read:1",
        "value": "v1",
        "text": {"type": "plain_text", "text": "Mark read"},
    }
    assert controls[1].action["block_id"] == "a1" and controls[2].url == "https://v.ai"


def test_render_blocks_overflow_options_and_fields():
    blocks = [
        {
            "type": "section",
            "fields": [{"type": "mrkdwn", "text": "*a*"}],
            "accessory": {
                "type": "overflow",
                "action_id": "more",
                "options": [{"text": {"type": "plain_text", "text": "Unfollow"}, "value": "u"}],
            },
        }
    ]
    text, controls = render_blocks(blocks)
    assert "*a*" in text and "⋯ [1] Unfollow" in text
    assert controls[0].action["selected_option"]["value"] == "u"
    assert controls[0].action["block_id"] == "auto-0"
    assert render_blocks([]) == ("", []) and render_blocks(None) == ("", [])


# --- the console against the real app -----------------------------------------------------------


@pytest.fixture
def console_settings_tmp(tmp_path):
    """Console settings on a fresh SQLite file (a copy of the session's migrated one)."""
    return Settings(
        _env_file=None,
        database_url=migrated_sqlite_url(tmp_path, "c.db"),
        slack_bot_token="xoxb-should-be-dropped",
        slack_signing_secret="dropped-too",
    )


def test_console_settings_drop_every_slack_credential(console_settings_tmp):
    s = console_settings(console_settings_tmp)
    assert s.secret_values() == [] and s.slack_api_url is None
    assert s.database_url == console_settings_tmp.database_url


def test_console_command_press_and_home(console_settings_tmp):
    with open_console(console_settings_tmp) as console:
        printed = console.command("speculative")
        assert len(printed) == 1 and printed[0].title.startswith("reply")
        assert "Speculative decoding" in printed[0].text
        labels = {c.label: n for n, (c, _) in console.controls.items()}
        assert "Mark read" in labels

        _, out = handle(console, str(labels["Mark read"]))
        assert out.startswith("(pressed [") and "message updated" in out and "1 of" in out
        read = console.app.handlers.rt.store.read_posts("T0CONSOLE", "U0CONSOLE")
        assert len(read) == 1
        opened = next(n for n, (c, _) in console.controls.items() if c.label == "Open path")
        assert "message updated" in handle(console, str(opened))[1]  # the whole path, when asked

        share = next(n for n, (c, _) in console.controls.items() if c.label.startswith("Share"))
        shared = console.press(share)
        assert shared[0].title.startswith("posted in #console")

        home = console.home()
        assert home and home[0].title.startswith("App Home")
        assert home[0].surface.kind == "view"
        assert "views.publish" in calls_text(console)

        keep, out = handle(console, "99")
        assert keep and "No button [99]" in out
        assert "No button [98]" in handle(console, "press 98")[1]
        assert "Console keys" in handle(console, ":help")[1]
        assert handle(console, "quit") == (False, "")


def test_a_reply_in_the_ack_is_shown_once_and_its_buttons_work(console_settings_tmp):
    """Once the console user's users.info is remembered, a path comes in the ack: the console
    shows it (through the stand-in, which checks it as Slack does) and its buttons work."""
    with open_console(console_settings_tmp) as console:
        console.command("help")  # the first command asks users.info
        printed = console.command("speculative")
        assert len(printed) == 1 and "Speculative decoding" in printed[0].text
        assert [p.ack for p in console.standin.responses()][-1] is True
        labels = {c.label: n for n, (c, _) in console.controls.items()}
        _, out = handle(console, f"press {labels['Mark read']}")
        assert "message updated" in out and "1 of" in out


def test_console_paste_shows_the_unfurl_and_its_buttons_work(console_settings_tmp):
    with open_console(console_settings_tmp) as console:
        _, out = handle(console, "paste https://vllm-project.github.io/2024/10/17/spec-decode.html")
        assert "unfurl of https://vllm-project.github.io/2024/10/17/spec-decode.html" in out
        assert "step " in out and "Speculative decoding" in out and "next: " in out
        labels = {c.label: n for n, (c, _) in console.controls.items()}
        assert {"Mark read", "Remind me next week"} <= set(labels)
        _, out = handle(console, str(labels["Mark read"]))
        assert "only visible to you" in out
        assert console.app.handlers.rt.store.read_posts("T0CONSOLE", "U0CONSOLE") == {"spec-decode"}
        _, out = handle(console, "paste https://example.com/a-page")  # not an unfurl domain: Slack sends nothing
        assert "Slack sends no link_shared for example.com" in out
        _, out = handle(console, "paste https://vllm-project.github.io/2099/01/01/not-a-post.html")
        assert out == "(no unfurl: the link is not in the catalog)"


def test_console_reads_a_script_from_stdin(console_settings_tmp):
    script = io.StringIO("/vllm-path help\n\nspeculative\n1\nquit\nnever reached\n")
    out = io.StringIO()
    with open_console(console_settings_tmp) as console:
        assert run(console, script, out) == 0
    text = out.getvalue()
    assert "> /vllm-path help" in text and "> speculative" in text and "> 1" in text
    assert "never reached" not in text
    assert "vllm-path console" not in text  # no banner when stdin is not a TTY
    assert "message updated" in text


def test_console_times_out_politely(console_settings_tmp):
    with open_console(console_settings_tmp, timeout=0.5) as console:
        console.app = _SilentApp()
        assert console.command("speculative") == []
        assert "no reply" in handle(console, "speculative")[1]


class _SilentApp:
    def dispatch(self, request):
        from slack_bolt.response import BoltResponse

        return BoltResponse(status=200, body="")


def test_console_cli_with_no_credentials_in_a_fresh_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "DATABASE_URL"):
        monkeypatch.delenv(var, raising=False)
    result = CliRunner().invoke(main, ["console"], input="speculative\nhome\ncalls\n")
    assert result.exit_code == 0, result.output
    assert "Speculative decoding" in result.output and "App Home" in result.output
    assert (tmp_path / "vllm-path.db").exists()  # the SQLite default in the working directory


def test_ask_json_prints_the_message_as_slack_receives_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/a.db")
    result = CliRunner().invoke(main, ["ask", "speculative", "--json", "--user", "U0ASK"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"response_type", "text", "blocks"}
    assert payload["response_type"] == "ephemeral" and payload["blocks"]
    text = CliRunner().invoke(main, ["ask", "speculative"])
    assert text.exit_code == 0 and "[1] Mark read" in text.output


def test_ask_json_prints_the_reply_not_the_channel_announcement(tmp_path, monkeypatch):
    """`subscribe` posts a one-line announcement in the channel before its ephemeral reply;
    `--json` prints the reply (the announcement has no response_type)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/a.db")
    result = CliRunner().invoke(main, ["ask", "--json", "subscribe spec mon 09:00 UTC"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["response_type"] == "ephemeral"
    assert "now gets" in payload["text"] and "subscribed this channel" not in payload["text"]


def test_the_listener_executor_is_idle_only_when_nested_tasks_are_done():
    """What the console waits on: a task that starts another (a listener starting a lazy
    listener) keeps the executor busy until both have ended."""
    import threading

    from bot.doors.console import ListenerExecutor

    executor = ListenerExecutor(max_workers=2)
    gate, ran = threading.Event(), []

    def lazy() -> None:
        gate.wait(30)
        ran.append("lazy")

    def listener() -> None:
        executor.submit(lazy)
        ran.append("listener")

    try:
        executor.submit(listener)
        assert executor.wait_idle(0.2) is False  # the lazy task is held at the gate
        gate.set()
        assert executor.wait_idle(30) is True
        assert sorted(ran) == ["lazy", "listener"]
    finally:
        executor.shutdown(wait=True)


def test_a_button_keeps_its_number_after_later_messages(console_settings_tmp):
    """(QA) numbers restarted at 1 with every output, so "1" pressed a different button each time."""
    with open_console(console_settings_tmp) as console:
        handle(console, "speculative")
        first = dict(console.controls)
        handle(console, "nixl")
        assert all(console.pressable[n][0].label == c.label for n, (c, _) in first.items())
        assert min(console.controls) > max(first)  # the new output's buttons got new numbers
        mark = next(n for n, (c, _) in first.items() if c.label == "Mark read")
        assert "message updated" in handle(console, str(mark))[1]  # an earlier message's button works


def test_stats_can_be_tried_in_the_console(console_settings_tmp):
    """(QA) ``stats`` in the console answered "for workspace admins and owners" with no way to see it:
    the console's person administers its workspace."""
    with open_console(console_settings_tmp) as console:
        out = handle(console, "stats")[1]
        assert "Active readers" in out and "admins and owners" not in out


def test_the_strict_console_starts_from_the_checkout_root(tmp_path):
    """``vllm-path console --strict`` run by its installed script in the repository's root (where
    ``tests`` is no importable package unless the checkout is on ``sys.path``) talks through the
    stand-in (QA, 2026-12-07: it failed with "needs the repository's tests/standin")."""
    script = Path(sys.executable).parent / "vllm-path"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'strict.db'}"
    done = subprocess.run(
        [str(script), "console", "--strict"],
        input="help\nquit\n",
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "needs the repository" not in done.stderr and "/vllm-path" in done.stdout


def test_a_search_result_names_the_readers_next_unread_step_after_it(console_settings_tmp):
    """The "next:" under a found post is the first step after it the reader has not read (QA,
    2026-12-07: it named a post already read)."""
    with open_console(console_settings_tmp) as console:
        before = console.command("How Speculative Decoding Boosts vLLM Performance")[0].text
        console.command("read laguna-xs2-dflash-llm-compressor")
        after = console.command("How Speculative Decoding Boosts vLLM Performance")[0].text
    assert "step 1 of 17 in Speculative decoding · next: Accelerating Laguna XS.2" in before, before
    assert "step 1 of 17 in Speculative decoding · next: Diving into speculative decoding" in after, after
