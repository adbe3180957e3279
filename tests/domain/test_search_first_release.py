"""A question asking for a product's first release (``first major release``, ``initial release``,
``第一个版本``, ``首个大版本``, ``首发版本``) prefers, among that product's close matches, the post saying
it is its first release (:mod:`bot.domain.search.firsts`): a Semantic Router question on its first
big release had the signal-decision redesign before the v0.1 "Iris" release post. Guards: a question
on a later or the latest release, naming a version, asking what came since the first release, or
with no first word, is ranked as before."""

from __future__ import annotations

import pytest

import bot.domain.search.firsts as firsts
from bot.domain.catalog import Catalog
from bot.domain.search import Matcher
from bot.domain.search.analysis import _Unit, normalize
from bot.domain.search.firsts import asks_first_release, first_release_first, says_first_release

FIRST = "semantic-router-iris"
"""The post on Semantic Router's first major release, v0.1 "Iris"."""


def _asks(matcher: Matcher, query: str) -> bool:
    return asks_first_release(matcher._units(normalize(query), query=True))


def _scored(matcher: Matcher, query: str) -> list[tuple[str, float]]:
    return [(r.post_id, round(r.score, 3)) for r in matcher.search(query, limit=5).results]


@pytest.mark.parametrize(
    "query",
    [
        "semantic router first major release",
        "what was in the first release of the semantic router",
        "the first big semantic router release with signals and plugins",
        "which post covers the first semantic router release with one-command install",
        "initial semantic router release with plugin chain and signals",
        "semantic router debut release notes",
        "semantic router 的第一个版本有哪些功能",
        "semantic router 首个大版本 插件 信号",
        "semantic router 首发版本 一键安装",
        "语义路由 第一个版本 发布了什么",
    ],
)
def test_a_first_release_question_gets_the_post_saying_it_is_the_first_release(matcher, query):
    assert _asks(matcher, query)
    assert _scored(matcher, query)[0][0] == FIRST, _scored(matcher, query)


@pytest.mark.parametrize(
    "query",
    [
        "the first big semantic router release with signals and plugins",  # tied with the redesign before
        "which post covers the first semantic router release with one-command install",
        "semantic router 首发版本 一键安装",
        "语义路由 第一个版本 发布了什么",
    ],
)
def test_the_first_release_post_moves_ahead_of_the_products_other_posts(matcher, query, monkeypatch):
    """The post saying it is the first release gains over its own ranking and is then strictly ahead."""
    monkeypatch.setattr(firsts, "FIRST_RELEASE_BONUS", 0.0)
    plain = dict(_scored(matcher, query))
    monkeypatch.undo()
    scored = _scored(matcher, query)
    assert scored[0][0] == FIRST and scored[0][1] > plain[FIRST], (scored, plain)
    assert scored[0][1] > scored[1][1], scored


@pytest.mark.parametrize(
    "query",
    [
        "what is new in the latest semantic router release",
        "semantic router v0.3 release",
        "semantic router release with plugin chain and signals",
        "what changed since the first release of semantic router",
        "first post about semantic router",
        "first vllm meetup in korea",
        "semantic router 的最新版本",
    ],
)
def test_a_later_release_or_no_first_release_question_is_ranked_as_before(matcher, query, monkeypatch):
    assert not _asks(matcher, query)
    before = _scored(matcher, query)
    monkeypatch.setattr(firsts, "FIRST_RELEASE_BONUS", 0.0)
    assert _scored(matcher, query) == before


def test_posts_say_they_are_a_first_release_in_words_or_by_version(catalog: Catalog):
    def says(post_id: str) -> bool:
        post = catalog.post(post_id)
        return says_first_release(post.title, f"{post.summary.en} {post.summary.zh}")

    assert says(FIRST)
    assert not says("semantic-router-themis")  # v0.3
    assert not says("semantic-router-launch")  # the first post on it, no release
    assert not says("korea-meetup")  # the first meetup
    assert says_first_release("Foo Server 1.0: generally available", "")
    assert says_first_release("Bar", "Bar 的首个正式版本")
    assert not says_first_release("vLLM V1: A Major Upgrade to vLLM's Core Architecture", "")  # an engine, no 1.0


def test_only_close_matches_gain():
    """Another product's first release far below the best (its score under the share) does not gain."""
    texts = {0: ("Foo v0.3", ""), 1: ("Foo v0.1: The First Major Release", ""), 2: ("Bar v0.1", "")}
    asked = [_Unit("foo", "latin"), _Unit("first", "latin"), _Unit("release", "latin")]
    ranked = [(90.0, 0, "title", 1.0), (85.0, 1, "title", 1.0), (50.0, 2, "title", 1.0)]
    out = first_release_first(ranked, asked, texts.__getitem__)
    assert [r[1] for r in out] == [1, 0, 2]
    assert out[0][0] == 85.0 + firsts.FIRST_RELEASE_BONUS and out[2][0] == 50.0
    assert first_release_first(ranked, asked[:1] + asked[2:], texts.__getitem__) == ranked
