"""Accounts over HTTP: claim, sign in on another device, sign out, rename; passwords never leave or get logged."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

import pytest
import websockets
from server_helpers import Guest, Table, live_server, new_guest, run, test_settings

from ginrummy.server.sessions import CLOSE_SIGNED_OUT
from ginrummy.service.accounts import LoginLimiter, clean_account_name, name_key
from ginrummy.service.errors import BadRequest, RateLimited
from ginrummy.storage import SqlStore

PASSWORD = "correct horse battery staple"


def test_claim_sign_in_elsewhere_rename_and_sign_out(host: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)

    async def body() -> None:
        laptop = await new_guest(host)
        me = await laptop.me()
        status, claimed = await laptop.request(
            "POST", "/api/account", {"name": "Bình_42", "password": PASSWORD}
        )
        assert status == 200, claimed
        assert claimed == {**claimed, "id": me["id"], "name": "Bình_42", "account": True}
        # The name is unique, whatever its letter case.
        other = await new_guest(host)
        status, taken = await other.request("POST", "/api/account", {"name": "BÌNH_42", "password": PASSWORD})
        assert (status, taken["error"]["code"]) == (409, "name_taken")
        # Claiming twice is refused.
        status, again = await laptop.request(
            "POST", "/api/account", {"name": "Another1", "password": PASSWORD}
        )
        assert (status, again["error"]["code"]) == (409, "conflict")

        # Another device signs in: it becomes the same player.
        phone = Guest(host)
        status, wrong = await phone.request(
            "POST", "/api/login", {"name": "bình_42", "password": "not it at all"}
        )
        assert (status, wrong["error"]["code"]) == (403, "wrong_password")
        status, nobody = await phone.request(
            "POST", "/api/login", {"name": "nobody_here", "password": PASSWORD}
        )
        assert (status, nobody["error"]["message"]) == (
            403,
            wrong["error"]["message"],
        )  # no hint which was wrong
        status, signed = await phone.request("POST", "/api/login", {"name": "bình_42", "password": PASSWORD})
        assert status == 200 and signed["id"] == me["id"] and signed["name"] == "Bình_42"
        assert (await phone.me())["id"] == me["id"]

        # Renaming an account follows the account rules, and a real change waits 30 days after the first.
        status, bad = await phone.request("POST", "/api/me", {"name": "two  spaces"})
        assert status == 400 and "letters, digits" in bad["error"]["message"]
        status, renamed = await phone.request("POST", "/api/me", {"name": "Binh-42"})
        assert status == 200 and renamed["name"] == "Binh-42"
        status, soon = await phone.request("POST", "/api/me", {"name": "Binh-43"})
        assert status == 403 and "30 days" in soon["error"]["message"]
        status, case = await phone.request("POST", "/api/me", {"name": "BINH-42"})  # letter case: any time
        assert status == 200 and case["name"] == "BINH-42"
        status, profile = await other.request("GET", "/api/players/@/binh-42")
        assert status == 200 and profile["id"] == me["id"] and profile["account"] is True

        # Signing out ends the session: the next visit is a new guest; the account is still there.
        kept = phone.cookie
        status, out = await phone.request("POST", "/api/logout")
        assert status == 200 and out == {"ok": True}
        response = await phone.http.post("/api/logout", headers={"Cookie": f"gr_guest={phone.cookie}"})
        assert (
            'gr_guest=""' in response.headers["set-cookie"] and "Max-Age=0" in response.headers["set-cookie"]
        )
        fresh = Guest(host)
        assert (await fresh.me())["id"] != me["id"]
        assert (await Guest(host, kept).me())["id"] != me["id"]  # the saved cookie signs nobody in

        # Signing out everywhere: the laptop's cookie (still held) stops working too.
        tablet = Guest(host)
        status, _ = await tablet.request("POST", "/api/login", {"name": "binh-42", "password": PASSWORD})
        assert status == 200 and (await laptop.me())["id"] == me["id"]
        status, out = await tablet.request("POST", "/api/logout/everywhere")
        assert status == 200 and out == {"ok": True}
        old = laptop.cookie
        assert (await Guest(host, old).me())["id"] != me["id"]  # a fresh guest, not the account
        # Signing in again works, with a cookie of the new epoch.
        status, back = await laptop.request("POST", "/api/login", {"name": "binh-42", "password": PASSWORD})
        assert status == 200 and back["id"] == me["id"] and laptop.cookie != old
        assert (await laptop.me())["id"] == me["id"]
        # A guest without an account cannot (it would lose its matches for good).
        status, refused = await fresh.request("POST", "/api/logout/everywhere")
        assert status == 403 and "only an account" in refused["error"]["message"]

        for response_text in caplog.text, str(claimed), str(signed), str(profile):
            assert PASSWORD not in response_text

    run(body)
    assert PASSWORD not in caplog.text


def test_bad_claims_say_what_is_wrong_and_change_nothing(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        cases = [
            ({"name": "ab", "password": PASSWORD}, "3 to 20 characters"),
            ({"name": "Robot_1", "password": PASSWORD}, "reserved"),
            ({"name": "guest2", "password": PASSWORD}, "reserved"),
            ({"name": "ok_name", "password": "short"}, "8 to 128"),
            ({"name": "ok_name", "password": "OK_NAME"}, "8 to 128"),
            ({"name": "ok_name1", "password": "ok_name1"}, "must not be the name"),
            ({"name": "a__b", "password": PASSWORD}, "no two"),
            ({"name": "_ab", "password": PASSWORD}, "starts and ends"),
            ({"name": 5, "password": PASSWORD}, "must be a string"),
        ]
        for payload, reason in cases:
            status, data = await guest.request("POST", "/api/account", payload)
            assert status == 400 and reason in data["error"]["message"], (payload, data)
            assert str(payload["password"]) not in data["error"]["message"]
        assert (await guest.me())["account"] is False

    run(body)


def test_failed_sign_ins_are_limited_per_name_and_counted_by_every_process(tmp_path: Path) -> None:
    """Two limiters on two stores of one database stand for two server processes of one site."""
    now = [1_000_000.0]

    def clock() -> float:
        return now[0]

    async def body() -> None:
        url = f"sqlite:///{tmp_path / 'site.sqlite3'}"
        one, two = SqlStore(url), SqlStore(url)
        await one.start()
        await two.start()
        try:
            first = LoginLimiter(one, attempts=5, window=300, clock=clock)
            second = LoginLimiter(two, attempts=5, window=300, clock=clock)
            ann = [("ann", 5, "for this name")]
            for limiter in (first, second, first, second, first):
                await limiter.check(ann)
                await limiter.failed(["ann"])
                now[0] += 1
            for limiter in (first, second):  # five failures, wherever they were made, refuse both
                with pytest.raises(RateLimited, match="for this name") as refused:
                    await limiter.check(ann)
                assert 295 <= refused.value.retry_after <= 296  # until the oldest of the five expires
            await second.check([("bob", 5, "for this name")])  # other names are not affected
            # Several keys at once: a key over its own limit refuses, with its own words.
            with pytest.raises(RateLimited, match="from this device"):
                await first.check([("bob", 5, "for this name"), ("ann", 5, "from this device")])
            now[0] += 300
            await first.check(ann)  # the window passed
            await first.failed(["ann"])
            await second.succeeded("ann")
            for _ in range(4):
                await second.failed(["ann"])
            await first.check(ann)  # a success cleared the earlier failures
        finally:
            await one.close()
            await two.close()

    asyncio.run(body())


def test_sign_in_is_refused_after_five_failures_even_with_the_right_password(host: str) -> None:
    async def body() -> None:
        owner = await new_guest(host)
        status, _ = await owner.request("POST", "/api/account", {"name": "Limited1", "password": PASSWORD})
        assert status == 200
        thief = Guest(host)
        for _ in range(5):
            status, _ = await thief.request(
                "POST", "/api/login", {"name": "limited1", "password": "guess guess"}
            )
            assert status == 403
        status, data = await thief.request("POST", "/api/login", {"name": "limited1", "password": PASSWORD})
        assert status == 429 and data["error"]["code"] == "rate_limited"

    run(body)


def test_names_compare_case_folded_and_normalised() -> None:
    assert name_key("Bình") == name_key("BÌNH") == name_key("bi\u0300nh".replace("i\u0300", "ì"))
    assert clean_account_name("  Ann-Lee ") == "Ann-Lee"
    with pytest.raises(BadRequest):
        clean_account_name("Ann Lee")


def test_a_cookie_signs_its_session_epoch_and_a_changed_epoch_is_a_forgery() -> None:
    from ginrummy.service.identity import new_session_token, sign_guest, verify_guest

    secret = "k" * 64
    old, new = sign_guest("guest_id_1234", secret), sign_guest("guest_id_1234", secret, 2)
    assert verify_guest(old, secret) == ("guest_id_1234", 0, None)
    assert verify_guest(new, secret) == ("guest_id_1234", 2, None)
    guest, _, signature = new.split(".")
    for forged in (
        f"{guest}.3.{signature}",
        f"{guest}.02.{signature}",
        f"{guest}.{signature}",
        f"{guest}.-1.{signature}",
    ):
        assert verify_guest(forged, secret) is None
    assert verify_guest(new, "x" * 64) is None
    # An account's cookie names its session; another token with the same signature is a forgery.
    token = new_session_token()
    session = sign_guest("guest_id_1234", secret, session=token)
    assert verify_guest(session, secret) == ("guest_id_1234", 0, token)
    _, _, signed = session.split(".")
    assert verify_guest(f"{guest}.{new_session_token()}.{signed}", secret) is None
    assert verify_guest(f"{guest}.{signed}", secret) is None


async def _closed_for_sign_out(table: Table, timeout: float = 20.0) -> int:
    """Wait until the server ends `table`'s socket; the close code, after its `signed_out` error."""
    with contextlib.suppress(websockets.ConnectionClosed):
        await table.until(lambda m: m["type"] == "error" and m["code"] == "signed_out", timeout)
        await asyncio.wait_for(table.ws.wait_closed(), timeout)
    assert [e["code"] for e in table.errors][-1:] == ["signed_out"], table.errors
    code: int = table.ws.close_code
    return code


def test_signing_out_closes_the_tables_that_cookie_opened_and_only_those(host: str) -> None:
    async def body() -> None:
        laptop = await new_guest(host)
        status, _ = await laptop.request("POST", "/api/account", {"name": "Closes_1", "password": PASSWORD})
        assert status == 200
        phone, tablet = Guest(host), Guest(host)
        for device in (phone, tablet):
            status, _ = await device.request("POST", "/api/login", {"name": "closes_1", "password": PASSWORD})
            assert status == 200
        match_id = await laptop.robot_match()
        on_laptop, on_phone = await laptop.connect(match_id), await phone.connect(match_id)
        await on_laptop.my_turn()
        await on_phone.my_turn()

        # The laptop signs out: its table closes at once, for good; the phone's stays and plays.
        status, _ = await laptop.request("POST", "/api/logout")
        assert status == 200
        assert await _closed_for_sign_out(on_laptop, 5.0) == CLOSE_SIGNED_OUT
        state = await on_phone.my_turn()
        await on_phone.act(state["view"]["legal"][0], version=state["version"])
        assert (await on_phone.state_at_least(state["version"] + 1))["version"] > state["version"]
        assert on_phone.errors == []

        # The tablet signs out everywhere: the phone's table closes too, and cannot open again.
        status, _ = await tablet.request("POST", "/api/logout/everywhere")
        assert status == 200
        assert await _closed_for_sign_out(on_phone, 5.0) == CLOSE_SIGNED_OUT
        again = await phone.connect(match_id)
        refused = await again.error()
        assert refused["code"] == "no_guest"

    run(body)


def test_a_sign_out_on_another_server_process_closes_this_ones_tables_at_its_next_check(
    tmp_path: Path,
) -> None:
    """Two server processes of one site (one database): the sign-out reaches the other's sockets."""
    settings = test_settings(tmp_path, session_recheck=0.3)
    with live_server(settings) as first, live_server(settings) as second:

        async def body() -> None:
            owner = await new_guest(first)
            status, _ = await owner.request(
                "POST", "/api/account", {"name": "Closes_2", "password": PASSWORD}
            )
            assert status == 200
            match_id = await owner.robot_match()
            table = await owner.connect(match_id)
            await table.my_turn()
            elsewhere = Guest(second)
            status, _ = await elsewhere.request(
                "POST", "/api/login", {"name": "closes_2", "password": PASSWORD}
            )
            assert status == 200
            status, _ = await elsewhere.request("POST", "/api/logout/everywhere")
            assert status == 200
            assert await _closed_for_sign_out(table) == CLOSE_SIGNED_OUT

        run(body)
