"""pyproject.toml declares what the package imports: every third-party module that src/ginrummy
imports when a module is loaded comes from a distribution in `dependencies`; one imported only
where its absence is handled (inside a function, under `try: ... except ImportError`, under
`if TYPE_CHECKING:`, or in a package whose `__init__` guards that import) may instead come from
an optional-dependencies group."""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "ginrummy"
FIRST_PARTY = "ginrummy"


class Imported(NamedTuple):
    module: str  # top-level name, as imported
    line: int
    optional: bool  # imported only where its absence is handled


def _distribution(requirement: str) -> str:
    """The normalized distribution name of a requirement ("uvicorn[standard]>=0.29" -> "uvicorn")."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match is not None, f"cannot read the requirement {requirement!r}"
    return _normalize(match.group(1))


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        isinstance(kind, ast.Name) and kind.id in ("ImportError", "ModuleNotFoundError") for kind in kinds
    )


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def third_party_imports(source: str) -> list[Imported]:
    """The third-party modules a source imports, each marked optional when its absence is handled."""
    found: list[Imported] = []

    def add(node: ast.Import | ast.ImportFrom, optional: bool) -> None:
        if isinstance(node, ast.ImportFrom):
            names = [] if node.level or node.module is None else [node.module]
        else:
            names = [alias.name for alias in node.names]
        for name in names:
            top = name.split(".")[0]
            if top != FIRST_PARTY and top not in sys.stdlib_module_names and top != "__future__":
                found.append(Imported(top, node.lineno, optional))

    def walk(body: list[ast.stmt], optional: bool) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                add(node, optional)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                walk(node.body, True)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, optional)
            elif isinstance(node, ast.If):
                walk(node.body, optional or _type_checking(node.test))
                walk(node.orelse, optional)
            elif isinstance(node, ast.Try | ast.TryStar):
                guarded = any(_catches_import_error(h) for h in node.handlers if h.type is not None)
                walk(node.body, optional or guarded)
                for block in (node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                    walk(block, optional)
            elif isinstance(node, ast.With | ast.AsyncWith | ast.For | ast.AsyncFor | ast.While):
                walk(node.body, optional)
                walk(getattr(node, "orelse", []), optional)
            elif isinstance(node, ast.Match):
                for case in node.cases:
                    walk(case.body, optional)

    walk(ast.parse(source).body, False)
    return found


@functools.cache
def _module_distributions() -> dict[str, list[str]]:
    """Every installed distribution's top-level modules (reading them all takes a while: once)."""
    return dict(packages_distributions())


def _distributions_of(module: str) -> set[str]:
    """The distributions that provide a top-level module; an extra not installed here (no metadata)
    is taken to be named as its module."""
    return {_normalize(d) for d in _module_distributions().get(module, [module])}


def _guarded_at_top(init: Path) -> set[str]:
    """The third-party modules an `__init__` imports at its top level under `except ImportError`."""
    guarded: set[str] = set()
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers if h.type):
            guarded |= {i.module for i in third_party_imports(ast.unparse(ast.Module(node.body, [])))}
    return guarded


def test_the_walker_tells_load_time_imports_from_handled_ones() -> None:
    source = """
import fastapi
from sqlalchemy import orm
from . import rules
import json, ginrummy.rules
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    import playwright
try:
    import numpy
except ImportError:
    numpy = None
try:
    import redis
except ValueError:
    pass
def run():
    import ray
class Box:
    import rich
"""
    found = {(i.module, i.optional) for i in third_party_imports(source)}
    assert found == {
        ("fastapi", False),
        ("sqlalchemy", False),
        ("playwright", True),
        ("numpy", True),
        ("redis", False),
        ("ray", True),
        ("rich", False),
    }


def test_pyproject_declares_every_third_party_module_src_imports() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = {_distribution(r) for r in project["dependencies"]}
    optional = {_distribution(r) for group in project["optional-dependencies"].values() for r in group}
    sources = sorted(PACKAGE.rglob("*.py"))
    assert sources, f"no sources under {PACKAGE}"

    # A package whose __init__ guards an import (and says what to install) makes that module
    # optional for every module of the package: none of them loads without the __init__.
    guarded_by_package = {init.parent: _guarded_at_top(init) for init in PACKAGE.rglob("__init__.py")}

    missing: list[str] = []
    for path in sources:
        package_guards = set().union(*(guarded_by_package.get(p, set()) for p in path.parents))
        for imported in third_party_imports(path.read_text(encoding="utf-8")):
            distributions = _distributions_of(imported.module)
            handled = imported.optional or imported.module in package_guards
            if not distributions & (required | optional if handled else required):
                where = "any dependency group" if handled else "dependencies"
                missing.append(
                    f"{path.relative_to(REPO)}:{imported.line} imports {imported.module} "
                    f"({', '.join(sorted(distributions))}), not in {where}"
                )
    assert not missing, "\n".join(missing)
