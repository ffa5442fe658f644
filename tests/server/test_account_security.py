"""Account security over HTTP (issue 26): lockouts that keep out only the guesser, sessions the
server ends, a new cookie at sign-up and sign-in, no guest passing for an account."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_helpers import Guest, live_server, new_guest, run, test_settings

from ginrummy.service.accounts import address_key

PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server behind a proxy it believes (127.0.0.1): each guest may come from its own address."""
    settings = test_settings(tmp_path_factory.mktemp("security"), forwarded_allow_ips=("127.0.0.1",))
    with live_server(settings) as address:
        yield address


async def _account(host: str, name: str, address: str) -> Guest:
    owner = Guest(host, address=address)
    await owner.me()
    status, data = await owner.request("POST", "/api/account", {"name": name, "password": PASSWORD})
    assert status == 200, data
    return owner


def test_the_lockout_script_leaves_the_owner_signing_in_from_a_known_device(host: str) -> None:
    async def body() -> None:
        owner = await _account(host, "Victim_1", "198.51.100.7")
        me = await owner.me()
        assert owner.device  # the sign-up remembered this browser
        status, _ = await owner.request("POST", "/api/logout")
        assert status == 200 and (await owner.me())["id"] != me["id"]

        # The script: five wrong passwords, then again each window, from another address.
        attacker = Guest(host, address="203.0.113.9")
        for _ in range(5):
            status, data = await attacker.request(
                "POST", "/api/login", {"name": "victim_1", "password": "guess 1234"}
            )
            assert (status, data["error"]["code"]) == (403, "wrong_password")
        # The attacker stays throttled, even when it guesses right.
        status, data = await attacker.request(
            "POST", "/api/login", {"name": "victim_1", "password": PASSWORD}
        )
        assert (status, data["error"]["code"]) == (429, "rate_limited")
        # The owner's browser signs in at once, even from the attacker's own address.
        owner.address = "203.0.113.9"
        status, signed = await owner.request("POST", "/api/login", {"name": "Victim_1", "password": PASSWORD})
        assert status == 200 and signed["id"] == me["id"]
        # So does the owner on a new device from its own address (the failures were the attacker's).
        phone = Guest(host, address="198.51.100.7")
        status, signed = await phone.request("POST", "/api/login", {"name": "victim_1", "password": PASSWORD})
        assert status == 200 and signed["id"] == me["id"]

    run(body)


def test_guessers_from_many_addresses_lock_new_devices_out_but_never_a_known_one(host: str) -> None:
    async def body() -> None:
        owner = await _account(host, "Victim_2", "198.51.100.8")
        me = await owner.me()
        for n in range(4 * 5):  # twenty wrong passwords from four addresses
            guesser = Guest(host, address=f"192.0.2.{n // 5 + 1}")
            status, _ = await guesser.request(
                "POST", "/api/login", {"name": "victim_2", "password": f"guess {n:04}"}
            )
            assert status == 403
        # Every unknown device is now held back for this name: a fifth address too.
        stranger = Guest(host, address="192.0.2.99")
        status, data = await stranger.request(
            "POST", "/api/login", {"name": "victim_2", "password": PASSWORD}
        )
        assert (status, data["error"]["code"]) == (429, "rate_limited")
        # The owner's known browser is not.
        status, signed = await owner.request("POST", "/api/login", {"name": "victim_2", "password": PASSWORD})
        assert status == 200 and signed["id"] == me["id"]
        # A known device counts its own failures, apart from everyone else's.
        for _ in range(5):
            status, _ = await owner.request(
                "POST", "/api/login", {"name": "victim_2", "password": "typo typo"}
            )
            assert status == 403
        status, data = await owner.request("POST", "/api/login", {"name": "victim_2", "password": PASSWORD})
        assert status == 429 and "from this device" in data["error"]["message"]

    run(body)


def test_a_forged_or_foreign_device_cookie_earns_no_trust(host: str) -> None:
    async def body() -> None:
        await _account(host, "Victim_3", "198.51.100.9")
        other = await _account(host, "Someone_3", "198.51.100.10")  # a device known to another account
        for forged in (other.device, f"{other.device}x", "abc.def.0123"):
            attacker = Guest(host, address="203.0.113.30")
            attacker.device = forged
            for _ in range(5):
                status, _ = await attacker.request(
                    "POST", "/api/login", {"name": "victim_3", "password": "guess 1234"}
                )
                assert status in (403, 429)
            status, data = await attacker.request(
                "POST", "/api/login", {"name": "victim_3", "password": PASSWORD}
            )
            assert status == 429, (forged, data)

    run(body)


def test_sign_up_and_sign_in_give_a_new_session_cookie(host: str) -> None:
    async def body() -> None:
        victim = await new_guest(host)
        planted = victim.cookie  # a cookie an attacker made and slipped into the victim's browser
        me = await victim.me()
        status, claimed = await victim.request(
            "POST", "/api/account", {"name": "Fixed_1", "password": PASSWORD}
        )
        assert status == 200 and claimed["id"] == me["id"] and claimed["account"] is True
        assert victim.cookie != planted
        assert (await victim.me())["id"] == me["id"]
        # Whoever kept the guest cookie holds a fresh guest, not the account.
        attacker = Guest(host, planted)
        assert (await attacker.me())["id"] != me["id"]
        status, refused = await Guest(host, planted).request("POST", "/api/logout/everywhere")
        assert status == 403

        # Each sign-in is its own session, with its own cookie.
        laptop, phone = Guest(host), Guest(host)
        for device in (laptop, phone):
            await device.me()
            before = device.cookie
            status, _ = await device.request("POST", "/api/login", {"name": "fixed_1", "password": PASSWORD})
            assert status == 200 and device.cookie != before
            assert (await Guest(host, before).me())["id"] != me["id"]
        assert laptop.cookie != phone.cookie

    run(body)


def test_logout_ends_that_session_and_the_saved_cookie_signs_nobody_in(host: str) -> None:
    async def body() -> None:
        laptop = await _account(host, "Leaver_1", "198.51.100.20")
        me = await laptop.me()
        phone = Guest(host)
        status, _ = await phone.request("POST", "/api/login", {"name": "leaver_1", "password": PASSWORD})
        assert status == 200
        saved = phone.cookie
        status, out = await phone.request("POST", "/api/logout")
        assert (status, out) == (200, {"ok": True})
        for replayed in (Guest(host, saved), Guest(host, saved)):
            assert (await replayed.me())["id"] != me["id"]
            status, _ = await replayed.request("POST", "/api/logout/everywhere")
            assert status == 403
        # The table socket does not take it either.
        match_id = await laptop.robot_match()
        table = await laptop.connect(match_id, cookie=saved)
        assert (await table.error())["code"] == "no_guest"
        # The other session (the laptop's) goes on.
        assert (await laptop.me())["id"] == me["id"]
        # A guest without an account that signs out is gone for good as well.
        guest = await new_guest(host)
        kept = guest.cookie
        gone = (await guest.me())["id"]
        status, _ = await guest.request("POST", "/api/logout")
        assert status == 200 and (await Guest(host, kept).me())["id"] != gone

    run(body)


def test_an_ipv6_home_counts_as_one_address() -> None:
    assert address_key("2001:db8:1:2::5") == address_key("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::5") != address_key("2001:db8:1:2::5")
    assert address_key("198.51.100.7") == "198.51.100.7"
    assert address_key("testclient") == "testclient"


def test_every_stored_name_refuses_control_and_bidi_characters(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        before = (await guest.me())["name"]
        for bad in ("Ann\u0000", "\u202eAnn", "An\u200fn", "Ann\u3164"):
            status, data = await guest.request("POST", "/api/me", {"name": bad})
            assert status == 400 and "invisible or control" in data["error"]["message"], (bad, data)
        assert (await guest.me())["name"] == before
        # Account names: a blank Hangul letter counts as a letter, and is refused all the same.
        for bad in ("\u3164abc", "abc\u3164def"):
            status, data = await guest.request("POST", "/api/account", {"name": bad, "password": PASSWORD})
            assert status == 400 and "U+3164" in data["error"]["message"], (bad, data)
        owner = await _account(host, "Maker_1", "198.51.100.40")
        for bad in ("Bot\u202e1", "bot\u3164x"):
            status, data = await owner.request("POST", "/api/bots", {"name": bad})
            assert status == 400 and "invisible or control" in data["error"]["message"], (bad, data)

    run(body)


def test_a_guest_may_not_take_an_accounts_name(host: str) -> None:
    async def body() -> None:
        await _account(host, "Victim_9", "198.51.100.50")
        guest = await new_guest(host)
        before = (await guest.me())["name"]
        # The same name after NFKC and case folding (full-width letters too), or with a space for '_'.
        for copy in ("victim_9", "VICTIM_9", "\uff36\uff49\uff43\uff54\uff49\uff4d_\uff19", "Victim 9"):
            status, data = await guest.request("POST", "/api/me", {"name": copy})
            assert (status, data["error"]["code"]) == (409, "name_taken"), (copy, data)
            assert "name of an account" in data["error"]["message"]
        assert (await guest.me())["name"] == before
        status, data = await guest.request("POST", "/api/me", {"name": "Victim 99"})
        assert status == 200 and data["name"] == "Victim 99" and data["guest"] is True

    run(body)


def test_guests_are_marked_as_guests_wherever_a_name_is_shown(host: str) -> None:
    async def body() -> None:
        owner = await _account(host, "Shown_1", "198.51.100.60")
        visitor = await new_guest(host)
        status, _ = await visitor.request("POST", "/api/me", {"name": "Shown 1 fan"})
        assert status == 200
        me, them = await owner.me(), await visitor.me()
        assert (me["guest"], them["guest"]) == (False, True)

        room = await owner.room()
        assert (await visitor.join(room["code"]))[0] == 200
        status, info = await visitor.request("GET", f"/api/rooms/{room['code']}")
        assert [s["guest"] for s in info["seats"]] == [False, True]
        table = await owner.connect(room["match_id"])
        state = await table.until(lambda m: m["type"] == "state" and m["match"]["status"] == "playing")
        assert [(p["name"], p["guest"]) for p in state["match"]["players"]] == [
            ("Shown_1", False),
            ("Shown 1 fan", True),
        ]
        status, mine = await owner.request("GET", "/api/matches")
        listed = next(m for m in mine["matches"] if m["id"] == room["match_id"])
        assert [p["guest"] for p in listed["players"]] == [False, True] and listed["opponent_guest"] is True
        for who, guest in ((me, False), (them, True)):
            status, profile = await visitor.request("GET", f"/api/players/{who['id']}")
            assert status == 200 and profile["guest"] is guest

        status, made = await owner.request("POST", "/api/tournaments", {"name": "Marked", "starts_in": 60})
        assert status == 200
        for player in (owner, visitor):
            assert (await player.request("POST", f"/api/tournaments/{made['id']}/join"))[0] == 200
        status, state = await visitor.request("GET", f"/api/tournaments/{made['id']}")
        assert {line["name"]: line["guest"] for line in state["standings"]} == {
            "Shown_1": False,
            "Shown 1 fan": True,
        }

    run(body)
