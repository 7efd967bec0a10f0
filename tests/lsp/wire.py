"""`lsp-edit serve` over stdio, byte for byte: a client that writes frames as given
(malformed ones included) and reads every message the server writes, so that tests
can check what JSON-RPC says of each answer. Used by the protocol tests and by the
server fuzz (tests/lsp/fuzz.py).

Synchronous: one thread reads the server's output into a queue; everything else
happens in the caller's thread.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]
# Answers a request of the server's (`workspace/applyEdit`...): its result, an
# `Error` to answer with an error, or `UNANSWERED` to leave it unanswered.
Answerer = Callable[[str, Any], Any]
UNANSWERED = object()

SERVE = (sys.executable, "-m", "lsp_edit", "serve")


def frame(message: Message | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class NoAnswer(AssertionError):
    """The server did not answer in time, or stopped."""


@dataclass(frozen=True)
class Error:
    """An error answer to a request of the server's."""

    code: int
    message: str


@dataclass
class Wire:
    """One server process and what it sent."""

    argv: Sequence[str] = SERVE
    cwd: str | None = None
    answer: Answerer = field(default=lambda method, params: None)
    notifications: list[Message] = field(default_factory=list)
    server_requests: list[Message] = field(default_factory=list)
    # Called with ">" and the bytes of each frame sent, "<" and each message received.
    record: Callable[[str, Any], None] | None = None
    _next_id: int = 0

    def __post_init__(self) -> None:
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        self.process = subprocess.Popen(
            list(self.argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            cwd=self.cwd,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self._inbox: queue.Queue[Message | None] = queue.Queue()
        self._answers: dict[Any, list[Message]] = {}  # by request id, in order
        threading.Thread(target=self._read, name="server-output", daemon=True).start()

    # --- sending ------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        if self.record is not None:
            self.record(">", data)
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise NoAnswer(f"the server stopped: {error}\n{self.log()}") from None

    def send(self, message: Message) -> None:
        self.send_raw(frame(message))

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def request(self, method: str, params: Any = None, timeout: float = 30) -> Message:
        """Sends a request and returns the server's answer to it (result or error)."""
        msg_id = self.new_id()
        message: Message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.answer_to(msg_id, timeout)

    def result(self, method: str, params: Any = None, timeout: float = 30) -> Any:
        answer = self.request(method, params, timeout)
        assert "error" not in answer, f"{method} failed: {answer['error']}"
        return answer["result"]

    def command(self, name: str, argument: Any = None, timeout: float = 30) -> Message:
        arguments = [] if argument is None else [argument]
        params = {"command": name, "arguments": arguments}
        return self.request("workspace/executeCommand", params, timeout)

    # --- receiving ----------------------------------------------------------------------

    def answer_to(self, msg_id: Any, timeout: float = 30) -> Message:
        """The server's answer to request `msg_id` (sent as `msg_id`, type included),
        handling whatever else arrives first."""
        key = _key(msg_id)
        deadline = time.monotonic() + timeout
        while not self._answers.get(key):
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoAnswer(f"no answer to request {msg_id!r} in {timeout} s\n{self.log()}")
            self.pump(left)
        answers = self._answers[key]
        answer = answers.pop(0)
        if not answers:
            del self._answers[key]
        return answer

    def pump(self, timeout: float) -> bool:
        """Handles the next message from the server; False when none came in time."""
        try:
            message = self._inbox.get(timeout=timeout)
        except queue.Empty:
            return False
        if message is None:
            raise NoAnswer(f"the server stopped (exit code {self.process.poll()})\n{self.log()}")
        if self.record is not None:
            self.record("<", message)
        if "method" in message and "id" in message:
            self.server_requests.append(message)
            self._answer_server(message)
        elif "method" in message:
            self.notifications.append(message)
        else:
            self._answers.setdefault(_key(message.get("id")), []).append(message)
        return True

    def drain(self, quiet: float = 0.3) -> None:
        """Handles messages until none has come for `quiet` seconds."""
        while self.pump(quiet):
            pass

    def take_answers(self) -> list[Message]:
        """The answers that arrived and were not taken with `answer_to`: a second
        answer to a request, an answer to nothing."""
        taken = [answer for answers in self._answers.values() for answer in answers]
        self._answers = {}
        return taken

    def _answer_server(self, message: Message) -> None:
        reply: Message = {"jsonrpc": "2.0", "id": message["id"]}
        result = self.answer(message["method"], message.get("params"))
        if result is UNANSWERED:
            return
        if isinstance(result, Error):
            reply["error"] = {"code": result.code, "message": result.message}
        else:
            reply["result"] = result
        self.send(reply)

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self._inbox.put(None)
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None, "the server wrote a header block without Content-Length"
            self._inbox.put(json.loads(stream.read(length)))

    # --- the session ----------------------------------------------------------------------

    def initialize(self, root_uri: str | None, capabilities: Any, **more: Any) -> Message:
        result = self.result(
            "initialize",
            {"processId": None, "rootUri": root_uri, "capabilities": capabilities, **more},
        )
        self.notify("initialized", {})
        assert isinstance(result, dict)
        return result

    def alive(self) -> bool:
        return self.process.poll() is None

    def log(self) -> str:
        """What the server wrote to stderr so far (its log)."""
        self._log.seek(0)
        text = self._log.read().decode("utf-8", "replace")
        self._log.seek(0, os.SEEK_END)
        return text[-20_000:]

    def close(self) -> None:
        """Ends the server: shutdown and exit when it still answers, else killed."""
        try:
            if self.alive():
                self.request("shutdown", timeout=10)
                self.notify("exit", None)
                self.process.wait(timeout=10)
        except (NoAnswer, subprocess.TimeoutExpired):
            pass
        finally:
            if self.alive():
                self.process.kill()
                self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                if stream is not None:
                    stream.close()
            self._log.close()


def _key(msg_id: Any) -> Any:
    """A request id as a dict key that keeps 1 and "1" (and true) apart."""
    return (type(msg_id).__name__, json.dumps(msg_id))
