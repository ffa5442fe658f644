"""The test machinery itself: real Chromium, a fresh PostgreSQL database, and the skipped-test guard."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

if TYPE_CHECKING:
    from playwright.sync_api import Page

PAGE = """<!doctype html>
<html lang="vi"><head><meta charset="utf-8"><title>infra</title></head>
<body>
  <h1 id="greeting">Xin chào, 10♥ J♠</h1>
  <button id="knock" onclick="document.getElementById('out').textContent = 'knocked ' + (6 * 7)">Knock</button>
  <p id="out">waiting</p>
</body></html>
"""


class _PageHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        if self.path != "/":
            self.send_error(404)
            return
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        pass


@pytest.fixture
def page_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _PageHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.browser
def test_chromium_renders_a_localhost_page_runs_its_script_and_saves_a_screenshot(
    page: Page, page_server: str, artifacts_dir: Path
) -> None:
    response = page.goto(page_server)
    assert response is not None and response.status == 200
    assert page.inner_text("#greeting") == "Xin chào, 10♥ J♠"
    page.click("#knock")
    assert page.inner_text("#out") == "knocked 42"
    shot = artifacts_dir / "infra-localhost-page.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.postgres
def test_postgres_database_is_fresh_and_round_trips_a_row(postgres_url: str) -> None:
    engine = sa.create_engine(postgres_url)
    try:
        assert sa.inspect(engine).get_table_names() == []
        metadata = sa.MetaData()
        players = sa.Table(
            "players",
            metadata,
            sa.Column("id", sa.Integer, primary_key=True),
            sa.Column("name", sa.String(40), nullable=False),
            sa.Column("rating", sa.Float, nullable=False),
        )
        metadata.create_all(engine)
        with engine.begin() as conn:
            conn.execute(players.insert(), [{"name": "Người chơi ♠", "rating": 1512.5}])
        with engine.connect() as conn:
            rows = conn.execute(sa.select(players.c.name, players.c.rating)).all()
            server_version = conn.execute(sa.text("SHOW server_version")).scalar_one()
        assert [tuple(row) for row in rows] == [("Người chơi ♠", 1512.5)]
        assert engine.dialect.name == "postgresql" and server_version
    finally:
        engine.dispose()


GUARDED_TEST = """
import pytest

@pytest.mark.browser
def test_needs_a_browser() -> None:
    pytest.skip("no browser here")

def test_plain() -> None:
    assert True
"""


def _run_guarded_suite(tmp_path: Path, *, require_browser: bool) -> subprocess.CompletedProcess[str]:
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_guarded.py").write_text(GUARDED_TEST, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text(
        textwrap.dedent(
            """\
            [pytest]
            markers =
                browser: real Chromium
                postgres: real PostgreSQL
            """
        ),
        encoding="utf-8",
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GINRUMMY_", "PYTEST_"))}
    if require_browser:
        env["GINRUMMY_REQUIRE_BROWSER"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_skipped_browser_test_fails_the_run_only_when_browsers_are_required(tmp_path: Path) -> None:
    local = _run_guarded_suite(tmp_path, require_browser=False)
    assert local.returncode == 0, local.stdout + local.stderr
    assert "1 passed, 1 skipped" in local.stdout

    ci = _run_guarded_suite(tmp_path, require_browser=True)
    assert ci.returncode == 1, ci.stdout + ci.stderr
    assert "required browser/postgres/cluster tests were skipped" in ci.stdout
    assert "test_guarded.py::test_needs_a_browser [browser, call]" in ci.stdout
