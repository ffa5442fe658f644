"""Settings from the environment: defaults, every variable, and clear errors for bad values."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from server_helpers import live_server, new_guest, run

from ginrummy.server import Settings, SettingsError


def test_defaults_use_an_sqlite_file_in_the_data_dir(tmp_path: Path) -> None:
    settings = Settings.from_env({"GINRUMMY_DATA_DIR": str(tmp_path / "data")})
    assert settings.database_url == f"sqlite:///{(tmp_path / 'data' / 'ginrummy.sqlite3').resolve()}"
    assert (tmp_path / "data").is_dir()
    assert settings.secret is None and settings.robot_delay == 0.6 and settings.turn_seconds == 60
    assert settings.grace_seconds == 30 and (settings.rate_per_second, settings.rate_burst) == (20, 40)
    assert settings.max_message == 4096 and settings.sqlite_synchronous == "NORMAL"
    assert settings.allowed_origins == () and not settings.cookie_secure
    assert (settings.http_per_minute, settings.http_burst) == (60, 120)
    assert (settings.sockets_per_guest, settings.sockets_per_address) == (8, 64)
    assert (settings.socket_open_rate, settings.socket_open_burst) == (2, 20)
    assert (settings.bot_rate_per_second, settings.bot_rate_burst) == (10, 40)
    assert settings.forwarded_allow_ips == () and settings.db_timeout == 5
    assert settings.server_options()["proxy_headers"] is False  # no forwarded header is believed
    assert settings.redis_url is None and settings.node_name is None  # one process: no cluster
    assert (settings.lease_seconds, settings.heartbeat_seconds, settings.call_timeout) == (3, 1, 5)
    assert settings.daily_arena_hours == (0, 6, 12, 18) and settings.daily_swiss_hours == (3, 15)
    assert settings.server_options()["ws_per_message_deflate"] is False
    assert settings.rated_same_address is False  # players of one address never meet in rated play


def test_every_variable_is_read() -> None:
    settings = Settings.from_env(
        {
            "DATABASE_URL": "postgresql+psycopg://u:p@db/gin",
            "GINRUMMY_SECRET": "k" * 40,
            "GINRUMMY_ROBOT_DELAY": "0",
            "GINRUMMY_ROBOT_BUDGET": "0.25",
            "GINRUMMY_TURN_SECONDS": "0",
            "GINRUMMY_GRACE_SECONDS": "12.5",
            "GINRUMMY_RATE_LIMIT": "5/9",
            "GINRUMMY_HTTP_RATE_LIMIT": "30/7",
            "GINRUMMY_MAX_MESSAGE": "8192",
            "GINRUMMY_SQLITE_SYNC": "full",
            "GINRUMMY_COOKIE_SECURE": "1",
            "GINRUMMY_ALLOWED_ORIGINS": "https://Cards.example/, http://localhost:8000",
            "GINRUMMY_LOG_LEVEL": "DEBUG",
            "GINRUMMY_SOCKETS": "4/100",
            "GINRUMMY_SOCKET_OPENS": "0.5/10",
            "GINRUMMY_BOT_RATE_LIMIT": "3/12",
            "GINRUMMY_FORWARDED_ALLOW_IPS": "10.0.0.5, 192.168.0.0/16",
            "GINRUMMY_DB_TIMEOUT": "2.5",
            "REDIS_URL": "redis://cache:6379/2",
            "GINRUMMY_NODE_NAME": "web-2",
            "GINRUMMY_LEASE_SECONDS": "6",
            "GINRUMMY_HEARTBEAT_SECONDS": "1.5",
            "GINRUMMY_CALL_TIMEOUT": "3",
            "GINRUMMY_DAILY_ARENA_HOURS": "21, 9",
            "GINRUMMY_DAILY_SWISS_HOURS": "none",
            "GINRUMMY_WS_DEFLATE": "yes",
            "GINRUMMY_RATED_SAME_ADDRESS": "1",
            "GINRUMMY_OPEN_TOURNAMENTS": "7",
            "GINRUMMY_TOURNAMENTS_PER_HOUR": "0",
        }
    )
    assert settings.open_tournaments == 7 and settings.tournaments_per_hour == 0
    assert settings.redis_url == "redis://cache:6379/2" and settings.node_name == "web-2"
    assert (settings.lease_seconds, settings.heartbeat_seconds, settings.call_timeout) == (6, 1.5, 3)
    assert settings.database_url == "postgresql+psycopg://u:p@db/gin" and settings.secret == "k" * 40
    assert settings.robot_delay == 0 and settings.robot_time_budget == 0.25 and settings.turn_seconds is None
    assert settings.grace_seconds == 12.5 and (settings.rate_per_second, settings.rate_burst) == (5, 9)
    assert settings.max_message == 8192 and settings.sqlite_synchronous == "FULL" and settings.cookie_secure
    assert settings.allowed_origins == ("https://cards.example", "http://localhost:8000")
    assert settings.log_level == "debug" and (settings.http_per_minute, settings.http_burst) == (30, 7)
    assert (settings.sockets_per_guest, settings.sockets_per_address) == (4, 100)
    assert (settings.socket_open_rate, settings.socket_open_burst) == (0.5, 10) and settings.db_timeout == 2.5
    assert (settings.bot_rate_per_second, settings.bot_rate_burst) == (3, 12)
    assert settings.forwarded_allow_ips == ("10.0.0.5", "192.168.0.0/16")
    assert settings.server_options()["proxy_headers"] is True
    assert settings.server_options()["forwarded_allow_ips"] == "10.0.0.5,192.168.0.0/16"
    assert settings.daily_arena_hours == (9, 21) and settings.daily_swiss_hours == ()
    assert settings.server_options()["ws_per_message_deflate"] is True
    assert settings.rated_same_address is True
    assert (
        Settings.from_env({"DATABASE_URL": "sqlite://", "GINRUMMY_HTTP_RATE_LIMIT": "0"}).http_per_minute == 0
    )


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("GINRUMMY_ROBOT_DELAY", "soon", "number"),
        ("GINRUMMY_GRACE_SECONDS", "-1", "at least"),
        ("GINRUMMY_TURN_SECONDS", "5", "10..3600"),
        ("GINRUMMY_RATE_LIMIT", "fast", "20/40"),
        ("GINRUMMY_RATE_LIMIT", "0/5", "positive"),
        ("GINRUMMY_SQLITE_SYNC", "sometimes", "NORMAL"),
        ("GINRUMMY_HTTP_RATE_LIMIT", "lots", "60/120"),
        ("GINRUMMY_HTTP_RATE_LIMIT", "-5/10", "positive"),
        ("GINRUMMY_MAX_MESSAGE", "10", "at least"),
        ("GINRUMMY_SOCKETS", "many", "8/64"),
        ("GINRUMMY_SOCKET_OPENS", "0/5", "positive"),
        ("GINRUMMY_BOT_RATE_LIMIT", "quick", "10/40"),
        ("GINRUMMY_FORWARDED_ALLOW_IPS", "proxy.local", "addresses or networks"),
        ("GINRUMMY_DB_TIMEOUT", "0", "at least"),
        ("REDIS_URL", "cache:6379", "redis://"),
        ("GINRUMMY_NODE_NAME", "web " + "x" * 70, "64 printable"),
        ("GINRUMMY_LEASE_SECONDS", "0.1", "at least"),
        ("GINRUMMY_HEARTBEAT_SECONDS", "5", "shorter than GINRUMMY_LEASE_SECONDS"),
        ("GINRUMMY_CALL_TIMEOUT", "0", "at least"),
        ("GINRUMMY_DAILY_ARENA_HOURS", "6,24", "from 0 to 23"),
        ("GINRUMMY_DAILY_ARENA_HOURS", "noon", "from 0 to 23"),
        ("GINRUMMY_DAILY_SWISS_HOURS", "3,15,3", "hour 3 twice"),
        ("GINRUMMY_DAILY_SWISS_HOURS", "3;15", "separated by commas"),
        ("GINRUMMY_WS_DEFLATE", "maybe", "1 or 0"),
        ("GINRUMMY_RATED_SAME_ADDRESS", "sometimes", "1 or 0"),
        ("GINRUMMY_OPEN_TOURNAMENTS", "-1", "whole number"),
        ("GINRUMMY_OPEN_TOURNAMENTS", "many", "whole number"),
        ("GINRUMMY_TOURNAMENTS_PER_HOUR", "1.5", "whole number"),
    ],
)
def test_bad_values_are_refused_with_the_variable_named(name: str, value: str, words: str) -> None:
    with pytest.raises(SettingsError, match=name) as error:
        Settings.from_env({"DATABASE_URL": "sqlite://", name: value})
    assert words in str(error.value)


def test_the_daily_hours_reach_the_schedule(tmp_path: Path) -> None:
    """Other hours than the defaults: the server schedules its daily tournaments at those."""
    settings = Settings.from_env(
        {
            "DATABASE_URL": f"sqlite:///{tmp_path / 'daily.sqlite3'}",
            "GINRUMMY_DAILY_ARENA_HOURS": "5",
            "GINRUMMY_DAILY_SWISS_HOURS": "11,23",
        }
    )

    async def body() -> None:
        guest = await new_guest(host)
        status, data = await guest.request("GET", "/api/tournaments")
        assert status == 200
        daily = {t["id"]: t for t in data["tournaments"] if t["id"].startswith("daily-")}
        arenas = [t for t in daily.values() if t["format"] == "arena"]
        swiss = [t for t in daily.values() if t["format"] == "swiss"]
        # The next 24 hours hold the 05:00 arena and the 11:00 and 23:00 Swiss tournaments (the
        # day's own too within the hour after its start); nothing at the default hours.
        assert arenas and all(t["id"].endswith("-05") for t in arenas)
        assert {time.gmtime(t["starts_at"]).tm_hour for t in arenas} == {5}
        assert {time.gmtime(t["starts_at"]).tm_hour for t in swiss} == {11, 23}

    with live_server(settings) as host:
        run(body)
