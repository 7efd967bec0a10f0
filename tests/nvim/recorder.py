"""Runs a language server behind a pipe that notes each message passing through, in
order, one JSON line each: `python recorder.py LOG SERVER ARGS...`.

tests/nvim/drive.lua starts lsp-edit through it when a test wants to see the order in
which Neovim sends an edit's didChange and a command (test_neovim.py, `record=True`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from typing import IO, Any


def main() -> None:
    log_path, *command = sys.argv[1:]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    with open(log_path, "a") as log:
        lock = threading.Lock()

        def note(direction: str, body: bytes) -> None:
            with lock:
                log.write(json.dumps(summary(direction, body)) + "\n")
                log.flush()

        replies = threading.Thread(
            target=relay, args=(server.stdout, sys.stdout.buffer, "out", note), daemon=True
        )
        replies.start()
        relay(sys.stdin.buffer, server.stdin, "in", note)
        server.wait()


def summary(direction: str, body: bytes) -> dict[str, Any]:
    """What a test looks at in a message: its direction, method, id, command, text
    changes, edit and result."""
    message = json.loads(body)
    params = message.get("params") or {}
    entry: dict[str, Any] = {
        "t": time.monotonic(),
        "dir": direction,
        "method": message.get("method"),
        "id": message.get("id"),
    }
    if message.get("method") == "workspace/executeCommand":
        entry["command"] = params.get("command")
        entry["arguments"] = params.get("arguments")
    if message.get("method") == "textDocument/didChange":
        entry["changes"] = params.get("contentChanges")
    if message.get("method") == "workspace/applyEdit":
        entry["edit"] = params.get("edit")
    if "result" in message:
        entry["result"] = message["result"]
    return entry


def relay(source: IO[bytes], sink: IO[bytes], direction: str, note: Any) -> None:
    """Copies LSP messages (header and body) from `source` to `sink`, noting each."""
    while True:
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            byte = source.read(1)
            if not byte:
                sink.close()
                return
            header += byte
        length = next(
            int(line.split(b":")[1])
            for line in header.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        body = source.read(length)
        note(direction, body)
        sink.write(header + body)
        sink.flush()


if __name__ == "__main__":
    main()
