"""Render the app icons (PNG) from static/icons/icon.svg with Debian's Chromium: run after changing the SVG.

    .venv/bin/python scripts/make_icons.py

Browsers want PNG icons of 192 and 512 pixels to offer installing the site as an app; a
"maskable" one keeps the drawing inside the safe circle that phones cut icons to.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "src" / "ginrummy" / "server" / "static" / "icons"
SIZES = {"icon-192.png": (192, 1.0), "icon-512.png": (512, 1.0), "icon-maskable-512.png": (512, 0.72)}


def main() -> None:
    svg = (ICONS / "icon.svg").read_text(encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        for name, (size, scale) in SIZES.items():
            page = browser.new_page(viewport={"width": size, "height": size})
            inner = round(size * scale)
            page.set_content(
                f"""<html><body style="margin:0;width:{size}px;height:{size}px;display:grid;place-items:center;
                background:{"#0b4a2e" if scale < 1 else "transparent"}"><div style="width:{inner}px;height:{inner}px">{svg}</div></body></html>"""
            )
            page.eval_on_selector(
                "svg", "s => { s.setAttribute('width', '100%'); s.setAttribute('height', '100%'); }"
            )
            page.screenshot(path=str(ICONS / name), omit_background=scale == 1.0)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
