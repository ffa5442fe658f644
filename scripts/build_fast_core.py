"""Build the fast core: `ginrummy.rules.masks` compiled by mypyc, as `ginrummy.rules._masks_compiled`.

Run: python scripts/build_fast_core.py [--clean]

Needs mypy (the `dev` extra; mypyc ships with it), a C compiler and the Python headers. The
extension lands next to its source, in src/ginrummy/rules/, where `ginrummy.rules.fast_core`
finds it; the generated C and the objects stay under build/fast_core/. Both are git-ignored.
`--clean` removes them, and the engine runs the Python source again.

The compiled module is the source of masks.py, unchanged, under another name, with one line
added: the SHA-256 of masks.py and of each module of the package it imports, so that
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
COMPILED = "_masks_compiled"
BUILD_DIR = ROOT / "build" / "fast_core"


def built_from(source: Path) -> list[tuple[str, str]]:
    """(file name, SHA-256) of `source` and of each module of its package it imports."""
    names = [source.name]
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            names.append(node.module.replace(".", "/") + ".py")
    return [(name, hashlib.sha256((source.parent / name).read_bytes()).hexdigest()) for name in names]


def clean() -> list[Path]:
    """Remove the extension and the build directory; the paths removed."""
    # The module, its runtime library (`_masks_compiled__mypyc...`), and the source copy a
    # build that failed may have left.
    removed = [
        path
        for path in PACKAGE.glob(f"{COMPILED}*")
        if path.suffix in (".so", ".pyd") or path.name == f"{COMPILED}.py"
    ]
    for path in removed:
        path.unlink()
    if BUILD_DIR.exists():
        shutil.rmtree(BUILD_DIR)
        removed.append(BUILD_DIR)
    return removed


def build() -> Path:
    """Compile masks.py under its second name; the path of the extension."""
    try:  # the dev extra's mypy and setuptools; imported here so that --clean needs neither
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as error:
        raise SystemExit(f"build_fast_core: {error.name} is needed: pip install -e '.[dev]'") from None

    clean()
    stamp = built_from(SOURCE)
    copy = PACKAGE / f"{COMPILED}.py"
    copy.write_text(
        SOURCE.read_text(encoding="utf-8")
        + "\n\n# Written by scripts/build_fast_core.py: the sources this build was compiled from.\n"
        + f"_BUILT_FROM = {tuple(stamp)!r}\n",
        encoding="utf-8",
    )
    BUILD_DIR.mkdir(parents=True)
    cwd = Path.cwd()
    try:
        # mypy names the module from the src/ layout (ginrummy.rules._masks_compiled) and
        # type-checks it against the real package, so the compiled code knows cards' types.
        os.chdir(ROOT / "src")
        extensions = mypycify([str(copy.relative_to(ROOT / "src"))], opt_level="3", target_dir=str(BUILD_DIR))
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
        copy.unlink()
    built = sorted((BUILD_DIR / "lib").rglob("*.so")) + sorted((BUILD_DIR / "lib").rglob("*.pyd"))
    if not built:
        raise SystemExit(f"build_fast_core: mypyc produced no extension under {BUILD_DIR / 'lib'}")
    for path in built:
        shutil.copy2(path, PACKAGE / path.name)
    return PACKAGE / built[0].name


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
