"""Finding and watching a live match in real Chromium: two guests are paired through Play online; a
visitor sees the match featured on the home page, finds it on the Watch page (the top bar's link),
and watches it: whose turn it is, both clocks, the score, the last move highlighted as the players
move, and how many watch (a second spectator arrives); the profile of a player links to the match;
the watch page reads in Vietnamese too. Every frame the spectators received is free of hidden cards."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect
from server_helpers import live_server, test_settings
from test_browser import WAIT, TablePlayer, new_context, shot, table_state, watch
from test_browser_compete_pages import PHONE, _fits, _reachable
from test_leak import Truth
from test_tournament import scan_spectator

from ginrummy.rules import loads

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(test_settings(tmp_path_factory.mktemp("watch"))) as address:
        yield f"http://{address}"


def seek(page: Page, name: str) -> None:
    page.goto("/")
    # The page writes the guest's current name into the field once it has loaded: fill after that.
    page.wait_for_selector("#main:not([data-loading])")
    page.fill("#name", name)
    expect(page.locator("#name")).to_have_value(name)
    page.click("#save-name")
    page.wait_for_selector("#toast.show[data-kind=ok]")
    page.select_option("#online-mode", "casual")
    page.select_option("#online-target", "100")
    page.click("#play-online")


def frames_of(page: Page, into: list[str]) -> None:
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: into.append(str(payload))))


def test_a_visitor_finds_a_live_match_on_the_watch_page_and_watches_it(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    contexts = [new_context(browser, url) for _ in range(4)]
    try:
        ann, bob, viewer, second = (c.new_page() for c in contexts)
        errors = [watch(p) for p in (ann, bob, viewer, second)]
        # Nothing is being played: the home page features nothing, the Watch page says so.
        viewer.goto("/")
        expect(viewer.locator("#daily-board")).to_be_visible()
        expect(viewer.locator("#featured-live")).to_have_count(0)
        viewer.click("#nav-watch")
        viewer.wait_for_url("**/watch")
        expect(viewer.locator("#live-none")).to_be_visible()

        seek(ann, "Ann Live")
        seek(bob, "Bob Live")
        for page in (ann, bob):
            page.wait_for_url("**/m/*", timeout=WAIT)
        match_id = ann.url.rsplit("/", 1)[1]
        assert bob.url.rsplit("/", 1)[1] == match_id

        # The home page features it (Lichess TV); the Watch page lists it and links to it.
        viewer.goto("/")
        featured = viewer.locator("#featured-live li.live-game")
        expect(featured).to_have_attribute("data-id", match_id)
        expect(featured).to_contain_text("Ann Live")
        expect(featured).to_contain_text("Bob Live")
        expect(featured.locator(".live-rating")).to_have_count(2)  # each player's rating
        viewer.click("#nav-watch")
        viewer.wait_for_url("**/watch")
        listed = viewer.locator(f'#live-list li.live-game[data-id="{match_id}"]')
        expect(listed).to_contain_text("0 – 0")
        expect(listed).to_contain_text("Ann Live (guest)")  # guests without an account are marked
        shot(viewer, artifacts_dir, "watch-live-games.png")
        spectator_frames: list[str] = []
        frames_of(viewer, spectator_frames)
        listed.locator("a.live-watch").click()
        viewer.wait_for_url(f"**/watch/{match_id}")

        # The watch page: the score, whose turn, both clocks, how many watch, the hint reworded.
        expect(viewer.locator("#watch-score")).to_contain_text(
            re.compile(r"(Ann|Bob) Live 0 – 0 (Ann|Bob) Live")
        )
        expect(viewer.locator("#watch .hint").first).to_contain_text("You see what is face up at the table.")
        expect(viewer.locator("#watch-spectators")).to_have_text("1 watching")
        expect(viewer.locator(".watch-seat .guest-mark")).to_have_count(2)
        to_act = ann if table_state(ann)["mine"] else bob
        name = "Ann Live" if to_act is ann else "Bob Live"
        expect(viewer.locator("#watch-turn")).to_have_text(f"{name} to play")
        expect(viewer.locator(".watch-clock")).to_have_count(2)
        running = viewer.locator(".watch-seat.to-act .watch-clock.running")
        expect(running).to_have_text(re.compile(r"^[0-9]:[0-5][0-9]$"))
        expect(viewer.locator(".watch-seat:not(.to-act) .watch-clock")).to_have_text("1:00")  # a turn's time

        # A second spectator: both pages count two.
        second_frames: list[str] = []
        frames_of(second, second_frames)
        second.goto(f"/watch/{match_id}")
        expect(second.locator("#watch-spectators")).to_have_text("2 watching")
        expect(viewer.locator("#watch-spectators")).to_have_text("2 watching")

        # The players move: the watch page says what was done and highlights a discard on the pile.
        players = {ann: TablePlayer(ann), bob: TablePlayer(bob)}
        discarded = False
        for _ in range(40):
            for page, player in players.items():
                done = player.act()
                if done is None:
                    continue
                version = table_state(page)["version"]
                expect(viewer.locator("#watch")).to_have_attribute("data-version", str(version))
                expect(viewer.locator("#watch-last")).not_to_have_text("")
                if done == "discard":
                    discarded = True
                    top = viewer.locator("#watch-pile .card").last
                    expect(top).to_have_class(re.compile(r"\bjust-moved\b"))
                    expect(viewer.locator("#watch-last")).to_contain_text("discarded")
            if discarded:
                break
        assert discarded, "nobody discarded in forty turns"
        shot(viewer, artifacts_dir, "watch-page.png")

        # A player's profile links to the match being played.
        bob_id = bob.evaluate("() => fetch('/api/me').then(r => r.json()).then(me => me.id)")
        second.goto(f"/players/{bob_id}")
        expect(second.locator("#now-playing a.profile-watch")).to_have_attribute("href", f"/watch/{match_id}")

        # In Vietnamese: the same page, the same facts.
        vi = new_context(browser, url, locale="vi-VN")
        contexts.append(vi)
        page_vi = vi.new_page()
        errors.append(watch(page_vi))
        page_vi.goto(f"/watch/{match_id}")
        expect(page_vi.locator("#watch .hint").first).to_contain_text(
            "Bạn thấy những gì đang lật ngửa trên bàn."
        )
        expect(page_vi.locator("#watch-spectators")).to_have_text(re.compile(r"^\d người đang xem$"))

        # On a phone: the list and the watch page fit the screen, their links and clocks in reach.
        phone = new_context(browser, url, phone=True, **PHONE)
        contexts.append(phone)
        page_phone = phone.new_page()
        errors.append(watch(page_phone))
        page_phone.goto("/watch")
        expect(page_phone.locator(f'#live-list li[data-id="{match_id}"]')).to_be_visible()
        _fits(page_phone, "the Watch page")
        _reachable(page_phone, f'#live-list li[data-id="{match_id}"] a.live-watch')
        page_phone.goto(f"/watch/{match_id}")
        expect(page_phone.locator("#watch-score")).to_be_visible()
        shot(page_phone, artifacts_dir, "phone-watch-page.png")
        _fits(page_phone, "the watch page")
        for selector in ("#watch-turn", "#watch-score", "#watch-spectators", ".watch-clock"):
            _reachable(page_phone, selector)

        # Both have moved: one resigns, the spectators see the result, and their frames are checked
        # against the truth of the finished match.
        to_resign = ann if table_state(ann)["status"] == "playing" else bob
        to_resign.click("#resign-match")
        to_resign.click("dialog button[data-value=yes]")
        expect(viewer.locator("#watch-result")).to_be_visible()
        replay = ann.request.get(f"/api/matches/{match_id}/replay").json()
        truth = Truth.of(loads(json.dumps(replay["record"])))
        assert scan_spectator(truth, spectator_frames) >= 2
        assert scan_spectator(truth, second_frames) >= 1
        assert all(e == [] for e in errors), errors
    finally:
        for context in contexts:
            context.close()
