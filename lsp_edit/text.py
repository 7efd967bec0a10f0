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
from collections.abc import Collection, Iterable, Sequence
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


class Text:
    """An immutable document text: its lines (each with its ending) and a BOM flag.

    A text whose lines all end alike (the last one may have no ending), as most files'
    do, is kept as its lines without endings, the ending and whether the last line has
    it: its `raw_lines` are made only when asked for, so reading a file splits it once.
    """

    bom: bool

    def __init__(self, raw_lines: tuple[str, ...], bom: bool = False) -> None:
        self.__dict__.update(raw_lines=raw_lines, bom=bom)

    @staticmethod
    def _ending_alike(lines: list[str], eol: str, last_ends: bool, bom: bool) -> Text:
        """The text of `lines`, each ended with `eol` but the last, which is when
        `last_ends`."""
        text = Text.__new__(Text)
        text.__dict__.update(lines=lines, eol=eol, bom=bom, _last_ends=last_ends and bool(lines))
        return text

    @staticmethod
    def from_string(text: str) -> Text:
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        eol = _single_ending(text)
        if eol is None:
            result = Text(tuple(split_lines(text)), bom)
        else:
            lines = text.split(eol)
            last_ends = lines[-1] == ""
            if last_ends:
                lines.pop()
            result = Text._ending_alike(lines, eol, last_ends, bom)
        result.__dict__["_joined"] = text
        return result

    @staticmethod
    def from_lines(lines: Iterable[str], *, eol: str = LF, final_newline: bool = True) -> Text:
        """Builds a text from lines without endings (a new file's content)."""
        content = list(lines)
        raw = [line + eol for line in content]
        if raw and not final_newline:
            raw[-1] = content[-1]
        return Text(tuple(raw))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a Text is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a Text is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Text):
            return NotImplemented
        if self.bom != other.bom:
            return False
        if self._ends_alike and other._ends_alike:
            return self.lines == other.lines and (
                not self.lines or (self.eol, self.final_newline) == (other.eol, other.final_newline)
            )
        return self.raw_lines == other.raw_lines

    def __hash__(self) -> int:
        return hash((self.raw_lines, self.bom))

    def __repr__(self) -> str:
        return f"Text(raw_lines={self.raw_lines!r}, bom={self.bom!r})"

    @property
    def _ends_alike(self) -> bool:
        """Whether the text is kept as its lines without endings (see the class)."""
        return "_last_ends" in self.__dict__

    @cached_property
    def raw_lines(self) -> tuple[str, ...]:
        """The lines, each with its ending (made from the lines of a text whose lines
        end alike, when first asked for)."""
        eol, lines = self.eol, self.lines
        raw = [line + eol for line in lines]
        if raw and not self.__dict__["_last_ends"]:
            raw[-1] = lines[-1]
        return tuple(raw)

    def lines_joined(self) -> str:
        """The lines joined with `\\n`, without a BOM or a last ending (what a parser
        reads), made without joining them again when they already are."""
        if self._ends_alike and self.eol == LF:
            joined = self._joined
            return joined[:-1] if self.final_newline else joined
        return LF.join(self.lines)

    def raw_slice(self, start: int, end: int) -> list[str]:
        """The lines from `start` to `end` (0-based, end excluded), each with its
        ending, made without the others'."""
        if not self._ends_alike:
            return list(self.raw_lines[start:end])
        eol, lines = self.eol, self.lines
        raw = [line + eol for line in lines[start:end]]
        if raw and not self.__dict__["_last_ends"] and start + len(raw) == len(lines):
            raw[-1] = lines[-1]
        return raw

    @cached_property
    def lines(self) -> list[str]:
        """The lines without their endings. Do not mutate."""
        body = self._joined
        lines = body.split("\n") if "\r" not in body else _ENDING.split(body)
        if self.raw_lines and lines and lines[-1] == "" and self.final_newline:
            lines.pop()
        return lines if self.raw_lines else []

    @cached_property
    def eol(self) -> str:
        """The ending new lines get: the dominant one of this text."""
        return detect_line_ending(self._joined)

    @cached_property
    def _joined(self) -> str:
        """The text without its BOM."""
        if self._ends_alike:
            # the last line's ending joined too, rather than the whole text copied to add it
            return self.eol.join([*self.lines, ""] if self.final_newline else self.lines)
        return "".join(self.raw_lines)

    @property
    def final_newline(self) -> bool:
        if self._ends_alike:
            return bool(self.__dict__["_last_ends"])
        return bool(self.raw_lines) and ending_of(self.raw_lines[-1]) != ""

    @property
    def line_count(self) -> int:
        return len(self.lines) if self._ends_alike else len(self.raw_lines)

    def render(self) -> str:
        return BOM + self._joined if self.bom else self._joined

    def __str__(self) -> str:
        return self.render()

    def replace(self, edits: Sequence[LineEdit], *, final_newline: bool | None = None) -> Text:
        """Applies non-overlapping edits, all given against this text.

        Kept lines stay byte-identical. Inserted lines take the dominant ending.
        The result keeps this text's final newline or its lack of one (an empty
        text's result gets one, as a new file should), unless `final_newline`
        says otherwise (line operations, whose content decides).
        """
        keeps = _keeps_final_newline(self, final_newline)
        lines = list(self.lines)
        eol = self.eol
        if self._ends_alike:
            _, last_ends = _splice_alike(lines, edits, keeps)
            if not self.lines:
                eol = _ending_found(lines, eol, last_ends)  # as an empty text's result
            return Text._ending_alike(lines, eol, last_ends, self.bom)
        raw = list(self.raw_lines)
        _splice(raw, lines, edits, eol, keeps)
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


def _single_ending(text: str) -> str | None:
    """The one ending every line of `text` has (LF for a text of one line or none),
    or None when it has several."""
    if CR not in text:
        return LF
    crs = text.count(CR)
    if LF not in text:
        return CR
    if crs == text.count(CRLF) == text.count(LF):
        return CRLF
    return None


def _ending_found(lines: list[str], eol: str, last_ends: bool) -> str:
    """The ending `detect_line_ending` finds in lines that end alike: LF when none has
    one."""
    return eol if len(lines) > 1 or (lines and last_ends) else LF


def _keeps_final_newline(text: Text | Draft, wanted: bool | None) -> bool:
    """Whether the last line ends with a newline after an edit: as `wanted` says, or
    as it does now (an empty text's result gets one, as a new file should)."""
    if wanted is not None:
        return wanted
    return text.final_newline or not text.line_count


_ENDINGS = (LF, CR)  # what every line ending ends with


def _in_order(edits: Sequence[LineEdit], count: int) -> list[LineEdit]:
    """Non-overlapping edits of `count` lines, last first (each edit's lines are then
    still where it says when it is made)."""
    ordered = list(edits)
    if len(ordered) > 1:
        ordered.sort(key=lambda e: (e.start, e.end), reverse=True)
        for after, before in itertools.pairwise(ordered):
            if after.start < before.end:
                raise ValueError(f"overlapping edits at lines {before.start}..{before.end}")
    if ordered and ordered[0].end > count:
        raise ValueError(f"edit past the end of a {count}-line text")
    return ordered


def _splice(
    raw: list[str], lines: list[str], edits: Sequence[LineEdit], eol: str, final_newline: bool
) -> list[LineEdit]:
    """Applies non-overlapping edits, all given against `raw`/`lines`, in place: from
    the last one up, so each edit's lines are still where it says. Returns the edits
    in the order made."""
    ordered = _in_order(edits, len(raw))
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


def _splice_alike(
    lines: list[str], edits: Sequence[LineEdit], final_newline: bool
) -> tuple[list[LineEdit], bool]:
    """What `_splice` does, done to the lines of a text whose lines end alike: every
    line but the last has the ending, before and after. Returns the edits in the
    order made, and whether the last line now has the ending."""
    ordered = _in_order(edits, len(lines))
    for edit in ordered:
        lines[edit.start : edit.end] = edit.new_lines
    if final_newline or not lines:
        return ordered, bool(lines)
    if lines[-1] == "":
        # an empty last line without an ending is no line at all; the one above
        # keeps its ending
        lines.pop()
        return ordered, bool(lines)
    return ordered, False


class Draft:
    """A file's text while the blocks of one reply land in it one after another:
    its lines are changed in place, so each block costs what it changes, not the
    size of the file (`Text.replace` copies every line). `log` lists every edit
    made, as `(start, end, new_lines)` against the text as it was then, for
    indexes that follow the draft rather than rebuild. `text()` gives the result.

    The lines of a text whose lines end alike are changed without their endings.
    """

    def __init__(self, text: Text) -> None:
        self.lines: list[str] = list(text.lines)
        # each line with its ending, only for a text whose lines do not end alike
        self._raw: list[str] | None = None if text._ends_alike else list(text.raw_lines)
        self._last_ends = text.final_newline
        self.bom = text.bom
        self.eol = text.eol
        self.log: list[tuple[int, int, tuple[str, ...]]] = []
        self._text: Text | None = text
        # the resolver's index of these lines, which follows `log` (resolve/ladder.py)
        self.line_index: object = None
        # the lines the blocks still to land here will look for, when known: the
        # index finds those alone rather than index every line
        self.sought: Collection[str] = ()

    @property
    def final_newline(self) -> bool:
        if self._raw is None:
            return self._last_ends
        return bool(self._raw) and self._raw[-1].endswith(_ENDINGS)

    @property
    def line_count(self) -> int:
        return len(self.lines)

    def replace(self, edits: Sequence[LineEdit], *, final_newline: bool | None = None) -> None:
        """What `Text.replace` does, done to this draft."""
        lines = self.lines
        had_lines = bool(lines)
        keeps = _keeps_final_newline(self, final_newline)
        expected = len(lines)
        if self._raw is None:
            made, self._last_ends = _splice_alike(lines, edits, keeps)
        else:
            made = _splice(self._raw, lines, edits, self.eol, keeps)
        for edit in made:
            self.log.append((edit.start, edit.end, edit.new_lines))
            expected += len(edit.new_lines) - (edit.end - edit.start)
        if len(lines) != expected:
            # the empty last line dropped at the end of the file
            self.log.append((len(lines), len(lines) + 1, ()))
        if not had_lines:
            self.eol = self._ending_of_lines_made()
        self._text = None

    def _ending_of_lines_made(self) -> str:
        """As `Text.replace` gives an empty text's result: the ending its lines have."""
        if self._raw is None:
            return _ending_found(self.lines, self.eol, self._last_ends)
        return detect_line_ending("".join(self._raw))

    def holds(self, text: Text) -> bool:
        """Whether the draft is still `text` (the one it gave or was made from)."""
        return self._text is text

    def text(self) -> Text:
        """The draft as a `Text` (built once per state)."""
        if self._text is None:
            if self._raw is None:
                self._text = Text._ending_alike(
                    list(self.lines), self.eol, self._last_ends, self.bom
                )
            else:
                text = Text(tuple(self._raw), self.bom)
                text.__dict__["lines"] = list(self.lines)
                text.__dict__["eol"] = self.eol
                self._text = text
        return self._text
