"""The ASGI app: HTTP routes, WebSocket handlers and the static browser client."""

from .app import COOKIE, create_app
from .settings import Settings, SettingsError

__all__ = ["COOKIE", "Settings", "SettingsError", "create_app"]
