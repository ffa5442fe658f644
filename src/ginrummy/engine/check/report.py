"""The engine checker's report: every check's outcome, with the exchange that shows it."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Check", "CheckReport", "Exchange", "Status"]

Status = Literal["pass", "fail", "warn", "skip"]


@dataclass(frozen=True, slots=True)
class Exchange:
    """One line of the conversation: who wrote it, when (seconds since the start), and the text."""

    direction: Literal["host", "engine", "stderr", "note"]
    at: float
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"direction": self.direction, "at": round(self.at, 4), "text": self.text}


@dataclass(slots=True)
class Check:
    """The outcome of one check: its status, what was found, and the exchange behind it."""

    name: str
    status: Status
    detail: str
    exchange: list[Exchange] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "detail": self.detail,
            "exchange": [e.to_json() for e in self.exchange],
        }


@dataclass(slots=True)
class CheckReport:
    """Every check run against one engine, with its answer times."""

    command: str
    engine_name: str | None = None
    checks: list[Check] = field(default_factory=list)
    answer_times: list[float] = field(default_factory=list)
    #: The protocol versions the engine accepted in a hello.
    protocols: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no check failed (warnings allowed)."""
        return not any(c.status == "fail" for c in self.checks)

    def count(self, status: Status) -> int:
        return sum(1 for c in self.checks if c.status == status)

    def to_json(self) -> dict[str, Any]:
        times = sorted(self.answer_times)
        return {
            "command": self.command,
            "engine": self.engine_name,
            "protocols": list(self.protocols),
            "ok": self.ok,
            "passed": self.count("pass"),
            "failed": self.count("fail"),
            "warnings": self.count("warn"),
            "skipped": self.count("skip"),
            "answers": len(times),
            "answer_ms_median": round(1000 * statistics.median(times), 3) if times else None,
            "answer_ms_max": round(1000 * times[-1], 3) if times else None,
            "checks": [c.to_json() for c in self.checks],
        }
