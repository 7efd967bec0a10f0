"""Pending changes as the editor shows them: diagnostics, code actions, code lenses,
hovers, and the change objects command results carry (docs/protocol.md).

Pure functions of a change and the buffer it is in; the handlers decide when to
call them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from lsp_edit.changes import AFTER_FAILURE_NOTE, Status
from lsp_edit.positions import PositionEncoding
from lsp_edit.server.edits import line_start, lsp_range
from lsp_edit.server.hunks import TrackedBuffer, replacement
from lsp_edit.server.store import QUIET_CODES, ChangeKind, Hunk, PendingChange, Proposal
from lsp_edit.symbols.model import Symbol
from lsp_edit.text import LineEdit, Text
from lsp_edit.values import value

_CONVERTER = get_converter()
SOURCE = "lsp-edit"
PENDING_CODE = "pending-change"
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
# Engine codes for a block the parser could not read are all `malformed-block` here;
# the engine's own reason travels in the diagnostic's data.
_PARSE_CODES = frozenset(
    {
        "unclosed_block",
        "missing_separator",
        "markers_in_content",
        "invalid_json",
        "invalid_operation",
        "invalid_line_range",
        "invalid_ast_path",
        "malformed_patch",
        "malformed_diff",
    }
)


def public_code(code: str | None) -> str | None:
    """The stable code clients see: kebab-case, parse problems as `malformed-block`."""
    if code is None:
        return None
    if code in _PARSE_CODES:
        return "malformed-block"
    return code.replace("_", "-")


@value
class View:
    """What rendering needs to know of the editor and the buffers."""

    encoding: PositionEncoding
    uri_of: Callable[[Path], str]
    buffer_of: Callable[[Path], TrackedBuffer | None]
    pending_severity: str = "information"
    # The client shows a diagnostic's `relatedInformation`.
    related_information: bool = False
    # The text of a reply document, by URI (ranges of blocks end inside it).
    reply_buffer: Callable[[str], TrackedBuffer | None] = lambda uri: None


def what_it_does(change: PendingChange) -> str:
    """`Replace 3 lines with 5`, in the user's words."""
    if change.kind is ChangeKind.CREATE:
        return f"Create this file ({_lines(change.counts()[1])})"
    if change.kind is ChangeKind.DELETE:
        return "Delete this file"
    replaced, written = change.counts()
    if change.kind is ChangeKind.MOVE and not replaced and not written:
        return f"Move this file to {change.move_to.name if change.move_to else 'another path'}"
    if not replaced:
        words = f"Insert {_lines(written)}"
    elif not written:
        words = f"Delete {_lines(replaced)}"
    else:
        words = f"Replace {_lines(replaced)} with {written}"
    if change.kind is ChangeKind.MOVE:
        words += f", and move the file to {change.move_to.name if change.move_to else '?'}"
    return words


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def lines_range(buffer: TrackedBuffer | None, first: int, end: int, view: View) -> types.Range:
    """Whole lines `first`..`end` (exclusive): from column 0 to column 0 of the line
    after, so no column depends on the line's text (nor on the position encoding);
    the end of the text where there is no such line (`line_start`)."""
    return types.Range(
        start=line_start(buffer, first, view.encoding), end=line_start(buffer, end, view.encoding)
    )


def hunk_range(buffer: TrackedBuffer | None, hunk: Hunk | None, view: View) -> types.Range:
    """The lines a hunk replaces, or the line it inserts before (the last line when
    it appends)."""
    count = buffer.line_count if buffer is not None else 0
    if hunk is None or count == 0:
        return lines_range(buffer, 0, 0, view)
    first = min(hunk.start, count - 1)
    last = first if hunk.inserts_only else min(hunk.end - 1, count - 1)
    return lines_range(buffer, first, last + 1, view)


def whole_range(buffer: TrackedBuffer | None, change: PendingChange, view: View) -> types.Range:
    """From the first hunk's first line to the start of the line after the last hunk."""
    span = change.line_span()
    if span is None:
        return lines_range(buffer, 0, 0, view)
    return lines_range(buffer, span[0], span[1], view)


def diagnostics(changes: Sequence[PendingChange], view: View) -> list[types.Diagnostic]:
    out: list[types.Diagnostic] = []
    for change in changes:
        buffer = view.buffer_of(change.path)
        if change.status is Status.PENDING:
            hunks: Sequence[Hunk | None] = change.hunks or [None]
            warning = f". {AFTER_FAILURE_NOTE}" if AFTER_FAILURE_NOTE in change.notes else ""
            for index, hunk in enumerate(hunks):
                part = f" (part {index + 1} of {len(hunks)})" if len(hunks) > 1 else ""
                out.append(
                    types.Diagnostic(
                        range=hunk_range(buffer, hunk, view),
                        message=f"{what_it_does(change)}: {change.description}{part}{warning}",
                        severity=SEVERITY[view.pending_severity],
                        source=SOURCE,
                        code=PENDING_CODE,
                        tags=[types.DiagnosticTag.Unnecessary]
                        if hunk is not None and hunk.old
                        else None,
                        data={"id": change.id},
                    )
                )
        elif not_applied(change):
            out.append(
                _problem(change, _problem_range(buffer, change, view), _related(change, view, 1))
            )
    return out


def _problem_range(buffer: TrackedBuffer | None, change: PendingChange, view: View) -> types.Range:
    """Where a change not applied is shown in its file: its first hunk, else the first
    lines its refusal is about (the first place an ambiguous block matches, the lines
    most like a block not found), else line 1."""
    if change.hunks or not change.lines:
        return hunk_range(buffer, change.hunks[0] if change.hunks else None, view)
    return _refused_range(buffer, change.lines[0], view)


def _refused_range(buffer: TrackedBuffer | None, lines: tuple[int, int], view: View) -> types.Range:
    """1-based inclusive `lines` as a range, kept inside the buffer. In a file the
    editor does not have open, whose lines the server does not hold, the start of
    the first line: where its last line ends is not known (the lines are shown whole
    once the file is open)."""
    first, last = lines[0] - 1, lines[1]
    if buffer is None:
        return lines_range(buffer, first, first, view)
    count = buffer.line_count
    first, last = min(first, max(count - 1, 0)), min(last, count)
    return lines_range(buffer, first, max(first + 1, last), view)


# The refusals whose lines are places the block could mean, one as good as another.
_CANDIDATES = frozenset({"ambiguous", "symbol_ambiguous"})


def _related(
    change: PendingChange, view: View, skip: int
) -> list[types.DiagnosticRelatedInformation] | None:
    """The lines a refusal is about (after the first `skip`, shown as the diagnostic's
    own range), each as related information, when the client shows it."""
    if not view.related_information or len(change.lines) <= skip:
        return None
    buffer = view.buffer_of(change.path)
    uri = view.uri_of(change.path)
    count = len(change.lines)
    return [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=_refused_range(buffer, lines, view)),
            message=f"Candidate {index} of {count}"
            if change.code in _CANDIDATES
            else "Named in the message",
        )
        for index, lines in enumerate(change.lines, start=1)
        if index > skip
    ]


def not_applied(change: PendingChange) -> bool:
    """A change to report as a problem (a block already in the file is none)."""
    return (
        change.status in (Status.FAILED, Status.STALE, Status.SKIPPED)
        and change.code not in QUIET_CODES
    )


def _problem(
    change: PendingChange,
    where: types.Range,
    related: list[types.DiagnosticRelatedInformation] | None = None,
) -> types.Diagnostic:
    """Why a change was not applied: an Error when its block failed, a Warning when it
    went stale or was skipped."""
    return types.Diagnostic(
        range=where,
        related_information=related,
        message=f"{change.description} was not applied: {change.message}",
        severity=types.DiagnosticSeverity.Error
        if change.status is Status.FAILED
        else types.DiagnosticSeverity.Warning,
        source=SOURCE,
        code=public_code(change.code),
        data={"id": change.id, "reason": change.code},
    )


class ShownDiagnostics:
    """The diagnostics of each file as JSON, each change's kept while what it shows is
    the same: a reply streaming in publishes thousands of changes again and again, and
    building and serializing them is most of what a publication costs."""

    def __init__(self) -> None:
        self._files: dict[Path, dict[str, tuple[object, list[dict[str, Any]]]]] = {}

    def of_file(
        self, path: Path, changes: Sequence[PendingChange], view: View
    ) -> list[dict[str, Any]]:
        """`diagnostics` of the changes shown in a file."""
        buffer = view.buffer_of(path)
        return self._rendered(
            path,
            changes,
            lambda change: (
                _looks(change),
                _hunk_lines(change),
                _end_of(buffer, change.line_span() or _refused_span(change)),
                _style(view),
            ),
            lambda change: diagnostics([change], view),
        )

    def of_reply(
        self, path: Path, changes: Sequence[PendingChange], view: View, reply: TrackedBuffer
    ) -> list[dict[str, Any]]:
        """`reply_diagnostics` of a reply document."""
        return self._rendered(
            path,
            changes,
            lambda change: (
                _looks(change),
                _block_lines(change),
                _end_of(reply, _block_lines(change)),
                _style(view),
            ),
            lambda change: reply_diagnostics([change], view, reply),
        )

    def _rendered(
        self,
        path: Path,
        changes: Sequence[PendingChange],
        shows: Callable[[PendingChange], object],
        render: Callable[[PendingChange], list[types.Diagnostic]],
    ) -> list[dict[str, Any]]:
        before = self._files.get(path, {})
        now: dict[str, tuple[object, list[dict[str, Any]]]] = {}
        out: list[dict[str, Any]] = []
        for change in changes:
            key = shows(change)
            kept = before.get(change.id)
            if kept is None or kept[0] != key:
                kept = (key, [_CONVERTER.unstructure(d) for d in render(change)])
            now[change.id] = kept
            out += kept[1]
        self._files[path] = now
        return out

    def forget(self, path: Path) -> None:
        """The file's diagnostics were cleared."""
        self._files.pop(path, None)


def _looks(change: PendingChange) -> tuple[object, ...]:
    """What a change's diagnostic says, apart from where it is."""
    return (
        change.status,
        change.kind,
        change.description,
        change.code,
        change.message,
        change.move_to,
        change.lines,
        change.notes,
    )


def _hunk_lines(change: PendingChange) -> tuple[tuple[int, int, int, bool], ...]:
    return tuple((h.start, h.end, len(h.new), bool(h.old)) for h in change.hunks)


def _refused_span(change: PendingChange) -> tuple[int, int] | None:
    """The 0-based lines (end exclusive) of the first place a refusal is about."""
    return (change.lines[0][0] - 1, change.lines[0][1]) if change.lines else None


def _block_lines(change: PendingChange) -> tuple[int, int] | None:
    """The 0-based lines of the reply block a change came from (end exclusive)."""
    if change.reply is None:
        return None
    return change.reply.span.start_line - 1, change.reply.span.end_line


def _end_of(buffer: TrackedBuffer | None, lines: tuple[int, int] | None) -> object:
    """What a range over `lines` depends on beyond them: the buffer's last line, when
    the range reaches it (it then ends at that line's end)."""
    count = buffer.line_count if buffer is not None else 0
    if buffer is None or count == 0 or lines is None or lines[1] + 1 < count:
        return count == 0
    return (count, buffer.raw[-1])


def _style(view: View) -> tuple[object, str, bool]:
    return (view.encoding, view.pending_severity, view.related_information)


def change_json(change: PendingChange, view: View) -> dict[str, Any]:
    """A change as command results carry it (docs/protocol.md)."""
    buffer = view.buffer_of(change.path)
    out: dict[str, Any] = {
        "id": change.id,
        "uri": view.uri_of(change.path) if change.display else None,
        "status": change.status.value,
        "description": change.description,
        "kind": change.kind.value,
        "session": change.session,
    }
    if change.hunks and change.status in (Status.PENDING, Status.STALE):
        out["range"] = json_range(whole_range(buffer, change, view))
        out["hunks"] = [_hunk_json(h, buffer, view) for h in change.hunks]
        if len(change.hunks) == 1:
            out["newText"] = out["hunks"][0]["newText"]
    if change.message:
        out["message"] = change.message
    code = public_code(change.code)
    if code and change.status is not Status.PENDING:
        out["code"] = code
    if change.depends_on:
        out["dependsOn"] = list(change.depends_on)
    if change.block is not None:
        # The block's lines in the reply text proposed, for a client that shows that
        # text itself (a scratch buffer): 0-based, the end excluded.
        span = change.block.span
        out["replyLines"] = {"start": span.start_line - 1, "end": span.end_line}
    if change.reply is not None:
        out["block"] = {
            "uri": change.reply.uri,
            "range": json_range(block_range(view.reply_buffer(change.reply.uri), change, view)),
        }
    if change.move_to is not None:
        out["moveTo"] = view.uri_of(change.move_to)
    if change.notes:
        out["notes"] = list(change.notes)
    return out


def _hunk_json(hunk: Hunk, buffer: TrackedBuffer | None, view: View) -> dict[str, Any]:
    """A hunk's whole lines and the text that replaces them. At the end of a text
    whose last line has no line ending, the range ends where the text does and the
    text is what the server writes there (the file keeps no final newline)."""
    eol = buffer.text().eol if buffer is not None and buffer.raw else "\n"
    count = buffer.line_count if buffer is not None else 0
    if (
        buffer is not None
        and count
        and hunk.end >= count
        and not buffer.raw[-1].endswith(("\n", "\r"))
    ):
        made = replacement(buffer.raw, eol, [LineEdit(hunk.start, min(hunk.end, count), hunk.new)])
        if made:
            (written,) = made
            where = lsp_range(buffer, written.start, written.end, view.encoding)
            return {"range": json_range(where), "newText": written.text}
    return {
        "range": json_range(lines_range(buffer, hunk.start, hunk.end, view)),
        "newText": "".join(line + eol for line in hunk.new),
    }


def json_range(value: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": value.start.line, "character": value.start.character},
        "end": {"line": value.end.line, "character": value.end.character},
    }


def code_lenses(changes: Sequence[PendingChange], view: View, uri: str) -> list[types.CodeLens]:
    pending = [c for c in changes if c.status is Status.PENDING]
    if not pending:
        return []
    top = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )
    lenses = [
        types.CodeLens(
            range=top,
            command=types.Command(
                title=f"Accept all ({len(pending)})",
                command="lspEdit.acceptAll",
                arguments=[{"uri": uri}],
            ),
        ),
        types.CodeLens(
            range=top,
            command=types.Command(
                title="Reject all", command="lspEdit.rejectAll", arguments=[{"uri": uri}]
            ),
        ),
    ]
    for change in pending:
        buffer = view.buffer_of(change.path)
        where = hunk_range(buffer, change.hunks[0] if change.hunks else None, view)
        where = types.Range(start=where.start, end=where.start)
        for title, command in (("Accept", "lspEdit.accept"), ("Reject", "lspEdit.reject")):
            lenses.append(
                types.CodeLens(
                    range=where,
                    command=types.Command(
                        title=title, command=command, arguments=[{"id": change.id}]
                    ),
                )
            )
    return lenses


def code_actions(
    touching: Sequence[PendingChange],
    in_file: Sequence[PendingChange],
    view: View,
    uri: str,
    *,
    edit_for: Callable[[PendingChange], types.WorkspaceEdit | None],
    llm_tag: bool,
    literals: bool = True,
) -> list[types.CodeAction | types.Command]:
    """The actions on a range: accept or reject each pending change there (or take a
    failure anyway, dismiss it), and all of the file's.

    "Accept change" carries the edit, which the editor applies itself, and the
    command `lspEdit.accept {id, action: true}`, which records the decision once the
    edit shows. A client without code action literals gets the commands alone, and
    accepting then sends the edit."""
    tags = [types.CodeActionTag.LlmGenerated] if llm_tag else None
    actions: list[types.CodeAction] = []
    for change in touching:
        # In a reply document the action is on a block: the change's diagnostics
        # are in its file, at ranges of that file.
        in_its_file = view.uri_of(change.path) == uri
        diagnostics_here = diagnostics([change], view) if in_its_file else None
        if change.status is Status.PENDING:
            edit = edit_for(change) if literals else None
            accept = {"id": change.id, "action": True} if edit is not None else {"id": change.id}
            actions.append(
                types.CodeAction(
                    title=f"Accept change: {change.description}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diagnostics_here,
                    is_preferred=True,
                    edit=edit,
                    command=types.Command(
                        title="Accept change", command="lspEdit.accept", arguments=[accept]
                    ),
                    tags=tags,
                )
            )
            actions.append(
                types.CodeAction(
                    title=f"Reject change: {change.description}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diagnostics_here,
                    command=_command("Reject change", "lspEdit.reject", change.id),
                    tags=tags,
                )
            )
            continue
        if change.can_take_anyway:
            actions.append(
                types.CodeAction(
                    title=f"Accept anyway: {change.description} (as the whole file)",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diagnostics_here,
                    command=types.Command(
                        title="Accept anyway",
                        command="lspEdit.accept",
                        arguments=[{"id": change.id, "anyway": True}],
                    ),
                    tags=tags,
                )
            )
        actions.append(
            types.CodeAction(
                title=f"Dismiss: {change.description} ({change.status.value})",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=diagnostics_here,
                command=_command("Dismiss", "lspEdit.reject", change.id),
            )
        )
    pending = [c for c in in_file if c.status is Status.PENDING]
    if touching and pending:
        # No edit on "Accept all": with many changes it is large; the command sends it.
        for title, command in (
            ("Accept all in file", "lspEdit.acceptAll"),
            ("Reject all in file", "lspEdit.rejectAll"),
        ):
            actions.append(
                types.CodeAction(
                    title=f"{title} ({len(pending)})",
                    kind=types.CodeActionKind.QuickFix,
                    command=types.Command(title=title, command=command, arguments=[{"uri": uri}]),
                    tags=tags,
                )
            )
    if literals:
        return list(actions)
    return [action.command for action in actions if action.command is not None]


def _command(title: str, command: str, change_id: str) -> types.Command:
    return types.Command(title=title, command=command, arguments=[{"id": change_id}])


def hover(change: PendingChange, view: View) -> types.Hover:
    """The change as a small diff, with its description and the block it came from."""
    buffer = view.buffer_of(change.path)
    lines = [f"**lsp-edit** · {what_it_does(change)}: {change.description}", "", "```diff"]
    for index, hunk in enumerate(change.hunks):
        if index:
            lines.append("@@")
        lines.extend(f"-{line}" for line in hunk.old)
        lines.extend(f"+{line}" for line in hunk.new)
    lines.append("```")
    if change.depends_on:
        lines.append(
            f"Builds on change {', '.join(change.depends_on)}: accepting it accepts them too."
        )
    if change.reply is not None:
        lines.append(
            f"From reply lines {change.reply.span.start_line}-{change.reply.span.end_line} "
            f"of {change.reply.uri}."
        )
    elif change.block is not None:
        span = change.block.span
        lines.append(f"From reply lines {span.start_line}-{span.end_line}.")
    for note in change.notes:
        lines.append(f"Note: {note}")
    first = change.hunks[0] if change.hunks else None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n".join(lines)),
        range=hunk_range(buffer, first, view),
    )


def proposal_json(proposal: Proposal) -> dict[str, Any]:
    """`lspEdit.proposed`'s answer: the text, and the lines of it each pending change
    writes (what a client's inline view maps its cursor with)."""
    ranges: dict[str, list[dict[str, Any]]] = {}
    for landing in proposal.landings:
        ranges.setdefault(landing.change_id, []).append(
            {
                "start": {"line": landing.start, "character": 0},
                "end": {"line": landing.end, "character": 0},
            }
        )
    return {
        "text": proposal.text.render(),
        "changes": [{"id": change_id, "ranges": found} for change_id, found in ranges.items()],
    }


# A summary names at most this many files and problems: a reply of thousands of blocks
# gets a summary of a few lines (the result's `changes` still list every one).
SUMMARY_ITEMS = 10


def proposal_summary(changes: Sequence[PendingChange]) -> str:
    """What a proposal did, for the user and the chat: what is now pending review,
    and each block that was not placed, with why (the first `SUMMARY_ITEMS`)."""
    pending: dict[str, int] = {}
    for change in changes:
        if change.status is Status.PENDING:
            pending[change.display] = pending.get(change.display, 0) + 1
    twins = sum(1 for change in changes if change.code == "already_pending")
    lines: list[str] = []
    if pending:
        total = sum(pending.values())
        files = list(pending.items())
        where = ", ".join(f"{count} in '{name}'" for name, count in files[:SUMMARY_ITEMS])
        if len(files) > SUMMARY_ITEMS:
            where += f" and {_more(len(files) - SUMMARY_ITEMS, 'other file')}"
        lines.append(f"{_changes(total)} pending review: {where}.")
    elif twins:
        lines.append(f"No new change: {_changes(twins)} already pending review.")
    elif changes:
        lines.append("No change is pending review.")
    else:
        lines.append("No edit blocks were found in the reply.")
    problems = [c for c in changes if c.status in (Status.FAILED, Status.SKIPPED, Status.STALE)]
    if problems:
        lines.append("")
    for change in problems[:SUMMARY_ITEMS]:
        if change.code == "already_applied":
            lines.append(f"  • {change.description} is already in the file.")
        elif change.code == "already_pending":
            lines.append(f"  • {change.description}: {change.message}")
        else:
            lines.append(f"  • {change.description} was not applied: {change.message}")
    if len(problems) > SUMMARY_ITEMS:
        rest = _more(len(problems) - SUMMARY_ITEMS, "more block")
        lines.append(f"  • … and {rest} (not applied, or already in the file).")
    return "\n".join(lines)


def _more(count: int, thing: str) -> str:
    return f"{count:,} {thing}{'' if count == 1 else 's'}"


def review_summary(
    changes: Sequence[PendingChange], buffer_of: Callable[[Path], TrackedBuffer | None]
) -> str:
    """The reply to hand back to the LLM once the user reviewed a session's changes,
    in the mode separation plan's words."""
    lines: list[str] = []
    accepted = [c for c in changes if c.status is Status.APPLIED]
    for path in dict.fromkeys(c.path for c in accepted):
        in_path = [c for c in accepted if c.path == path]
        name = in_path[0].display
        kinds = {c.kind for c in in_path}
        if ChangeKind.DELETE in kinds:
            lines.append(f"File '{name}' has been deleted.")
        elif ChangeKind.CREATE in kinds:
            lines.append(f"File '{name}' has been created.")
        else:
            buffer = buffer_of(path)
            size = f" It now has {_lines(buffer.line_count)}." if buffer is not None else ""
            lines.append(f"File '{name}' has been updated.{size}")
            moved = next((c.move_to for c in in_path if c.move_to is not None), None)
            if moved is not None:
                lines.append(f"File '{name}' has been moved to '{moved.name}'.")
    decided = [c for c in changes if c.code != "already_applied"]
    if not decided:
        lines.append("No edit blocks were found in the reply.")
        return "\n".join(lines)
    if lines:
        lines.append("")
    if len(accepted) == len(decided):
        lines.append("All changes were applied.")
    elif accepted:
        lines.append("Some changes were applied.")
    else:
        lines.append("No changes were applied.")
    others = [c for c in decided if c.status is not Status.APPLIED]
    if others:
        lines.append("")
    for change in others:
        if change.status is Status.REJECTED:
            lines.append(f"  • {change.description} was rejected by the user.")
        elif change.status is Status.PENDING:
            lines.append(f"  • {change.description} is still pending review.")
        else:
            lines.append(f"  • {change.description} was not applied: {change.message}")
    return "\n".join(lines)


def _changes(count: int) -> str:
    return "1 change is" if count == 1 else f"{count} changes are"


def proposal_text(changes: Sequence[PendingChange]) -> str:
    """What a model's tool call did, as its result says it (`lsp-edit mcp`'s editor
    route, `lspEdit.ask`): the proposal's summary, then each change's notes."""
    return _with_notes(proposal_summary(changes), changes)


def review_text(
    changes: Sequence[PendingChange], buffer_of: Callable[[Path], TrackedBuffer | None]
) -> str:
    """What the user decided on a tool call's changes, as the result of a call that
    waited for it says it: the review summary, then each change's notes."""
    return _with_notes(review_summary(changes, buffer_of), changes)


def _with_notes(summary: str, changes: Sequence[PendingChange]) -> str:
    """The summary, then each change's notes, as `lsp-edit apply` lists them."""
    notes = [f"  • {c.description}: {note}" for c in changes for note in c.notes]
    return "\n\n".join([summary, "\n".join(notes)]) if notes else summary


# --- the reply document ----------------------------------------------------------------


def block_range(buffer: TrackedBuffer | None, change: PendingChange, view: View) -> types.Range:
    """The lines of the reply block a change came from."""
    assert change.reply is not None
    span = change.reply.span
    return lines_range(buffer, span.start_line - 1, span.end_line, view)


def reply_diagnostics(
    changes: Sequence[PendingChange], view: View, reply: TrackedBuffer
) -> list[types.Diagnostic]:
    """A diagnostic on every block of the reply that cannot apply, with the reason."""
    return [
        _problem(change, block_range(reply, change, view), _related(change, view, 0))
        for change in changes
        if change.reply is not None and not_applied(change)
    ]


def where(change: PendingChange, view: View) -> str:
    """`src/x.py:12`: the file and first line a change is at now."""
    span = change.line_span()
    line = f":{span[0] + 1}" if span is not None else ""
    return f"{change.display or 'the target file'}{line}"


def reply_lenses(
    changes: Sequence[PendingChange], view: View, reply: TrackedBuffer
) -> list[types.CodeLens]:
    """On every block of the reply: its state, and what can be done with it."""
    lenses: list[types.CodeLens] = []
    for change in changes:
        if change.reply is None:
            continue
        line = change.reply.span.start_line - 1
        at = types.Range(
            start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)
        )
        for title, command in _block_actions(change, view):
            lenses.append(
                types.CodeLens(
                    range=at,
                    command=types.Command(
                        title=title, command=command, arguments=[{"id": change.id}]
                    ),
                )
            )
    return lenses


def _block_actions(change: PendingChange, view: View) -> list[tuple[str, str]]:
    if change.status is Status.PENDING:
        return [
            (f"pending in {where(change, view)}", "lspEdit.show"),
            ("Accept", "lspEdit.accept"),
            ("Reject", "lspEdit.reject"),
            ("Go to change", "lspEdit.show"),
        ]
    if change.status is Status.APPLIED:
        return [("applied", "lspEdit.show"), ("Go to change", "lspEdit.show")]
    if change.status is Status.REJECTED and change.restorable:
        return [("rejected", "lspEdit.show"), ("Restore", "lspEdit.restore")]
    if change.status is Status.REJECTED:
        return [("dismissed", "lspEdit.show")]
    if change.status is Status.STALE:
        return [(f"stale: {_short(change.message)}", "lspEdit.show"), ("Reject", "lspEdit.reject")]
    if change.code == "already_applied":
        return [("already in the file", "lspEdit.show")]
    return [(f"not applied: {_short(change.message)}", "lspEdit.show")]


def _short(message: str | None, limit: int = 80) -> str:
    text = (message or "").split("\n", 1)[0]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reply_symbols(
    changes: Sequence[PendingChange], view: View, reply: TrackedBuffer
) -> list[types.DocumentSymbol]:
    """The reply's outline: the list of proposed changes."""
    out: list[types.DocumentSymbol] = []
    for change in changes:
        if change.reply is None:
            continue
        whole = block_range(reply, change, view)
        first = types.Range(start=whole.start, end=whole.start)
        out.append(
            types.DocumentSymbol(
                name=change.description,
                detail=f"{change.status.value} · {where(change, view)}",
                kind=types.SymbolKind.Event,
                range=whole,
                selection_range=first,
            )
        )
    return out


def symbols_json(found: Sequence[Symbol], text: Text, view: View) -> list[dict[str, Any]]:
    """`lspEdit.symbols`: the AST paths of a document, with kinds and whole-line ranges."""
    buffer = TrackedBuffer.of(text)
    return [
        {
            "path": s.dotted,
            "kind": s.kind,
            "range": json_range(lines_range(buffer, s.start_line, s.end_line, view)),
        }
        for s in found
    ]
