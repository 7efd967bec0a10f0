"""The message bodies in the client's byte stream (LSP's base protocol: header lines,
a blank line, then `Content-Length` bytes of body), each handed to the protocol.

pygls' loop reads a header block without `Content-Length` as nothing, then takes the
body and every later message for header lines: the server hears nothing more. Here
bytes that hold no message get one parse error and are skipped up to the next
header, and every message after them is read as usual.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger(__name__)

# A header line (RFC 7230's token, a colon, a value), and a Content-Length header that
# follows stray bytes on the same line (a body without a newline before it).
_HEADER = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*\r?\n")
_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)


@dataclass(frozen=True)
class Unreadable:
    """Bytes that hold no message, and why."""

    problem: str


class Receiver(Protocol):
    def receive(self, body: bytes) -> None: ...

    def unreadable(self, problem: str) -> None: ...


async def read_messages(
    reader: asyncio.StreamReader, receiver: Receiver, stop: threading.Event
) -> None:
    """Hands each message of `reader` to `receiver` until the input ends or `stop`."""
    frames = Frames(reader)
    while not stop.is_set():
        frame = await frames.next()
        if frame is None:
            return
        try:
            if isinstance(frame, Unreadable):
                receiver.unreadable(frame.problem)
            else:
                receiver.receive(frame)
        except BrokenPipeError:
            raise
        except Exception:  # a bug: the next message is read all the same
            log.exception("A message could not be handled")


class Frames:
    """The bodies of the messages in a stream, read one at a time."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self._held: bytes | None = None  # a header line found after stray bytes
        self._skipping = False  # in bytes answered already as unreadable

    async def next(self) -> bytes | Unreadable | None:
        """The next body, or what was found instead; None at the end of the input."""
        length: int | None = None
        problem = "a header block without Content-Length"
        in_headers = False
        while True:
            line = await self._line()
            if not line:
                return None
            if _HEADER.fullmatch(line):
                in_headers, self._skipping = True, False
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    value = value.strip()
                    length = int(value) if value.isdigit() else None
                    if length is None:
                        problem = f"Content-Length {value[:20]!r} is not a number"
            elif not line.strip():
                if not in_headers:
                    continue  # blank lines between messages
                if length is None:
                    self._skipping = True
                    return Unreadable(problem)
                try:
                    return await self._reader.readexactly(length)
                except asyncio.IncompleteReadError:
                    return None
            else:
                found = list(_CONTENT_LENGTH.finditer(line))
                if found and found[-1].start() > 0:
                    self._held = line[found[-1].start() :]
                if in_headers:
                    self._skipping = True
                    return Unreadable("a line in the headers that is not a header")
                if not self._skipping:
                    self._skipping = True
                    return Unreadable("bytes that are not a message (no headers)")
                log.debug("Skipped %d bytes that are not a message", len(line))

    async def _line(self) -> bytes:
        if self._held is not None:
            line, self._held = self._held, None
            return line
        return await self._reader.readline()
