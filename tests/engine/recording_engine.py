"""Stand between a host and an engine and write down every line each of them sends.

    python recording_engine.py LOG ENGINE_COMMAND...

Each line the host writes goes to the engine, each line the engine writes goes to the host,
and both are appended to LOG as JSON lines ``{"from": "host" | "engine", "line": ...}``.
It exits with the engine's status as soon as the engine ends.
"""

import contextlib
import json
import os
import subprocess
import sys
import threading


def main(log_path, command):
    with open(log_path, "a", encoding="utf-8") as log:
        relay(log, command)


def relay(log, command):
    lock = threading.Lock()

    def note(side, line):
        with lock:
            log.write(json.dumps({"from": side, "line": line.rstrip("\n")}) + "\n")
            log.flush()

    engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def replies():
        for line in engine.stdout:
            note("engine", line)
            sys.stdout.write(line)
            sys.stdout.flush()
        # The engine ended (after quit, or its input closed): end with it, whatever the host does.
        code = engine.wait()
        sys.stdout.flush()
        os._exit(code)

    threading.Thread(target=replies, daemon=True).start()
    for line in sys.stdin:
        note("host", line)
        try:
            engine.stdin.write(line)
            engine.stdin.flush()
        except BrokenPipeError:
            break
    with contextlib.suppress(BrokenPipeError):
        engine.stdin.close()
    threading.Event().wait()  # the reader thread exits the process


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
