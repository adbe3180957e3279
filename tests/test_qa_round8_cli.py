"""QA round 8, the CLI: ``serve --threads 0`` logged "listening" yet never answered ``/healthz``,
``--port 99999`` listened on a port of chance and ``--port -1`` blamed Slack's Web API: each is a
usage error (exit 2) now, as ``worker --threads`` is; ``search vllm --offset 100`` said "No post
matches" of 100 matches (the total is capped at 100) and ``search ''`` exited 0."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bot.cli.main import main
from bot.config import Settings
from bot.doors.serve import ConfigError, serve


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--threads", "0"], "'--threads': 0 is not in the range 1<=x<=256"),
        (["--threads", "-5"], "'--threads': -5 is not in the range 1<=x<=256"),
        (["--threads", "257"], "'--threads': 257 is not in the range 1<=x<=256"),
        (["--port", "99999"], "'--port': 99999 is not in the range 0<=x<=65535"),
        (["--port", "65536"], "'--port': 65536 is not in the range 0<=x<=65535"),
        (["--port", "-1"], "'--port': -1 is not in the range 0<=x<=65535"),
    ],
)
def test_serve_refuses_threads_and_ports_out_of_range(args, said):
    result = CliRunner().invoke(main, ["serve", *args])
    assert result.exit_code == 2, result.output
    assert said in result.stderr and "serve [OPTIONS]" in result.stderr, result.stderr
    assert "Slack" not in result.stderr and "listening" not in result.output


@pytest.mark.parametrize(("options", "said"), [({"port": 65536}, "port 65536"), ({"threads": 0}, "threads 0")])
def test_serve_called_as_a_function_refuses_them_before_starting(options, said):
    # a database that cannot open: were the range not checked first, the start would fail there instead
    db = "postgresql+psycopg://nobody@127.0.0.1:1/none"  # port 1: refused at once
    settings = Settings(slack_signing_secret="s", slack_bot_token="xoxb-1", database_url=db, _env_file=None)
    with pytest.raises(ConfigError, match=said):
        serve(settings, **options)


def test_an_offset_past_the_kept_matches_says_so_not_no_match():
    result = CliRunner().invoke(main, ["search", "vllm", "--limit", "5", "--offset", "100"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "No post matches" not in out, out
    assert "--offset 100 is past the first 100 good matches listed for 'vllm'; the last page: --offset 95" in out
    page = CliRunner().invoke(main, ["search", "vllm", "--limit", "5", "--offset", "95"]).stdout
    assert page.startswith("96. "), page


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_search_is_a_usage_error(query):
    result = CliRunner().invoke(main, ["search", query])
    assert result.exit_code == 2, result.output
    assert "QUERY is empty: give words to search for, e.g. `vllm-path search nixl`" in result.stderr
    assert CliRunner().invoke(main, ["search", "?!"]).exit_code == 0  # punctuation only: no results, as before
