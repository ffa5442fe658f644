"""Arena benchmark: --players scripted guests in one arena against a real `ginrummy serve`.

Every player is a guest of its own (its own cookie) that joins the arena by its link, keeps the
tournament page's WebSocket open as a browser does, and plays each match it is paired into over
the match WebSocket: both players move, then seat 0 resigns once the match is about
--match-seconds old (between half and one and a half of it, so that matches end at different
times as in a real arena; 0: at once, a stress of the server's throughput; a decided result, so
streaks, fire and standings all move). Nobody plays a
robot (an even number of people). The arena starts --lead seconds after it is made: every
player must have joined and opened its page by then (the output says so if not).

Printed, on the scripted clients' clock (they share the machine with the server, and their own
lag is in these figures) and, for the last two, on the server's clock too (from when the match
was stored as ended to when the server made the pairing or the push):
- the first pairing wave: from the arena's start until the last player saw its first match
  (and until the server paired it);
- re-pairing: from a player's match ending until its next match reached it (a pairing message,
  or a tournament frame naming it), p50 / p99;
- the standings broadcast: from a player's match ending until a tournament frame carrying its
  own line with that match counted reached it, p50 / p99 (pushes are deltas: a frame that leaves
  out the viewer's own part leaves it as it was);
- matches finished, and the server's and the clients' CPU seconds.

    .venv/bin/python benchmarks/bench_arena.py --players 1000 --minutes 3 --match-seconds 60
    .venv/bin/python benchmarks/bench_arena.py --players 1000 --minutes 2      # as fast as they go
    .venv/bin/python benchmarks/bench_arena.py --src /path/to/old/checkout/src --lead 420 # before
    .venv/bin/python benchmarks/bench_arena.py --players 100 --minutes 1 --json
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
from serverproc import running_server  # noqa: E402

COOKIE = "gr_guest"


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0  # utime + stime, in clock ticks of 1/100 s


class Figures:
    def __init__(self) -> None:
        self.first_seen: dict[int, float] = {}
        self.first_paired: dict[int, float] = {}  # the server's clock when it paired them
        self.repair: list[float] = []
        self.standings: list[float] = []
        # For the same figures on the server's clock (the match's end as stored, the pairing's and
        # the push's own time): (the match that ended, the server time the news was made).
        self.repair_server: list[tuple[str, float]] = []
        self.standings_server: list[tuple[str, float]] = []
        self.finished = 0
        self.errors: list[str] = []


async def play(host: str, cookie: str, match_id: str, length: float) -> float:
    """Both players move, then seat 0 resigns once the match is `length` seconds old (give or take
    half: matches of an arena do not all last as long, so they do not all end at once). Returns
    when the match ended (its final state arrived), once its socket is closed."""
    length *= random.Random(match_id).uniform(0.5, 1.5)
    began = time.time()
    async with websockets.connect(
        f"ws://{host}/ws/{match_id}",
        additional_headers={"Cookie": f"{COOKIE}={cookie}"},
        max_size=2**22,
        open_timeout=120,
        ping_interval=None,
    ) as ws:
        acted = -1
        resigned = False
        # One deadline for the whole match (a timeout per message costs the clients a task each).
        async with asyncio.timeout(300 + length):
            while True:
                message = json.loads(await ws.recv())
                if message["type"] != "state":
                    continue
                match = message["match"]
                if match["status"] == "over":
                    return time.time()
                if match["seat"] == 0 and not match["abortable"] and match["resignable"] and not resigned:
                    resigned = True
                    await asyncio.sleep(max(0.0, began + length - time.time()))
                    await ws.send(json.dumps({"type": "resign"}))
                    continue
                legal = message["view"]["legal"]
                if legal and message["version"] > acted and not resigned:
                    acted = message["version"]
                    await ws.send(
                        json.dumps({"type": "action", "action": legal[0], "version": message["version"]})
                    )


async def player(
    index: int,
    host: str,
    cookie: str,
    tid: str,
    until: float,
    length: float,
    figures: Figures,
    started: asyncio.Event,
) -> None:
    """One guest: its tournament page open all along, and each match it is told of played in turn."""
    ws = await websockets.connect(
        f"ws://{host}/ws/t/{tid}",
        additional_headers={"Cookie": f"{COOKIE}={cookie}"},
        max_size=2**24,
        open_timeout=120,
        ping_interval=None,
    )
    me: dict[str, Any] = {}
    # The newest match the page named: its id, when it arrived, and the server's time (a pairing's).
    told: tuple[str, float, float | None] | None = None
    wake = asyncio.Event()
    played: list[str] = []  # the matches this player finished, in order
    ends: list[float] = []  # when each ended (its final state arrived)
    counted: list[tuple[float, float]] = []  # when the page first showed each counted (client, server)

    async def games() -> None:
        current: str | None = None
        while True:
            await wake.wait()
            wake.clear()
            while told is not None and told[0] != current:
                current, at, server_at = told
                if index not in figures.first_seen:
                    figures.first_seen[index] = at
                elif ends:
                    # The pairing may reach the page before the match's own socket told its end.
                    figures.repair.append(max(0.0, at - ends[-1]))
                    if server_at is not None:
                        figures.repair_server.append((played[-1], server_at))
                try:
                    ends.append(await play(host, cookie, current, length))
                except Exception as exc:  # a failure is counted, not fatal
                    figures.errors.append(f"{type(exc).__name__}: {exc}")
                    continue
                played.append(current)
                figures.finished += 1

    def on_page(text: str) -> None:
        nonlocal me, told
        now = time.time()
        message = json.loads(text)
        server_at = None
        if message.get("type") == "pairing":
            match_id = message["match_id"]  # told at once; the standings' push follows
            server_at = message["now"]
            figures.first_paired.setdefault(index, server_at)
        elif message.get("type") == "tournament":
            # A push leaves "me" out when the viewer's own part did not change.
            if "me" in message:
                me = message["me"] or {}
            count = (me.get("line") or {}).get("played", 0)
            counted.extend([(now, message["now"])] * (count - len(counted)))
            match_id = me.get("match_id")
        else:
            return
        if match_id and (told is None or told[0] != match_id):
            told = (match_id, now, server_at)
            wake.set()

    game = asyncio.get_running_loop().create_task(games())
    started.set()
    try:
        # One deadline for the whole page (a timeout per message costs the clients a task each).
        async with asyncio.timeout(max(0.1, until - time.time())):
            while True:
                on_page(await ws.recv())
    except TimeoutError:
        pass
    finally:
        game.cancel()
        await ws.close()
    # The standings push: from a match's end until the page showed it counted (it may come first).
    for (seen, server_seen), end, match_id in zip(counted, ends, played, strict=False):
        figures.standings.append(max(0.0, seen - end))
        figures.standings_server.append((match_id, server_seen))


async def _finished_at(http: httpx.AsyncClient, match_ids: set[str]) -> dict[str, float]:
    """When each match ended by the server's clock (read from its replay)."""
    sem = asyncio.Semaphore(20)
    found: dict[str, float] = {}

    async def one(match_id: str) -> None:
        async with sem:
            response = await http.get(f"/api/matches/{match_id}/replay")
            if response.status_code == 200 and response.json().get("finished_at") is not None:
                found[match_id] = response.json()["finished_at"]

    await asyncio.gather(*(one(m) for m in match_ids))
    return found


async def bench(host: str, players: int, minutes: float, lead: float, length: float) -> dict[str, Any]:
    figures = Figures()
    async with httpx.AsyncClient(base_url=f"http://{host}", timeout=120) as http:
        cookies = []
        for _ in range(players):
            http.cookies.clear()
            response = await http.get("/api/me")
            cookies.append(response.cookies[COOKIE])
        http.cookies.clear()
        made = (
            await http.post(
                "/api/tournaments",
                json={
                    "name": "Benchmark arena",
                    "starts_in": lead / 60,
                    "minutes": minutes,
                    "rules": {"preset": "classic", "target": 10},
                    "turn_seconds": 0,
                    "robots": False,
                    "rated": True,
                },
                headers={"Cookie": f"{COOKIE}={cookies[0]}"},
            )
        ).json()
        tid = made["id"]
        sem = asyncio.Semaphore(50)

        async def join(cookie: str) -> None:
            async with sem:
                response = await http.post(
                    f"/api/tournaments/{tid}/join", headers={"Cookie": f"{COOKIE}={cookie}"}
                )
                response.raise_for_status()

        await asyncio.gather(*(join(c) for c in cookies))
    until = made["ends_at"] + 5
    events = [asyncio.Event() for _ in cookies]
    tasks = [
        asyncio.create_task(player(i, host, c, tid, until, length, figures, events[i]))
        for i, c in enumerate(cookies)
    ]
    for event, task in zip(events, tasks, strict=True):
        waiting = asyncio.ensure_future(event.wait())
        await asyncio.wait([waiting, task], return_when=asyncio.FIRST_COMPLETED)  # a page that fails
        waiting.cancel()
    # Every player joined and has its page open before the start, or the first wave is not measured.
    ready = made["starts_at"] - time.time()
    await asyncio.gather(*tasks, return_exceptions=True)
    async with httpx.AsyncClient(base_url=f"http://{host}", timeout=120) as http:
        ended = await _finished_at(
            http, {m for m, _ in figures.repair_server} | {m for m, _ in figures.standings_server}
        )
    repair_server = [at - ended[m] for m, at in figures.repair_server if m in ended]
    standings_server = [at - ended[m] for m, at in figures.standings_server if m in ended]
    first = max(figures.first_seen.values(), default=float("nan")) - made["starts_at"]
    paired = max(figures.first_paired.values(), default=float("nan")) - made["starts_at"]
    return {
        "players": players,
        "ready_before_start_s": round(ready, 1),
        "paired_first": len(figures.first_seen),
        "first_wave_s": round(first, 3),
        "first_wave_server_s": round(paired, 3),
        "match_seconds": length,
        "matches_finished": figures.finished // 2,
        "repair_p50_s": round(_percentile(figures.repair, 0.5), 3),
        "repair_p90_s": round(_percentile(figures.repair, 0.9), 3),
        "repair_p99_s": round(_percentile(figures.repair, 0.99), 3),
        "standings_p50_s": round(_percentile(figures.standings, 0.5), 3),
        "standings_p90_s": round(_percentile(figures.standings, 0.9), 3),
        "standings_p99_s": round(_percentile(figures.standings, 0.99), 3),
        "standings_samples": len(figures.standings),
        "repair_server_p50_s": round(_percentile(repair_server, 0.5), 3),
        "repair_server_p90_s": round(_percentile(repair_server, 0.9), 3),
        "repair_server_p99_s": round(_percentile(repair_server, 0.99), 3),
        "standings_server_p50_s": round(_percentile(standings_server, 0.5), 3),
        "standings_server_p90_s": round(_percentile(standings_server, 0.9), 3),
        "standings_server_p99_s": round(_percentile(standings_server, 0.99), 3),
        "standings_mean_s": round(statistics.fmean(figures.standings), 3) if figures.standings else None,
        "errors": len(figures.errors),
        "first_errors": figures.errors[:3],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--minutes", type=float, default=3.0, help="the arena's length")
    parser.add_argument(
        "--lead", type=float, default=90.0, help="seconds from creating the arena to its start (time to join)"
    )
    parser.add_argument(
        "--match-seconds",
        type=float,
        default=0.0,
        help="how long a match lasts, on average (each between half and one and a half of it; seat 0"
        " resigns then); 0: as fast as the clients go",
    )
    parser.add_argument("--src", help="serve another checkout's src (the code before a change)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.players < 2 or args.players % 2:
        parser.error("--players must be an even number of at least 2")
    env = {
        "GINRUMMY_SOCKETS": "8/100000",
        "GINRUMMY_SOCKET_OPENS": "100000/100000",
        "GINRUMMY_RATE_LIMIT": "1000/1000",
    }
    with running_server(env, src=args.src) as server:
        cpu_before = _cpu_seconds(server.pid)
        client_before = time.process_time()
        result = asyncio.run(bench(server.host, args.players, args.minutes, args.lead, args.match_seconds))
        result["server_cpu_s"] = round(_cpu_seconds(server.pid) - cpu_before, 1)
        # The scripted clients share the machine: their CPU says how much of the latency is theirs.
        result["client_cpu_s"] = round(time.process_time() - client_before, 1)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"Arena of {result['players']} scripted players, {args.minutes:g} minutes (real server, SQLite)")
    if result["ready_before_start_s"] < 0:
        print(
            f"  NOT READY: the players were joined and watching {-result['ready_before_start_s']} s late; use --lead"
        )
    print(f"  matches last {args.match_seconds * 0.5:g}-{args.match_seconds * 1.5:g} s")
    print(
        f"  first pairing wave: {result['paired_first']} players paired, the last {result['first_wave_s']} s"
        f" after the start (the server paired it {result['first_wave_server_s']} s after)"
    )
    print(f"  matches finished:   {result['matches_finished']}")
    print(
        f"  re-pairing after a match:     p50 {result['repair_p50_s']} s, p90 {result['repair_p90_s']} s, p99 {result['repair_p99_s']} s"
    )
    print(
        f"    on the server's clock (match stored as ended -> pairing made): p50 {result['repair_server_p50_s']} s,"
        f" p90 {result['repair_server_p90_s']} s, p99 {result['repair_server_p99_s']} s"
    )
    print(
        f"  standings broadcast latency:  p50 {result['standings_p50_s']} s, p90 {result['standings_p90_s']} s,"
        f" p99 {result['standings_p99_s']} s"
        f" ({result['standings_samples']} samples)"
    )
    print(
        f"    on the server's clock (match stored as ended -> push made): p50 {result['standings_server_p50_s']} s,"
        f" p90 {result['standings_server_p90_s']} s, p99 {result['standings_server_p99_s']} s"
    )
    print(
        f"  CPU: server {result['server_cpu_s']} s, scripted clients {result['client_cpu_s']} s;"
        f" client errors: {result['errors']} {result['first_errors']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
