"""The ASGI app: HTTP routes, WebSocket handlers, the server's settings and limits, and the static
browser client (`static/`)."""

from .app import COOKIE, create_app
from .settings import Settings, SettingsError

__all__ = ["COOKIE", "Settings", "SettingsError", "create_app"]
