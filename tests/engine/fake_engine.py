"""A small engine for the conformance checker's tests: correct by default, broken on purpose by mode.

    python fake_engine.py MODE

Modes: good (version 1 only), good2 (versions 1 and 2), silent, illegal, chatty, answers_result,
dies_on_junk, slow, wrong_id, ignores_quit, strict_fields, extra_field (an unknown field in every
action), card_in_action (reads a drawn card inside the history's action, where it never is: it
crashes on the first draw it reads), short_meld (version 2: lays two-card melds).
"""

import json
import sys
import time

SPEAK_2 = ("good2", "card_in_action", "short_meld", "extra_field")


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
            spoken = (1, 2) if mode in SPEAK_2 else (1,)
            if msg.get("protocol") not in spoken:
                send({"type": "error", "message": f"protocol {' and '.join(map(str, spoken))} only"})
            else:
                send({"type": "hello", "protocol": msg["protocol"], "name": f"fake-{mode}"})
        elif kind == "act":
            view = msg.get("view")
            if (
                not isinstance(view, dict)
                or not view.get("legal")
                or "seat" not in view
                or ("game" not in view and "hand" not in view)
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
            if mode == "card_in_action":
                drawn = [
                    e["action"]["card"] for e in view.get("history", []) if e["action"]["type"] == "draw"
                ]
                print("cards seen drawn:", drawn, file=sys.stderr)
            action = view["legal"][0]
            if mode == "illegal":
                action = {"type": "pass"}
            if mode == "short_meld":
                melds = [a for a in view["legal"] if a["type"] == "meld"]
                if melds:
                    action = {"type": "meld", "cards": melds[0]["cards"][:2]}
            if mode == "extra_field":
                action = {**action, "confidence": 0.9}
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
