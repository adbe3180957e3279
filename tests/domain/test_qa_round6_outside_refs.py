"""QA round 6: a reference outside the catalog without a link showed an internal id ("… connector
(v0-disagg-prefill)") and nothing to open. Every door now names it by its title without the id and
with the catalog post its note says covers the same ground (real catalog)."""

from __future__ import annotations

import re

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog import load_catalog
from bot.domain.catalog.models import ExternalPrerequisite, LocalizedText
from bot.domain.outside_refs import covering_post, reference_title
from bot.domain.paths import track_path
from bot.slack.mrkdwn import plain
from bot.slack.views.links import reference_lines
from bot.web.paths import references

CATALOG = load_catalog(DEFAULT_CATALOG_DIR)
SLUG_TAIL = re.compile(r"\((?=[0-9_-]*[a-z])[a-z0-9]+(?:[-_][a-z0-9]+)+\)")


def test_a_title_loses_an_id_shaped_tail_only() -> None:
    def ref(title: str) -> ExternalPrerequisite:
        return ExternalPrerequisite(title=title)

    assert reference_title(ref("The basic PD article (v0-disagg-prefill)")) == "The basic PD article"
    assert reference_title(ref("The push-connector article (2026-10-14)")) == "The push-connector article (2026-10-14)"
    assert reference_title(ref("Serving (the Easy Way)")) == "Serving (the Easy Way)"
    assert reference_title(ref("(v0-disagg-prefill)")) == "(v0-disagg-prefill)"  # nothing else to show


def test_the_covering_post_is_the_one_the_note_names() -> None:
    post = next(p for p in CATALOG.posts if ":" in p.title and len(p.title.split(":")[0].split()) >= 3)
    head = post.title.split(":")[0]
    named = ExternalPrerequisite(title="Old article", note=LocalizedText(en=f"Not here; {head} covers it."))
    assert covering_post(CATALOG, named) == post
    linked = named.model_copy(update={"url": "https://example.com/a"})
    assert covering_post(CATALOG, linked) is None  # a linked reference is opened itself
    assert covering_post(CATALOG, ExternalPrerequisite(title="Old article")) is None


def test_no_door_shows_an_internal_id_for_a_reference() -> None:
    seen = 0
    for track in CATALOG.tracks:
        for step in track_path(CATALOG, track.id).steps:
            if not (step.background or step.afterwards):
                continue
            seen += 1
            for lang in ("en", "zh"):
                slack = " ".join(plain(line) for line in reference_lines(CATALOG, step, lang))
                web = " ".join(str(line) for line in references(CATALOG, step, lang))
                assert not SLUG_TAIL.search(slack) and not SLUG_TAIL.search(web), (step.post_id, slack)
    assert seen


def test_the_pd_background_names_taking_vllm_apart() -> None:
    step = track_path(CATALOG, "pd").step("hybrid-ssm-disagg")
    cover = CATALOG.post("taking-vllm-apart")
    for lang in ("en", "zh"):
        slack = " ".join(plain(line) for line in reference_lines(CATALOG, step, lang))
        assert cover.title in slack and "v0-disagg-prefill" not in slack
