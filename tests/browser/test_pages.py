"""Issue 25: the web pages as a person sees them in Chromium, at desktop (1280 px) and phone
(390 px) widths: title, scopes, links, the path picture loaded, no console errors, no horizontal
scroll on the phone; the *Add to Slack* link followed to the stand-in's authorize page and back
to the success page. Full-page screenshots are saved as artifacts (see conftest)."""

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
    context, page, response, errors = _open(browser, url + "/paths", width)
    try:
        assert response.status == 200 and page.title().startswith("Reading paths through the vLLM blog")
        tracks = page.locator("ul.tracks li")
        assert tracks.count() >= 10
        assert re.search(r"Essential path: \d+ steps · (about )?\d+ min", tracks.first.inner_text())
        page.get_by_role("link", name=re.compile("Speculative")).first.click()
        page.wait_for_load_state("load")
        assert page.url.endswith("/paths/spec")
        page.goto(url + "/paths")
        _check_layout(page, width, "paths")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_path_page(browser, site, width, lang) -> None:
    url, _ = site
    context, page, response, errors = _open(browser, url + "/paths/spec" + ("?lang=zh" if lang == "zh" else ""), width)
    try:
        assert response.status == 200
        img = page.locator("figure.path img")
        img.scroll_into_view_if_needed()
        page.wait_for_function("document.querySelector('figure.path img').complete")
        assert page.evaluate("document.querySelector('figure.path img').naturalWidth") > 0
        assert len(img.get_attribute("alt")) > 40
        assert img.bounding_box()["width"] <= width
        heading = "核心路径" if lang == "zh" else "Essential path"
        assert page.get_by_role("heading", name=re.compile(heading)).is_visible()
        steps = page.locator("ol.steps li a")
        assert steps.count() >= 5 and steps.first.get_attribute("href").startswith("http")
        _check_layout(page, width, f"path-spec-{lang}")
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
