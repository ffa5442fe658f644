"""Fixtures of the server tests: a real Uvicorn server on loopback with a fresh SQLite database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_helpers import live_server, test_settings


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """ "127.0.0.1:PORT" of a server shared by one test module (robots move at once)."""
    with live_server(test_settings(tmp_path_factory.mktemp("server"))) as address:
        yield address
