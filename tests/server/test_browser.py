"""Browser journeys in real Chromium (Playwright) against a real `ginrummy serve` process.

A guest plays a whole match against a robot through the page and opens its replay; two friends
join through a private link and play a hand; the table survives the server being killed; the
browser's own deadwood and deal-verification code agree with the Python rules engine.
Screenshots go to `artifacts_dir`.

The tests must hold on a loaded two-core machine, where seconds can pass between two looks at a
page: anything that arrives asynchronously is waited for (Playwright auto-waiting, wait_for_*), a
showdown is held on screen by opening its deal verification (as a person reading it does) the
moment it appears, and counts are compared with the server's own record, not with what a poll
happened to catch.
"""

from __future__ import annotations

import json
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
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from ginrummy.rules import CardSet, best_arrangement, min_deadwood, parse_cards, seed_commitment
from ginrummy.rules.hand import deal_order

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Route, WebSocket

pytestmark = pytest.mark.browser

POINTS = {r: min(i + 1, 10) for i, r in enumerate("A23456789TJQK")}
# Milliseconds any single wait may take: generous, for a loaded CI machine (it bounds a hang; it is
# not a speed requirement).
WAIT = 60_000


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
        env.update(
            {
                "GINRUMMY_DATA_DIR": str(self.data_dir),
                "GINRUMMY_ROBOT_DELAY": "0",
                "GINRUMMY_HTTP_RATE_LIMIT": "0",
                "GINRUMMY_RATED_SAME_ADDRESS": "1",  # every page comes from 127.0.0.1
                "GINRUMMY_SOCKET_OPENS": "1000/1000",  # every page of every journey comes from 127.0.0.1
                "GINRUMMY_LOG_LEVEL": "warning",
            }
        )
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ginrummy.cli", "serve", "--port", str(self.port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the server exited with {self.process.returncode}: {self.log_path.read_text()}"
                )
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


# One look at the table, taken in a single evaluation so that its parts belong together.
TABLE_STATE = """() => {
  const t = document.querySelector('#table');
  if (!t) return null;
  const deadwood = document.querySelector('#deadwood-value');
  return {
    phase: t.dataset.phase, status: t.dataset.status, version: t.dataset.version,
    mine: t.classList.contains('my-turn'), pending: t.classList.contains('pending'),
    showdown: !!document.querySelector('#showdown'), end: !!document.querySelector('#end'),
    hand: [...document.querySelectorAll('#hand .card')].map(c => c.dataset.card),
    deadwood: deadwood ? deadwood.textContent : null,
  };
}"""

# Test instrumentation added to every page (not part of the client). Each showdown overlay is noted
# as it appears (its title and scores), and its deal verification is opened at once: the table keeps
# a showdown whose verification is being read on screen until Continue is pressed, so a test that
# looks a few seconds late (a loaded machine) still finds it instead of the next deal.
SHOWDOWN_WATCH = """(() => {
  const shown = [];
  Object.defineProperty(window, '__showdowns', { value: shown });
  const note = (overlay) => {
    shown.push({
      title: overlay.querySelector('.sd-title')?.textContent ?? '',
      scores: [...overlay.querySelectorAll('.sd-score')].map(e => e.dataset.seat + ':' + e.textContent),
    });
    const verify = overlay.querySelector('details.verify');
    if (verify) verify.open = true;
  };
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) if (node.nodeType === 1 && node.id === 'showdown') note(node);
    }
  }).observe(document, { childList: true, subtree: true });
})();"""

FETCH_JSON = """async (url) => { const r = await fetch(url); if (!r.ok) throw new Error(url + ': ' + r.status);
  return r.json(); }"""

WAIT_CHANGE = """([v]) => {
  const t = document.querySelector('#table');
  return t.dataset.version !== v || !!document.querySelector('#showdown') || !!document.querySelector('#end')
    || document.querySelector('#toast.show[data-kind=error]');
}"""


PAGE_NOTES = """() => ({
  connection: document.querySelector('#conn')?.textContent ?? null,
  toast: document.querySelector('#toast')?.textContent ?? null,
  motion: document.querySelector('#table')?.dataset.motion ?? null,
})"""


def table_state(page: Page) -> dict[str, Any]:
    state = page.evaluate(TABLE_STATE)
    assert state is not None, "the table page has no #table"
    return dict(state)


def shown_showdowns(page: Page) -> list[dict[str, Any]]:
    """Every showdown overlay this page has shown so far (see SHOWDOWN_WATCH)."""
    return list(page.evaluate("() => window.__showdowns"))


def whole_number(text: str) -> int:
    return int(text.replace(".", "").replace(",", "").strip())


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
    errors: list[str] = field(default_factory=list)  # the page's errors (`watch`), for failures

    def act(self) -> str | None:
        """One step if there is something to do: 'end', 'showdown', a move name, or None."""
        page = self.page
        state = table_state(page)
        if state["end"] and not state["showdown"]:
            return "end"
        if state["showdown"]:
            self.showdowns += 1
            overlay = page.wait_for_selector("#showdown")
            assert overlay is not None
            # Every finished hand offers its deal verification (SHOWDOWN_WATCH opened it, which holds
            # the overlay until Continue).
            expect(page.locator("#showdown details.verify[open]")).to_have_count(1, timeout=WAIT)
            if self.on_showdown:
                self.on_showdown(self)
            page.click("#showdown-continue")
            # This overlay goes; a hand that ended meanwhile may open the next one at once.
            page.wait_for_function("(el) => !el.isConnected", arg=overlay)
            return "showdown"
        if not state["mine"] or state["pending"] or state["status"] != "playing":
            return None
        # The deadwood count on the page is the least deadwood of the cards shown.
        cards = parse_cards(" ".join(state["hand"]))
        assert state["deadwood"] is not None and whole_number(state["deadwood"]) == min_deadwood(cards), state
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
        try:
            page.wait_for_function(WAIT_CHANGE, arg=[state["version"]])
        except PlaywrightTimeout:
            # Say what the page was showing, so that a move left unanswered can be told apart from
            # a page that stopped drawing (a script error) or a socket that went away.
            raise AssertionError(
                f"the page showed nothing new for a minute after {done}: before {state}, now"
                f" {table_state(page)}, {page.evaluate(PAGE_NOTES)}, page errors {self.errors}"
            ) from None
        error = page.query_selector("#toast.show[data-kind=error]")
        assert error is None, f"the page refused {done}: {error.inner_text()}"
        return done

    def pick_discard(self) -> str:
        page = self.page
        dead = page.eval_on_selector_all(
            "#hand .group.deadwood .card.discardable", "els => els.map(e => e.dataset.card)"
        )
        pool = dead or page.eval_on_selector_all(
            "#hand .card.discardable", "els => els.map(e => e.dataset.card)"
        )
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


def new_context(
    browser: Browser,
    base_url: str,
    *,
    width: int = 1200,
    height: int = 900,
    locale: str = "en-US",
    phone: bool = False,
) -> BrowserContext:
    # Reduced motion: no transitions, so cards are where they will stay when the test measures them.
    context = browser.new_context(
        base_url=base_url,
        viewport={"width": width, "height": height},
        locale=locale,
        is_mobile=phone,
        has_touch=phone,
        device_scale_factor=2 if phone else 1,
        reduced_motion="reduce",
    )
    context.set_default_timeout(WAIT)
    context.add_init_script(SHOWDOWN_WATCH)
    return context


@dataclass
class SocketLog:
    """The state messages a page's WebSockets received, as Playwright saw them on the wire."""

    sockets: int = 0
    states: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def attach(self, page: Page) -> SocketLog:
        page.on("websocket", self._opened)
        return self

    def _opened(self, ws: WebSocket) -> None:
        self.sockets += 1
        number = self.sockets
        ws.on("framereceived", lambda payload: self._frame(number, payload))

    def _frame(self, socket_number: int, payload: str | bytes) -> None:
        try:
            message = json.loads(payload)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("type") == "state":
            self.states.append((socket_number, message))

    def first_state_after(self, page: Page, socket_number: int) -> dict[str, Any]:
        """The first state received by a socket opened after socket `socket_number`."""
        deadline = time.monotonic() + WAIT / 1000
        while time.monotonic() < deadline:
            for number, message in self.states:
                if number > socket_number:
                    return message
            page.wait_for_timeout(50)  # lets Playwright deliver the socket events
        raise AssertionError(f"no state arrived on a new socket after socket {socket_number}")


def watch(page: Page) -> list[str]:
    """Collect uncaught script errors of a page (a broken module shows up here), and anything
    the Content-Security-Policy refused (an inline style or script the page depended on)."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and "Content Security Policy" in message.text
            else None
        ),
    )
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
    page.wait_for_selector("#main:not([data-loading])")
    shot(page, artifacts_dir, "home.png")
    page.fill("#name", "Alice")
    page.click("#save-name")
    page.wait_for_selector("#toast.show[data-kind=ok]")
    expect(page.locator("#name")).to_have_value("Alice", timeout=WAIT)
    page.check("input[name=level][value=novice]")
    page.select_option("#robot-target", "50")
    page.click("#play-robot")
    page.wait_for_url(re.compile(r"/m/[^/?#]+$"))
    match_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#hand .card")
    expect(page.locator("#scoreboard .score.mine .score-name")).to_have_text("You", timeout=WAIT)

    taken: dict[str, Path] = {}

    def on_discard(player: TablePlayer) -> None:
        if "table" in taken:
            return
        # A casual match gives hints: H asks for the expert's move, which is marked with its reason.
        expect(page.locator("#hint-button")).to_be_enabled(timeout=WAIT)
        page.keyboard.press("h")
        page.wait_for_selector("#hand .card.hinted, #knock-button.hinted, #big-gin-button.hinted")
        expect(page.locator("#last-move.hint")).to_contain_text("Hint: ", timeout=WAIT)
        taken["hint"] = shot(page, artifacts_dir, "table-hint.png")
        card = player.pick_discard()
        page.click(f'#hand [data-card="{card}"]')
        expect(page.locator(f'#hand [data-card="{card}"]')).to_have_attribute(
            "aria-pressed", "true", timeout=WAIT
        )
        expect(page.locator("#discard-button")).to_be_enabled(timeout=WAIT)
        taken["table"] = shot(page, artifacts_dir, "table.png")
        page.click(f'#hand [data-card="{card}"]')  # unselect again
        expect(page.locator(f'#hand [data-card="{card}"]')).to_have_attribute(
            "aria-pressed", "false", timeout=WAIT
        )

    def on_showdown(player: TablePlayer) -> None:
        if "showdown" in taken:
            return
        page.wait_for_selector("#showdown .sd-title")
        # sha256(seed) == commitment, and the commitment is the one published before the deal.
        page.wait_for_selector("#showdown .verify.ok")
        expect(page.locator("#showdown .checks li.ok")).to_have_count(2, timeout=WAIT)
        expect(page.locator("#showdown .checks li.bad")).to_have_count(0, timeout=WAIT)
        taken["showdown"] = shot(page, artifacts_dir, "showdown.png")
        if page.locator("#showdown-hold").count():
            # "Wait for me" stops the countdown and is remembered; unticking starts it again.
            page.check("#showdown-hold")
            expect(page.locator("#showdown-countdown")).to_have_text(
                "Waiting until you continue", timeout=WAIT
            )
            assert page.evaluate("() => localStorage.getItem('gr-showdown-hold')") == "1"
            page.uncheck("#showdown-hold")
            expect(page.locator("#showdown-countdown")).to_contain_text("Next deal in", timeout=WAIT)

    def on_knock(player: TablePlayer) -> None:
        # The Knock button is lit and names Gin at zero deadwood.
        label = page.inner_text("#knock-button")
        assert label in ("Knock", "Gin!")
        assert ("gin" in (page.get_attribute("#knock-button", "class") or "")) == (label == "Gin!")
        taken.setdefault("knock", shot(page, artifacts_dir, "table-knock.png"))

    def on_knock_dialog(player: TablePlayer) -> None:
        assert page.inner_text("#knock-explain")
        taken.setdefault("knock-confirm", shot(page, artifacts_dir, "knock-confirm.png"))

    player = TablePlayer(
        page,
        on_showdown=on_showdown,
        on_discard_phase=on_discard,
        on_knock=on_knock,
        on_knock_dialog=on_knock_dialog,
    )

    def match_over() -> bool:
        state = table_state(page)
        return bool(state["end"] and not state["showdown"])

    play([player], until=match_over)

    # Counted against the server's record of the match (its length is up to the random deal):
    # every hand's showdown was shown once and seen by the player, and every move the record holds
    # for the person's seat was made through the page, after checking the deadwood shown.
    record = page.evaluate(FETCH_JSON, f"/api/matches/{match_id}/replay")
    hands = record["hands"]
    my_steps = sum(1 for hand in hands for step in hand["steps"] if step["seat"] == 0)
    assert len(hands) == record["result"]["hands_played"] >= 1
    assert player.showdowns == len(shown_showdowns(page)) == len(hands)
    assert player.moves == player.checked_deadwood == my_steps >= 1
    assert "table" in taken and "showdown" in taken and "hint" in taken
    page.wait_for_selector("#end #rematch")
    mine = int(page.inner_text("#final-mine"))
    theirs = int(page.inner_text("#final-theirs"))
    assert max(mine, theirs) >= 50
    title = page.inner_text("#end-title")
    assert title == ("You win the match!" if mine > theirs else "Robot (Novice) wins the match")
    shot(page, artifacts_dir, "end.png")

    # The replay: every hand, move by move, with the deal verified in the browser.
    page.click("#open-replay")
    page.wait_for_url(f"**/replay/{match_id}*")
    page.wait_for_selector("#replay-step")
    expect(page.locator("#hand-select option")).to_have_count(len(hands), timeout=WAIT)
    page.wait_for_selector("#replay-side .verify.ok")
    # The hash and the deal reproduced from the seed.
    expect(page.locator("#replay-side .checks li.ok")).to_have_count(2, timeout=WAIT)
    expect(page.locator("#replay-board .card.back")).to_have_count(
        2, timeout=WAIT
    )  # only the stock is face down
    expect(page.locator("#replay-position")).to_contain_text("move 0 of", timeout=WAIT)
    first = page.inner_text("#replay-step")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-position")).to_contain_text("move 2 of", timeout=WAIT)
    expect(page.locator("#replay-step")).not_to_have_text(first, timeout=WAIT)
    page.keyboard.press("End")
    expect(page.locator("#replay-board .showdown")).to_have_count(1, timeout=WAIT)
    shot(page, artifacts_dir, "replay-showdown.png")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-position")).to_contain_text("move 1 of", timeout=WAIT)
    page.select_option("#perspective", "0")
    # From seat 0 the robot's cards are face down (stock backs + its hand).
    page.wait_for_function(
        "() => document.querySelectorAll('#replay-board .seat.opponent .card.back').length >= 7"
    )
    page.select_option("#perspective", "all")
    shot(page, artifacts_dir, "replay.png")

    # The computer analysis: asked for once, its progress shown, then each of the person's
    # decisions beside its move, marked with the numbers behind the mark.
    # Before it is asked for, the panel holds its title, what it is, and the button: nothing else.
    page.wait_for_selector("#analysis #analyse")
    assert "null" not in page.inner_text("#analysis")
    page.click("#analyse")
    page.wait_for_selector("#analysis-progress, #analysis-summary")
    page.wait_for_selector("#analysis-summary li[data-seat='0']")
    analysis = page.evaluate(FETCH_JSON, f"/api/matches/{match_id}/analysis")["analysis"]
    assert analysis["decisions"] and {d["seat"] for d in analysis["decisions"]} == {0}
    marked = [d for d in analysis["decisions"] if d["mark"]]
    # With no marked decision, one where the expert chose the same (a decision below every mark's
    # threshold may still differ from the expert's choice: its note shows the small cost instead).
    agreed = [d for d in analysis["decisions"] if d["choice"] == d["action"]]
    decision = marked[0] if marked else (agreed or analysis["decisions"])[0]
    page.select_option("#hand-select", str(decision["hand"] - 1))
    if marked:  # the hand's marked moves are listed beside it: the first one is this decision
        page.locator("#analysis-list li button").first.click()
    else:
        for _ in range(decision["step"] + 1):
            page.click("#next-step")
    expect(page.locator("#replay-position")).to_contain_text(f"move {decision['step'] + 1} of", timeout=WAIT)
    note = page.locator("#analysis-note")
    expect(note).to_be_visible(timeout=WAIT)
    if marked:
        expect(note).to_have_attribute("data-mark", decision["mark"], timeout=WAIT)
        expect(page.locator("#analysis-mark")).to_contain_text(decision["mark"].capitalize(), timeout=WAIT)
        cost = page.inner_text("#analysis-cost")
        assert re.search(r"costs \d+(\.\d)? ", cost) and " against " in cost, cost
        expect(page.locator("#analysis-list li")).not_to_have_count(0, timeout=WAIT)
    elif decision["choice"] == decision["action"]:
        expect(note).to_contain_text("The expert's choice too", timeout=WAIT)
    else:
        expect(page.locator("#analysis-cost")).to_contain_text(" against ", timeout=WAIT)
    shot(page, artifacts_dir, "replay-analysis.png")
    page.set_viewport_size({"width": 375, "height": 812})
    shot(page, artifacts_dir, "replay-phone.png")
    # Nothing sticks out sideways on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.set_viewport_size({"width": 1200, "height": 900})

    # Back at the table the end screen is still there (the showdown is not shown twice): rematch.
    page.go_back()
    page.wait_for_selector("#end #rematch")
    assert page.query_selector("#showdown") is None and shown_showdowns(page) == []
    page.click("#rematch")
    page.wait_for_url(lambda url: "/m/" in url and not url.endswith(match_id))
    page.wait_for_selector("#hand .card")
    expect(page.locator("#scoreboard .score.mine .score-value")).to_have_text("0", timeout=WAIT)

    # My matches lists it as finished, with a link to this replay, and the rematch in progress.
    page.goto("/matches")
    row = page.locator(f'.match-row[data-id="{match_id}"]')
    row.wait_for()
    expect(row.locator(".result")).to_have_text("Won" if mine > theirs else "Lost", timeout=WAIT)
    expect(row.locator(f'a[href="/replay/{match_id}"]')).to_have_count(1, timeout=WAIT)
    expect(page.locator(".match-row.playing")).to_have_count(1, timeout=WAIT)
    shot(page, artifacts_dir, "matches.png")

    # The language switch in the header, remembered by this browser.
    page.select_option("#lang-switch", "vi")
    page.wait_for_function("() => document.documentElement.lang === 'vi'")  # a function: CSP forbids eval
    page.wait_for_selector(".match-row")
    expect(page.locator("h1")).to_have_text("Trận của tôi", timeout=WAIT)
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    expect(page.locator("#play-robot")).to_have_text("Chơi với máy", timeout=WAIT)
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
    expect(guest.locator("#play-robot")).to_have_text("Chơi với máy", timeout=WAIT)
    shot(guest, artifacts_dir, "home-phone-vi.png")
    host.goto("/")
    host.wait_for_selector("#main:not([data-loading])")
    host.fill("#name", "Hana")
    host.click("#save-name")
    host.wait_for_selector("#toast.show[data-kind=ok]")
    expect(host.locator("#toast")).to_contain_text("Hana", timeout=WAIT)
    host.select_option("#turn-seconds", "120")
    host.click("#create-room")
    host.wait_for_selector("#room-link:not([hidden])")
    link = host.input_value("#room-url")
    assert re.fullmatch(re.escape(server.url) + r"/r/[A-Za-z0-9]{4,12}", link), link
    host.click("#go-table")
    host.wait_for_selector("#waiting")
    expect(host.locator("#waiting-link")).to_have_value(link, timeout=WAIT)
    shot(host, artifacts_dir, "room-waiting.png")

    # The friend is told who invites them to what, and asked for a name before sitting down.
    guest.goto(link)
    # Hana has no account: the invitation says so (nobody passes for an account's owner).
    expect(guest.locator("#room-title")).to_have_text("Hana (khách) mời bạn chơi Gin Rummy", timeout=WAIT)
    expect(guest.locator("#room-terms")).to_contain_text("120 giây mỗi nước", timeout=WAIT)
    expect(guest.locator("#join-name")).to_be_focused(timeout=WAIT)
    assert guest.input_value("#join-name") == ""
    assert re.fullmatch(r"Khách \d+", guest.get_attribute("#join-name", "placeholder") or "")
    shot(guest, artifacts_dir, "room-join-phone-vi.png")
    guest.fill("#join-name", "Minh")
    guest.click("#join-room")
    guest.wait_for_url(re.compile(r"/m/[^/?#]+$"))
    assert guest.url.rsplit("/", 1)[1] == host.url.rsplit("/", 1)[1]
    host.wait_for_selector("#waiting", state="detached")
    guest.wait_for_selector("#hand .card")
    host.wait_for_selector("#hand .card")

    # The guest's browser speaks Vietnamese: strings, card names and the opponent's name.
    assert guest.evaluate("document.documentElement.lang") == "vi"
    expect(guest.locator("#sort-melds")).to_have_text("Phỏm", timeout=WAIT)
    expect(guest.locator("#opponent-name")).to_have_text("Hana", timeout=WAIT)
    expect(host.locator("#opponent-name")).to_have_text("Minh", timeout=WAIT)
    expect(guest.locator("#opponent-guest")).to_have_text("(khách)", timeout=WAIT)
    expect(host.locator("#opponent-guest")).to_have_text("(guest)", timeout=WAIT)
    label = guest.get_attribute("#hand .card", "aria-label") or ""
    assert re.fullmatch(r"(A|[2-9]|10|J|Q|K) (chuồn|rô|cơ|bích)", label), label
    # People play with a turn clock: the mover sees it by the status line, the other by the opponent's
    # name. Both pages show the first offer (nobody has moved yet), each from its own side.
    mover = host if table_state(host)["mine"] else guest
    other = guest if mover is host else host
    expect(mover.locator(".clock")).to_have_count(1, timeout=WAIT)
    expect(mover.locator("#status #my-clock")).to_have_count(1, timeout=WAIT)
    expect(other.locator(".clock")).to_have_count(1, timeout=WAIT)
    expect(other.locator("#opponent #their-clock")).to_have_count(1, timeout=WAIT)
    expect(host.locator(".clock")).to_have_text(re.compile(r"^[0-2]:\d\d$"), timeout=WAIT)

    # Four-colour deck, saved in this browser.
    host.check("#four-colour")
    host.reload()
    host.wait_for_selector("#hand .card")
    expect(host.locator("body")).to_have_class(re.compile(r"\bfour-colour\b"), timeout=WAIT)

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

        return grab

    host_player = TablePlayer(
        host, on_discard_phase=host_discard, on_showdown=keep("showdown-friend.png", host)
    )
    guest_player = TablePlayer(
        guest, on_discard_phase=guest_discard, on_showdown=keep("showdown-phone-vi.png", guest)
    )

    # The host takes the first upcard when offered: the guest then sees that card in the host's hand.
    # The non-dealer is offered it first; when that is the guest, the guest passes it on.
    if mover is guest:
        assert table_state(guest)["phase"] == "offer"
        assert guest_player.act() == "pass"
        host_player.wait_turn()
    state = table_state(host)
    assert state["mine"] and state["phase"] == "offer" and not state["pending"], state
    upcard["card"] = host.get_attribute("#discard .card.top", "data-card") or ""
    host.click("#take-upcard")
    host.wait_for_function(WAIT_CHANGE, arg=[state["version"]])
    assert upcard["card"], "the host was offered no upcard"
    guest.wait_for_selector(f'#opponent-known [data-card="{upcard["card"]}"]')

    play(
        [host_player, guest_player], until=lambda: host_player.showdowns >= 1 and guest_player.showdowns >= 1
    )
    # The host's discard (or knock) after taking the upcard went through the page. No more can be
    # asked: that knock can end the hand at once, after the guest's pass at most.
    assert host_player.moves >= 1
    # Both were shown the hand's showdown once, with the same scores (seat order, so the same numbers).
    host_seen, guest_seen = shown_showdowns(host), shown_showdowns(guest)
    assert len(host_seen) == len(guest_seen) == 1, (host_seen, guest_seen)
    assert len(host_seen[0]["scores"]) == 2 and host_seen[0]["scores"] == guest_seen[0]["scores"]
    # A third person with the link finds the room full.
    third_context = new_context(browser, server.url)
    third = third_context.new_page()
    third.goto(link)
    expect(third.locator("#room-message")).to_contain_text("full", timeout=WAIT)
    assert "/r/" in third.url
    third_context.close()

    # The guest leaves: the host sees it at once.
    guest_context.close()
    host.wait_for_selector("#opponent-offline")
    shot(host, artifacts_dir, "opponent-left.png")
    assert errors == [] and errors_guest == []
    host_context.close()


def test_a_name_typed_while_the_home_page_is_still_loading_is_the_one_saved(
    browser: Browser, server: LiveServer
) -> None:
    # The page's first /api/me (which makes the guest) is held back while the person types and saves.
    context = new_context(browser, server.url)
    page = context.new_page()
    held: list[Route] = []

    def hold_first_lookup(route: Route) -> None:
        if route.request.method == "GET" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/me", hold_first_lookup)
    page.goto("/")
    page.wait_for_selector("#levels input")  # the page script runs; its lookup is on its way
    deadline = time.monotonic() + WAIT / 1000
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(20)  # lets Playwright deliver the intercepted request
    assert len(held) == 1, "the home page did not look up its guest"
    page.fill("#name", "Hana")
    page.click("#save-name")
    held[0].continue_()
    page.wait_for_selector("#main:not([data-loading])")
    page.wait_for_selector("#toast.show[data-kind=ok]")
    # The answer to the lookup did not replace the typed name, and the save renamed the same guest
    # (saving before the guest existed would have made a second one, and the cookie would point to
    # the unnamed one).
    expect(page.locator("#name")).to_have_value("Hana", timeout=WAIT)
    page.unroute("**/api/me")
    assert page.evaluate(FETCH_JSON, "/api/me")["name"] == "Hana"
    page.reload()
    page.wait_for_selector("#main:not([data-loading])")
    expect(page.locator("#name")).to_have_value("Hana", timeout=WAIT)
    context.close()


def test_table_reconnects_after_the_server_is_killed_and_plays_by_keyboard_and_drag(
    browser: Browser, tmp_path: Path, artifacts_dir: Path
) -> None:
    live = LiveServer(tmp_path / "data", tmp_path / "server.log").start()
    context = new_context(browser, live.url)
    page = context.new_page()
    sockets = SocketLog().attach(page)
    try:
        page.goto("/")
        page.wait_for_selector("#main:not([data-loading])")
        page.check("input[name=level][value=casual]")
        page.click("#play-robot")
        page.wait_for_url(re.compile(r"/m/[^/?#]+$"))
        page.wait_for_selector("#hand .card")
        player = TablePlayer(page)

        def turn_in(phase: str) -> None:
            for _ in range(200):
                state = table_state(page)
                if (
                    state["mine"]
                    and not state["pending"]
                    and state["phase"] == phase
                    and not state["showdown"]
                ):
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
        expect(page.locator(f'#hand [data-card="{focused}"]')).to_have_attribute(
            "aria-pressed", "true", timeout=WAIT
        )
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
        expect(page.locator("#hand")).to_have_attribute("data-sort", "custom", timeout=WAIT)
        new_order = table_state(page)["hand"]
        assert new_order[-1] == order[0] and sorted(new_order) == sorted(order)
        card = player.pick_discard()
        version = table_state(page)["version"]
        drag(page, f'#hand [data-card="{card}"]', "#discard")
        page.wait_for_function(WAIT_CHANGE, arg=[version])
        page.wait_for_function(f"() => !document.querySelector('#hand [data-card=\"{card}\"]')")

        # Kill the server mid-match; the page says so, then reconnects to the restarted server, which
        # rebuilt the match from its log: the same version and hand, and the page shows that state.
        turn_in("draw")
        before = table_state(page)
        opened = sockets.sockets
        live.kill()
        page.wait_for_selector("#conn:not([hidden])")
        shot(page, artifacts_dir, "reconnecting.png")
        live.start()
        page.wait_for_selector("#conn", state="hidden")
        fresh = sockets.first_state_after(page, opened)
        assert str(fresh["version"]) == before["version"]
        assert parse_cards(" ".join(fresh["view"]["hand"])) == parse_cards(" ".join(before["hand"]))
        page.wait_for_function(
            """([version, count]) => { const t = document.querySelector('#table');
              return t.dataset.version === version && document.querySelectorAll('#hand .card').length === count
                && t.classList.contains('my-turn') && !t.classList.contains('offline'); }""",
            arg=[before["version"], len(before["hand"])],
        )
        after = table_state(page)
        assert sorted(after["hand"]) == sorted(before["hand"]) and after["phase"] == "draw"
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


def test_browser_deadwood_and_deal_check_agree_with_the_rules_engine(
    browser: Browser, server: LiveServer
) -> None:
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
    seeds = ["0", "1", str(2**64 - 1), str(2**256 - 1)] + [
        str(rng.getrandbits(bits)) for bits in (64, 256) * 12
    ]
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
