"""The files a reply may touch: paths kept inside the workspace root, UTF-8 reading
that refuses binary and foreign encodings, and atomic writes.

Every path an LLM writes goes through `Workspace.locate`, which refuses `..`,
absolute paths elsewhere and symlinks that lead out of the root, so nothing is
ever read or written outside it.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections.abc import Callable, Sequence
from errno import EBADF, ELOOP, ENOENT, ENOTDIR
from functools import cached_property

from lsp_edit.blocks.paths import LONGEST_PATH
from lsp_edit.resolve.model import Refused
from lsp_edit.text import Text
from lsp_edit.values import value

# Paths are strings here, read with `os.path`: `pathlib` imports `urllib.parse`,
# `ipaddress`, `fnmatch` and more, a sixth of starting `lsp-edit apply`. What the
# language server is given is a `Path` all the same (`Workspace.root`, `FileRef.absolute`).
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from pathlib import Path

    from lsp_edit.listing import FileListing

_BINARY_SNIFF_BYTES = 8192


@value
class FileWrite:
    """One file a reply changes: the text it had (None: it did not exist) and the
    text it gets (None: it is deleted)."""

    ref: FileRef
    before: Text | None
    after: Text | None


@value
class WriteFailure:
    """Writing a reply's files stopped at `file` for `reason`; `states` says, per
    file of the reply, what it holds now: `unchanged` (never written), `restored`
    (written, then put back), or `left changed (...)` when putting it back failed."""

    file: str
    reason: str
    states: tuple[tuple[str, str], ...]

    @property
    def explained(self) -> str:
        """Why no file holds the reply, and what each file holds now."""
        states = "; ".join(f"`{name}` {state}" for name, state in self.states)
        return (
            f"Writing the files failed at `{self.file}` ({self.reason}), so none was "
            f"changed: {states}."
        )


@value
class FileRef:
    """A file inside the workspace: its path relative to the root (with `/`), its
    real absolute path (a `Path` or a string: kept as a string), and a note when the
    written path was not taken literally."""

    relative: str
    path: str | os.PathLike[str]  # a string once made
    note: str | None = None

    def __post_init__(self) -> None:
        self.__dict__["path"] = os.fspath(self.path)

    @property
    def absolute(self) -> Path:
        """The real absolute path, as a `Path`."""
        from pathlib import Path

        return Path(self.path)


class KnownTexts:
    """The text of each file last read or written, with its bytes, for workspaces
    made one after another (an agent's MCP server edits the same big file call after
    call): a file whose bytes are the same is not decoded and split into lines again.
    A text is taken only for the very bytes it was made from, whoever wrote the file
    meanwhile."""

    def __init__(self, files: int = 16) -> None:
        self._files = files
        self._texts: dict[str, tuple[bytes, Text]] = {}

    def get(self, path: str, data: bytes) -> Text | None:
        known = self._texts.get(path)
        return known[1] if known is not None and known[0] == data else None

    def put(self, path: str, data: bytes, text: Text) -> None:
        self._texts.pop(path, None)
        self._texts[path] = (data, text)
        while len(self._texts) > self._files:
            del self._texts[next(iter(self._texts))]


class Workspace:
    """A workspace root and the rules for reaching files under it."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        files_stay: bool = False,
        known: KnownTexts | None = None,
    ) -> None:
        """`files_stay`: files under the root are made or removed only through this
        workspace while it is used (one `lsp-edit apply`), so a file found once is not
        looked for again until the workspace deletes one. `known`: texts of files
        read or written before, kept by the caller between workspaces."""
        self.folder = os.path.realpath(root)
        self._known = known
        self._listing: FileListing | None = None
        # Paths as written that named an existing file: a reply names the same file
        # block after block, and resolving a path costs a realpath (a stat per folder).
        self._existing: dict[str, FileRef] = {}
        self._files_stay = files_stay

    @property
    def listing(self) -> FileListing:
        """The workspace's files by name, made when first asked for (a path that
        names no file): most replies name files that exist."""
        if self._listing is None:
            from lsp_edit.listing import FileListing

            self._listing = FileListing(self.folder)
        return self._listing

    @cached_property
    def root(self) -> Path:
        """The root, its symlinks resolved, as a `Path` (made once, when first asked
        for: the language server asks at every path it shows)."""
        from pathlib import Path

        return Path(self.folder)

    def locate(self, written: str, *, allow_tail_match: bool = True) -> FileRef | Refused:
        """Turns a path written in a reply into a file inside the workspace.

        A path naming no file whose tail matches exactly one workspace file
        resolves to that file (with a note saying so). A path that does not exist
        and matches no file is still returned: the caller decides whether the
        block may create it.
        """
        known = self._existing.get(written)
        if known is not None and (self._files_stay or os.path.isfile(known.path)):
            return known
        cleaned = written.strip().replace("\\", "/")
        if not cleaned:
            return Refused("file_not_found", "The block names no file.")
        if "\x00" in cleaned:
            return Refused("outside_workspace", f"Path {written!r} is not a valid file name.")
        if len(cleaned) > LONGEST_PATH:
            # Resolving it would cost a system call per folder, each on a longer path.
            return Refused(
                "file_not_found",
                f"`{_shortened(cleaned)}` is not a file name: it is {len(cleaned):,} characters "
                f"long, and no path here is longer than {LONGEST_PATH:,}.",
            )
        try:
            real = os.path.realpath(os.path.join(self.folder, cleaned))
            if not _is_within(real, self.folder):
                return Refused(
                    "outside_workspace",
                    f"Path `{written}` is outside the workspace; only files under the "
                    "workspace root can be edited.",
                )
            mode = _mode_if_any(real)
            if real == self.folder or (mode is not None and stat.S_ISDIR(mode)):
                return Refused("file_not_found", f"`{written}` is a folder, not a file.")
            relative = _relative(real, self.folder)
            if mode is not None and stat.S_ISREG(mode):
                self._existing[written] = FileRef(relative, real)
                return self._existing[written]
            exists = mode is not None
        except OSError as error:  # a name too long for the file system, a loop of links
            return Refused(
                "file_not_found",
                f"`{_shortened(cleaned)}` cannot name a file here: {error.strerror or error}.",
            )
        if exists or not allow_tail_match:
            return FileRef(relative, real)
        from pathlib import Path  # only for a path that names no file

        matches = self._tail_matches(Path(cleaned).as_posix().lstrip("/"))
        if len(matches) == 1:
            found = matches[0]
            return FileRef(
                found,
                os.path.realpath(os.path.join(self.folder, found)),
                note=f"`{written}` does not exist; resolved to `{found}`, the only file ending "
                "with that path.",
            )
        return FileRef(relative, real, note=self._namesakes_note(relative))

    def _namesakes_note(self, relative: str) -> str | None:
        """For a file a block would create: the files of the same name elsewhere, which
        the block may have meant (aider takes such a file; lsp-edit creates the one
        named and says so)."""
        namesakes = self.listing.named(relative.rsplit("/", 1)[-1])
        if not namesakes:
            return None
        shown = ", ".join(f"`{path}`" for path in namesakes[:3])
        more = f" and {len(namesakes) - 3} more" if len(namesakes) > 3 else ""
        verb = "has" if len(namesakes) == 1 else "have"
        return (
            f"`{relative}` does not exist; {shown}{more} {verb} the same name. If the block "
            "meant an existing file, name it by its path from the workspace root."
        )

    def tail_matches(self, written: str) -> list[str]:
        """Workspace files whose path is `written` or ends with `/written`."""
        return self._tail_matches(written.strip().replace("\\", "/").lstrip("/"))

    def similar_files(self, written: str) -> list[str]:
        """The files a path that names none may have meant, for "did you mean": those
        it is the tail of, those one edit away, then those of its name elsewhere."""
        cleaned = written.strip().replace("\\", "/").lstrip("/")
        if not cleaned or len(cleaned) > LONGEST_PATH:
            return []
        listing = self.listing
        found = [*self._tail_matches(cleaned), *listing.near(cleaned)]
        found += listing.named(cleaned.rsplit("/", 1)[-1])
        return [path for path in dict.fromkeys(found) if path != cleaned]

    def read(self, ref: FileRef) -> Text | Refused | None:
        """The file's text, None when it does not exist, or why it cannot be edited."""
        try:
            with open(ref.path, "rb") as stream:
                data = stream.read()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            return Refused("file_not_found", f"`{ref.relative}` is a folder, not a file.")
        except OSError as error:
            return Refused("io_error", f"Cannot read `{ref.relative}`: {error.strerror}.")
        if self._known is None:
            return decode(data, ref.relative)
        known = self._known.get(os.fspath(ref.path), data)
        if known is not None:
            return known
        read = decode(data, ref.relative)
        if isinstance(read, Text):
            self._known.put(os.fspath(ref.path), data, read)
        return read

    def write(self, ref: FileRef, text: Text) -> None:
        """Writes atomically: a temporary file in the same folder, then a rename, so
        an interrupted run never leaves a half-written file. Keeps the mode of an
        existing file; a new file gets the usual mode for the user's umask."""
        temporary = self._stage(ref, text, [])
        try:
            os.replace(temporary, ref.path)
        except BaseException:
            _remove(temporary)
            raise
        self._listed(ref.relative, added=True)

    def delete(self, ref: FileRef) -> None:
        os.unlink(ref.path)
        self._existing.clear()
        self._listed(ref.relative, added=False)

    def write_all(self, writes: Sequence[FileWrite]) -> WriteFailure | None:
        """Writes every file of a reply, or none: each new text goes to a temporary
        file next to its target first, then all are renamed into place, then the
        deletions are made. When a step fails, what was already renamed or deleted
        is put back, and the failure says what each file holds now."""
        modes = {w.ref.relative: _mode_of(w.ref.path) for w in writes}
        created: list[str] = []
        staged: list[tuple[FileWrite, str]] = []
        done: list[FileWrite] = []
        current: FileWrite | None = None
        try:
            for current in (w for w in writes if w.after is not None):
                assert current.after is not None
                staged.append((current, self._stage(current.ref, current.after, created)))
            for current, temporary in staged:
                os.replace(temporary, current.ref.path)
                done.append(current)
            for current in (w for w in writes if w.after is None):
                os.unlink(current.ref.path)
                self._existing.clear()
                done.append(current)
        except OSError as error:
            for write, temporary in staged:
                if write not in done:
                    _remove(temporary, OSError)
            restored = self._put_back(done, modes)
            for folder in reversed(created):
                _remove(folder, OSError, os.rmdir)
            failed = current.ref.relative if current is not None else ""
            states = tuple(
                (w.ref.relative, restored.get(w.ref.relative, "unchanged")) for w in writes
            )
            return WriteFailure(failed, error.strerror or type(error).__name__, states)
        for write in writes:
            self._listed(write.ref.relative, added=write.after is not None)
        return None

    def _listed(self, relative: str, *, added: bool) -> None:
        """The listing told of a file written or removed (a listing not made yet
        lists the files as they are when it is)."""
        if self._listing is None:
            return
        if added:
            self._listing.added(relative)
        else:
            self._listing.removed(relative)

    def _stage(self, ref: FileRef, text: Text, created: list[str]) -> str:
        """Writes `text` to a new temporary file next to `ref` (with the mode the
        file will have) and returns its path; folders it had to make are added to
        `created`, outermost first."""
        target = ref.path
        folder = os.path.dirname(target)
        if not _is_within(os.path.realpath(folder), self.folder):
            raise PermissionError(f"refusing to write outside the workspace: {ref.relative}")
        if not is_folder(folder):  # (most files are written where they were)
            created.extend(_folders_made(folder))
        mode = _mode_of(target)
        handle, temporary = _new_temporary(target)
        data = text.render().encode("utf-8")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            os.chmod(temporary, mode if mode is not None else _default_mode())
        except BaseException:
            _remove(temporary)
            raise
        if self._known is not None:
            self._known.put(os.fspath(target), data, text)
        return temporary

    def _put_back(self, done: Sequence[FileWrite], modes: dict[str, int | None]) -> dict[str, str]:
        """Undoes renames and deletions, last first; says per file how that went."""
        states: dict[str, str] = {}
        for write in reversed(done):
            name = write.ref.relative
            try:
                if write.before is None:
                    os.unlink(write.ref.path)
                else:
                    temporary = self._stage(write.ref, write.before, [])
                    os.replace(temporary, write.ref.path)
                    mode = modes.get(name)
                    if mode is not None:
                        os.chmod(write.ref.path, mode)
                states[name] = "restored"
            except OSError as error:
                states[name] = f"left changed (restoring it failed: {error.strerror or error})"
        return states

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


def _folders_made(folder: str) -> list[str]:
    """Makes `folder` and the folders above it that are missing; returns those it
    made, outermost first."""
    from pathlib import Path  # only when a folder is missing

    made = Path(folder)
    missing = [str(above) for above in (made, *made.parents) if not above.exists()]
    made.mkdir(parents=True, exist_ok=True)
    return missing[::-1]


def _shortened(path: str) -> str:
    """A path quoted in a message, its middle left out when it is long."""
    return path if len(path) <= 80 else f"{path[:38]}…{path[-38:]}"


def _is_within(path: str, root: str) -> bool:
    """Whether `path` is `root` or under it (both real absolute paths)."""
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


def _relative(path: str, root: str) -> str:
    """`path` under `root` (both real absolute paths), relative to it, with `/`."""
    inner = path[len(root) :].lstrip(os.sep)
    return inner if os.sep == "/" else inner.replace(os.sep, "/")


# The errors that mean a path names nothing, as `pathlib` reads them: others (a name
# too long for the file system) are raised.
_NOTHING_THERE = frozenset({ENOENT, ENOTDIR, EBADF, ELOOP})


def _mode_if_any(path: str) -> int | None:
    """The path's `st_mode`, or None when it names nothing (one `stat` answers what
    `Path.is_dir`, `is_file` and `exists` would, raising as they do)."""
    try:
        return os.stat(path).st_mode
    except OSError as error:
        if error.errno in _NOTHING_THERE:
            return None
        raise
    except ValueError:
        return None


def is_folder(path: str) -> bool:
    """Whether `path` is a folder (`Path.is_dir`, raising as it does)."""
    mode = _mode_if_any(path)
    return mode is not None and stat.S_ISDIR(mode)


def _mode_of(path: str | os.PathLike[str]) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


def _remove(
    path: str,
    ignored: type[OSError] = FileNotFoundError,
    remove: Callable[[str], None] = os.unlink,
) -> None:
    """Removes a file (or, `remove`, a folder) when it is still there (or, `ignored`,
    whatever stops it): only when a write failed."""
    import contextlib  # imported by the failure alone: it costs every start

    with contextlib.suppress(ignored):
        remove(path)


# Numbers the temporary files this process makes, so their names never repeat.
_TEMPORARIES = itertools.count()


def _new_temporary(target: str | os.PathLike[str]) -> tuple[int, str]:
    """A new file next to `target` (the rename that follows stays on one file system),
    open for writing and readable by the user alone: its handle and path. It is
    created exclusively, so it is never a file or link that was already there. (What
    `tempfile.mkstemp` does, without importing `tempfile`, which imports shutil, random,
    bz2 and lzma at every `lsp-edit apply`.)"""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        folder, name = os.path.split(target)
        path = f"{folder}{os.sep}.{name}.{os.getpid()}.{next(_TEMPORARIES)}.tmp"
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
