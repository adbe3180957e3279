"""The catalog data answers the searches people make for the blog's concept posts (issue 11).

These run the real matcher over the repository's catalog through the CLI; they fail if a post's
title, tags or aliases stop leading its search."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bot.cli.main import main


@pytest.mark.parametrize(
    "query, expected",
    [
        ("pagedattention", "vllm-pagedattention-launch"),
        ("paged attention", "vllm-pagedattention-launch"),
        ("structured decoding", "struct-decode-intro"),
        ("structured output", "struct-decode-intro"),
        ("anatomy of vllm", "anatomy-of-vllm"),
        ("extracting hidden states", "extract-hidden-states"),
        ("elastic expert parallelism", "elastic-expert-parallelism"),
        ("production-stack", "stack-release"),
    ],
)
def test_the_right_post_comes_first(query: str, expected: str) -> None:
    result = CliRunner().invoke(main, ["search", query, "--json"])
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)["results"]
    assert results and results[0]["post_id"] == expected, (query, [r["post_id"] for r in results])
