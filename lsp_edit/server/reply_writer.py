"""Writing at the end of a reply document, as `lspEdit.ask` streams a model's reply.

While the editor has the document open, its buffer is the document: the server
writes into it with `workspace/applyEdit`, one edit at a time (what arrives
meanwhile is joined into the next), and reads what it wrote from the `didChange`
that follows, as it reads typing. So the user may type in the reply while it
streams, and each block becomes a pending change as it does in a reply document
the user writes. While the document is not open, the server appends to the file on
disk and reads the text at once; when the editor opens it, the rest is written
into the buffer.

The file on disk is written by the server only while the editor does not have it
open: a buffer the editor holds is saved by the editor (the clients save it when
an ask ends).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

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


class ReplyWriter:
    """Appends text to one reply document, in order."""

    def __init__(self, editor: Editor, path: Path, document: ReplyDocument) -> None:
        self.editor = editor
        self.path = path
        self.document = document
        self.failure: str | None = None  # why some text could not be written
        self._queue: list[str] = []
        self._pump: asyncio.Task[None] | None = None
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

    def append(self, text: str) -> None:
        """Writes `text` at the end, after everything appended before."""
        if not text:
            return
        if not self._queue and self._idle() and not self.in_buffer:
            self._to_disk(text)
            return
        self._queue.append(text)
        self._start()

    def end_line(self) -> None:
        """Ends the last line, unless it is ended (or nothing is written)."""
        raw = self.document.text.raw
        last = self._queue[-1] if self._queue else raw[-1] if raw else ""
        if last and not last.endswith("\n"):
            self.append("\n")

    async def settled(self) -> None:
        """Waits until everything appended is in the document the server reads."""
        while self._pump is not None and not self._pump.done():
            # Shielded: an ask cancelled while it waits still writes what it has.
            await asyncio.shield(self._pump)

    async def replace_lines(self, start: int, end: int, text: str) -> None:
        """Replaces lines `start`..`end` (0-based, end exclusive) with `text`."""
        await self.settled()
        raw = self.document.text.raw
        at = Point(start, 0)
        until = Point(end, 0) if end < len(raw) else self._end()
        if self.in_buffer:
            await self._edit_buffer(at, until, text)
            return
        self.editor.read_reply(
            self.path, self.document, lambda: self.document.text.edit(at, until, text)
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
                end = self._end()
                await self._edit_buffer(end, end, text)
            else:
                self._to_disk(text)

    def _to_disk(self, text: str) -> None:
        self._save(text, "a")
        self.editor.read_reply(self.path, self.document, lambda: self.document.text.append(text))

    def _save(self, text: str, how: str) -> None:
        try:
            with self.path.open(how, encoding="utf-8", newline="") as file:
                file.write(text)
        except OSError as error:
            self.failure = f"Cannot write {self.path.name}: {error.strerror or error}."

    async def _edit_buffer(self, start: Point, end: Point, text: str) -> None:
        """One edit of the editor's buffer, tried again when the document moved under it
        (the user typed); the server's copy follows through the didChange."""
        reason = "no reason given"
        for _ in range(_ATTEMPTS):
            if not self.in_buffer:  # closed meanwhile: the disk is the document again
                if start == end:
                    self._to_disk(text)
                return
            self._echo.clear()
            result = await self.editor.apply_edit(
                self._edit(start, end, text), "lsp-edit: the model's reply"
            )
            if result.applied:
                try:
                    await asyncio.wait_for(self._echo.wait(), _ECHO_WAIT)
                except TimeoutError:
                    log.warning("no didChange for the reply written into %s", self.path)
                return
            reason = result.failure_reason or reason
            await asyncio.sleep(0.02)
            if start == end:
                start = end = self._end()
        self.failure = f"The editor refused to write the reply into {self.path.name}: {reason}."

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

    def _end(self) -> Point:
        raw = self.document.text.raw
        if not raw:
            return Point(0, 0)
        last = raw[-1]
        if last.endswith(("\n", "\r")):
            return Point(len(raw), 0)
        return Point(len(raw) - 1, len(strip_ending(last)))

    # --- what the editor tells (Editor.transcripts) ------------------------------------

    def opened(self, text: str) -> None:
        """The editor opened the document with `text`, read from the disk: what was
        appended since it read the file is written into its buffer."""
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
