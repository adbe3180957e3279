"""Issues 25 and 40: the web pages as a person sees them in Chromium, at desktop (1280 px) and phone
(390 px) widths: title, scopes, links, no console errors, no horizontal scroll of the page on the
phone; the *Add to Slack* link followed to the stand-in's authorize page and back to the success
page; ``/`` landing on ``/paths``, whose tracks are cards; a path page read as a course page (time
plan, why each step is read here, the *Start this path in Slack* box, the picture inline with its
legend, its boxes linking to the posts and its text at least 10 px high on the phone, where the
picture scrolls sideways instead of shrinking; ``og:title``). Full-page screenshots are saved as
artifacts (see conftest)."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import ARTIFACTS

WIDTHS = (1280, 390)


def _open(browser, url: str, width: int):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    response = page.goto(url, wait_until="load")
    return context, page, response, errors


def _check_layout(page, width: int, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{name} at {width} px scrolls sideways ({scroll} px wide)"


@pytest.mark.parametrize("width", WIDTHS)
def test_install_page(browser, site, width) -> None:
    from tests.messages import messages

    reasons = {k.removeprefix("scope."): v for k, v in messages("en").items() if k.startswith("scope.")}

    url, _ = site
    context, page, response, errors = _open(browser, url + "/slack/install", width)
    try:
        assert response.status == 200
        assert page.title() == "Install vllm-path in Slack"
        assert page.locator("h1").inner_text() == "Install vllm-path in your Slack workspace"
        scopes = page.locator("ul.scopes li").all_inner_texts()
        assert scopes and all(any(s.startswith(f"{k}: {v}") for k, v in reasons.items()) for s in scopes)
        add = page.get_by_role("link", name="Add to Slack")
        assert add.is_visible() and "client_id=5151.1515" in add.get_attribute("href")
        _check_layout(page, width, "install")
        assert errors == []
    finally:
        context.close()


def test_add_to_slack_goes_through_the_stand_in_to_the_success_page(browser, site) -> None:
    url, standin = site
    context, page, _, errors = _open(browser, url + "/slack/install", 390)
    try:
        with page.expect_navigation():
            page.get_by_role("link", name="Add to Slack").click()
        assert re.match(re.escape(url) + r"/slack/oauth_redirect\?code=", page.url)  # via the stand-in
        assert page.title() == "vllm-path is installed"
        assert "/invite @vllm-path" in page.locator("main").inner_text()
        assert standin.calls("oauth.v2.access")[-1].response["ok"]
        _check_layout(page, 390, "success")
        page.set_viewport_size({"width": 1280, "height": 900})
        _check_layout(page, 1280, "success")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_paths_index(browser, site, width) -> None:
    url, _ = site
    context, page, response, errors = _open(browser, url + "/", width)
    try:
        assert response.status == 200 and page.url == url + "/paths"  # GET / lands on /paths
        assert page.title().startswith("Reading paths through the vLLM blog")
        cards = page.locator("ol.cards li.card")
        assert cards.count() >= 10
        facts = cards.first.locator(".facts").inner_text()
        assert re.fullmatch(
            r"(intro|core|advanced|capstone)( to \w+)? · Essential path: \d+ steps · (about )?\d+ min", facts
        )
        boxes = [cards.nth(i).bounding_box() for i in range(2)]
        assert all(b["width"] <= width for b in boxes)
        page.get_by_role("link", name=re.compile("Speculative")).first.click()
        page.wait_for_load_state("load")
        assert page.url.endswith("/paths/spec")
        page.goto(url + "/paths")
        _check_layout(page, width, "paths")
        assert errors == []
    finally:
        context.close()


SMALLEST_TEXT = """() => Math.min(...[...document.querySelectorAll('figure.path svg text')]
    .map(t => t.getBoundingClientRect().height).filter(h => h > 0))"""
SVG_LINKS = """() => [...document.querySelectorAll('figure.path svg a')]
    .map(a => a.href.baseVal || a.getAttribute('href') || a.getAttribute('xlink:href'))"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_path_page(browser, site, width, lang) -> None:
    url, _ = site
    context, page, response, errors = _open(browser, url + "/paths/spec" + ("?lang=zh" if lang == "zh" else ""), width)
    try:
        assert response.status == 200
        picture = page.locator("figure.path .picture")
        picture.scroll_into_view_if_needed()
        assert page.locator("figure.path svg").count() == 1
        assert len(picture.get_attribute("aria-label")) > 40
        assert picture.bounding_box()["width"] <= width
        heading = "核心路径" if lang == "zh" else "Essential path"
        assert page.get_by_role("heading", name=re.compile(heading)).is_visible()
        steps = page.locator("ol.steps li a[id^=step-]")
        assert steps.count() >= 5 and steps.first.get_attribute("href").startswith("http")
        # the picture keeps its natural size: its text stays legible, its box scrolls sideways
        smallest = page.evaluate(SMALLEST_TEXT)
        assert smallest >= 10, f"the picture's smallest text is {smallest:.1f} px high at {width} px"
        if width == 390:
            assert page.evaluate("document.querySelector('figure.path .picture').scrollWidth") > width
        _check_layout(page, width, f"path-spec-{lang}")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_path_page_reads_like_a_course(browser, site, width) -> None:
    url, _ = site
    context, page, response, errors = _open(browser, url + "/paths/spec", width)
    try:
        assert response.status == 200
        name = page.locator("h1").inner_text()
        og_title = page.locator('meta[property="og:title"]').get_attribute("content")
        assert name and name in og_title
        assert len(page.locator('meta[name="description"]').get_attribute("content")) > 40
        # the call to action, above the time plan and the picture, with the install page's link
        cta = page.locator("aside.cta")
        assert cta.is_visible() and "Start this path in Slack" in cta.inner_text()
        assert "/vllm-path follow spec" in cta.locator("code").inner_text()
        assert cta.get_by_role("link").get_attribute("href") == "/slack/install"
        plan = page.locator("section.plan")
        assert plan.is_visible() and "45 min a week" in plan.locator("h2").inner_text()
        weeks = plan.locator("li.week")
        assert weeks.count() >= 1 and weeks.first.locator("strong").inner_text() == "Week 1"
        assert cta.bounding_box()["y"] < plan.bounding_box()["y"] < page.locator("figure.path").bounding_box()["y"]
        # every step of the plan points at a step of the page, each step once
        targets = [a.get_attribute("href") for a in plan.locator("li.week a").all()]
        assert targets and len(targets) == len(set(targets))
        assert all(page.locator(t).count() == 1 for t in targets)
        # why each step is read here, with its level, date and source
        why = page.locator("ol.steps .why")
        assert why.count() >= 5 and why.first.is_visible() and why.first.inner_text().startswith("Why read it here:")
        facts = page.locator("ol.steps .facts").first.inner_text()
        assert re.match(r"(intro|core|advanced|capstone) · (after )?\d{1,2} \w{3} \d{4} · .+", facts), facts
        # the legend and the picture's links to the posts, the next step marked
        legend = page.locator("ul.legend li")
        assert legend.count() == 5 and all(t.strip() for t in legend.all_inner_texts())
        assert legend.first.is_visible()
        links = page.evaluate(SVG_LINKS)
        essential_links = [
            a.get_attribute("href") for a in page.locator("ol.steps:not(.further) li a[id^=step-]").all()
        ]
        assert essential_links and set(essential_links) <= set(links)
        marked = page.locator("figure.path svg text", has_text="▶")
        assert marked.count() == 1
        first_title = page.locator("ol.steps li a[id^=step-]").first.inner_text()
        assert marked.text_content().removeprefix("▶ 1. ").rstrip("…") in first_title
        _check_layout(page, width, "path-spec-course")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_missing_path_is_a_404_page(browser, site, width) -> None:
    url, _ = site
    context, page, response, errors = _open(browser, url + "/paths/nope", width)
    try:
        assert response.status == 404 and page.title() == "No such page"
        assert page.get_by_role("link", name="All reading paths").is_visible()
        _check_layout(page, width, "not-found")
        # the browser reports the 404 document itself as a console error; nothing else may
        assert all("404" in e for e in errors), errors
    finally:
        context.close()
