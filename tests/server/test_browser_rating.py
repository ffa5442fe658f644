"""Rating feedback in real Chromium, as Lichess gives it: two accounts play a rated match from Play
online, one resigns, and both end screens show each player's new rating, its change and the
provisional mark, as the server stored them; My matches shows it too. A Swiss tournament's match
ends with the way back to the tournament as its one primary action and no rematch, and the
standings' columns line up (the score under its heading, the own line's cells one band)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect
from server_helpers import live_server, test_settings
from test_browser import WAIT, TablePlayer, new_context, shot, table_state, watch

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

PASSWORD = "a long enough secret"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(test_settings(tmp_path_factory.mktemp("rating"))) as address:
        yield f"http://{address}"


def claim(page: Page, name: str) -> str:
    """Claim `name` for this browser's guest; returns its player id."""
    page.goto("/account")
    page.fill("#claim-name", name)
    page.fill("#claim-password", PASSWORD)
    page.click("#claim")
    expect(page.locator("#signed-in")).to_be_visible(timeout=WAIT)
    return str(page.request.get("/api/me").json()["id"])


def resign_once_both_moved(pages: list[Page]) -> Page:
    """Play through the pages until both players have moved (the server then offers Resign instead
    of Abort), then resign on the page whose turn it is; returns that page."""
    players = [TablePlayer(page) for page in pages]
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if all(page.query_selector("#resign-match") for page in pages):
            for page in pages:
                state = table_state(page)
                if state["mine"] and not state["pending"] and not state["showdown"] and not state["end"]:
                    page.click("#resign-match")
                    page.click("dialog button[data-value=yes]")
                    return page
        for player in players:
            player.act()
        time.sleep(0.05)
    raise AssertionError("the two players did not both move")


def change_text(change: int) -> str:
    return f"+{change}" if change > 0 else f"\u2212{-change}" if change < 0 else "\u00b10"


def stored_change(page: Page, player_id: str, match_id: str) -> dict[str, Any]:
    """What the server stored for `match_id` in the player's rating history."""
    history = page.request.get(f"/api/players/{player_id}").json()["history"]
    (point,) = [p for p in history if p["match_id"] == match_id]
    return dict(point)


def test_both_end_screens_of_a_rated_match_show_the_new_ratings_and_my_matches_too(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    contexts = [new_context(browser, url) for _ in range(2)]
    try:
        pages = [c.new_page() for c in contexts]
        errors = [watch(p) for p in pages]
        stamp = int(time.time()) % 100000
        ids = [claim(page, f"{who}{stamp}") for page, who in zip(pages, ("Rater", "Rival"), strict=True)]
        for page in pages:
            page.goto("/")
            page.select_option("#online-mode", "rated")
            page.click("#play-online")
        for page in pages:
            page.wait_for_url("**/m/*", timeout=WAIT)
        match_id = pages[0].url.rsplit("/", 1)[1]
        assert pages[1].url.endswith(match_id)
        expect(pages[0].locator(".rated-mark")).to_be_visible()

        loser = resign_once_both_moved(pages)
        for page, player_id in zip(pages, ids, strict=True):
            other = ids[1 - ids.index(player_id)]
            expect(page.locator("#end")).to_be_visible(timeout=WAIT)
            mine, theirs = stored_change(page, player_id, match_id), stored_change(page, other, match_id)
            # Both sides, each as stored: the new rating with "?" (one match: provisional) and the change.
            for selector, point in (("#end-rating-mine", mine), ("#end-rating-theirs", theirs)):
                line = page.locator(selector)
                expect(line.locator(".new-rating")).to_have_text(f"{point['rating']}?", timeout=WAIT)
                expect(line.locator(".rating-diff")).to_have_text(
                    change_text(point["rating"] - point["before"])
                )
                assert point["before"] == 1500
            lost = page is loser
            diff = page.locator("#end-rating-mine .rating-diff")
            expect(diff).to_have_class("rating-diff down" if lost else "rating-diff up")
            assert (mine["rating"] < 1500) == lost and (theirs["rating"] > 1500) == lost
            expect(page.locator("#end-rating-mine .who")).to_have_text("You")
            # A rated pool match may be played again; nothing of a tournament is offered.
            expect(page.locator("#rematch")).to_be_visible()
            expect(page.locator("#back-tournament")).to_have_count(0)
            shot(page, artifacts_dir, f"rating-end-{'loser' if lost else 'winner'}.png")

            # My matches: the row of the match shows this player's new rating and its change.
            page.goto("/matches")
            row = page.locator(f".match-row[data-id='{match_id}'] .rating")
            expect(row.locator(".new-rating")).to_have_text(f"{mine['rating']}?", timeout=WAIT)
            expect(row.locator(".rating-diff")).to_have_text(change_text(mine["rating"] - 1500))
            shot(page, artifacts_dir, f"rating-my-matches-{'loser' if lost else 'winner'}.png")
        assert not [e for page_errors in errors for e in page_errors], errors
    finally:
        for context in contexts:
            context.close()


STANDINGS = """() => {
  // The columns by their headings, as a reader finds them.
  const table = document.querySelector('#standings');
  const heads = [...table.tHead.rows[0].cells];
  const column = (name) => heads.findIndex((c) => c.textContent === name);
  const textBox = (cell) => { const r = document.createRange(); r.selectNodeContents(cell);
    return r.getBoundingClientRect(); };
  const rows = [...table.tBodies[0].rows];
  const score = column('Score');
  const sheet = column('Matches');
  const mine = table.querySelector('tbody tr.mine');
  const cells = [...mine.cells].map((c) => c.getBoundingClientRect());
  return {
    headRight: textBox(heads[score]).right,
    scoreRights: rows.map((r) => textBox(r.cells[score]).right),
    displays: [...table.querySelectorAll('td, th')].map((c) => getComputedStyle(c).display),
    tops: cells.map((r) => r.top), bottoms: cells.map((r) => r.bottom),
    mineBackgrounds: [...mine.cells].map((c) => getComputedStyle(c).backgroundColor),
    sheetWidth: heads[sheet].getBoundingClientRect().width,
    sheetHeadText: textBox(heads[sheet]).width,
    sheetLines: rows.map((r) => r.cells[sheet].getClientRects().length),
    fontSize: parseFloat(getComputedStyle(rows[0].cells[sheet]).fontSize),
  };
}"""


def test_a_swiss_match_ends_with_the_way_back_and_the_standings_line_up(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    contexts = [new_context(browser, url) for _ in range(2)]
    try:
        pages = [c.new_page() for c in contexts]
        errors = [watch(p) for p in pages]
        for page in pages:
            page.goto("/")
        made = pages[0].request.post(
            "/api/tournaments",
            # Twelve seconds: time for both to open the page and join before the round is paired.
            data={"format": "swiss", "name": "Swiss end", "rounds": 1, "starts_in": 0.2, "robots": False},
        )
        assert made.ok, made.text()
        tid = made.json()["id"]
        for page in pages:
            page.goto(f"/t/{tid}")
        for page in pages:
            page.click("#t-join")
            expect(page.locator("#t-withdraw")).to_be_visible(timeout=WAIT)
        for page in pages:
            page.wait_for_url("**/m/*", timeout=WAIT)

        resign_once_both_moved(pages)
        for page in pages:
            expect(page.locator("#end")).to_be_visible(timeout=WAIT)
            # The one primary action is the way back; a rematch inside a tournament makes no sense.
            back = page.locator("#end .overlay-actions #back-tournament")
            expect(back).to_be_visible()
            expect(back).to_have_attribute("href", f"/t/{tid}")
            expect(page.locator("#end .overlay-actions .primary")).to_have_count(1)
            expect(page.locator("#rematch")).to_have_count(0)
            expect(page.locator("#end-ratings .end-rating")).to_have_count(2)  # a rated tournament
            assert (
                page.evaluate("() => document.activeElement && document.activeElement.id")
                == "back-tournament"
            )
        shot(pages[0], artifacts_dir, "swiss-end.png")

        page = pages[1]
        page.click("#back-tournament")
        page.wait_for_url(f"**/t/{tid}", timeout=WAIT)
        expect(page.locator("#t-winner")).to_be_visible(timeout=WAIT)
        expect(page.locator("#standings tbody tr")).to_have_count(2)
        expect(page.locator("#standings tbody tr.mine")).to_have_count(1)
        found = page.evaluate(STANDINGS)
        shot(page, artifacts_dir, "swiss-standings.png")
        # Every cell is a table cell: nothing styled for another page turns one into a box of its own.
        assert set(found["displays"]) == {"table-cell"}, found["displays"]
        # Score numbers right-aligned under their right-aligned heading.
        assert all(abs(right - found["headRight"]) <= 1.5 for right in found["scoreRights"]), found
        # The own line is one band: its cells share their top and bottom and their highlight.
        assert (
            max(found["tops"]) - min(found["tops"]) <= 0.5
            and max(found["bottoms"]) - min(found["bottoms"]) <= 0.5
        )
        assert len(set(found["mineBackgrounds"])) == 1, found["mineBackgrounds"]
        # The results column has room: wider than its heading with some to spare, results on one line.
        assert found["sheetWidth"] >= max(found["sheetHeadText"] + 16, 8 * found["fontSize"]), found
        assert found["sheetLines"] == [1, 1], found
        assert not [e for page_errors in errors for e in page_errors], errors
    finally:
        for context in contexts:
            context.close()
