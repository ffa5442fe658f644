"""The ASGI app factory: HTTP API, pages, static files and the match WebSocket, with a lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import mimetypes
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..service import (
    GameService,
    GuestRow,
    NotFound,
    RateLimited,
    ServiceConfig,
    ServiceError,
    Store,
    StoreBusy,
    StoreError,
    Unavailable,
    encodable,
)
from ..service.accounts import address_key
from ..service.cluster import ClusterConfig, ClusterNode
from ..storage import SqlStore
from . import botapi, compete
from .guards import BodyLimit, OriginCheck, SecurityHeaders
from .jsonin import JsonInputError
from .jsonin import loads as json_loads
from .limits import AddressLimiter, SocketGuard
from .pages import page_html
from .sessions import SeatSockets
from .settings import Settings
from .watch import tournament_socket, watch_socket
from .ws import match_socket

__all__ = ["COOKIE", "DEVICE_COOKIE", "create_app"]

log = logging.getLogger("ginrummy.server")

COOKIE = "gr_guest"
DEVICE_COOKIE = "gr_device"  # sent with the API calls only: the sign-in and sign-up set and read it
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie

PAGES = {
    "/": "index.html",
    "/r/{code}": "room.html",
    "/m/{match_id}": "table.html",  # one table page draws every game
    "/matches": "matches.html",
    "/replay/{match_id}": "replay.html",
    "/offline": "offline.html",
    "/leaderboard": "leaderboard.html",
    "/players/{guest_id}": "profile.html",
    "/@/{name}": "profile.html",
    "/account": "account.html",
    "/tournaments": "tournaments.html",
    "/t/{tournament_id}": "tournament.html",
    "/watch": "live.html",
    "/watch/{match_id}": "watch.html",
}
# The app manifest's own type (Python's table may not know the extension).
mimetypes.add_type("application/manifest+json", ".webmanifest")


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": encodable(message)}}, status_code=status)


async def _json_body(request: Request) -> dict[str, Any]:
    """The JSON object sent (no body at all counts as `{}`); `BodyLimit` bounds its size."""
    raw = await request.body()
    if not raw:
        return {}
    try:
        data = json_loads(raw)
    except JsonInputError as exc:
        raise ServiceError(f"request body must be a JSON object: {exc}") from None
    if not isinstance(data, dict):
        raise ServiceError("request body must be a JSON object")
    return data


def create_app(settings: Settings | None = None, *, store: Store | None = None) -> FastAPI:
    """The app. `store` replaces the SQL store built from `settings.database_url` (tests)."""
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        the_store = store or SqlStore(
            settings.database_url,
            sqlite_synchronous=settings.sqlite_synchronous,
            busy_timeout=settings.db_timeout,
        )
        service = GameService(
            the_store,
            ServiceConfig(
                robot_delay=settings.robot_delay,
                grace_seconds=settings.grace_seconds,
                swiss_round_gap=settings.swiss_round_gap,
                daily_arena_hours=settings.daily_arena_hours,
                daily_swiss_hours=settings.daily_swiss_hours,
                default_turn_seconds=settings.turn_seconds,
                robot_time_budget=settings.robot_time_budget,
                rated_same_address=settings.rated_same_address,
                open_tournaments=settings.open_tournaments,
            ),
            secret=settings.secret,
        )
        node = None
        if settings.redis_url is not None:
            # One process of a cluster: the node decides which matches this process runs, so it
            # exists before the service rebuilds (and claims) matches, and listens once it has.
            from ..storage.redis_bus import RedisBus

            node = ClusterNode(
                service,
                RedisBus(settings.redis_url),
                ClusterConfig(
                    name=settings.node_name,
                    lease_seconds=settings.lease_seconds,
                    heartbeat=settings.heartbeat_seconds,
                    call_timeout=settings.call_timeout,
                ),
            )
        await service.start()
        if node is not None:
            await node.start()
        app.state.hand_over = node.hand_over if node is not None else None
        app.state.cluster = node
        app.state.service = service
        seat_sockets = SeatSockets(service.cookies.guest_of_cookie, settings.session_recheck)
        app.state.seat_sockets = seat_sockets
        rechecks = asyncio.get_running_loop().create_task(seat_sockets.run())
        if settings.tune_gc:
            # Everything loaded so far (modules, rebuilt matches) lives as long as the server: keep
            # it out of the collector's passes. Cyclic garbage dies young and the young generations
            # catch it; full passes over every live match would pause the event loop for 100+ ms,
            # so they are made rare. (Process-wide, so only the `serve` command asks for it.)
            gc.collect()
            gc.freeze()
            gc.set_threshold(700, 10, 1000)
        try:
            yield
        finally:
            rechecks.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await rechecks
            await service.close()

    app = FastAPI(title="ginrummy", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    limiter = AddressLimiter(settings.http_per_minute, settings.http_burst)
    app.state.http_limiter = limiter
    # Guests cost nothing to make, so the cap per creator alone would not hold back one address.
    made_tournaments = AddressLimiter(
        settings.tournaments_per_hour / 60, max(1, settings.tournaments_per_hour)
    )
    app.state.socket_guard = SocketGuard(
        per_guest=settings.sockets_per_guest,
        per_address=settings.sockets_per_address,
        open_rate=settings.socket_open_rate,
        open_burst=settings.socket_open_burst,
        rate=settings.rate_per_second,
        burst=settings.rate_burst,
    )

    # -- errors ------------------------------------------------------------------

    def _with_cookie(request: Request, response: Response) -> Response:
        cookie = getattr(request.state, "new_cookie", None)
        if cookie is not None:
            _set_cookie(response, cookie)
        return response

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> Response:
        response = _error(exc.status, exc.code, exc.message)
        if isinstance(exc, (RateLimited, Unavailable)):
            response.headers["Retry-After"] = str(max(1, int(exc.retry_after)))
        return _with_cookie(request, response)

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError) -> Response:
        if isinstance(exc, StoreBusy):
            # The database is held by someone else: nothing was done; say when to come back.
            response = _error(
                503, "unavailable", "the server is busy; nothing was changed, try again shortly"
            )
            response.headers["Retry-After"] = str(max(1, round(exc.retry_after)))
            return response
        log.error("%s %s: the store failed: %s", request.method, request.url.path, exc)
        return _error(500, "server_error", "the server failed to do this; nothing was changed")

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        return _error(
            400, "bad_request", "bad request: " + "; ".join(str(e.get("msg")) for e in exc.errors())
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            code = {404: "not_found", 405: "bad_request"}.get(exc.status_code, "bad_request")
            return _error(exc.status_code, code, str(exc.detail))
        return PlainTextResponse(str(exc.detail), status_code=exc.status_code)

    def _set_cookie(response: Response, value: str) -> None:
        # A new guest made earlier in the request set a cookie already: only the last one counts.
        response.raw_headers[:] = [
            (k, v) for k, v in response.raw_headers if not (k == b"set-cookie" and v.startswith(b"gr_guest="))
        ]
        response.set_cookie(
            COOKIE,
            value,
            max_age=COOKIE_MAX_AGE,
            httponly=True,
            samesite="lax",
            secure=settings.cookie_secure,
            path="/",
        )

    def _set_device(response: Response, value: str) -> None:
        """The device cookie: which accounts signed in on this browser (the sign-in limits trust it)."""
        response.set_cookie(
            DEVICE_COOKIE,
            value,
            max_age=COOKIE_MAX_AGE,
            httponly=True,
            samesite="lax",
            secure=settings.cookie_secure,
            path="/api/",
        )

    def _service(request: Request) -> GameService:
        service: GameService = request.app.state.service
        return service

    def _address(request: Request) -> str:
        return request.client.host if request.client is not None else "unknown"

    def _spend(request: Request, cost: float = 1.0) -> None:
        """Count a call that creates or changes something against the caller's address."""
        limiter.spend(_address(request), cost)

    @contextmanager
    def _tournament_budget(request: Request) -> Iterator[None]:
        """A tournament made counts against its address's hourly budget (a refused one does not)."""
        address = address_key(_address(request))
        made_tournaments.check(
            address, f"one address may make {settings.tournaments_per_hour} tournaments an hour"
        )
        yield
        made_tournaments.charge(address, 1.0)

    async def _guest(request: Request, response: Response) -> GuestRow:
        """The caller's guest; a missing, forged or unknown cookie gets a new guest and cookie."""
        service = _service(request)
        guest = await service.cookies.guest_by_cookie(request.cookies.get(COOKIE))
        if guest is None:
            _spend(request)
            guest = await service.guests.new_guest()
            cookie = service.cookies.cookie_for(guest)
            request.state.new_cookie = cookie
            _set_cookie(response, cookie)
        return guest

    # -- HTTP API ----------------------------------------------------------------

    @app.get("/api/me")
    async def get_me(request: Request, response: Response) -> dict[str, Any]:
        guest = await _guest(request, response)
        return await _service(request).guests.me(guest)

    @app.post("/api/me")
    async def post_me(request: Request, response: Response) -> dict[str, Any]:
        _spend(request)
        guest = await _guest(request, response)
        body = await _json_body(request)
        if "name" not in body:
            raise ServiceError('send {"name": "..."}')
        guest = await _service(request).guests.rename(guest, body["name"])
        return await _service(request).guests.me(guest)

    @app.post("/api/matches")
    async def post_matches(request: Request, response: Response) -> dict[str, Any]:
        _spend(request)
        guest = await _guest(request, response)
        body = await _json_body(request)
        match_id = await _service(request).create_robot_match(
            guest, body.get("level"), body.get("rules"), levels=body.get("levels")
        )
        return {"match_id": match_id, "url": f"/m/{match_id}"}

    @app.get("/api/matches")
    async def get_matches(request: Request, response: Response) -> dict[str, Any]:
        guest = await _guest(request, response)
        return {"matches": await _service(request).history.my_matches(guest)}

    @app.post("/api/rooms")
    async def post_rooms(request: Request, response: Response) -> dict[str, Any]:
        _spend(request)
        guest = await _guest(request, response)
        body = await _json_body(request)
        code, match_id = await _service(request).rooms.create_room(
            guest,
            body.get("rules"),
            body.get("turn_seconds", ...),
            seats=body.get("seats"),
            rated=body.get("rated", False),
            address=_address(request),
        )
        return {"code": code, "url": f"/r/{code}", "match_id": match_id}

    @app.get("/api/rooms/{code}")
    async def get_room(code: str, request: Request) -> dict[str, Any]:
        _spend(request)
        service = _service(request)
        guest = await service.cookies.guest_by_cookie(request.cookies.get(COOKIE))
        try:
            return await service.rooms.room_info(guest, code)
        except NotFound:
            limiter.charge(_address(request), 4)  # as for joining: codes cannot be guessed at speed
            raise

    @app.post("/api/rooms/{code}/join")
    async def join_room(code: str, request: Request, response: Response) -> dict[str, Any]:
        _spend(request)
        guest = await _guest(request, response)
        try:
            match_id = await _service(request).rooms.join_room(guest, code, _address(request))
        except NotFound:
            limiter.charge(_address(request), 4)  # a wrong code costs five: codes cannot be guessed at speed
            raise
        return {"match_id": match_id, "url": f"/m/{match_id}"}

    @app.get("/api/matches/{match_id}/replay")
    async def get_replay(match_id: str, request: Request) -> dict[str, Any]:
        return await _service(request).history.replay(match_id)

    @app.post("/api/matches/{match_id}/analysis")
    async def post_analysis(match_id: str, request: Request) -> dict[str, Any]:
        _spend(request)
        return await _service(request).analyses.request(match_id)

    @app.get("/api/matches/{match_id}/analysis")
    async def get_analysis(match_id: str, request: Request) -> dict[str, Any]:
        return await _service(request).analyses.status(match_id)

    @app.post("/api/matches/{match_id}/rematch")
    async def post_rematch(match_id: str, request: Request, response: Response) -> dict[str, Any]:
        _spend(request)
        guest = await _guest(request, response)
        rematch_id = await _service(request).rooms.rematch(guest, match_id)
        return {"match_id": rematch_id, "url": f"/m/{rematch_id}"}

    @app.get("/api/health", response_model=None)
    async def health(request: Request) -> dict[str, Any] | Response:
        service = _service(request)
        node = request.app.state.cluster
        if node is not None and node.handing_over:
            # Shutting down in a cluster: the load balancer stops sending anything here.
            return _error(503, "unavailable", "this server is shutting down")
        figures: dict[str, Any] = {"ok": True, "live_matches": len(service.live)}
        if node is not None:
            figures["node"] = node.name
        store = service.store
        if isinstance(store, SqlStore):
            # Group commit at work: transactions committed vs writes and reads they carried.
            figures["store"] = {"commits": store.commits, "jobs": store.jobs}
        return figures

    def _clear_cookie(response: Response) -> None:
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=settings.cookie_secure)

    compete.install(
        app,
        guest=_guest,
        spend=_spend,
        address=_address,
        tournament_budget=_tournament_budget,
        json_body=_json_body,
        set_cookie=_set_cookie,
        set_device=_set_device,
        clear_cookie=_clear_cookie,
    )

    botapi.install(app, guest=_guest, spend=_spend, json_body=_json_body)

    # -- WebSocket ---------------------------------------------------------------

    app.add_api_websocket_route("/ws/t/{tournament_id}", tournament_socket)
    app.add_api_websocket_route("/ws/watch/{match_id}", watch_socket)
    app.add_api_websocket_route("/ws/{match_id}", match_socket)

    # -- pages and static files ----------------------------------------------------

    static_dir: Path = settings.static_dir

    def _page(filename: str) -> Any:
        async def page() -> Response:
            path = static_dir / filename
            if not path.is_file():
                return PlainTextResponse(f"{filename} is missing from the static files", status_code=404)
            return HTMLResponse(page_html(static_dir, filename), headers={"Cache-Control": "no-cache"})

        return page

    for route, filename in PAGES.items():
        app.add_api_route(route, _page(filename), methods=["GET"], include_in_schema=False)

    async def service_worker() -> Response:
        # Served from the root so that it may control every page of the site (its scope is "/").
        path = static_dir / "sw.js"
        if not path.is_file():
            return PlainTextResponse("sw.js is missing from the static files", status_code=404)
        return FileResponse(
            path,
            media_type="text/javascript",
            headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
        )

    app.add_api_route("/sw.js", service_worker, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=static_dir, check_dir=False), name="static")

    # The last added runs first: headers go on every answer, even a guard's refusal.
    app.add_middleware(OriginCheck, allowed_origins=settings.allowed_origins)
    app.add_middleware(BodyLimit)
    app.add_middleware(SecurityHeaders)
    return app
