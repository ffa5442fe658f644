"""The stdio engine protocol (PROTOCOL.md): host side and engine side."""
