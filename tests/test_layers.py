"""The package's imports flow one way: each package imports only packages on lower floors, and no
module imports, at load time, a module that (through others) imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

import ginrummy

ROOT = Path(ginrummy.__file__).parent

#: Each package's floor: a package may import only packages on a lower floor.
FLOORS = {
    "rules": 0,
    "bots": 1,
    "engine": 2,
    "env": 2,
    "service": 2,
    "arena": 3,
    "storage": 3,
    "server": 4,
    "cli": 5,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in ROOT.rglob("*.py") if "migrations" not in p.relative_to(ROOT).parts}


def _type_checking(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _load_time_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is loaded: its top level, and the blocks there (`try`,
    `if`), but not `if TYPE_CHECKING:` and not the bodies of functions."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and not _type_checking(node):
            found += _load_time_imports(node.body) + _load_time_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                found += _load_time_imports(block)
    return found


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    """The modules of this package that an import statement loads."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in known}
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    submodules = {f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in known}
    # `from . import masks` loads the submodule; the package itself counts when a name is its own.
    loaded = {source} if source in known and len(submodules) < len(node.names) else set()
    # A module's own packages are loaded before it (Python loads a package, then its modules).
    return {m for m in loaded | submodules if m != module and not module.startswith(f"{m}.")}


def _graph() -> dict[str, set[str]]:
    sources = _sources()
    known = set(sources)
    graph: dict[str, set[str]] = {}
    for module, path in sources.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[module] = set()
        for node in _load_time_imports(tree.body):
            graph[module] |= _targets(module, path.name == "__init__.py", node, known)
    return graph


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_package_has_a_floor_and_imports_only_lower_floors() -> None:
    sources = _sources()
    packages = {_package(m) for m in sources} - {None}
    assert packages <= set(FLOORS), f"packages without a floor: {sorted(packages - set(FLOORS))}"
    upward = []
    for module, path in sources.items():
        here = _package(module)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):  # every import, lazy ones and type-checking ones too
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _targets(module, path.name == "__init__.py", node, set(sources)):
                there = _package(target)
                if here and there and there != here and FLOORS[there] >= FLOORS[here]:
                    upward.append(f"{module} imports {target}")
    assert upward == []


def test_no_module_imports_itself_back_at_load_time() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_graph_sees_the_imports_it_checks() -> None:
    """The checks above would pass on an empty graph: make sure they read real edges."""
    graph = _graph()
    assert "ginrummy.rules.cards" in graph["ginrummy.rules.hand"]
    assert "ginrummy.rules.masks" in graph["ginrummy.rules.fast_core"]
    assert "ginrummy.service.ports" in graph["ginrummy.storage.sql.writer"]
    assert sum(len(targets) for targets in graph.values()) > 300
