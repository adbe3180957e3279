"""QA round 7, the CLI: ``vllm-path next`` takes a misspelt track as chat's did-you-mean does (said
on stderr) and several tracks as chat's ``next spec pd`` does; words naming no track stay a usage
error."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bot.cli.main import main


def test_next_takes_a_misspelt_track_as_the_track_chat_suggests():
    result = CliRunner().invoke(main, ["next", "spc"])
    assert result.exit_code == 0, result.output
    assert "Taking 'spc' as spec" in result.stderr
    assert result.stdout.startswith("Speculative decoding (spec):"), result.stdout


def test_next_answers_each_of_several_tracks_and_a_two_word_name_as_one():
    result = CliRunner().invoke(main, ["next", "spec", "pd", "--json"])
    assert result.exit_code == 0, result.output
    assert [doc["track"]["id"] for doc in json.loads(result.stdout)] == ["spec", "pd"]
    text = CliRunner().invoke(main, ["next", "spec", "pd"]).stdout
    assert "Speculative decoding (spec):" in text and "PD disaggregated serving (pd):" in text
    one = CliRunner().invoke(main, ["next", "speculative", "decoding", "--json"])
    assert json.loads(one.stdout)["track"]["id"] == "spec", one.output


def test_words_naming_no_track_are_still_refused():
    result = CliRunner().invoke(main, ["next", "spec", "qqqzzz"])
    assert result.exit_code == 2 and "no track matches 'qqqzzz'" in result.stderr, result.output


def test_catalog_show_uses_the_readers_words():
    for track in ("quant", "pd"):
        result = CliRunner().invoke(main, ["catalog", "show", track])
        assert result.exit_code == 0, result.output
        out = result.stdout
        for curators in ("[core]", "[capstone]", "[intro]", ")  (closes the path)", "first know", "URL not known"):
            assert curators not in out, (track, curators)
        assert "[essential]" in out and "[further reading]" in out
    pd = CliRunner().invoke(main, ["catalog", "show", "pd"]).stdout
    assert "(no link yet: see the vLLM blog archive <" in pd and "(v0-disagg-prefill)" not in pd
    assert "    Background: " in pd and not __import__("re").search(r"\d{4}-\d\d-\d\d\.\.\d{4}", pd)


def test_digest_preview_says_no_cursor():
    result = CliRunner().invoke(main, ["digest", "preview", "--track", "quant"])
    assert result.exit_code == 0, result.output
    assert "cursor" not in result.stderr and "steps of the path sent after it" in result.stderr, result.stderr
