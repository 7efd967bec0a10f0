"""SEARCH/REPLACE blocks, as aider and most LLMs write them:

    path/to/file.py
    <<<<<<< SEARCH
    old lines
    =======
    new lines
    >>>>>>> REPLACE

Markers are 5 to 9 `<`, `=` or `>` and must be the whole (stripped) line; the
opener's word is `SEARCH` or nothing, the divider's and closer's may be any
word. `<<<<<<<<<<< SEARCH` and `>>>>>>>>>>> REPLACE` may be longer, with their word
(a longer run of `=` is text: a heading underline). An empty SEARCH half creates
the file or fills an empty one.

Inside the search half, another opener is content (nested blocks: the outer one
wins). Inside the replace half, where the closer is expected, a new opener means
this block was never closed: it is reported `unclosed_block` and the new one starts.

More than one `=======` line: models end blocks with `=======` then `>>>>>>> REPLACE`
(or with `=======` alone), and a reStructuredText heading underline is `=======`.
A divider directly before the closer, or before the end of a block that never got
its closer (the next opener, the closing fence around it, the end of the reply), is
a stray marker, not text. Each other divider is a way to split the block: `hunks`
splits at the first, `splits` holds the others, and the resolver uses the one
whose SEARCH half is found in the file. At the edges of a REPLACE half, the
divider written again (as long, or with a word) is dropped; a run of `=` of another
length (an overline) and one the SEARCH half has at the same edge (a heading
underline ending both halves) are text.
"""

from __future__ import annotations

import re

from lsp_edit.blocks.lookback import is_transparent
from lsp_edit.blocks.markers import is_block_opener
from lsp_edit.blocks.model import AnchoredEdit, Hunk, ParseProblem
from lsp_edit.blocks.paths import path_or_none
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

OPENER = "<<<<<<< SEARCH"
DIVIDER = "======="
CLOSER = ">>>>>>> REPLACE"

_DIVIDE = LazyPattern(r"={5,9}(?:[ \t]*\w+)?")
_CLOSE = LazyPattern(r">{5,9}(?:[ \t]*\w+)?|>{10,}[ \t]*REPLACE", re.IGNORECASE)
# Lines that may be a marker (or a fence line, which may close a wrapper)
_NOT_OLD = Plain(LazyPattern(rf"^[^\S\n]*(?:=====|>>>>>)|^{FENCE_LINE}", re.MULTILINE))
# A whole block after its opener whose halves hold no line that may be a marker; a
# second divider or a fence line in the REPLACE half may end the block early
# (`_close_at_divider`), so such a block is read line by line.
# (In each half, a line whose first character after its indentation cannot start a
# marker or a fence is taken at once; only the others are looked at.) Compiled by the
# first SEARCH/REPLACE block, as the other formats' patterns are: a reply of diffs, or
# of no block at all, never compiles it.
_WHOLE = LazyPattern(
    r"(?P<old>(?:[^\S\n]*+[^\s=>].*\n|(?![^\S\n]*(?:=====|>>>>>)).*\n)*+)"
    r"(?P<divider>[^\S\n]*={5,9}(?:[ \t]*\w+)?[^\S\n]*)\n"
    r"(?P<new>(?:[^\S\n]*+[^\s><«*=`~].*\n"
    rf"|(?![^\S\n]*(?:>>>>>|<<<<<|«««|\*\*\*|=====)|{FENCE_LINE}).*\n)*+)"
    r"[^\S\n]*>{5,9}(?:[ \t]*\w+)?[^\S\n]*\n"
)
_NOT_NEW = Plain(LazyPattern(rf"^[^\S\n]*(?:>>>>>|<<<<<|«««|\*\*\*)|^{FENCE_LINE}", re.MULTILINE))


class SearchReplaceBlock(TwoHalfBlock):
    """One SEARCH/REPLACE block, from its opener to its closer."""

    def __init__(self, line: ReplyLine, path: BlockPath, emit: Emit) -> None:
        self.start = line.number
        self.path = path
        self.emit = emit
        self.old: list[str] = []
        self.new: list[str] = []
        self.divider_line: int | None = None
        self.divider = DIVIDER  # the first divider as written
        self.completed = False
        self.left_over: list[str] | None = None  # lines taken after the block ended
        self._scanned = 0  # `new` lines read by `_closing_divider`
        self._closing: int | None = None
        self._named = False

    def take(self, line: ReplyLine) -> Step:
        stripped = line.text.strip()
        if self.divider_line is None:
            if stripped.startswith("=====") and _DIVIDE.fullmatch(stripped):
                self.divider_line = line.number
                self.divider = line.text
                return Step.CONTINUE
            if stripped.startswith(">>>>>") and _CLOSE.fullmatch(stripped):
                self.emit(
                    ParseProblem(
                        span(self.start, line.number),
                        "missing_separator",
                        f"SEARCH/REPLACE block{for_path(self.path)} at "
                        f"{where(self.start, line.number)} has no `{DIVIDER}` line between "
                        f"its halves: `{stripped}` at line {line.number} came while the "
                        "SEARCH half was still open. The block was skipped; write "
                        f"`{OPENER}`, the old lines, `{DIVIDER}`, the new lines, `{CLOSER}`.",
                        self.path.path,
                    )
                )
                return Step.DONE
            self.old.append(line.text)
            return Step.CONTINUE
        if stripped.startswith(">>>>>") and _CLOSE.fullmatch(stripped):
            self._complete(line.number)
            return Step.DONE
        if is_block_opener(stripped) or line.closes_wrapper:
            if self._close_at_divider():
                return Step.REDO
            if line.closes_wrapper:
                self.new.append(line.text)
                return Step.CONTINUE
            self._unclosed(
                line.number - 1, f"a new block opened at line {line.number} (`{stripped}`)"
            )
            return Step.REDO
        self.new.append(line.text)
        return Step.CONTINUE

    def plain(self) -> Plain:
        return _NOT_OLD if self.divider_line is None else _NOT_NEW

    def take_plain(self, lines: list[str], first: int) -> None:
        (self.old if self.divider_line is None else self.new).extend(lines)

    def end(self, last_line: int) -> None:
        if self.divider_line is not None and self._close_at_divider():
            return
        self._unclosed(last_line, f"the reply ended at line {last_line}")

    def _close_at_divider(self) -> bool:
        """A block without its closer whose REPLACE half ends with a `=======` line
        ends there, as aider reads it. After that line may come blank lines, fence
        lines and one path line (the next block's): `left_over` keeps them."""
        last = self._closing_divider()
        if last is None:
            return False
        assert self.divider_line is not None, "in the REPLACE half"
        self.left_over = self.new[last + 1 :]
        del self.new[last:]
        self._complete(self.divider_line + 1 + last)
        return True

    def _closing_divider(self) -> int | None:
        """The index in `new` of a divider that may close the block (see
        `_close_at_divider`). Only the lines added since the last call are read, so a
        block that asks at every fence line costs its length once."""
        new = self.new
        for index in range(self._scanned, len(new)):
            stripped = new[index].strip()
            if stripped.startswith("=====") and _DIVIDE.fullmatch(stripped):
                self._closing, self._named = index, False
            elif not stripped or is_transparent(stripped) or self._closing is None:
                continue
            elif not self._named and path_or_none(stripped) is not None:
                self._named = True
            else:
                self._closing = None
        self._scanned = len(new)
        return self._closing

    def _complete(self, end: int) -> None:
        self.completed = True
        hunks, splits = _split_readings(without_bom(self.old), self.divider, without_bom(self.new))
        self.emit(
            AnchoredEdit(
                span(self.start, end), self.path.path, "search_replace", hunks, splits=splits
            )
        )

    def _unclosed(self, end: int, reason: str) -> None:
        expected = f"`{CLOSER}`" if self.divider_line is not None else f"`{DIVIDER}` and `{CLOSER}`"
        self.emit(
            ParseProblem(
                span(self.start, end),
                "unclosed_block",
                f"SEARCH/REPLACE block{for_path(self.path)} opened at reply line {self.start} "
                f"was never closed: expected {expected} before {reason}. The block was skipped.",
                self.path.path,
            )
        )


def read_whole(text: str, pos: int, end: int, start: int, path: BlockPath, emit: Emit) -> int:
    """Reads a whole block whose opener is reply line `start`, from `text[pos]` (the
    line after the opener), when all of it is in `text[:end]` and no line in it may be
    a marker: reports it as `SearchReplaceBlock` would have and returns where its
    closer ends; -1 otherwise (the block is then read line by line)."""
    match = _WHOLE.match(text, pos, end)
    if match is None:
        return -1
    # no divider in the REPLACE half: the block is read one way only
    return emit_halves(match, start, path.path, "search_replace", emit)


_MAX_READINGS = 16


def _is_divider(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("=====") and _DIVIDE.fullmatch(stripped) is not None


def _split_readings(
    old: list[str], divider: str, new: list[str]
) -> tuple[tuple[Hunk], tuple[Hunk, ...]]:
    """The block split at its first divider, and at each other one (see the module
    docstring); a single divider gives the block as written."""
    inner = [index for index, line in enumerate(new) if _is_divider(line)]
    if not inner:
        return (Hunk(tuple(old), tuple(new)),), ()
    stray = len(new)  # the dividers right before the closer are no cut
    while stray > 0 and _is_divider(new[stray - 1]):
        stray -= 1
    body = [*old, divider, *new]
    cuts = [len(old), *(len(old) + 1 + index for index in inner if index < stray)]
    del cuts[_MAX_READINGS:]  # a block full of underlines keeps a few (linear in its size)
    readings = [
        Hunk(tuple(body[:cut]), _without_stray_markers(body[cut + 1 :], body[:cut], body[cut]))
        for cut in cuts
    ]
    return (readings[0],), tuple(readings[1:])


def _without_stray_markers(lines: list[str], search: list[str], divider: str) -> tuple[str, ...]:
    """A REPLACE half without the stray markers at its edges: the divider written
    again (as long as the one that divides, or with a word). A heading line of
    another length is text (`========` over a title), and so is one the SEARCH half
    has at the same edge next to its text (`Usage` / `=====` ending both halves)."""
    start, end = 0, len(lines)
    while start < end and _is_stray(lines[start], divider):
        start += 1
    while end > start and _is_stray(lines[end - 1], divider):
        end -= 1
    lead, trail = _edge_dividers(search)
    kept = 0
    while kept < min(start, len(lead)) and lines[start - 1 - kept] == lead[-1 - kept]:
        kept += 1
    start -= kept
    kept = 0
    while kept < min(len(lines) - end, len(trail)) and lines[end + kept] == trail[kept]:
        kept += 1
    end += kept
    return tuple(lines[start:end])


def _is_stray(line: str, divider: str) -> bool:
    """A divider-like line that repeats the divider: as long, or carrying a word."""
    if not _is_divider(line):
        return False
    run = _equals_run(line)
    return run < len(line.strip()) or run == _equals_run(divider)


def _equals_run(line: str) -> int:
    stripped = line.strip()
    return len(stripped) - len(stripped.lstrip("="))


def _edge_dividers(lines: list[str]) -> tuple[list[str], list[str]]:
    """The divider lines that open and those that close `lines`."""
    start, end = 0, len(lines)
    while start < end and _is_divider(lines[start]):
        start += 1
    while end > start and _is_divider(lines[end - 1]):
        end -= 1
    return lines[:start], lines[end:]
