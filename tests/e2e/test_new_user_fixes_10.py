"""The reader's commands, what a new user's tenth break test and the roadmap left over found, end to
end through the HTTP door (signed requests, the stand-in Slack, the real store and catalog): a
question about another tool offers ``search WORDS`` only when those words alone find posts."""

from __future__ import annotations

from tests.e2e.helpers import reply_text

_text = reply_text


def test_a_search_offered_for_the_known_words_finds_posts(slack):
    # "fine tune llama" finds nothing either: no dead-end offer, the catalog's tracks instead
    reply = _text(slack, "fine-tune llama with unsloth")
    assert "search fine tune llama" not in reply, reply
    assert "none of it is on that" in reply, reply
    # "deepseek" finds posts: offered
    reply = _text(slack, "how to speed up deepseek with unsloth")
    assert "search deepseek" in reply, reply
    assert "deepseek" in _text(slack, "search deepseek").lower()


def test_a_word_that_is_no_track_names_the_track_its_posts_are_in(slack):
    reply = _text(slack, "follow fp8")
    assert "No track matches" in reply and "`/vllm-path follow quant`" in reply, reply
    assert "You now follow" not in reply, reply  # a hint, not a guess acted on
    assert "`/vllm-path subscribe spec`" in _text(slack, "subscribe eagle")
    assert "/vllm-path unfollow" not in _text(slack, "unfollow fp8")  # undoing: nothing to point at
    slack.ask("lang zh")
    assert "`/vllm-path follow quant`" in _text(slack, "follow fp8")


def test_curly_quotes_read_as_straight_ones(slack):
    # Slack on macOS and iOS turns ' into ’ as one types
    marked = _text(slack, "i’ve read p-eagle")
    assert "Marked read" in marked, marked
    newest = _text(slack, "what’s new?")
    assert "Newest posts" in newest, newest
    assert "Newest posts in" in _text(slack, "what’s new in quant")


def test_the_link_of_a_summarised_article_is_that_post(slack):
    url = "https://www.redhat.com/en/blog/llm-quantization-guide-how-to-do-it-and-how-it-helps?utm_campaign=z"
    reply = _text(slack, url)
    assert "redhat-quantization-guide" in reply, reply
    assert "none of it is on that" not in reply, reply
    # cut short on the summary host: the article's longer slug still finds it, not the track its words name
    url = "https://developers.redhat.com/articles/understanding-w8a8-int8-llm-quantization-accuracy-and-performance-results"
    reply = _text(slack, url)
    assert "Understanding W8A8 INT8 LLM quantization: Accuracy" in reply, reply


def test_follow_prefix_guesses_no_track_that_is_not_its_posts(slack):
    reply = _text(slack, "follow prefix")
    assert "No track matches" in reply and "follow pd" not in reply, reply


def test_two_tracks_side_by_side_show_where_each_starts(slack):
    reply = _text(slack, "quantization vs speculative decoding")
    assert "are separate tracks" in reply and "`/vllm-path quant`" in reply and "`/vllm-path spec`" in reply, reply
    assert "Quantization*: 0 of" in reply and "Speculative decoding*: 0 of" in reply, reply
    # one subject, or a word that is no track: the search as before
    assert "redhat-vllm-vs-sglang" in _text(slack, "vllm vs sglang")
    # QA round 12: framed, three at once, no spaces around 和, a trailing 的区别
    assert "`/vllm-path pd`" in _text(slack, "compare spec and pd")
    three = _text(slack, "spec vs pd vs quant")
    assert all(f"`/vllm-path {tid}`" in three for tid in ("spec", "pd", "quant")), three
    slack.ask("lang zh")
    assert "是不同的主题" in _text(slack, "spec 还是 quant")
    assert "是不同的主题" in _text(slack, "spec和pd")
    assert "是不同的主题" in _text(slack, "推测解码和量化的区别")


def test_an_unknown_articles_link_finds_the_posts_on_its_words(slack):
    # QA round 11: an article the catalog knows by its summary page only, under another slug
    url = "https://www.redhat.com/en/blog/vllm-vs-sglang-choosing-right-inference-engine-your-workload?utm_source=x"
    reply = _text(slack, url)
    assert "no post of the catalog" in reply and "redhat-vllm-vs-sglang" in reply, reply
    assert "none of it is on that" not in _text(slack, "https://docs.vllm.ai/en/latest/features/spec_decode.html")
    refused = _text(slack, "https://example.com/blog/index.html")  # no words to go by: no post of ours
    assert "no post of the catalog" in refused and "none of it is on that" not in refused, refused
    # QA round 12: a vLLM pull request is no off-topic question either; a post's link is headed as the post
    assert "no post of the catalog" in _text(slack, "https://github.com/vllm-project/vllm/pull/12345")
    known = _text(slack, "https://vllm-project.github.io/2026/03/13/p-eagle.html?utm_source=x#results")
    assert "The post at that link" in known and "utm_source" not in known.split("\n")[0], known


def test_follow_a_word_whose_posts_are_spread_names_their_tracks(slack):
    reply = _text(slack, "follow prefix caching")  # QA round 12: only the list of every track
    assert "several tracks" in reply and "`/vllm-path search prefix caching`" in reply, reply
    assert "You now follow" not in reply, reply
