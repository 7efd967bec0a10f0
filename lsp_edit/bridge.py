"""The private link between the editor's `lsp-edit serve` and `lsp-edit mcp`, with
every check that keeps it private (docs/mcp.md, "The bridge").

The editor's server listens on a Unix domain socket in a folder only the user can
enter: `$XDG_RUNTIME_DIR/lsp-edit`, or `lsp-edit-<uid>` under the temporary folder,
made with mode 0700. For each of its workspace folders it publishes a small file
there, `<folder key>-<pid>.json` (mode 0600), holding the folder, the socket's path,
its pid and a random token. `lsp-edit mcp` looks for the file of a folder that holds
the file an agent edits, and refuses a folder, file or socket that another user owns
or can reach; it cleans up the file of a server that no longer runs, and reports two
servers on the same folder rather than choosing one. Every request carries the token,
which the server compares in constant time; the server also refuses a connection
from another user (its peer credentials, where the system gives them). No TCP port
is opened. Windows (named pipes) is not supported: there `SUPPORTED` is False.

The messages are JSON objects, one per line: a request `{"token", "request", ...}`,
answered by one object, `{"error": "..."}` when it failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import socket
import stat
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from lsp_edit.values import value

log = logging.getLogger(__name__)

SUPPORTED = sys.platform != "win32" and hasattr(socket, "AF_UNIX")
# The longest message either side reads: a reply of many megabytes is one request.
LONGEST_MESSAGE = 1 << 28
_PRIVATE = 0o077  # the mode bits of the group and of others: none may be set

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def folder() -> str:
    """Where sockets and published files live: `$XDG_RUNTIME_DIR/lsp-edit` (the
    user's own runtime folder), else `lsp-edit-<uid>` in the temporary folder."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        return os.path.join(runtime, "lsp-edit")
    import tempfile

    return os.path.join(tempfile.gettempdir(), f"lsp-edit-{os.getuid()}")


# --- the checks ---------------------------------------------------------------------------


def folder_problem(path: str) -> str | None:
    """Why `path` is not a folder only this user can reach (None: it is)."""
    try:
        found = os.lstat(path)
    except OSError as error:
        return f"the folder `{path}` cannot be read: {error.strerror or error}"
    if not stat.S_ISDIR(found.st_mode):
        return f"`{path}` is not a folder{_if_link(found)}"
    return _owner_problem(path, "folder", found)


def entry_problem(path: str, kind: str) -> str | None:
    """Why a published file (`kind` "file") or a socket ("socket") is not this
    user's alone (None: it is)."""
    try:
        found = os.lstat(path)
    except OSError as error:
        return f"the {kind} `{path}` cannot be read: {error.strerror or error}"
    wanted = stat.S_ISSOCK if kind == "socket" else stat.S_ISREG
    if not wanted(found.st_mode):
        return f"`{path}` is not a {kind}{_if_link(found)}"
    return _owner_problem(path, kind, found)


def _if_link(found: os.stat_result) -> str:
    return " (it is a link, and links are never followed)" if stat.S_ISLNK(found.st_mode) else ""


def _owner_problem(path: str, kind: str, found: os.stat_result) -> str | None:
    if found.st_uid != os.getuid():
        return f"the {kind} `{path}` belongs to another user (uid {found.st_uid})"
    mode = stat.S_IMODE(found.st_mode)
    if mode & _PRIVATE:
        return (
            f"the {kind} `{path}` can be reached by other users (mode {mode:04o}); "
            f"only its owner may (`chmod {'700' if kind == 'folder' else '600'}`)"
        )
    return None


def tokens_match(given: object, token: str) -> bool:
    """Whether a request's token is the server's, compared in constant time."""
    return isinstance(given, str) and hmac.compare_digest(given.encode(), token.encode())


# --- the editor's side: listening and publishing ---------------------------------------------


def _key(workspace_folder: str) -> str:
    """The name published files of a folder start with (its real path, hashed)."""
    return _real_key(os.path.realpath(workspace_folder))


def _real_key(real: str) -> str:
    return hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:24]


class Door:
    """The editor's end: a socket answering requests, and the files that publish it."""

    def __init__(self, where: str, server: asyncio.AbstractServer, path: str, token: str) -> None:
        self.folder = where
        self.socket_path = path
        self.token = token
        self._server = server
        self._published: dict[str, str] = {}  # workspace folder -> its published file

    def publish(self, workspace_folders: Sequence[str]) -> None:
        """Publishes the socket for these folders (and withdraws it for others)."""
        wanted = {os.path.realpath(f) for f in workspace_folders}
        for gone in set(self._published) - wanted:
            _remove(self._published.pop(gone))
        for workspace_folder in sorted(wanted - set(self._published)):
            name = os.path.join(self.folder, f"{_key(workspace_folder)}-{os.getpid()}.json")
            content = {
                "folder": workspace_folder,
                "socket": self.socket_path,
                "pid": os.getpid(),
                "token": self.token,
            }
            try:
                _write_private(name, json.dumps(content))
            except OSError as error:
                log.warning("cannot publish the agent bridge for %s: %s", workspace_folder, error)
                continue
            self._published[workspace_folder] = name

    @property
    def published(self) -> list[str]:
        return sorted(self._published.values())

    def close(self) -> None:
        """Stops listening and removes the socket and every published file."""
        self._server.close()
        for name in self._published.values():
            _remove(name)
        self._published.clear()
        _remove(self.socket_path)


async def open_door(handle: Handler) -> Door | str:
    """Listens on a new socket in the private folder; every request whose token is
    right goes to `handle`. A string says why the bridge cannot open."""
    if not SUPPORTED:
        return "the agent bridge needs Unix domain sockets, which this system lacks"
    where = folder()
    try:
        os.mkdir(where, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        return f"cannot make the folder `{where}`: {error.strerror or error}"
    problem = folder_problem(where)
    if problem is not None:
        return problem
    _sweep(where)
    token = secrets.token_urlsafe(32)
    path = os.path.join(where, f"{os.getpid()}-{secrets.token_hex(4)}.sock")

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _answer(reader, writer, token, handle)

    try:
        server = await asyncio.start_unix_server(connected, path, limit=LONGEST_MESSAGE)
        # Made in a folder only the user can enter; its own mode says so too.
        os.chmod(path, 0o600)
    except OSError as error:
        return f"cannot listen on `{path}`: {error.strerror or error}"
    return Door(where, server, path, token)


async def _answer(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, token: str, handle: Handler
) -> None:
    """One connection: one request, one answer. The request is dropped when its
    client goes away first (an agent that stopped waiting)."""
    try:
        if not _same_user(writer):
            return
        line = await reader.readline()
        request = _load(line)
        if request is None:
            answer: dict[str, Any] = {"error": "the request is not a JSON object on one line"}
        elif not tokens_match(request.get("token"), token):
            log.warning("refused an agent bridge request with a wrong token")
            answer = {"error": "the token is not this editor's"}
        else:
            handling = asyncio.ensure_future(handle(request))
            gone = asyncio.ensure_future(reader.read(1))
            await asyncio.wait((handling, gone), return_when=asyncio.FIRST_COMPLETED)
            if not handling.done():
                handling.cancel()
                return
            gone.cancel()
            answer = _result_of(handling)
        writer.write(json.dumps(answer).encode() + b"\n")
        await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as error:
        log.info("agent bridge connection ended: %s", error)
    finally:
        writer.close()


def _result_of(handling: asyncio.Future[dict[str, Any]]) -> dict[str, Any]:
    """The handler's answer; a bug in it is an error answer, and the server goes on."""
    try:
        return handling.result()
    except Exception as error:
        log.exception("an agent bridge request failed")
        return {"error": f"the editor's lsp-edit server failed on this request: {error!r}"}


def _same_user(writer: asyncio.StreamWriter) -> bool:
    """Whether the peer runs as this user, where the system says who it is."""
    peer = writer.get_extra_info("socket")
    option = getattr(socket, "SO_PEERCRED", None)
    if peer is None or option is None:
        return True
    import struct

    credentials = peer.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", credentials)
    if uid != os.getuid():
        log.warning("refused an agent bridge connection from uid %d", uid)
        return False
    return True


# --- the agent's side: finding the editor and asking it ----------------------------------------


@value
class Publication:
    """An editor's server, as its published file names it."""

    file: str
    folder: str
    socket: str
    pid: int
    token: str


@value
class Editors:
    """What the published files say about a path: the editor servers whose folder
    holds it (innermost folder first), and a note per stale file removed."""

    found: tuple[Publication, ...]
    notes: tuple[str, ...] = ()


@value
class Refusal:
    """The bridge is not safe (or not clear) to use: nothing is sent, and why."""

    message: str


def editors_for(path: str) -> Editors | Refusal:
    """The editor servers with a workspace folder holding `path` (a real absolute
    path): those of its innermost such folder. A file or folder that is not the
    user's alone is refused; the file of a server that no longer runs is removed."""
    if not SUPPORTED:
        return Editors(())
    where = folder()
    try:
        names = os.listdir(where)
    except FileNotFoundError:
        return Editors(())
    except OSError as error:
        return Refusal(f"cannot read the editor bridge folder `{where}`: {error.strerror}")
    by_key: dict[str, list[str]] = {}
    for name in names:
        if name.endswith(".json"):
            by_key.setdefault(name.rpartition("-")[0], []).append(name)
    if not by_key:
        return Editors(())  # (no editor runs: nothing is read from the folder)
    problem = folder_problem(where)
    if problem is not None:
        return Refusal(problem)
    notes: list[str] = []
    for holder in _folders_holding(path):  # (real paths: `path` is one)
        published = by_key.get(_real_key(holder))
        if not published:
            continue
        live: list[Publication] = []
        for name in sorted(published):
            read = _read_publication(os.path.join(where, name))
            if isinstance(read, Refusal):
                return read
            if read is None or read.folder != holder:
                continue  # (another folder whose key is the same, or written meanwhile)
            if _running(read):
                live.append(read)
            else:
                withdraw(read)
                notes.append(
                    f"Removed `{read.file}`: the lsp-edit server it names (pid {read.pid}) "
                    "no longer runs."
                )
        if live:
            return Editors(tuple(live), tuple(notes))
    return Editors((), tuple(notes))


def _folders_holding(path: str) -> list[str]:
    """`path` and every folder above it, innermost first."""
    found = [path]
    while True:
        above = os.path.dirname(found[-1])
        if above == found[-1]:
            return found
        found.append(above)


def _read_publication(name: str) -> Publication | Refusal | None:
    problem = entry_problem(name, "file")
    if problem is not None:
        return Refusal(problem)
    try:
        with open(name, encoding="utf-8") as stream:
            content = _load(stream.read().encode())
    except FileNotFoundError:
        return None  # its server stopped meanwhile
    except OSError as error:
        return Refusal(f"cannot read `{name}`: {error.strerror or error}")
    fields = content or {}
    where, path, pid, token = (fields.get(k) for k in ("folder", "socket", "pid", "token"))
    if not (
        isinstance(where, str)
        and isinstance(path, str)
        and isinstance(pid, int)
        and isinstance(token, str)
    ):
        return Refusal(f"`{name}` is not a file lsp-edit published; remove it.")
    if os.path.dirname(path) != os.path.dirname(name):
        return Refusal(f"`{name}` names a socket outside `{os.path.dirname(name)}`; remove it.")
    return Publication(name, where, path, pid, token)


def _running(publication: Publication) -> bool:
    """Whether the server a file names still runs: its process, and its socket (which
    decides when a process of another user now holds the pid)."""
    return _alive(publication.pid) and os.path.exists(publication.socket)


def _sweep(where: str) -> None:
    """Removes what servers that no longer run left in the folder (killed before
    they could): their sockets, `<pid>-<hex>.sock`, and published files,
    `<key>-<pid>.json`. An agent removes those of the folder it edits; these are
    the others'."""
    with contextlib.suppress(OSError):
        for name in os.listdir(where):
            pid = _pid_in(name)
            if pid is not None and not _alive(pid):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(where, name))


def _pid_in(name: str) -> int | None:
    if name.endswith(".sock"):
        number = name.partition("-")[0]
    elif name.endswith(".json"):
        number = name[: -len(".json")].rpartition("-")[2]
    else:
        return None
    return int(number) if number.isdigit() and number.isascii() else None


def _alive(pid: int) -> bool:
    """Whether a process holds `pid` (of this user or another)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # (another user's process, or not a pid at all: left alone)
    return True


def withdraw(publication: Publication) -> None:
    """Removes the file (and socket) of a server that no longer answers."""
    _remove(publication.file)
    if not any(
        name.endswith(".json")
        and _read_socket(os.path.join(os.path.dirname(publication.file), name))
        == publication.socket
        for name in os.listdir(os.path.dirname(publication.file))
    ):
        _remove(publication.socket)


def _read_socket(name: str) -> str | None:
    with contextlib.suppress(OSError, ValueError):
        with open(name, encoding="utf-8") as stream:
            content = json.loads(stream.read())
        found = content.get("socket") if isinstance(content, dict) else None
        return found if isinstance(found, str) else None
    return None


class Unreachable(Exception):
    """The server a file names does not answer on its socket: it is gone."""


async def ask(
    publication: Publication, request: dict[str, Any], timeout: float | None = None
) -> dict[str, Any]:
    """Sends one request to an editor's server and returns its answer (`{"error"}`
    when it refused it). Raises `Unreachable` when the server is not there, and
    `OSError` or `TimeoutError` when the exchange breaks down."""
    problem = entry_problem(publication.socket, "socket")
    if problem is not None:
        if not os.path.exists(publication.socket):
            raise Unreachable(problem)
        return {"error": f"refused to connect: {problem}"}
    try:
        reader, writer = await asyncio.open_unix_connection(
            publication.socket, limit=LONGEST_MESSAGE
        )
    except (ConnectionRefusedError, FileNotFoundError) as error:
        raise Unreachable(str(error)) from error
    try:
        message = {**request, "token": publication.token}
        writer.write(json.dumps(message).encode() + b"\n")
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), timeout)
    finally:
        writer.close()
    answer = _load(line)
    if answer is None:
        raise ConnectionError("the editor's lsp-edit server closed the connection")
    return answer


# --- files --------------------------------------------------------------------------------------


def _load(line: bytes) -> dict[str, Any] | None:
    try:
        loaded = json.loads(line)
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


def _write_private(name: str, content: str) -> None:
    """Writes a file only the user can read: a new temporary file (never one that was
    there), then a rename."""
    temporary = f"{name}.{secrets.token_hex(4)}.tmp"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(content)
        os.replace(temporary, name)
    except BaseException:
        _remove(temporary)
        raise


def _remove(name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name)
