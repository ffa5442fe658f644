"""The table and its pages as a new user meets them, in real Chromium, on a phone (375×740) and a
laptop (1280×800), in English and Vietnamese: layouts that fit, refusals that explain and offer the
way in, names and plurals in the page's language, timeouts, the grace countdown, rematches both
players accept, quick reactions, motion and sounds, and the installable app.

Screenshots go to `artifacts_dir` (`$GINRUMMY_ARTIFACTS` in CI); each test names what it shows.
Servers run in a thread of this process (server_helpers.live_server) with short clocks.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from server_helpers import COOKIE, least_deadwood_discard, live_server, pick, test_settings
from test_browser import (
    PAGE_NOTES,
    SHOWDOWN_WATCH,
    WAIT,
    TablePlayer,
    new_context,
    shot,
    table_state,
    watch,
)
from websockets.sync.client import connect

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 740}
LAPTOP = {"width": 1280, "height": 800}
LOCALES = {"en": "en-US", "vi": "vi-VN"}
TURN_SECONDS = 4.0
GRACE_SECONDS = 3.0


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with short clocks: a room's turn clock of 4 s and a grace period of 3 s."""
    settings = test_settings(
        tmp_path_factory.mktemp("table"), turn_seconds=TURN_SECONDS, grace_seconds=GRACE_SECONDS
    )
    with live_server(settings) as address:
        yield f"http://{address}"


@pytest.fixture(scope="module")
def slow_clock_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose turn clock (60 s) is far longer than its grace period (3 s)."""
    settings = test_settings(tmp_path_factory.mktemp("grace"), turn_seconds=60.0, grace_seconds=GRACE_SECONDS)
    with live_server(settings) as address:
        yield f"http://{address}"


def context_for(
    browser: Browser, url: str, lang: str, size: dict[str, int], *, motion: str = "reduce"
) -> BrowserContext:
    phone = size["width"] < 600
    context = new_context(
        browser, url, width=size["width"], height=size["height"], locale=LOCALES[lang], phone=phone
    )
    if motion != "reduce":
        context.close()
        context = browser.new_context(
            base_url=url,
            viewport=size,
            locale=LOCALES[lang],
            reduced_motion="no-preference",
        )
        context.set_default_timeout(WAIT)
        context.add_init_script(SHOWDOWN_WATCH)
    return context


def cookie_of(context: BrowserContext) -> str:
    found = [c["value"] for c in context.cookies() if c["name"] == COOKIE]
    assert found, "the page made no guest"
    return found[0]


def api(page: Page, method: str, path: str, body: Any = None) -> Any:
    return page.evaluate(
        """async ([method, path, body]) => {
          const r = await fetch(path, { method, headers: { 'Content-Type': 'application/json' },
            body: body === null ? undefined : JSON.stringify(body) });
          return { status: r.status, body: await r.json() };
        }""",
        [method, path, body],
    )


def finish_by_socket(url: str, match_id: str, cookies: list[str], *, seed: int = 1) -> None:
    """Play a match to its end over its WebSocket(s), as fast as the server answers."""
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
        _play_out(sockets, rng)


def _play_out(sockets: list[Any], rng: random.Random) -> None:
    """Answer every state that asks something of a seat with a random move, until the match ends."""
    latest: list[dict[str, Any] | None] = [None] * len(sockets)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for k, ws in enumerate(sockets):
            # Read everything that has arrived: only the newest state counts.
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
            if state["view"]["legal"]:
                ws.send(
                    json.dumps(
                        {
                            "type": "action",
                            "action": _quick_move(state["view"], rng),
                            "version": state["version"],
                        }
                    )
                )
                latest[k] = None
    raise AssertionError("the match did not end within two minutes")


def _quick_move(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Knock or go Gin when allowed, else throw the card that leaves the least deadwood (so that a
    match played over the sockets ends in a few hands); any other move at random."""
    kinds = {a["type"] for a in view["legal"]}
    if "discard" in kinds and not kinds & {"knock", "big_gin"}:
        return least_deadwood_discard(view)
    return pick(view["legal"], rng)


def reach_the_end(page: Page) -> None:
    """Continue past the showdowns the page shows after a match played elsewhere, to its end."""
    for _ in range(60):
        if page.locator("#end #rematch").count() and not page.locator("#showdown").count():
            return
        if page.locator("#showdown-continue").count():
            page.click("#showdown-continue")
        page.wait_for_timeout(100)
    raise AssertionError("the end of the match never showed")


def new_page(context: BrowserContext) -> tuple[Page, list[str]]:
    page = context.new_page()
    return page, watch(page)


def in_view(page: Page, selector: str, size: dict[str, int]) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5


# The table's status line, or None when the page has none (it never drew the table).
STATUS_LINE = "() => document.querySelector('#status')?.textContent ?? null"


def start_robot_match(page: Page, level: str = "novice", target: int = 25) -> str:
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    made = api(
        page, "POST", "/api/matches", {"level": level, "rules": {"preset": "classic", "target": target}}
    )
    assert made["status"] == 200, made
    match_id: str = made["body"]["match_id"]
    guest = cookie_of(page.context)
    errors = watch(page)
    page.goto(f"/m/{match_id}")
    try:
        page.wait_for_selector("#hand .card, .fatal")
    except PlaywrightTimeout:
        # Say what the page showed instead, so that a table left waiting (the socket, the store)
        # can be told apart from a page that stopped drawing or a guest that changed.
        raise AssertionError(
            f"the table of match {match_id} showed no hand for a minute: at {page.url}, status"
            f" {page.evaluate(STATUS_LINE)!r}, {page.evaluate(PAGE_NOTES)}, page errors {errors},"
            f" same guest as the match's: {cookie_of(page.context) == guest}"
        ) from None
    refused = page.locator(".fatal")
    assert not refused.count(), (
        f"the table refused the player who made it: {refused.get_attribute('data-code')},"
        f" same guest as the match's: {cookie_of(page.context) == guest}"
    )
    return match_id


# ---------------------------------------------------------------- home, phone layout, names


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_home_shows_the_ways_to_play_at_once_on_a_laptop(
    browser: Browser, url: str, artifacts_dir: Path, lang: str
) -> None:
    context = context_for(browser, url, lang, LAPTOP)
    page, errors = new_page(context)
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    for selector in ("#name", "#play-robot", "#create-room", "#levels input[value=expert]", "#turn-seconds"):
        assert in_view(page, selector, LAPTOP), selector
    # The chosen level's description is shown, and follows the choice.
    page.check("#levels input[value=expert]")
    expect(page.locator("#level-help")).to_have_text(
        "Reads your hand and searches ahead." if lang == "en" else re.compile(".+"), timeout=WAIT
    )
    # An unnamed guest's name reads the page's way.
    expect(page.locator("#name")).to_have_value(re.compile(r"^(Guest|Khách) \d+$"), timeout=WAIT)
    assert page.input_value("#name").startswith("Guest" if lang == "en" else "Khách")
    shot(page, artifacts_dir, f"home-1280-{lang}.png")
    page.set_viewport_size(PHONE)
    shot(page, artifacts_dir, f"home-375-{lang}.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert errors == []
    context.close()


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_a_whole_turn_fits_one_phone_screen_and_so_does_the_showdown(
    browser: Browser, url: str, artifacts_dir: Path, lang: str
) -> None:
    context = context_for(browser, url, lang, PHONE)
    page, errors = new_page(context)
    start_robot_match(page)
    # The robot is named in the page's language.
    expect(page.locator("#opponent-name")).to_have_text(
        "Robot (Novice)" if lang == "en" else "Máy (Mới chơi)", timeout=WAIT
    )
    checked: set[str] = set()
    showdown_checked = False

    def fits(label: str) -> None:
        # No scrolling: the page is no taller or wider than the screen, and every card of the hand
        # and every button is on it.
        height = page.evaluate("document.documentElement.scrollHeight")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert height <= PHONE["height"] and width <= PHONE["width"], (label, height, width)
        # The header is two short rows at most (logo and settings, then the page links).
        top = page.locator("#top").bounding_box()
        assert top is not None and top["height"] <= 80, (label, top)
        for selector in ("#hand .card:last-child", "#actions button:last-child", "#status", "#opponent-name"):
            assert in_view(page, selector, PHONE), (label, selector)
        for card in page.locator("#hand .card").all():
            box = card.bounding_box()
            assert box is not None and box["y"] + box["height"] <= PHONE["height"], label
        checked.add(label)

    def on_discard(player: TablePlayer) -> None:
        fits("discard")
        if "discard-shot" not in checked:
            shot(page, artifacts_dir, f"table-375-{lang}.png")
            checked.add("discard-shot")

    def on_showdown(player: TablePlayer) -> None:
        nonlocal showdown_checked
        if showdown_checked:
            return
        showdown_checked = True
        if page.locator("#showdown-hold").count():
            page.check("#showdown-hold")  # keep it on screen while it is measured
        page.evaluate(
            "() => { for (const d of document.querySelectorAll('#showdown details')) d.open = false; }"
        )
        box = page.locator("#showdown .overlay-box")
        fit = box.evaluate("(el) => [el.scrollHeight, el.clientHeight, el.getBoundingClientRect().bottom]")
        assert fit[0] <= fit[1] + 1 and fit[2] <= PHONE["height"], fit
        assert in_view(page, "#showdown .sd-title", PHONE) and in_view(page, "#showdown-continue", PHONE)
        assert in_view(page, "nav a[href='/matches']", PHONE)  # the header stays in reach
        shot(page, artifacts_dir, f"showdown-375-{lang}.png")
        if page.locator("#showdown-hold").count():
            page.uncheck("#showdown-hold")

    player = TablePlayer(page, on_discard_phase=on_discard, on_showdown=on_showdown)
    for _ in range(400):
        state = table_state(page)
        if state["mine"] and state["phase"] == "draw" and not state["pending"] and not state["showdown"]:
            fits("draw")
        if {"draw", "discard"} <= checked and showdown_checked:
            break
        if player.act() in (None, "end"):
            if table_state(page)["end"]:
                break
            player.wait_turn()
    assert {"draw", "discard"} <= checked and showdown_checked, checked
    assert errors == []
    context.close()


# ---------------------------------------------------------------- refusals, errors, names


def test_a_table_opened_without_its_cookie_says_why_and_offers_the_way_in(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    owner = context_for(browser, url, "en", LAPTOP)
    owner_page, _ = new_page(owner)
    robot_match = start_robot_match(owner_page)
    owner_page.goto("/")
    made = api(owner_page, "POST", "/api/rooms", {"rules": "classic"})
    room = made["body"]

    # A friend was sent the address bar of a table still waiting for them: the page offers to join.
    friend = context_for(browser, url, "vi", PHONE)
    page, errors = new_page(friend)
    page.goto(f"/m/{room['match_id']}")
    expect(page.locator("#fatal-title")).to_have_text("Bàn này đang chờ người chơi thứ hai", timeout=WAIT)
    expect(page.locator("#fatal-join")).to_have_attribute("href", room["url"], timeout=WAIT)
    shot(page, artifacts_dir, "refused-join-375-vi.png")
    page.click("#fatal-join")
    page.wait_for_selector("#join-form:not([hidden])")
    page.fill("#join-name", "Lan")
    page.click("#join-room")
    page.wait_for_url(f"**/m/{room['match_id']}")
    page.wait_for_selector("#hand .card")

    # The same friend opens a table of two other people: said plainly, with the way home.
    page.goto(f"/m/{robot_match}")
    expect(page.locator(".fatal")).to_have_attribute("data-code", "not_seated", timeout=WAIT)
    expect(page.locator("#fatal-title")).to_have_text("Đây là bàn của người khác", timeout=WAIT)
    expect(page.locator("#fatal-home")).to_have_attribute("href", "/", timeout=WAIT)
    shot(page, artifacts_dir, "refused-not-seated-375-vi.png")
    friend.close()

    # A browser that never visited the site: no identity, no free seat: ask for the room link.
    stranger = context_for(browser, url, "en", LAPTOP)
    page, errors = new_page(stranger)
    page.goto(f"/m/{robot_match}")
    expect(page.locator(".fatal")).to_have_attribute("data-code", "no_guest", timeout=WAIT)
    expect(page.locator("#fatal")).to_contain_text("ask them for the room link", timeout=WAIT)
    assert page.locator("#fatal-join").count() == 0
    shot(page, artifacts_dir, "refused-no-guest-1280-en.png")
    # The refused page stays calm: no script error comes later (a timer used to draw into the
    # table that was no longer there, about six seconds after the refusal).
    page.wait_for_timeout(7000)
    assert errors == []

    # A match that does not exist: said so, with My matches.
    page.goto("/m/no-such-match")
    expect(page.locator(".fatal")).to_have_attribute("data-code", "not_found", timeout=WAIT)
    expect(page.locator("#fatal-matches")).to_have_attribute("href", "/matches", timeout=WAIT)
    shot(page, artifacts_dir, "refused-not-found-1280-en.png")
    assert errors == []
    stranger.close()
    owner.close()


STALE_MOVE = """(() => {
  // Test instrumentation: the first move this page sends claims an old version of the table, so
  // the server refuses it with the stable code "stale".
  const send = WebSocket.prototype.send;
  let spoiled = false;
  WebSocket.prototype.send = function (data) {
    const message = JSON.parse(data);
    if (message.type === 'action' && !spoiled) { spoiled = true; message.version = -1; data = JSON.stringify(message); }
    return send.call(this, data);
  };
})();"""


def test_a_refused_move_shows_one_message_in_the_pages_language(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    context = context_for(browser, url, "vi", LAPTOP)
    context.add_init_script(STALE_MOVE)
    page, errors = new_page(context)
    start_robot_match(page)
    player = TablePlayer(page)
    for _ in range(50):
        state = table_state(page)
        if state["mine"] and not state["pending"] and not state["showdown"]:
            break
        player.wait_turn()
    page.click("#actions button:not([disabled])")
    toast = page.locator("#toast.show[data-kind=error]")
    expect(toast).to_have_text("Bàn đã thay đổi trước khi nước của bạn tới: hãy xem lại.", timeout=WAIT)
    expect(page.locator("#last-move")).to_have_text(
        "Bàn đã thay đổi trước khi nước của bạn tới: hãy xem lại.", timeout=WAIT
    )
    shot(page, artifacts_dir, "refused-move-1280-vi.png")
    assert errors == []
    context.close()


# ---------------------------------------------------------------- the end, replay, showdown parts


def test_the_end_keeps_the_header_and_the_replay_shows_both_hands_on_a_laptop(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    context = context_for(browser, url, "en", LAPTOP)
    page, errors = new_page(context)
    match_id = start_robot_match(page)
    finish_by_socket(url, match_id, [cookie_of(context)])
    page.reload()
    reach_the_end(page)
    record = api(page, "GET", f"/api/matches/{match_id}/replay")["body"]
    played = record["result"]["hands_played"]
    expect(page.locator("#end-hands")).to_contain_text(
        f"{played} hand played:" if played == 1 else f"{played} hands played:", timeout=WAIT
    )
    shot(page, artifacts_dir, "end-1280-en.png")
    # The header's links are above the end overlay, not under it.
    page.click("nav a[href='/matches']", timeout=5000)
    page.wait_for_url("**/matches")

    page.goto(f"/replay/{match_id}")
    page.wait_for_selector("#replay-step")
    page.select_option("#perspective", "0")
    page.wait_for_selector("#replay-board .seat.opponent .card.back")
    board = page.inner_text("#replay-board")
    assert "null" not in board and "undefined" not in board, board
    for selector in ("#replay-board .seat.me .card", "#replay-board .seat.opponent .card", "#next-step"):
        for card in page.locator(selector).all():
            box = card.bounding_box()
            assert box is not None and box["y"] + box["height"] <= LAPTOP["height"], selector
    shot(page, artifacts_dir, "replay-1280-en.png")
    page.keyboard.press("End")
    expect(page.locator("#replay-board .showdown")).to_have_count(1, timeout=WAIT)
    assert "null" not in page.inner_text("#replay-board")
    assert errors == []
    context.close()


SHOWDOWN_PARTS = """async () => {
  const s = await import('/static/js/showdown.js');
  const gin = { outcome: 'gin', scorer: 0, points: 45, knocker: 0, bonus: 25, multiplier: 1,
    deadwood: [0, 20], scores: [45, 0], melds: [[['AS', '2S', '3S'], ['4H', '5H', '6H', '7H'], ['KC', 'KD', 'KH']], []],
    deadwood_cards: [[], ['QS', 'JD']], hands: [[], []], layoffs: [] };
  const undercut = { outcome: 'undercut', scorer: 1, points: 60, knocker: 0, bonus: 25, multiplier: 2,
    deadwood: [8, 3], scores: [0, 60], melds: [[], []], deadwood_cards: [[], []], hands: [[], []], layoffs: [] };
  const knock = { outcome: 'knock', scorer: 0, points: 12, knocker: 0, bonus: 0, multiplier: 1,
    deadwood: [4, 16], scores: [12, 0], melds: [[['5H', '6H', '7H']], []], deadwood_cards: [['4C'], ['KS', '6D']],
    hands: [[], []], layoffs: [{ card: '8H', meld: 0 }] };
  const panel = s.showdownPanel(gin, { names: ['You', 'Ann'], textNames: ['you', 'Ann'], targetScore: 100 });
  document.body.append(panel);
  const lay = s.showdownPanel(knock, { names: ['You', 'Ann'], targetScore: 100 });
  document.body.append(lay);
  const laid = lay.querySelector('.laid-off');
  return {
    gin: s.pointsBreakdown(gin), undercut: s.pointsBreakdown(undercut), knock: s.pointsBreakdown(knock),
    roles: [...panel.querySelectorAll('.sd-role')].map(e => e.textContent),
    shown: panel.querySelector('.sd-breakdown').textContent,
    layoffAnimation: laid ? getComputedStyle(laid).animationName : null,
  };
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_showdown_shows_each_part_of_the_score_and_calls_gin_gin(
    browser: Browser, url: str, motion: str
) -> None:
    context = context_for(browser, url, "en", LAPTOP, motion=motion)
    page, errors = new_page(context)
    page.goto("/matches")
    page.wait_for_selector("#match-list")
    parts = page.evaluate(SHOWDOWN_PARTS)
    assert parts["gin"] == "20 + Gin 25" and parts["shown"] == "= 20 + Gin 25"
    assert parts["undercut"] == "(8 \u2212 3 + undercut 25) \u00d7 2 (spade upcard)"
    assert parts["knock"] == "16 \u2212 4"
    assert parts["roles"] == ["went Gin", "defended"]  # a Gin is not labelled "knocked"
    # A laid-off card slides onto the meld, unless the person asked for reduced motion.
    assert parts["layoffAnimation"] == ("lay-off" if motion == "no-preference" else "none")
    assert errors == []
    context.close()


# ---------------------------------------------------------------- two people at a table


def room_of_two(browser: Browser, url: str, *, host_lang: str = "en", guest_lang: str = "vi") -> Any:
    """Hana creates a room (the server's short clock), Minh joins by the link; both pages at the table."""
    host_context = context_for(browser, url, host_lang, LAPTOP)
    guest_context = context_for(browser, url, guest_lang, PHONE)
    host, host_errors = new_page(host_context)
    guest, guest_errors = new_page(guest_context)
    host.goto("/")
    host.wait_for_selector("#main:not([data-loading])")
    assert api(host, "POST", "/api/me", {"name": "Hana"})["status"] == 200
    room = api(host, "POST", "/api/rooms", {"rules": {"preset": "classic", "target": 25}})["body"]
    host.goto(f"/m/{room['match_id']}")
    host.wait_for_selector("#waiting")
    guest.goto(room["url"])
    guest.wait_for_selector("#join-form:not([hidden])")
    guest.fill("#join-name", "Minh")
    guest.click("#join-room")
    guest.wait_for_selector("#hand .card")
    host.wait_for_selector("#hand .card")
    return host_context, guest_context, host, guest, room, host_errors, guest_errors


def test_timeouts_are_told_to_both_and_twice_in_a_row_lets_a_robot_play_until_back(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    host_context, guest_context, host, guest, room, host_errors, guest_errors = room_of_two(browser, url)
    mover, other = (host, guest) if table_state(host)["mine"] else (guest, host)
    mover_name = "Hana" if mover is host else "Minh"
    other_player = TablePlayer(other)

    def other_plays_until(done: Any) -> None:
        # The other player plays their turns (a person at the table); the mover never does.
        for _ in range(600):
            if done():
                return
            state = table_state(other)
            if state["mine"] and not state["pending"] and not state["showdown"]:
                other_player.act()
            else:
                other.wait_for_timeout(100)
        raise AssertionError("never got there")

    # Nobody moves: the clock runs out on the mover; both are told, each in their own language.
    expect(mover.locator("#toast")).to_contain_text(
        "Your time ran out" if mover is host else "Bạn hết giờ", timeout=WAIT
    )
    expect(other.locator("#toast")).to_contain_text(mover_name, timeout=WAIT)
    # The mover still does nothing: after the second clock in a row a robot plays for them, and
    # their page says so, with the way back.
    other_plays_until(lambda: mover.locator("#im-back").count() > 0)
    expect(other.locator("#opponent-autoplay")).to_be_visible(timeout=WAIT)
    shot(mover, artifacts_dir, "away-" + ("1280-en.png" if mover is host else "375-vi.png"))
    mover.click("#im-back")
    mover.wait_for_selector("#im-back", state="detached")
    expect(other.locator("#opponent-autoplay")).to_have_count(0, timeout=WAIT)
    assert host_errors == [] and guest_errors == []
    host_context.close()
    guest_context.close()


def test_the_grace_countdown_shows_when_the_friend_leaves_on_their_turn(
    browser: Browser, slow_clock_url: str, artifacts_dir: Path
) -> None:
    host_context, guest_context, host, guest, room, host_errors, guest_errors = room_of_two(
        browser, slow_clock_url
    )
    # Hand the turn to the guest: the host passes the first upcard if it is theirs.
    player = TablePlayer(host)
    for _ in range(20):
        if not table_state(host)["mine"]:
            break
        player.act()
    guest_context.close()  # the friend leaves on their turn
    grace = host.locator("#opponent-grace")
    expect(grace).to_be_visible(timeout=WAIT)
    expect(grace.locator(".time")).to_have_text(re.compile(r"^0:0[0-3]$"), timeout=WAIT)
    # The turn clock would say 0:59 or so: the robot comes first, so the countdown is what shows.
    assert host.locator("#their-clock").count() == 0
    shot(host, artifacts_dir, "grace-1280-en.png")
    expect(host.locator("#opponent-autoplay")).to_be_visible(timeout=WAIT)
    assert host_errors == []
    host_context.close()


def test_a_rematch_waits_for_the_friend_and_reactions_can_be_muted(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    host_context, guest_context, host, guest, room, host_errors, guest_errors = room_of_two(browser, url)
    finish_by_socket(url, room["match_id"], [cookie_of(host_context), cookie_of(guest_context)], seed=3)
    reach_the_end(host)
    reach_the_end(guest)
    host.click("#rematch")
    host.wait_for_url(lambda u: room["match_id"] not in u)
    expect(host.locator("#waiting-title")).to_have_text(
        "Waiting for Minh to accept the rematch…", timeout=WAIT
    )
    shot(host, artifacts_dir, "rematch-waiting-1280-en.png")
    expect(guest.locator("#rematch-asked")).to_contain_text("Hana", timeout=WAIT)
    shot(guest, artifacts_dir, "rematch-asked-375-vi.png")
    guest.click("#rematch")
    guest.wait_for_selector("#hand .card")
    host.wait_for_selector("#waiting", state="detached")
    host.wait_for_selector("#hand .card")

    # Quick reactions: a fixed set; the friend sees them in their language; muting hides them.
    host.click("#reactions-toggle")
    host.click("#reactions-menu [data-emote=gg]")
    bubble = guest.locator("#bubble-theirs")
    expect(bubble).to_have_attribute("data-emote", "gg", timeout=WAIT)
    expect(bubble).to_contain_text("Hana: Ván hay", timeout=WAIT)
    shot(guest, artifacts_dir, "reaction-375-vi.png")
    guest.click("#reactions-toggle")
    guest.check("#mute-reactions")
    expect(bubble).to_have_count(0, timeout=WAIT)
    guest.keyboard.press("Escape")
    host.click("#reactions-toggle")
    host.click("#reactions-menu [data-emote=wow]")
    expect(host.locator("#bubble-mine")).to_have_attribute("data-emote", "wow", timeout=WAIT)
    guest.wait_for_timeout(1000)
    assert guest.locator("#bubble-theirs").count() == 0
    # Sent too fast, the server refuses, and the page says so in the sender's language.
    for _ in range(4):
        host.click("#reactions-toggle")
        host.click("#reactions-menu [data-emote=hello]")
    expect(host.locator("#toast.show[data-kind=error]")).to_have_text(
        "Too fast: wait a moment and try again.", timeout=WAIT
    )
    assert host_errors == [] and guest_errors == []
    host_context.close()
    guest_context.close()


# ---------------------------------------------------------------- motion, sounds, the app

AUDIO_WATCH = """(() => {
  // Test instrumentation: count the audio contexts and notes the page makes.
  window.__audio = { contexts: 0, notes: 0 };
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    constructor(...args) { super(...args); window.__audio.contexts += 1; }
    createOscillator() { window.__audio.notes += 1; return super.createOscillator(); }
    createBufferSource() { window.__audio.notes += 1; return super.createBufferSource(); }
  };
})();"""


def test_cards_move_and_sounds_play_only_when_asked(browser: Browser, url: str) -> None:
    for motion in ("no-preference", "reduce"):
        context = context_for(browser, url, "en", LAPTOP, motion=motion)
        context.add_init_script(AUDIO_WATCH)
        page, errors = new_page(context)
        start_robot_match(page)
        player = TablePlayer(page, errors=errors)
        for _ in range(100):
            if player.moves >= 3:
                break
            if player.act() is None:
                player.wait_turn()
        moved = page.get_attribute("#table", "data-motion")
        if motion == "reduce":
            assert moved is None
        else:
            assert moved is not None and int(moved) > 0
        # Sounds are off until turned on: not even an audio context is made.
        assert page.evaluate("window.__audio") == {"contexts": 0, "notes": 0}
        page.check("#sound-toggle")
        assert page.evaluate("() => localStorage.getItem('gr-sound')") == "1"
        before = page.evaluate("window.__audio.notes")
        moves = player.moves
        for _ in range(100):
            if player.moves >= moves + 2:
                break
            if player.act() is None:
                player.wait_turn()
        # The last move's sound comes with the state that answers it: wait for it, not for a tick.
        page.wait_for_function(f"() => window.__audio.notes > {before}", timeout=WAIT)
        assert page.evaluate("window.__audio.contexts") == 1
        assert errors == []
        context.close()


def test_the_site_installs_as_an_app_and_says_when_it_is_offline(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    context = context_for(browser, url, "vi", PHONE)
    page, errors = new_page(context)
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    scope = page.evaluate("async () => (await navigator.serviceWorker.ready).scope")
    assert scope == f"{url}/"
    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [] and manifest["url"].endswith("/static/manifest.webmanifest")
    data = json.loads(manifest["data"])
    assert data["display"] == "standalone" and data["start_url"] == "/"
    assert {"192x192", "512x512"} <= {icon["sizes"] for icon in data["icons"]}
    for icon in data["icons"]:
        response = context.request.get(f"{url}{icon['src']}")
        assert response.ok, icon
    installable = cdp.send("Page.getInstallabilityErrors")
    # Playwright's contexts are private (incognito) profiles, where no site installs; a person's
    # own profile is not. Any other reason (manifest, icons, service worker) would show here.
    reasons = [e["errorId"] for e in installable["installabilityErrors"] if e["errorId"] != "in-incognito"]
    assert reasons == [], installable
    # The page is controlled once reloaded; offline, a page shows the offline page, in Vietnamese.
    page.reload()
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    context.set_offline(True)
    page.goto("/matches")
    expect(page.locator("#offline-title")).to_have_text("Bạn đang ngoại tuyến", timeout=WAIT)
    shot(page, artifacts_dir, "offline-375-vi.png")
    context.set_offline(False)
    page.click("#offline-retry")
    page.wait_for_selector("#match-list")
    assert errors == []
    context.close()
