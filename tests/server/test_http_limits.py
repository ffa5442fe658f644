"""HTTP rate limits per client address: creating guests, matches and rooms, and guessing room codes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_helpers import COOKIE, live_server, new_guest, run, test_settings

from ginrummy.server.limits import AddressLimiter
from ginrummy.service import RateLimited


@pytest.fixture()
def limited(tmp_path: Path) -> Iterator[str]:
    """A server allowing each address a burst of 4 calls, refilled at 6 a minute."""
    with live_server(test_settings(tmp_path, http_per_minute=6.0, http_burst=4)) as address:
        yield address


def test_creating_matches_stops_at_the_limit_and_the_refused_call_creates_nothing(limited: str) -> None:
    async def body() -> None:
        guest = await new_guest(limited)  # the new guest costs 1
        for _ in range(3):
            await guest.robot_match()
        status, data = await guest.request("POST", "/api/matches", {"level": "casual"})
        assert status == 429 and data["error"]["code"] == "rate_limited"
        assert "try again in" in data["error"]["message"]
        status, mine = await guest.request("GET", "/api/matches")  # reading is not limited
        assert status == 200 and len(mine["matches"]) == 3

    run(body)


def test_new_guests_are_limited_and_a_refused_visit_gets_no_cookie(limited: str) -> None:
    with httpx.Client(base_url=f"http://{limited}") as client:
        cookies = set()
        for _ in range(4):
            response = client.get("/api/me")
            assert response.status_code == 200
            cookies.add(response.cookies[COOKIE])
            client.cookies.clear()
        assert len(cookies) == 4
        response = client.get("/api/me")
        assert response.status_code == 429 and COOKIE not in response.cookies
        assert int(response.headers["Retry-After"]) >= 1
        assert response.json()["error"]["code"] == "rate_limited"


def test_a_wrong_room_code_costs_five_calls(tmp_path: Path) -> None:
    settings = test_settings(tmp_path, http_per_minute=6.0, http_burst=12)

    async def body(host: str) -> None:
        alice = await new_guest(host)  # 1
        room = await alice.room()  # 2
        bob = await new_guest(host)  # 3
        status, _ = await bob.join("ZZZZZZ" if room["code"] != "ZZZZZZ" else "YYYYYY")  # 4 + 4 = 8
        assert status == 404
        status, data = await bob.join("YYYYYY" if room["code"] != "YYYYYY" else "XXXXXX")  # 9 + 4 = 13
        assert status == 404
        status, data = await bob.join(room["code"])  # refused: the bucket is in debt
        assert status == 429 and data["error"]["code"] == "rate_limited"

    with live_server(settings) as host:
        run(lambda: body(host))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_limiter_refills_with_time_and_forgets_idle_addresses() -> None:
    clock = Clock()
    limiter = AddressLimiter(per_minute=60, burst=2, clock=clock)
    limiter.spend("a")
    limiter.spend("a")
    with pytest.raises(RateLimited) as refused:
        limiter.spend("a")
    assert refused.value.retry_after == 1 and refused.value.status == 429
    limiter.spend("b")  # another address has its own bucket
    clock.now += 1.0
    limiter.spend("a")
    limiter.charge("a", 5)
    clock.now += 4.0
    with pytest.raises(RateLimited) as refused:
        limiter.spend("a")
    assert refused.value.retry_after == 2
    limiter.PRUNE_AT = 2  # type: ignore[misc]
    clock.now += 60
    limiter.spend("c")  # a and b are full again and forgotten
    assert set(limiter.buckets) == {"c"}


def test_a_zero_rate_turns_the_limit_off() -> None:
    limiter = AddressLimiter(per_minute=0, burst=1)
    for _ in range(100):
        limiter.spend("a")
    assert not limiter.enabled and limiter.buckets == {}


def test_forwarded_headers_are_believed_only_from_configured_proxies(tmp_path: Path) -> None:
    def fresh_visits(address: str) -> list[int]:
        statuses = []
        with httpx.Client(base_url=f"http://{address}") as client:
            for number in range(6):  # each one a new guest, each claiming another address
                client.cookies.clear()
                response = client.get("/api/me", headers={"X-Forwarded-For": f"203.0.113.{number}"})
                statuses.append(response.status_code)
        return statuses

    limited = {"http_per_minute": 6.0, "http_burst": 4}
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    with live_server(test_settings(tmp_path / "a", **limited)) as address:
        assert fresh_visits(address)[4:] == [429, 429]  # by default the header changes nothing
    proxy = test_settings(tmp_path / "b", **limited, forwarded_allow_ips=("127.0.0.1",))
    with live_server(proxy) as address:
        assert fresh_visits(address) == [200] * 6  # behind a listed proxy, each client is its own
