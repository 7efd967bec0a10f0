"""Line and column numbers as users and LLMs write them (1-based), and the one place
that converts them to and from LSP's 0-based positions.

`LineNumber`, `LineRange` and `ColumnNumber` hold their invariants; their `try_create`
constructors return a `PositionError` instead of raising, because bad numbers come
from LLM replies and JSON operations, where a failure is an expected result.

LSP counts columns in the negotiated position encoding: UTF-16 code units by
default, or UTF-8 bytes, or UTF-32 code points. Python strings index code points
(UTF-32), so every column crossing the LSP edge goes through `to_lsp_character` /
`from_lsp_character` here.
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import total_ordering

from lsp_edit.values import value

MINIMUM_LINE = 1
MINIMUM_COLUMN = 1


@value
class PositionError:
    """Why a number or range could not be made; readable by a user or an LLM."""

    message: str


@total_ordering
@value
class LineNumber:
    """A 1-based line number; always >= 1."""

    value: int

    def __post_init__(self) -> None:
        if self.value < MINIMUM_LINE:
            raise ValueError(f"line number must be >= {MINIMUM_LINE}, got {self.value}")

    @staticmethod
    def try_create(value: int) -> LineNumber | PositionError:
        if isinstance(value, bool) or not isinstance(value, int):
            return PositionError(f"line number must be an integer, got {value!r}")
        if value < MINIMUM_LINE:
            return PositionError(f"line number must be {MINIMUM_LINE} or more, got {value}")
        return LineNumber(value)

    @property
    def index(self) -> int:
        """The 0-based index of this line (LSP's `line`)."""
        return self.value - 1

    @staticmethod
    def from_index(index: int) -> LineNumber:
        return LineNumber(index + 1)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, LineNumber):
            return NotImplemented
        return self.value < other.value

    def __str__(self) -> str:
        return str(self.value)


@total_ordering
@value
class ColumnNumber:
    """A 1-based column, counted in characters (code points) of the line."""

    value: int

    def __post_init__(self) -> None:
        if self.value < MINIMUM_COLUMN:
            raise ValueError(f"column number must be >= {MINIMUM_COLUMN}, got {self.value}")

    @staticmethod
    def try_create(value: int) -> ColumnNumber | PositionError:
        if isinstance(value, bool) or not isinstance(value, int):
            return PositionError(f"column number must be an integer, got {value!r}")
        if value < MINIMUM_COLUMN:
            return PositionError(f"column number must be {MINIMUM_COLUMN} or more, got {value}")
        return ColumnNumber(value)

    @property
    def index(self) -> int:
        return self.value - 1

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, ColumnNumber):
            return NotImplemented
        return self.value < other.value


@value
class LineRange:
    """An inclusive range of lines, `start <= end`, both 1-based."""

    start: LineNumber
    end: LineNumber

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"line range end {self.end} is before start {self.start}")

    @staticmethod
    def try_create(start: LineNumber, end: LineNumber) -> LineRange | PositionError:
        if end < start:
            return PositionError(f"end line {end} is before start line {start}")
        return LineRange(start, end)

    @staticmethod
    def of(start: int, end: int) -> LineRange | PositionError:
        """Builds a range from two plain integers, validating both."""
        first = LineNumber.try_create(start)
        if isinstance(first, PositionError):
            return first
        last = LineNumber.try_create(end)
        if isinstance(last, PositionError):
            return last
        return LineRange.try_create(first, last)

    @property
    def count(self) -> int:
        return self.end.value - self.start.value + 1

    def __contains__(self, line: object) -> bool:
        return isinstance(line, LineNumber) and self.start <= line <= self.end

    def __str__(self) -> str:
        if self.start == self.end:
            return f"line {self.start}"
        return f"lines {self.start}-{self.end}"


@value
class LineTail:
    """What a `N` or `A:B` tail said, before a grammar gives it a meaning.

    `end` is None for a single number. Fenced blocks read `A:B` as end-exclusive,
    line operations as inclusive; each caller interprets the two numbers.
    """

    start: LineNumber
    end: LineNumber | None


_TAIL = re.compile(r"\s*(\d+)\s*(?::\s*(\d+)\s*)?")


def parse_line_tail(text: str, *, normalise_inverted: bool = False) -> LineTail | PositionError:
    """Reads `N` or `A:B`.

    With `normalise_inverted`, `7:3` becomes `3:7` (the order of the two numbers
    does not matter in that grammar); without it, an inverted pair is an error.
    """
    match = _TAIL.fullmatch(text)
    if match is None:
        return PositionError(f"expected a line number or `start:end`, got {text!r}")
    start = LineNumber.try_create(int(match.group(1)))
    if isinstance(start, PositionError):
        return start
    if match.group(2) is None:
        return LineTail(start, None)
    end = LineNumber.try_create(int(match.group(2)))
    if isinstance(end, PositionError):
        return end
    if end < start:
        if not normalise_inverted:
            return PositionError(f"start line {start} is after end line {end}")
        start, end = end, start
    return LineTail(start, end)


def tail_as_range(tail: LineTail) -> LineRange:
    """The inclusive range a tail names: `N` is the one line `N:N`."""
    return LineRange(tail.start, tail.end if tail.end is not None else tail.start)


class PositionEncoding(StrEnum):
    """LSP's `PositionEncodingKind` values."""

    UTF16 = "utf-16"
    UTF8 = "utf-8"
    UTF32 = "utf-32"

    @staticmethod
    def negotiate(offered: list[str] | None) -> PositionEncoding:
        """Picks the encoding to use from the client's `general.positionEncodings`.

        UTF-32 costs nothing in Python, UTF-8 next; UTF-16 is the LSP default and
        the answer when the client offers nothing we know.
        """
        if offered:
            for preferred in (PositionEncoding.UTF32, PositionEncoding.UTF8):
                if preferred.value in offered:
                    return preferred
        return PositionEncoding.UTF16


def _units(char: str, encoding: PositionEncoding) -> int:
    code = ord(char)
    if encoding is PositionEncoding.UTF32:
        return 1
    if encoding is PositionEncoding.UTF16:
        return 2 if code > 0xFFFF else 1
    if code < 0x80:
        return 1
    if code < 0x800:
        return 2
    if code < 0x10000:
        return 3
    return 4


def to_lsp_character(line: str, index: int, encoding: PositionEncoding) -> int:
    """The LSP `character` of code point `index` in `line` (no line ending)."""
    index = max(0, min(index, len(line)))
    if encoding is PositionEncoding.UTF32 or line.isascii():
        return index
    return sum(_units(c, encoding) for c in line[:index])


def from_lsp_character(line: str, character: int, encoding: PositionEncoding) -> int:
    """The code point index for LSP `character` in `line`.

    A `character` past the end clamps to the end (as LSP specifies); one that falls
    inside a character (half a surrogate pair, a byte inside a UTF-8 sequence)
    rounds down to that character's start.
    """
    if character <= 0:
        return 0
    if encoding is PositionEncoding.UTF32 or line.isascii():
        return min(character, len(line))
    units = 0
    for index, char in enumerate(line):
        width = _units(char, encoding)
        if units + width > character:
            return index
        units += width
    return len(line)


@value
class Point:
    """A 0-based (line, code point column) place in a text; the engine's own position."""

    line: int
    column: int


@value
class LspPosition:
    """LSP's position without the lsprotocol type, so the engine stays free of it."""

    line: int
    character: int


def point_to_lsp(lines: list[str], point: Point, encoding: PositionEncoding) -> LspPosition:
    """Converts a point to LSP; a point past the last line maps to the end of the text."""
    if point.line >= len(lines):
        return LspPosition(len(lines), 0)
    return LspPosition(point.line, to_lsp_character(lines[point.line], point.column, encoding))


def lsp_to_point(lines: list[str], position: LspPosition, encoding: PositionEncoding) -> Point:
    """Converts an LSP position to a point, clamped to the text."""
    if position.line < 0:
        return Point(0, 0)
    if position.line >= len(lines):
        return Point(len(lines), 0)
    line = lines[position.line]
    return Point(position.line, from_lsp_character(line, position.character, encoding))
