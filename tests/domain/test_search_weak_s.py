"""The classes of misses of the holdout rounds r and s (2026-12-07), on the repo's catalog, each asked
in other words than the rounds' rows. Round s asks without the field's words (symptoms and goals in
plain words): such a question holds no field term, so the on-topic decision refused it although a
post's curated questions say the same thing (bot/domain/search/plain.py answers it from them, as
closest); plain descriptions of field concepts (google's cloud chips, our own AI chip, 存储桶,
适配器, a page in a browser with no terminal) are glossary forms; a learning request in plain words
names its track. Round r: an API path (``/v1/embeddings``) is the OpenAI-compatible API, not the V1
engine, and beside another tool's name and its own settings the question is that tool's."""

from __future__ import annotations

from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused
from tests.domain.search_asks import topic as _topic
from tests.domain.search_asks import track as _track


def test_a_plain_words_question_the_curated_questions_answer_is_shown(matcher):
    """No field term, but most of its words are those of a curated question of the post on Ray's
    symmetric run (one command on every node, no head and worker setup): shown, as closest."""
    query = (
        "can one launch command run the same on every box, with no head node or worker setup, "
        "to put one model across two machines"
    )
    result = matcher.search(query)
    assert [r.post_id for r in result.results][:1] == ["ray-symmetric-run"]
    assert result.confidence == "closest"


def test_a_plain_words_question_off_the_field_stays_refused(matcher):
    """The curated questions share a few everyday words with anything: a question sharing no more
    than those (``same``, ``every``, ``wait``) is still refused."""
    assert _refused(matcher, "how do we get the whole family to the same restaurant every sunday without a long wait")
    assert _refused(matcher, "our dog waits by the door every evening, is that separation anxiety")


def test_plain_descriptions_of_field_concepts_find_their_posts(matcher):
    """A chip of one's own is a hardware plugin; a storage bucket holding adapter files is LoRA
    weights on object storage; a page opened in a browser with no terminal is a web interface."""
    assert _ids(matcher, "我们想给自研芯片接入推理引擎，不想fork代码", 1) == ["hardware-plugin"]
    assert _ids(matcher, "推理端从存储桶里加载适配器文件，可以吗", 1) == ["hf-async-grpo-lora"]
    assert _ids(matcher, "is there a page i can open in a browser to chat with a model, no terminal", 1) == [
        "vllm-playground"
    ]
    assert not _refused(matcher, "per user typing speed is too slow for our coding tool")


def test_an_api_path_is_the_openai_api_not_the_v1_engine(matcher):
    """``/v1/embeddings`` is a path of the OpenAI-compatible API (the apis track), not ``v1``, the
    V1 engine; beside Ollama and its own settings (``num_ctx``, ``Modelfile``) the path is Ollama's."""
    assert _track(matcher, "POST /v1/embeddings returns 404 behind our proxy") == "apis"
    assert "vllm-v1" not in _ids(matcher, "POST /v1/embeddings returns 404 behind our proxy")
    assert _refused(matcher, "ollama ignores num_ctx from my Modelfile on the /v1/chat/completions endpoint")
    assert _ids(matcher, "vllm v1 engine scheduler", 1) == ["vllm-v1"]


def test_a_learning_request_in_plain_words_names_its_track(matcher):
    """A small model proposing next tokens that the big one approves is speculative decoding;
    measuring how fast a deployment is, benchmarking; building from source and fixing a first bug,
    the developers track."""
    assert (
        _topic(matcher, "I want to learn how a small model proposes next tokens and the big model approves them")
        == "spec"
    )
    assert _topic(matcher, "want to learn: measure how fast our deployment is under load") == "benchmarking"
    assert _topic(matcher, "where to start if i want to build it from source and fix my first bug") == "developers"
