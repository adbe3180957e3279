"""The reading-time rule (bot.domain.catalog.reading_time) on small texts written for these tests."""

from __future__ import annotations

import pytest

from bot.domain.catalog.reading_time import WORDS_PER_MINUTE, body_of, count_words, file_minutes, reading_minutes


def test_front_matter_is_not_counted() -> None:
    text = "---\ntitle: one two three four\ntags:\n  - a\n---\nfive six\n"
    assert body_of(text) == "five six\n"
    assert count_words(body_of(text)).prose == 2


def test_a_file_without_front_matter_is_counted_whole() -> None:
    assert body_of("just words here\n") == "just words here\n"


def test_prose_words_and_punctuation_only_tokens() -> None:
    wc = count_words("# Heading here\n\nvLLM is 2.8x faster -- really | ** => P/D.\n")
    # Heading, here, vLLM, is, 2.8x, faster, really, P/D.  ("--", "|", "**", "=>", "#" are not words)
    assert (wc.prose, wc.code, wc.cjk) == (8, 0, 0)


def test_fenced_code_counts_half() -> None:
    body = "run this:\n\n```bash\nvllm serve model --port 8000\n```\n\ndone\n"
    wc = count_words(body)
    assert wc.prose == 3  # run, this:, done
    assert wc.code == 5  # vllm, serve, model, --port, 8000
    assert wc.weighted == pytest.approx(3 + 0.5 * 5)


def test_tilde_fence_and_unclosed_fence() -> None:
    assert count_words("~~~\na b c\n~~~\nd\n").code == 3
    assert count_words("text\n```\na b\n").code == 2  # an unclosed fence runs to the end


def test_html_tags_and_comments_count_nothing_but_their_text_does() -> None:
    body = (
        '<p align="center"><img src="/assets/x.png" width="45%"></p>\n'
        "<!-- a hidden comment of many words -->\n<b>Bold words</b>\n"
        "<script>var a = 1; var b = 2;</script>\n{% include figure.html %}\n"
    )
    assert count_words(body).prose == 2


def test_images_links_and_urls() -> None:
    body = (
        "![the architecture](/assets/figures/arch.png) see [our repository](https://github.com/x/y) "
        "or https://example.com/a/b/c and <https://example.org>\n\n[ref]: https://example.net\n"
    )
    # the, architecture, see, our, repository, or, and
    assert count_words(body).prose == 7


def test_table_cells_count_but_pipes_and_rules_do_not() -> None:
    body = "| Model | Speed |\n|---|:---:|\n| Llama 3 | 2x |\n"
    assert count_words(body).prose == 5  # Model, Speed, Llama, 3, 2x


def test_cjk_characters_count_half() -> None:
    wc = count_words("推测解码很快。vLLM 支持\n")
    assert wc.cjk == 8  # 推测解码很快 and 支持; the full stop counts nothing
    assert wc.prose == 1
    assert wc.weighted == pytest.approx(1 + 4)


def test_minutes_round_up_with_a_minimum_of_one() -> None:
    assert reading_minutes("") == 1
    assert reading_minutes("word " * WORDS_PER_MINUTE) == 1
    assert reading_minutes("word " * (WORDS_PER_MINUTE + 1)) == 2
    code = "```\n" + "tok " * (4 * WORDS_PER_MINUTE) + "\n```\n"
    assert reading_minutes(code) == 2  # code counts half


def test_file_minutes_drops_the_front_matter() -> None:
    front = "---\ntitle: x\nsummary: " + "long " * 1000 + "\n---\n"
    assert file_minutes(front + "short body\n") == 1
