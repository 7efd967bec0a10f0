"""The files a reply may touch: paths kept inside the workspace root, UTF-8 reading
that refuses binary and foreign encodings, and atomic writes.

Every path an LLM writes goes through `Workspace.locate`, which refuses `..`,
absolute paths elsewhere and symlinks that lead out of the root, so nothing is
ever read or written outside it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lsp_edit.listing import FileListing
from lsp_edit.resolve.model import Refused
from lsp_edit.text import Text

_BINARY_SNIFF_BYTES = 8192


@dataclass(frozen=True)
class FileRef:
    """A file inside the workspace: its path relative to the root (with `/`), its
    real absolute path, and a note when the written path was not taken literally."""

    relative: str
    absolute: Path
    note: str | None = None


class Workspace:
    """A workspace root and the rules for reaching files under it."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        self.listing = FileListing(self.root)

    def locate(self, written: str, *, allow_tail_match: bool = True) -> FileRef | Refused:
        """Turns a path written in a reply into a file inside the workspace.

        A path naming no file whose tail matches exactly one workspace file
        resolves to that file (with a note saying so). A path that does not exist
        and matches no file is still returned: the caller decides whether the
        block may create it.
        """
        cleaned = written.strip().replace("\\", "/")
        if not cleaned:
            return Refused("file_not_found", "The block names no file.")
        if "\x00" in cleaned:
            return Refused("outside_workspace", f"Path {written!r} is not a valid file name.")
        candidate = Path(cleaned)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        real = Path(os.path.realpath(candidate))
        if not _is_within(real, self.root):
            return Refused(
                "outside_workspace",
                f"Path `{written}` is outside the workspace; only files under the workspace "
                "root can be edited.",
            )
        if real == self.root or real.is_dir():
            return Refused("file_not_found", f"`{written}` is a folder, not a file.")
        relative = real.relative_to(self.root).as_posix()
        if real.exists() or not allow_tail_match:
            return FileRef(relative, real)
        matches = self._tail_matches(Path(cleaned).as_posix().lstrip("/"))
        if len(matches) == 1:
            found = matches[0]
            return FileRef(
                found,
                Path(os.path.realpath(self.root / found)),
                note=f"`{written}` does not exist; resolved to `{found}`, the only file ending "
                "with that path.",
            )
        return FileRef(relative, real)

    def similar_files(self, written: str) -> list[str]:
        """Workspace files whose tail matches `written`, for not-found messages."""
        return self._tail_matches(written.strip().replace("\\", "/").lstrip("/"))

    def read(self, ref: FileRef) -> Text | Refused | None:
        """The file's text, None when it does not exist, or why it cannot be edited."""
        try:
            data = ref.absolute.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            return Refused("file_not_found", f"`{ref.relative}` is a folder, not a file.")
        except OSError as error:
            return Refused("io_error", f"Cannot read `{ref.relative}`: {error.strerror}.")
        return decode(data, ref.relative)

    def write(self, ref: FileRef, text: Text) -> None:
        """Writes atomically: a temporary file in the same folder, then a rename, so
        an interrupted run never leaves a half-written file. Keeps the mode of an
        existing file; a new file gets the usual mode for the user's umask."""
        target = ref.absolute
        if not _is_within(Path(os.path.realpath(target.parent)), self.root):
            raise PermissionError(f"refusing to write outside the workspace: {ref.relative}")
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode: int | None = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = None
        data = text.render().encode("utf-8")
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            os.chmod(temporary, mode if mode is not None else _default_mode())
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
        self.listing.added(ref.relative)

    def delete(self, ref: FileRef) -> None:
        ref.absolute.unlink()
        self.listing.removed(ref.relative)

    def _tail_matches(self, tail: str) -> list[str]:
        return self.listing.matches(tail)


def decode(data: bytes, name: str) -> Text | Refused:
    """Decodes a file's bytes as UTF-8 (a BOM is kept), refusing binary data and
    other encodings rather than rewriting them."""
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        return Refused("binary_file", f"Cannot edit binary file `{name}`.")
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return Refused(
            "not_utf8",
            f"`{name}` is not UTF-8 (invalid byte at offset {error.start}); it is left "
            "untouched rather than rewritten in another encoding.",
        )
    return Text.from_string(content)


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
