"""A small engine for the conformance checker's tests: correct by default, broken on purpose by mode.

    python fake_engine.py MODE

Modes: good, silent, illegal, chatty, answers_result, dies_on_junk, slow, wrong_id, ignores_quit,
strict_fields.
"""

import json
import sys
import time


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main(mode):
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
            if not isinstance(msg, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            if mode == "dies_on_junk":
                sys.exit(3)
            send({"type": "error", "message": f"unreadable: {exc}"})
            continue
        kind = msg.get("type")
        if mode == "silent":
            continue
        if kind == "hello":
            if msg.get("protocol") != 1:
                send({"type": "error", "message": "protocol 1 only"})
            else:
                send({"type": "hello", "protocol": 1, "name": f"fake-{mode}"})
        elif kind == "act":
            view = msg.get("view")
            if (
                not isinstance(view, dict)
                or not view.get("legal")
                or "seat" not in view
                or "hand" not in view
            ):
                send({"type": "error", "message": "bad view"})
                continue
            if mode == "strict_fields" and "table_talk" in view:
                send({"type": "error", "message": "unknown field table_talk"})
                continue
            if mode == "chatty":
                print("thinking about", view["phase"])
            if mode == "slow" and view.get("phase") == "draw":
                time.sleep(2)
            action = view["legal"][0]
            if mode == "illegal":
                action = {"type": "pass"}
            reply_id = msg["id"] + 1 if mode == "wrong_id" else msg["id"]
            send({"type": "action", "id": reply_id, "action": action})
        elif kind == "result":
            if mode == "answers_result":
                send({"type": "action", "id": 0, "action": {"type": "pass"}})
        elif kind == "quit":
            if mode == "ignores_quit":
                continue
            sys.exit(0)
        else:
            send({"type": "error", "message": f"unknown message type {kind!r}"})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "good")
