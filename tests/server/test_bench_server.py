"""benchmarks/bench_server.py runs end to end on a tiny load (no speed is asserted)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest


def test_the_server_benchmark_plays_whole_matches(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_server.py"
    spec = importlib.util.spec_from_file_location("bench_server", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--matches", "2", "--level", "novice", "--timeout", "120", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["finished"] == 2 and figures["errors"] == 0
    assert figures["all_actions"] > figures["client_actions"] > 0
    assert figures["rtt_ms"]["p50"] > 0 and figures["store"]["jobs"] >= figures["all_actions"]
