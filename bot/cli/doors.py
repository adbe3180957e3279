"""``vllm-path console``, ``ask``, ``serve`` and ``worker``: the doors to the app, and the processes
that run it (registered by bot/cli/main.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from bot.cli.common import DEFAULT_PID_FILE, SlackId, dump_json, exit_on_catalog_error, fail, option, write_pid_file
from bot.config import Settings
from bot.logging_setup import redact, secrets_of, setup_logging


@click.command("console")
@click.option(
    "--strict",
    is_flag=True,
    help="Talk through the tests' strict Slack stand-in on loopback, which refuses what Slack refuses "
    "(needs a checkout of the repository: tests/standin).",
)
def console_cmd(strict: bool) -> None:
    """Talk to the bot in your terminal: the real Slack app, its Slack in process.

    No Slack workspace or credentials needed (SQLite by default). Type `speculative`, `help`,
    a number to press a button, `home`, `calls`, `quit`. Reads a script from stdin too:
    `vllm-path console < script.txt`.
    """
    from bot.doors.console import main as console_main  # deferred: slack_sdk (~0.3 s)

    if strict:  # the stand-in is the checkout's tests/standin: this one's, or the working directory's
        for base in (Path(__file__).resolve().parents[2], Path.cwd()):
            if (base / "tests" / "standin").is_dir() and str(base) not in sys.path:
                sys.path.insert(0, str(base))
                break
    with exit_on_catalog_error():
        try:
            sys.exit(console_main(strict=strict))
        except ImportError as exc:  # --strict outside a checkout
            fail(f"--strict needs the repository's tests/standin ({exc})", 2)


@click.command("ask")
@click.argument("text", nargs=-1, required=True)
@option("--user", "user_id", default="U0CONSOLE", type=SlackId("U0123ABCD"), help="Slack user id to ask as.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print the message as Slack receives it: {"response_type", "text", "blocks"}.',
)
def ask_cmd(text: tuple[str, ...], user_id: str, as_json: bool) -> None:
    """Send one `/vllm-path TEXT` through the app and print the reply (exit 1 if none comes)."""
    from bot.doors.console import ask  # deferred: slack_sdk (~0.3 s)

    with exit_on_catalog_error():
        printed = ask(" ".join(text), user_id=user_id)
    if not printed:
        fail("no reply within the timeout", 1)
    if as_json:
        # The reply to the asker (it carries response_type); not a channel post made on the way,
        # e.g. the one-line announcement `subscribe` posts before its ephemeral confirmation.
        raw = next((p.raw for p in printed if "response_type" in p.raw), printed[0].raw)
        dump_json(
            {
                "response_type": raw.get("response_type", "ephemeral"),
                "text": raw.get("text", ""),
                "blocks": raw.get("blocks", []),
            }
        )
    else:
        click.echo("\n\n".join(p.text for p in printed))


@click.command("serve")
@option("--host", default="127.0.0.1", help="HTTP door: address to bind.")
@option(
    "--port",
    default=3000,
    type=click.IntRange(0, 65535),
    help="HTTP door: port (0: one the system picks, logged at start).",
)
@option(
    "--threads",
    default=32,
    type=click.IntRange(1, 256),
    help="HTTP worker threads, 1 to 256 (acks hold one only briefly; 32 covers bursts).",
)
@option(
    "--connection-limit",
    default=10_000,
    type=click.IntRange(10, 100000),
    help="HTTP door: most connections kept open at once (idle ones included; the open-file limit is raised to fit).",
)
@option(
    "--idle-timeout",
    default=30,
    type=click.IntRange(1, 3600),
    help="HTTP door: seconds an idle connection is kept before it is closed.",
)
@option(
    "--pid-file",
    default=DEFAULT_PID_FILE,
    help="Write the process id here while serving (for `vllm-path catalog reload`); '' writes none.",
)
def serve_cmd(host: str, port: int, threads: int, connection_limit: int, idle_timeout: int, pid_file: str) -> None:
    """Serve Slack: Socket Mode with SLACK_APP_TOKEN, else HTTP with SLACK_SIGNING_SECRET.

    HTTP: POST /slack/events (commands, buttons, events), GET /healthz, and /slack/install +
    /slack/oauth_redirect with OAuth. SIGHUP (or `vllm-path catalog reload`) reloads the catalog.
    """
    from bot.doors.serve import ConfigError, serve  # deferred: the doors, for this command only

    settings = Settings()
    setup_logging(settings)
    try:
        with exit_on_catalog_error(), write_pid_file(pid_file):
            serve(
                settings,
                host=host,
                port=port,
                threads=threads,
                connection_limit=connection_limit,
                channel_timeout=idle_timeout,
            )
    except click.ClickException:
        raise
    except ConfigError as exc:
        fail(f"error: {exc}", 2)
    except Exception as exc:
        fail(f"error: could not start: {redact(_startup_problem(exc), secrets_of(settings))}", 2)


@click.command("worker")
@option("--threads", default=8, type=click.IntRange(1, 256), help="Digests sent at once by this process.")
@option(
    "--heartbeat-timeout",
    default=60.0,
    type=click.FloatRange(1),
    help="Seconds without a heartbeat after which a worker's messages are redelivered.",
)
@option(
    "--stale-after",
    default=300.0,
    type=click.FloatRange(1),
    help="Seconds after which a dead sender's ledger claim is taken over.",
)
def worker_cmd(threads: int, heartbeat_timeout: float, stale_after: float) -> None:
    """Send digests from the queue (needs REDIS_URL and the clock's DATABASE_URL) until SIGTERM.

    Run one `scheduler` and any number of workers (README: "Digests at scale: 1 clock + N workers"); each keeps one
    connection to Slack open per thread (WORKER_SLACK_KEEP_ALIVE=0: one a call)."""
    # deferred: dramatiq, redis and SQLAlchemy (~1.8 s at start-up) for this command only
    from bot.digest.worker import WorkerOptions, run, worker_runtime

    settings = Settings()
    setup_logging(settings)
    if not settings.redis_url:
        fail("error: REDIS_URL is not set: a worker needs the queue's broker", 2)
    if missing := settings.missing_slack_credentials():  # else it would take digests and fail them
        fail(f"error: {missing}; a worker sends to Slack and needs the same Slack settings as the scheduler", 2)
    if broker := _broker_problem(settings.redis_url):
        fail(f"error: cannot reach the broker at REDIS_URL ({broker})", 2)
    try:
        with exit_on_catalog_error():
            runtime = worker_runtime(settings, threads)
    except Exception as exc:
        fail(
            f"error: cannot open the database at DATABASE_URL: "
            f"{redact(f'{type(exc).__name__}: {exc}', secrets_of(settings))}",
            2,
        )
    run(runtime, WorkerOptions(threads=threads, heartbeat_timeout_s=heartbeat_timeout, stale_after_s=stale_after))


def _broker_problem(redis_url: str) -> str | None:
    """Why the Redis broker at ``redis_url`` does not answer a PING within 3 seconds, or None."""
    import redis  # deferred: only the worker needs it

    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=3, socket_timeout=3).ping()
    except Exception as exc:
        return type(exc).__name__
    return None


def _startup_problem(exc: BaseException) -> str:
    """One line for a start-up failure: Slack refusing the token, Slack out of reach, or else the
    exception's type and message."""
    from http.client import HTTPException
    from socket import gaierror
    from urllib.error import URLError

    from slack_sdk.errors import SlackApiError  # deferred: slack_sdk (~0.1 s) only for this command

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, SlackApiError):
            return (
                f"Slack refused the bot token ({seen.response.get('error')}): check "
                "SLACK_BOT_TOKEN (or the OAuth settings)"
            )
        if isinstance(
            seen, URLError | HTTPException | TimeoutError | ConnectionError | gaierror
        ):  # QA 8: not any OSError
            return f"cannot reach Slack's Web API ({type(seen).__name__}: {seen}); check SLACK_API_URL and the network"
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    if "token" in text and "invalid" in text:
        return "Slack refused the bot token (auth.test): check SLACK_BOT_TOKEN"
    return f"{type(exc).__name__}: {text}"
