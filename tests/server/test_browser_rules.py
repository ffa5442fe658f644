"""The table says which rules are played: every rule that differs from classic, in the page's language."""

from __future__ import annotations

from typing import TYPE_CHECKING

from test_browser import WAIT, LiveServer, new_context, server, watch

if TYPE_CHECKING:
    from playwright.sync_api import Browser

__all__ = ["server"]  # the module's live server fixture, shared with these tests

CUSTOM = {"preset": "hoyle", "gin_bonus": 0, "knock_limit": 7, "big_gin_bonus": 50}


def _open_table(browser: Browser, live: LiveServer, locale: str) -> tuple[str, str, list[str]]:
    context = new_context(browser, live.url, locale=locale)
    page = context.new_page()
    errors = watch(page)
    # The home page's own GET /api/me makes this context's guest: wait for its cookie, or the
    # match below may be made by a second guest whose cookie the first one's then replaces.
    with page.expect_response(lambda r: r.url.endswith("/api/me") and r.request.method == "GET"):
        page.goto("/")
    made = page.evaluate(
        """async (rules) => {
            const r = await fetch("/api/matches", {method: "POST", headers: {"Content-Type": "application/json"},
                body: JSON.stringify({level: "novice", rules})});
            return r.json();
        }""",
        CUSTOM,
    )
    assert "url" in made, made
    page.goto(made["url"])
    line = page.locator("#rules-line")
    try:
        line.wait_for(timeout=WAIT)
    except Exception as exc:  # say what the page showed instead
        raise AssertionError(
            f"no rules line; the page showed {page.inner_text('body')!r}; errors {errors}"
        ) from exc
    text = line.inner_text()
    info = page.locator(".score-info").inner_text()
    context.close()
    return text, info, errors


def test_the_table_header_lists_every_rule_that_is_not_classic(browser: Browser, server: LiveServer) -> None:
    text, info, errors = _open_table(browser, server, "en-US")
    assert errors == []
    for note in (
        "knock at 7 or less",
        "Gin bonus 0",
        "Big Gin 50",
        "cut for the first deal",
        "the loser deals next",
        "game bonus 100",
        "box bonus 25 per hand won",
        "shutout bonus 100",
    ):
        assert note in text, (note, text)
    assert "Custom rules" in info and "Hoyle" not in info  # hoyle with changes is not hoyle
    text, info, errors = _open_table(browser, server, "vi-VN")
    assert errors == []
    assert text.startswith("Luật:") and "gõ khi rác ≤ 7" in text and "thưởng Gin 0" in text
    assert "Luật tuỳ chỉnh" in info
