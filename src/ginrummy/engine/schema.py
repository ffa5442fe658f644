"""The JSON Schemas (draft 2020-12) of every protocol message, shipped in `schemas/`, and checks against them.

Each version has one schema per message (`host-hello`, `act`, `result`, `quit` from the host;
`engine-hello`, `action`, `error` from an engine), one for any message of each side
(`host-message`, `engine-message`) and the parts they share (`defs`). A schema's `$id` is
``urn:ginrummy:protocol:<version>:<name>``; they refer to each other by those ids, so load the
whole folder into a validator (as `validator` does here). docs/protocol.md describes them.

>>> problems({"type": "quit"}, "quit", 1)
[]
>>> [p.text for p in problems({"type": "action", "id": 1, "action": {"type": "fold"}}, "action", 1)]
["action.type: 'fold' is not one of ['pass', 'draw', 'discard', 'knock', 'big_gin']"]
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

__all__ = ["MESSAGES", "SchemaProblem", "problems", "schema", "schema_id", "validator"]

#: Every message schema of a version: the host's four, an engine's three, and either side's any.
MESSAGES: Final = (
    "host-hello",
    "act",
    "result",
    "quit",
    "engine-hello",
    "action",
    "error",
    "host-message",
    "engine-message",
)
VERSIONS: Final = (1, 2)


def schema_id(name: str, version: int) -> str:
    """The `$id` of a schema: ``urn:ginrummy:protocol:<version>:<name>``."""
    return f"urn:ginrummy:protocol:{version}:{name}"


@functools.cache
def _documents() -> dict[str, dict[str, Any]]:
    """Every shipped schema by its `$id`."""
    folder = resources.files("ginrummy.engine").joinpath("schemas")
    documents: dict[str, dict[str, Any]] = {}
    for version in VERSIONS:
        for name in (*MESSAGES, "defs"):
            text = folder.joinpath(f"v{version}", f"{name}.json").read_text(encoding="utf-8")
            document = json.loads(text)
            documents[document["$id"]] = document
    return documents


@functools.cache
def _registry() -> Registry[Any]:
    resources_by_id = [
        (uri, Resource.from_contents(doc, default_specification=DRAFT202012))
        for uri, doc in _documents().items()
    ]
    return Registry().with_resources(resources_by_id)


def schema(name: str, version: int) -> dict[str, Any]:
    """The schema of message `name` (one of `MESSAGES`, or `defs`) in protocol `version`."""
    if version not in VERSIONS:
        raise ValueError(f"protocol versions are 1 and 2, not {version!r}")
    if name not in (*MESSAGES, "defs"):
        raise ValueError(f"no schema {name!r}; the messages are {', '.join(MESSAGES)}")
    return _documents()[schema_id(name, version)]


@functools.cache
def validator(name: str, version: int) -> Draft202012Validator:
    """A validator of message `name` in protocol `version`, with every other schema loaded."""
    return Draft202012Validator(schema(name, version), registry=_registry())


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One way a message breaks its schema: where (a dotted path) and what."""

    path: str
    message: str
    #: True when the only fault is a field the schema does not know (hosts ignore those).
    unknown_field: bool

    @property
    def text(self) -> str:
        """The problem as one line: ``path: message``."""
        return f"{self.path}: {self.message}" if self.path else self.message


def _path(error: ValidationError) -> str:
    parts: list[str] = []
    for part in error.absolute_path:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        else:
            parts.append(f".{part}" if parts else str(part))
    return "".join(parts)


def _leaves(error: ValidationError) -> list[ValidationError]:
    """The innermost errors behind an `anyOf` failure, leaving out the branches written for
    another kind of value (a wrong discard is not "a pass with a wrong type")."""
    if not error.context:
        return [error]
    branches: dict[object, list[ValidationError]] = {}
    for child in error.context:
        branches.setdefault(child.relative_schema_path[0], []).append(child)
    telling = [errors for errors in branches.values() if not any(_other_kind(e) for e in errors)]
    chosen = telling or list(branches.values())
    return [leaf for errors in chosen for child in errors for leaf in _leaves(child)]


def _other_kind(error: ValidationError) -> bool:
    """Whether `error` says the value is another kind of thing altogether (not an object, or
    an action or view of another `type`, `source` or `game`), rather than a faulty one of its kind."""
    if error.validator not in ("type", "const", "enum"):
        return False
    path = list(error.relative_path)
    return not path or path[-1] in ("type", "source", "game")


def problems(message: Any, name: str, version: int) -> list[SchemaProblem]:
    """Every way `message` (parsed JSON) breaks the schema of `name` in `version`; [] when valid.

    Problems come in document order, each once, the innermost reason first.
    """
    found: dict[tuple[str, str], SchemaProblem] = {}
    errors = sorted(
        validator(name, version).iter_errors(message), key=lambda e: list(map(str, e.absolute_path))
    )
    for error in errors:
        for leaf in _leaves(error):
            unknown = leaf.validator in ("additionalProperties", "unevaluatedProperties")
            problem = SchemaProblem(_path(leaf), _short(leaf.message), unknown)
            found.setdefault((problem.path, problem.message), problem)
    return list(found.values())


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
