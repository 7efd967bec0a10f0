"""The editor side of the end-to-end tests: open documents with versions, typing,
and `workspace/applyEdit` applied the way VS Code, Neovim and Emacs apply it
(refused when the document's version moved, resource operations on disk).

Positions are converted here in the encoding the server negotiated, with code of
its own, so the server's conversions are checked, not reused.
"""

from __future__ import annotations

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
        """Applies edits given against the same text, last first, and reports each
        as an incremental change, as VS Code does."""
        changes = []
        ordered = sorted(
            edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
        )
        for edit in ordered:
            start = offset_of(document.text, edit.range.start, self.encoding)
            end = offset_of(document.text, edit.range.end, self.encoding)
            changes.append(
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=position_of(document.text, start, self.encoding),
                        end=position_of(document.text, end, self.encoding),
                    ),
                    text=edit.new_text,
                )
            )
            document.text = document.text[:start] + edit.new_text + document.text[end:]
        document.version += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=document.uri, version=document.version
                ),
                content_changes=changes,
            )
        )

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
                self._apply(self.documents[uri], list(operation.edits))
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
