"""A model server for the tests, on 127.0.0.1: it answers the OpenAI chat-completions
API (`/v1/chat/completions`, server-sent events) and Ollama's (`/api/chat`, a JSON
object per line) with the replies a test scripts, chunked as providers chunk them (a
few characters per event, then the finish and the usage), and records every
request it gets. No model is reachable from the machines the tests run on.

    model = FakeModel().start()
    model.script.append(Reply("src/cart.py\\n<<<<<<< SEARCH\\n..."))
    ... ask with lspEdit.llm.baseUrl = model.openai_url ...
    model.requests[0]["body"]["messages"]

`realworld_replies()` gives real model replies from ../shared/realworld/llm-replies
when that folder is there (read at test time, never copied into the repository).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Reply:
    """A reply streamed back: `text` `chunk` characters per event, then the tool
    calls, the finish and the usage.

    `hold_after` characters in, the stream waits for `release` (a test looks at what
    arrived so far); `stall_after` characters in, it sends nothing more for
    `stall_for` seconds; `cut_after` characters in, it closes the connection;
    `malformed_after` characters in, it sends an event that is not JSON.
    """

    text: str
    chunk: int = 4
    delay: float = 0.0  # seconds between events
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    finish: str | None = None  # default: "tool_calls" when there are calls, else "stop"
    usage: tuple[int, int] = (120, 40)
    hold_after: int | None = None
    release: threading.Event = field(default_factory=threading.Event)
    stall_after: int | None = None
    stall_for: float = 5.0
    cut_after: int | None = None
    malformed_after: int | None = None


@dataclass
class Refusal:
    """An answer with an error status and body (and headers, such as Retry-After)."""

    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)


Answer = Reply | Refusal


class FakeModel:
    """The server: `script` is what it answers, in order; `requests` what it got."""

    def __init__(self, models: list[str] | None = None) -> None:
        self.script: list[Answer] = []
        self.requests: list[dict[str, Any]] = []
        self.models = models if models is not None else ["coder", "coder:7b"]
        self.list_models = True
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()
        self.streamed = threading.Event()  # set when a reply was streamed to its end

    def start(self) -> FakeModel:
        model = self

        class Handler(_Handler):
            owner = model

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        for answer in self.script:
            if isinstance(answer, Reply):
                answer.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def ollama_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def next_answer(self) -> Answer:
        with self._lock:
            if not self.script:
                return Refusal(500, json.dumps({"error": {"message": "no reply scripted"}}))
            return self.script.pop(0)

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"]


class _Handler(BaseHTTPRequestHandler):
    owner: FakeModel
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.owner.requests.append(
            {"method": "GET", "path": self.path, "headers": dict(self.headers), "body": None}
        )
        if not self.owner.list_models:
            self._send(404, json.dumps({"error": "not found"}))
        elif self.path == "/v1/models":
            data = [{"id": m, "object": "model"} for m in self.owner.models]
            self._send(200, json.dumps({"object": "list", "data": data}))
        elif self.path == "/api/tags":
            self._send(200, json.dumps({"models": [{"name": m} for m in self.owner.models]}))
        else:
            self._send(404, json.dumps({"error": "not found"}))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        body = json.loads(raw) if raw else None
        self.owner.requests.append(
            {"method": "POST", "path": self.path, "headers": dict(self.headers), "body": body}
        )
        if self.path not in ("/v1/chat/completions", "/api/chat"):
            self._send(404, json.dumps({"error": f"no route {self.path}"}))
            return
        answer = self.owner.next_answer()
        if isinstance(answer, Refusal):
            self._send(answer.status, answer.body, answer.headers)
            return
        if self.path == "/api/chat":
            self._stream(answer, _ollama_events(answer, body or {}), "application/x-ndjson")
        else:
            self._stream(answer, _openai_events(answer, body or {}), "text/event-stream")

    def _send(self, status: int, text: str, headers: dict[str, str] | None = None) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, given in (headers or {}).items():
            self.send_header(name, given)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, reply: Reply, events: list[tuple[int, bytes]], kind: str) -> None:
        """Sends each event in a chunk of its own; `events` pairs each with how many
        characters of the text were sent once it is."""
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        held = stalled = False
        try:
            for sent, data in events:
                if reply.cut_after is not None and sent > reply.cut_after:
                    self.wfile.flush()
                    self.close_connection = True
                    return  # no closing chunk: the connection just ends
                if reply.malformed_after is not None and sent > reply.malformed_after:
                    self._chunk(b"data: {this is not json\n\n")
                    self._chunk(b"")
                    return
                if reply.hold_after is not None and sent > reply.hold_after and not held:
                    held = True
                    reply.release.wait(30)
                if reply.stall_after is not None and sent > reply.stall_after and not stalled:
                    stalled = True
                    time.sleep(reply.stall_for)
                self._chunk(data)
                if reply.delay:
                    time.sleep(reply.delay)
            self._chunk(b"")
            self.owner.streamed.set()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _openai_events(reply: Reply, body: dict[str, Any]) -> list[tuple[int, bytes]]:
    model = body.get("model", "coder")
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model}

    def event(choices: list[dict[str, Any]], **more: Any) -> bytes:
        return b"data: " + json.dumps({**base, "choices": choices, **more}).encode() + b"\n\n"

    events = [(0, event([{"index": 0, "delta": {"role": "assistant", "content": ""}}]))]
    sent = 0
    for piece in _pieces(reply.text, reply.chunk):
        sent += len(piece)
        choice = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
        events.append((sent, event([choice])))
    for index, (name, arguments) in enumerate(reply.tool_calls):
        text = json.dumps(arguments)
        first = {
            "index": index,
            "id": f"call_{index + 1}",
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        events.append((sent, event([{"index": 0, "delta": {"tool_calls": [first]}}])))
        for piece in _pieces(text, 7):
            call = {"index": index, "function": {"arguments": piece}}
            events.append((sent, event([{"index": 0, "delta": {"tool_calls": [call]}}])))
    finish = reply.finish or ("tool_calls" if reply.tool_calls else "stop")
    events.append((sent, event([{"index": 0, "delta": {}, "finish_reason": finish}])))
    if (body.get("stream_options") or {}).get("include_usage"):
        prompt, completion = reply.usage
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        events.append((sent, event([], usage=usage)))
    events.append((sent, b"data: [DONE]\n\n"))
    return events


def _ollama_events(reply: Reply, body: dict[str, Any]) -> list[tuple[int, bytes]]:
    model = body.get("model", "coder")

    def line(item: dict[str, Any]) -> bytes:
        return json.dumps({"model": model, "created_at": "2026-11-27T00:00:00Z", **item}).encode()

    events = []
    sent = 0
    for piece in _pieces(reply.text, reply.chunk):
        sent += len(piece)
        message = {"role": "assistant", "content": piece}
        events.append((sent, line({"message": message, "done": False}) + b"\n"))
    if reply.tool_calls:
        calls = [{"function": {"name": n, "arguments": a}} for n, a in reply.tool_calls]
        message = {"role": "assistant", "content": "", "tool_calls": calls}
        events.append((sent, line({"message": message, "done": False}) + b"\n"))
    prompt, completion = reply.usage
    done = {
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": reply.finish or "stop",
        "prompt_eval_count": prompt,
        "eval_count": completion,
    }
    events.append((sent, line(done) + b"\n"))
    return events


# --- real replies ----------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]


def realworld_folder() -> Path | None:
    """../shared/realworld/llm-replies from the checkout or a folder above it."""
    for parent in REPO.parents:
        found = parent / "shared" / "realworld" / "llm-replies"
        if found.is_dir():
            return found
    return None


def realworld_replies(count: int, *, largest: int = 20_000) -> list[str]:
    """Up to `count` model replies holding whole SEARCH/REPLACE blocks (none cut off at
    the reply's end), one per aider chat transcript there; empty when the folder is
    not there."""
    from lsp_edit.blocks import parse_reply
    from lsp_edit.blocks.model import AnchoredEdit, ParseProblem

    folder = realworld_folder()
    if folder is None:
        return []
    found: list[str] = []
    for transcript in sorted(folder.glob("*.md")):
        for reply in _replies_in(transcript.read_text(encoding="utf-8", errors="replace")):
            if len(reply) > largest or ">>>>>>> REPLACE" not in reply:
                continue
            items = parse_reply(reply)
            cut = any(isinstance(i, ParseProblem) and i.code == "unclosed_block" for i in items)
            if not cut and any(isinstance(i, AnchoredEdit) for i in items):
                found.append(reply)
                break
        if len(found) >= count:
            break
    return found


def _replies_in(transcript: str) -> list[str]:
    """The assistant's replies in an aider transcript: the lines after a `#### `
    (user) line that are not `> ` (aider's own) lines, up to the next user line
    (`>>>>>>> REPLACE` is the model's)."""
    replies: list[str] = []
    current: list[str] | None = None
    for line in transcript.splitlines():
        if line.startswith("#### ") or line.startswith("# aider chat started"):
            if current is not None:
                replies.append("\n".join(current).strip("\n") + "\n")
            current = [] if line.startswith("#### ") else None
            continue
        if current is not None and not (line.startswith("> ") or line == ">"):
            current.append(re.sub(r"\s+$", "", line))
    if current is not None:
        replies.append("\n".join(current).strip("\n") + "\n")
    return [r for r in replies if r.strip()]
