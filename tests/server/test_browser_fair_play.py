"""Fair play in real Chromium: two players paired by Play online in a rated pool, one aborts before
both have moved; both end screens say the match was aborted, unrated, and so do the profile and
the replay."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect
from server_helpers import live_server, test_settings
from test_browser import WAIT, new_context, shot, watch

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

UNRATED = "Aborted, unrated: the players had not both made a move, so no rating changed."


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # Both pages come from 127.0.0.1: the test server lets one address meet in rated play.
    with live_server(test_settings(tmp_path_factory.mktemp("fair-play"))) as address:
        yield f"http://{address}"


def test_a_rated_match_aborted_before_both_moved_says_aborted_unrated(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    contexts = [new_context(browser, url) for _ in range(2)]
    try:
        pages = [c.new_page() for c in contexts]
        errors = [watch(p) for p in pages]
        for page in pages:
            page.goto("/")
            page.select_option("#online-target", "50")
            page.select_option("#online-mode", "rated")
            page.click("#play-online")
        for page in pages:
            page.wait_for_url("**/m/*", timeout=WAIT)
            expect(page.locator("#forfeit .rated-mark")).to_be_visible(timeout=WAIT)
        aborter, other = pages
        match_id = aborter.url.rsplit("/", 1)[1]
        aborter.click("#abort-match")
        aborter.click("dialog button[data-value=yes]")
        for page in pages:
            expect(page.locator("#end #ended-unrated")).to_have_text(UNRATED, timeout=WAIT)
            expect(page.locator("#end h2")).to_have_text("The match was aborted")
            expect(page.locator("#end #end-hands")).to_have_count(0)  # no "1 hand played: you won 0"
        expect(aborter.locator("#end .ended-reason").first).to_have_text("You aborted the match.")
        shot(other, artifacts_dir, "fair-play-aborted-unrated.png")

        me = aborter.request.get("/api/me").json()
        assert me["rating"]["games"] == 0
        aborter.goto(f"/players/{me['id']}")
        expect(aborter.locator(".match-row .result")).to_have_text("Aborted, unrated", timeout=WAIT)
        other.goto(f"/replay/{match_id}")
        expect(other.locator("#replay-result")).to_contain_text("The match was aborted", timeout=WAIT)
        assert errors == [[], []]
    finally:
        for context in contexts:
            context.close()
