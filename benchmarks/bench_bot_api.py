"""Bot API benchmark: bot accounts playing people at once on ONE server, over the documented API.

Starts `ginrummy serve` (see serverproc.py), makes one bot account per match (owners claim
accounts, five bots each at most), and for every match: the bot opens its event stream, a person
challenges it, the bot accepts, and both play instantly to the end, the bot over its game socket
(`Authorization: Bearer`, the token read again at most once a second) and the person over the
table's own socket. Prints matches finished, accepted actions a second, the time from a challenge
to its `game_start`, and the action round trip (sending an action to receiving the state that
reflects it) for the bots and the people side by side, so the cost of the token check shows.

    .venv/bin/python benchmarks/bench_bot_api.py                 # 20 matches at once, to 100
    .venv/bin/python benchmarks/bench_bot_api.py --matches 50 --target 50

Bounded: at most --matches matches, stops after --timeout seconds (partial figures then).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_server import choose  # noqa: E402
from serverproc import running_server  # noqa: E402

PASSWORD = "a long enough secret"
COOKIE = "gr_guest"


class Person:
    def __init__(self, host: str) -> None:
        self.host = host
        self.http = httpx.AsyncClient(base_url=f"http://{host}", timeout=60)

    async def call(self, method: str, path: str, body: Any = None) -> Any:
        response = await self.http.request(method, path, json=body)
        response.raise_for_status()
        return response.json()

    async def socket(self, match_id: str) -> Any:
        cookie = self.http.cookies.get(COOKIE)
        return await websockets.connect(
            f"ws://{self.host}/ws/{match_id}",
            additional_headers={"Cookie": f"{COOKIE}={cookie}"},
            max_size=2**22,
        )


async def play(ws: Any, rng: random.Random, times: list[float]) -> int:
    """Play one seat to the end as fast as the server answers; returns the actions sent."""
    acted = -1
    sent_at: float | None = None
    sent = 0
    async for text in ws:
        message = json.loads(text)
        if message["type"] != "state":
            continue
        if sent_at is not None and message["version"] > acted:
            times.append(time.perf_counter() - sent_at)
            sent_at = None
        if message["result"] is not None:
            return sent
        if message["view"]["legal"] and message["version"] > acted:
            acted = message["version"]
            sent_at = time.perf_counter()
            sent += 1
            await ws.send(
                json.dumps({"type": "action", "action": choose(message["view"], rng), "version": acted})
            )
    return sent


async def one_match(
    host: str, token: str, bot_id: str, target: int, seed: int, figures: dict[str, Any]
) -> None:
    rng = random.Random(seed)
    auth = {"Authorization": f"Bearer {token}"}
    stream = await websockets.connect(f"ws://{host}/api/bot/stream", additional_headers=auth)
    await stream.recv()  # hello
    person = Person(host)
    await person.call("GET", "/api/me")
    asked = time.perf_counter()
    challenge = await person.call(
        "POST",
        f"/api/players/{bot_id}/challenge",
        {"preset": "classic", "target": target, "turn_seconds": 60},
    )
    while True:
        event = json.loads(await stream.recv())
        if event["type"] == "challenge":
            await stream.send(json.dumps({"type": "accept", "challenge": challenge["id"]}))
        elif event["type"] == "game_start":
            break
    figures["accept"].append(time.perf_counter() - asked)
    match_id = event["game"]["id"]
    bot_ws = await websockets.connect(
        f"ws://{host}{event['game']['socket']}", additional_headers=auth, max_size=2**22
    )
    person_ws = await person.socket(match_id)
    bot_moves, person_moves = await asyncio.gather(
        play(bot_ws, random.Random(rng.random()), figures["bot"]),
        play(person_ws, random.Random(rng.random()), figures["person"]),
    )
    figures["actions"] += bot_moves + person_moves
    figures["finished"] += 1
    for ws in (bot_ws, person_ws, stream):
        await ws.close()
    await person.http.aclose()


async def make_bots(host: str, count: int) -> list[tuple[str, str]]:
    bots = []
    owner: Person | None = None
    for i in range(count):
        if i % 5 == 0:
            owner = Person(host)
            await owner.call("GET", "/api/me")
            await owner.call("POST", "/api/account", {"name": f"Owner{i // 5}", "password": PASSWORD})
        assert owner is not None
        made = await owner.call("POST", "/api/bots", {"name": f"BenchBot{i}"})
        bots.append((made["bot"]["id"], made["token"]))
    return bots


def quantiles(values: list[float]) -> str:
    if len(values) < 2:
        return "n/a"
    q = statistics.quantiles(values, n=100)
    return f"p50 {q[49] * 1000:.1f} ms, p90 {q[89] * 1000:.1f} ms, p99 {q[98] * 1000:.1f} ms, max {max(values) * 1000:.1f} ms"


async def bench(host: str, matches: int, target: int, timeout: float) -> None:
    bots = await make_bots(host, matches)
    figures: dict[str, Any] = {"accept": [], "bot": [], "person": [], "actions": 0, "finished": 0}
    start = time.perf_counter()
    tasks = [asyncio.create_task(one_match(host, t, b, target, i, figures)) for i, (b, t) in enumerate(bots)]
    done, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in pending:
        task.cancel()
    for task in done:
        if task.exception() is not None:
            print(f"a match failed: {task.exception()!r}")
    elapsed = time.perf_counter() - start
    print(f"{figures['finished']} of {matches} bot-vs-person matches to {target} finished in {elapsed:.1f} s")
    print(f"client actions accepted: {figures['actions']} ({figures['actions'] / elapsed:.0f}/s)")
    print(f"challenge -> game_start: {quantiles(figures['accept'])}")
    print(f"bot action round trip (Bearer token, re-read at most once a second): {quantiles(figures['bot'])}")
    print(f"person action round trip (cookie, checked at connect): {quantiles(figures['person'])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--target", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args(argv)
    env = {
        "GINRUMMY_BOT_RATE_LIMIT": "10000/10000",
        "GINRUMMY_RATE_LIMIT": "10000/10000",
        "GINRUMMY_SOCKETS": "1000/100000",
        "GINRUMMY_SOCKET_OPENS": "10000/10000",
    }
    with running_server(env) as server:
        asyncio.run(bench(server.host, args.matches, args.target, args.timeout))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
