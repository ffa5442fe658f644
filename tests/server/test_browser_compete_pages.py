"""The competition pages in real Chromium, one journey on one server whose clock time-machine
holds at ten seconds to midnight UTC: on a phone (375×740) nothing sticks out sideways and every
page's content and actions can be reached (screenshots of each); the profile's rating chart starts
from the starting rating, has one point per rated match, labelled axes and a tooltip on a tap or
focus, and its statistics read as the scripted matches played; the home page
counts down to 00:00:00 UTC, lists the daily tournaments with their countdowns, and turns over
when the server's clock passes midnight."""

from __future__ import annotations

import asyncio
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import time_machine
from playwright.sync_api import expect
from server_helpers import live_server, test_settings
from test_browser import WAIT, new_context, shot, watch

from ginrummy.service import GameService
from ginrummy.service.ports import GuestRow, MatchRow, SeatRow
from ginrummy.storage import SqlStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
from compete_helpers import greedy_match  # noqa: E402

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 740}
SCRIPTED = (17, 16, 22, 36)  # compete_helpers.greedy_match seeds: Ann 9 hands, one Gin, one undercut
# Elements wider than the screen that scroll inside themselves by design (the header's page links).
SIDEWAYS = """() => {
  const inScroller = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
    }
    return false;
  };
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width && r.height && (r.right > innerWidth + 1 || r.left < -1) && !inScroller(el)) {
      out.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
  }
  return {scroll: document.documentElement.scrollWidth, out: out.slice(0, 8)};
}"""


async def _prepare(url: str) -> dict[str, str]:
    """Ann and Bob's scripted rated matches, and an arena four people joined; returns the ids."""
    service = GameService(SqlStore(url), secret="p" * 32)
    await service.start()
    try:
        people = [GuestRow(f"id-{n.lower()}-pages0", n, service.clock()) for n in ("Ann", "Bob", "Cy", "Dee")]
        for guest in people:
            await service.store.create_guest(guest)
        ann, bob = people[:2]
        for number, seed in enumerate(SCRIPTED):
            match = greedy_match(seed)
            row = MatchRow(
                id=f"pages-{seed}",
                kind="online",
                status="playing",
                rules=match.rules.to_json(),
                seed=str(match.seed),
                seats=(SeatRow(0, ann.id), SeatRow(1, bob.id)),
                created_at=service.clock() - 3600 + number,
                deal_bits=match.deal_bits,
                rated=True,
            )
            await service.store.create_match(row)
            assert match.result is not None
            at = service.clock() - 1800 + 60 * number
            outcome = service.outcome_of(match, row.seats, True, at)
            await service.store.finish_match(row.id, match.result.to_json(), at, outcome)
        arena = await service.tournaments.create(
            ann.id, {"name": "Phone arena with a rather long name", "starts_in": 90}
        )
        for guest in people:
            await arena.join(guest.id, guest.name)
        return {"ann": ann.id, "arena": arena.id}
    finally:
        await service.close()


def _prepared(folder: Path) -> tuple[str, dict[str, str]]:
    """The database of the journey (its URL) and the ids in it."""
    url = f"sqlite:///{folder / 'test.sqlite3'}"
    # Playwright's sync API keeps an event loop of its own in this thread: prepare in another.
    with ThreadPoolExecutor(1) as pool:
        return url, pool.submit(asyncio.run, _prepare(url)).result()


def _fits(page: Page, name: str) -> None:
    found = page.evaluate(SIDEWAYS)
    assert found["scroll"] <= PHONE["width"] and not found["out"], f"{name} sticks out sideways: {found}"
    text = page.locator("main").inner_text()
    assert "null" not in text and "undefined" not in text, f"{name} shows a missing value: {text!r}"
    # Every table shows as many headings as cells in each row (a column hidden on a phone is
    # hidden whole).
    for table in page.locator("main table").all():
        shown = table.evaluate(
            """t => [...t.rows].filter(r => !r.classList.contains('gap')).map(r =>
                [...r.cells].filter(c => getComputedStyle(c).display !== 'none').length)"""
        )
        assert len(set(shown)) <= 1, f"{name}: a table's rows show {shown} cells"


def _reachable(page: Page, selector: str) -> None:
    """Visible once scrolled to, and wholly on the screen sideways."""
    # Scrolled to and measured in one step inside the page, again until it holds: a live page
    # redraws on each message and may replace the element between two steps taken from here.
    measure = """([selector, width]) => {
      const el = document.querySelector(selector);
      if (!el) return null;
      el.scrollIntoView({block: 'nearest'});
      const r = el.getBoundingClientRect();
      const box = {x: r.left, width: r.width, top: r.top, bottom: r.bottom};
      return r.width > 0 && r.left >= 0 && r.right <= width + 1 && r.top >= 0 && r.bottom <= innerHeight + 1
        ? true : box;
    }"""
    try:
        page.wait_for_function(f"(args) => ({measure})(args) === true", arg=[selector, PHONE["width"]])
    except Exception as error:
        raise AssertionError((selector, page.evaluate(measure, [selector, PHONE["width"]]))) from error


def test_competition_pages_on_a_phone_and_the_countdown_to_utc_midnight(
    browser: Browser, tmp_path: Path, artifacts_dir: Path
) -> None:
    evening = datetime(2026, 12, 1, 23, 59, 50, tzinfo=UTC)
    # The server's clock stands still at ten seconds to midnight; the pages' own clocks run.
    with time_machine.travel(evening, tick=False) as traveller:
        url, ids = _prepared(tmp_path)
        with live_server(test_settings(tmp_path, database_url=url)) as address:
            _phone_pages(browser, f"http://{address}", ids, artifacts_dir)
            _home_countdown(browser, f"http://{address}", traveller, artifacts_dir)


def _phone_pages(browser: Browser, url: str, ids: dict[str, str], artifacts_dir: Path) -> None:
    context = new_context(browser, url, phone=True, **PHONE)
    try:
        page = context.new_page()
        errors = watch(page)

        page.goto(f"/t/{ids['arena']}")
        expect(page.locator("#standings tbody tr")).to_have_count(4, timeout=WAIT)
        shot(page, artifacts_dir, "phone-tournament.png")
        _fits(page, "the tournament page")
        for selector in ("#t-title", "#t-countdown", "#t-join", "#standings", "#t-link"):
            _reachable(page, selector)

        page.goto("/tournaments")
        expect(page.locator("#tournament-list li[data-id='daily-20261202-00']")).to_be_visible(timeout=WAIT)
        page.select_option("#t-start-mode", "at")
        shot(page, artifacts_dir, "phone-tournaments.png")
        _fits(page, "the tournaments page")
        for selector in ("#tournament-list", "#t-name", "#t-starts-at", "#t-create"):
            _reachable(page, selector)

        page.goto("/leaderboard")
        expect(page.locator("#board table.board tbody tr")).to_have_count(2, timeout=WAIT)
        shot(page, artifacts_dir, "phone-leaderboard.png")
        _fits(page, "the leaderboard")
        for selector in ("[data-board=today]", "[data-board=rating]", "#board-countdown", "#board table"):
            _reachable(page, selector)

        page.goto(f"/players/{ids['ann']}")
        chart = page.locator("svg.rating-chart")
        expect(chart).to_be_visible(timeout=WAIT)
        # The curve starts from the starting rating (when the first match began), then one point
        # per rated match, in the order played, each saying its rating.
        profile = page.request.get(f"/api/players/{ids['ann']}").json()
        history = profile["history"]
        assert len(history) == len(SCRIPTED) and history[0]["before"] == 1500
        assert profile["history_start"]["rating"] == 1500
        dots = chart.locator("circle.dot")
        expect(dots).to_have_count(len(SCRIPTED) + 1)
        expect(dots.first).to_have_class("dot start")
        expect(chart.locator("circle.dot.start")).to_have_count(1)
        titles = chart.locator("circle.dot title").all_text_contents()
        assert [int(text.split()[0]) for text in titles] == [1500] + [p["rating"] for p in history]
        xs = [float(x) for x in dots.evaluate_all("els => els.map(e => e.getAttribute('cx'))")]
        assert xs == sorted(xs) and len(set(xs)) == len(xs)
        # The axes say what they measure; the rating grid spans every point, the start included.
        expect(chart.locator("#chart-rating-axis")).to_have_text("Rating")
        expect(chart.locator("#chart-date-axis")).to_have_text("Date")
        grid = [int(v) for v in chart.locator("text.tick").all_text_contents()]
        ratings = [1500] + [p["rating"] for p in history]
        assert grid == sorted(grid) and grid[0] <= min(ratings) and grid[-1] >= max(ratings)
        # A tap on a point shows its value and date; so does keyboard focus (the points are in
        # the tab order, each labelled for a screen reader).
        tip = chart.locator("#chart-tip")
        expect(tip).to_have_attribute("visibility", "hidden")
        for index, text in ((len(SCRIPTED), str(history[-1]["rating"])), (0, "1500 at the start")):
            dots.nth(index).tap()
            expect(tip).to_have_attribute("visibility", "visible")
            expect(tip.locator(".tip-value")).to_have_text(text)
            date = tip.locator(".tip-date").text_content() or ""
            label = dots.nth(index).get_attribute("aria-label") or ""
            assert date and label.startswith(text.split()[0]) and label.endswith(date), (label, date)
        dots.nth(1).focus()
        expect(tip.locator(".tip-value")).to_have_text(str(history[0]["rating"]))
        assert dots.nth(1).get_attribute("tabindex") == "0"
        # The statistics of the scripted matches: 9 hands, one Gin, one undercut, knocks at 6.25.
        stats = {
            key: page.locator(f"[data-stat={key}] .stat-value").text_content()
            for key in ("matches", "win_rate", "gin_rate", "undercut_rate", "knocks", "knock_deadwood")
        }
        assert stats == {
            "matches": "4",
            "win_rate": "50 %",
            "gin_rate": "11.1 %",
            "undercut_rate": "11.1 %",
            "knocks": "4",
            "knock_deadwood": "6.3",
        }
        shot(page, artifacts_dir, "phone-profile.png")
        _fits(page, "the profile")
        for selector in ("#profile-name", "#profile-rating", "svg.rating-chart", ".match-row .button"):
            _reachable(page, selector)

        page.goto("/account")
        expect(page.locator("#signed-out")).to_be_visible(timeout=WAIT)
        shot(page, artifacts_dir, "phone-account.png")
        _fits(page, "the account page")
        for selector in ("#claim-name", "#claim-password", "#claim", "#login-name", "#sign-in"):
            _reachable(page, selector)
        assert not errors, errors
    finally:
        context.close()


def _home_countdown(
    browser: Browser, url: str, traveller: time_machine.Traveller, artifacts_dir: Path
) -> None:
    context = new_context(browser, url)
    try:
        page = context.new_page()
        errors = watch(page)
        page.goto("/")
        clock = page.locator("#daily-countdown")
        page.wait_for_function("() => Number(document.querySelector('#daily-countdown')?.dataset.left) > 0")
        # Both read at once: the clock ticks every 250 ms, and two reads may straddle a tick.
        left, text = page.evaluate(
            "() => { const c = document.querySelector('#daily-countdown');"
            " return [Number(c.dataset.left), c.textContent]; }"
        )
        assert 0 < left <= 10 and text == f"00:00:{left:02d}"
        # The next 24 hours of daily tournaments, each counting down to its start.
        items = page.locator("#home-tournaments li")
        expect(items).to_have_count(6)
        starts = {
            "daily-20261202-00": 0,
            "daily-swiss-20261202-03": 3,
            "daily-20261202-06": 6,
            "daily-20261202-12": 12,
            "daily-swiss-20261202-15": 15,
            "daily-20261202-18": 18,
        }
        assert page.locator("#home-tournaments li").evaluate_all("els => els.map(e => e.dataset.id)") == list(
            starts
        )
        for tid, hour in starts.items():
            countdown = page.locator(f"#home-tournaments li[data-id='{tid}'] .countdown")
            seconds = int(countdown.get_attribute("data-left") or "-1")
            assert hour * 3600 <= seconds <= hour * 3600 + 10, (tid, seconds)
        shot(page, artifacts_dir, "home-countdown-before-midnight.png")

        # Midnight passes on the server; the page's countdown reaches 00:00:00 and it reloads
        # the boards: a new day to count down, and the midnight arena has begun.
        traveller.move_to(datetime(2026, 12, 2, 0, 0, 3, tzinfo=UTC))
        page.wait_for_function(
            "() => Number(document.querySelector('#daily-countdown')?.dataset.left) > 80000"
        )
        left = int(clock.get_attribute("data-left") or "-1")
        assert 86400 - 3 - 10 <= left <= 86400 - 3  # to the next midnight, from 00:00:03
        first = page.locator("#home-tournaments li[data-id='daily-20261202-00']")
        expect(first).to_contain_text("Ends in")
        seconds = int(first.locator(".countdown").get_attribute("data-left") or "-1")
        assert 3600 - 3 - 10 <= seconds <= 3600 - 3  # an hour long, begun three seconds ago
        shot(page, artifacts_dir, "home-countdown-after-midnight.png")
        assert not errors, errors
    finally:
        context.close()
