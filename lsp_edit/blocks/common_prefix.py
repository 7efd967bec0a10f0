"""Common-prefix edit blocks (edit format v3):

    path/to/file.py
    ««« EDIT
    old lines
    ═══════ REPL
    new lines
    »»» EDIT END

The anchor is the common prefix of the two halves; the resolver computes it, so
both halves are kept whole here. The explicit-anchor layout is read too:

    ««« EDIT / leading anchor / ─────── / old / ═══════ / new / ─────── / trailing anchor / »»»

and becomes old = leading + old + trailing, new = leading + new + trailing.
Markers must be the whole (stripped) line; `═══════` and `»»»` may stand bare.
Inside the old half an opener is content (nested blocks: the outer one wins);
where the closer is expected, a new opener means this block was never closed.
"""

from __future__ import annotations

import re
from enum import Enum

from lsp_edit.blocks.markers import is_block_opener
from lsp_edit.blocks.model import AnchoredEdit, Hunk, ParseProblem
from lsp_edit.blocks.scanner import (
    FENCE_LINE,
    BlockPath,
    Emit,
    Plain,
    ReplyLine,
    Step,
    TwoHalfBlock,
    emit_halves,
    for_path,
    span,
    where,
    without_bom,
)
from lsp_edit.patterns import LazyPattern

OPENER = "««« EDIT"
SEPARATOR = "═══════ REPL"
CLOSER = "»»» EDIT END"
ANCHOR = "───────"

_SEPARATOR = LazyPattern(r"═{3,}(?:[ \t]*REPL)?")
_ANCHOR = LazyPattern(r"─{3,}")
_CLOSER = LazyPattern(r"»»»(?:[ \t]*EDIT[ \t]+END)?")
# A whole plain-layout block after its opener with no line that may be a marker
# (in the new half, `═══` and `───` are content)
# (a line whose first character after its indentation cannot start a marker is taken
# at once)
_WHOLE = LazyPattern(
    r"(?P<old>(?:[^\S\n]*+[^\s»═─].*\n|(?![^\S\n]*(?:»»»|═══|───)).*\n)*+)"
    r"[^\S\n]*═{3,}(?:[ \t]*REPL)?[^\S\n]*\n"
    r"(?P<new>(?:[^\S\n]*+[^\s»<«*].*\n|(?![^\S\n]*(?:»»»|<<<<<|«««|\*\*\*)).*\n)*+)"
    r"[^\S\n]*»»»(?:[ \t]*EDIT[ \t]+END)?[^\S\n]*\n"
)
# Lines that may be a marker (or a fence line, which may close a wrapper): in the old
# half, another opener is content; in the new half, it ends a block never closed.
_NOT_OLD = Plain(LazyPattern(rf"^[^\S\n]*(?:»»»|═══|───)|^{FENCE_LINE}", re.MULTILINE))
_NOT_NEW = Plain(LazyPattern(rf"^[^\S\n]*(?:»»»|───|<<<<<|«««|\*\*\*)|^{FENCE_LINE}", re.MULTILINE))


class _Phase(Enum):
    FIRST = "first"  # after ««« EDIT: the old half, or a leading anchor if ─── follows
    OLD = "old"  # after a leading anchor's ───
    NEW = "new"  # after ═══ in the plain layout
    NEW_ANCHORED = "new_anchored"  # after ═══ in the explicit-anchor layout
    TRAILING = "trailing"  # after the second ───


class CommonPrefixBlock(TwoHalfBlock):
    """One `««« EDIT` block, from its opener to its closer."""

    def __init__(self, line: ReplyLine, path: BlockPath, emit: Emit) -> None:
        self.start = line.number
        self.path = path
        self.emit = emit
        self.completed = False
        self._phase = _Phase.FIRST
        self._leading: list[str] = []
        self._old: list[str] = []
        self._new: list[str] = []
        self._trailing: list[str] = []
        self._current = self._old

    def take(self, line: ReplyLine) -> Step:
        stripped = line.text.strip()
        phase = self._phase
        closer = stripped.startswith("»»»") and _CLOSER.fullmatch(stripped) is not None
        separator = stripped.startswith("═══") and _SEPARATOR.fullmatch(stripped) is not None
        anchor = stripped.startswith("───") and _ANCHOR.fullmatch(stripped) is not None
        if phase in (_Phase.FIRST, _Phase.OLD):
            if closer:
                self._missing(line.number, f"`{SEPARATOR}`", "between the old and the new lines")
                return Step.DONE
            if separator:
                self._phase = _Phase.NEW if phase is _Phase.FIRST else _Phase.NEW_ANCHORED
                self._current = self._new
                return Step.CONTINUE
            if anchor and phase is _Phase.FIRST:
                self._leading, self._old = self._old, []
                self._current = self._old
                self._phase = _Phase.OLD
                return Step.CONTINUE
        else:
            if closer:
                if phase is _Phase.NEW_ANCHORED:
                    self._missing(line.number, f"second `{ANCHOR}`", "after the new lines")
                else:
                    self._complete(line.number)
                return Step.DONE
            if anchor and phase is _Phase.NEW_ANCHORED:
                self._phase = _Phase.TRAILING
                self._current = self._trailing
                return Step.CONTINUE
            if is_block_opener(stripped):
                self._unclosed(
                    line.number - 1, f"a new block opened at line {line.number} (`{stripped}`)"
                )
                return Step.REDO
        self._current.append(line.text)
        return Step.CONTINUE

    def plain(self) -> Plain:
        return _NOT_OLD if self._phase in (_Phase.FIRST, _Phase.OLD) else _NOT_NEW

    def take_plain(self, lines: list[str], first: int) -> None:
        self._current.extend(lines)

    def end(self, last_line: int) -> None:
        self._unclosed(last_line, f"the reply ended at line {last_line}")

    def _complete(self, end: int) -> None:
        self.completed = True
        leading = without_bom(self._leading)
        old = (*leading, *without_bom(self._old), *self._trailing)
        new = (*leading, *without_bom(self._new), *self._trailing)
        self.emit(
            AnchoredEdit(span(self.start, end), self.path.path, "common_prefix", (Hunk(old, new),))
        )

    def _missing(self, end: int, marker: str, place: str) -> None:
        self.emit(
            ParseProblem(
                span(self.start, end),
                "missing_separator",
                f"`««« EDIT` block{for_path(self.path)} at {where(self.start, end)} has no "
                f"{marker} line {place}: it ended at line {end}. The block was skipped; "
                f"write `{OPENER}`, the old lines, `{SEPARATOR}`, the new lines, `{CLOSER}`.",
                self.path.path,
            )
        )

    def _unclosed(self, end: int, reason: str) -> None:
        self.emit(
            ParseProblem(
                span(self.start, end),
                "unclosed_block",
                f"`««« EDIT` block{for_path(self.path)} opened at reply line {self.start} was "
                f"never closed: expected `{CLOSER}` before {reason}. The block was skipped.",
                self.path.path,
            )
        )


def read_whole(text: str, pos: int, end: int, start: int, path: BlockPath, emit: Emit) -> int:
    """Reads a whole plain-layout block whose opener is reply line `start`, from
    `text[pos]` (the line after the opener), when all of it is in `text[:end]` and
    no line in it may be a marker: reports it as `CommonPrefixBlock` would have and
    returns where its closer ends; -1 otherwise (the block is then read line by line)."""
    match = _WHOLE.match(text, pos, end)
    if match is None:
        return -1
    return emit_halves(match, start, path.path, "common_prefix", emit)
