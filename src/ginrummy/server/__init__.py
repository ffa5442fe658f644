"""The ASGI app: HTTP routes, WebSocket handlers and the static browser client."""
