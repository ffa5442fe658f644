"""HTTP routes of competition: accounts, pairing, tournaments, live games, profiles and leaderboards."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any

from fastapi import FastAPI, Request, Response

from ..service import Forbidden, GameService, GuestRow, NotFound
from ..service.leaderboards import board_game
from ..service.live_games import LIVE_SHOWN

__all__ = ["install"]

BOARDS = ("today", "rolling", "rating")
LOGIN_COST = 3.0  # a sign-in attempt costs three ordinary calls of the caller's address


def install(
    app: FastAPI,
    *,
    guest: Callable[[Request, Response], Awaitable[GuestRow]],
    spend: Callable[[Request, float], None],
    address: Callable[[Request], str],
    tournament_budget: Callable[[Request], AbstractContextManager[None]],
    json_body: Callable[[Request], Awaitable[dict[str, Any]]],
    set_cookie: Callable[[Response, str], None],
    set_device: Callable[[Response, str], None],
    clear_cookie: Callable[[Response], None],
) -> None:
    """Add the routes to `app`, with the app's own guest, rate-limit, body, cookie and client
    address helpers (rated play keeps players of one address apart: service/fairplay.py)."""

    def service(request: Request) -> GameService:
        found: GameService = request.app.state.service
        return found

    async def signed_in(request: Request, response: Response, who: GuestRow) -> dict[str, Any]:
        """A new session for the account and a device cookie that remembers it signed in here."""
        svc = service(request)
        set_cookie(response, await svc.cookies.start_session(who))
        set_device(
            response,
            svc.cookies.device_cookie(svc.cookies.device_of(request.cookies.get("gr_device")), who.id),
        )
        return await svc.guests.me(who)

    @app.post("/api/account")
    async def claim(request: Request, response: Response) -> dict[str, Any]:
        spend(request, 1.0)
        me = await guest(request, response)
        body = await json_body(request)
        await service(request).accounts.claim(me, body.get("name"), body.get("password"))
        fresh = await service(request).guests.guest(me.id)
        assert fresh is not None
        # The guest's cookie, and any copy of it, proves nothing of the account: a new session does.
        return await signed_in(request, response, fresh)

    @app.post("/api/login")
    async def login(request: Request, response: Response) -> dict[str, Any]:
        spend(request, LOGIN_COST)
        body = await json_body(request)
        svc = service(request)
        signed = await svc.accounts.sign_in(
            body.get("name"),
            body.get("password"),
            address=address(request),
            device=svc.cookies.device_of(request.cookies.get("gr_device")),
        )
        return await signed_in(request, response, signed.guest)

    @app.post("/api/logout")
    async def logout(request: Request, response: Response) -> dict[str, Any]:
        """This device signs out: its session ends on the server, so the cookie, even if kept or
        copied, signs nobody in. The next page gets a fresh guest."""
        svc, cookie = service(request), request.cookies.get("gr_guest")
        who = await svc.cookies.guest_of_cookie(cookie)
        await svc.cookies.sign_out(cookie)
        if who is not None:  # its tables' sockets on this process close now, elsewhere soon
            await request.app.state.seat_sockets.sweep(who)
        clear_cookie(response)
        return {"ok": True}

    @app.post("/api/logout/everywhere")
    async def logout_everywhere(request: Request, response: Response) -> dict[str, Any]:
        """Every device of the account is signed out: cookies given before no longer sign in."""
        spend(request, 1.0)
        me = await service(request).cookies.guest_by_cookie(request.cookies.get("gr_guest"))
        if me is None:
            raise Forbidden("you are not signed in")
        await service(request).cookies.sign_out_everywhere(me)
        await request.app.state.seat_sockets.sweep(me.id)
        clear_cookie(response)
        return {"ok": True}

    # -- quick pairing -----------------------------------------------------------

    @app.post("/api/pool")
    async def join_pool(request: Request, response: Response) -> dict[str, Any]:
        """Wait in a pool: {"preset": "classic", "target": 100, "rated": true}."""
        spend(request, 1.0)
        me = await guest(request, response)
        return await service(request).seeking.seek(me, await json_body(request), address(request))

    @app.get("/api/pool")
    async def wait_pool(request: Request, response: Response, wait: float = 25.0) -> dict[str, Any]:
        """The wait's news: answers at once when paired, else after `wait` seconds (a long poll)."""
        me = await guest(request, response)
        return await service(request).seeking.wait_for_pairing(me, wait)

    @app.delete("/api/pool")
    async def leave_pool(request: Request, response: Response) -> dict[str, Any]:
        me = await guest(request, response)
        return {"left": await service(request).seeking.stop_seeking(me)}

    @app.post("/api/pool/robot")
    async def pool_robot(request: Request, response: Response) -> dict[str, Any]:
        spend(request, 1.0)
        me = await guest(request, response)
        match_id = await service(request).seeking.robot_instead(me)
        return {"match_id": match_id, "url": f"/m/{match_id}"}

    # -- tournaments ---------------------------------------------------------------

    @app.get("/api/tournaments")
    async def list_tournaments(request: Request) -> dict[str, Any]:
        svc = service(request)
        return {"tournaments": await svc.tournaments.listed(), "now": svc.clock()}

    @app.post("/api/tournaments")
    async def create_tournament(request: Request, response: Response) -> dict[str, Any]:
        spend(request, 5.0)
        me = await guest(request, response)
        body = await json_body(request)
        with tournament_budget(request):
            arena = await service(request).tournaments.create(me.id, body)
        return arena.summary()

    @app.get("/api/tournaments/{tournament_id}")
    async def get_tournament(tournament_id: str, request: Request) -> dict[str, Any]:
        svc = service(request)
        return await svc.tournaments.state(
            tournament_id, await svc.cookies.guest_of_cookie(request.cookies.get("gr_guest"))
        )

    @app.post("/api/tournaments/{tournament_id}/{verb}")
    async def tournament_verb(
        tournament_id: str, verb: str, request: Request, response: Response
    ) -> dict[str, Any]:
        """join, withdraw, pause or resume."""
        spend(request, 1.0)
        me = await guest(request, response)
        return await service(request).tournaments.act(tournament_id, verb, me, address(request))

    # -- live games ------------------------------------------------------------------

    @app.get("/api/live")
    async def live_games(request: Request, limit: str = str(LIVE_SHOWN)) -> dict[str, Any]:
        """The public matches being played, highest rated first: the Watch page and the home page's
        featured match (the first)."""
        return {"games": await service(request).live_games(limit)}

    @app.get("/api/players/{guest_id}")
    async def player(guest_id: str, request: Request) -> dict[str, Any]:
        return await service(request).history.profile(guest_id)

    @app.get("/api/players/@/{name}")
    async def player_by_name(name: str, request: Request) -> dict[str, Any]:
        return await service(request).history.profile_by_name(name)

    @app.get("/api/leaderboards/{board}")
    async def leaderboard(board: str, request: Request, game: str | None = None) -> dict[str, Any]:
        if board not in BOARDS:
            raise NotFound(f"no leaderboard {board!r}; there are {', '.join(BOARDS)}")
        chosen = board_game(board, game)
        svc = service(request)
        # Looking at a board makes no guest: a visitor without a cookie just has no line of its own.
        me = await svc.cookies.guest_of_cookie(request.cookies.get("gr_guest"))
        return await svc.boards.board(board, me, chosen)

    @app.get("/api/leaderboards")
    async def leaderboards_summary(request: Request) -> dict[str, Any]:
        """The first lines of each board, for the home page."""
        svc = service(request)
        me = await svc.cookies.guest_of_cookie(request.cookies.get("gr_guest"))
        boards = {}
        for board in BOARDS:
            data = await svc.boards.board(board, me)
            data["lines"] = data["lines"][:5]
            boards[board] = data
        return {"boards": boards, "now": svc.clock()}
