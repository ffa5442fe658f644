"""Server settings, read from the environment.

Environment variables (all optional):

- ``DATABASE_URL``: SQLAlchemy URL of the database. ``postgresql://user:pw@host/db`` (or
  ``postgresql+psycopg://...``) uses PostgreSQL through psycopg 3. Unset: an SQLite file
  ``ginrummy.sqlite3`` in ``GINRUMMY_DATA_DIR``.
- ``GINRUMMY_DATA_DIR``: directory of the default SQLite file (default: the current directory).
- ``GINRUMMY_SECRET``: key that signs guest cookies (HMAC-SHA256). Unset: a random secret is
  generated once and kept in the database, so cookies survive restarts.
- ``GINRUMMY_ROBOT_DELAY``: seconds a robot waits before each move, so people can follow
  (default 0.6; tests and benchmarks use 0).
- ``GINRUMMY_ROBOT_BUDGET``: most seconds a robot may think per decision (default: the player's own).
- ``GINRUMMY_TURN_SECONDS``: default turn clock of private rooms, seconds per decision (default 60;
  0 = no clock). A room may choose its own; matches against robots have none.
- ``GINRUMMY_GRACE_SECONDS``: how long a disconnected person keeps the seat before a robot
  (``casual``) plays its moves until it comes back (default 30).
- ``GINRUMMY_SESSION_RECHECK``: seconds between two checks that the cookies of a process's open
  table sockets still sign their players in (default 30): a sign-out on another process of a
  cluster closes its sockets here within this time (on the same process, at once).
- ``GINRUMMY_RATE_LIMIT``: WebSocket messages per second and burst per guest, all of its sockets
  together, ``RATE/BURST`` (default ``20/40``).
- ``GINRUMMY_SOCKETS``: most match sockets open at once per guest and per client address,
  ``PER_GUEST/PER_ADDRESS`` (default ``8/64``).
- ``GINRUMMY_SOCKET_OPENS``: match sockets a client address may open per second and at once,
  ``RATE/BURST`` (default ``2/20``).
- ``GINRUMMY_FORWARDED_ALLOW_IPS``: comma-separated addresses or networks (``10.0.0.5``,
  ``10.0.0.0/8``, or ``*``) of reverse proxies whose ``X-Forwarded-For`` / ``X-Forwarded-Proto``
  headers are believed. Default: none — every limit per address uses the address the connection
  really comes from (behind a proxy, list the proxy here, or every visitor shares its limits).
- ``GINRUMMY_RATED_SAME_ADDRESS``: ``1`` to let players of one client address meet in rated play
  (a school's or a café's shared network). Default off: the rated pool never pairs two of them
  and a rated tournament refuses a second player from an address, so nobody farms rating off a
  second identity of their own (docs/compete.md). The address is the one the limits count (see
  ``GINRUMMY_FORWARDED_ALLOW_IPS``: behind a proxy, list it, or every visitor shares one address).
- ``GINRUMMY_HTTP_RATE_LIMIT``: HTTP calls that create or change something (new guests, matches,
  rooms, joins, renames, rematches) per client address, ``PER_MINUTE/BURST`` (default ``60/120``;
  ``0`` = no limit). A failed room join counts five. Behind a reverse proxy, set
  ``GINRUMMY_FORWARDED_ALLOW_IPS`` so the client's own address is seen.
- ``GINRUMMY_BOT_RATE_LIMIT``: calls a bot account may make with its API token, HTTP requests and
  WebSocket messages of all its connections together, ``RATE/BURST`` per second (default ``10/40``).
- ``GINRUMMY_MAX_MESSAGE``: largest WebSocket message accepted, in bytes (default 4096).
- ``GINRUMMY_DB_TIMEOUT``: most seconds a database write or read may wait for its turn and its
  lock (another process holding the SQLite file, a PostgreSQL row lock) before the request is
  answered 503 with ``Retry-After`` and nothing changed (default 5).
- ``GINRUMMY_SQLITE_SYNC``: SQLite ``synchronous`` mode: ``NORMAL`` (default; every committed
  action survives the process being killed) or ``FULL`` (also survives power loss; slower).
- ``GINRUMMY_COOKIE_SECURE``: ``1`` to mark the guest cookie Secure (behind HTTPS).
- ``GINRUMMY_ALLOWED_ORIGINS``: comma-separated origins (``https://cards.example``) whose pages may
  open the match WebSocket. Unset: only pages of the host the socket was opened on (behind a proxy
  that rewrites the Host header, list the public origin here).
- ``GINRUMMY_DAILY_ARENA_HOURS``: the UTC hours the daily arenas start at, comma-separated
  whole hours 0-23 (default ``0,6,12,18``; ``none``: no daily arena).
- ``GINRUMMY_DAILY_SWISS_HOURS``: the UTC hours the daily Swiss tournaments start at (default
  ``3,15``; ``none``: no daily Swiss).
- ``GINRUMMY_OPEN_TOURNAMENTS``: tournaments one person (guest or account) may have made that
  have not finished yet; one more is refused until one of them ends (default 3; ``0`` = no limit).
- ``GINRUMMY_TOURNAMENTS_PER_HOUR``: tournaments one client address may make per hour, all its
  guests and accounts together (default 10; ``0`` = no limit; a refused creation does not count).
- ``GINRUMMY_WS_DEFLATE``: ``1`` to compress WebSocket messages (permessage-deflate): less
  traffic, much more server CPU (default off).
- ``GINRUMMY_LOG_LEVEL``: ``debug``, ``info`` (default), ``warning``...
- ``REDIS_URL``: ``redis://host:6379/0`` makes this process one of a cluster (docs/deploy.md): many
  ``ginrummy serve`` processes on one PostgreSQL, each live match owned by one process through a
  lease, the processes talking through Redis. Unset (default): one process, no Redis, no leases.
- ``GINRUMMY_NODE_NAME``: this process's name in the cluster (default: host, process id and a
  random part; it must differ between processes and between restarts).
- ``GINRUMMY_LEASE_SECONDS``: how long a match's lease lasts without renewal: a killed process's
  matches move after this (default 3).
- ``GINRUMMY_HEARTBEAT_SECONDS``: seconds between lease renewals (default 1; below the lease).
- ``GINRUMMY_CALL_TIMEOUT``: most seconds a call forwarded to a match's owner waits for its answer
  before the page is told and reconnects (default 5).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Settings", "SettingsError"]


DAILY_ARENA_HOURS = (0, 6, 12, 18)  # UTC
DAILY_SWISS_HOURS = (3, 15)


class SettingsError(ValueError):
    """An environment variable with a value the server cannot use."""


def _float(env: Mapping[str, str], name: str, default: float, minimum: float = 0.0) -> float:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise SettingsError(f"{name} must be a number of seconds, got {text!r}") from None
    if value < minimum or value != value:
        raise SettingsError(f"{name} must be at least {minimum}, got {text!r}")
    return value


def _flag(env: Mapping[str, str], name: str) -> bool:
    """``1`` / ``true`` / ``yes`` (on) or ``0`` / ``false`` / ``no`` / unset (off)."""
    text = env.get(name, "").strip().lower()
    if text in ("1", "true", "yes"):
        return True
    if text in ("", "0", "false", "no"):
        return False
    raise SettingsError(f"{name} must be 1 or 0 (true/false, yes/no), got {text!r}")


def _http_limit(text: str) -> tuple[float, int]:
    """``PER_MINUTE/BURST`` (or ``0``, no limit) as (per minute, burst)."""
    per_s, _, burst_s = text.partition("/")
    try:
        per_minute = float(per_s)
        burst = int(burst_s) if burst_s else max(1, int(per_minute * 2))
    except ValueError:
        raise SettingsError(
            f"GINRUMMY_HTTP_RATE_LIMIT must look like 60/120 (per minute/burst) or 0, got {text!r}"
        ) from None
    if per_minute == 0 and not burst_s:
        return 0.0, 1
    if not per_minute > 0 or burst < 1:
        raise SettingsError(f"GINRUMMY_HTTP_RATE_LIMIT must be positive (or 0 for no limit), got {text!r}")
    return per_minute, burst


def _pair(env: Mapping[str, str], name: str, default: str, meaning: str) -> tuple[float, float]:
    """``A/B``: two positive numbers (the second a whole one)."""
    text = env.get(name, "").strip() or default
    first, _, second = text.partition("/")
    try:
        a, b = float(first), int(second)
    except ValueError:
        raise SettingsError(f"{name} must look like {default} ({meaning}), got {text!r}") from None
    if not (a > 0 and b >= 1):
        raise SettingsError(f"{name} must be positive ({meaning}), got {text!r}")
    return a, float(b)


def _hours(env: Mapping[str, str], name: str, default: tuple[int, ...]) -> tuple[int, ...]:
    """Comma-separated UTC hours (``0,6,12,18``), each once, or ``none``; in increasing order."""
    text = env.get(name, "").strip()
    if not text:
        return default
    if text.lower() == "none":
        return ()
    example = ",".join(str(h) for h in default) or "3,15"
    hours: list[int] = []
    for item in (part.strip() for part in text.split(",")):
        if not (item.isascii() and item.isdigit()) or not 0 <= int(item) <= 23:
            raise SettingsError(
                f"{name} must list whole UTC hours from 0 to 23 separated by commas (e.g. {example}) "
                f"or none, got {item!r} in {text!r}"
            )
        if int(item) in hours:
            raise SettingsError(f"{name} lists the hour {int(item)} twice: {text!r}")
        hours.append(int(item))
    return tuple(sorted(hours))


def _networks(text: str) -> tuple[str, ...]:
    """Comma-separated addresses or networks (or ``*``), checked."""
    found = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if item != "*":
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise SettingsError(
                    f"GINRUMMY_FORWARDED_ALLOW_IPS must list addresses or networks (10.0.0.5, 10.0.0.0/8) "
                    f"or *, got {item!r}"
                ) from None
        found.append(item)
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the app factory needs; `Settings.from_env()` reads the variables above."""

    database_url: str = "sqlite:///ginrummy.sqlite3"
    secret: str | None = None
    robot_delay: float = 0.6
    robot_time_budget: float | None = None
    turn_seconds: int | None = 60
    grace_seconds: float = 30.0
    session_recheck: float = 30.0
    swiss_round_gap: float = 10.0
    daily_arena_hours: tuple[int, ...] = DAILY_ARENA_HOURS
    daily_swiss_hours: tuple[int, ...] = DAILY_SWISS_HOURS
    open_tournaments: int = 3
    tournaments_per_hour: int = 10
    rate_per_second: float = 20.0
    rate_burst: int = 40
    sockets_per_guest: int = 8
    sockets_per_address: int = 64
    socket_open_rate: float = 2.0
    socket_open_burst: int = 20
    bot_rate_per_second: float = 10.0
    bot_rate_burst: int = 40
    forwarded_allow_ips: tuple[str, ...] = ()
    rated_same_address: bool = False
    http_per_minute: float = 60.0
    http_burst: int = 120
    max_message: int = 4096
    sqlite_synchronous: str = "NORMAL"
    db_timeout: float = 5.0
    cookie_secure: bool = False
    allowed_origins: tuple[str, ...] = ()
    ws_deflate: bool = False
    log_level: str = "info"
    redis_url: str | None = None
    node_name: str | None = None
    lease_seconds: float = 3.0
    heartbeat_seconds: float = 1.0
    call_timeout: float = 5.0
    tune_gc: bool = False  # freeze start-up objects, rare full collections (set by `ginrummy serve`)
    static_dir: Path = field(default_factory=lambda: Path(__file__).resolve().parent / "static")

    def server_options(self) -> dict[str, Any]:
        """Uvicorn options that follow from the settings (`ginrummy serve` and the tests use them).

        Forwarded headers are believed only from the configured proxies: Uvicorn's own default
        believes them from 127.0.0.1, so anyone on the machine (or a local proxy passing the
        header through) could pick the address every per-address limit counts.
        """
        trusted = self.forwarded_allow_ips
        return {
            "proxy_headers": bool(trusted),
            "forwarded_allow_ips": ",".join(trusted) if trusted else "",
            # The app answers frames over max_message with an error; far larger ones are cut off here.
            "ws_max_size": max(65536, self.max_message * 4),
            # Compressing every message costs the event loop more than anything else a busy
            # tournament does (a third of the server's CPU in benchmarks/bench_arena.py); the
            # messages are small (a table's state is a few KB, a tournament push a few hundred
            # bytes), so it is off unless the operator turns it on.
            "ws_per_message_deflate": self.ws_deflate,
        }

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        url = env.get("DATABASE_URL", "").strip()
        if not url:
            data_dir = Path(env.get("GINRUMMY_DATA_DIR", "").strip() or ".")
            data_dir.mkdir(parents=True, exist_ok=True)
            url = f"sqlite:///{(data_dir / 'ginrummy.sqlite3').resolve()}"
        turn = _float(env, "GINRUMMY_TURN_SECONDS", 60)
        if turn and not 10 <= turn <= 3600:
            raise SettingsError(f"GINRUMMY_TURN_SECONDS must be 0 or 10..3600, got {turn:g}")
        rate_text = env.get("GINRUMMY_RATE_LIMIT", "").strip() or "20/40"
        try:
            rate_s, _, burst_s = rate_text.partition("/")
            rate = float(rate_s)
            burst = int(burst_s) if burst_s else max(1, int(rate * 2))
        except ValueError:
            raise SettingsError(
                f"GINRUMMY_RATE_LIMIT must look like 20/40 (per second/burst), got {rate_text!r}"
            ) from None
        if rate <= 0 or burst < 1:
            raise SettingsError(f"GINRUMMY_RATE_LIMIT must be positive, got {rate_text!r}")
        sockets = _pair(env, "GINRUMMY_SOCKETS", "8/64", "per guest/per address")
        opens = _pair(env, "GINRUMMY_SOCKET_OPENS", "2/20", "per second/burst")
        bot_rate = _pair(env, "GINRUMMY_BOT_RATE_LIMIT", "10/40", "per second/burst")
        http_per_minute, http_burst = _http_limit(env.get("GINRUMMY_HTTP_RATE_LIMIT", "").strip() or "60/120")
        budget = env.get("GINRUMMY_ROBOT_BUDGET", "").strip()
        max_message = int(_float(env, "GINRUMMY_MAX_MESSAGE", 4096, minimum=256))
        sync = env.get("GINRUMMY_SQLITE_SYNC", "").strip().upper() or "NORMAL"
        if sync not in ("NORMAL", "FULL", "EXTRA"):
            raise SettingsError(f"GINRUMMY_SQLITE_SYNC must be NORMAL, FULL or EXTRA, got {sync!r}")
        redis_url = env.get("REDIS_URL", "").strip() or None
        if redis_url is not None and not redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise SettingsError(f"REDIS_URL must be a redis://, rediss:// or unix:// URL, got {redis_url!r}")
        node_name = env.get("GINRUMMY_NODE_NAME", "").strip() or None
        if node_name is not None and (len(node_name) > 64 or not node_name.isprintable() or " " in node_name):
            raise SettingsError(
                f"GINRUMMY_NODE_NAME must be 1 to 64 printable characters, no spaces, got {node_name!r}"
            )
        lease = _float(env, "GINRUMMY_LEASE_SECONDS", 3.0, minimum=0.5)
        heartbeat = _float(env, "GINRUMMY_HEARTBEAT_SECONDS", 1.0, minimum=0.1)
        if heartbeat >= lease:
            raise SettingsError(
                f"GINRUMMY_HEARTBEAT_SECONDS ({heartbeat:g}) must be shorter than GINRUMMY_LEASE_SECONDS ({lease:g})"
            )
        counts = {}
        for name, default in (("GINRUMMY_OPEN_TOURNAMENTS", "3"), ("GINRUMMY_TOURNAMENTS_PER_HOUR", "10")):
            text = env.get(name, "").strip() or default
            if not (text.isascii() and text.isdigit()):
                raise SettingsError(
                    f"{name} must be a whole number of tournaments (0: no limit), got {text!r}"
                )
            counts[name] = int(text)
        return cls(
            database_url=url,
            secret=env.get("GINRUMMY_SECRET", "").strip() or None,
            robot_delay=_float(env, "GINRUMMY_ROBOT_DELAY", 0.6),
            robot_time_budget=_float(env, "GINRUMMY_ROBOT_BUDGET", 0.0) if budget else None,
            turn_seconds=int(turn) or None,
            grace_seconds=_float(env, "GINRUMMY_GRACE_SECONDS", 30.0),
            session_recheck=_float(env, "GINRUMMY_SESSION_RECHECK", 30.0, minimum=0.1),
            swiss_round_gap=_float(env, "GINRUMMY_SWISS_ROUND_GAP", 10.0),
            daily_arena_hours=_hours(env, "GINRUMMY_DAILY_ARENA_HOURS", DAILY_ARENA_HOURS),
            daily_swiss_hours=_hours(env, "GINRUMMY_DAILY_SWISS_HOURS", DAILY_SWISS_HOURS),
            open_tournaments=counts["GINRUMMY_OPEN_TOURNAMENTS"],
            tournaments_per_hour=counts["GINRUMMY_TOURNAMENTS_PER_HOUR"],
            rate_per_second=rate,
            rate_burst=burst,
            sockets_per_guest=int(sockets[0]),
            sockets_per_address=int(sockets[1]),
            socket_open_rate=opens[0],
            socket_open_burst=int(opens[1]),
            bot_rate_per_second=bot_rate[0],
            bot_rate_burst=int(bot_rate[1]),
            forwarded_allow_ips=_networks(env.get("GINRUMMY_FORWARDED_ALLOW_IPS", "")),
            rated_same_address=_flag(env, "GINRUMMY_RATED_SAME_ADDRESS"),
            http_per_minute=http_per_minute,
            http_burst=http_burst,
            max_message=max_message,
            sqlite_synchronous=sync,
            db_timeout=_float(env, "GINRUMMY_DB_TIMEOUT", 5.0, minimum=0.1),
            cookie_secure=env.get("GINRUMMY_COOKIE_SECURE", "").strip().lower() in ("1", "true", "yes"),
            allowed_origins=tuple(
                o.strip().rstrip("/").lower()
                for o in env.get("GINRUMMY_ALLOWED_ORIGINS", "").split(",")
                if o.strip()
            ),
            ws_deflate=_flag(env, "GINRUMMY_WS_DEFLATE"),
            log_level=env.get("GINRUMMY_LOG_LEVEL", "").strip().lower() or "info",
            redis_url=redis_url,
            node_name=node_name,
            lease_seconds=lease,
            heartbeat_seconds=heartbeat,
            call_timeout=_float(env, "GINRUMMY_CALL_TIMEOUT", 5.0, minimum=0.1),
        )
