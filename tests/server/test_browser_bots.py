"""A bot account in real Chromium, played by a real engine: an owner makes a bot on the account page
(its token shown once), `ginrummy connect` runs `ginrummy engine --bot casual` as the bot in real
subprocesses, a person challenges the bot from its profile and plays it through the table page to
the end of a short match; every frame the bridge received is scanned for hidden cards, and Ctrl+C
stops the bridge cleanly."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect
from server_helpers import live_server, test_settings
from test_browser import WAIT, TablePlayer, new_context, play, shot, table_state, watch
from test_leak import Truth, scan

from ginrummy.rules import GameRecord

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

PASSWORD = "a long enough secret"
FETCH_JSON = "async (path) => (await fetch(path)).json()"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(test_settings(tmp_path_factory.mktemp("botweb"))) as address:
        yield f"http://{address}"


def ginrummy_command() -> list[str]:
    """The installed `ginrummy` command, as a person would type it (else the module)."""
    found = shutil.which("ginrummy", path=str(Path(sys.executable).parent)) or shutil.which("ginrummy")
    return [found] if found else [sys.executable, "-m", "ginrummy.cli"]


def wait_for_line(path: Path, text: str, process: subprocess.Popen[bytes]) -> None:
    """Wait until the bridge's output has a line with `text` (bounded: a hang fails, not a slow run)."""
    deadline = time.monotonic() + WAIT / 1000
    while time.monotonic() < deadline:
        if text in path.read_text(encoding="utf-8", errors="replace"):
            return
        assert process.poll() is None, f"the bridge exited: {path.read_text()}"
        time.sleep(0.1)
    raise AssertionError(f"the bridge never said {text!r}: {path.read_text()}")


def make_bot(page: Page, artifacts_dir: Path) -> str:
    """Claim an account and make a bot on the account page; the token shown once."""
    page.goto("/account")
    page.fill("#claim-name", "Owner_7")
    page.fill("#claim-password", PASSWORD)
    page.click("#claim")
    page.wait_for_selector("#bots:not([hidden])")
    expect(page.locator("#bot-list")).to_contain_text("You have no bot yet.", timeout=WAIT)
    page.fill("#bot-name", "CasualBot")
    page.click("#bot-create")
    page.wait_for_selector("#token-box:not([hidden])")
    token = page.inner_text("#token-value").strip()
    shot(page, artifacts_dir, "account-bots.png")
    assert token.startswith("grb_")
    expect(page.locator("#bot-list .bot-row")).to_contain_text("CasualBot", timeout=WAIT)
    # Shown once: the page opened again lists the bot and never the token.
    page.reload()
    page.wait_for_selector("#bot-list .bot-row")
    assert page.locator("#token-box").is_hidden()
    assert token not in page.content()
    return token


def test_a_person_plays_a_real_engine_through_ginrummy_connect(
    browser: Browser, url: str, tmp_path: Path, artifacts_dir: Path
) -> None:
    owner_context = new_context(browser, url)
    owner = owner_context.new_page()
    errors = watch(owner)
    token = make_bot(owner, artifacts_dir)

    frames, output = tmp_path / "frames.jsonl", tmp_path / "bridge.log"
    engine = shlex.join([*ginrummy_command(), "engine", "--bot", "casual"])
    with output.open("wb") as out:
        bridge = subprocess.Popen(
            [*ginrummy_command(), "connect", "--server", url, "--engine", engine]
            + ["--log-frames", str(frames)],
            env={**os.environ, "GINRUMMY_BOT_TOKEN": token},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_line(output, "connected to", bridge)

        context = new_context(browser, url, width=375, height=740, phone=True)
        page = context.new_page()
        errors += watch(page)
        # People find it among the bots online (apart from their own boards), then on its profile.
        page.goto("/leaderboard")
        page.click('#bots-online a.button[href^="/players/"]')
        expect(page.locator("#bot-badge")).to_have_text("BOT", timeout=WAIT)
        expect(page.locator("#bot-online")).to_have_text("online", timeout=WAIT)
        page.select_option("#challenge-target", "10")
        shot(page, artifacts_dir, "bot-profile.png")
        page.click("#challenge-send")
        page.wait_for_url(re.compile(r"/m/[^/?#]+$"))
        match_id = page.url.rsplit("/", 1)[1]
        page.wait_for_selector("#hand .card")
        expect(page.locator("#opponent-bot")).to_have_text("BOT", timeout=WAIT)
        shot(page, artifacts_dir, "bot-table-phone.png")
        player = TablePlayer(page)

        def match_over() -> bool:
            state = table_state(page)
            return bool(state["end"] and not state["showdown"])

        play([player], until=match_over)
        expect(page.locator("#end #challenge-again")).to_have_attribute("href", "/@/CasualBot")
        shot(page, artifacts_dir, "bot-match-end.png")
        # Read by Python, not the page: the deal seeds are integers larger than a JavaScript number.
        with urllib.request.urlopen(f"{url}/api/matches/{match_id}/replay", timeout=30) as response:
            record = json.loads(response.read())
        assert max(record["result"]["scores"]) >= 10
        bot_seat = next(p["seat"] for p in record["players"] if p["name"] == "CasualBot")
        engine_moves = sum(1 for h in record["hands"] for s in h["steps"] if s["seat"] == bot_seat)
        person_moves = sum(1 for h in record["hands"] for s in h["steps"] if s["seat"] != bot_seat)
        # A match to 10 can end before the person's first turn (the engine takes the upcard and
        # knocks at once); every move the person had, the page made.
        assert engine_moves >= 1 and person_moves == player.moves, (engine_moves, person_moves, player)
        wait_for_line(output, f"game {match_id} is over", bridge)

        # Every frame the bridge received for the game names only cards its seat could see.
        sent = [json.loads(line) for line in frames.read_text(encoding="utf-8").splitlines()]
        game_frames = [f["text"] for f in sent if f["socket"] == f"game:{match_id}"]
        truth = Truth.of(GameRecord.from_json(record["record"]))
        assert scan(truth, bot_seat, game_frames) >= engine_moves

        # The bot's profile lists the game, rated in the bots' pool.
        page.goto("/@/CasualBot")
        expect(page.locator(f'.match-row[data-id="{match_id}"]')).to_have_count(1, timeout=WAIT)
        profile = page.evaluate(FETCH_JSON, "/api/players/@/CasualBot")
        assert profile["game"] == "gin_bot" and profile["rating"]["games"] == 1

        # Ctrl+C with no game going stops the bridge at once, cleanly.
        bridge.send_signal(signal.SIGINT)
        assert bridge.wait(timeout=WAIT / 1000) == 0, output.read_text()
        assert "stopped" in output.read_text()
        page.goto("/@/CasualBot")
        expect(page.locator("#bot-online")).to_have_text("offline", timeout=WAIT)
        assert errors == []
    finally:
        if bridge.poll() is None:
            bridge.kill()
            bridge.wait(10)
