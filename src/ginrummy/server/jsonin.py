"""JSON from clients (HTTP bodies and WebSocket messages): nesting bounded, errors that say what was wrong."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_DEPTH", "JsonInputError", "loads"]

#: Deepest nesting a client may send. The deepest legitimate message nests two levels
#: ({"action": {...}} or {"rules": {...}}); Python's parser gives up with a RecursionError
#: near a thousand, which is far past anything sane and costly to reach.
MAX_DEPTH = 16

# An escape (consumed whole, so an escaped quote does not end a string), a quote or a bracket.
_TOKEN = re.compile(r'\\.|["\[\]{}]', re.DOTALL)


class JsonInputError(ValueError):
    """Client JSON that cannot be used; the message says why and is safe to send back."""


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in `text` (brackets inside strings do not count)."""
    depth = deepest = 0
    in_string = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == '"':
            in_string = not in_string
        elif in_string or token[0] == "\\":
            continue
        elif token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse client JSON nested at most `max_depth` levels; `JsonInputError` otherwise.

    >>> loads('{"action": {"type": "pass"}}')
    {'action': {'type': 'pass'}}
    >>> loads("[" * 20 + "]" * 20)
    Traceback (most recent call last):
    ...
    ginrummy.server.jsonin.JsonInputError: JSON nested too deeply: at most 16 levels of arrays and objects
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise JsonInputError("JSON must be UTF-8 text") from None
    # Counting brackets is cheap; only text that could nest too deeply is scanned properly.
    if text.count("[") + text.count("{") > max_depth and _depth(text) > max_depth:
        raise JsonInputError(f"JSON nested too deeply: at most {max_depth} levels of arrays and objects")
    try:
        return json.loads(text)
    except RecursionError:  # pragma: no cover - the depth check above comes first
        raise JsonInputError("JSON nested too deeply") from None
    except ValueError as exc:
        raise JsonInputError(f"not valid JSON ({_reason(exc)})") from None


def _reason(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at character {exc.pos}"
    return str(exc)[:200]
