"""QA round 10 (admin, curator and operator pass), the CLI: an empty or spaced Slack id given to
``stats --team``, ``digest preview --channel/--team`` or ``ask --user`` is a usage error naming the
option (``stats --team ''`` ended in "uncaught exception" and a traceback); ``SLACK_BOT_TOKEN``
must be a bot token (``xoxb-``, also rotating ``xoxe.xoxb-``); ``catalog accept`` reports every
problem of the options at once; rejecting a draft twice says it was already rejected whatever its
id; a draft's link loses its tracking parameters; ``digest run-now --track nope`` names the track
before the missing credentials; a control character is a space and a terminal colour sequence
goes whole (``spec\\x1b[31mred`` was echoed “spec[31mred”)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bot.cli.main import main
from bot.config import Settings
from bot.domain.text import clean
from bot.doors.serve import ConfigError, door_for
from tests.domain.catalog.helpers import catalog_copy
from tests.domain.catalog.test_feed_drafts import CONTENT, atom, entry
from tests.e2e.helpers import BOT_TOKEN


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder of its own, with its own database and no Slack credentials."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/qa10.db")
    for name in ("SLACK_BOT_TOKEN", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_APP_TOKEN", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["stats", "--team", ""], "--team"),
        (["stats", "--team", "   "], "--team"),
        (["stats", "--team", "T1 T2"], "--team"),
        (["digest", "preview", "--track", "spec", "--channel", ""], "--channel"),
        (["digest", "preview", "--track", "spec", "--channel", "C1", "--team", " "], "--team"),
        (["ask", "--user", "", "help"], "--user"),
    ],
)
def test_an_empty_or_spaced_id_is_a_usage_error_naming_the_option(here: Path, args: list[str], option: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, (result.output, result.exception)
    assert f"Invalid value for '{option}'" in result.stderr, result.stderr
    assert "Traceback" not in result.output and "uncaught" not in result.output


def test_a_spaced_team_id_is_taken_without_its_spaces(here: Path) -> None:
    result = CliRunner().invoke(main, ["stats", "--team", " T0QA10 ", "--json"])
    assert result.exit_code == 0, result.output
    assert "nothing recorded for 'T0QA10'" in result.stderr


def _settings(**values: str) -> Settings:
    return Settings(slack_signing_secret="s", database_url="sqlite://", _env_file=None, **values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("token", "said"),
    [
        ("xoxp-1234-5678-qa10secret", "but a user token (xoxp-…)"),
        ("xapp-1-A0-qa10secret", "but an app-level token (xapp-…)"),
        ("qa10secret", "not a bot token:"),
    ],
)
def test_the_bot_token_must_be_a_bot_token(token: str, said: str) -> None:
    with pytest.raises(ConfigError) as refused:
        door_for(_settings(slack_bot_token=token))
    message = str(refused.value)
    assert "SLACK_BOT_TOKEN is not a bot token" in message and said in message, message
    assert "qa10secret" not in message  # never the token


@pytest.mark.parametrize("token", [BOT_TOKEN, "xoxb-1", "xoxe.xoxb-1-rotating"])
def test_bot_tokens_and_the_stand_ins_are_taken(token: str) -> None:
    assert door_for(_settings(slack_bot_token=token)) == "http"


@pytest.fixture
def drafted(here: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A catalog copy (``CATALOG_DIR``) with two drafts imported: ``gemma`` (a link with tracking
    parameters) and one whose id comes from its title (its URL's last part is a number)."""
    root = catalog_copy(here / "catalog")
    monkeypatch.setenv("CATALOG_DIR", str(root))
    feed = here / "feed.xml"
    gemma = "https://example.com/gemma?utm_source=x&amp;fbclid=abc&amp;id=3&amp;gclid=g&amp;utm_medium=y"
    feed.write_text(
        atom(
            [
                entry("Serving a New Gemma Family with vLLM", gemma, "2026-12-04", "Gemma on vLLM.", CONTENT),
                entry("Speculative Drafting Notes From a Team", "https://example.org/p/12", "2026-12-03", "vLLM."),
            ]
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["catalog", "import", str(feed), "--write"])
    assert result.exit_code == 0, result.output
    return root


def test_accept_reports_every_problem_of_its_options_at_once(drafted: Path) -> None:
    result = CliRunner().invoke(main, ["catalog", "accept", "gemma", "--track", "nope"])
    assert result.exit_code == 1, result.output
    error = result.stderr.strip()
    assert error.count("error:") == 1, error
    assert "a new post needs its summary in our own words" in error, error
    assert "unknown track 'nope': name one with --track (" in error and "spec" in error, error
    assert error.endswith("nothing written"), error
    again = CliRunner().invoke(main, ["catalog", "accept", "gemma", "--position", "999", "--prompt", "Why?"])
    assert "needs its summary" in again.stderr and "--prompt-zh is required with --prompt" in again.stderr
    assert "position 999 is outside 1.." in again.stderr, again.stderr
    assert (drafted / "drafts" / "gemma.yaml").is_file()  # nothing accepted


def test_a_drafts_link_has_no_tracking_parameters(drafted: Path) -> None:
    draft = yaml.safe_load((drafted / "drafts" / "gemma.yaml").read_text(encoding="utf-8"))
    assert draft["url"] == "https://example.com/gemma?id=3"
    listed = CliRunner().invoke(main, ["catalog", "drafts"]).output
    assert "utm_" not in listed and "fbclid" not in listed and "gclid" not in listed, listed


def test_rejecting_twice_says_already_rejected_whatever_the_drafts_id(drafted: Path) -> None:
    ids = sorted(p.stem for p in (drafted / "drafts").glob("*.yaml"))
    titled = next(i for i in ids if i != "gemma")
    assert titled.startswith("speculative-drafting"), ids  # named from its title, not its URL
    for draft in (titled, "gemma"):
        first = CliRunner().invoke(main, ["catalog", "reject", draft])
        assert first.exit_code == 0 and first.output.startswith(f"rejected {draft}:"), first.output
        second = CliRunner().invoke(main, ["catalog", "reject", draft])
        assert (second.exit_code, second.output.strip()) == (0, f"{draft} was already rejected"), second.output
    never = CliRunner().invoke(main, ["catalog", "reject", "never-drafted"])
    assert never.exit_code == 1 and "no draft 'never-drafted'" in never.stderr


def test_run_now_checks_the_track_before_the_credentials(here: Path) -> None:
    result = CliRunner().invoke(main, ["digest", "run-now", "--track", "nope"])
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--track': no track matches 'nope'; tracks: " in result.stderr
    assert "spec" in result.stderr and "credentials" not in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("typed", "cleaned"),
    [
        ("spec\x1b[31mred", "spec red"),
        ("spec\x1b[0;1;31mred\x1b[0m", "spec red"),
        ("a\x00b\x07c\x7fd", "a b c d"),
        ("x\x1b]0;title\x07y", "x y"),
        ("tab\there\nnext", "tab here next"),
        ("plain words", "plain words"),
    ],
)
def test_control_characters_are_spaces_and_escape_sequences_go_whole(typed: str, cleaned: str) -> None:
    assert clean(typed) == cleaned


def test_a_coloured_word_is_echoed_as_a_word(here: Path) -> None:
    result = CliRunner().invoke(main, ["ask", "spec\x1b[31mred"])
    assert result.exit_code == 0, result.output
    assert "[31m" not in result.output and "spec red" in result.output, result.output
