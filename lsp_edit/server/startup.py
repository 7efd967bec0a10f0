"""Answering `initialize` before the LSP libraries load.

lsprotocol alone takes about half a second to import (it builds a thousand attrs
classes), and an editor waits for the answer to `initialize` before it shows
anything. So on stdio the server reads the first message itself and, when it is
`initialize`, answers it at once from what it knows without them: its capabilities
are fixed, but for the position encoding, which is negotiated here as pygls does
(the first one the client offers that the server knows). The message is then
handed to pygls as if it came first (lsp_edit.server.stdio), and pygls' own answer to it is dropped.
`tests/test_server_startup.py` checks that both answers are the same.
"""

from __future__ import annotations

import json
import os
from typing import Any, BinaryIO, Protocol

from lsp_edit import VERSION

COMMANDS = (
    "lspEdit.propose",
    "lspEdit.stream",
    "lspEdit.show",
    "lspEdit.accept",
    "lspEdit.reject",
    "lspEdit.restore",
    "lspEdit.acceptAll",
    "lspEdit.rejectAll",
    "lspEdit.list",
    "lspEdit.summary",
    "lspEdit.instructions",
    "lspEdit.symbols",
    "lspEdit.next",
    "lspEdit.previous",
    "lspEdit.proposed",
    "lspEdit.ask",
)
_ENCODINGS = ("utf-8", "utf-16", "utf-32")
CHUNK = 1 << 16  # bytes read from stdin at a time


def early_answer(message: dict[str, Any] | None) -> dict[str, Any] | None:
    """The answer to the first message when it is an `initialize` the server would
    accept, else None (pygls answers it then, an error included). What it accepts
    is `lsp_edit.server.messages`' rule: params and capabilities that are objects;
    any member in them that cannot be read is left out."""
    if message is None or message.get("method") != "initialize":
        return None
    msg_id, params = message.get("id"), message.get("params")
    valid_id = isinstance(msg_id, str) or (isinstance(msg_id, int) and not isinstance(msg_id, bool))
    if message.get("jsonrpc") != "2.0" or not valid_id or not isinstance(params, dict):
        return None
    if not isinstance(params.get("capabilities"), dict):
        return None
    return {"jsonrpc": "2.0", "id": msg_id, "result": initialize_result(params)}


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """The server's answer to `initialize`, as JSON."""
    general = params["capabilities"].get("general")
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    if not isinstance(offered, list):
        offered = []
    encoding = next((e for e in offered if isinstance(e, str) and e in _ENCODINGS), "utf-16")
    return {
        "capabilities": {
            "positionEncoding": encoding,
            "textDocumentSync": {
                "openClose": True,
                "change": 2,
                "willSave": False,
                "willSaveWaitUntil": False,
                "save": False,
            },
            "hoverProvider": True,
            "documentSymbolProvider": True,
            "codeActionProvider": {"codeActionKinds": ["quickfix"]},
            "codeLensProvider": {"resolveProvider": False},
            "executeCommandProvider": {"commands": list(COMMANDS)},
            "workspace": {
                "workspaceFolders": {"supported": True, "changeNotifications": True},
                "fileOperations": {},
                "textDocumentContent": {"schemes": ["lsp-edit-proposed"]},
            },
        },
        "serverInfo": {"name": "lsp-edit", "version": VERSION},
    }


class Readable(Protocol):
    def readline(self) -> bytes: ...

    def read(self, size: int, /) -> bytes: ...


def read_message(stream: Readable) -> tuple[bytes, dict[str, Any] | None]:
    """One JSON-RPC message: its bytes as read (headers included) and its JSON
    (None when it is not a readable message)."""
    raw = bytearray()
    length = None
    while True:
        line = stream.readline()
        raw += line
        if not line or line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length" and value.strip().isdigit():
            length = int(value.strip())
    if length is None or not line:
        return bytes(raw), None
    body = stream.read(length)
    raw += body
    try:
        message = json.loads(body)
    except ValueError:
        return bytes(raw), None
    return bytes(raw), message if isinstance(message, dict) else None


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Incoming:
    """Stdin read in chunks straight from its file descriptor, so that the bytes
    read ahead of the first message stay here (a buffered `sys.stdin` would keep
    them out of reach) and are handed on with it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffered = bytearray()
        self.ended = False

    def readline(self) -> bytes:
        while (end := self.buffered.find(b"\n")) < 0 and self._read_more():
            pass
        return self._take(len(self.buffered) if end < 0 else end + 1)

    def read(self, size: int) -> bytes:
        while len(self.buffered) < size and self._read_more():
            pass
        return self._take(min(size, len(self.buffered)))

    def readahead(self) -> bytes:
        """What was read past the messages taken so far."""
        return self._take(len(self.buffered))

    def chunk(self) -> bytes:
        """The next bytes stdin holds, up to `CHUNK`; empty at its end (or once
        reading it fails, as when it is closed under us)."""
        if self.ended:
            return b""
        try:
            data = os.read(self.fd, CHUNK)
        except OSError:
            data = b""
        self.ended = not data
        return data

    def _read_more(self) -> bool:
        data = self.chunk()
        self.buffered += data
        return bool(data)

    def _take(self, size: int) -> bytes:
        taken = bytes(self.buffered[:size])
        del self.buffered[:size]
        return taken


class WithoutSecondAnswer:
    """The server's output, minus pygls' answer to the request answered already."""

    def __init__(self, stream: BinaryIO, answered: Any) -> None:
        self._stream = stream
        self._answered = answered
        self._dropped = answered is None

    def write(self, data: bytes) -> int:
        if not self._dropped and self._is_answer(data):
            self._dropped = True
            return len(data)
        return self._stream.write(data)

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:
        self._stream.close()

    def _is_answer(self, data: bytes) -> bool:
        body = data.partition(b"\r\n\r\n")[2]
        try:
            message = json.loads(body)
        except ValueError:
            return False
        return (
            isinstance(message, dict)
            and message.get("id") == self._answered
            and ("result" in message or "error" in message)
        )
