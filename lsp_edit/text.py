"""A document's text as lines, keeping each line's own ending.

Only `\\r\\n`, `\\n` and `\\r` end a line here (never `str.splitlines`, which also
splits on form feeds, `\\x1c`-`\\x1e`, `\\x85` and `\\u2028`, characters a source
file may legitimately hold inside a line).

Every edit goes through `Text.replace`, which keeps what the user's file looks
like: untouched lines are byte-identical, new lines take the file's dominant line
ending (CRLF over LF over CR, LF when the file has none), and the file keeps its
final newline or its lack of one.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from functools import cached_property

from lsp_edit.patterns import LazyPattern
from lsp_edit.values import value

CRLF = "\r\n"
LF = "\n"
CR = "\r"
BOM = "\ufeff"

# Compiled when first used: only a text holding a character of `_NOT_ENDINGS` needs
# `_LINE`, only one holding a `\r` needs `_ENDING`.
_LINE = LazyPattern(r"[^\r\n]*(?:\r\n|\n|\r|$)")
_ENDING = LazyPattern(r"\r\n|\n|\r")
# What `str.splitlines` also ends a line at, and a file's lines do not end with.
_NOT_ENDINGS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def detect_line_ending(text: str) -> str:
    """The dominant line ending: CRLF if any, else LF if any, else CR if any, else LF."""
    if CR not in text:
        return LF  # most files: found at once (looking for CRLF reads the whole text)
    if CRLF in text:
        return CRLF
    if LF in text:
        return LF
    if CR in text:
        return CR
    return LF


def split_lines(text: str) -> list[str]:
    """Splits into lines with their endings kept; `""` gives no lines."""
    if not text:
        return []
    if not any(other in text for other in _NOT_ENDINGS):
        # the same lines, at a seventh of the cost of the pattern
        return text.splitlines(keepends=True)
    lines = _LINE.findall(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def split_content(text: str) -> list[str]:
    """Splits into lines without their endings (how a block's content is read)."""
    return [strip_ending(line) for line in split_lines(text)]


def strip_ending(line: str) -> str:
    if line.endswith(CRLF):
        return line[:-2]
    if line.endswith((LF, CR)):
        return line[:-1]
    return line


def ending_of(line: str) -> str:
    return line[len(strip_ending(line)) :]


@value
class LineEdit:
    """Replace lines `start`..`end` (0-based, end exclusive) with `new_lines`.

    `new_lines` carry no line endings; `Text.replace` gives them the file's.
    `start == end` inserts before line `start`; an empty `new_lines` deletes.
    """

    start: int
    end: int
    new_lines: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"bad line edit {self.start}..{self.end}")

    @property
    def delta(self) -> int:
        return len(self.new_lines) - (self.end - self.start)


@value
class Text:
    """An immutable document text: its lines (each with its ending) and a BOM flag."""

    raw_lines: tuple[str, ...]
    bom: bool = False

    @staticmethod
    def from_string(text: str) -> Text:
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        return Text(tuple(split_lines(text)), bom)

    @staticmethod
    def from_lines(lines: Iterable[str], *, eol: str = LF, final_newline: bool = True) -> Text:
        """Builds a text from lines without endings (a new file's content)."""
        content = list(lines)
        raw = [line + eol for line in content]
        if raw and not final_newline:
            raw[-1] = content[-1]
        return Text(tuple(raw))

    @cached_property
    def lines(self) -> list[str]:
        """The lines without their endings. Do not mutate."""
        body = "".join(self.raw_lines)
        lines = body.split("\n") if "\r" not in body else _ENDING.split(body)
        if self.raw_lines and lines and lines[-1] == "" and self.final_newline:
            lines.pop()
        return lines if self.raw_lines else []

    @cached_property
    def eol(self) -> str:
        """The ending new lines get: the dominant one of this text."""
        return detect_line_ending("".join(self.raw_lines))

    @property
    def final_newline(self) -> bool:
        return bool(self.raw_lines) and ending_of(self.raw_lines[-1]) != ""

    @property
    def line_count(self) -> int:
        return len(self.raw_lines)

    def render(self) -> str:
        body = "".join(self.raw_lines)
        return BOM + body if self.bom else body

    def __str__(self) -> str:
        return self.render()

    def replace(self, edits: Sequence[LineEdit], *, final_newline: bool | None = None) -> Text:
        """Applies non-overlapping edits, all given against this text.

        Kept lines stay byte-identical. Inserted lines take the dominant ending.
        The result keeps this text's final newline or its lack of one (an empty
        text's result gets one, as a new file should), unless `final_newline`
        says otherwise (line operations, whose content decides).
        """
        raw, lines = list(self.raw_lines), list(self.lines)
        eol = self.eol
        _splice(raw, lines, edits, eol, _keeps_final_newline(self, final_newline))
        result = Text(tuple(raw), self.bom)
        # Derived once here rather than re-split: a sequence of edits to a large
        # file would otherwise pay a full split per edit.
        result.__dict__["lines"] = lines
        if self.raw_lines:
            result.__dict__["eol"] = eol
        return result

    def with_raw_lines(self, raw_lines: Sequence[str]) -> Text:
        """The same document (BOM kept) with other raw lines, for callers that
        decide line endings themselves (line operations)."""
        return Text(tuple(raw_lines), self.bom)


def _keeps_final_newline(text: Text | Draft, wanted: bool | None) -> bool:
    """Whether the last line ends with a newline after an edit: as `wanted` says, or
    as it does now (an empty text's result gets one, as a new file should)."""
    if wanted is not None:
        return wanted
    return text.final_newline or not text.raw_lines


_ENDINGS = (LF, CR)  # what every line ending ends with


def _splice(
    raw: list[str], lines: list[str], edits: Sequence[LineEdit], eol: str, final_newline: bool
) -> list[LineEdit]:
    """Applies non-overlapping edits, all given against `raw`/`lines`, in place: from
    the last one up, so each edit's lines are still where it says. Returns the edits
    in the order made."""
    ordered = list(edits)
    if len(ordered) > 1:
        ordered.sort(key=lambda e: (e.start, e.end), reverse=True)
        for after, before in itertools.pairwise(ordered):
            if after.start < before.end:
                raise ValueError(f"overlapping edits at lines {before.start}..{before.end}")
    if ordered and ordered[0].end > len(raw):
        raise ValueError(f"edit past the end of a {len(raw)}-line text")
    for edit in ordered:
        raw[edit.start : edit.end] = [line + eol for line in edit.new_lines]
        lines[edit.start : edit.end] = edit.new_lines
        # a line that ended the file without an ending gets one when lines follow it
        above = edit.start - 1
        if edit.new_lines and above >= 0 and not raw[above].endswith(_ENDINGS):
            raw[above] += eol
    if raw:
        last = raw[-1]
        if final_newline and not last.endswith(_ENDINGS):
            raw[-1] = last + eol
        elif not final_newline:
            raw[-1] = strip_ending(last)
            if not raw[-1]:
                # an empty last line without an ending is no line at all
                raw.pop()
                lines.pop()
    return ordered


class Draft:
    """A file's text while the blocks of one reply land in it one after another:
    its lines are changed in place, so each block costs what it changes, not the
    size of the file (`Text.replace` copies every line). `log` lists every edit
    made, as `(start, end, new_lines)` against the text as it was then, for
    indexes that follow the draft rather than rebuild. `text()` gives the result.
    """

    def __init__(self, text: Text) -> None:
        self.raw_lines: list[str] = list(text.raw_lines)
        self.lines: list[str] = list(text.lines)
        self.bom = text.bom
        self.eol = text.eol
        self.log: list[tuple[int, int, tuple[str, ...]]] = []
        self._text: Text | None = text
        # the resolver's index of these lines, which follows `log` (resolve/ladder.py)
        self.line_index: object = None

    @property
    def final_newline(self) -> bool:
        return bool(self.raw_lines) and self.raw_lines[-1].endswith(_ENDINGS)

    @property
    def line_count(self) -> int:
        return len(self.raw_lines)

    def replace(self, edits: Sequence[LineEdit], *, final_newline: bool | None = None) -> None:
        """What `Text.replace` does, done to this draft."""
        raw = self.raw_lines
        had_lines = bool(raw)
        keeps = _keeps_final_newline(self, final_newline)
        expected = len(raw)
        for edit in _splice(raw, self.lines, edits, self.eol, keeps):
            self.log.append((edit.start, edit.end, edit.new_lines))
            expected += len(edit.new_lines) - (edit.end - edit.start)
        if len(raw) != expected:
            # the empty last line dropped at the end of the file
            self.log.append((len(raw), len(raw) + 1, ()))
        if not had_lines:
            # as `Text.replace` gives an empty text's result: the ending its lines have
            self.eol = detect_line_ending("".join(raw))
        self._text = None

    def holds(self, text: Text) -> bool:
        """Whether the draft is still `text` (the one it gave or was made from)."""
        return self._text is text

    def text(self) -> Text:
        """The draft as a `Text` (built once per state)."""
        if self._text is None:
            text = Text(tuple(self.raw_lines), self.bom)
            text.__dict__["lines"] = list(self.lines)
            text.__dict__["eol"] = self.eol
            self._text = text
        return self._text
