"""Run a benchmark on both builds of the card masks in one go: the Python source and the fast core.

A process runs one build (`ginrummy.rules.fast_core` chooses it at import), so `--build both`,
the default of the benchmarks that use this, runs the script twice more as child processes,
`--build python` (GINRUMMY_PURE_PYTHON=1) then `--build compiled`, each measuring its own
anchor (OpenSpiel, say) beside it; the parent prints their output and a summary of the figures
each child wrote. Without a compiled build (python scripts/build_fast_core.py) the compiled
run says so and is left out.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ginrummy.rules import fast_core

BUILDS = ("python", "compiled")


def add_build_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--build",
        choices=("both", *BUILDS),
        default="both",
        help="card-mask build to measure: both (default, one child process each), python or compiled",
    )
    parser.add_argument("--result-file", type=Path, default=None, help=argparse.SUPPRESS)


def wrong_build(build: str) -> str | None:
    """Why this process cannot measure `build`, or None when it runs that build."""
    if build == fast_core.BUILD:
        return None
    if build == "compiled":
        _, problem = fast_core.compiled_build()
        return problem or "no compiled build (python scripts/build_fast_core.py makes one)"
    return "this process runs the compiled build (run it with GINRUMMY_PURE_PYTHON=1)"


def write_result(path: Path | None, figures: dict[str, float]) -> None:
    """Hand this child's figures to the parent (`--result-file`)."""
    if path is not None:
        path.write_text(json.dumps(figures), encoding="utf-8")


def run_both(script: str, argv: list[str]) -> dict[str, dict[str, float]]:
    """Run `script` with `argv` once per build in child processes; each build's figures."""
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for build in BUILDS:
            result = Path(scratch) / f"{build}.json"
            env = {**os.environ, "GINRUMMY_PURE_PYTHON": "1" if build == "python" else "0"}
            print(f"=== {build} build ===", flush=True)
            command = [sys.executable, script, *argv, "--build", build, "--result-file", str(result)]
            status = subprocess.run(command, env=env, check=False).returncode
            if status != 0:
                raise SystemExit(f"the {build} run failed (exit status {status})")
            if result.exists():
                results[build] = json.loads(result.read_text(encoding="utf-8"))
    return results


def child_argv(argv: list[str] | None) -> list[str]:
    """The command line minus --build (the children get their own)."""
    args = list(sys.argv[1:] if argv is None else argv)
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--build":
            skip = True
            continue
        if arg.startswith("--build="):
            continue
        out.append(arg)
    return out
