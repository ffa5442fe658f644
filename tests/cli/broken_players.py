"""A computer player that breaks: for the tests that terminal play survives it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Broken:
    """Fails on its first move, plays `illegal(view)` on its second, then its first legal move."""

    name = "broken"

    def __init__(self, illegal: Callable[[Any], object]) -> None:
        self.illegal = illegal
        self.views: list[Any] = []

    def act(self, view: Any) -> object:
        self.views.append(view)
        if len(self.views) == 1:
            raise RuntimeError("out of cards")
        if len(self.views) == 2:
            return self.illegal(view)
        return view.legal[0]

    def observe(self, view: Any) -> None:
        return None
