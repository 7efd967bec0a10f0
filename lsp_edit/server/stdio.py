"""The client's messages on stdin, read in chunks (and on a TCP socket).

pygls reads stdin through its thread pool one header line and one body at a time:
four hand-offs between threads for every message, which cost more than all the
rest of a keystroke's `didChange` (bench/server.py: the CPU time of 10,000 deltas
typed into a plain document fell by 60% with this reader). Here one thread reads
whatever the pipe holds, up to 64 KiB at a time, and feeds it to an asyncio
`StreamReader`; pygls' loop then reads the lines and bodies already received
without leaving the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from lsp_edit.server.frames import read_messages
from lsp_edit.server.messages import AnsweringProtocol
from lsp_edit.server.startup import Incoming, WithoutSecondAnswer

log = logging.getLogger(__name__)

# A header line longer than this is not LSP; pygls' loop reads it as one line.
_LONGEST_LINE = 1 << 30


def serve_stdio(
    server: LanguageServer, incoming: Incoming, replayed: bytes, stdout: WithoutSecondAnswer
) -> None:
    """Runs `server` until the client exits: `replayed` is read first (what was read
    already), then the rest of `incoming`; answers go to `stdout`."""
    stop = server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout))  # type: ignore[arg-type]
    try:
        asyncio.run(_read_messages(server, stop, incoming, replayed))
    except BrokenPipeError:
        log.error("The client closed the connection: the server stops.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]


async def _read_messages(
    server: LanguageServer, stop: threading.Event, incoming: Incoming, replayed: bytes
) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_LONGEST_LINE)
    reader.feed_data(replayed + incoming.readahead())
    if incoming.ended:
        reader.feed_eof()
    else:
        threading.Thread(
            target=_feed, args=(incoming, reader, loop), name="stdin", daemon=True
        ).start()
    await read_messages(reader, _protocol_of(server), stop)


def serve_tcp(server: LanguageServer, host: str, port: int) -> None:
    """Runs `server` for the clients that connect to `host:port`, one at a time, as
    pygls' `start_tcp` does, with the same reading as on stdio."""
    stop = server._stop_event = threading.Event()

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        await read_messages(reader, _protocol_of(server), stop)
        server.shutdown()  # type: ignore[no-untyped-call]

    async def listen() -> None:
        server._server = await asyncio.start_server(connected, host, port)
        async with server._server:
            await server._server.serve_forever()

    with contextlib.suppress(asyncio.CancelledError):
        asyncio.run(listen())


def _protocol_of(server: LanguageServer) -> AnsweringProtocol:
    protocol = server.protocol
    assert isinstance(protocol, AnsweringProtocol)
    return protocol


def _feed(
    incoming: Incoming, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop
) -> None:
    """In its own thread: hands every chunk read from stdin to `reader`, then its end."""
    while chunk := incoming.chunk():
        if not _hand_over(loop, reader.feed_data, chunk):
            return
    _hand_over(loop, reader.feed_eof)


def _hand_over(loop: asyncio.AbstractEventLoop, action: Callable[..., None], *args: Any) -> bool:
    try:
        loop.call_soon_threadsafe(action, *args)
    except RuntimeError:  # the loop closed: the server is exiting
        return False
    return True
