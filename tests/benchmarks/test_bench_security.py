"""The abuse benchmarks run end to end on tiny budgets (their figures are read, no speed is asserted)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.mark.parametrize("chunked", [False, True])
def test_huge_bodies_are_refused_without_being_read(
    capsys: pytest.CaptureFixture[str], chunked: bool
) -> None:
    bench = _load("bench_body_limit")
    argv = ["--clients", "2", "--megabytes", "8", "--json"] + (["--chunked"] if chunked else [])
    assert bench.main(argv) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["clients"] == 2 and len(figures["answers"]) == 2
    for answer in figures["answers"]:
        # 413, or a reset when the server closed before the client read it; never the whole body read.
        assert answer["status"] in (413, None) and answer["sent_mib"] < 8
    assert figures["rss_peak_mib"] >= figures["rss_before_mib"] > 0


def test_the_flood_benchmark_measures_both_phases() -> None:
    # Run as a script: its flooder is another process started by multiprocessing.
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "bench_socket_flood.py"),
            "--sockets",
            "12",
            "--seconds",
            "4",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["alone"]["actions"] > 0 and figures["during_flood"]["actions"] > 0
    flood = figures["flood"]
    assert flood["sockets_tried"] == 12 and flood["sockets_open_after_0_5_s"] <= 8  # the guest's cap
