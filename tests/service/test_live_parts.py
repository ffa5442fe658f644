"""The live match is made of narrow parts that never reach back to the platform, and nothing in\nthe service imports the platform back (no import loop)."""

from __future__ import annotations

import ast
from pathlib import Path

import ginrummy.service

SERVICE = Path(ginrummy.service.__file__).parent
LIVE_PARTS = ("live", "action_log", "turns", "connections", "wire", "seats")


def imports_of(module: str) -> set[str]:
    """The sibling modules of `ginrummy.service` that `module` imports, anywhere in it
    (also under TYPE_CHECKING and inside functions)."""
    tree = ast.parse((SERVICE / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def reachable(start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        module = todo.pop()
        for other in imports_of(module):
            if other not in seen and (SERVICE / f"{other}.py").exists():
                seen.add(other)
                todo.append(other)
    return seen


def test_the_live_match_never_imports_the_platform() -> None:
    for part in LIVE_PARTS:
        assert "platform" not in reachable(part), part


def test_no_part_of_the_live_match_imports_itself_back() -> None:
    for part in LIVE_PARTS:
        assert part not in reachable(part), f"{part} is in an import loop"


def test_no_module_of_the_service_imports_the_platform_back() -> None:
    """The platform's parts (analyses, challenges, tournaments) see it through `host.ServiceHost`."""
    for path in SERVICE.glob("*.py"):
        if path.stem != "__init__":  # the package's front door imports it, and nothing imports that
            assert "platform" not in reachable(path.stem), path.stem


def test_the_scan_sees_every_kind_of_relative_import() -> None:
    """The checks above can fail: the platform imports the live match, challenges import it
    under TYPE_CHECKING, and a module that imports the platform is seen."""
    assert "live" in reachable("platform")
    assert "live" in imports_of("challenges")  # under TYPE_CHECKING
    assert "platform" in reachable("__init__")
