"""Shared test fixtures: real Chromium through Playwright, a fresh PostgreSQL database per test, artifacts.

Locally, browser and PostgreSQL tests skip when Chromium or GINRUMMY_TEST_POSTGRES_URL is missing.
CI (.ci/run) sets GINRUMMY_REQUIRE_BROWSER=1 and GINRUMMY_REQUIRE_POSTGRES=1: then a missing
dependency fails the test, and any skipped `browser` / `postgres` test fails the whole run.
`GINRUMMY_CI_RAY=1 .ci/run` also sets GINRUMMY_REQUIRE_RAY=1: then the Ray arena tests fail
without the `ray` extra instead of skipping.
Tests that use these fixtures get the `browser` / `postgres` marker automatically.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest
from hypothesis import settings

# No test has a time limit (these machines are shared and noisy), so neither does any Hypothesis
# example: its default deadline of 200 ms an example is one, and it failed a test under load.
settings.register_profile("ginrummy", deadline=None)
settings.load_profile("ginrummy")

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

    from cluster_helpers import RedisServer

# Flags for Debian's Chromium run as root in a sandboxed machine with no outside network:
# without the background-networking ones Chromium keeps dialling Google and gets refused.
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
)

REQUIRE_BROWSER = "GINRUMMY_REQUIRE_BROWSER"
REQUIRE_POSTGRES = "GINRUMMY_REQUIRE_POSTGRES"
REQUIRE_CLUSTER = "GINRUMMY_REQUIRE_CLUSTER"
REQUIRE_RAY = "GINRUMMY_REQUIRE_RAY"
_REQUIRED_MARKERS = {"browser": REQUIRE_BROWSER, "postgres": REQUIRE_POSTGRES, "cluster": REQUIRE_CLUSTER}
_BROWSER_FIXTURES = {"chromium_executable", "browser", "page"}
_POSTGRES_FIXTURES = {"postgres_url"}
_CLUSTER_FIXTURES = {"redis_server", "cluster_programs"}

_skipped_required: list[str] = []


def _required(variable: str) -> bool:
    return os.environ.get(variable, "").strip() not in ("", "0")


def _unavailable(message: str, variable: str) -> NoReturn:
    """Skip locally; fail when the environment says this dependency is required."""
    if _required(variable):
        pytest.fail(f"{message} ({variable}=1 requires it)", pytrace=False)
    pytest.skip(message)


# ---------------------------------------------------------------- markers and the skip guard


@pytest.hookimpl(tryfirst=True)  # before `-m` deselection, so `-m browser` sees the added markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & _BROWSER_FIXTURES and item.get_closest_marker("browser") is None:
            item.add_marker(pytest.mark.browser)
        if fixtures & _POSTGRES_FIXTURES and item.get_closest_marker("postgres") is None:
            item.add_marker(pytest.mark.postgres)
        if fixtures & _CLUSTER_FIXTURES and item.get_closest_marker("cluster") is None:
            item.add_marker(pytest.mark.cluster)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not report.skipped:
        return
    for marker, variable in _REQUIRED_MARKERS.items():
        if marker in report.keywords and _required(variable):
            _skipped_required.append(f"{report.nodeid} [{marker}, {report.when}]")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipped_required:
        terminalreporter.write_sep("=", "required browser/postgres/cluster tests were skipped", red=True)
        for line in _skipped_required:
            terminalreporter.write_line(line)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _skipped_required and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# ---------------------------------------------------------------- artifacts


@pytest.fixture(scope="session")
def artifacts_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where tests save screenshots and other evidence: $GINRUMMY_ARTIFACTS, else a temporary folder."""
    configured = os.environ.get("GINRUMMY_ARTIFACTS", "").strip()
    if not configured:
        return tmp_path_factory.mktemp("artifacts")
    path = Path(configured)
    path.mkdir(parents=True, exist_ok=True)
    return path


# ---------------------------------------------------------------- ray


@pytest.fixture(scope="session")
def ray_module() -> object:
    """The `ray` package (the `ray` extra): skipped without it, or failed under GINRUMMY_REQUIRE_RAY=1."""
    try:
        import ray
    except ImportError:
        _unavailable("the ray extra is not installed (pip install -e '.[ray]')", REQUIRE_RAY)
    return ray


# ---------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    """Path of the system Chromium (Debian's `chromium`), or $GINRUMMY_CHROMIUM."""
    configured = os.environ.get("GINRUMMY_CHROMIUM", "").strip()
    if configured:
        if not os.access(configured, os.X_OK):
            pytest.fail(f"GINRUMMY_CHROMIUM={configured!r} is not an executable file", pytrace=False)
        return configured
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    _unavailable("Chromium is not installed (Debian: apt-get install chromium)", REQUIRE_BROWSER)


# Module scope, not session: the sync Playwright API keeps an asyncio loop marked as running on the
# main thread while it is started, so a later `asyncio.run()` in an unrelated test would raise
# "cannot be called from a running event loop". Stopping it when the module ends confines that to
# browser modules (keep asyncio.run out of them; run servers in a thread or a subprocess).
@pytest.fixture(scope="module")
def browser(chromium_executable: str) -> Iterator[Browser]:
    """A headless Chromium driven through Playwright's sync API, shared by one test module."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        launched = playwright.chromium.launch(
            executable_path=chromium_executable, headless=True, args=list(CHROMIUM_ARGS)
        )
    except Exception:
        playwright.stop()
        raise
    try:
        yield launched
    finally:
        launched.close()
        playwright.stop()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page in its own fresh browser context (no cookies or storage shared between tests)."""
    context = browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


# ---------------------------------------------------------------- PostgreSQL


@pytest.fixture(scope="session")
def _postgres_server_url() -> str:
    """$GINRUMMY_TEST_POSTGRES_URL, checked once: a role that may create databases."""
    configured = os.environ.get("GINRUMMY_TEST_POSTGRES_URL", "").strip()
    if not configured:
        _unavailable("GINRUMMY_TEST_POSTGRES_URL is not set (scripts/ci-postgres.sh start)", REQUIRE_POSTGRES)
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(configured)
    if url.drivername == "postgresql":  # plain URLs would make SQLAlchemy look for psycopg2
        url = url.set(drivername="postgresql+psycopg")
    if url.drivername != "postgresql+psycopg":
        pytest.fail(f"GINRUMMY_TEST_POSTGRES_URL must be a postgresql+psycopg URL, not {url.drivername}")
    try:
        with psycopg.connect(_libpq_url(url.render_as_string(hide_password=False)), connect_timeout=10):
            pass
    except psycopg.Error as error:
        pytest.fail(f"cannot connect to GINRUMMY_TEST_POSTGRES_URL ({url!r}): {error}", pytrace=False)
    return url.render_as_string(hide_password=False)


def _libpq_url(sqlalchemy_url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(sqlalchemy_url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def postgres_url(_postgres_server_url: str) -> Iterator[str]:
    """SQLAlchemy URL of a new, empty database made for this test alone and dropped after it."""
    import psycopg
    from psycopg import sql
    from sqlalchemy.engine import make_url

    name = f"ginrummy_t_{uuid.uuid4().hex[:16]}"
    admin = _libpq_url(_postgres_server_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_url(_postgres_server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        # FORCE: a pool the test forgot to dispose must not keep the database alive. It may not end
        # the server's own autovacuum worker on that database (InsufficientPrivilege): that worker
        # is done in moments, so try again.
        drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        for attempt in range(40):
            try:
                with psycopg.connect(admin, autocommit=True) as conn:
                    conn.execute(drop)
                break
            except psycopg.errors.InsufficientPrivilege:
                if attempt == 39:
                    raise
                time.sleep(0.25)


# ---------------------------------------------------------------- Redis and HAProxy (clusters)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A private `redis-server` on a free loopback port for this test (stopped after it)."""
    from cluster_helpers import RedisServer

    binary = shutil.which("redis-server")
    if binary is None:
        _unavailable("redis-server is not installed (Debian: apt-get install redis-server)", REQUIRE_CLUSTER)
    server = RedisServer(binary, tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def cluster_programs() -> dict[str, str]:
    """Debian's `redis-server` and `haproxy` (a cluster test starts its own, on free ports)."""
    found = {}
    for name, package in (("redis-server", "redis-server"), ("haproxy", "haproxy")):
        path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
        if path is None:
            _unavailable(f"{name} is not installed (Debian: apt-get install {package})", REQUIRE_CLUSTER)
        found[name] = path
    return found
