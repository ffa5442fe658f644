"""Another player's round trip while one guest floods the server with sockets and messages.

Starts `ginrummy serve` with its default limits (see serverproc.py). A victim plays robot matches
(novice robots, no delay, --think seconds before each move, as a person) and times each of its actions: from sending it to receiving the state
that reflects it. First alone for --seconds, then while a flooder (another process, one guest)
from another loopback address (127.0.0.2) opens up to --sockets sockets to its own match as fast as it can and sends pings on all of them
as fast as they go. Prints the victim's p50/p99/max both ways, how many sockets the server let
the flooder keep, how many messages the flooder got through, and the server's CPU.

    .venv/bin/python benchmarks/bench_socket_flood.py                 # 800 sockets, 15 s per phase
    .venv/bin/python benchmarks/bench_socket_flood.py --src /path/to/other/checkout/src

Bounded: each phase lasts --seconds; the flooder opens at most --sockets sockets and stops itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serverproc import running_server  # noqa: E402

COOKIE = "gr_guest"
FLOODER_ADDRESS = "127.0.0.2"  # the victim connects from 127.0.0.1


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _guest_match(http: httpx.AsyncClient, host: str) -> tuple[str, str]:
    cookie = (await http.get(f"http://{host}/api/me")).cookies[COOKIE]
    made = await http.post(
        f"http://{host}/api/matches",
        content=json.dumps({"level": "novice"}),
        headers={"Cookie": f"{COOKIE}={cookie}"},
    )
    return cookie, str(made.json()["match_id"])


async def victim(host: str, seconds: float, seed: int, think: float) -> list[float]:
    """Play robot matches for `seconds`, `think` seconds before each move; every move's round trip."""
    rng = random.Random(seed)
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    async with httpx.AsyncClient(timeout=30) as http:
        while time.perf_counter() < deadline:
            cookie, match_id = await _guest_match(http, host)
            http.cookies.clear()
            async with websockets.connect(
                f"ws://{host}/ws/{match_id}",
                additional_headers={"Cookie": f"{COOKIE}={cookie}"},
                max_size=2**22,
            ) as ws:

                async def next_state() -> dict[str, Any]:
                    while True:
                        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        if message.get("type") == "state":
                            return message

                state = await next_state()
                while time.perf_counter() < deadline and state["result"] is None:
                    legal = state["view"]["legal"]
                    if not legal:
                        state = await next_state()
                        continue
                    await asyncio.sleep(think)  # a person takes a moment; the round trip starts at the send
                    enders = [a for a in legal if a["type"] in ("knock", "big_gin")]
                    action = enders[0] if enders else rng.choice(legal)
                    version = state["version"]
                    sent = time.perf_counter()
                    await ws.send(json.dumps({"type": "action", "action": action, "version": version}))
                    while True:
                        reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        if reply.get("type") == "state" and reply["version"] > version:
                            latencies.append(time.perf_counter() - sent)
                            state = reply
                            break
                        if reply.get("type") == "error":  # refused (a rate limit): the same move again
                            await asyncio.sleep(1.0)
                            break
    return latencies


def flood(host: str, sockets: int, seconds: float, report: Any) -> None:
    """The flooder process: one guest, as many sockets and pings as the server allows."""

    async def main() -> dict[str, Any]:
        # The flooder comes from another loopback address, as an attacker comes from their own.
        transport = httpx.AsyncHTTPTransport(local_address=FLOODER_ADDRESS)
        async with httpx.AsyncClient(timeout=30, transport=transport) as http:
            cookie, match_id = await _guest_match(http, host)
        headers = {"Cookie": f"{COOKIE}={cookie}"}
        opened: list[Any] = []
        refused = 0
        sent = 0
        received = 0
        stop = time.perf_counter() + seconds

        async def open_one() -> None:
            nonlocal refused
            try:
                ws = await websockets.connect(
                    f"ws://{host}/ws/{match_id}",
                    additional_headers=headers,
                    max_size=2**22,
                    open_timeout=20,
                    local_addr=(FLOODER_ADDRESS, 0),
                )
            except Exception:
                refused += 1
                return
            opened.append(ws)

        async def pump(ws: Any) -> None:
            nonlocal sent, received

            async def drain() -> None:
                nonlocal received
                with contextlib.suppress(Exception):
                    async for _ in ws:
                        received += 1

            reader = asyncio.create_task(drain())
            try:
                while time.perf_counter() < stop and reader.done() is False:
                    await ws.send('{"type":"ping"}')
                    sent += 1
                    if sent % 64 == 0:
                        await asyncio.sleep(0)
            except Exception:
                pass
            finally:
                reader.cancel()
                with contextlib.suppress(Exception):
                    await ws.close()

        for start in range(0, sockets, 50):
            await asyncio.gather(*[open_one() for _ in range(start, min(sockets, start + 50))])
        kept = len(opened)
        await asyncio.sleep(0.5)  # sockets the server closes right after opening are gone by now
        alive = sum(1 for ws in opened if ws.state.name == "OPEN")
        t0 = time.perf_counter()
        await asyncio.gather(*[pump(ws) for ws in opened])
        elapsed = time.perf_counter() - t0
        return {
            "sockets_tried": sockets,
            "sockets_opened": kept,
            "sockets_open_after_0_5_s": alive,
            "sockets_refused": refused,
            "messages_sent_per_s": round(sent / elapsed, 1),
            "answers_per_s": round(received / elapsed, 1),
        }

    report.put(asyncio.run(main()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=800)
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each phase")
    parser.add_argument("--think", type=float, default=0.1, help="seconds the victim waits before each move")
    parser.add_argument("--src", default=None, help="run the server from this checkout's src")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.sockets = max(1, min(args.sockets, 2000))
    with running_server({"GINRUMMY_ROBOT_DELAY": "0"}, src=args.src) as server:
        alone = asyncio.run(victim(server.host, args.seconds, 1, args.think))
        report: Any = multiprocessing.get_context("spawn").Queue()
        flooder = multiprocessing.get_context("spawn").Process(
            target=flood, args=(server.host, args.sockets, args.seconds + 10, report)
        )
        flooder.start()
        time.sleep(5)  # the flooder opens its sockets and starts sending
        cpu0, t0 = _cpu_seconds(server.pid), time.perf_counter()
        flooded = asyncio.run(victim(server.host, args.seconds, 2, args.think))
        cpu = 100 * (_cpu_seconds(server.pid) - cpu0) / (time.perf_counter() - t0)
        flooder.join(timeout=args.seconds + 60)
        flood_figures = report.get(timeout=10) if flooder.exitcode == 0 else {"error": flooder.exitcode}
        if flooder.is_alive():
            flooder.kill()

    def summary(values: list[float]) -> dict[str, Any]:
        return {
            "actions": len(values),
            "p50_ms": round(_percentile(values, 0.5) * 1000, 1),
            "p99_ms": round(_percentile(values, 0.99) * 1000, 1),
            "max_ms": round(max(values) * 1000, 1) if values else None,
        }

    figures = {
        "alone": summary(alone),
        "during_flood": summary(flooded),
        "flood": flood_figures,
        "server_cpu_percent_during_flood": round(cpu, 1),
        "load_average": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(
        f"server from {args.src or 'this checkout'}; victim plays novice robots; phases of {args.seconds:g} s"
    )
    for name in ("alone", "during_flood"):
        f = figures[name]
        print(
            f"victim {name.replace('_', ' ')}: {f['actions']} actions, round trip p50 {f['p50_ms']} ms, "
            f"p99 {f['p99_ms']} ms, max {f['max_ms']} ms"
        )
    print(f"flooder: {json.dumps(flood_figures)}")
    print(f"server CPU during the flood: {figures['server_cpu_percent_during_flood']} % of one core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
