"""Browser journeys in real Chromium (Playwright) against a real `ginrummy serve` process.

A guest plays a whole match against a robot through the page and opens its replay; two friends
join through a private link and play a hand; the table survives the server being killed; the
browser's own deadwood and deal-verification code agree with the Python rules engine.
Screenshots go to `artifacts_dir`.
"""

from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ginrummy.rules import CardSet, best_arrangement, min_deadwood, parse_cards
from ginrummy.rules.hand import deal_order
from ginrummy.rules.match import seed_commitment

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = pytest.mark.browser

POINTS = {r: min(i + 1, 10) for i, r in enumerate("A23456789TJQK")}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    """`ginrummy serve` in a subprocess on a free port with its own data directory."""

    data_dir: Path
    log_path: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LiveServer:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env.update({
            "GINRUMMY_DATA_DIR": str(self.data_dir),
            "GINRUMMY_ROBOT_DELAY": "0",
            "GINRUMMY_LOG_LEVEL": "warning",
        })
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ginrummy.cli", "serve", "--port", str(self.port)],
            env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}: {self.log_path.read_text()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/me", timeout=2) as response:
                    if response.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        raise RuntimeError(f"the server did not answer within a minute: {self.log_path.read_text()}")

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


TABLE_STATE = """() => {
  const t = document.querySelector('#table');
  if (!t) return null;
  return {
    phase: t.dataset.phase, status: t.dataset.status, version: t.dataset.version,
    mine: t.classList.contains('my-turn'), pending: t.classList.contains('pending'),
    showdown: !!document.querySelector('#showdown'), end: !!document.querySelector('#end'),
    hand: [...document.querySelectorAll('#hand .card')].map(c => c.dataset.card),
  };
}"""

WAIT_CHANGE = """([v]) => {
  const t = document.querySelector('#table');
  return t.dataset.version !== v || !!document.querySelector('#showdown') || !!document.querySelector('#end')
    || document.querySelector('#toast.show[data-kind=error]');
}"""


def table_state(page: Page) -> dict[str, Any]:
    state = page.evaluate(TABLE_STATE)
    assert state is not None, "the table page has no #table"
    return dict(state)


def shown_deadwood(page: Page) -> int:
    return int(page.inner_text("#deadwood-value").replace(".", "").replace(",", "").strip())


def melds_with(hand: list[str], card: str) -> bool:
    """True when `card` would sit in a meld of the best arrangement of `hand` plus it."""
    arrangement = best_arrangement(parse_cards(" ".join([*hand, card])))
    return any(parse_cards(card) <= meld for meld in arrangement.melds)


@dataclass
class TablePlayer:
    """Plays through the page like a plain person: pass the first upcard, take an upcard that makes
    a meld (clicking the pile), else draw from the stock; knock as soon as the Knock button lights up,
    else discard the highest deadwood card."""

    page: Page
    moves: int = 0
    showdowns: int = 0
    checked_deadwood: int = 0
    on_showdown: Any = None
    on_discard_phase: Any = None
    on_knock: Any = None
    on_knock_dialog: Any = None

    def act(self) -> str | None:
        """One step if there is something to do: 'end', 'showdown', a move name, or None."""
        page = self.page
        state = table_state(page)
        if state["end"] and not state["showdown"]:
            return "end"
        if state["showdown"]:
            self.showdowns += 1
            if self.on_showdown:
                self.on_showdown(self)
            page.click("#showdown-continue")
            page.wait_for_selector("#showdown", state="detached")
            return "showdown"
        if not state["mine"] or state["pending"] or state["status"] != "playing":
            return None
        # The deadwood count on the page is the least deadwood of the cards shown.
        cards = parse_cards(" ".join(state["hand"]))
        assert shown_deadwood(page) == min_deadwood(cards), state["hand"]
        self.checked_deadwood += 1
        phase = state["phase"]
        if phase == "offer":
            page.click("#pass")
            done = "pass"
        elif phase == "draw":
            upcard = page.get_attribute("#discard .card.top", "data-card")
            if upcard and page.is_enabled("#draw-discard") and melds_with(state["hand"], upcard):
                page.click("#discard")
                done = "take"
            else:
                page.click("#stock")
                done = "draw"
        elif phase == "discard":
            if self.on_discard_phase:
                self.on_discard_phase(self)
            if page.is_enabled("#knock-button"):
                if self.on_knock:
                    self.on_knock(self)
                page.click("#knock-button")
                page.wait_for_selector("dialog.confirm-knock")
                if self.on_knock_dialog:
                    self.on_knock_dialog(self)
                page.click("dialog.confirm-knock button[data-value=knock]")
                done = "knock"
            else:
                card = self.pick_discard()
                if page.get_attribute(f'#hand [data-card="{card}"]', "aria-pressed") != "true":
                    page.click(f'#hand [data-card="{card}"]')
                page.click("#discard-button")
                done = "discard"
        else:
            return None
        self.moves += 1
        page.wait_for_function(WAIT_CHANGE, arg=[state["version"]])
        error = page.query_selector("#toast.show[data-kind=error]")
        assert error is None, f"the page refused {done}: {error.inner_text()}"
        return done

    def pick_discard(self) -> str:
        page = self.page
        dead = page.eval_on_selector_all("#hand .group.deadwood .card.discardable", "els => els.map(e => e.dataset.card)")
        pool = dead or page.eval_on_selector_all("#hand .card.discardable", "els => els.map(e => e.dataset.card)")
        assert pool, "no card can be discarded"
        return max(pool, key=lambda c: (POINTS[c[0]], c))

    def wait_turn(self) -> None:
        """Wait until this page has something to do."""
        self.page.wait_for_function(
            """() => { const t = document.querySelector('#table');
              return (t.classList.contains('my-turn') && !t.classList.contains('pending'))
                || !!document.querySelector('#showdown') || !!document.querySelector('#end'); }"""
        )


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One real server for the journeys of this module (robots move at once)."""
    root = tmp_path_factory.mktemp("web")
    live = LiveServer(root / "data", root / "server.log").start()
    try:
        yield live
    finally:
        live.stop()


def new_context(browser: Browser, base_url: str, *, width: int = 1200, height: int = 900,
                locale: str = "en-US", phone: bool = False) -> BrowserContext:
    return browser.new_context(
        base_url=base_url, viewport={"width": width, "height": height}, locale=locale,
        is_mobile=phone, has_touch=phone, device_scale_factor=2 if phone else 1,
    )


def watch(page: Page) -> list[str]:
    """Collect uncaught script errors of a page (a broken module shows up here)."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def play(players: list[TablePlayer], until: Any, limit: int = 4000) -> None:
    """Let the players act in turn until `until()` is true."""
    for _ in range(limit):
        if until():
            return
        acted = False
        for player in players:
            if until():
                return
            if player.act() not in (None, "end"):
                acted = True
        if not acted:
            if len(players) == 1:
                if table_state(players[0].page)["end"]:
                    continue
                players[0].wait_turn()
            else:
                players[0].page.wait_for_timeout(25)
    raise AssertionError(f"the players did not get there: {table_state(players[0].page)}")


def shot(page: Page, artifacts_dir: Path, name: str) -> Path:
    path = artifacts_dir / name
    page.screenshot(path=str(path), full_page=True)
    return path


# ---------------------------------------------------------------- journeys


def test_guest_plays_a_whole_match_against_a_robot_then_replays_it(
    browser: Browser, server: LiveServer, artifacts_dir: Path
) -> None:
    context = new_context(browser, server.url)
    page = context.new_page()
    errors = watch(page)
    page.goto("/")
    shot(page, artifacts_dir, "home.png")
    page.fill("#name", "Alice")
    page.click("#save-name")
    page.wait_for_selector("#toast.show[data-kind=ok]")
    page.check("input[name=level][value=novice]")
    page.select_option("#robot-target", "50")
    page.click("#play-robot")
    page.wait_for_url(re.compile(r"/m/[^/?#]+$"))
    match_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#hand .card")
    assert page.inner_text("#scoreboard .score.mine .score-name") == "You"

    taken: dict[str, Path] = {}

    def on_discard(player: TablePlayer) -> None:
        if "table" in taken:
            return
        card = player.pick_discard()
        page.click(f'#hand [data-card="{card}"]')
        assert page.get_attribute(f'#hand [data-card="{card}"]', "aria-pressed") == "true"
        assert page.is_enabled("#discard-button")
        taken["table"] = shot(page, artifacts_dir, "table.png")
        page.click(f'#hand [data-card="{card}"]')  # unselect again

    def on_showdown(player: TablePlayer) -> None:
        if "showdown" in taken:
            return
        page.wait_for_selector("#showdown .sd-title")
        if page.query_selector("#showdown .verify"):
            page.click("#showdown .verify summary")
            # sha256(seed) == commitment, and the commitment is the one published before the deal.
            page.wait_for_selector("#showdown .verify.ok")
            assert page.locator("#showdown .checks li.ok").count() == 2
        taken["showdown"] = shot(page, artifacts_dir, "showdown.png")

    def on_knock(player: TablePlayer) -> None:
        # The Knock button is lit and names Gin at zero deadwood.
        label = page.inner_text("#knock-button")
        assert label in ("Knock", "Gin!")
        assert ("gin" in (page.get_attribute("#knock-button", "class") or "")) == (label == "Gin!")
        taken.setdefault("knock", shot(page, artifacts_dir, "table-knock.png"))

    def on_knock_dialog(player: TablePlayer) -> None:
        assert page.inner_text("#knock-explain")
        taken.setdefault("knock-confirm", shot(page, artifacts_dir, "knock-confirm.png"))

    player = TablePlayer(page, on_showdown=on_showdown, on_discard_phase=on_discard,
                         on_knock=on_knock, on_knock_dialog=on_knock_dialog)
    play([player], until=lambda: table_state(page)["end"] and not table_state(page)["showdown"])

    assert player.showdowns >= 1 and player.checked_deadwood > 5
    page.wait_for_selector("#end #rematch")
    mine = int(page.inner_text("#final-mine"))
    theirs = int(page.inner_text("#final-theirs"))
    assert max(mine, theirs) >= 50
    title = page.inner_text("#end-title")
    assert title == ("You win the match!" if mine > theirs else "Robot (novice) wins the match")
    shot(page, artifacts_dir, "end.png")

    # The replay: every hand, move by move, with the deal verified in the browser.
    page.click("#open-replay")
    page.wait_for_url(f"**/replay/{match_id}*")
    page.wait_for_selector("#replay-step")
    assert page.locator("#hand-select option").count() == player.showdowns
    page.wait_for_selector("#replay-side .verify.ok")
    assert page.locator("#replay-side .checks li.ok").count() == 2  # hash and deal reproduced from the seed
    assert page.locator("#replay-board .card.back").count() == 2  # only the stock is face down
    first = page.inner_text("#replay-step")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert "move 2 of" in page.inner_text("#replay-position")
    assert page.inner_text("#replay-step") != first
    page.keyboard.press("End")
    assert page.locator("#replay-board .showdown").count() == 1
    shot(page, artifacts_dir, "replay-showdown.png")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.select_option("#perspective", "0")
    # From seat 0 the robot's cards are face down (stock backs + its hand).
    assert page.locator("#replay-board .seat.opponent .card.back").count() >= 7
    page.select_option("#perspective", "all")
    shot(page, artifacts_dir, "replay.png")
    page.set_viewport_size({"width": 375, "height": 812})
    shot(page, artifacts_dir, "replay-phone.png")
    # Nothing sticks out sideways on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.set_viewport_size({"width": 1200, "height": 900})

    # Back at the table the end screen is still there (the showdown is not shown twice): rematch.
    page.go_back()
    page.wait_for_selector("#end #rematch")
    assert page.query_selector("#showdown") is None
    page.click("#rematch")
    page.wait_for_url(lambda url: "/m/" in url and not url.endswith(match_id))
    page.wait_for_selector("#hand .card")
    assert page.inner_text("#scoreboard .score.mine .score-value") == "0"

    # My matches lists it as finished, with a link to this replay, and the rematch in progress.
    page.goto("/matches")
    row = page.locator(f'.match-row[data-id="{match_id}"]')
    row.wait_for()
    assert row.locator(".result").inner_text() == ("Won" if mine > theirs else "Lost")
    assert row.locator(f'a[href="/replay/{match_id}"]').count() == 1
    assert page.locator(".match-row.playing").count() == 1
    shot(page, artifacts_dir, "matches.png")

    # The language switch in the header, remembered by this browser.
    page.select_option("#lang-switch", "vi")
    page.wait_for_function("document.documentElement.lang === 'vi'")
    page.wait_for_selector(".match-row")
    assert page.inner_text("h1") == "Trận của tôi"
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    assert page.inner_text("#play-robot") == "Chơi với máy"
    assert errors == []
    context.close()


def test_two_friends_play_a_hand_through_a_private_link(
    browser: Browser, server: LiveServer, artifacts_dir: Path
) -> None:
    host_context = new_context(browser, server.url)
    guest_context = new_context(browser, server.url, width=375, height=812, locale="vi-VN", phone=True)
    host = host_context.new_page()
    guest = guest_context.new_page()
    errors = watch(host)
    errors_guest = watch(guest)
    guest.goto("/")
    guest.wait_for_selector("#main:not([data-loading])")
    assert guest.inner_text("#play-robot") == "Chơi với máy"
    shot(guest, artifacts_dir, "home-phone-vi.png")
    host.goto("/")
    host.fill("#name", "Hana")
    host.click("#save-name")
    host.wait_for_selector("#toast.show[data-kind=ok]")
    host.select_option("#turn-seconds", "120")
    host.click("#create-room")
    host.wait_for_selector("#room-link:not([hidden])")
    link = host.input_value("#room-url")
    assert re.fullmatch(re.escape(server.url) + r"/r/[A-Za-z0-9]{4,12}", link), link
    host.click("#go-table")
    host.wait_for_selector("#waiting")
    assert host.input_value("#waiting-link") == link
    shot(host, artifacts_dir, "room-waiting.png")

    guest.goto(link)
    guest.wait_for_url(re.compile(r"/m/[^/?#]+$"))
    assert guest.url.rsplit("/", 1)[1] == host.url.rsplit("/", 1)[1]
    host.wait_for_selector("#waiting", state="detached")
    guest.wait_for_selector("#hand .card")
    host.wait_for_selector("#hand .card")

    # The guest's browser speaks Vietnamese: strings, card names and the opponent's name.
    assert guest.evaluate("document.documentElement.lang") == "vi"
    assert guest.inner_text("#sort-melds") == "Phỏm"
    # The name arrives with a later state message than the first cards: wait for it.
    guest.wait_for_function("document.querySelector('#opponent-name').textContent.trim() === 'Hana'")
    label = guest.get_attribute("#hand .card", "aria-label") or ""
    assert re.fullmatch(r"(A|[2-9]|10|J|Q|K) (chuồn|rô|cơ|bích)", label), label
    # People play with a turn clock: the mover sees it by the status line, the other by the opponent's name.
    clocks = sorted(host.eval_on_selector_all(".clock", "els => els.map(e => e.id)")
                    + guest.eval_on_selector_all(".clock", "els => els.map(e => e.id)"))
    assert clocks == ["my-clock", "their-clock"]
    assert re.fullmatch(r"[0-2]:\d\d", host.inner_text(".clock"))

    # Four-colour deck, saved in this browser.
    host.check("#four-colour")
    host.reload()
    host.wait_for_selector("#hand .card")
    assert host.evaluate("document.body.classList.contains('four-colour')")

    shots: dict[str, Path] = {}
    upcard: dict[str, str] = {}

    def guest_discard(player: TablePlayer) -> None:
        if "phone" not in shots:
            shots["phone"] = shot(guest, artifacts_dir, "table-phone-vi.png")

    def host_discard(player: TablePlayer) -> None:
        if "host" not in shots:
            shots["host"] = shot(host, artifacts_dir, "table-friend.png")

    def keep(name: str, page: Page) -> Any:
        def grab(player: TablePlayer) -> None:
            page.wait_for_selector("#showdown .sd-title")
            shots.setdefault(name, shot(page, artifacts_dir, name))
            scores = page.eval_on_selector_all("#showdown .sd-score", "els => els.map(e => e.dataset.seat + ':' + e.textContent)")
            shots.setdefault(name + ".scores", scores)  # type: ignore[arg-type]
        return grab

    host_player = TablePlayer(host, on_discard_phase=host_discard, on_showdown=keep("showdown-friend.png", host))
    guest_player = TablePlayer(guest, on_discard_phase=guest_discard, on_showdown=keep("showdown-phone-vi.png", guest))

    # The host takes the first upcard when offered: the guest then sees that card in the host's hand.
    def host_acts_on_offer() -> bool:
        state = table_state(host)
        if state["mine"] and state["phase"] == "offer" and not state["pending"]:
            upcard["card"] = host.get_attribute("#discard .card.top", "data-card") or ""
            host.click("#take-upcard")
            host.wait_for_function(WAIT_CHANGE, arg=[state["version"]])
            return True
        return False

    for _ in range(400):
        if host_acts_on_offer() or "card" in upcard:
            break
        if guest_player.act() is None:
            guest.wait_for_timeout(25)
    assert upcard.get("card"), "the host was never offered the first upcard"
    guest.wait_for_selector(f'#opponent-known [data-card="{upcard["card"]}"]')

    play([host_player, guest_player], until=lambda: host_player.showdowns >= 1 and guest_player.showdowns >= 1)
    assert host_player.moves + guest_player.moves >= 3
    # Both saw the same scores after the hand (seat order, so the same numbers).
    host_scores = shots["showdown-friend.png.scores"]
    assert len(host_scores) == 2 and host_scores == shots["showdown-phone-vi.png.scores"]  # type: ignore[comparison-overlap]
    # A third person with the link finds the room full.
    third_context = new_context(browser, server.url)
    third = third_context.new_page()
    third.goto(link)
    third.wait_for_function("document.querySelector('#room-message').textContent.includes('full')")
    assert "/r/" in third.url
    third_context.close()

    # The guest leaves: the host sees it at once.
    guest_context.close()
    host.wait_for_selector("#opponent-offline")
    shot(host, artifacts_dir, "opponent-left.png")
    assert errors == [] and errors_guest == []
    host_context.close()


def test_table_reconnects_after_the_server_is_killed_and_plays_by_keyboard_and_drag(
    browser: Browser, tmp_path: Path, artifacts_dir: Path
) -> None:
    live = LiveServer(tmp_path / "data", tmp_path / "server.log").start()
    context = new_context(browser, live.url)
    page = context.new_page()
    try:
        page.goto("/")
        page.check("input[name=level][value=casual]")
        page.click("#play-robot")
        page.wait_for_url(re.compile(r"/m/[^/?#]+$"))
        page.wait_for_selector("#hand .card")
        player = TablePlayer(page)

        def turn_in(phase: str) -> None:
            for _ in range(200):
                state = table_state(page)
                if state["mine"] and not state["pending"] and state["phase"] == phase and not state["showdown"]:
                    return
                if player.act() is None:
                    player.wait_turn()
            raise AssertionError(f"never reached the {phase} phase")

        # Keyboard: S draws from the stock; arrows move between cards; Enter selects; D discards.
        turn_in("draw")
        version = table_state(page)["version"]
        page.focus("#hand .card")
        page.keyboard.press("s")
        page.wait_for_function(WAIT_CHANGE, arg=[version])
        page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 11")
        page.focus("#hand .card.discardable")
        page.keyboard.press("ArrowRight")
        focused = page.evaluate("document.activeElement.dataset.card")
        assert focused
        if "locked" in (page.get_attribute(f'#hand [data-card="{focused}"]', "class") or ""):
            page.keyboard.press("ArrowRight")
            focused = page.evaluate("document.activeElement.dataset.card")
        page.keyboard.press("Enter")
        assert page.get_attribute(f'#hand [data-card="{focused}"]', "aria-pressed") == "true"
        version = table_state(page)["version"]
        page.keyboard.press("d")
        page.wait_for_function(WAIT_CHANGE, arg=[version])
        page.wait_for_function(f"() => !document.querySelector('#hand [data-card=\"{focused}\"]')")

        # Drag and drop: stock onto the hand draws, a card onto the discard pile discards.
        turn_in("draw")
        version = table_state(page)["version"]
        drag(page, "#stock", "#hand")
        page.wait_for_function(WAIT_CHANGE, arg=[version])
        page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 11")
        # Reorder: dragging a card within the hand switches to the player's own order.
        order = table_state(page)["hand"]
        drag(page, f'#hand [data-card="{order[0]}"]', f'#hand [data-card="{order[-1]}"]', dx=20)
        new_order = table_state(page)["hand"]
        assert new_order[-1] == order[0] and sorted(new_order) == sorted(order)
        assert page.get_attribute("#hand", "data-sort") == "custom"
        card = player.pick_discard()
        version = table_state(page)["version"]
        drag(page, f'#hand [data-card="{card}"]', "#discard")
        page.wait_for_function(WAIT_CHANGE, arg=[version])
        page.wait_for_function(f"() => !document.querySelector('#hand [data-card=\"{card}\"]')")

        # Kill the server mid-match; the page says so, then reconnects to the restarted server.
        turn_in("draw")
        before = table_state(page)
        live.kill()
        page.wait_for_selector("#conn:not([hidden])")
        shot(page, artifacts_dir, "reconnecting.png")
        live.start()
        page.wait_for_selector("#conn", state="hidden", timeout=60_000)
        after = table_state(page)
        assert sorted(after["hand"]) == sorted(before["hand"]) and after["version"] == before["version"]
        moves = player.moves
        for _ in range(200):
            if player.moves >= moves + 4 or table_state(page)["end"]:
                break
            if player.act() is None:
                player.wait_turn()
        assert player.moves >= moves + 4 or table_state(page)["end"]
    finally:
        context.close()
        live.stop()


def drag(page: Page, source: str, target: str, *, dx: float = 0) -> None:
    """Press on `source`, move in steps (pointer events) and release over `target`."""
    a = page.locator(source).first.bounding_box()
    b = page.locator(target).first.bounding_box()
    assert a and b
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(a["x"] + a["width"] / 2 + 15, a["y"] + a["height"] / 2 + 5, steps=3)
    page.mouse.move(b["x"] + b["width"] / 2 + dx, b["y"] + b["height"] / 2, steps=8)
    page.mouse.up()


# ---------------------------------------------------------------- the browser's own rules code


def random_hands(count: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    hands = []
    for n in range(count):
        size = rng.choice([10, 11, 10, 11, 4, 7])
        if n % 2:  # dense hands (few ranks) hold the sets and runs that compete for cards
            ranks = rng.sample(range(13), 5)
            pool = [s * 13 + r for s in range(4) for r in ranks]
        else:
            pool = list(range(52))
        cards = CardSet.from_mask(sum(1 << i for i in rng.sample(pool, size)))
        hands.append(cards.to_json())
    return hands


def test_browser_deadwood_and_deal_check_agree_with_the_rules_engine(browser: Browser, server: LiveServer) -> None:
    context = new_context(browser, server.url)
    page = context.new_page()
    page.goto("/matches")
    hands = random_hands(600, 2024)
    answers = page.evaluate(
        """async (hands) => {
          const m = await import('/static/js/melds.js');
          const c = await import('/static/js/cards.js');
          return hands.map(h => { const a = m.arrange(h);
            return [a.count, a.melds.map(x => x.map(c.cardCode)), a.deadwood.map(c.cardCode)]; });
        }""",
        hands,
    )
    for hand, (count, melds, deadwood) in zip(hands, answers, strict=True):
        cards = parse_cards(" ".join(hand))
        assert count == min_deadwood(cards) == best_arrangement(cards).deadwood, hand
        shown = [c for meld in melds for c in meld] + deadwood
        assert sorted(shown) == sorted(hand), hand  # every card once
        for meld in melds:
            assert min_deadwood(parse_cards(" ".join(meld))) == 0 and len(meld) >= 3, (hand, meld)
        assert sum(POINTS[c[0]] for c in deadwood) == count

    rng = random.Random(7)
    seeds = ["0", "1", str(2**64 - 1)] + [str(rng.getrandbits(64)) for _ in range(25)]
    checks = page.evaluate(
        """async (seeds) => {
          const v = await import('/static/js/verify.js');
          return Promise.all(seeds.map(async s => [v.dealOrder(s), await v.sha256Hex(s)]));
        }""",
        seeds,
    )
    for seed, (order, digest) in zip(seeds, checks, strict=True):
        assert order == deal_order(int(seed)), seed
        assert digest == seed_commitment(int(seed))
    context.close()
