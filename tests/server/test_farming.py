"""The rating-farming script of issue 26 against the real server: two guest cookies from one
address seek a rated match to let one resign to the other. They never meet in the rated pool, a
private rated arena refuses the second, and nobody's rating moves; a visitor of another address
is paired with either at once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_helpers import Guest, live_server, new_guest, run, test_settings

RATED = {"preset": "classic", "target": 25, "rated": True}


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # The production default: players of one address are kept apart in rated play.
    settings = test_settings(tmp_path_factory.mktemp("farming"), rated_same_address=False)
    with live_server(settings) as address:
        yield address


async def rating(guest: Guest) -> dict[str, object]:
    return (await guest.me())["rating"]  # type: ignore[no-any-return]


def test_two_guest_cookies_of_one_address_get_no_rated_match_and_no_rating_change(host: str) -> None:
    async def body() -> None:
        farmer, victim = await new_guest(host), await new_guest(host)  # both from 127.0.0.1
        for guest in (farmer, victim):
            status, data = await guest.request("POST", "/api/pool", RATED)
            assert status == 200 and data["state"] == "waiting", data
        # Waves run every second; each long poll lasts three: the two are never paired.
        for _ in range(2):
            for guest in (farmer, victim):
                status, news = await guest.request("GET", "/api/pool?wait=3")
                assert status == 200 and news["state"] == "waiting", news
        # So there is no match for one of them to resign: nobody's rating moved.
        for guest in (farmer, victim):
            assert (await guest.request("GET", "/api/matches"))[1]["matches"] == []
            assert (await rating(guest))["games"] == 0 and (await rating(guest))["rating"] == 1500

        # A player of another network is paired with one of them at once.
        stranger = await new_guest(host, local_address="127.0.0.2")
        status, data = await stranger.request("POST", "/api/pool", RATED)
        assert status == 200
        status, news = await stranger.request("GET", "/api/pool?wait=10")
        assert status == 200 and news["state"] == "paired", news
        seated = []
        for guest in (farmer, victim):
            _, matches = await guest.request("GET", "/api/matches")
            seated += [m["id"] for m in matches["matches"]]
        assert seated == [news["match_id"]]

        # A private rated arena by link: the farmer's second cookie may not join it.
        status, made = await farmer.request(
            "POST", "/api/tournaments", {"minutes": 10, "rules": {"preset": "classic", "target": 25}}
        )
        assert status == 200 and made["rated"] is True and made["listed"] is False
        tid = made["id"]
        assert (await farmer.request("POST", f"/api/tournaments/{tid}/join"))[0] == 200
        status, refused = await victim.request("POST", f"/api/tournaments/{tid}/join")
        assert status == 403 and refused["error"]["code"] == "same_address", refused
        assert "network address" in refused["error"]["message"]
        status, state = await victim.request("GET", f"/api/tournaments/{tid}")
        assert status == 200 and [line["name"] for line in state["standings"]] == [
            (await farmer.me())["name"]
        ]
        other = await new_guest(host, local_address="127.0.0.3")
        assert (await other.request("POST", f"/api/tournaments/{tid}/join"))[0] == 200
        for guest in (farmer, victim):
            assert (await rating(guest))["games"] == 0

    run(body)
