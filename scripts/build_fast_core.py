"""Build the fast core: the card-mask API (`ginrummy.rules.masks` and `mask_deadwood`, which it
builds on) compiled by mypyc, as `ginrummy.rules._masks_compiled` and `_mask_deadwood_compiled`.

Run: python scripts/build_fast_core.py [--clean]

Needs mypy (the `dev` extra; mypyc ships with it), a C compiler and the Python headers. The
extensions land next to their sources, in src/ginrummy/rules/, where `ginrummy.rules.fast_core`
finds them; the generated C and the objects stay under build/fast_core/. Both are git-ignored.
`--clean` removes them, and the engine runs the Python source again.

Each compiled module is the source of its module, unchanged, under another name, except that
an import of another module of `MODULES` names that module's compiled twin (so the compiled
code calls compiled code, natively). The API module gets one line more: the SHA-256 of
masks.py and of each module of the package it imports, directly or through those, so that
`fast_core` can tell a build of other sources from a current one and never run it. Without a
build (a clone with only Python, no compiler), everything runs the Python source, as before.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "ginrummy" / "rules"
SOURCE = PACKAGE / "masks.py"
#: The module `fast_core` imports: the compiled card-mask API.
COMPILED = "_masks_compiled"
#: Each module compiled, with the name of its compiled twin (the API module last).
MODULES = {"mask_deadwood": "_mask_deadwood_compiled", "masks": COMPILED}
BUILD_DIR = ROOT / "build" / "fast_core"


def _package_imports(source: Path) -> list[ast.ImportFrom]:
    """The imports of `source` from other modules of its package (``from .name import ...``)."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    return [
        node for node in tree.body if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
    ]


def built_from(source: Path) -> list[tuple[str, str]]:
    """(file name, SHA-256) of `source` and of each module of its package it imports, directly
    or through another one, in the order they are first met."""
    names = [source.name]
    for name in names:  # grows as it is read: each module's imports after it
        for node in _package_imports(source.parent / name):
            assert node.module is not None
            imported = node.module.replace(".", "/") + ".py"
            if imported not in names:
                names.append(imported)
    return [(name, hashlib.sha256((source.parent / name).read_bytes()).hexdigest()) for name in names]


def compiled_source(source: Path) -> str:
    """The text of `source` as its compiled twin: each import of a module of `MODULES` names
    that module's twin instead."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    for node in _package_imports(source):
        twin = MODULES.get(node.module or "")
        if twin is not None:
            line = lines[node.lineno - 1]
            old, new = f"from .{node.module} import", f"from .{twin} import"
            if old not in line:
                raise SystemExit(f"build_fast_core: {source.name}:{node.lineno} does not read {old!r}")
            lines[node.lineno - 1] = line.replace(old, new, 1)
    return "".join(lines)


def clean() -> list[Path]:
    """Remove the extension and the build directory; the paths removed."""
    # The modules, their runtime library (`_masks_compiled__mypyc...`), and the source copies
    # a build that failed may have left.
    removed = [
        path
        for twin in MODULES.values()
        for path in sorted(PACKAGE.glob(f"{twin}*"))
        if path.suffix in (".so", ".pyd") or path.name == f"{twin}.py"
    ]
    for path in removed:
        path.unlink()
    if BUILD_DIR.exists():
        shutil.rmtree(BUILD_DIR)
        removed.append(BUILD_DIR)
    return removed


def build() -> Path:
    """Compile the modules of `MODULES` under their second names; the path of the API's extension."""
    try:  # the dev extra's mypy and setuptools; imported here so that --clean needs neither
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as error:
        raise SystemExit(f"build_fast_core: {error.name} is needed: pip install -e '.[dev]'") from None

    clean()
    copies = {
        PACKAGE / f"{twin}.py": compiled_source(PACKAGE / f"{name}.py") for name, twin in MODULES.items()
    }
    copies[PACKAGE / f"{COMPILED}.py"] += (
        "\n\n# Written by scripts/build_fast_core.py: the sources this build was compiled from.\n"
        + f"_BUILT_FROM = {tuple(built_from(SOURCE))!r}\n"
    )
    for copy, text in copies.items():
        copy.write_text(text, encoding="utf-8")
    BUILD_DIR.mkdir(parents=True)
    cwd = Path.cwd()
    try:
        # mypy names the modules from the src/ layout (ginrummy.rules._masks_compiled) and
        # type-checks them against the real package, so the compiled code knows cards' types.
        # One group, named after the API module: one runtime library beside it, as before.
        os.chdir(ROOT / "src")
        extensions = mypycify(
            [str(copy.relative_to(ROOT / "src")) for copy in copies],
            opt_level="3",
            target_dir=str(BUILD_DIR),
            group_name=f"ginrummy.rules.{COMPILED}",
        )
        setup(
            name="ginrummy-fast-core",
            ext_modules=extensions,
            script_args=[
                "--quiet",
                "build_ext",
                "--build-lib",
                str(BUILD_DIR / "lib"),
                "--build-temp",
                str(BUILD_DIR / "temp"),
            ],
        )
    finally:
        os.chdir(cwd)
        for copy in copies:
            copy.unlink()
    built = sorted((BUILD_DIR / "lib").rglob("*.so")) + sorted((BUILD_DIR / "lib").rglob("*.pyd"))
    if not built:
        raise SystemExit(f"build_fast_core: mypyc produced no extension under {BUILD_DIR / 'lib'}")
    for path in built:
        shutil.copy2(path, PACKAGE / path.name)
    api = [path for path in built if path.name.startswith(f"{COMPILED}.")]
    return PACKAGE / (api or built)[0].name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the build instead")
    args = parser.parse_args(argv)
    if args.clean:
        removed = clean()
        for path in removed:
            print(f"removed {path.relative_to(ROOT)}")
        if not removed:
            print("nothing to remove: no fast core is built")
        return 0
    start = time.perf_counter()
    path = build()
    print(f"built {path.relative_to(ROOT)} in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
