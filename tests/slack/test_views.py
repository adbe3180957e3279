"""Every message and view the app renders is valid Block Kit within Slack's limits, and never
carries a mention, a channel ping or a link that the catalog did not put there."""

from __future__ import annotations

import re

import pytest

from bot.domain.catalog import load_catalog
from bot.domain.paths import track_state
from bot.domain.schedule import WeeklySchedule
from bot.domain.search import Matcher
from bot.slack.views import home
from bot.slack.views import messages as views
from bot.slack.views import search as search_views
from tests.evaldata import REPO
from tests.standin.blockkit import BlockKitError, validate_blocks

CATALOG = load_catalog(REPO / "catalog")
MATCHER = Matcher(CATALOG)
EVERYTHING = {p.id for p in CATALOG.posts}
CATALOG_URLS = (
    {CATALOG.url_of(p) for p in CATALOG.posts}
    | {x.url for t in CATALOG.tracks for s in t.steps for x in s.external_prerequisites}
    | {CATALOG.manifest.archive_url}
)  # the blog's archive, linked for a post with no URL yet
LIVE = re.compile(r"<(?P<body>[^>]*)>")


def assert_safe(payload_blocks: list[dict], text: str, surface: str = "message") -> None:
    validate_blocks(payload_blocks, surface)
    blob = str(payload_blocks) + text
    for m in LIVE.finditer(blob):
        body = m.group("body")
        if re.match(r"^#[CG][A-Z0-9]+$", body):
            continue  # a channel reference from our own subscription table
        assert not body.startswith(("!", "@", "#")), body
        url = body.split("|", 1)[0]
        assert url in CATALOG_URLS, body


@pytest.mark.parametrize("track_id", [t.id for t in CATALOG.tracks])
@pytest.mark.parametrize("read", ["nothing", "half", "everything"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_track_message_fits(track_id, read, lang):
    order = CATALOG.order(track_id)
    done = {"nothing": set(), "half": set(order[: len(order) // 2]), "everything": EVERYTHING}[read]
    for followed in (True, False):
        reply = views.track_reply(CATALOG, track_state(CATALOG, track_id, done), lang, followed=followed)
        assert_safe(reply.blocks, reply.text)
        assert reply.response_type == "ephemeral"
    shared = views.track_reply(CATALOG, track_state(CATALOG, track_id, done), lang, followed=False, shared=True)
    assert shared.response_type == "in_channel"
    assert_safe(shared.blocks, shared.text)
    assert "actions" not in {b["type"] for b in shared.blocks}


def test_track_message_marks_progress_and_next():
    order = CATALOG.order("spec")
    reply = views.track_reply(CATALOG, track_state(CATALOG, "spec", {order[0]}), "en", followed=False)
    text = str(reply.blocks)
    assert views.ICON_READ in text and views.ICON_NEXT in text
    # The next step is the second one of the path; its Mark read button carries its id.
    buttons = [e for b in reply.blocks if b["type"] == "actions" for e in b["elements"]]
    assert any(order[1] in e["value"] for e in buttons if e["action_id"].startswith("mark_read"))
    done = views.track_reply(CATALOG, track_state(CATALOG, "spec", EVERYTHING), "en", followed=True)
    assert "whole path" in str(done.blocks)


@pytest.mark.parametrize(
    "query",
    [
        "nixl",
        "eagle",
        "量化",
        "x" * 3000,
        "<!channel> & <@U123> <https://evil.example|click>",
        "\u202eevil",
        "&",
        "",
        "🙂" * 500,
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_search_message_fits_and_escapes(query, lang):
    result = MATCHER.search(query, limit=5)
    reply = search_views.search_reply(CATALOG, query, result, set(), lang)
    assert_safe(reply.blocks, reply.text)
    assert "<!channel>" not in str(reply.blocks) and "<@U123>" not in str(reply.blocks)


def test_next_and_help_and_subscriptions_fit():
    all_tracks = [t.id for t in CATALOG.tracks]
    for read in (set(), EVERYTHING):
        reply = views.next_reply(CATALOG, [track_state(CATALOG, t, read) for t in all_tracks], "en")
        assert_safe(reply.blocks, reply.text)
    for lang in ("en", "zh"):
        reply = views.help_reply(CATALOG, lang)
        assert_safe(reply.blocks, reply.text)


def test_home_view_fits_however_much_is_read():
    class Sub:
        def __init__(self, i):
            self.channel_id, self.track_id, self.weekday, self.at_time = f"C{i:08d}", "spec", 0, "09:00"
            self.timezone, self.steps_per_week, self.cursor = "Europe/Berlin", 1, 3
            self.status, self.pause_reason = ("paused", "channel_not_found") if i % 2 else ("active", None)
            self.schedule = WeeklySchedule.of(self.weekday, self.at_time, self.timezone)

    for read in (set(), EVERYTHING):
        state = home.HomeState(
            following=[track_state(CATALOG, t.id, read) for t in CATALOG.tracks],
            read=read,
            dm=None,
            channel_subs=[Sub(i) for i in range(300)],
            lang="zh",
        )
        view = home.home_view(CATALOG, state)
        assert view["type"] == "home"
        assert_safe(view["blocks"], "", surface="home")


def test_the_block_kit_checker_rejects_what_slack_would():
    block = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}}
    with pytest.raises(BlockKitError):
        validate_blocks([block] * 51)
    validate_blocks([block] * 51, surface="home")
    with pytest.raises(BlockKitError):
        validate_blocks([{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}])
    button = {"type": "button", "text": {"type": "plain_text", "text": "b"}, "action_id": "a"}
    with pytest.raises(BlockKitError):
        validate_blocks([{"type": "actions", "elements": [button, dict(button)]}])


def test_no_string_of_ours_carries_live_syntax():
    """Every i18n string (digests' too) is mrkdwn: a literal `<…>` in one would be parsed by Slack."""
    from tests.messages import LANGS, messages

    for lang in LANGS:
        for key, text in messages(lang).items():
            if key.startswith(("web.", "page.", "scope.", "failure.", "console.")):
                continue  # HTML pages (escaped by Jinja2) and the console's terminal, not mrkdwn
            assert "<" not in text and ">" not in text, key


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_card_of_a_post_shows_its_reading_time(lang):
    """A search result, the next read, a reminder and a link's unfurl each say how long the post
    takes (``12 min`` counted, ``~12 min`` estimated), as the track's steps and the digests do."""
    from bot.slack.views.plan import minutes_label
    from bot.slack.views.reminders import reminder_message
    from bot.slack.views.unfurl import post_unfurl

    nixl = MATCHER.search("nixl", limit=5)
    cards = [
        (r.post_id, str(search_views.search_reply(CATALOG, "nixl", nixl, set(), lang).blocks)) for r in nixl.results
    ]
    first = CATALOG.order("spec")[0]
    cards.append(
        (first, str(views.next_reply(CATALOG, [track_state(CATALOG, t, set()) for t in ["spec"]], lang).blocks))
    )
    post = CATALOG.post(first)
    cards.append((first, str(reminder_message(CATALOG, first, lang).blocks)))
    cards.append((first, str(post_unfurl(CATALOG, first, lang)["blocks"])))
    timed = [(pid, blob) for pid, blob in cards if CATALOG.post(pid).minutes is not None]  # some have none yet
    assert post.minutes is not None and len(timed) >= 4
    for post_id, blob in timed:
        label = str(minutes_label(CATALOG.post(post_id), lang))
        assert label in blob, (post_id, label)


def test_every_string_has_its_chinese_and_the_compiled_catalogs_are_current():
    """Strings are data (gettext ``.po`` sources, compiled ``.mo``): a key English has and Chinese
    lacks is a failure, and so is a ``.mo`` older than its ``.po`` (run ``make messages``)."""
    import gettext

    from bot.i18n import DOMAIN, LOCALE_DIR
    from tests.messages import messages

    english, chinese = messages("en"), messages("zh")
    assert set(english) == set(chinese)
    assert [k for k, v in english.items() if v == k] == []  # bot.i18n.text tells a missing key by that
    assert [k for k, v in chinese.items() if not v.strip()] == []
    for lang, source in (("en", english), ("zh", chinese)):
        with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as fh:
            compiled = gettext.GNUTranslations(fh)
        stale = [k for k, v in source.items() if compiled.gettext(k) != v]
        assert stale == [], f"{lang}: run make messages ({stale[:3]})"
