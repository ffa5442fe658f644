"""Accounts in real Chromium: sign up, sign out (the saved cookie then signs nobody in), a wrong
password says so in English and Vietnamese, the known browser signs in past a lockout, and a
guest's name carries its guest mark in a tournament's standings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect
from server_helpers import live_server, test_settings
from test_browser import WAIT, new_context, shot, watch

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

PASSWORD = "a long enough secret"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(test_settings(tmp_path_factory.mktemp("accounts"))) as address:
        yield f"http://{address}"


def _sign_in(page: Page, name: str, password: str) -> None:
    page.goto("/account")
    page.fill("#login-name", name)
    page.fill("#login-password", password)
    page.click("#sign-in")


def test_sign_up_sign_out_a_wrong_password_and_the_guest_mark(
    browser: Browser, url: str, artifacts_dir: Path
) -> None:
    owner_context = new_context(browser, url)
    english_context = new_context(browser, url)
    vietnamese_context = new_context(browser, url, locale="vi-VN", width=375, height=740, phone=True)
    try:
        owner = owner_context.new_page()
        errors = watch(owner)
        owner.goto("/account")
        owner.fill("#claim-name", "Lan_Anh")
        owner.fill("#claim-password", PASSWORD)
        owner.click("#claim")
        expect(owner.locator("#signed-in")).to_be_visible(timeout=WAIT)
        session = next(c["value"] for c in owner_context.cookies() if c["name"] == "gr_guest")
        me = owner.request.get("/api/me").json()
        assert me["account"] is True and me["guest"] is False

        # Signing out ends the session: the saved cookie, put back, signs nobody in.
        owner.click("#sign-out")
        owner.wait_for_url(f"{url}/", timeout=WAIT)
        thief = new_context(browser, url)
        try:
            thief.add_cookies([{"name": "gr_guest", "value": session, "url": url}])
            assert thief.request.get(f"{url}/api/me").json()["id"] != me["id"]
        finally:
            thief.close()

        # Wrong passwords from other browsers: said plainly, in each language.
        for context, wanted, tries in (
            (english_context, "Wrong name or password.", 3),
            (vietnamese_context, "Sai tên hoặc mật khẩu.", 2),
        ):
            page = context.new_page()
            errors += watch(page)
            for _ in range(tries):
                _sign_in(page, "lan_anh", "not the password")
                expect(page.locator("#toast.show[data-kind=error]")).to_have_text(wanted, timeout=WAIT)
            shot(page, artifacts_dir, f"account-wrong-password-{context is vietnamese_context}.png")
        # Five failures from this address lock the name for new browsers; the owner's browser signs in.
        page = english_context.pages[0]
        _sign_in(page, "lan_anh", PASSWORD)
        expect(page.locator("#toast.show[data-kind=error]")).to_have_text(
            "Too many attempts. Wait a moment and try again.", timeout=WAIT
        )
        _sign_in(owner, "lan_anh", PASSWORD)
        owner.wait_for_url("**/players/*", timeout=WAIT)
        expect(owner.locator("#profile-name")).to_have_text("Lan_Anh")

        # A guest in the owner's tournament shows as a guest; the owner does not.
        made = owner.request.post("/api/tournaments", data={"name": "Evening cup", "starts_in": 30}).json()
        owner.request.post(f"/api/tournaments/{made['id']}/join")
        guest = vietnamese_context.pages[0]
        guest.request.post("/api/me", data={"name": "Lan Anh fan"})
        guest.request.post(f"/api/tournaments/{made['id']}/join")
        guest.goto(f"/t/{made['id']}")
        links = guest.locator("#tournament .player-link")
        expect(links).to_have_count(2, timeout=WAIT)
        expect(guest.locator(".player-link", has_text="Lan Anh fan")).to_have_text("Lan Anh fan (khách)")
        expect(guest.locator(".player-link", has_text="Lan_Anh")).to_have_text("Lan_Anh")
        shot(guest, artifacts_dir, "tournament-guest-mark.png")
        assert not errors, errors
    finally:
        for context in (owner_context, english_context, vietnamese_context):
            context.close()
