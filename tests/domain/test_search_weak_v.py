"""The classes of misses of the holdout round v (2026-12-07), on the repo's catalog, each asked in
other words than the round's rows. Round v showed learning requests in plain words (no field term,
so no topic track) refused although the posts their words are closest to belong to one track; a
short plain question whose every word but one is in one post refused by the post-level bar of
four shared words; and a web page's stylesheet cache and an online game's frame drops (网游, 掉帧)
shown posts for their field words (cache, deploy, 显存): other products' things (``other_names``
of ``catalog/vocabulary.yaml``)."""

from __future__ import annotations

from tests.domain.search_asks import ids as _ids
from tests.domain.search_asks import refused as _refused
from tests.domain.search_asks import topic as _topic
from tests.domain.search_asks import track as _track


def test_a_learning_request_in_plain_words_names_the_track_of_its_closest_posts(matcher):
    """A learning request (想入门) about continuing to train a model from reward scores and how the
    sampling step is built holds no field term; the posts its words are closest to are RL's."""
    assert _topic(matcher, "想入门：拿奖励分数继续训练模型的时候，生成样本那一步该怎么搭") == "rl"


def test_off_topic_learning_requests_in_plain_words_stay_refused(matcher):
    """Learning requests about baking, a guitar or a spreadsheet name no track and show no post."""
    for query in (
        "teach me to bake sourdough",
        "想学弹吉他从哪开始",
        "where do i start learning excel",
        "i want to learn how to knit warm socks",
        "想入门摄影，从哪开始学构图",
    ):
        assert _refused(matcher, query), query
        assert _track(matcher, query) is None, query


def test_a_short_plain_question_sharing_all_its_words_but_one_with_a_post_is_answered(matcher):
    """Four plain words (rebasing, patched, fork, stop): three are the plugin-system post's."""
    assert "vllm-plugin-system" in _ids(matcher, "how do i stop rebasing my patched fork", 3)


def test_short_everyday_questions_stay_refused(matcher):
    """Short questions with one or two field-looking words are no post's question."""
    assert _refused(matcher, "best laptop for students 2025")
    assert _refused(matcher, "家里路由器老是掉线怎么办")


def test_a_web_pages_stylesheet_cache_and_an_online_games_frame_drops_are_refused(matcher):
    """A site's css still cached after a release, a game dropping frames as graphics memory fills:
    another product's cache and a game, whatever field words (cache, deploy, 显存) they hold."""
    assert _refused(matcher, "our browser cache keeps serving the old css after each deploy, how to clear it")
    assert _refused(matcher, "网游团战一开显存就满了开始掉帧，材质要调低吗")


def test_the_serving_sense_of_the_same_words_is_still_answered(matcher):
    """Graphics memory filling up while serving still finds posts (no game named)."""
    assert _ids(matcher, "显存占满了，kv 缓存能不能放到内存里", 3)
