"""The files of a workspace that a path written by its tail may name
(`pkg/util.py` for `src/pkg/util.py`).

In a git work tree these are the files git tracks or would track
(`git ls-files`: what `.gitignore` ignores is never a candidate); elsewhere, what
the `.gitignore` files along the way let through (read with `pathspec`). The
files are listed once and indexed by name, so a lookup costs what its few
candidates cost; the language server keeps the listing current from the editor's
file events instead of listing again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import cached_property

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:  # imported where first needed: they cost start-up time
    from pathlib import Path

    import pathspec


# Version control folders: never part of a workspace's files.
_VCS_DIRS = frozenset({".git", ".hg", ".svn"})
_GIT_TIMEOUT = 30
# How long a "did you mean" may look through a workspace's names, in seconds.
_NEAR_BUDGET = 0.05


class FileListing:
    """One workspace root's files, by name."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._root = root
        self._by_name: dict[str, set[str]] | None = None
        self._git: bool | None = None

    @cached_property
    def root(self) -> Path:
        """The root as a `Path`: made once, when the files are first looked up, so
        that `lsp-edit apply` imports `pathlib` only for a path naming no file."""
        from pathlib import Path

        return Path(self._root)

    def matches(self, tail: str) -> list[str]:
        """The files whose path is `tail` or ends with `/tail`, sorted (only those
        that exist: git still lists a tracked file deleted since)."""
        if not tail or tail.startswith("../") or "/../" in tail:
            return []
        by_name = self._index()
        suffix = "/" + tail
        found = by_name.get(tail.rsplit("/", 1)[-1], ())
        return sorted(
            path
            for path in found
            if (path == tail or path.endswith(suffix)) and _is_file(self.root / path)
        )

    def near(self, written: str, *, limit: int = 5) -> list[str]:
        """The files one edit away from `written` (a character more, left out or changed,
        or two swapped), each compared by as many trailing folders as `written` has
        (`shop/cartt.py` is near `src/shop/cart.py`), sorted; at most `limit`. A big
        workspace is searched for `_NEAR_BUDGET` seconds at most."""
        import time

        name = written.rsplit("/", 1)[-1]
        depth = written.count("/") + 1
        deadline = time.monotonic() + _NEAR_BUDGET
        found: list[str] = []
        for count, (other, paths) in enumerate(self._index().items()):
            if count % 4096 == 0 and time.monotonic() > deadline:
                break
            if abs(len(other) - len(name)) > 1 or not _within_one_edit(other, name):
                continue
            found.extend(
                path
                for path in paths
                if _within_one_edit("/".join(path.split("/")[-depth:]), written) and path != written
            )
        return sorted(path for path in found if _is_file(self.root / path))[:limit]

    def named(self, name: str) -> list[str]:
        """The files called `name`, in any folder, sorted."""
        return sorted(path for path in self._index().get(name, ()) if _is_file(self.root / path))

    def added(self, relative: str) -> None:
        """A file was created (or written): it is a candidate unless ignored."""
        if self._by_name is None or self._ignored(relative):
            return
        self._by_name.setdefault(relative.rsplit("/", 1)[-1], set()).add(relative)

    def removed(self, relative: str) -> None:
        if self._by_name is not None:
            self._by_name.get(relative.rsplit("/", 1)[-1], set()).discard(relative)

    def forget(self) -> None:
        """Lists again at the next lookup (many files changed at once)."""
        self._by_name = None

    def _index(self) -> dict[str, set[str]]:
        if self._by_name is None:
            by_name: dict[str, set[str]] = {}
            for path in self._list():
                by_name.setdefault(path.rsplit("/", 1)[-1], set()).add(path)
            self._by_name = by_name
        return self._by_name

    def _list(self) -> list[str]:
        listed = self._git_files()
        self._git = listed is not None
        return listed if listed is not None else list(self._walk())

    def _git_files(self) -> list[str] | None:
        """`git ls-files` under the root: tracked and untracked-but-not-ignored files.
        None outside a git work tree."""
        return _git(self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")

    def _walk(self) -> Iterator[str]:
        """Every file under the root that the `.gitignore` files along the way do
        not ignore (the deepest file with a rule for a path decides)."""
        from pathlib import Path

        specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []
        for folder, dirs, files in os.walk(self.root):
            relative = Path(folder).relative_to(self.root).as_posix()
            base = "" if relative == "." else relative + "/"
            specs = [(prefix, spec) for prefix, spec in specs if base.startswith(prefix)]
            own = _gitignore(Path(folder))
            if own is not None:
                specs.append((base, own))
            dirs[:] = sorted(
                d for d in dirs if d not in _VCS_DIRS and not _ignored(specs, base + d + "/")
            )
            for name in sorted(files):
                if name != ".gitignore" and not _ignored(specs, base + name):
                    yield base + name

    def _ignored(self, relative: str) -> bool:
        parts = relative.split("/")
        if any(part in _VCS_DIRS for part in parts):
            return True
        if self._git:
            return _git(self.root, "check-ignore", "-q", relative, check=False) is not None
        specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []
        for depth in range(len(parts)):
            base = "/".join(parts[:depth]) + ("/" if depth else "")
            own = _gitignore(self.root / base)
            if own is not None:
                specs.append((base, own))
            inner = base + parts[depth] + ("/" if depth < len(parts) - 1 else "")
            if _ignored(specs, inner):
                return True
        return False


def _ignored(specs: list[tuple[str, pathspec.GitIgnoreSpec]], path: str) -> bool:
    for prefix, spec in reversed(specs):
        verdict = spec.check_file(path[len(prefix) :]).include
        if verdict is not None:
            return verdict
    return False


def _within_one_edit(a: str, b: str) -> bool:
    """Whether `a` becomes `b` by at most one character inserted, removed or changed,
    or two neighbours swapped."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    if len(a) == len(b):
        rest = start + 1
        swapped = rest < len(a) and a[start] == b[rest] and a[rest] == b[start]
        return a[rest:] == b[rest:] or (swapped and a[rest + 1 :] == b[rest + 1 :])
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[start + 1 :] == shorter[start:]


def _is_file(path: Path) -> bool:
    """Whether `path` is a file one may read (one in a folder the user may not enter
    is not, rather than an error)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _gitignore(folder: Path) -> pathspec.GitIgnoreSpec | None:
    """The rules of the folder's `.gitignore`; None when it has none or it cannot be
    read (a folder of that name, a link to nowhere, no permission)."""
    try:
        text = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    import pathspec
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    patterns = []
    for line in text.splitlines():
        try:
            patterns.append(GitIgnoreSpecPattern(line))
        except ValueError:
            continue  # a pattern git cannot read either (`!` alone): git skips it too
    return pathspec.GitIgnoreSpec(patterns)


def _git(root: Path, *args: str, check: bool = True) -> list[str] | None:
    """A git command's NUL-separated output; None when git is missing, `root` is
    not in a work tree, or (with `check`) the command fails."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if check and done.returncode != 0:
        return None
    if not check:
        # `check-ignore -q` answers by its exit status alone: 0 means ignored.
        return [] if done.returncode == 0 else None
    return [p for p in done.stdout.decode("utf-8", "replace").split("\0") if p]
