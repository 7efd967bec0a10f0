"""The bridge between the editor's `lsp-edit serve` and `lsp-edit mcp`: published while
the editor's server runs and withdrawn when it stops, and never used when it is not
the user's alone, stale, or not clear (two editors on one folder)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_edit import bridge
from tests.mcp.conftest import ENV, EXAMPLE, agent, published

pytestmark = pytest.mark.timeout(90)

TOTAL = "def total(self) -> float:\n    return 0.0\n"
WRITTEN = "File 'shop/cart.py' has been updated. It now has 29 lines.\n\nAll changes were applied."


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


async def start_editor(project: Path) -> asyncio.subprocess.Process:
    """A real `lsp-edit serve` for `project`, initialized, its bridge published."""
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "lsp_edit",
        "serve",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
        env=ENV,
    )
    assert server.stdin is not None
    initialize = {"capabilities": {}, "rootUri": project.as_uri()}
    server.stdin.write(
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize})
    )
    server.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    await server.stdin.drain()
    await published(project)
    return server


def files_of(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if not name.startswith("."))


def replace_total() -> dict[str, object]:
    return {"path": "shop/cart.py", "ast_path": "Cart-total", "content": TOTAL}


async def test_an_editor_that_exits_withdraws_its_bridge_and_edits_go_to_disk(
    project: Path,
) -> None:
    server = await start_editor(project)
    publication = await published(project)
    assert Path(publication.socket).exists()
    assert server.stdin is not None
    server.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    server.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    await server.stdin.drain()
    await asyncio.wait_for(server.wait(), 30)
    assert not Path(publication.file).exists()
    assert not Path(publication.socket).exists()
    async with agent(project) as tools:
        assert await tools.call("replace_symbol", **replace_total()) == (WRITTEN, False)
    assert "return 0.0" in (project / "shop" / "cart.py").read_text()


async def test_the_file_of_an_editor_that_died_is_removed_and_the_edit_goes_to_disk(
    project: Path,
) -> None:
    server = await start_editor(project)
    publication = await published(project)
    server.send_signal(signal.SIGKILL)
    await server.wait()
    assert Path(publication.file).exists()  # nobody removed it
    async with agent(project) as tools:
        assert await tools.call("replace_symbol", **replace_total()) == (
            f"{WRITTEN}\n\nRemoved `{publication.file}`: the lsp-edit server it names (pid "
            f"{server.pid}) no longer runs.",
            False,
        )
    assert not Path(publication.file).exists()
    assert not Path(publication.socket).exists()


async def test_the_file_of_an_editor_that_died_is_removed_with_review_only(
    project: Path,
) -> None:
    server = await start_editor(project)
    publication = await published(project)
    server.send_signal(signal.SIGKILL)
    await server.wait()
    async with agent(project, "--review-only") as tools:
        assert await tools.call("replace_symbol", **replace_total()) == (
            f"Nothing was written: no editor runs lsp-edit for `{project.resolve()}`, and this "
            "server only proposes edits for review (--review-only). Ask the user to open the "
            "folder in their editor with lsp-edit, then call again.\n\nRemoved "
            f"`{publication.file}`: the lsp-edit server it names (pid {server.pid}) no longer "
            "runs.",
            True,
        )
    assert (project / "shop" / "cart.py").read_text() == (EXAMPLE / "shop" / "cart.py").read_text()


async def test_an_editor_that_dies_while_the_agent_waits_ends_the_wait_with_an_error(
    project: Path,
) -> None:
    server = await start_editor(project)
    async with agent(project, "--wait") as tools:
        call = asyncio.ensure_future(tools.call("replace_symbol", **replace_total()))
        for _ in range(400):  # the change is pending once the editor reviews it
            if (await bridge.ask(await published(project), {"request": "status"})).get("changes"):
                break
            await asyncio.sleep(0.05)
        server.send_signal(signal.SIGKILL)
        await server.wait()
        assert await asyncio.wait_for(call, 30) == (
            f"The editor's lsp-edit server (pid {server.pid}) stopped answering (the editor's "
            "lsp-edit server closed the connection). What it received may be pending there "
            "while it runs; check with `review_status`, or `read` the file, before you send "
            "the edit again.",
            True,
        )
    assert (project / "shop" / "cart.py").read_text() == (EXAMPLE / "shop" / "cart.py").read_text()


# --- files written here, as a second editor, a careless user or another user would -----------


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A runtime folder of this test's own (this process looks there too), with its
    bridge folder made as the editor's server makes it."""
    with tempfile.TemporaryDirectory(prefix="le-") as made:
        folder = Path(made) / "lsp-edit"
        folder.mkdir(mode=0o700)
        monkeypatch.setenv("XDG_RUNTIME_DIR", made)
        yield Path(made)


def publish(runtime: Path, project: Path, name: str, pid: int, socket_path: Path) -> Path:
    """A published file as `lsp-edit serve` writes it."""
    key = bridge._key(str(project))
    file = runtime / "lsp-edit" / f"{key}-{name}.json"
    content = {"folder": str(project.resolve()), "socket": str(socket_path), "pid": pid}
    file.write_text(json.dumps({**content, "token": "t"}))
    file.chmod(0o600)
    return file


def listening(path: Path) -> socket.socket:
    bound = socket.socket(socket.AF_UNIX)
    bound.bind(str(path))
    bound.listen()
    os.chmod(path, 0o600)
    return bound


async def test_two_editors_on_the_same_folder_are_reported_not_chosen(
    project: Path, runtime: Path
) -> None:
    sockets = [runtime / "lsp-edit" / "a.sock", runtime / "lsp-edit" / "b.sock"]
    bound = [listening(path) for path in sockets]
    first = publish(runtime, project, "1", os.getpid(), sockets[0])
    second = publish(runtime, project, "2", os.getppid(), sockets[1])
    try:
        async with agent(project, runtime=runtime) as tools:
            assert await tools.call("replace_symbol", **replace_total()) == (
                f"Nothing was written: 2 editors run lsp-edit for `{project.resolve()}` (pid "
                f"{os.getpid()} (`{first}`), pid {os.getppid()} (`{second}`)), and lsp-edit does "
                "not guess which one the user reviews in. Ask the user to close all but one.",
                True,
            )
    finally:
        for each in bound:
            each.close()
    assert (project / "shop" / "cart.py").read_text() == (EXAMPLE / "shop" / "cart.py").read_text()


async def test_a_published_file_others_can_read_is_refused(project: Path, runtime: Path) -> None:
    path = runtime / "lsp-edit" / "a.sock"
    bound = listening(path)
    file = publish(runtime, project, "1", os.getpid(), path)
    file.chmod(0o644)
    try:
        async with agent(project, runtime=runtime) as tools:
            assert await tools.call("replace_symbol", **replace_total()) == (
                "Nothing was written: the link to the editor is not safe to use: the file "
                f"`{file}` can be reached by other users (mode 0644); only its owner may "
                "(`chmod 600`).",
                True,
            )
    finally:
        bound.close()
    assert (project / "shop" / "cart.py").read_text() == (EXAMPLE / "shop" / "cart.py").read_text()


def test_a_published_file_that_is_a_link_is_refused(project: Path, runtime: Path) -> None:
    real = runtime / "elsewhere.json"
    real.write_text("{}")
    real.chmod(0o600)
    key = bridge._key(str(project))
    link = runtime / "lsp-edit" / f"{key}-1.json"
    link.symlink_to(real)
    found = bridge.editors_for(str(project.resolve() / "shop" / "cart.py"))
    assert isinstance(found, bridge.Refusal)
    assert found.message == (f"`{link}` is not a file (it is a link, and links are never followed)")


def test_a_folder_file_or_socket_of_another_user_is_refused(
    runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = runtime / "lsp-edit"
    path = folder / "a.sock"
    bound = listening(path)
    try:
        owner = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: owner + 1)  # as another user sees them
        assert bridge.folder_problem(str(folder)) == (
            f"the folder `{folder}` belongs to another user (uid {owner})"
        )
        assert bridge.entry_problem(str(path), "socket") == (
            f"the socket `{path}` belongs to another user (uid {owner})"
        )
    finally:
        bound.close()


def test_a_socket_others_can_reach_is_refused(runtime: Path) -> None:
    path = runtime / "lsp-edit" / "a.sock"
    bound = listening(path)
    try:
        os.chmod(path, 0o666)
        assert bridge.entry_problem(str(path), "socket") == (
            f"the socket `{path}` can be reached by other users (mode 0666); only its owner "
            "may (`chmod 600`)"
        )
        assert bridge.entry_problem(str(path), "file") == f"`{path}` is not a file"
    finally:
        bound.close()


def test_tokens_are_compared_whole() -> None:
    assert bridge.tokens_match("a-token", "a-token")
    assert not bridge.tokens_match("a-toke", "a-token")
    assert not bridge.tokens_match(None, "a-token")
    assert not bridge.tokens_match(["a-token"], "a-token")


async def test_the_editor_makes_its_bridge_folder_private_and_refuses_one_others_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with tempfile.TemporaryDirectory(prefix="le-") as made:
        monkeypatch.setenv("XDG_RUNTIME_DIR", made)

        async def handle(request: dict[str, object]) -> dict[str, object]:
            return {"echo": request.get("request")}

        door = await bridge.open_door(handle)
        assert isinstance(door, bridge.Door)
        folder = Path(made) / "lsp-edit"
        assert oct(folder.stat().st_mode & 0o777) == oct(0o700)
        assert oct(Path(door.socket_path).stat().st_mode & 0o777) == oct(0o600)
        door.publish([made])
        (file,) = door.published
        assert oct(Path(file).stat().st_mode & 0o777) == oct(0o600)
        publication = bridge.editors_for(os.path.realpath(made))
        assert isinstance(publication, bridge.Editors)
        assert await bridge.ask(publication.found[0], {"request": "ping"}) == {"echo": "ping"}
        forged = bridge.Publication(file, made, door.socket_path, os.getpid(), "forged")
        assert await bridge.ask(forged, {"request": "ping"}) == {
            "error": "the token is not this editor's"
        }
        door.publish([])  # the editor closed its last workspace folder
        assert door.published == []
        assert bridge.editors_for(os.path.realpath(made)) == bridge.Editors(())
        door.close()
        assert os.listdir(folder) == []
        folder.chmod(0o755)
        assert await bridge.open_door(handle) == (
            f"the folder `{folder}` can be reached by other users (mode 0755); only its owner "
            "may (`chmod 700`)"
        )


async def test_an_editor_starting_removes_what_killed_editors_left_behind(
    runtime: Path, project: Path
) -> None:
    dead = _pid_of_a_process_that_ended()
    folder = runtime / "lsp-edit"
    left = [
        publish(runtime, project, str(dead), dead, folder / f"{dead}-0a1b2c3d.sock"),
        folder / f"{dead}-0a1b2c3d.sock",
    ]
    left[1].write_text("")
    alive = publish(runtime, project, str(os.getpid()), os.getpid(), folder / "x.sock")
    notes = folder / "README"  # (not a server's: left alone)
    notes.write_text("")

    async def handle(request: dict[str, object]) -> dict[str, object]:
        return {}

    door = await bridge.open_door(handle)
    assert isinstance(door, bridge.Door)
    try:
        assert sorted(os.listdir(folder)) == sorted(
            ["README", alive.name, Path(door.socket_path).name]
        )
    finally:
        door.close()


def _pid_of_a_process_that_ended() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


async def test_a_request_the_editor_fails_on_is_answered_with_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with tempfile.TemporaryDirectory(prefix="le-") as made:
        monkeypatch.setenv("XDG_RUNTIME_DIR", made)

        async def broken(request: dict[str, object]) -> dict[str, object]:
            raise KeyError("a bug")

        door = await bridge.open_door(broken)
        assert isinstance(door, bridge.Door)
        door.publish([made])
        (file,) = door.published
        publication = bridge.Publication(file, made, door.socket_path, os.getpid(), door.token)
        try:
            assert await bridge.ask(publication, {"request": "ping"}) == {
                "error": "the editor's lsp-edit server failed on this request: KeyError('a bug')"
            }
            # and it goes on answering
            assert "error" in await bridge.ask(publication, {"request": "ping"})
        finally:
            door.close()
