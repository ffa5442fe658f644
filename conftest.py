"""Doctests (README and modules) see the whole public API, as a user's session would."""

from typing import Any

import pytest

import ginrummy


@pytest.fixture(autouse=True)
def _public_api_in_doctests(doctest_namespace: dict[str, Any]) -> None:
    for name in ginrummy.__all__:
        doctest_namespace[name] = getattr(ginrummy, name)
