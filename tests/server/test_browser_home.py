"""The home page's layout in real Chromium, on a laptop (1280×800) and a phone (375×740), in English
and Vietnamese: the level choices never overlap and show their whole names, every drop-down shows
its whole chosen option, and on the phone the top bar keeps the site's name and every page link on
the screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from test_browser import new_context, shot, watch

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

# Each level choice's box, and whether its contents are cut (wider than the box).
LEVELS = """() => [...document.querySelectorAll('#levels .choice')].map((el) => {
  const r = el.getBoundingClientRect();
  return {name: el.querySelector('.choice-name').textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
          cut: el.scrollWidth > el.clientWidth + 1};
})"""

# Each visible drop-down whose chosen option is wider than the room inside it (its arrow and
# padding taken off), measured in the drop-down's own font.
CUT_SELECTS = """() => {
  const canvas = document.createElement('canvas').getContext('2d');
  const out = [];
  for (const el of document.querySelectorAll('main select')) {
    if (!el.offsetParent || el.selectedIndex < 0) continue;
    const style = getComputedStyle(el);
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = el.options[el.selectedIndex].text;
    const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
    if (canvas.measureText(text).width > room) out.push(`${el.id}: ${text}`);
  }
  return out;
}"""

# The top bar on a phone: the site's name shown, and each page link whole on the screen.
TOP_BAR = """() => {
  const brand = document.querySelector('.brand');
  const links = [...document.querySelectorAll('.nav a')].map((a) => {
    const r = a.getBoundingClientRect();
    return {text: a.textContent.trim(), on: r.left >= 0 && r.right <= innerWidth && r.width > 0};
  });
  return {brand: brand.innerText.trim(), brandWidth: brand.getBoundingClientRect().width, links};
}"""


def _overlapping(boxes: list[dict[str, object]]) -> list[tuple[object, object]]:
    pairs = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["right"] <= b["left"]  # type: ignore[operator]
                or b["right"] <= a["left"]  # type: ignore[operator]
                or a["bottom"] <= b["top"]  # type: ignore[operator]
                or b["bottom"] <= a["top"]  # type: ignore[operator]
            )
            if not apart:
                pairs.append((a["name"], b["name"]))
    return pairs


@pytest.mark.parametrize("locale", ["en-US", "vi-VN"])
@pytest.mark.parametrize("size", [(1280, 800), (375, 740)], ids=["laptop", "phone"])
def test_home_page_choices_and_top_bar_fit(
    browser: Browser, host: str, artifacts_dir: Path, locale: str, size: tuple[int, int]
) -> None:
    width, height = size
    phone = width < 600
    context = new_context(browser, f"http://{host}", width=width, height=height, locale=locale, phone=phone)
    page = context.new_page()
    errors = watch(page)
    page.goto("/")
    page.wait_for_selector("#main:not([data-loading])")
    page.wait_for_selector("#levels .choice")

    levels = page.evaluate(LEVELS)
    assert len(levels) == 5
    assert _overlapping(levels) == [], levels
    assert [level["name"] for level in levels if level["cut"]] == []
    assert page.evaluate(CUT_SELECTS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    if phone:
        bar = page.evaluate(TOP_BAR)
        assert "Gin Rummy" in bar["brand"] and bar["brandWidth"] > 60, bar
        assert len(bar["links"]) >= 5 and all(link["on"] for link in bar["links"]), bar["links"]
    shot(page, artifacts_dir, f"home-{width}-{locale[:2]}.png")
    assert errors == []
    context.close()
