"""The arena's progress bars: one line a pairing, with its running rate, on the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["arena_progress"]


def arena_progress(console: Console, *, show: bool, transient: bool) -> Progress:
    """Bars of `description`, completed of total, the `rate` field and the time taken; hidden
    unless `show`, and cleared at the end when `transient` (stdout then carries JSON only)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=console,
        disable=not show,
        transient=transient,
    )
