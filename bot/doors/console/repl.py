"""The console's REPL (:func:`main`, ``vllm-path console``): typed lines (a command, a button's
number, ``home``, ``calls``, ``paste``, ``picture``) through a :class:`~bot.doors.console.shell.Console`."""

from __future__ import annotations

import contextlib
import importlib
import sys
from typing import TextIO

from bot.doors.console import slack as si
from bot.doors.console.shell import REPLY_TIMEOUT_S, Console, Printed, console_settings, open_console
from bot.i18n import text


def calls_text(console: Console) -> str:
    """The Web API calls recorded so far, one per line (method, channel/user, text)."""
    lines = []
    for i, call in enumerate(console.standin.calls(), 1):
        who = call.args.get("channel") or call.args.get("user_id") or call.args.get("user") or ""
        text = str(call.args.get("text") or "").replace("\n", " ")
        result = "ok" if call.ok else str(call.response.get("error") or call.status)
        lines.append(f"{i:3}. {call.method:<20} {who!s:<12} {result:<8} {text[:60]}".rstrip())
    return "\n".join(lines) if lines else "(no Web API calls yet)"


def handle(console: Console, line: str) -> tuple[bool, str]:
    """Interpret one typed line; returns ``(keep_going, output_text)``."""
    line = line.strip()
    if not line:
        return True, ""
    word = line.lower()
    if word in ("quit", "exit", ":q", "/quit"):
        return False, ""
    if word == "home":
        return True, _join(console.home())
    if word == "calls":
        return True, calls_text(console)
    if word.startswith("paste ") or word == "paste":
        url = line[5:].strip()
        if not url:
            return True, "Usage: paste <url> (shows the unfurl Slack would show)"
        printed = console.paste(url)
        return True, _join(printed) if printed else "(no unfurl: the link is not in the catalog)"
    if word in (":help", ":keys", ":h"):
        return True, BANNER
    if word.split(None, 1)[0] == "picture" and console.runtime is not None:  # issue 24
        from bot.pictures import console_picture

        return True, console_picture(console.runtime, console.team_id, console.user_id, line[7:].strip())
    pressed = line.split(None, 1)[1] if word.startswith("press ") else line
    if pressed.strip().isdigit():  # "3" or "press 3"
        number = int(pressed)
        if number not in console.pressable:
            have = ", ".join(str(n) for n in sorted(console.controls)) or "none"
            return True, text("console.no_button").format(number=number, have=have)
        control = console.pressable[number][0]
        also = text("console.opens").format(url=control.url) if control.url else ""
        pressed = text("console.pressed").format(number=number, label=control.label, also=also)
        return True, pressed + "\n" + _join(console.press(number))
    return True, _join(console.command(line.removeprefix(si.SLASH_COMMAND).strip()))


def run(console: Console, stdin: TextIO, stdout: TextIO, *, interactive: bool | None = None) -> int:
    """Read lines from ``stdin`` until ``quit`` or end of input, printing replies to ``stdout``; the
    banner and prompts only when ``interactive`` (default: ``stdin`` is a TTY), else each command
    is echoed after ``> ``. Returns the exit code (0)."""
    interactive = stdin.isatty() if interactive is None else interactive
    use_input = interactive and stdin is sys.stdin and stdout is sys.stdout
    if use_input:
        with contextlib.suppress(ImportError):  # not on every platform
            importlib.import_module("readline")  # line editing and history for input()
    if interactive:
        stdout.write(BANNER + "\n")
    while True:
        try:
            if interactive and not use_input:
                stdout.write("> ")
                stdout.flush()
            line = input("> ") + "\n" if use_input else stdin.readline()
        except (EOFError, KeyboardInterrupt):  # input() at the end of input, or Ctrl-C: stop
            line = ""
        if not line:
            if interactive:
                stdout.write("\n")
            return 0
        if not interactive and line.strip():
            stdout.write(f"> {line.strip()}\n")
        try:
            keep, output = handle(console, line)
        except KeyboardInterrupt:
            keep, output = True, "(interrupted)"
        except Exception as exc:  # the console must survive a bad line
            keep, output = True, text("console.error").format(error=f"{type(exc).__name__}: {exc}")
        if output:
            stdout.write(output.rstrip() + "\n")
        stdout.flush()
        if not keep:
            return 0


def _join(printed: list[Printed]) -> str:
    if not printed:
        return text("console.no_reply").format(seconds=f"{REPLY_TIMEOUT_S:.0f}")
    return "\n\n".join(p.render() for p in printed)


BANNER = """\
vllm-path console — the Slack app running locally, no workspace needed.
Type what you would type after /vllm-path, for example:
  speculative              the reading path on speculative decoding
  quantization fp8         posts matching a query
  follow speculative       follow a track     ·  next   your next reads
  lang zh                  answer in Chinese  ·  help   everything the bot understands
Console keys: a number (or press N) presses that button · home (App Home) · calls (Web API
calls) · paste <url> (the unfurl of a shared link) · picture <track> (your path as a PNG file)
· :help (this text) · quit"""


def main(stdin: TextIO | None = None, stdout: TextIO | None = None, strict: bool = False) -> int:
    """``vllm-path console``: the REPL on stdin/stdout (``strict``: through the tests' stand-in).
    Returns the exit code."""
    from bot.logging_setup import setup_logging

    settings = console_settings()
    setup_logging(settings.model_copy(update={"log_level": "WARNING"}))
    with open_console(settings, strict=strict) as console:
        return run(console, stdin or sys.stdin, stdout or sys.stdout)
