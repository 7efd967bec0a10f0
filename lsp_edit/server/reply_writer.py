"""Writing at the end of a reply document, as `lspEdit.ask` streams a model's reply.

While the editor has the document open, its buffer is the document: the server
writes into it with `workspace/applyEdit`, one edit at a time (what arrives
meanwhile is joined into the next), and reads what it wrote from the `didChange`
that follows, as it reads typing. So the user may type in the reply while it
streams, and each block becomes a pending change as it does in a reply document
the user writes. While the document is not open, the server appends to the file on
disk and reads the text at once; when the editor opens it, the rest is written
into the buffer. Into a buffer, text goes a whole line at a time.

The file on disk is written by the server only while the editor does not have it
open: a buffer the editor holds is saved by the editor (the clients save it when
an ask ends).
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import TextIO

from lsprotocol import types

from lsp_edit.positions import Point
from lsp_edit.server.editor import Editor
from lsp_edit.server.edits import lsp_position
from lsp_edit.server.replies import ReplyDocument
from lsp_edit.text import strip_ending

log = logging.getLogger(__name__)

# How long to wait for the didChange of an edit the editor applied: Neovim sends it
# after a pause (`debounce_text_changes`).
_ECHO_WAIT = 2.0
_ATTEMPTS = 3
# A line that may close a block: a fence, a SEARCH/REPLACE or `»»» EDIT END` closer, the
# end of a patch.
_CLOSING = re.compile(r"[^\S\n]*(?:```|~~~|>{5,9}|»»»|\*\*\* End)")


class ReplyWriter:
    """Appends text to one reply document, in order."""

    def __init__(self, editor: Editor, path: Path, document: ReplyDocument) -> None:
        self.editor = editor
        self.path = path
        self.document = document
        self.failure: str | None = None  # why some text could not be written
        self._queue: list[str] = []
        self._soon: list[str] = []  # `append_soon`
        self._file: TextIO | None = None  # the file appended to, while it is not open
        self._soon_call: asyncio.Handle | None = None
        self._held = ""  # the last line, not ended yet, kept from a buffer
        # The last line written into a buffer is not ended (the buffer ends it: the
        # edits go before its last newline, see `_range_for`).
        self._open = False
        self._pump: asyncio.Task[None] | None = None
        self._sending = ""  # the text on its way into the buffer, not yet echoed
        self._echo = asyncio.Event()

    @property
    def in_buffer(self) -> bool:
        return self.path in self.editor.opened

    @property
    def writes_to_disk(self) -> bool:
        return not self.in_buffer

    @property
    def text(self) -> str:
        """The document as the server has it now."""
        return "".join(self.document.text.raw)

    # --- writing -----------------------------------------------------------------------

    def append_soon(self, text: str) -> None:
        """Appends `text` when the task that has it waits (for more of the stream):
        the pieces a stream holds already are written as one."""
        self._soon.append(text)
        if self._soon_call is None:
            self._soon_call = asyncio.get_running_loop().call_soon(self._append_waiting)

    def _append_waiting(self) -> None:
        if self._soon_call is not None:
            self._soon_call.cancel()
            self._soon_call = None
        if self._soon:
            text = "".join(self._soon)
            self._soon.clear()
            self.append(text)

    def append(self, text: str) -> None:
        """Writes `text` at the end, after everything appended before. Into a buffer,
        whole lines, but for a line that closes a block, which goes at once: the
        rest of a line waits for its newline (or `end_line`)."""
        self._append_waiting()
        if not text:
            return
        if self.in_buffer:
            text = self._held + text
            whole = text.rfind("\n") + 1
            if whole < len(text) and _CLOSING.match(text, whole):
                whole = len(text)  # its block becomes a change now, not at the next line
            text, self._held = text[:whole], text[whole:]
            if not text:
                return
        elif self._held:  # closed while a line waited: it goes to the disk first
            text, self._held = self._held + text, ""
        if not self._queue and self._idle() and not self.in_buffer:
            self._to_disk(text)
            return
        self._queue.append(text)
        self._start()

    def end_line(self) -> None:
        """Ends the last line, unless it is ended (or nothing is written)."""
        self._append_waiting()
        if self._held:
            ended = self._held + "\n"
        elif self._queue:
            ended = "" if self._queue[-1].endswith("\n") else "\n"
        elif self._sending:
            ended = "" if self._sending.endswith("\n") else "\n"
        elif self._open:
            ended = "\n"
        else:
            raw = self.document.text.raw
            ended = "\n" if raw and not raw[-1].endswith("\n") else ""
        self._held = ""
        if ended:
            self._queue.append(ended)
            self._start()

    async def settled(self) -> None:
        """Waits until everything appended is in the document the server reads."""
        self._append_waiting()
        while self._pump is not None and not self._pump.done():
            # Shielded: an ask cancelled while it waits still writes what it has.
            await asyncio.shield(self._pump)

    async def replace_tail(self, start: int, text: str) -> None:
        """Replaces the lines from `start` (0-based) to the end with `text`."""
        await self.settled()
        if self.in_buffer:
            await self._edit_buffer(text, start)
            return
        raw = self.document.text.raw
        last = raw[-1] if raw else ""
        end = Point(len(raw), 0) if last.endswith("\n") else Point(len(raw) - 1, len(last))
        self.editor.read_reply(
            self.path, self.document, lambda: self.document.text.edit(Point(start, 0), end, text)
        )
        self._save(self.text, "w")

    def _idle(self) -> bool:
        return self._pump is None or self._pump.done()

    def _start(self) -> None:
        if self._idle():
            self._pump = asyncio.ensure_future(self._write_queued())

    async def _write_queued(self) -> None:
        while self._queue:
            text = "".join(self._queue)
            self._queue.clear()
            if self.in_buffer:
                self._sending = text
                try:
                    await self._edit_buffer(text)
                finally:
                    self._sending = ""
            else:
                self._to_disk(text)

    def _to_disk(self, text: str) -> None:
        self._append_to_file(text)
        self.editor.read_reply(self.path, self.document, lambda: self.document.text.append(text))

    def _append_to_file(self, text: str) -> None:
        """Appends to the file, kept open while the reply streams onto the disk (a
        stream is thousands of pieces); each piece is on the disk when this returns."""
        try:
            if self._file is None:
                self._file = self.path.open("a", encoding="utf-8", newline="")
            self._file.write(text)
            self._file.flush()
        except OSError as error:
            self.failure = f"Cannot write {self.path.name}: {error.strerror or error}."

    def _save(self, text: str, how: str) -> None:
        self.close()
        try:
            with self.path.open(how, encoding="utf-8", newline="") as file:
                file.write(text)
        except OSError as error:
            self.failure = f"Cannot write {self.path.name}: {error.strerror or error}."

    def close(self) -> None:
        """Closes the file appended to (the ask is over, or the editor has it now)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    async def _edit_buffer(self, text: str, start: int | None = None) -> None:
        """One edit of the editor's buffer: `text` appended, or put in place of the
        lines from `start` to the end. Tried again when the document moved under it
        (the user typed); the server's copy follows through the didChange."""
        reason = "no reason given"
        for _ in range(_ATTEMPTS):
            if not self.in_buffer:  # closed meanwhile: the disk is the document again
                if start is None:
                    self._to_disk(text)
                return
            start_at, end_at, written = self._range_for(text, start)
            if start_at == end_at and not written:  # only the newline the buffer has
                self._open = False
                return
            self._echo.clear()
            result = await self.editor.apply_edit(
                self._edit(start_at, end_at, written), "lsp-edit: the model's reply"
            )
            if result.applied:
                self._open = not text.endswith("\n")
                try:
                    await asyncio.wait_for(self._echo.wait(), _ECHO_WAIT)
                except TimeoutError:
                    log.warning("no didChange for the reply written into %s", self.path)
                return
            reason = result.failure_reason or reason
            await asyncio.sleep(0.02)
        self.failure = f"The editor refused to write the reply into {self.path.name}: {reason}."

    def _range_for(self, text: str, start: int | None) -> tuple[Point, Point, str]:
        """Where `text` goes (appended, or in place of the lines from `start`) and what
        is written there, as an edit that ends inside the buffer, before its last
        newline: an edit past the last line is read differently by each Neovim (an
        empty line added, or not), and Neovim ends every buffer with a newline."""
        raw = self.document.text.raw
        last = raw[-1] if raw else ""
        ends = last.endswith(("\n", "\r"))
        end_of_text = Point(len(raw) - 1, len(strip_ending(last))) if raw else Point(0, 0)
        body = text[:-1] if ends and text.endswith("\n") else text
        if start is not None:
            return Point(start, 0), end_of_text, body
        if not ends or self._open:
            return end_of_text, end_of_text, body
        if len(raw) == 1 and not strip_ending(last):  # an empty document: its one line
            return Point(0, 0), Point(0, 0), body
        return end_of_text, end_of_text, "\n" + body

    def _edit(self, start: Point, end: Point, text: str) -> types.WorkspaceEdit:
        buffer = self.document.text.buffer
        encoding = self.editor.encoding
        where = types.Range(
            start=lsp_position(buffer, start, encoding), end=lsp_position(buffer, end, encoding)
        )
        edit = types.TextEdit(range=where, new_text=text)
        uri = self.editor.uri_of(self.path)
        if self.editor.edits.support.document_changes:
            identifier = types.OptionalVersionedTextDocumentIdentifier(
                uri=uri, version=self.editor.version_of(self.path)
            )
            return types.WorkspaceEdit(
                document_changes=[types.TextDocumentEdit(text_document=identifier, edits=[edit])]
            )
        return types.WorkspaceEdit(changes={uri: [edit]})

    # --- what the editor tells (Editor.transcripts) ------------------------------------

    def opened(self, text: str) -> None:
        """The editor opened the document with `text`, read from the disk: what was
        appended since it read the file is written into its buffer."""
        self.close()
        current = self.text
        if len(current) > len(text) and current.startswith(text):
            self._queue.insert(0, current[len(text) :])
            self._start()

    def edited(self) -> None:
        self._echo.set()

    def closed(self) -> None:
        """The editor closed the document (saved or not): the disk gets all of it, and
        the rest of the reply goes there."""
        self._save(self.text, "w")
