"""Chunk diffs: small, context-anchored edits inside one symbol, applied atomically.

A chunk diff names a symbol (by AST path, or by a line inside it) and lists chunks
of `context_before` / `old_lines` / `new_lines` / `context_after`. The pure core
(`lines_match`, `position_chunk`, `apply_chunks`) works on the symbol's lines alone,
with no tree-sitter: every place where a chunk's context could anchor is tried, the
seven validations (docs/chunk-diff.md) run at each, and a chunk lands only where
exactly one place passes them all. Either every chunk lands or none does; the
refusal names the chunk and says what was looked for, where, and what was found.

`resolve_chunk_diff` finds the symbol in a document and turns the new symbol lines
into minimal line edits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from functools import cached_property
from typing import TYPE_CHECKING

from lsp_edit.blocks.model import Chunk, ChunkDiff
from lsp_edit.resolve.diffing import minimal_edits
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.symbols.model import Symbol
from lsp_edit.text import CR, CRLF, LF, Text, detect_line_ending
from lsp_edit.values import value

_ENDING_NAMES = {CRLF: "CRLF", LF: "LF", CR: "CR"}
# A last line made only of closing brackets (or Ruby/Lua `end`) terminates the symbol.
_CLOSING_LINE = re.compile(r"\s*(?:[)\]}]+|end)[;,]?\s*")
_PATH_SEPARATORS = re.compile(r"::|[-./]")
# Enough candidates for the LLM to see the pattern without flooding the message.
_MAX_LISTED = 5
_MAX_QUOTED = 160

if TYPE_CHECKING:
    from lsp_edit.resolve.ast_path import SymbolsOf


def lines_match(actual: Sequence[str], expected: Sequence[str]) -> bool:
    """Whether the lines are equal, ignoring trailing whitespace on each."""
    return len(actual) == len(expected) and all(
        a.rstrip() == e.rstrip() for a, e in zip(actual, expected, strict=True)
    )


def position_chunk(
    symbol_lines: Sequence[str], chunk: Chunk, line_ending: str, *, first_line: int = 1
) -> int | str:
    """Where `chunk` lands: the index of the last `context_before` line in
    `symbol_lines` (-1 when the chunk starts at the symbol's first line, which is
    only possible with an empty `context_before`), or why it cannot land.

    `line_ending` is the symbol's detected ending; `first_line` is the 1-based file
    line of `symbol_lines[0]`, so messages speak in file lines.
    """
    return _SymbolLines(symbol_lines, line_ending, first_line).position(chunk)


def apply_chunks(
    symbol_lines: Sequence[str], chunks: Sequence[Chunk], line_ending: str, *, first_line: int = 1
) -> tuple[str, ...] | str:
    """The symbol's new lines with every chunk applied, or the reason none was:
    `Chunk N validation failed: ...` or `Chunks N and M overlap: ...`."""
    result = _apply(_SymbolLines(symbol_lines, line_ending, first_line), chunks)
    return result.message if isinstance(result, Refused) else result


def resolve_chunk_diff(
    block: ChunkDiff, text: Text, language: str, *, symbols_of: SymbolsOf | None = None
) -> Resolution:
    """Places a chunk diff: finds its symbol, applies all chunks inside it, and
    returns the minimal edits, or a refusal with a stable code. `symbols_of` gives a
    text's symbols (default: a fresh index)."""
    if not block.chunks:
        return Refused(
            "invalid_operation",
            "The chunk_diff has no chunks: give at least one "
            "{context_before, old_lines, new_lines, context_after}.",
        )
    found = _find_symbol(block, text, language, symbols_of)
    if isinstance(found, Refused):
        return found
    symbol = found
    old_lines = text.lines[symbol.start_line : symbol.end_line]
    ending = detect_line_ending("".join(text.raw_slice(symbol.start_line, symbol.end_line)))
    lines = _SymbolLines(old_lines, ending, symbol.start_line + 1)
    where = f" (in symbol `{symbol.dotted}`, lines {symbol.start_line + 1}-{symbol.end_line})"
    result = _apply(lines, block.chunks)
    if isinstance(result, Refused):
        if _already_applied(lines, block.chunks):
            return AlreadyApplied(
                f"Every chunk's new_lines are already in symbol `{symbol.dotted}`; nothing to do."
            )
        return Refused(
            result.code,
            result.message + where,
            (*result.lines, (symbol.start_line + 1, symbol.end_line)),
        )
    edits = minimal_edits(old_lines, result, offset=symbol.start_line)
    if not edits:
        return AlreadyApplied(
            f"The chunks leave symbol `{symbol.dotted}` unchanged (new_lines equal old_lines)."
        )
    return Placed(edits=edits, strategy="chunk_diff")


@value
class _Placement:
    """A positioned chunk: its old lines are `start`..`end` (0-based, end exclusive)."""

    number: int
    chunk: Chunk
    start: int
    end: int


class _SymbolLines:
    """The symbol's lines with a content index, shared by all chunks of one diff."""

    def __init__(self, lines: Sequence[str], line_ending: str, first_line: int) -> None:
        self.lines = lines
        self.line_ending = line_ending
        self.first_line = first_line

    @cached_property
    def stripped(self) -> list[str]:
        return [line.rstrip() for line in self.lines]

    @cached_property
    def where(self) -> dict[str, list[int]]:
        """Line content (trailing whitespace ignored) -> its indices, so candidates
        are found by lookup instead of a scan per chunk."""
        index: dict[str, list[int]] = {}
        for i, line in enumerate(self.stripped):
            index.setdefault(line, []).append(i)
        return index

    def file_line(self, index: int) -> int:
        return self.first_line + index

    @property
    def span(self) -> str:
        return f"lines {self.first_line}-{self.first_line + len(self.lines) - 1}"

    def position(self, chunk: Chunk) -> int | str:
        problem = _check_shape(chunk, self.line_ending)
        if problem is not None:
            return problem
        passing = self._fitting(chunk)
        if len(passing) == 1:
            return passing[0]
        before = chunk.context_before
        anchor_offset = len(before) - 1 if before else -1
        if passing:
            found = "context_before found at" if before else self._anchor_name(chunk)
            places = _list_lines(self.file_line(p - anchor_offset) for p in passing)
            return (
                f"the chunk fits at {len(passing)} places ({found} lines {places}); "
                "add context_before or context_after lines that tell them apart"
            )
        return self._explain(chunk)

    def _fitting(self, chunk: Chunk) -> list[int]:
        """Every position where the chunk passes all validations.

        Candidates come from the window line (context_before + old_lines +
        context_after) that occurs least often in the symbol: any fitting position
        has that line at its offset, so repeated lines such as `}` or blank ones
        never make every chunk try every place.
        """
        before = chunk.context_before
        window = [*before, *chunk.old_lines, *chunk.context_after]
        occurrences = [self.where.get(line.rstrip(), []) for line in window]
        offset = min(range(len(window)), key=lambda k: len(occurrences[k]))
        passing: list[int] = []
        for at in occurrences[offset]:
            start = at - offset
            if not self._holds(start, before):
                continue
            position = start + len(before) - 1
            if self._validate(chunk, position) is None:
                passing.append(position)
        return passing

    def _explain(self, chunk: Chunk) -> str:
        """Why the chunk fits nowhere: every place its first line anchors, with the
        first validation that failed there."""
        before = chunk.context_before
        if before:
            starts = self.where.get(before[0].rstrip(), [])
            anchored = [s for s in starts if self._holds(s, before)]
            if not anchored:
                return self._context_before_missing(before, starts)
            positions = [s + len(before) - 1 for s in anchored]
            found = "context_before found at"
            anchor_offset = len(before) - 1
        else:
            # Without context_before the chunk may start anywhere: old_lines (or, for
            # an insertion, context_after) anchor it instead.
            first = (chunk.old_lines or chunk.context_after)[0]
            name = "old_lines" if chunk.old_lines else "context_after"
            starts = self.where.get(first.rstrip(), [])
            if not starts:
                return (
                    f"context_before is empty, so the chunk was looked for anywhere in the "
                    f"symbol ({self.span}), but {name}' first line {_quote(first)} is not in it"
                )
            positions = [s - 1 for s in starts]
            found = self._anchor_name(chunk)
            anchor_offset = -1
        failures = [(p, self._validate(chunk, p) or "") for p in positions[:_MAX_LISTED]]
        noun = "line" if len(positions) == 1 else "lines"
        listed = _list_lines(self.file_line(p - anchor_offset) for p in positions)
        details = "; ".join(
            f"at line {self.file_line(p - anchor_offset)}: {reason}" for p, reason in failures
        )
        there = "there" if len(positions) == 1 else "any of them"
        return f"{found} {noun} {listed}, but the chunk does not fit {there}: {details}"

    @staticmethod
    def _anchor_name(chunk: Chunk) -> str:
        name = "old_lines" if chunk.old_lines else "context_after"
        return f"{name}' first line found at"

    def _validate(self, chunk: Chunk, position: int) -> str | None:
        """The first of the seven validations that fails at `position`, or None."""
        count = len(self.lines)
        start = position + 1
        end = start + len(chunk.old_lines)
        last = self.file_line(count - 1)
        # (2) old_lines, with (5) the symbol boundary when they run past its end.
        mismatch = self._first_mismatch(start, chunk.old_lines)
        if mismatch is not None:
            return f"old_lines did not match {mismatch}"
        if end > count:
            return (
                f"old_lines run past the end of the symbol: {len(chunk.old_lines)} lines from "
                f"line {self.file_line(start)}, but the symbol ends at line {last}"
            )
        # (1) context_after, with (6) the end-of-symbol context.
        mismatch = self._first_mismatch(end, chunk.context_after)
        if mismatch is not None:
            return f"context_after did not match {mismatch}"
        if end + len(chunk.context_after) > count:
            return (
                f"context_after runs past the end of the symbol at line {last}; "
                "leave out the lines after the symbol's last line"
            )
        # (3) an insertion lands strictly inside the symbol.
        if not chunk.old_lines and (start == 0 or start == count):
            side = "before its first" if start == 0 else "after its last"
            edge = self.file_line(min(start, count - 1))
            return (
                f"the insertion point is {side} line (line {edge}), "
                "outside the symbol; to add lines at its edge, put that line in old_lines "
                "and repeat it in new_lines next to the new lines"
            )
        # (4) a deletion leaves the symbol standing.
        if not chunk.new_lines and start == 0 and end == count:
            return (
                "the chunk deletes every line of the symbol; a chunk diff edits inside a "
                "symbol (remove a whole symbol with an AST path block and `:remove`)"
            )
        # (6) the symbol's closing line survives a chunk that replaces it.
        closing = self.lines[count - 1] if count else ""
        if end == count and self._is_terminator(closing):
            kept = bool(chunk.new_lines) and chunk.new_lines[-1].strip() == closing.strip()
            if not kept:
                return (
                    f"old_lines include the symbol's closing line {_quote(closing)} (line {last}) "
                    "but new_lines do not end with it, which would leave the symbol "
                    f"unterminated; end new_lines with {_quote(closing.strip())}"
                )
        return None

    def _is_terminator(self, line: str) -> bool:
        """A closing-bracket (or `end`) line at the symbol's outermost indentation:
        deeper ones close an expression inside the body, not the symbol."""
        return bool(_CLOSING_LINE.fullmatch(line)) and _indent_width(line) <= self.outer_indent

    @cached_property
    def outer_indent(self) -> int:
        return min((_indent_width(line) for line in self.lines if line.strip()), default=0)

    def _holds(self, start: int, expected: Sequence[str]) -> bool:
        """Whether `expected` lies entirely inside the symbol from `start` and matches."""
        end = start + len(expected)
        return (
            start >= 0
            and end <= len(self.lines)
            and self.stripped[start:end] == [line.rstrip() for line in expected]
        )

    def _first_mismatch(self, start: int, expected: Sequence[str]) -> str | None:
        """`at line L: expected ..., found ...` for the first differing line of
        `expected` laid from `start`, or None (lines past the end are not compared)."""
        for offset, line in enumerate(expected):
            index = start + offset
            if index >= len(self.lines):
                return None
            if self.stripped[index] != line.rstrip():
                return (
                    f"at line {self.file_line(index)}: expected {_quote(line)}, "
                    f"found {_quote(self.lines[index])}"
                )
        return None

    def _context_before_missing(self, before: Sequence[str], starts: Sequence[int]) -> str:
        first = _quote(before[0])
        if not starts:
            return f"context_before's first line {first} was not found in the symbol ({self.span})"
        listed = _list_lines(self.file_line(s) for s in starts)
        details = "; ".join(
            f"{self._first_mismatch(s, before) or 'it runs past the end of the symbol'}"
            for s in starts[:_MAX_LISTED]
        )
        return (
            f"context_before's first line {first} occurs at line{'s' if len(starts) > 1 else ''} "
            f"{listed}, but the lines after it differ from context_before: {details}"
        )


def _check_shape(chunk: Chunk, line_ending: str) -> str | None:
    """The validations that do not depend on where the chunk lands."""
    # (7) line ending consistency: lines arrive split; a line break left inside one
    # means the LLM's text had mixed or escaped endings.
    for name, lines in (
        ("context_before", chunk.context_before),
        ("old_lines", chunk.old_lines),
        ("new_lines", chunk.new_lines),
        ("context_after", chunk.context_after),
    ):
        for number, line in enumerate(lines, start=1):
            if "\r" in line or "\n" in line:
                found = "\\r" if "\r" in line else "\\n"
                ending = _ENDING_NAMES.get(line_ending, repr(line_ending))
                return (
                    f"{name} item {number} contains a line break (`{found}`); give each "
                    "line as its own list item without its ending (the symbol's lines end "
                    f"with {ending} and new lines get the same)"
                )
    if not chunk.old_lines:
        # (3) an insertion needs something to insert and context to place it.
        if not chunk.new_lines:
            return "old_lines and new_lines are both empty, so the chunk changes nothing"
        if not chunk.context_before and not chunk.context_after:
            return (
                "old_lines is empty (an insertion) and so are context_before and "
                "context_after, so there is no position to insert at; give the lines the "
                "new lines go after as context_before"
            )
    return None


def _apply(lines: _SymbolLines, chunks: Sequence[Chunk]) -> tuple[str, ...] | Refused:
    placements: list[_Placement] = []
    for number, chunk in enumerate(chunks, start=1):
        position = lines.position(chunk)
        if isinstance(position, str):
            return Refused(
                "chunk_validation_failed", f"Chunk {number} validation failed: {position}"
            )
        start = position + 1
        placements.append(_Placement(number, chunk, start, start + len(chunk.old_lines)))
    ordered = sorted(placements, key=lambda p: (p.start, p.end))
    widest: _Placement | None = None
    for placement in ordered:
        if widest is not None and _overlap(widest, placement):
            return Refused(
                "overlapping_chunks",
                _overlap_message(lines, widest, placement),
                tuple(
                    _claimed(lines, p) for p in sorted((widest, placement), key=lambda p: p.number)
                ),
            )
        if widest is None or placement.end >= widest.end:
            widest = placement
    result = list(lines.lines)
    # Every position is against the original lines; going from the last chunk to
    # the first means no splice shifts a chunk still to come.
    for placement in reversed(ordered):
        result[placement.start : placement.end] = _new_lines(lines, placement)
    return tuple(result)


def _overlap(earlier: _Placement, later: _Placement) -> bool:
    """Whether two chunks (`earlier` sorted first) claim the same lines, or insert
    at the same point (their order there would be a guess)."""
    if later.start < earlier.end:
        return True
    both_insert = earlier.start == earlier.end and later.start == later.end
    return both_insert and earlier.start == later.start


def _overlap_message(lines: _SymbolLines, first: _Placement, second: _Placement) -> str:
    a, b = sorted((first, second), key=lambda p: p.number)
    return (
        f"Chunks {a.number} and {b.number} overlap: chunk {a.number} {_claims(lines, a)} and "
        f"chunk {b.number} {_claims(lines, b)}; merge them into one chunk"
    )


def _claimed(lines: _SymbolLines, placement: _Placement) -> tuple[int, int]:
    """The 1-based file lines a chunk replaces (the line it inserts before)."""
    first = lines.file_line(placement.start)
    return first, max(first, lines.file_line(placement.end - 1))


def _claims(lines: _SymbolLines, placement: _Placement) -> str:
    if placement.start == placement.end:
        return f"inserts before line {lines.file_line(placement.start)}"
    first, last = lines.file_line(placement.start), lines.file_line(placement.end - 1)
    return f"replaces line {first}" if first == last else f"replaces lines {first}-{last}"


def _new_lines(lines: _SymbolLines, placement: _Placement) -> list[str]:
    """The chunk's new lines, except that a line repeated from old_lines (trailing
    whitespace aside) keeps the document's exact bytes, so it is not rewritten."""
    old = lines.stripped[placement.start : placement.end]
    new = list(placement.chunk.new_lines)
    matcher = SequenceMatcher(None, old, [line.rstrip() for line in new], autojunk=False)
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag == "equal":
            new[j1 : j1 + (i2 - i1)] = lines.lines[placement.start + i1 : placement.start + i2]
    return new


def _already_applied(lines: _SymbolLines, chunks: Sequence[Chunk]) -> bool:
    """Whether every chunk's result is already in the symbol: each fits uniquely
    with old_lines and new_lines swapped."""
    undo = [Chunk(c.context_before, c.new_lines, c.old_lines, c.context_after) for c in chunks]
    return not isinstance(_apply(lines, undo), Refused)


def _find_symbol(
    block: ChunkDiff, text: Text, language: str, symbols_of: SymbolsOf | None
) -> Symbol | Refused:
    # Imported here: symbol lookup needs tree-sitter, the pure core does not.
    from lsp_edit.symbols import index_symbols

    symbols_of = symbols_of or index_symbols
    if block.symbol is not None:
        from lsp_edit.resolve.ast_path import locate_symbol

        parts = _PATH_SEPARATORS.split(block.symbol.strip())
        if not all(parts):
            return Refused(
                "invalid_operation",
                f"The symbol path `{block.symbol}` has an empty part; write it as "
                "`Outer-Inner-name`.",
            )
        located = locate_symbol(text, language, parts, symbols_of=symbols_of)
        if isinstance(located, Refused) or block.line is None:
            return located
        if not located.start_line < block.line <= located.end_line:
            return Refused(
                "invalid_operation",
                f"Line {block.line} is not inside symbol `{located.dotted}` (lines "
                f"{located.start_line + 1}-{located.end_line}); give either symbol or line.",
                ((located.start_line + 1, located.end_line),),
            )
        return located
    if block.line is None:
        return Refused(
            "invalid_operation",
            "The chunk_diff names no symbol: give `symbol` (an AST path) or `line` "
            "(1-based, inside the symbol).",
        )
    return _symbol_at_line(text, language, block.line, block.column, symbols_of)


def _symbol_at_line(
    text: Text, language: str, line: int, column: int | None, symbols_of: SymbolsOf
) -> Symbol | Refused:
    from lsp_edit.symbols import language_for, symbol_at

    if not 1 <= line <= text.line_count:
        return Refused(
            "line_out_of_range",
            f"Line {line} is outside the file, which has {text.line_count} lines.",
        )
    if column is not None and column < 1:
        return Refused("invalid_operation", f"Column {column} is not 1-based (the first is 1).")
    canonical = language_for(language)
    if canonical is None:
        return Refused("unsupported_language", f"No symbol index for language `{language}`.")
    symbols = symbols_of(text, canonical)
    found = symbol_at(symbols, line - 1, None if column is None else column - 1)
    if found is None:
        return Refused(
            "symbol_not_found",
            f"No symbol contains line {line} ({_quote(text.lines[line - 1])}); give a line "
            "inside a function, method or class, or its AST path as `symbol`.",
            ((line, line),),
        )
    return found


def _indent_width(line: str) -> int:
    return len(line) - len(line.lstrip())


def _quote(line: str) -> str:
    shown = line.rstrip()
    if len(shown) > _MAX_QUOTED:
        shown = shown[:_MAX_QUOTED] + "…"
    return f"`{shown}`"


def _list_lines(numbers: Iterable[int]) -> str:
    values = list(numbers)
    listed = ", ".join(str(n) for n in values[:_MAX_LISTED])
    extra = len(values) - _MAX_LISTED
    return f"{listed} and {extra} more" if extra > 0 else listed
