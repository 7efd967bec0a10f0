"""V4A patches, the format of OpenAI's apply_patch:

    *** Begin Patch
    *** Update File: src/app.py
    *** Move to: src/main.py          (optional)
    @@ class App
    @@ def run
     context
    -removed
    +added
    *** End of File                   (optional)
    *** Add File: src/new.py
    +content
    *** Delete File: src/old.py
    *** End Patch

Each `Update File` becomes one `AnchoredEdit` whose hunks are its `@@` sections
(old = context + removed, new = context + added; stacked `@@` lines form the
scope). Each file is reported as soon as its section ends, so a long patch
streams file by file. A blank line without prefix inside a hunk is an empty
context line; blank lines at the end of a section are dropped. A line with no
` `, `-` or `+` prefix makes that file's section `malformed_patch`; the other
files still count. `*** End of File` marks the hunk before it as the end of the
file (`Hunk.at_end`).

The `***` lines may be indented. A patch may start at its first file header
(`*** Update File:`, `*** Add File:`, `*** Delete File:`) when the model left out
`*** Begin Patch`. A fence closing around the patch ends it even without
`*** End Patch`; the reply ending inside a file section reports that section
`unclosed_block` (it may be cut off), except in a patch written without
`*** Begin Patch` whose last hunk line is context: it has no end line to wait for.
"""

from __future__ import annotations

import re
from enum import Enum

from lsp_edit.blocks.markers import PATCH_FILE_HEADER
from lsp_edit.blocks.model import (
    AnchoredEdit,
    CreateFile,
    DeleteFile,
    Hunk,
    ParseProblem,
    ReplySpan,
)
from lsp_edit.blocks.scanner import (
    FENCE_LINE,
    Emit,
    Plain,
    ReplyLine,
    Step,
    add_prefixed,
    shown,
    span,
    split_block,
    where,
)
from lsp_edit.patterns import LazyPattern
from lsp_edit.values import field, record

_FILE_HEADER = PATCH_FILE_HEADER
_MOVE_TO = LazyPattern(r"\*\*\*[ \t]*Move[ \t]+to[ \t]*:(.*)", re.IGNORECASE)
_END_PATCH = LazyPattern(r"\*\*\*[ \t]*End[ \t]+Patch", re.IGNORECASE)
_END_OF_FILE = LazyPattern(r"\*\*\*[ \t]*End[ \t]+of[ \t]+File", re.IGNORECASE)
# Per state, the lines that are more than stored: `***` lines, fence lines (which
# may close a wrapper), `@@` and unprefixed lines in a hunk, non-blank lines
# between sections.
_NOT_SKIPPED = Plain(LazyPattern(rf"^[^\S\n]*\*\*\*|^{FENCE_LINE}", re.MULTILINE))
_NOT_BLANK = Plain(LazyPattern(r"^[^\S\n]*\S", re.MULTILINE))
_NOT_HUNK_LINE = Plain(LazyPattern(rf"^[^ +\n-]|^[^\S\n]+\*\*\*|^{FENCE_LINE}", re.MULTILINE))
_NOT_ADDED = Plain(LazyPattern(rf"^[^+\n]|^{FENCE_LINE}", re.MULTILINE))
# A `***` line and the hunk lines after it (`@@`, ` `, `-`, `+`, empty; no fence
# line, no indented `***` line)
_SECTION = LazyPattern(
    rf"(?P<header>\*\*\*.*)\n"
    # (an empty line, a `+`, `-` or `@@` line is taken at once)
    rf"(?P<body>(?:\n|[+-].*\n|@@.*\n|(?!{FENCE_LINE}|[^\S\n]+\*\*\*)(?:[ +-].*|@@.*)?\n)*+)"
)


class _State(Enum):
    BETWEEN = "between"  # outside any file section
    UPDATE = "update"
    ADD = "add"
    SKIP = "skip"  # a malformed section, skipped up to the next header


@record
class _HunkLines:
    scope: list[str] = field(default_factory=list)
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    has_lines: bool = False
    trailing_blank: int = 0  # unprefixed blank lines at the end, dropped when it closes
    at_end: bool = False

    def finish(self) -> Hunk | None:
        if self.trailing_blank:
            del self.old[-self.trailing_blank :]
            del self.new[-self.trailing_blank :]
            del self.ops[-self.trailing_blank :]
        if not self.old and not self.new:
            return None
        return Hunk(
            tuple(self.old),
            tuple(self.new),
            None,
            tuple(self.scope),
            ops="".join(self.ops),
            at_end=self.at_end,
        )


class V4APatch:
    """One `*** Begin Patch` … `*** End Patch` block."""

    @staticmethod
    def from_header(line: ReplyLine, emit: Emit) -> V4APatch:
        """A patch starting at its first file header."""
        patch = V4APatch(line, emit)
        patch.enveloped = False
        patch.take(line)
        return patch

    def __init__(self, line: ReplyLine, emit: Emit) -> None:
        self.start = line.number
        self.enveloped = True  # it opened with `*** Begin Patch`
        self._last_prefix = ""  # of the last hunk line with a prefix
        self.emit = emit
        self._state = _State.BETWEEN
        self._section_start = line.number
        self._section_end = line.number
        self._path = ""
        self._move_to: str | None = None
        self._hunks: list[Hunk] = []
        self._hunk = _HunkLines()
        self._added: list[str] = []
        self._added_blank = 0
        self._skip_reason = ""

    def take(self, line: ReplyLine) -> Step:
        if line.closes_wrapper:
            self._close_section()
            return Step.REDO
        text = line.text
        stripped = text.strip()
        if stripped.startswith("***"):
            if _END_PATCH.fullmatch(stripped):
                self._close_section()
                return Step.DONE
            if _END_OF_FILE.fullmatch(stripped):
                if self._state is _State.UPDATE:
                    self._hunk.at_end = True
                    self._section_end = line.number
                return Step.CONTINUE
            header = _FILE_HEADER.fullmatch(stripped)
            if header is not None:
                self._close_section()
                self._open_section(header.group(1).lower(), header.group(2).strip(), line)
                return Step.CONTINUE
            move = _MOVE_TO.fullmatch(stripped)
            if (
                move is not None
                and self._state is _State.UPDATE
                and not self._hunks
                and not self._hunk.has_lines
            ):
                self._move_to = move.group(1).strip() or None
                self._section_end = line.number
                return Step.CONTINUE
        if self._state is _State.SKIP:
            self._section_end = line.number
        elif self._state is _State.BETWEEN:
            if text.strip():
                self._skip(
                    line,
                    f"line {line.number} {shown(text)} is outside any file section; expected "
                    "`*** Update File: path`, `*** Add File: path`, `*** Delete File: path` or "
                    "`*** End Patch`",
                    start=line.number,
                )
        elif self._state is _State.UPDATE:
            self._update_line(line)
        else:
            self._add_line(line)
        return Step.CONTINUE

    def plain(self) -> Plain:
        state = self._state
        if state is _State.UPDATE:
            return _NOT_HUNK_LINE
        if state is _State.ADD:
            return _NOT_ADDED
        return _NOT_SKIPPED if state is _State.SKIP else _NOT_BLANK

    def take_plain(self, lines: list[str], first: int) -> None:
        state = self._state
        last = first + len(lines) - 1
        if state is _State.SKIP:
            self._section_end = last
        elif state is _State.UPDATE:
            hunk = self._hunk
            hunk.trailing_blank, last_prefixed = add_prefixed(
                lines, first, hunk.old, hunk.new, hunk.trailing_blank, hunk.ops
            )
            if last_prefixed is not None:
                self._section_end = last_prefixed
                self._last_prefix = lines[last_prefixed - first][0]
            hunk.has_lines = True
        elif state is _State.ADD:
            added = self._added
            blank = self._added_blank
            for number, text in enumerate(lines, first):
                if text:
                    added.append(text[1:])
                    blank = 0
                    self._section_end = number
                else:
                    added.append("")
                    blank += 1
            self._added_blank = blank

    def _update_lines(self, lines: list[str], first: int) -> None:
        """Lines of an Update File section that are all `@@`, ` `, `-`, `+` or empty."""
        run = 0
        for index, text in enumerate(lines):
            if text.startswith("@@"):
                if run < index:
                    self.take_plain(lines[run:index], first + run)
                self._update_line(ReplyLine(text, first + index, text))
                run = index + 1
        if run < len(lines):
            self.take_plain(lines[run:], first + run)

    def end(self, last_line: int) -> None:
        if self._state is _State.UPDATE and not self.enveloped and self._last_prefix == " ":
            # Written without `*** Begin Patch`, the patch has no end line to wait for:
            # one that ends on a context line is whole (a cut-off change does not).
            self._close_section()
        elif self._state in (_State.UPDATE, _State.ADD):
            kind = "Update" if self._state is _State.UPDATE else "Add"
            self.emit(
                ParseProblem(
                    span(self._section_start, last_line),
                    "unclosed_block",
                    f"V4A `*** {kind} File: {self._path}` at reply line {self._section_start} was "
                    f"never closed: the reply ended at line {last_line} before `*** End Patch`, so "
                    "the section may be cut off. It was skipped.",
                    self._path,
                )
            )
            self._state = _State.BETWEEN
        else:
            self._close_section()

    def _open_section(self, kind: str, path: str, line: ReplyLine) -> None:
        self._section_start = line.number
        self._section_end = line.number
        self._path = path
        self._move_to = None
        self._hunks = []
        self._hunk = _HunkLines()
        self._added = []
        self._added_blank = 0
        if not path:
            self._skip(line, f"`{line.text.strip()}` at line {line.number} names no file")
            return
        if kind == "delete":
            self.emit(DeleteFile(span(line.number, line.number), path, "v4a"))
            self._state = _State.BETWEEN
        elif kind == "add":
            self._state = _State.ADD
        else:
            self._state = _State.UPDATE

    def _update_line(self, line: ReplyLine) -> None:
        text = line.text
        hunk = self._hunk
        if text.startswith("@@"):
            if hunk.has_lines:
                self._finish_hunk()
                hunk = self._hunk
            scope = text[2:].strip()
            if scope.endswith("@@"):
                scope = scope[:-2].strip()
            if scope:
                hunk.scope.append(scope)
        elif text == "":
            hunk.old.append("")
            hunk.new.append("")
            hunk.ops.append(" ")
            hunk.has_lines = True
            hunk.trailing_blank += 1
            return
        elif text[0] in " -+":
            body = text[1:]
            if text[0] != "+":
                hunk.old.append(body)
            if text[0] != "-":
                hunk.new.append(body)
            hunk.ops.append(text[0])
            hunk.has_lines = True
            hunk.trailing_blank = 0
            self._last_prefix = text[0]
        else:
            self._skip(
                line,
                f"line {line.number} {shown(text)} does not start with ' ' (context), '-' "
                "(removed) or '+' (added); prefix every line of a hunk",
            )
            return
        self._section_end = line.number

    def _add_line(self, line: ReplyLine) -> None:
        text = line.text
        if text.startswith("+"):
            self._added.append(text[1:])
            self._added_blank = 0
        elif text == "":
            self._added.append("")
            self._added_blank += 1
            return
        else:
            self._skip(
                line,
                f"line {line.number} {shown(text)} does not start with '+', as every line of "
                "an Add File section must",
            )
            return
        self._section_end = line.number

    def _finish_hunk(self) -> None:
        finished = self._hunk.finish()
        if finished is not None:
            self._hunks.append(finished)
        self._hunk = _HunkLines()

    def _skip(self, line: ReplyLine, reason: str, start: int | None = None) -> None:
        if start is not None:
            self._section_start = start
            self._path = ""
        self._state = _State.SKIP
        self._section_end = line.number
        self._skip_reason = reason

    def _close_section(self) -> None:
        state = self._state
        self._state = _State.BETWEEN
        section = span(self._section_start, self._section_end)
        lines = where(section.start_line, section.end_line)
        path = self._path
        if state is _State.SKIP:
            subject = f"section for `{path}`" if path else "part"
            self.emit(
                ParseProblem(
                    section,
                    "malformed_patch",
                    f"V4A patch {subject} at {lines} was skipped: {self._skip_reason}.",
                    path or None,
                )
            )
        elif state is _State.ADD:
            if self._added_blank:
                del self._added[-self._added_blank :]
            self.emit(CreateFile(section, path, tuple(self._added), "v4a"))
        elif state is _State.UPDATE:
            self._finish_hunk()
            if not self._hunks and self._move_to is None:
                self.emit(_no_changes(section, path))
                return
            self.emit(AnchoredEdit(section, path, "v4a", tuple(self._hunks), self._move_to))


def _no_changes(section: ReplySpan, path: str) -> ParseProblem:
    return ParseProblem(
        section,
        "malformed_patch",
        f"V4A `*** Update File: {path}` at {where(section.start_line, section.end_line)} "
        "has no changes; give `@@` hunks with ' ', '-' and '+' lines.",
        path,
    )


def read_whole(text: str, pos: int, end: int, start: int, emit: Emit) -> int:
    """Reads a whole patch whose `*** Begin Patch` is reply line `start`, from
    `text[pos]` (the line after it), when all of it is in `text[:end]` and it holds
    only `*** Update File` sections of `@@`, ` `, `-`, `+` and empty lines: reports
    it as `V4APatch` would have and returns where its `*** End Patch` line ends; -1
    otherwise (the patch is then read line by line)."""
    sections: list[tuple[str, list[str]]] = []
    while True:
        match = _SECTION.match(text, pos, end)
        if match is None:
            return -1
        stripped = match["header"].strip()
        if stripped == "*** End Patch":  # as written nearly always (no file header)
            break
        path = _update_path(stripped)
        if path is None:
            if _END_PATCH.fullmatch(stripped):
                break
            return -1
        sections.append((path, split_block(match["body"])))
        pos = match.end()
    if not sections:
        return -1
    number = start
    for path, body in sections:
        number += 1
        emit(_update_section(path, number, body))
        number += len(body)
    return match.start("body")


def _update_path(header: str) -> str | None:
    """The path of an `*** Update File` header line (stripped), None for any other
    line or an empty path."""
    if header.startswith("*** Update File: "):  # as written nearly always
        path = header[len("*** Update File: ") :].strip()
    else:
        found = _FILE_HEADER.fullmatch(header)
        if found is None or found.group(1).lower() != "update":
            return None
        path = found.group(2).strip()
    return path or None


def _update_section(path: str, header: int, lines: list[str]) -> AnchoredEdit | ParseProblem:
    """An `*** Update File` section whose header is reply line `header`, from its
    lines (each `@@`, ` `, `-`, `+` or empty), as `V4APatch` reads it line by line:
    `@@` lines in a row form the next hunk's scope; blank lines ending a hunk are
    dropped; the section ends at its last line that is not blank."""
    hunks: list[Hunk] = []
    scope: list[str] = []
    run = 0  # where the current hunk's lines start
    for index in [index for index, text in enumerate(lines) if text.startswith("@@")]:
        if run < index:
            hunk = _hunk(scope, lines[run:index])
            if hunk is not None:
                hunks.append(hunk)
            scope = []
        written = lines[index][2:].strip()
        if written.endswith("@@"):
            written = written[:-2].strip()
        if written:
            scope.append(written)
        run = index + 1
    if run < len(lines):
        hunk = _hunk(scope, lines[run:])
        if hunk is not None:
            hunks.append(hunk)
    last = len(lines)
    while last and not lines[last - 1]:
        last -= 1
    section = span(header, header + last)
    if not hunks:
        return _no_changes(section, path)
    return AnchoredEdit(section, path, "v4a", tuple(hunks))


def _hunk(scope: list[str], lines: list[str]) -> Hunk | None:
    """A hunk from its lines, blank lines at its end dropped (None when empty)."""
    last = len(lines)
    while last and not lines[last - 1]:
        last -= 1
    del lines[last:]
    if not lines:
        return None
    return Hunk(
        tuple([text[1:] for text in lines if text[:1] != "+"]),
        tuple([text[1:] for text in lines if text[:1] != "-"]),
        None,
        tuple(scope),
        ops="".join([text[:1] or " " for text in lines]),
    )
