"""Edits from agents: what `lsp-edit mcp` sends over the bridge (lsp_edit/bridge.py)
becomes a proposal in this editor, as `lspEdit.propose` makes one: pending changes of
a session of their own, with their diagnostics, lenses and code actions; the user is
told (`window/showMessage`) and shown the first change (`window/showDocument`, where
the client supports it), once per burst of an agent's calls. The agent may then
wait for the user's decisions.

Requests (one JSON object each, see docs/mcp.md):

    propose  {tool, arguments, root, mode, agent?}  -> {session, changes, summary}
    wait     {ids, timeout}       -> {changes, summary, decided}: once every change
                                     is decided (applied, rejected, stale, failed),
                                     or at the timeout
    status   {ids?}               -> {changes, summary}
    read     {path}               -> {text}: the file as the editor has it
    ping     {}                   -> {pid, folders}

Paths in a proposal are relative to the agent's `root`, and must be in one of the
editor's workspace folders too.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_edit import bridge
from lsp_edit.blocks.tool_calls import BadCall, edit_call
from lsp_edit.resolve.model import Refused
from lsp_edit.server import render
from lsp_edit.server.editor import Editor
from lsp_edit.server.files import EditorFiles
from lsp_edit.server.settings import MODES
from lsp_edit.server.store import PendingChange
from lsp_edit.symbols import SymbolIndex
from lsp_edit.text import Text
from lsp_edit.workspace import FileRef, Workspace

log = logging.getLogger(__name__)


# An agent's burst of calls ends after this many seconds without one, and is
# announced at the latest this many seconds after it began.
_BURST_PAUSE = 0.3
_BURST_LONGEST = 3.0


class BadRequest(Exception):
    """A request that is not what the bridge sends."""


class Agents:
    """The editor's end of the bridge: it listens once the client is initialized,
    publishes the workspace folders, and stops on shutdown."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.door: bridge.Door | None = None
        self._showing: set[asyncio.Future[None]] = set()  # kept until shown
        # Each agent's burst of calls under way: when it began, the announcement due
        # when it pauses, and the changes it proposed so far.
        self._bursts: dict[str, tuple[float, asyncio.TimerHandle, list[PendingChange]]] = {}
        # Kept between proposals: an agent edits the same files call after call, and
        # each new text of a file is then reparsed around the edit, not whole.
        self.symbols = SymbolIndex()

    async def open(self) -> None:
        opened = await bridge.open_door(self.answer)
        if isinstance(opened, str):
            log.warning("agents cannot reach this editor: %s", opened)
            return
        self.door = opened
        self.folders_changed()
        atexit.register(self.close)  # when the process ends without a shutdown

    def folders_changed(self) -> None:
        if self.door is not None:
            self.door.publish([str(root) for root in self.editor.roots])

    def close(self) -> None:
        if self.door is not None:
            self.door.close()
            self.door = None

    async def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        kind = request.get("request")
        try:
            if kind == "propose":
                return self.propose(request)
            if kind == "wait":
                return await self.wait(request)
            if kind == "status":
                return self.status(request)
            if kind == "read":
                return self.read(request)
            if kind == "ping":
                return {"pid": os.getpid(), "folders": [str(r) for r in self.editor.roots]}
        except BadRequest as error:
            return {"error": str(error)}
        return {"error": f"unknown request {kind!r}"}

    # --- proposing ---------------------------------------------------------------------------

    def propose(self, request: dict[str, Any]) -> dict[str, Any]:
        arguments = request.get("arguments")
        if not isinstance(arguments, dict):
            raise BadRequest("`arguments` must be an object")
        call = edit_call(_text(request, "tool"), arguments)
        if isinstance(call, BadCall):
            return {"refused": call.message}
        mode = call.mode or request.get("mode") or self.editor.settings.mode
        if mode not in MODES:
            raise BadRequest(f"`mode` must be one of {', '.join(MODES)}")
        files = AgentFiles(Workspace(_folder(request, "root")), self.editor.files)
        target = None
        if call.target is not None:
            located = files.locate(call.target)
            if isinstance(located, FileRef):
                target = Path(located.path)
        editor = self.editor
        session = editor.store.session(None, mode)
        added = editor.store.propose(session, call.items, files, target, self.symbols)
        # (published at once, or with the next when an agent sends call after call)
        editor.publish_promptly({c.path for c in added})
        pending = [c for c in added if c.pending]
        if pending:
            self._announce_soon(pending, request.get("agent"))
        return {
            "session": session.id,
            "changes": [_row(c) for c in added],
            "summary": render.proposal_text(added),
        }

    def _announce_soon(self, pending: Sequence[PendingChange], agent: object) -> None:
        """An agent sends call after call: the user is told once, when it pauses (or
        every few seconds while it does not), of every change it proposed meanwhile,
        rather than at each call, and the view jumps once."""
        who = agent if isinstance(agent, str) and agent else "An agent"
        loop = asyncio.get_running_loop()
        began, changes = loop.time(), list(pending)
        if who in self._bursts:
            began, due, so_far = self._bursts[who]
            due.cancel()
            changes = so_far + changes
        pause = min(_BURST_PAUSE, max(0.0, began + _BURST_LONGEST - loop.time()))
        self._bursts[who] = (began, loop.call_later(pause, self._announce, who), changes)

    def _announce(self, who: str) -> None:
        """Tells the user an agent proposed changes, and shows the first."""
        _, _, changes = self._bursts.pop(who)
        pending = [c for c in changes if c.pending]
        if not pending:
            return  # (decided already)
        count = f"{len(pending)} change{'s' if len(pending) != 1 else ''}"
        where = ", ".join(dict.fromkeys(c.display for c in pending))
        self.editor.server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info,
                message=f"lsp-edit: {who} proposed {count} in {where}; accept or reject "
                "them in the editor.",
            )
        )
        if self.editor.client.show_document:
            showing = asyncio.ensure_future(self._show(pending[0]))
            self._showing.add(showing)
            showing.add_done_callback(self._showing.discard)

    async def _show(self, change: PendingChange) -> None:
        try:
            await self.editor.show(change)
        except Exception as error:  # the client refused: the change is pending all the same
            log.info("window/showDocument failed: %s", error)

    # --- the user's decisions ------------------------------------------------------------------

    async def wait(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answers once every change is decided, or at the timeout."""
        changes = self._changes(request, required=True)
        timeout = request.get("timeout")
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout < 0:
            raise BadRequest("`timeout` must be a number of seconds")
        await self.editor.until_decided(changes, timeout)
        return {
            "changes": [_row(c) for c in changes],
            "summary": self._review(changes),
            "decided": not any(c.pending for c in changes),
        }

    def status(self, request: dict[str, Any]) -> dict[str, Any]:
        changes = self._changes(request, required=False)
        return {"changes": [_row(c) for c in changes], "summary": self._review(changes)}

    def _changes(self, request: dict[str, Any], *, required: bool) -> list[PendingChange]:
        ids = request.get("ids")
        if ids is None and not required:
            return list(self.editor.store.changes.values())
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise BadRequest("`ids` must be a list of change ids")
        found = []
        for change_id in ids:
            change = self.editor.store.get(change_id)
            if change is None:
                raise BadRequest(f"this editor has no change {change_id}")
            found.append(change)
        return found

    def _review(self, changes: Sequence[PendingChange]) -> str:
        return render.review_text(changes, self.editor.store.buffer_of)

    # --- reading -------------------------------------------------------------------------------

    def read(self, request: dict[str, Any]) -> dict[str, Any]:
        """The file as the editor has it: the open buffer, unsaved typing included,
        else the disk."""
        path = Path(_folder(request, "path"))
        if self.editor.files.workspace_of(path) is None:
            return {"refused": f"`{path}` is not in a folder the editor has open."}
        text = self.editor.open_text(path) or self.editor.files.read_disk(path)
        if isinstance(text, Refused):
            return {"refused": text.message}
        if text is None:
            return {"missing": True}
        return {"text": text.render()}


class AgentFiles:
    """A `FileSource` for an agent: paths relative to its root (and never outside
    it), in a folder the editor has open, read as the editor has them."""

    def __init__(self, root: Workspace, editor_files: EditorFiles) -> None:
        self.root = root
        self.editor_files = editor_files

    def locate(self, written: str, *, allow_tail_match: bool = True) -> FileRef | Refused:
        ref = self.root.locate(written, allow_tail_match=allow_tail_match)
        if isinstance(ref, FileRef) and self.editor_files.workspace_of(Path(ref.path)) is None:
            return Refused(
                "outside_workspace",
                f"`{written}` is not in a folder the editor has open; only files there can "
                "be proposed for review.",
            )
        return ref

    def read(self, ref: FileRef) -> Text | Refused | None:
        return self.editor_files.read(ref)

    def similar_files(self, written: str) -> list[str]:
        return self.root.similar_files(written)


def _row(change: PendingChange) -> dict[str, Any]:
    """A change as the agent's side reads it."""
    return {
        "id": change.id,
        "status": change.status.value,
        "description": change.description,
        "file": change.display or None,
        "message": change.message,
        "code": change.code,
        "notes": list(change.notes),
    }


def _text(request: dict[str, Any], name: str) -> str:
    given = request.get(name)
    if not isinstance(given, str) or not given:
        raise BadRequest(f"`{name}` must be a non-empty string")
    return given


def _folder(request: dict[str, Any], name: str) -> str:
    given = _text(request, name)
    if not os.path.isabs(given):
        raise BadRequest(f"`{name}` must be an absolute path")
    return os.path.realpath(given)
