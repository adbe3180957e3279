""":func:`bot.slack.mrkdwn.truncate` cuts at a word's end where one is near (QA round 10: search
summaries ended "how to measu…"), and where it must be otherwise."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.slack.mrkdwn import truncate


def test_text_is_cut_at_the_end_of_a_word():
    text = "Shows how to measure throughput and latency of a served model under load"
    cut = truncate(text, 40)
    assert cut == "Shows how to measure throughput and…", cut


def test_text_without_a_space_near_the_limit_is_cut_where_it_must_be():
    assert truncate("https://example.com/" + "a" * 80, 30) == ("https://example.com/" + "a" * 80)[:29] + "…"
    assert truncate("推测解码让小模型先起草再由大模型验证" * 3, 10) == ("推测解码让小模型先起" + "")[:9] + "…"
    assert truncate("a " + "b" * 50, 20) == "a " + "b" * 17 + "…"  # the only space is too early: no "a…"


def test_text_is_cut_after_a_whole_sentence_in_the_second_half():
    text = "P-EAGLE drafts every token of a step at once. An example trains in about 50 minutes on four H100s."
    assert truncate(text, 70) == "P-EAGLE drafts every token of a step at once. …"
    assert truncate("推测解码让小模型先起草。再由大模型验证全部草稿，输出完全一致。", 20) == "推测解码让小模型先起草。…"
    assert truncate("vLLM v0.6.0 improves throughput 2.7x and latency 5x over v0.5.3", 40) == (
        "vLLM v0.6.0 improves throughput 2.7x…"  # no sentence ends at "v0.": a word end
    )


def test_text_that_fits_is_unchanged():
    assert truncate("short text", 10) == "short text"


@given(st.text(max_size=200), st.integers(min_value=1, max_value=120))
def test_a_cut_text_fits_and_is_a_prefix(text, limit):
    cut = truncate(text, limit)
    assert len(cut) <= limit
    if cut != text:
        assert cut.endswith("…") and text.startswith(cut[:-1].rstrip()[: max(0, len(cut) - 1)].rstrip())
