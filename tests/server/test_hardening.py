"""What a probe from outside tries: huge, deep or odd bodies, other sites' pages, framing."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from server_helpers import COOKIE, new_guest, run

from ginrummy.server.guards import BODY_LIMIT


def _post(host: str, path: str, content: bytes, **headers: str) -> httpx.Response:
    with httpx.Client(base_url=f"http://{host}") as client:
        return client.post(path, content=content, headers={"Content-Type": "application/json", **headers})


# -- bodies ------------------------------------------------------------------------------------


def test_a_body_over_the_limit_is_refused_by_its_content_length_unread(host: str) -> None:
    async def body() -> None:
        reader, writer = await asyncio.open_connection(*host.split(":"))
        head = (
            f"POST /api/matches HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {300 * 1024 * 1024}\r\n\r\n"
        )
        writer.write(head.encode())  # not one byte of the 300 MB body follows
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)  # the server answers and closes
        writer.close()
        status_line, _, rest = answer.partition(b"\r\n")
        assert status_line == b"HTTP/1.1 413 Request Entity Too Large"
        payload = json.loads(rest.partition(b"\r\n\r\n")[2])
        assert payload["error"]["code"] == "too_large" and "16 KiB" in payload["error"]["message"]

    asyncio.run(body())


def test_a_streamed_body_is_cut_off_at_the_limit(host: str) -> None:
    def chunks() -> Any:  # no Content-Length: chunked transfer, as a streaming client sends
        for _ in range(64):
            yield b" " * 4096

    with httpx.Client(base_url=f"http://{host}") as client:
        response = client.post("/api/matches", content=chunks())
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"
    # A body just under the limit is read and judged on its content.
    response = _post(host, "/api/matches", b"{}" + b" " * (BODY_LIMIT - 2))
    assert response.status_code == 200


def test_a_whitespace_only_body_is_not_an_empty_object(host: str) -> None:
    response = _post(host, "/api/matches", b"  \n\t ")
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_request"
    assert "JSON" in response.json()["error"]["message"]
    assert _post(host, "/api/matches", b"").status_code == 200  # no body at all: the defaults


def test_deeply_nested_json_gets_a_clear_400(host: str) -> None:
    for nested in (b"[" * 15_000, b'{"rules":' * 1000 + b"1" + b"}" * 1000):
        response = _post(host, "/api/matches", nested)
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["code"] == "bad_request" and "nested too deeply" in error["message"]


def test_an_error_quoting_a_lone_surrogate_is_still_sent(host: str) -> None:
    response = _post(host, "/api/matches", b'{"rules": {"\\ud800": 1}}')
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_request" and "\\ud800" in error["message"]


def test_over_the_socket_deep_json_and_lone_surrogates_get_clear_errors(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        table = await guest.connect(await guest.robot_match())
        await table.until(lambda m: m["type"] == "state")
        for payload, words in (
            ("[" * 4000, "nested too deeply"),
            ('{"type": "action", "action": {"type": "discard", "card": "\\udfff"}}', "\\udfff"),
            ('{"type": "\\ud800"}', "\\ud800"),
        ):
            await table.send(payload)
            error = await table.error()
            assert error["code"] == "bad_message" and words in error["message"], error
        await table.send({"type": "ping"})  # the socket is still open
        assert await table.until(lambda m: m["type"] == "pong")

    run(body)


# -- other sites' pages --------------------------------------------------------------------------


def test_changes_from_another_sites_page_are_refused(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        headers = {"Cookie": f"{COOKIE}={guest.cookie}", "Content-Type": "application/json"}
        for origin in ("http://evil.example", "null", f"http://{host}.evil.example"):
            response = await guest.http.post(
                "/api/me", content=b'{"name": "Mallory"}', headers={**headers, "Origin": origin}
            )
            assert response.status_code == 403, origin
            assert response.json()["error"]["code"] == "forbidden"
        response = await guest.http.post(
            "/api/matches", content=b"{}", headers={**headers, "Sec-Fetch-Site": "cross-site"}
        )
        assert response.status_code == 403
        assert (await guest.request("GET", "/api/matches"))[1] == {"matches": []}  # nothing was made
        assert (await guest.me())["name"] != "Mallory"
        # The site's own pages (and clients that send no Origin) are served.
        response = await guest.http.post(
            "/api/me", content=b'{"name": "Alice"}', headers={**headers, "Origin": f"http://{host}"}
        )
        assert response.status_code == 200 and response.json()["name"] == "Alice"

    run(body)


def test_every_page_forbids_framing_and_foreign_scripts(host: str) -> None:
    with httpx.Client(base_url=f"http://{host}") as client:
        for path in ("/", "/r/ABCDEF", "/m/some-id", "/matches", "/replay/some-id", "/static/js/table.js"):
            response = client.get(path)
            policy = response.headers["content-security-policy"]
            directives = dict(d.strip().partition(" ")[::2] for d in policy.split(";"))
            assert directives["frame-ancestors"] == "'none'", path
            assert directives["script-src"] == "'self'" and directives["default-src"] == "'self'"
            assert response.headers["x-frame-options"] == "DENY"
        assert "content-security-policy" in client.get("/api/health").headers


# -- rules ---------------------------------------------------------------------------------------


def test_absurd_rules_are_refused_and_changed_rules_are_named_custom(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        for rules, words in (
            ({"target": 10**4000}, "target must be a whole number from 1 to 1000"),
            ({"preset": "x" * 15_000}, "1 to 40 characters"),
            ({"gin_bonus": 101}, "gin_bonus"),
            ({"knock_limit": 11}, "knock_limit"),
        ):
            status, data = await guest.request("POST", "/api/rooms", {"rules": rules})
            assert status == 400 and words in data["error"]["message"], data
        assert (await guest.request("GET", "/api/matches"))[1] == {"matches": []}
        table = await guest.connect(await guest.robot_match(rules={"preset": "classic", "gin_bonus": 0}))
        state = await table.until(lambda m: m["type"] == "state")
        assert state["match"]["rules"]["preset"] == "custom" and state["view"]["rules"]["preset"] == "custom"
        assert state["match"]["rule_changes"] == {"gin_bonus": 0}

    run(body)


# -- names ---------------------------------------------------------------------------------------


def test_invisible_and_robot_like_names_are_refused(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        refused = {
            "\u3164": "invisible",  # Hangul filler: a letter that shows nothing
            "\u3164\u3164 \u3164": "invisible",
            "An\u200bna": "invisible",  # zero-width space inside
            "\u2800": "invisible",  # Braille blank
            "Ann\ufe0f": "invisible",  # variation selector
            "...": "letter or a digit",
            "Robot (expert)": "robot",
            "R0bot (expert)": "robot",
            "Rоbot": "robot",  # Cyrillic o
            "Ｒｏｂｏｔ": "robot",  # fullwidth
            "ROBOT  (novice)": "robot",
            "Máy · Cao thủ": "robot",  # the robots' Vietnamese name at the table
        }
        for name, words in refused.items():
            status, data = await guest.request("POST", "/api/me", {"name": name})
            assert status == 400 and words in data["error"]["message"], (name, data)
        for name in ("Nguyễn Văn An", "Maya", "Robert", "Bot\u00e9", "李小龍", "Ann 2"):
            status, data = await guest.request("POST", "/api/me", {"name": name})
            assert status == 200 and data["name"] == name, (name, data)

    run(body)
