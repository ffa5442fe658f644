"""The bigger tables in real Chromium: three guests in three browsers and a robot play four-player
Rummy by the room link to the end of the game, then the same three play three-player Gin hand by
hand; every WebSocket frame each page received is scanned against what its seat could know (the
leak scan of test_table_leak), so no page ever holds a card that only another page could see.

One guest plays on a phone (375×740): a whole turn fits its screen. The moves are made the ways
people make them: tapping cards and buttons, tapping a meld to lay off on it, dragging a card to
the discard pile, and keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect
from server_helpers import live_server, test_settings
from test_browser import WAIT, new_context, shot, watch
from test_leak import cards_in
from test_table_leak import TableTruth, scan

from ginrummy.rules import CardSet, GameRecord, min_deadwood

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 740}
POINTS = {r: min(i + 1, 10) for i, r in enumerate("A23456789TJQK")}

# One look at a table page, in a single evaluation so that its parts belong together.
LOOK = """() => {
  const t = document.querySelector('#table');
  if (!t) return null;
  const enabled = (id) => { const b = document.getElementById(id); return !!b && !b.disabled; };
  return {
    version: Number(t.dataset.version || -1), phase: t.dataset.phase, status: t.dataset.status,
    mine: t.classList.contains('my-turn'), pending: t.classList.contains('pending'),
    end: !!document.querySelector('#end'), showdown: !!document.querySelector('#showdown'),
    waiting: !!document.querySelector('#waiting'),
    goOut: enabled('go-out'), stock: enabled('draw-stock'), take: enabled('draw-discard'),
    pass: enabled('pass'), upcard: enabled('take-upcard'), knock: enabled('knock-button'),
    ready: document.querySelectorAll('#actions [data-action=meld-ready]').length,
    hand: [...document.querySelectorAll('#hand .card')].map(c => c.dataset.card),
    sittingOut: !document.querySelector('#sitting-out').hidden,
  };
}"""


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = test_settings(tmp_path_factory.mktemp("tables"), turn_seconds=None)
    with live_server(settings) as address:
        yield f"http://{address}"


class Guest:
    """One person in a browser: its page, the frames its table received, what it did."""

    def __init__(self, browser: Browser, url: str, name: str, *, phone: bool = False) -> None:
        size = PHONE if phone else {"width": 1280, "height": 800}
        self.context = new_context(browser, url, width=size["width"], height=size["height"], phone=phone)
        self.page = self.context.new_page()
        self.errors = watch(self.page)
        self.frames: list[str] = []
        self.page.on("websocket", self._socket)
        self.name = name
        self.phone = phone
        self.done: set[str] = set()  # the ways of moving this guest has used

    def _socket(self, ws: Any) -> None:
        ws.on(
            "framereceived",
            lambda payload: self.frames.append(payload if isinstance(payload, str) else payload.decode()),
        )

    def look(self) -> dict[str, Any]:
        state = self.page.evaluate(LOOK)
        assert state is not None, "the table page has no #table"
        return dict(state)

    def join(self, link: str) -> None:
        page = self.page
        page.goto(link)
        expect(page.locator("#join-form")).to_be_visible(timeout=WAIT)
        assert page.locator("#room-seat-list li").count() >= 3  # who sits there already
        page.fill("#join-name", self.name)
        page.click("#join-room")
        page.wait_for_url("**/m/*", timeout=WAIT)
        page.wait_for_selector("#table[data-version]", timeout=WAIT)

    def match_id(self) -> str:
        return self.page.url.rstrip("/").rsplit("/", 1)[1]

    def act(self) -> bool:
        """Make this seat's move if it has one (pressing Continue at a deal's end); True if it did."""
        page = self.page
        state = self.look()
        if state["showdown"]:
            page.click("#showdown-continue")
            return True
        if state["end"] or not state["mine"] or state["pending"]:
            return False
        if self.phone and "fits" not in self.done:
            height = page.evaluate("document.documentElement.scrollHeight")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert height <= PHONE["height"] and width <= PHONE["width"], (height, width)
            # The visible buttons (a state that just arrived may have changed which ones show).
            buttons = page.locator("#actions button:visible")
            last = buttons.last.bounding_box() if buttons.count() else None
            if last is not None:
                assert last["y"] + last["height"] <= PHONE["height"], last
                self.done.add("fits")
        before = state["version"]
        if state["goOut"]:
            page.click("#go-out")
        elif state["ready"]:
            page.locator("#actions [data-action=meld-ready]").first.click()
        elif state["upcard"] or state["pass"]:
            page.click("#pass" if state["pass"] else "#take-upcard")
        elif state["stock"] or state["take"]:
            if "keys" not in self.done:
                page.locator("body").press("s")  # keyboard play: S draws from the stock
                self.done.add("keys")
            else:
                page.click("#draw-stock" if state["stock"] else "#draw-discard")
        elif state["knock"]:
            page.click("#knock-button")
            page.click("dialog button[data-value=knock]")
        else:
            self.play_a_card(state)
        page.wait_for_function(
            "(v) => Number(document.querySelector('#table').dataset.version) > v || !!document.querySelector('#showdown, #end')",
            arg=before,
            timeout=WAIT,
        )
        return True

    def play_a_card(self, state: dict[str, Any]) -> None:
        """Lay a card off on a meld when one fits (tapping the meld, Rummy), else discard the card
        that leaves the least deadwood (once by dragging it to the pile)."""
        page = self.page
        playable = page.eval_on_selector_all(
            "#hand .card.discardable:not(.locked)", "(els) => els.map((el) => el.dataset.card)"
        )
        hand = CardSet(state["hand"])
        by_worth = sorted(playable, key=lambda c: min_deadwood(hand - CardSet([c])))
        if state["phase"] == "play":  # Rummy: try the two cards worth most to lose on the table first
            for card in sorted(playable, key=lambda c: -POINTS[c[0]])[:2]:
                page.click(f'#hand [data-card="{card}"]')
                spot = page.locator("#melds .meld-spot.can-lay")
                if spot.count():
                    spot.first.click()
                    self.done.add("layoff")
                    return
                page.click(f'#hand [data-card="{card}"]')  # not this one: put it back
        card = by_worth[0]
        page.click(f'#hand [data-card="{card}"]')
        if "drag" not in self.done:
            box = page.locator(f'#hand [data-card="{card}"]').bounding_box()
            pile = page.locator("#discard").bounding_box()
            assert box is not None and pile is not None
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            page.mouse.move(box["x"] + 30, box["y"] - 30, steps=4)
            page.mouse.move(pile["x"] + pile["width"] / 2, pile["y"] + pile["height"] / 2, steps=6)
            page.mouse.up()
            self.done.add("drag")
            return
        page.click("#discard-button")

    def close(self) -> None:
        self.context.close()


def create_room(page: Any) -> str:
    """Press Create private room; the room's link, once shown (and the host goes to the table)."""
    page.click("#create-room")
    expect(page.locator("#room-link")).to_be_visible(timeout=WAIT)
    link: str = page.input_value("#room-url")
    assert "/r/" in link
    page.click("#go-table")
    page.wait_for_selector("#table[data-version]", timeout=WAIT)
    return link


def play_until_the_end(guests: list[Guest], rounds: int = 4000) -> None:
    for _ in range(rounds):
        if all(g.look()["end"] and not g.look()["showdown"] for g in guests):
            return
        moved = False
        for guest in guests:
            moved = guest.act() or moved
        if not moved:
            guests[0].page.wait_for_timeout(50)
    raise AssertionError("the game never ended")


def leak_scan(guests: list[Guest], match_id: str) -> int:
    """Every frame of every page against what its seat could know at that moment."""
    # As text: the seeds are integers too large for a JavaScript number.
    replay = json.loads(
        guests[0].page.evaluate("async (id) => (await fetch(`/api/matches/${id}/replay`)).text()", match_id)
    )
    truth = TableTruth.of(GameRecord.from_json(replay["record"]))
    checked = 0
    seats = set()
    for guest in guests:
        frames = [f for f in guest.frames if f.startswith("{") and json.loads(f).get("type") != "pong"]
        mine = [f for f in frames if json.loads(f).get("match", {}).get("id", match_id) == match_id]
        states = [json.loads(f) for f in mine if json.loads(f)["type"] == "state"]
        seat = states[0]["match"]["seat"]
        seats.add(seat)
        checked += scan(truth, seat, mine)
    assert len(seats) == len(guests)
    return checked


def own_and_known(view: dict[str, Any]) -> tuple[set[str], dict[int, set[str]]]:
    """A view's own cards, and the cards it saw each other seat take and still hold."""
    if "tables" in view:
        own: set[str] = set()
        known: dict[int, set[str]] = {}
        for table in view["tables"]:
            for k, seat in enumerate(table["players"]):
                known[seat] = set(table["known"][k])
            if table["hand"] is not None:
                own = set(table["hand"])
        return own, known
    return set(view["hand"]), {s: set(cards) for s, cards in enumerate(view["known"])}


def shown_cards(view: dict[str, Any]) -> set[str]:
    """The cards a view names, but for those in its history of what was public or its own when it
    happened (discards, melds, layoffs, draws from the discard pile, its own stock draws): such a
    card may come back from a turned-over stock into another hand. Another seat's stock draw still
    counts: it must never name a card."""
    tables = view.get("tables") or [view]
    found = cards_in({k: v for k, v in view.items() if k not in ("history", "tables")})
    for table in tables:
        found |= cards_in({k: v for k, v in table.items() if k != "history"})
        found |= {
            entry["card"]
            for entry in table["history"]
            if entry["action"]["type"] == "draw"
            and entry["action"].get("source") == "stock"
            and entry["seat"] != view.get("seat")
            and entry.get("card")
        }
    return found


def cross_check(guests: list[Guest]) -> int:
    """Each page against the others, with nothing but their frames: at every version, no card in
    another page's own hand appears in this page's view, but the ones it saw that seat take."""
    by_page = []
    for guest in guests:
        states = {}
        for frame in guest.frames:
            message = json.loads(frame)
            if message.get("type") == "state" and message.get("view"):
                states[message["version"]] = message
        by_page.append(states)
    checked = 0
    for mine in by_page:
        for theirs in by_page:
            if theirs is mine:
                continue
            for version, state in mine.items():
                other = theirs.get(version)
                if other is None or other["view"]["hand_number"] != state["view"]["hand_number"]:
                    continue
                if "over" in {t.get("phase") for t in state["view"].get("tables") or [state["view"]]}:
                    # The deal is over: its result shows every hand and the deal itself, as at a
                    # real table (leak_scan checks those frames against the record).
                    continue
                seat = other["match"]["seat"]
                their_hand, _ = own_and_known(other["view"])
                my_hand, known = own_and_known(state["view"])
                shown = shown_cards(state["view"]) - my_hand
                leaked = (shown & their_hand) - known.get(seat, set())
                assert not leaked, (
                    f"version {version}: seat {state['match']['seat']} sees seat {seat}'s {leaked}"
                )
                checked += 1
    return checked


@pytest.mark.slow
def test_three_friends_and_a_robot_play_rummy_to_the_end_then_three_player_gin(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    ann = Guest(browser, url, "Ann")
    bea = Guest(browser, url, "Bea")
    cai = Guest(browser, url, "Cai", phone=True)
    guests = [ann, bea, cai]
    page = ann.page
    # Ann sets the table up on the home page: Rummy for four, two friends and a robot.
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    page.select_option("#room-game", "rummy")
    page.select_option("#room-players", "4")
    page.select_option("#room-target", "25")
    page.select_option("#turn-seconds", "0")
    expect(page.locator("#seat-choices select")).to_have_count(3)
    page.select_option("#seat-3", "casual")
    link = create_room(page)
    expect(page.locator("#waiting #seat-list li.free")).to_have_count(2, timeout=WAIT)
    assert page.locator("#hand .card").count() == 0  # nothing is dealt before every seat is taken
    bea.join(link)
    expect(page.locator("#waiting #seat-list li.free")).to_have_count(1, timeout=WAIT)
    cai.join(link)
    for guest in guests:
        expect(guest.page.locator("#hand .card")).to_have_count(7, timeout=WAIT)
        expect(guest.page.locator("#others .seat.other")).to_have_count(3)
    # Each game's own keys: Rummy lays melds and goes out, and has no pass and no knock.
    keys = page.inner_text("#keys-help")
    assert "M lay" in keys and "O go out" in keys and "knock" not in keys and "pass" not in keys, keys
    play_until_the_end(guests)
    assert {"drag", "keys", "fits"} <= set().union(*(g.done for g in guests))
    rummy_id = ann.match_id()
    shot(ann.page, artifacts_dir, "rummy-end-1280-en.png")
    assert leak_scan(guests, rummy_id) > 30 and cross_check(guests) > 30
    expect(ann.page.locator("#final-scores li")).to_have_count(4)

    # Three-player Gin, hand by hand: the dealer sits out and sees no hand.
    for guest in guests:
        guest.frames.clear()
        guest.done.clear()
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    page.select_option("#room-game", "gin3")
    page.select_option("#room-target", "25")
    page.select_option("#turn-seconds", "0")
    link = create_room(page)
    bea.join(link)
    cai.join(link)
    page.wait_for_selector("#table[data-game='gin3']")
    keys = page.inner_text("#keys-help")
    assert "K knock" in keys and "P pass" in keys and "M lay" not in keys and "go out" not in keys, keys
    hands_seen = set()
    for _ in range(4000):
        looks = [g.look() for g in guests]
        if all(x["end"] and not x["showdown"] for x in looks):
            break
        out = [g for g, x in zip(guests, looks, strict=True) if x["sittingOut"] and not x["showdown"]]
        for guest in out:
            assert guest.look()["hand"] == []  # the dealer holds no card and is shown none
            hands_seen.add(guest.page.locator("#table").get_attribute("data-hand"))
        moved = False
        for guest in guests:
            moved = guest.act() or moved
        if not moved:
            page.wait_for_timeout(50)
    assert hands_seen, "nobody was seen sitting a hand out"
    assert leak_scan(guests, ann.match_id()) > 30 and cross_check(guests) > 30
    for guest in guests:
        assert guest.errors == [], guest.errors
        guest.close()


def test_friends_take_the_seats_by_the_link_and_each_page_sees_only_its_own_cards(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    """The short journey of the default run: a Rummy room for four (two friends and a robot) set up
    on the home page, nothing dealt until the last seat is taken, a few moves by each (a tap, a
    key, a drag), a whole turn on the phone's screen, and every page's frames against the others'."""
    ann = Guest(browser, url, "Ann")
    bea = Guest(browser, url, "Bea")
    cai = Guest(browser, url, "Cai", phone=True)
    guests = [ann, bea, cai]
    page = ann.page
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    page.select_option("#room-game", "rummy")
    page.select_option("#room-players", "4")
    page.select_option("#turn-seconds", "0")
    page.select_option("#seat-3", "casual")
    link = create_room(page)
    expect(page.locator("#waiting #seat-list li.free")).to_have_count(2, timeout=WAIT)
    assert page.locator("#hand .card").count() == 0  # nothing is dealt before every seat is taken
    bea.join(link)
    cai.join(link)
    for guest in guests:
        expect(guest.page.locator("#hand .card")).to_have_count(7, timeout=WAIT)
    moves = dict.fromkeys(guests, 0)
    for _ in range(2000):
        if all(moves[g] >= 3 for g in guests) or any(g.look()["end"] for g in guests):
            break
        moved = False
        for guest in guests:
            if guest.act():
                moves[guest] += 1
                moved = True
        if not moved:
            page.wait_for_timeout(50)
    assert min(moves.values()) >= 3 or any(g.look()["end"] for g in guests), moves
    assert {"drag", "keys", "fits"} <= set().union(*(g.done for g in guests))
    shot(cai.page, artifacts_dir, "rummy-375-en.png")
    assert cross_check(guests) > 10
    for guest in guests:
        assert guest.errors == [], guest.errors
        guest.close()


# What a team Gin page says about turns: its status line, each seat's turn badge, the note about the
# two hands, and whether a team's name in the scoreboard is cut.
TEAM_LOOK = """() => ({
  status: document.getElementById('status').textContent,
  badges: [...document.querySelectorAll('#others .badge.turn')].map((b) => b.textContent),
  note: (() => { const n = document.getElementById('both-hands'); return n && n.offsetParent ? n.textContent : ''; })(),
  cut: [...document.querySelectorAll('#scoreboard .score-name')].filter((el) => el.scrollWidth > el.clientWidth + 1)
    .map((el) => el.textContent),
})"""


def test_team_gin_says_whose_turn_at_which_hand(browser: Browser, url: str, artifacts_dir: Path) -> None:
    ann = Guest(browser, url, "Ann")
    bea = Guest(browser, url, "Bea", phone=True)
    guests = [ann, bea]
    page = ann.page
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    page.select_option("#room-game", "gin4_teams")
    page.select_option("#room-target", "25")
    page.select_option("#turn-seconds", "0")
    expect(page.locator("#seat-choices select")).to_have_count(3)
    page.select_option("#seat-1", "novice")
    page.select_option("#seat-2", "friend")  # Ann's partner
    page.select_option("#seat-3", "novice")
    bea.join(create_room(page))
    badges: set[str] = set()
    noted = [False, False]  # each page has said that both hands are played at once
    for _ in range(400):
        looks = [g.page.evaluate(TEAM_LOOK) for g in guests]
        for k, look in enumerate(looks):
            noted[k] = noted[k] or "played at once" in look["note"]
            # One hand's line: one opponent's name, never a name from each hand joined by "&".
            assert "&" not in look["status"], look["status"]
            assert look["cut"] == [], look["cut"]
            badges |= set(look["badges"])
        if any(g.look()["showdown"] for g in guests):
            break
        moved = False
        for guest in guests:
            moved = guest.act() or moved
        if not moved:
            page.wait_for_timeout(50)
    assert badges and badges <= {"Their turn, at your hand", "Their turn, at the other hand"}, badges
    assert noted == [True, True]
    shot(bea.page, artifacts_dir, "team-gin-375-en.png")
    for guest in guests:
        assert guest.errors == [], guest.errors
        guest.close()
