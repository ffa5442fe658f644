"""A rated room of three-player Gin in real Chromium: made from the home page with "Rated" (which
keeps every seat for a friend), two friends join by the link, the game is played to its end, and
the end screen shows each player's new rating and its change."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect
from server_helpers import COOKIE, least_deadwood_discard, live_server, pick, test_settings
from test_browser import new_context, shot, watch
from test_browser_table import api, cookie_of
from websockets.sync.client import connect

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = test_settings(tmp_path_factory.mktemp("rated_tables"), turn_seconds=None)
    with live_server(settings) as address:
        yield f"http://{address}"


def quick_move(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Knock or go Gin when allowed, else the discard leaving the least deadwood (a three-player
    Gin view holds the seat's hand in its table), any other move at random."""
    kinds = {a["type"] for a in view["legal"]}
    hand = next((t["hand"] for t in view.get("tables", ()) if t.get("hand")), None)
    if hand is not None and "discard" in kinds and not kinds & {"knock", "big_gin"}:
        return least_deadwood_discard({"legal": view["legal"], "hand": hand})
    return pick(view["legal"], rng)


def finish_table_by_socket(url: str, match_id: str, cookies: list[str], seed: int) -> None:
    """Play every seat of a table to the end of the game over its WebSockets."""
    rng = random.Random(seed)
    host = url.removeprefix("http://")
    with contextlib.ExitStack() as stack:
        sockets = [
            stack.enter_context(
                connect(
                    f"ws://{host}/ws/{match_id}",
                    additional_headers={"Cookie": f"{COOKIE}={c}"},
                    open_timeout=10,
                )
            )
            for c in cookies
        ]
        latest: list[dict[str, Any] | None] = [None] * len(sockets)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            for k, ws in enumerate(sockets):
                wait = 0.01
                while True:
                    try:
                        message = json.loads(ws.recv(timeout=wait))
                    except TimeoutError:
                        break
                    wait = 0
                    if message["type"] == "state":
                        latest[k] = message
            for k, ws in enumerate(sockets):
                state = latest[k]
                if state is None:
                    continue
                if state["match"]["status"] == "over":
                    return
                if state["view"] and state["view"]["legal"]:
                    move = quick_move(state["view"], rng)
                    ws.send(json.dumps({"type": "action", "action": move, "version": state["version"]}))
                    latest[k] = None
    raise AssertionError("the game did not end within five minutes")


def test_a_rated_room_of_three_player_gin_ends_with_everyones_rating_change(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    host = new_context(browser, url)
    page = host.new_page()
    errors = watch(page)
    page.goto("/")
    page.select_option("#room-game", "gin3")
    seat = page.locator("#seat-2")
    seat.select_option("casual")  # a robot, until the room is made rated
    rated = page.locator("#room-rated")
    expect(page.locator("#room-rated-field")).to_be_visible()
    rated.check()
    expect(seat).to_be_disabled()
    expect(seat).to_have_value("friend")
    page.click("#create-room")
    link = page.locator("#room-url")
    expect(link).not_to_have_value("")
    code = link.input_value().rsplit("/", 1)[-1]
    room = api(page, "GET", f"/api/rooms/{code}", None)["body"]
    assert [s["kind"] for s in room["seats"]] == ["human", None, None]
    friends = [new_context(browser, url) for _ in range(2)]
    for friend in friends:
        other = friend.new_page()
        other.goto(f"/r/{code}")  # the link says the room is rated before one joins
        expect(other.locator("#room-rated")).to_contain_text("A rated room")
        joined = api(other, "POST", f"/api/rooms/{code}/join", None)
        assert joined["status"] == 200, joined
    match_id = joined["body"]["match_id"]
    finish_table_by_socket(url, match_id, [cookie_of(host), *(cookie_of(f) for f in friends)], seed=3)
    page.goto(f"/m/{match_id}")
    # The last deal's showdown comes first, then the end of the game.
    page.click("#showdown-continue")
    ratings = page.locator("#end-ratings .end-rating")
    expect(ratings).to_have_count(3)
    expect(page.locator("#end-rating-mine")).to_be_visible()
    texts = ratings.all_inner_texts()
    assert all("?" in text for text in texts), texts  # provisional after one match
    assert sum("+" in text for text in texts) >= 1 and sum("\u2212" in text for text in texts) >= 1, texts
    shot(page, artifacts_dir, "rated-gin3-end.png")
    # The profile shows the rating of three-player Gin beside two-player Gin's.
    mine = page.locator("#end-rating-mine .new-rating").inner_text()
    me = api(page, "GET", "/api/me", None)["body"]
    page.goto(f"/players/{me['id']}")
    line = page.locator('#table-ratings li[data-game="gin3"]')
    expect(line).to_contain_text("Gin for three")
    expect(line.locator("strong")).to_have_text(mine)
    expect(page.locator("#profile-rating")).to_have_text("1500?")
    shot(page, artifacts_dir, "rated-gin3-profile.png")
    # Its own rating board: one rated match is no settled rating, so nobody is ranked yet; the
    # page asks the board of three-player Gin, not two-player Gin's.
    with page.expect_response(lambda r: "/api/leaderboards/rating?game=gin3" in r.url) as asked:
        page.goto("/leaderboard#gin3")
    assert asked.value.ok
    expect(page.locator('[data-board="gin3"]')).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#board-about")).to_contain_text("Gin for three: the top Weng-Lin ratings")
    assert errors == []
    for context in (host, *friends):
        context.close()
