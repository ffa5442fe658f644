"""The stdio engine protocol (docs/protocol.md): host side and engine side."""

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
