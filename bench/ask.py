"""`lspEdit.ask` under load: `lsp-edit serve` over stdio asks a local model server
that streams the reply as server-sent events: one in this process that sends each
piece when the bench says (`Model`), and one in a process of its own that sends a
1 MB reply as fast as the server reads it (`serve_reply`). Targets (issue 21): from a
block's closing characters leaving the model server to its diagnostic in the target,
p50 under 10 ms; a code action while a 1 MB reply streams, p50 under 5 ms.

Each row runs twice: with the reply document open in the editor (the reply is written
into its buffer with `workspace/applyEdit`, and the bench's client sends the
`didChange` back, as VS Code does) and not open (the server appends to the file).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from bench.server import Row, Session, _ms, source


class Model:
    """An OpenAI-compatible chat-completions server whose reply is what `send` is
    given, one event each, until `end`."""

    def __init__(self) -> None:
        self.pieces: asyncio.Queue[str | None] = asyncio.Queue()
        self.asked = asyncio.Event()  # set when the request arrived
        self._server: asyncio.Server | None = None
        self.url = ""

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/v1"

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()

    def send(self, text: str) -> None:
        self.pieces.put_nowait(text)

    def end(self) -> None:
        self.pieces.put_nowait(None)

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        headers = (await reader.readuntil(b"\r\n\r\n")).decode()
        length = next(
            int(line.split(":", 1)[1])
            for line in headers.split("\r\n")
            if line.lower().startswith("content-length:")
        )
        await reader.readexactly(length)
        self.asked.set()
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        while (piece := await self.pieces.get()) is not None:
            delta = {"choices": [{"index": 0, "delta": {"content": piece}}]}
            _chunk(writer, b"data: " + json.dumps(delta).encode() + b"\n\n")
            await writer.drain()
        finish = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        _chunk(writer, b"data: " + json.dumps(finish).encode() + b"\n\ndata: [DONE]\n\n")
        _chunk(writer, b"")
        await writer.drain()
        writer.close()


def _chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(b"%x\r\n%s\r\n" % (len(data), data))


class AskSession(Session):
    """A session whose client, when `open_reply` is set, has the reply document open
    and applies the server's edits to it, sending each back as VS Code does."""

    def __init__(self, root: Path, text: str) -> None:
        super().__init__(root, text)
        self.reply_uri = (root / "big.py.llm.md").as_uri()
        self.reply_version = 0

        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            for change in params.edit.document_changes or []:
                if isinstance(change, types.TextDocumentEdit):
                    self.reply_version += 1
                    self.client.text_document_did_change(
                        types.DidChangeTextDocumentParams(
                            text_document=types.VersionedTextDocumentIdentifier(
                                uri=change.text_document.uri, version=self.reply_version
                            ),
                            content_changes=[
                                types.TextDocumentContentChangePartial(
                                    range=edit.range, text=edit.new_text
                                )
                                for edit in change.edits
                                if isinstance(edit, types.TextEdit)
                            ],
                        )
                    )
            return types.ApplyWorkspaceEditResult(applied=True)

        # In place of the session's own, which applies nothing.
        self.client.protocol.fm.features[types.WORKSPACE_APPLY_EDIT] = apply

    def open_reply(self) -> None:
        self.reply_version = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=self.reply_uri, language_id="markdown", version=1, text=""
                )
            )
        )


async def _asking(open_reply: bool, body: Any) -> list[Row]:
    model = Model()
    await model.start()
    with tempfile.TemporaryDirectory() as folder:
        session = AskSession(Path(folder), source(3030))
        await session.start()
        if open_reply:
            session.open_reply()
        settings = {"llm": {"baseUrl": model.url, "model": "bench", "timeout": 120}}
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"lspEdit": settings})
        )
        try:
            rows: list[Row] = await body(session, model, "open" if open_reply else "not open")
            return rows
        finally:
            await session.stop()
            await model.stop()


def _ask(session: Session) -> asyncio.Future[Any]:
    return asyncio.ensure_future(
        session.command("lspEdit.ask", {"prompt": "Fix the functions.", "uri": session.uri})
    )


async def closing_rows(session: AskSession, model: Model, where: str) -> list[Row]:
    """From the chunk that holds a block's closing line leaving the model server to
    the diagnostics of the target arriving."""
    asked = _ask(session)
    await model.asked.wait()
    waits = []
    for n in range(30):
        model.send(f"Now function_{n} is fixed.\n\nbig.py\n<<<<<<< SEARCH\n")
        model.send(f"    return value + {n}\n=======\n    return value * {n}\n")
        await asyncio.sleep(0.1)  # the body is read
        while not session.diagnostics.empty():
            session.diagnostics.get_nowait()
        start = time.perf_counter()
        model.send(">>>>>>> REPLACE\n\n")
        while (await session.diagnostics.get()).uri != session.uri:
            pass
        waits.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(0.2)  # past the throttle of a burst of publications
    model.end()
    await asked
    return [
        Row(
            f"lspEdit.ask, the reply document {where}: from a block's closing line leaving "
            "the model server to its diagnostic in the target",
            _ms(waits),
            "p50 < 10 ms",
            statistics.median(waits) < 10,
        )
    ]


def long_reply(blocks: int, size: int) -> str:
    """A reply of `size` characters: `blocks` SEARCH/REPLACE blocks, each changing a
    distinct function of `source`, between paragraphs of prose."""
    block_text = "big.py\n<<<<<<< SEARCH\n    return value + {n}\n=======\n    return value * {n}\n"
    prose = (
        "The function {n} adds where it should multiply, so its result is wrong for every "
        "value above one; the block below makes it multiply, and nothing else changes.\n"
    )
    each = size // blocks - len(block_text) - len(">>>>>>> REPLACE\n\n")
    parts = []
    for n in range(blocks):
        paragraph = (prose.format(n=n) * (each // len(prose) + 1))[:each]
        parts.append(
            paragraph.rstrip("\n") + "\n\n" + block_text.format(n=n) + ">>>>>>> REPLACE\n\n"
        )
    return "".join(parts)


async def code_action_rows(session: AskSession, model: Model, where: str) -> list[Row]:
    """Code actions on the target while a 1 MB reply of 1,000 blocks streams in
    20-character events, as fast as the server reads them, from a model server in a
    process of its own (so that the bench's own work does not slow the answers it
    times)."""
    streaming = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.ask",
        "serve",
        cwd=Path(__file__).resolve().parent.parent,
        stdout=asyncio.subprocess.PIPE,
    )
    assert streaming.stdout is not None
    url = (await streaming.stdout.readline()).decode().strip()
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"lspEdit": {"llm": {"baseUrl": url, "model": "bench", "timeout": 120}}}
        )
    )
    asked = _ask(session)
    times: list[float] = []
    line = 1
    while not asked.done():
        line = (line + 37) % 3000
        where_ = types.Range(
            start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)
        )
        start = time.perf_counter()
        await session.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=session.uri),
                range=where_,
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        times.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(0.02)
    result = await asked
    await streaming.wait()
    pending = sum(1 for c in result["changes"] if c["status"] == "pending")
    return [
        Row(
            f"lspEdit.ask, the reply document {where}: a code action while a 1 MB reply of "
            f"1,000 blocks streams in 20-character events as fast as the server reads them "
            f"({len(times)} actions; {pending:,} changes pending at its end)",
            _ms(times),
            "p50 < 5 ms",
            statistics.median(times) < 5,
        )
    ]


async def serve_reply(reply: str, piece: int) -> None:
    """A model server that answers one request with `reply`, `piece` characters per
    event, as fast as the client reads; prints its URL first."""
    done = asyncio.Event()

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        headers = (await reader.readuntil(b"\r\n\r\n")).decode()
        length = next(
            int(line.split(":", 1)[1])
            for line in headers.split("\r\n")
            if line.lower().startswith("content-length:")
        )
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        for start in range(0, len(reply), piece):
            delta = {"choices": [{"index": 0, "delta": {"content": reply[start : start + piece]}}]}
            _chunk(writer, b"data: " + json.dumps(delta).encode() + b"\n\n")
            await writer.drain()
        finish = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        _chunk(writer, b"data: " + json.dumps(finish).encode() + b"\n\ndata: [DONE]\n\n")
        _chunk(writer, b"")
        await writer.drain()
        writer.close()
        done.set()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    print(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1", flush=True)
    await done.wait()
    server.close()


def rows() -> list[Row]:
    out: list[Row] = []
    for open_reply in (True, False):
        out += asyncio.run(_asking(open_reply, closing_rows))
        out += asyncio.run(_asking(open_reply, code_action_rows))
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        asyncio.run(serve_reply(long_reply(1000, 1_000_000), 20))
        sys.exit(0)
    for row in rows():
        mark = "" if row.met is None else (" (met)" if row.met else " (MISSED)")
        print(f"{row.name}: {row.value} {row.target}{mark}")
