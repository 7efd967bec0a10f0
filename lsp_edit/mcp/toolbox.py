"""What each tool of `lsp-edit mcp` does, over the engine, without MCP types.

An editing call becomes the engine's blocks (`lsp_edit.blocks.tool_calls`), which go
one of two ways:

1. into the review of the user's editor, when an `lsp-edit serve` has a workspace
   folder holding the file (or, for `propose_reply`, the root): they become pending
   changes there (lsp_edit/server/agents.py), and with `wait` the result is the
   user's decision;
2. to disk otherwise, written all or nothing as `lsp-edit apply` writes them (unless
   the server runs with `review_only`: then the call is refused).

Results are in the words of `lsp-edit apply`'s summary and of the editor's review
summary; a result the model should act on (nothing applied, a refusal, a bad call)
is an error result.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from lsp_edit import bridge
from lsp_edit.blocks.tool_calls import EDIT_TOOLS, BadCall, EditCall, ast_target, edit_call
from lsp_edit.changes import LISTED, Planner, Session, summary
from lsp_edit.resolve.model import Refused
from lsp_edit.symbols import SymbolIndex, language_for
from lsp_edit.symbols.model import Symbol, symbol_table
from lsp_edit.text import Text
from lsp_edit.tools import pending_note, undecided_note
from lsp_edit.values import value
from lsp_edit.workspace import FileRef, FileWrite, KnownTexts, Workspace

READ_LIMIT = 2000  # lines `read` gives at most in one call
_STATUS_WORDS = {
    "pending": "pending review",
    "applied": "accepted (applied)",
    "rejected": "rejected by the user",
    "skipped": "already in the file",
}
_NOT_PLACED = ("failed", "skipped", "stale")
_TOLD_BY = "`review_status`"  # how the agent learns the user's decision


@value
class Options:
    """How `lsp-edit mcp` runs: its workspace `root`, the edit mode, whether edit
    calls wait for the user's review by default and for how long (seconds), and
    whether an edit with no editor to review it is refused rather than written."""

    root: str
    mode: str = "auto"
    wait: bool = False
    wait_timeout: float = 600.0
    review_only: bool = False


@value
class ToolResult:
    """What the model sees: text, and whether the call failed."""

    text: str
    is_error: bool = False


class Toolbox:
    """The tools, for one MCP session (one agent)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.root = os.path.realpath(options.root)
        # Kept between calls: each new text of a file is reparsed from the last one.
        self.symbols = SymbolIndex()
        # And each file's text, as last read or written: an unchanged file is not read again.
        self.known = KnownTexts()
        # The editor each change proposed in this session went to, by id.
        self.proposed: dict[str, bridge.Publication] = {}

    async def call(
        self, tool: str, arguments: Mapping[str, Any], agent: str | None = None
    ) -> ToolResult:
        """Runs one tool; every failure is a result, never an exception."""
        if tool in EDIT_TOOLS:
            return await self.edit(tool, arguments, agent)
        if tool == "symbols":
            return await self.list_symbols(arguments)
        if tool == "read":
            return await self.read(arguments)
        if tool == "instructions":
            return _instructions(arguments)
        if tool == "review_status":
            return await self.review_status(arguments)
        return ToolResult(f"There is no tool `{tool}`.", is_error=True)

    # --- editing -------------------------------------------------------------------------------

    async def edit(self, tool: str, arguments: Mapping[str, Any], agent: str | None) -> ToolResult:
        call = edit_call(tool, arguments)
        if isinstance(call, BadCall):
            return ToolResult(call.message, is_error=True)
        wait = self.options.wait if call.wait is None else call.wait
        found = self._editor(self._anchor(arguments.get("path"), call))
        if isinstance(found, ToolResult):
            return found
        editor, notes = found
        if editor is not None:
            try:
                return await self._propose(editor, tool, dict(arguments), agent, wait=wait)
            except bridge.Unreachable:
                bridge.withdraw(editor)
                notes += (
                    f"Removed `{editor.file}`: the lsp-edit server it names (pid "
                    f"{editor.pid}) did not answer.",
                )
            except (OSError, TimeoutError, ValueError) as error:
                return _broken(editor, error)
        if self.options.review_only:
            return ToolResult(
                f"Nothing was written: no editor runs lsp-edit for `{self.root}`, and this "
                "server only proposes edits for review (--review-only). Ask the user to open "
                "the folder in their editor with lsp-edit, then call again." + _notes(notes),
                is_error=True,
            )
        return self._write(call, notes)

    def _anchor(self, path: object, call: EditCall) -> str:
        """The path whose editor reviews the call: the file it edits, else the root."""
        written = path if isinstance(path, str) and call.tool != "propose_reply" else None
        if written is None:
            return self.root
        ref = Workspace(self.root).locate(written)
        return os.fspath(ref.path) if isinstance(ref, FileRef) else self.root

    def _editor(
        self, anchor: str
    ) -> tuple[bridge.Publication | None, tuple[str, ...]] | ToolResult:
        """The editor server for a path (None: none), and notes on stale files removed;
        a result when the bridge must not be used."""
        found = bridge.editors_for(anchor)
        if isinstance(found, bridge.Refusal):
            return ToolResult(
                f"Nothing was written: the link to the editor is not safe to use: {found.message}.",
                is_error=True,
            )
        if len(found.found) > 1:
            servers = ", ".join(f"pid {p.pid} (`{p.file}`)" for p in found.found)
            return ToolResult(
                f"Nothing was written: {len(found.found)} editors run lsp-edit for "
                f"`{found.found[0].folder}` ({servers}), and lsp-edit does not guess which "
                "one the user reviews in. Ask the user to close all but one.",
                is_error=True,
            )
        return (found.found[0] if found.found else None), found.notes

    async def _propose(
        self,
        editor: bridge.Publication,
        tool: str,
        arguments: dict[str, Any],
        agent: str | None,
        *,
        wait: bool,
    ) -> ToolResult:
        arguments.pop("wait", None)
        answer = await bridge.ask(
            editor,
            {
                "request": "propose",
                "tool": tool,
                "arguments": arguments,
                "root": self.root,
                "mode": self.options.mode,
                "agent": agent,
            },
        )
        if "refused" in answer:
            return ToolResult(str(answer["refused"]), is_error=True)
        if "error" in answer:
            return _bridge_error(answer)
        rows: list[dict[str, Any]] = answer.get("changes", [])
        for row in rows:
            self.proposed[row["id"]] = editor
        pending = [row["id"] for row in rows if row["status"] == "pending"]
        if wait and pending:
            return await self._wait(editor, rows)
        text = str(answer.get("summary", ""))
        if pending:
            text += "\n\n" + pending_note(_described(rows, pending), _TOLD_BY)
        return ToolResult(text, is_error=_not_placed(rows) or not rows)

    async def _wait(self, editor: bridge.Publication, rows: list[dict[str, Any]]) -> ToolResult:
        timeout = self.options.wait_timeout
        answer = await bridge.ask(
            editor,
            {"request": "wait", "ids": [row["id"] for row in rows], "timeout": timeout},
            timeout=timeout + 60,
        )
        if "error" in answer:
            return _bridge_error(answer)
        decided: list[dict[str, Any]] = answer.get("changes", [])
        text = str(answer.get("summary", ""))
        still = [row["id"] for row in decided if row["status"] == "pending"]
        if still:
            text = undecided_note(_described(decided, still), timeout, _TOLD_BY) + "\n\n" + text
        return ToolResult(text, is_error=_not_placed(decided))

    def _write(self, call: EditCall, notes: tuple[str, ...]) -> ToolResult:
        """The disk route: placed and written as `lsp-edit apply` does, all or nothing."""
        workspace = Workspace(self.root, known=self.known)
        planner = Planner(
            workspace,
            Session(call.mode or self.options.mode),
            default_target=call.target,
            reply=call.reply,
            list_failures=LISTED,
            symbols=self.symbols,
        )
        planner.add(call.items)
        plan = planner.plan
        failure = workspace.write_all(
            [
                FileWrite(outcome.ref, outcome.before, outcome.after)
                for outcome in plan.files.values()
                if outcome.changed
            ]
        )
        not_written = failure.explained if failure is not None else None
        lines = [summary(plan, not_written=not_written)]
        lines += [f"Suggested command (not run): {s.command}" for s in plan.suggestions]
        complete = (
            bool(plan.changes)
            and not plan.unlisted_failures
            and all(change.succeeded for change in plan.changes)
        )
        return ToolResult(
            "\n".join(lines) + _notes(notes), is_error=failure is not None or not complete
        )

    # --- the review ----------------------------------------------------------------------------

    async def review_status(self, arguments: Mapping[str, Any]) -> ToolResult:
        unknown = sorted(set(arguments) - {"ids"})
        if unknown:
            return ToolResult(f"review_status: unknown argument `{unknown[0]}`.", is_error=True)
        ids = arguments.get("ids")
        if ids is None:
            ids = list(self.proposed)
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return ToolResult("review_status: `ids` must be a list of change ids.", is_error=True)
        if not ids:
            return ToolResult(
                "No change of this session went to an editor's review: every edit was written "
                "to disk (or refused)."
            )
        by_editor: dict[bridge.Publication, list[str]] = {}
        for change_id in ids:
            editor = self.proposed.get(change_id)
            if editor is None:
                return ToolResult(
                    f"review_status: change {change_id} was not proposed by this server.",
                    is_error=True,
                )
            by_editor.setdefault(editor, []).append(change_id)
        parts = []
        for editor, asked in by_editor.items():
            try:
                answer = await bridge.ask(editor, {"request": "status", "ids": asked})
            except (bridge.Unreachable, OSError, TimeoutError, ValueError):
                parts.append(
                    f"The editor that reviews {', '.join(asked)} (pid {editor.pid}) is closed; "
                    "changes still pending there were never applied."
                )
                continue
            if "error" in answer:
                return _bridge_error(answer)
            rows: list[dict[str, Any]] = answer.get("changes", [])
            parts.append("\n".join(_status_line(row) for row in rows))
            parts.append(str(answer.get("summary", "")))
        return ToolResult("\n\n".join(parts))

    # --- reading -------------------------------------------------------------------------------

    async def list_symbols(self, arguments: Mapping[str, Any]) -> ToolResult:
        bad = _unknown("symbols", arguments, ("path",))
        if bad is not None:
            return bad
        opened = await self._text(arguments.get("path"), "symbols")
        if isinstance(opened, ToolResult):
            return opened
        ref, text, language = opened
        found = self.symbols.symbols(ref.relative, None, text, language)
        if not found:
            return ToolResult(f"`{ref.relative}` ({language}) has no symbols an AST path names.")
        head = f"`{ref.relative}` ({language}, {text.line_count} lines): AST path, kind, lines"
        return ToolResult("\n".join([head, *symbol_table(found)]))

    async def read(self, arguments: Mapping[str, Any]) -> ToolResult:
        bad = _unknown("read", arguments, ("path", "ast_path", "start_line", "end_line"))
        if bad is not None:
            return bad
        ast_path = arguments.get("ast_path")
        start, end = arguments.get("start_line"), arguments.get("end_line")
        if ast_path is not None and (start is not None or end is not None):
            return ToolResult(
                "read: give `ast_path` or `start_line`/`end_line`, not both.", is_error=True
            )
        for name, number in (("start_line", start), ("end_line", end)):
            if number is not None and (
                not isinstance(number, int) or isinstance(number, bool) or number < 1
            ):
                return ToolResult(
                    f"read: `{name}` must be a line number (1 or more).", is_error=True
                )
        opened = await self._text(arguments.get("path"), "read", symbols=ast_path is not None)
        if isinstance(opened, ToolResult):
            return opened
        ref, text, language = opened
        if ast_path is not None:
            return self._read_symbol(ref, text, language, ast_path)
        count = text.line_count
        first = start if isinstance(start, int) else 1
        if count == 0:
            return ToolResult(f"`{ref.relative}` is empty.")
        if first > count:
            return ToolResult(
                f"read: `{ref.relative}` has {count} lines; line {first} is past its end.",
                is_error=True,
            )
        last = min(end if isinstance(end, int) else count, count, first + READ_LIMIT - 1)
        if last < first:
            return ToolResult("read: `end_line` is before `start_line`.", is_error=True)
        head = f"`{ref.relative}` lines {first}-{last} of {count}:"
        if end is None and last < count:
            head = (
                f"`{ref.relative}` lines {first}-{last} of {count} (read from line "
                f"{last + 1} for more):"
            )
        return ToolResult(_numbered(head, text, first, last))

    def _read_symbol(self, ref: FileRef, text: Text, language: str, ast_path: object) -> ToolResult:
        from lsp_edit.resolve.ast_path import locate_symbol

        if not isinstance(ast_path, str) or not ast_path.strip():
            return ToolResult("read: `ast_path` must be a non-empty string.", is_error=True)
        target = ast_target("read", ref.relative, ast_path.strip(), "replace")
        if isinstance(target, BadCall):
            return ToolResult(target.message, is_error=True)

        def symbols_of(current: Text, name: str) -> list[Symbol]:
            return self.symbols.symbols(ref.relative, None, current, name)

        found = locate_symbol(text, language, target.parts, symbols_of=symbols_of)
        if isinstance(found, Refused):
            return ToolResult(f"read: {found.message}", is_error=True)
        first, last = found.start_line + 1, found.end_line
        head = (
            f"`{ref.relative}` lines {first}-{last} ({found.kind} `{found.dotted}`, "
            f"{text.line_count} lines in the file):"
        )
        return ToolResult(_numbered(head, text, first, last))

    async def _text(
        self, path: object, tool: str, *, symbols: bool = True
    ) -> tuple[FileRef, Text, str] | ToolResult:
        """The file a reading tool names, as the user's editor has it (its buffer,
        unsaved typing included) when one runs for it, else from disk; and its
        language when `symbols` are asked for."""
        if not isinstance(path, str) or not path.strip():
            return ToolResult(f"{tool}: `path` must be a file path.", is_error=True)
        workspace = Workspace(self.root, known=self.known)
        ref = workspace.locate(path.strip())
        if isinstance(ref, Refused):
            return ToolResult(f"{tool}: {ref.message}", is_error=True)
        language = language_for(ref.relative) or ""
        if symbols and not language:
            return ToolResult(
                f"{tool}: `{ref.relative}` is not in a language lsp-edit reads symbols of "
                "(Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, C#, Ruby); read it "
                "by lines.",
                is_error=True,
            )
        text = await self._editor_text(ref)
        if text is None:
            text = workspace.read(ref)
        if isinstance(text, Refused):
            message = text.message
            if text.code == "binary_file":
                message = f"`{ref.relative}` is a binary file; lsp-edit reads text files only."
            return ToolResult(f"{tool}: {message}", is_error=True)
        if text is None:
            hint = workspace.similar_files(ref.relative.rsplit("/", 1)[-1])[:5]
            similar = f" Files with a similar name: {', '.join(hint)}." if hint else ""
            return ToolResult(f"{tool}: File not found: {ref.relative}.{similar}", is_error=True)
        if isinstance(text, str):
            return ToolResult(f"{tool}: {text}", is_error=True)
        return ref, text, language

    async def _editor_text(self, ref: FileRef) -> Text | Refused | str | None:
        """The file as an editor running lsp-edit has it; None when none does."""
        found = bridge.editors_for(os.fspath(ref.path))
        if isinstance(found, bridge.Refusal):
            return f"the link to the editor is not safe to use: {found.message}."
        if len(found.found) != 1:
            return None  # (an edit call reports two editors)
        try:
            answer = await bridge.ask(
                found.found[0], {"request": "read", "path": os.fspath(ref.path)}
            )
        except (bridge.Unreachable, OSError, TimeoutError, ValueError):
            return None
        if "text" in answer:
            return Text.from_string(str(answer["text"]))
        if "refused" in answer:
            return Refused("io_error", str(answer["refused"]))
        return None


def _instructions(arguments: Mapping[str, Any]) -> ToolResult:
    from lsp_edit.instructions import instructions

    bad = _unknown("instructions", arguments, ("mode",))
    if bad is not None:
        return bad
    mode = arguments.get("mode") or "ast_path"
    try:
        return ToolResult(instructions(str(mode)))
    except ValueError as error:
        return ToolResult(f"instructions: {error}.", is_error=True)


def _numbered(head: str, text: Text, first: int, last: int) -> str:
    """Lines `first`..`last` (1-based) with their numbers, as `cat -n` shows them."""
    width = len(str(last))
    body = (f"{n:>{width}}\t{line}" for n, line in enumerate(text.lines[first - 1 : last], first))
    return "\n".join([head, *body])


def _status_line(row: Mapping[str, Any]) -> str:
    status = str(row["status"])
    words = _STATUS_WORDS.get(status, f"{status}: {row.get('message') or 'not applied'}")
    where = f", {row['file']}" if row.get("file") else ""
    return f"Change {row['id']} ({row['description']}{where}): {words}."


def _described(rows: Sequence[Mapping[str, Any]], ids: Sequence[str]) -> list[tuple[str, str]]:
    """The changes `ids` names, as (id, description)."""
    described = {str(row["id"]): str(row["description"]) for row in rows}
    return [(i, described.get(i, "")) for i in ids]


def _not_placed(rows: Sequence[Mapping[str, Any]]) -> bool:
    return any(
        row["status"] in _NOT_PLACED and row.get("code") != "already_applied" for row in rows
    )


def _broken(editor: bridge.Publication, error: Exception) -> ToolResult:
    """The editor's server went away (or stopped answering) during a call."""
    why = str(error) or type(error).__name__
    return ToolResult(
        f"The editor's lsp-edit server (pid {editor.pid}) stopped answering ({why}). What "
        "it received may be pending there while it runs; check with `review_status`, or "
        "`read` the file, before you send the edit again.",
        is_error=True,
    )


def _bridge_error(answer: Mapping[str, Any]) -> ToolResult:
    return ToolResult(
        f"Nothing was proposed: the editor's lsp-edit server answered: {answer['error']}.",
        is_error=True,
    )


def _unknown(tool: str, arguments: Mapping[str, Any], allowed: Sequence[str]) -> ToolResult | None:
    unknown = sorted(set(arguments) - set(allowed))
    if not unknown:
        return None
    names = ", ".join(f"`{name}`" for name in unknown)
    return ToolResult(
        f"{tool}: unknown argument {names}; it takes {', '.join(allowed)}.", is_error=True
    )


def _notes(notes: Sequence[str]) -> str:
    return "".join(f"\n\n{note}" for note in notes)
