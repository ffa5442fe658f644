"""The stdio engine protocol (docs/protocol.md): its messages (`protocol`, `schema`), the host side
(`host`), the engine side (`engine_side`), the conformance checker for engine authors (`check`),
and the pipe that the host and the checker run an engine program on (`pipe`)."""

# The engine side (`engine_side.serve`) is not re-exported: it imports the bots,
# and the bots' arena imports this package, so keeping it out avoids a cycle.
from .host import (
    EngineCrashed,
    EngineFailure,
    EngineIllegalAction,
    EnginePlayer,
    EngineProtocolError,
    EngineTimeout,
)
from .protocol import PROTOCOL_VERSION, ProtocolError

__all__ = [
    "PROTOCOL_VERSION",
    "EngineCrashed",
    "EngineFailure",
    "EngineIllegalAction",
    "EnginePlayer",
    "EngineProtocolError",
    "EngineTimeout",
    "ProtocolError",
]
