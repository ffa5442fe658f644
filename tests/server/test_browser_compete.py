"""Competing in real Chromium: four guests in four browser contexts join a player-made arena by its
link, play their matches through the table page, and a fifth page watches the standings change
live, the countdown end and the winner appear; a spectator's frames carry no hidden card; one guest
claims an account, signs in from a fresh context and finds its rating and its matches."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect
from server_helpers import live_server, test_settings
from test_browser import WAIT, TablePlayer, new_context, shot, table_state, watch
from test_leak import Truth
from test_tournament import scan_spectator

from ginrummy.rules import loads

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

PASSWORD = "a long enough secret"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(test_settings(tmp_path_factory.mktemp("compete"))) as address:
        yield f"http://{address}"


def step(page: Page, player: TablePlayer) -> None:
    """One thing for a player to do, wherever its page is: on the tournament page nothing (it goes
    to the next match by itself); at a table, resign once both have moved and it is this player's
    turn (a decided match, quickly), else play; at the end of a match, go back to the tournament."""
    if "/m/" not in page.url:
        return
    if page.query_selector("#back-tournament"):
        page.click("#back-tournament")
        return
    state = table_state(page)
    if state["status"] != "playing" or state["showdown"]:
        if state["showdown"]:
            player.act()
        return
    if state["mine"] and not state["pending"] and page.query_selector("#resign-match"):
        page.click("#resign-match")
        page.click("dialog button[data-value=yes]")
        page.wait_for_selector("#end", timeout=WAIT)
        return
    player.act()


def test_four_guests_play_an_arena_by_link_and_one_claims_an_account(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    contexts = [new_context(browser, url) for _ in range(5)]
    try:
        pages = [c.new_page() for c in contexts]
        errors = [watch(p) for p in pages]
        creator, viewer = pages[0], pages[4]
        # A player-made arena through the form: one minute, robots allowed, to 25.
        creator.goto("/tournaments")
        creator.fill("#t-name", "Browser arena")
        creator.select_option("#t-format", "arena")
        creator.fill("#t-starts-in", "0")
        creator.fill("#t-minutes", "1")
        creator.select_option("#t-target", "25")
        creator.click("#t-create")
        creator.wait_for_url("**/t/*", timeout=WAIT)
        link = creator.url
        expect(creator.locator("#t-title")).to_have_text("Browser arena")

        # The viewer keeps the tournament page open: everything after arrives over its socket.
        viewer.goto(link)
        expect(viewer.locator(".ends[data-phase=ends_in]")).to_be_visible(timeout=WAIT)
        spectator_frames: list[str] = []
        for page in pages[:4]:
            if page is not creator:
                page.goto(link)
            page.click("#t-join")
        # Paired at once: every player's page goes to its match.
        for page in pages[:4]:
            page.wait_for_url("**/m/*", timeout=WAIT)
        expect(viewer.locator("#standings tbody tr")).to_have_count(4, timeout=WAIT)
        first_match = pages[0].url.rsplit("/", 1)[1]
        spectator = contexts[4].new_page()
        spectator.on(
            "websocket",
            lambda ws: ws.on("framereceived", lambda payload: spectator_frames.append(str(payload))),
        )
        spectator.goto(f"/watch/{first_match}")

        players = [TablePlayer(p) for p in pages[:4]]
        played_seen = 0
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            for page, player in zip(pages[:4], players, strict=True):
                step(page, player)
            phase = viewer.get_attribute(".ends", "data-phase") if viewer.query_selector(".ends") else None
            cells = viewer.eval_on_selector_all(
                "#standings tbody td.sheet", "els => els.map(e => e.textContent)"
            )
            played_seen = max(played_seen, sum(len(c.split()) for c in cells))
            if phase == "finished":
                break
            time.sleep(0.05)
        # The standings moved while the page stayed open, then the countdown ended with a winner.
        assert played_seen >= 2, "no result reached the open tournament page"
        expect(viewer.locator("#t-winner")).to_be_visible(timeout=WAIT)
        shot(viewer, artifacts_dir, "compete-arena-finished.png")
        # Each heading below the standings stands clear of what is above it (it used to touch the table).
        gaps = viewer.evaluate(
            """() => [...document.querySelectorAll("#standings ~ h2, #standings ~ #t-playing > h2")].map((h2) => {
                const above = h2.previousElementSibling || h2.parentElement.previousElementSibling;
                return h2.getBoundingClientRect().top - above.getBoundingClientRect().bottom;
            })"""
        )
        assert len(gaps) >= 1 and min(gaps) >= 12, gaps

        # The spectator's frames against the truth of the finished match.
        replay = pages[0].request.get(f"/api/matches/{first_match}/replay").json()
        truth = Truth.of(loads(json.dumps(replay["record"])))
        # While the match was played (the seed is revealed once it is over, by design).
        playing = [f for f in spectator_frames if '"type":"spectate"' in f and '"status":"playing"' in f]
        assert scan_spectator(truth, playing) >= 1

        # One guest claims its name and signs in from a fresh browser: its rating and matches are there.
        name = f"Arena{int(time.time()) % 100000}"
        creator.goto("/account")
        creator.fill("#claim-name", name)
        creator.fill("#claim-password", PASSWORD)
        creator.click("#claim")
        expect(creator.locator("#signed-in")).to_be_visible(timeout=WAIT)
        fresh = new_context(browser, url)
        try:
            other = fresh.new_page()
            other.goto("/account")
            other.fill("#login-name", name.lower())
            other.fill("#login-password", PASSWORD)
            other.click("#sign-in")
            other.wait_for_url("**/players/*", timeout=WAIT)
            expect(other.locator("#profile-name")).to_have_text(name)
            expect(other.locator("#profile-rating")).to_be_visible()
            expect(other.locator(".match-row").first).to_be_visible(timeout=WAIT)
            shot(other, artifacts_dir, "compete-profile-signed-in.png")
        finally:
            fresh.close()
        assert not [e for page_errors in errors for e in page_errors], errors
    finally:
        for context in contexts:
            context.close()
