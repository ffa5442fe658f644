"""Server memory under huge request bodies: N concurrent clients each POST a 300 MB body.

Starts `ginrummy serve` (see serverproc.py), samples the server's resident memory every 20 ms
while the clients send, and prints the resident memory before, the peak during the attack (and
the kernel's high-water mark), what each client got back, and how much of its body the server
took before answering. Bodies go out in 1 MiB chunks from one reused buffer, so the clients
themselves stay small.

    .venv/bin/python benchmarks/bench_body_limit.py                      # 3 x 300 MB, Content-Length
    .venv/bin/python benchmarks/bench_body_limit.py --chunked            # no Content-Length: streamed
    .venv/bin/python benchmarks/bench_body_limit.py --src /path/to/other/checkout/src   # other code

Bounded: each client stops at its body's end or when the server closes; the run stops after --timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serverproc import rss_kib, running_server  # noqa: E402

CHUNK = b" " * (1 << 20)


async def attack(host: str, megabytes: int, chunked: bool, timeout: float) -> dict[str, object]:
    """One client: POST a body of `megabytes` MiB to /api/matches; (status, bytes sent, seconds)."""
    address, port = host.split(":")
    reader, writer = await asyncio.open_connection(address, int(port))
    size = megabytes << 20
    head = f"POST /api/matches HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {size}\r\n\r\n"
    started = time.perf_counter()
    sent = 0
    answer = asyncio.ensure_future(reader.read(65536))
    try:
        writer.write(head.encode())
        while sent < size and not answer.done():
            piece = CHUNK if not chunked else b"%x\r\n" % len(CHUNK) + CHUNK + b"\r\n"
            writer.write(piece)
            await asyncio.wait_for(writer.drain(), timeout)
            sent += len(CHUNK)
        if chunked and not answer.done():
            writer.write(b"0\r\n\r\n")
            await writer.drain()
    except (ConnectionError, TimeoutError):
        pass  # the server answered and closed while the body was still coming
    try:
        data = await asyncio.wait_for(answer, timeout)
    except (ConnectionError, TimeoutError):
        data = b""
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else None
    return {
        "status": status,
        "sent_mib": round(sent / (1 << 20), 1),
        "seconds": round(time.perf_counter() - started, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--megabytes", type=int, default=300, help="body size of each client, MiB")
    parser.add_argument("--chunked", action="store_true", help="send without Content-Length")
    parser.add_argument("--src", default=None, help="run the server from this checkout's src")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with running_server(src=args.src) as server:
        before = rss_kib(server.pid)
        peak = before
        stop = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not stop.is_set():
                with contextlib.suppress(OSError, ValueError):
                    peak = max(peak, rss_kib(server.pid))
                time.sleep(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()

        async def run_all() -> list[dict[str, object]]:
            return await asyncio.gather(
                *[
                    attack(server.host, args.megabytes, args.chunked, args.timeout)
                    for _ in range(args.clients)
                ]
            )

        started = time.perf_counter()
        results = asyncio.run(run_all())
        elapsed = time.perf_counter() - started
        time.sleep(0.2)
        stop.set()
        sampler.join()
        high_water = rss_kib(server.pid, "VmHWM")
        after = rss_kib(server.pid)
    figures = {
        "clients": args.clients,
        "megabytes_each": args.megabytes,
        "framing": "chunked" if args.chunked else "content-length",
        "rss_before_mib": round(before / 1024, 1),
        "rss_peak_mib": round(peak / 1024, 1),
        "rss_high_water_mib": round(high_water / 1024, 1),
        "rss_after_mib": round(after / 1024, 1),
        "seconds": round(elapsed, 2),
        "answers": results,
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(
        f"{args.clients} concurrent POSTs of {args.megabytes} MiB to /api/matches ({figures['framing']}), "
        f"server from {args.src or 'this checkout'}"
    )
    print(
        f"server resident memory: {figures['rss_before_mib']} MiB before, peak {figures['rss_peak_mib']} MiB "
        f"(kernel high-water mark {figures['rss_high_water_mib']} MiB), {figures['rss_after_mib']} MiB after"
    )
    for number, answer in enumerate(results, start=1):
        print(
            f"client {number}: HTTP {answer['status'] or 'none (connection reset)'} after sending {answer['sent_mib']} MiB "
            f"in {answer['seconds']} s"
        )
    print(f"all answered in {figures['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
