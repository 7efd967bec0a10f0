"""The files a proposal reads in the editor: inside the workspace folders only, the
editor's open buffer where there is one, the disk otherwise."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from lsp_edit.resolve.model import Refused
from lsp_edit.text import Text
from lsp_edit.workspace import FileRef, Workspace


class EditorFiles:
    """A `FileSource` over one or more workspace folders.

    With several folders, files are named by their folder's name and their path
    in it (`backend/src/app.py`), so that two folders' `src/app.py` never mix.
    """

    def __init__(self, roots: Sequence[Path], open_text: Callable[[Path], Text | None]) -> None:
        self.workspaces = [Workspace(root) for root in roots]
        self._open_text = open_text
        self._names = _folder_names([w.root for w in self.workspaces])
        self._prefixes = [str(w.root).rstrip(os.sep) + os.sep for w in self.workspaces]

    def workspace_of(self, path: Path) -> Workspace | None:
        """The folder a real path (symlinks resolved, as every path the server holds)
        is in."""
        text = str(path)
        for workspace, prefix in zip(self.workspaces, self._prefixes, strict=True):
            if text == prefix[:-1] or text.startswith(prefix):
                return workspace
        return None

    def display(self, path: Path) -> str:
        """How messages name a file: its path in its folder."""
        workspace = self.workspace_of(path)
        if workspace is None:
            return str(path)
        relative = path.relative_to(workspace.root).as_posix()
        if len(self.workspaces) == 1:
            return relative
        return f"{self._names[workspace.root]}/{relative}"

    def locate(self, written: str, *, allow_tail_match: bool = True) -> FileRef | Refused:
        if not self.workspaces:
            return Refused(
                "outside_workspace",
                "The editor opened no workspace folder, so no file can be edited; open a folder.",
            )
        cleaned = written.strip().replace("\\", "/")
        if Path(cleaned).is_absolute():
            workspace = self.workspace_of(Path(os.path.realpath(cleaned)))
            if workspace is None:
                return _outside(written)
            return self._named(workspace.locate(cleaned, allow_tail_match=False))
        candidates = self._by_folder_name(cleaned)
        first_refusal: Refused | None = None
        for workspace, inner in candidates:
            ref = workspace.locate(inner, allow_tail_match=False)
            if isinstance(ref, Refused):
                first_refusal = first_refusal or ref
                continue
            if ref.absolute.exists():
                return self._named(ref)
        if first_refusal is not None and first_refusal.code == "outside_workspace":
            return first_refusal
        if allow_tail_match:
            found = self._tail_match(cleaned)
            if found is not None:
                return found
        workspace, inner = candidates[0]
        return self._named(workspace.locate(inner, allow_tail_match=False))

    def read(self, ref: FileRef) -> Text | Refused | None:
        opened = self._open_text(ref.absolute)
        if opened is not None:
            return opened
        return self.read_disk(ref.absolute)

    def file_created(self, path: Path) -> None:
        """The editor saw a file appear: paths written by their tail may name it."""
        workspace = self.workspace_of(path)
        if workspace is not None:
            workspace.listing.added(path.relative_to(workspace.root).as_posix())

    def file_deleted(self, path: Path) -> None:
        workspace = self.workspace_of(path)
        if workspace is not None:
            workspace.listing.removed(path.relative_to(workspace.root).as_posix())

    def read_disk(self, path: Path) -> Text | Refused | None:
        """A file's text on disk, whether or not the editor has it open."""
        workspace = self.workspace_of(path)
        if workspace is None:
            return _outside(str(path))
        return workspace.read(FileRef(self.display(path), path))

    def similar_files(self, written: str) -> list[str]:
        found: list[str] = []
        for workspace, inner in self._by_folder_name(written.strip().replace("\\", "/")):
            found.extend(
                self.display(workspace.root / path) for path in workspace.similar_files(inner)
            )
        return found

    def _by_folder_name(self, written: str) -> list[tuple[Workspace, str]]:
        """Where a relative path may be: in the folder it starts with the name of,
        else in each folder in turn."""
        head, _, rest = written.partition("/")
        if len(self.workspaces) > 1 and rest:
            for workspace in self.workspaces:
                if self._names[workspace.root] == head:
                    return [(workspace, rest)]
        return [(workspace, written) for workspace in self.workspaces]

    def _tail_match(self, written: str) -> FileRef | None:
        matches = [
            (workspace, path)
            for workspace in self.workspaces
            for path in workspace.tail_matches(written)
        ]
        if len(matches) != 1:
            return None
        workspace, path = matches[0]
        ref = workspace.locate(path, allow_tail_match=False)
        if isinstance(ref, Refused):
            return None
        shown = self.display(ref.absolute)
        return FileRef(
            shown,
            ref.absolute,
            note=f"`{written}` does not exist; resolved to `{shown}`, the only file ending "
            "with that path.",
        )

    def _named(self, ref: FileRef | Refused) -> FileRef | Refused:
        if isinstance(ref, Refused):
            return ref
        return FileRef(self.display(ref.absolute), ref.absolute, ref.note)


def _outside(written: str) -> Refused:
    return Refused(
        "outside_workspace",
        f"Path `{written}` is outside the workspace folders; only files under them can be edited.",
    )


def _folder_names(roots: Sequence[Path]) -> dict[Path, str]:
    names: dict[Path, str] = {}
    for index, root in enumerate(roots):
        name = root.name or f"folder{index + 1}"
        names[root] = name if name not in names.values() else f"{name}-{index + 1}"
    return names
