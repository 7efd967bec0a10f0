"""The editor side of the end-to-end tests: open documents with versions, typing,
and `workspace/applyEdit` applied the way VS Code, Neovim and Emacs apply it
(refused when the document's version moved, resource operations on disk).

Positions are converted here in the encoding the server negotiated, with code of
its own, so the server's conversions are checked, not reused.
"""

from __future__ import annotations

import asyncio
import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pytest_lsp import LanguageClient


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def offset_of(text: str, position: types.Position, encoding: str) -> int:
    """The string index of an LSP position in `text`."""
    lines = text.splitlines(keepends=True)
    index = sum(len(line) for line in lines[: position.line])
    if position.line >= len(lines):
        return len(text)
    line = lines[position.line].rstrip("\r\n")
    column = 0
    while column < len(line) and units(line[: column + 1], encoding) <= position.character:
        column += 1
    return index + column


def position_of(text: str, index: int, encoding: str) -> types.Position:
    before = text[:index]
    line = before.count("\n")
    start = before.rfind("\n") + 1
    return types.Position(line=line, character=units(before[start:], encoding))


@dataclass
class Document:
    uri: str
    text: str
    version: int = 1


@dataclass
class Editor:
    """The documents one test client has open, kept as an editor keeps them."""

    client: LanguageClient
    root: Path
    name: str
    documents: dict[str, Document] = field(default_factory=dict)
    encoding: str = "utf-16"  # as the server negotiated it
    refuse_next_edits: int = 0  # answer the next applyEdit(s) with applied: false
    error_next_edits: int = 0  # answer the next applyEdit(s) with an error, as eglot 1.9 does
    applied_edits: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    registrations: list[types.Registration] = field(default_factory=list)
    # How the editor reports an edit it applies: "last-first" (each change against
    # the text before the edit, the last first, as VS Code does), "first-to-last"
    # (each against the text the one before left) or "whole" (one full text, as a
    # client with full sync does).
    reports: str = "last-first"
    # Answer `workspace/applyEdit` first and send its didChange a moment later, as
    # Neovim does (its didChange waits for a debounce).
    debounce: float = 0.0
    undo_stack: dict[str, list[str]] = field(default_factory=dict)
    _delayed: list[asyncio.TimerHandle] = field(default_factory=list)

    def uri(self, relative: str) -> str:
        return (self.root / relative).as_uri()

    def write(self, relative: str, text: str) -> str:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return path.as_uri()

    def disk(self, relative: str) -> str:
        return (self.root / relative).read_bytes().decode("utf-8")

    def open(self, relative: str, text: str | None = None) -> str:
        uri = self.uri(relative)
        if text is None:
            text = self.disk(relative)
        else:
            self.write(relative, text)
        self.documents[uri] = Document(uri, text)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        return uri

    def text(self, uri_or_relative: str) -> str:
        uri = uri_or_relative if ":" in uri_or_relative else self.uri(uri_or_relative)
        return self.documents[uri].text

    def changed_on_disk(self, relative: str, text: str) -> None:
        """Another program rewrote a file; the editor's file watcher reports it."""
        uri = self.write(relative, text)
        self.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)]
            )
        )

    def close(self, relative: str) -> None:
        uri = self.uri(relative)
        self.documents.pop(uri)
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def save(self, relative: str) -> None:
        self.write(relative, self.text(relative))

    def type(self, relative: str, line: int, character: int, text: str) -> None:
        """Types `text` at a position (LSP units), as one incremental change."""
        position = types.Position(line=line, character=character)
        self.replace(relative, types.Range(start=position, end=position), text)

    def append(self, relative: str, text: str) -> None:
        """Types `text` at the end of the document (a chat streaming into it)."""
        document = self.documents[self.uri(relative)]
        end = position_of(document.text, len(document.text), self.encoding)
        self.replace(relative, types.Range(start=end, end=end), text)

    def replace(self, relative: str, where: types.Range, text: str) -> None:
        uri = self.uri(relative)
        document = self.documents[uri]
        self._apply(document, [types.TextEdit(range=where, new_text=text)])

    def _apply(self, document: Document, edits: list[types.TextEdit]) -> None:
        """Applies edits given against the same text and reports them at once, in
        the shape `reports` says."""
        self.client.text_document_did_change(self._change(document, edits))

    def _change(
        self, document: Document, edits: list[types.TextEdit], reports: str | None = None
    ) -> types.DidChangeTextDocumentParams:
        """Applies edits given against the same text (one undo step); returns the
        didChange that reports them."""
        reports = reports or self.reports
        self.undo_stack.setdefault(document.uri, []).append(document.text)
        before = document.text
        spans = sorted(
            (
                offset_of(before, edit.range.start, self.encoding),
                offset_of(before, edit.range.end, self.encoding),
                edit.new_text,
            )
            for edit in edits
        )
        changes: list[types.TextDocumentContentChangeEvent] = []
        if reports == "first-to-last":
            shift = 0
            for start, end, text in spans:
                start, end = start + shift, end + shift
                changes.append(self._ranged(document.text, start, end, text))
                document.text = document.text[:start] + text + document.text[end:]
                shift += len(text) - (end - start)
        else:
            for start, end, text in reversed(spans):
                changes.append(self._ranged(document.text, start, end, text))
                document.text = document.text[:start] + text + document.text[end:]
        if reports == "whole":
            changes = [types.TextDocumentContentChangeWholeDocument(text=document.text)]
        elif reports == "characters":
            matcher = difflib.SequenceMatcher(None, before, document.text, autojunk=False)
            changes = [
                self._ranged(before, i1, i2, document.text[j1:j2])
                for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes())
                if tag != "equal"
            ]
        document.version += 1
        return types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(
                uri=document.uri, version=document.version
            ),
            content_changes=changes,
        )

    def _ranged(
        self, text: str, start: int, end: int, new_text: str
    ) -> types.TextDocumentContentChangePartial:
        return types.TextDocumentContentChangePartial(
            range=types.Range(
                start=position_of(text, start, self.encoding),
                end=position_of(text, end, self.encoding),
            ),
            text=new_text,
        )

    def undo(self, relative: str) -> None:
        """The editor's undo: the text before the last edit comes back, reported as
        the one ranged change that differs."""
        document = self.documents[self.uri(relative)]
        previous = self.undo_stack[document.uri].pop()
        now = document.text
        head = 0
        while head < min(len(now), len(previous)) and now[head] == previous[head]:
            head += 1
        tail = 0
        while tail < min(len(now), len(previous)) - head and now[-1 - tail] == previous[-1 - tail]:
            tail += 1
        document.text = previous
        document.version += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=document.uri, version=document.version
                ),
                content_changes=[
                    self._ranged(now, head, len(now) - tail, previous[head : len(previous) - tail])
                ],
            )
        )

    async def apply_code_action(
        self, action: types.CodeAction, *, command_first: bool = False
    ) -> Any:
        """Applies a code action as an editor does: its edit, then its command. With
        `command_first`, the command reaches the server before the didChange that
        reports the edit (Neovim: its didChange waits for a debounce)."""
        assert action.edit is not None and action.command is not None
        changed: list[types.DidChangeTextDocumentParams] = []
        for uri, text_edits in self._text_edits(action.edit):
            changed.append(self._change(self.documents[uri], text_edits))
        command = action.command
        if command_first:
            running = asyncio.ensure_future(
                self.command(command.command, (command.arguments or [None])[0])
            )
            await asyncio.sleep(0.2)
            for params in changed:
                self.client.text_document_did_change(params)
            return await running
        for params in changed:
            self.client.text_document_did_change(params)
        return await self.command(command.command, (command.arguments or [None])[0])

    def _text_edits(self, edit: types.WorkspaceEdit) -> list[tuple[str, list[types.TextEdit]]]:
        out: list[tuple[str, list[types.TextEdit]]] = []
        for operation in edit.document_changes or []:
            if isinstance(operation, types.TextDocumentEdit):
                text_edits = [e for e in operation.edits if isinstance(e, types.TextEdit)]
                out.append((operation.text_document.uri, text_edits))
        for uri, plain in (edit.changes or {}).items():
            out.append((uri, list(plain)))
        return out

    async def debounced(self) -> None:
        """Waits for the didChanges held back by `debounce`, then for the server."""
        await asyncio.sleep(self.debounce + 0.05)
        await self.settle()

    def apply_workspace_edit(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        """`workspace/applyEdit`, all or nothing, refusing a stale version."""
        self.applied_edits.append(params)
        if self.error_next_edits:
            self.error_next_edits -= 1
            raise ValueError("Edits on 'cart.py' require version 1, you have 2")
        if self.refuse_next_edits:
            self.refuse_next_edits -= 1
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="refused by test")
        edit = params.edit
        operations: list[Any] = []
        if edit.document_changes:
            operations.extend(edit.document_changes)
        for uri, text_edits in (edit.changes or {}).items():
            operations.append(
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=None
                    ),
                    edits=list(text_edits),
                )
            )
        for operation in operations:
            if isinstance(operation, types.TextDocumentEdit):
                document = self.documents.get(operation.text_document.uri)
                wanted = operation.text_document.version
                if document is not None and wanted is not None and wanted != document.version:
                    return types.ApplyWorkspaceEditResult(
                        applied=False, failure_reason="document version changed"
                    )
        for operation in operations:
            if isinstance(operation, types.CreateFile):
                path = Path(_path(operation.uri))
                path.parent.mkdir(parents=True, exist_ok=True)
                if not path.exists():
                    path.write_bytes(b"")
            elif isinstance(operation, types.DeleteFile):
                Path(_path(operation.uri)).unlink(missing_ok=True)
                self.documents.pop(operation.uri, None)
            elif isinstance(operation, types.RenameFile):
                old = self.documents.pop(operation.old_uri, None)
                Path(_path(operation.old_uri)).rename(_path(operation.new_uri))
                if old is not None:
                    self.documents[operation.new_uri] = Document(operation.new_uri, old.text)
            else:
                uri = operation.text_document.uri
                if uri not in self.documents:
                    self._open_in_background(uri)
                changed = self._change(self.documents[uri], list(operation.edits))
                if self.debounce:
                    self._delayed.append(
                        asyncio.get_running_loop().call_later(
                            self.debounce, self.client.text_document_did_change, changed
                        )
                    )
                else:
                    self.client.text_document_did_change(changed)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _open_in_background(self, uri: str) -> None:
        """An edit to a file the user has not open opens it (a new, empty buffer for a
        file that does not exist yet), as VS Code and Neovim do."""
        path = Path(_path(uri))
        text = path.read_bytes().decode("utf-8") if path.exists() else ""
        self.documents[uri] = Document(uri, text)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )

    async def command(self, name: str, argument: dict[str, Any] | None = None) -> Any:
        arguments = [argument] if argument is not None else []
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=arguments)
        )

    async def settle(self) -> None:
        """Waits until the server handled what was sent: it publishes what typing
        moved before it answers any command."""
        await self.command("lspEdit.list", {})

    def diagnostics(self, relative: str) -> list[types.Diagnostic]:
        return list(self.client.diagnostics.get(self.uri(relative), []))

    async def code_actions(self, relative: str, line: int) -> list[types.CodeAction]:
        where = types.Range(
            start=types.Position(line=line, character=0),
            end=types.Position(line=line, character=0),
        )
        result = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(relative)),
                range=where,
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        return [a for a in result or [] if isinstance(a, types.CodeAction)]


def _path(uri: str) -> str:
    return unquote(urlparse(uri).path)
