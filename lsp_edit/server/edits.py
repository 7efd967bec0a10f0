"""Every WorkspaceEdit the server sends or offers, built from the client's
capabilities in one place.

Clients differ exactly here: VS Code takes versioned `documentChanges` with file
operations, Neovim plain `changes`, Emacs `documentChanges` without file
operations. Text edits are the smallest replacements that keep every untouched
line byte-identical (`hunks.replacement`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from lsprotocol import types

from lsp_edit.positions import LspPosition, Point, PositionEncoding, point_to_lsp
from lsp_edit.server.hunks import TrackedBuffer, replacement
from lsp_edit.server.store import Acceptance, ChangeKind, PendingChange
from lsp_edit.text import LineEdit, Text, strip_ending
from lsp_edit.values import value


class CannotEdit(Exception):
    """The client cannot apply this edit (a file operation it does not support)."""


@value
class EditSupport:
    """What the client says it can apply."""

    document_changes: bool
    create: bool
    rename: bool
    delete: bool

    @staticmethod
    def of(capabilities: types.ClientCapabilities) -> EditSupport:
        workspace_edit = (
            capabilities.workspace.workspace_edit if capabilities.workspace is not None else None
        )
        if workspace_edit is None:
            return EditSupport(False, False, False, False)
        document_changes = bool(workspace_edit.document_changes)
        operations = {str(op) for op in workspace_edit.resource_operations or ()}
        operations = {op.rsplit(".", 1)[-1].lower() for op in operations}
        return EditSupport(
            document_changes,
            document_changes and "create" in operations,
            document_changes and "rename" in operations,
            document_changes and "delete" in operations,
        )


def lsp_position(
    buffer: TrackedBuffer | None, point: Point, encoding: PositionEncoding
) -> types.Position:
    if buffer is None:
        return types.Position(line=point.line, character=point.column)
    line = strip_ending(buffer.raw[point.line]) if point.line < buffer.line_count else ""
    position: LspPosition = point_to_lsp([line], Point(0, point.column), encoding)
    return types.Position(line=point.line, character=position.character)


def line_start(
    buffer: TrackedBuffer | None, line: int, encoding: PositionEncoding
) -> types.Position:
    """Where line `line` starts; past the last line, the end of the text. No position
    past the end of a document is sent: LSP says clients clamp one, but Neovim cannot
    put its cursor there (`window/showDocument`) and not every client clamps. (After
    a last line that ends with a newline, line `count` column 0 is the document's
    end, inside it.)"""
    count = buffer.line_count if buffer is not None else 0
    if buffer is None or line < count:
        return types.Position(line=max(line, 0), character=0)
    if count == 0:
        return types.Position(line=0, character=0)
    last = buffer.raw[-1]
    content = strip_ending(last)
    if len(content) < len(last):
        return types.Position(line=count, character=0)
    return lsp_position(buffer, Point(count - 1, len(content)), encoding)


def lsp_range(
    buffer: TrackedBuffer | None, start: Point, end: Point, encoding: PositionEncoding
) -> types.Range:
    return types.Range(
        start=lsp_position(buffer, start, encoding), end=lsp_position(buffer, end, encoding)
    )


class WorkspaceEdits:
    """Builds WorkspaceEdits for one client."""

    def __init__(self, support: EditSupport, encoding: PositionEncoding) -> None:
        self.support = support
        self.encoding = encoding

    def text_edits(
        self,
        buffer: TrackedBuffer,
        edits: Sequence[LineEdit],
        final_newline: bool | None = None,
    ) -> list[types.TextEdit]:
        eol = buffer.text().eol
        return [
            types.TextEdit(range=lsp_range(buffer, r.start, r.end, self.encoding), new_text=r.text)
            for r in replacement(buffer.raw, eol, edits, final_newline=final_newline)
        ]

    def accepting(
        self,
        acceptance: Acceptance,
        buffers: Callable[[Path], TrackedBuffer | None],
        uri_of: Callable[[Path], str],
        version_of: Callable[[Path], int | None],
    ) -> types.WorkspaceEdit:
        """The edit that applies these changes, file by file."""
        document_changes: list[
            types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile
        ] = []
        plain: dict[str, list[types.TextEdit]] = {}
        for path, edits in acceptance.edits.items():
            kinds = {c.kind for c in acceptance.changes if c.path == path}
            uri = uri_of(path)
            if ChangeKind.DELETE in kinds:
                self._require(self.support.delete, "delete", path)
                document_changes.append(
                    types.DeleteFile(
                        uri=uri, options=types.DeleteFileOptions(ignore_if_not_exists=True)
                    )
                )
                continue
            buffer = buffers(path)
            if ChangeKind.CREATE in kinds or buffer is None:
                if self.support.create:
                    document_changes.append(
                        types.CreateFile(
                            uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)
                        )
                    )
                content = Text(()).replace(edits).render()
                text_edits = [
                    types.TextEdit(
                        range=types.Range(
                            start=types.Position(line=0, character=0),
                            end=types.Position(line=0, character=0),
                        ),
                        new_text=content,
                    )
                ]
                version = None
            else:
                text_edits = self.text_edits(buffer, edits, acceptance.final_newline.get(path))
                version = version_of(path)
            if self.support.document_changes:
                document_changes.append(self._document_edit(uri, version, text_edits))
            else:
                plain.setdefault(uri, []).extend(text_edits)
            move = _move_of(acceptance.changes, path)
            if move is not None:
                self._require(self.support.rename, "rename", path)
                document_changes.append(
                    types.RenameFile(
                        old_uri=uri,
                        new_uri=uri_of(move),
                        options=types.RenameFileOptions(overwrite=False),
                    )
                )
        if self.support.document_changes:
            return types.WorkspaceEdit(document_changes=document_changes)
        return types.WorkspaceEdit(changes=plain)

    def _document_edit(
        self, uri: str, version: int | None, edits: list[types.TextEdit]
    ) -> types.TextDocumentEdit:
        return types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=list(edits),
        )

    def _require(self, supported: bool, operation: str, path: Path) -> None:
        if supported:
            return
        verbs = {"delete": "delete", "rename": "move", "create": "create"}
        raise CannotEdit(
            f"This editor cannot {verbs[operation]} files through the language server (it does "
            f"not advertise workspace.workspaceEdit.resourceOperations '{operation}' with "
            f"documentChanges); {verbs[operation]} `{path.name}` yourself, or run "
            "`lsp-edit apply` on the reply."
        )


def _move_of(changes: Sequence[PendingChange], path: Path) -> Path | None:
    for change in changes:
        if change.path == path and change.kind is ChangeKind.MOVE and change.move_to is not None:
            return change.move_to
    return None
