"""The `engine-check` subcommand: a conformance report for an outside engine (docs/protocol.md)."""

from __future__ import annotations

import json
import sys

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .root import app

_MARKS = {
    "pass": "[green]pass[/green]",
    "fail": "[red]FAIL[/red]",
    "warn": "[yellow]warn[/yellow]",
    "skip": "skip",
}
_ARROWS = {"host": "host →", "engine": "← engine", "stderr": "stderr", "note": "·"}


@app.command("engine-check")
def engine_check(
    command: str = typer.Argument(..., help='The engine\'s command line, e.g. "python3 my_engine.py".'),
    time_limit: float = typer.Option(10.0, "--time-limit", help="Seconds the engine may take per action."),
    hello_timeout: float = typer.Option(
        10.0, "--hello-timeout", help="Seconds the engine may take to start."
    ),
    matches: int = typer.Option(1, "--matches", help="Whole matches per rules preset against our baseline."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as one JSON object."),
) -> None:
    """Check that an engine speaks the protocol: versions 1 and 2, every game, phase and preset, edge
    cases, junk, result, quit; every reply against the message schemas.

    Exit status 0 when no check failed (warnings allowed), 1 when one did.
    """
    from ..engine.check import Check, check_engine

    console = Console(stderr=as_json)
    if time_limit <= 0 or hello_timeout <= 0:
        Console(stderr=True).print("[red]error:[/red] time limits must be positive")
        raise typer.Exit(2)
    if matches < 0:
        Console(stderr=True).print(f"[red]error:[/red] --matches must be 0 or more, got {matches}")
        raise typer.Exit(2)

    def progress(check: Check) -> None:
        if not as_json:
            console.print(f"{_MARKS[check.status]:>6}  {escape(check.name)}")

    if not as_json:
        console.print(
            f"Checking [bold]{escape(command)}[/bold] (protocol versions 1 and 2, {time_limit:g} s per action)"
        )
    report = check_engine(
        command, time_limit=time_limit, hello_timeout=hello_timeout, matches=matches, progress=progress
    )
    if as_json:
        sys.stdout.write(json.dumps(report.to_json()) + "\n")
        raise typer.Exit(0 if report.ok else 1)
    data = report.to_json()
    for check in report.checks:
        if check.status not in ("fail", "warn"):
            continue
        console.print()
        console.print(f"{_MARKS[check.status]} {escape(check.name)}")
        console.print(f"  {escape(check.detail)}")
        if check.exchange:
            table = Table(show_header=True, box=None, padding=(0, 1))
            table.add_column("s", justify="right")
            table.add_column("who")
            table.add_column("line", overflow="fold")
            for line in check.exchange:
                table.add_row(f"{line.at:.3f}", _ARROWS[line.direction], escape(line.text))
            console.print(table)
    console.print()
    name = f" ({escape(report.engine_name)})" if report.engine_name else ""
    spoken = " and ".join(str(v) for v in report.protocols)
    versions = f", speaking protocol {spoken}," if spoken else ""
    timing = ""
    if data["answers"]:
        timing = f"; {data['answers']} answers, median {data['answer_ms_median']} ms, slowest {data['answer_ms_max']} ms"
    verdict = "[green]conforms[/green]" if report.ok else "[red]does not conform[/red]"
    console.print(
        f"Engine{name}{versions} {verdict}: {data['passed']} passed, {data['failed']} failed, "
        f"{data['warnings']} warnings, {data['skipped']} skipped{timing}"
    )
    raise typer.Exit(0 if report.ok else 1)
