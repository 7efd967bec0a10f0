"""Pending changes as hunks of the buffer as it is, and how the buffer's lines follow
the user's typing. No LSP types here: columns are code point indices and lines are
0-based, as in `positions.Point`.

A reply's blocks are placed in order, each on the result of the ones before
(`changes.Planner`), but the user reviews them against the buffer they have.
`Composer` turns each change's edits into hunks of that buffer: a change whose
edit touches lines an earlier change wrote is shown as one hunk covering both,
and depends on it (accepting it accepts that one too).

`TrackedBuffer` keeps a copy of a buffer's lines and turns each edit the editor
reports into a `Splice`: which whole lines were replaced by how many. The store
moves hunks with splices above them and judges those whose own lines changed.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from itertools import accumulate
from typing import overload

from lsp_edit.positions import Point
from lsp_edit.resolve.diffing import minimal_edits
from lsp_edit.text import LineEdit, Text, detect_line_ending, split_lines, strip_ending
from lsp_edit.values import field, record, value


@value
class Splice:
    """Lines `start`..`end` (0-based, end exclusive) of the buffer became `count` lines."""

    start: int
    end: int
    count: int

    @property
    def delta(self) -> int:
        return self.count - (self.end - self.start)


@value
class BaseHunk:
    """Lines `start`..`end` of the base text become `new`."""

    start: int
    end: int
    new: tuple[str, ...]


@value
class Placement:
    """A change's effect on the base text, and the earlier changes it builds on."""

    hunks: tuple[BaseHunk, ...]
    depends_on: tuple[str, ...]


@record(eq=False)
class _Segment:
    """A run of lines of the text after the changes so far: base lines
    `base_start`..`base_end` as they are (`owner` None), or the lines a change
    wrote in place of them."""

    owner: str | None
    base_start: int
    base_end: int
    lines: tuple[str, ...] | None = None
    length: int = field(init=False)

    def __post_init__(self) -> None:
        self.length = self.base_end - self.base_start if self.lines is None else len(self.lines)

    @property
    def written(self) -> bool:
        return self.owner is not None

    @property
    def stands_at_one_point(self) -> bool:
        """A pure deletion (no lines) or a pure insertion (no base lines): another
        insertion at the same place could go before or after it."""
        return self.written and (self.length == 0 or self.base_start == self.base_end)


class Composer:
    """Maps the edits of changes placed in sequence onto the base text."""

    def __init__(self, base: Sequence[str]) -> None:
        self._base = base
        self._segments = [_Segment(None, 0, len(base))] if base else []
        self._lengths = [len(base)] if base else []  # each segment's length, in step
        self._depends: dict[str, tuple[str, ...]] = {}
        # Where each segment starts (and, last, the line count), rebuilt when the
        # segments change: a reply's edits find their segment by bisection.
        self._starts: list[int] | None = None
        self._written: list[_Segment] = []  # the segments of the change being added

    def add(self, change: str, edits: Sequence[LineEdit]) -> Placement:
        """Takes a change's edits (against the text with every earlier change applied)."""
        direct: set[str] = set()
        self._written = []
        for edit in sorted(self._smallest(edits), key=lambda e: (e.start, e.end), reverse=True):
            direct |= self._apply(change, edit)
        direct.discard(change)
        every = set(direct)
        for earlier in direct:
            every.update(self._depends.get(earlier, ()))
        ordered = tuple(sorted(every, key=_id_order))
        self._depends[change] = ordered
        return Placement(self._hunks_of(change), ordered)

    def _smallest(self, edits: Sequence[LineEdit]) -> list[LineEdit]:
        """Each edit cut down to the lines it really changes, so that a change shows
        (and is tracked) on those lines only, not on the context it repeats."""
        smallest: list[LineEdit] = []
        for edit in edits:
            if edit.start == edit.end or not edit.new_lines:
                smallest.append(edit)
                continue
            first = self._boundary(edit.start, inside_written="before")
            last = self._boundary(edit.end, inside_written="after")
            start_line = self._line_of(first)
            old = self._content(first, last)[edit.start - start_line : edit.end - start_line]
            smallest.extend(minimal_edits(old, edit.new_lines, edit.start))
        return smallest

    def _apply(self, change: str, edit: LineEdit) -> set[str]:
        first, last = self._covering(edit)
        start_line = self._line_of(first)
        content = self._content(first, last)
        new = content[: edit.start - start_line] + edit.new_lines + content[edit.end - start_line :]
        covered = self._segments[first:last]
        base_start = covered[0].base_start if covered else self._base_point(first)
        base_end = covered[-1].base_end if covered else base_start
        written = _Segment(change, base_start, base_end, new)
        self._segments[first:last] = [written]
        self._lengths[first:last] = [written.length]
        self._starts = None
        # An earlier edit of the same change merged into this one is no hunk of its own.
        self._written = [s for s in self._written if s not in covered] + [written]
        return {segment.owner for segment in covered if segment.owner is not None}

    def _covering(self, edit: LineEdit) -> tuple[int, int]:
        """The segments the edit's lines fall in, whole: a written run it touches is
        taken whole; base runs are split at the edit's bounds."""
        first = self._boundary(edit.start, inside_written="before")
        if edit.start == edit.end:
            last = first
            while first > 0 and self._segments[first - 1].stands_at_one_point:
                first -= 1
            while last < len(self._segments) and self._segments[last].stands_at_one_point:
                last += 1
            return first, last
        last = self._boundary(edit.end, inside_written="after")
        while first < last and self._segments[first].length == 0:
            first += 1  # a deletion just before the edit's lines is not touched
        return first, last

    def _boundary(self, line: int, *, inside_written: str) -> int:
        """The index of the segment starting at `line`, splitting a base run there;
        inside a written run, the index before or after that run."""
        starts = self._segment_starts()
        index = bisect_left(starts, line)
        if index < len(starts) and starts[index] == line:
            return index
        if index >= len(starts):
            return len(self._segments)
        index -= 1
        segment = self._segments[index]
        if segment.written:
            return index if inside_written == "before" else index + 1
        offset = line - starts[index]
        head = _Segment(None, segment.base_start, segment.base_start + offset)
        tail = _Segment(None, segment.base_start + offset, segment.base_end)
        self._segments[index : index + 1] = [head, tail]
        self._lengths[index : index + 1] = [head.length, tail.length]
        starts.insert(index + 1, line)
        return index + 1

    def _segment_starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0, *accumulate(self._lengths)]
        return self._starts

    def _line_of(self, index: int) -> int:
        return self._segment_starts()[index]

    def _base_point(self, index: int) -> int:
        if index < len(self._segments):
            return self._segments[index].base_start
        return self._segments[-1].base_end if self._segments else 0

    def _content(self, first: int, last: int) -> tuple[str, ...]:
        lines: list[str] = []
        for segment in self._segments[first:last]:
            if segment.lines is None:
                lines.extend(self._base[segment.base_start : segment.base_end])
            else:
                lines.extend(segment.lines)
        return tuple(lines)

    def _hunks_of(self, change: str) -> tuple[BaseHunk, ...]:
        hunks: list[BaseHunk] = []
        for segment in sorted(self._written, key=lambda s: (s.base_start, s.base_end)):
            lines = segment.lines or ()
            if hunks and hunks[-1].end == segment.base_start:
                previous = hunks.pop()
                hunks.append(BaseHunk(previous.start, segment.base_end, previous.new + lines))
            else:
                hunks.append(BaseHunk(segment.base_start, segment.base_end, lines))
        return tuple(hunks)


def _id_order(change: str) -> tuple[int, str]:
    return (int(change), change) if change.isdigit() else (0, change)


class TrackedBuffer:
    """A copy of one buffer's raw lines (each with its ending), kept in step with
    the editor's edits so that every edit becomes a line-level `Splice`. `raw` is
    read here and changed only through the methods (which forget `text()`)."""

    def __init__(self, raw: Iterable[str], bom: bool = False) -> None:
        self.raw: list[str] = list(raw)
        self.bom = bom
        self._text: Text | None = None

    @staticmethod
    def of(text: Text) -> TrackedBuffer:
        buffer = TrackedBuffer(text.raw_lines, text.bom)
        buffer._text = text
        return buffer

    def text(self) -> Text:
        """The buffer as a text, made once per version of it: an agent's calls one
        after another read the same 20,000 lines as often."""
        if self._text is None:
            self._text = Text(tuple(self.raw), self.bom)
        return self._text

    def holds(self, text: Text) -> bool:
        """Whether the buffer's text is `text` (at once when it is the one `text()`
        gave)."""
        return self._text is text or (self.raw == list(text.raw_lines) and self.bom == text.bom)

    def lines(self, start: int, end: int) -> tuple[str, ...]:
        return tuple(strip_ending(line) for line in self.raw[start:end])

    @property
    def line_count(self) -> int:
        return len(self.raw)

    def edit(self, start: Point, end: Point, new_text: str) -> Splice:
        """Applies one edit between two points (columns in code points, clamped to
        each line's content) and returns the whole lines it changed."""
        return self._edit(start, end, new_text)[0]

    def _edit(self, start: Point, end: Point, new_text: str) -> tuple[Splice, list[str]]:
        count = len(self.raw)
        first = min(start.line, count)
        last = min(max(end.line, first), count)
        head = _content(self.raw, first)[: max(start.column, 0)] if first < count else ""
        tail = ""
        if last < count:
            line = self.raw[last]
            content = strip_ending(line)
            tail = content[min(max(end.column, 0), len(content)) :] + line[len(content) :]
        old_end = min(last + 1, count)
        replaced = split_lines(head + new_text + tail)
        return self._replace(first, old_end, replaced)

    def append(self, text: str) -> int:
        """Adds `text` at the end; returns the first line it changed."""
        raw = self.raw
        if raw and not raw[-1].endswith("\n"):
            # The last line goes on (a "\r" ending it may meet its "\n" now).
            first = len(raw) - 1
            raw[first:] = split_lines(raw[first] + text)
        else:
            first = len(raw)
            raw.extend(split_lines(text))
        self._text = None
        return first

    def apply(self, batch: Sequence[Replacement | Text]) -> Before:
        """Applies an editor's batch of changes, each ranged (`Replacement`, against
        the lines the one before left) or a whole new text; returns the lines as they
        were before, read through the lines as they are now."""
        log: list[tuple[Splice, list[str]]] = []
        for change in batch:
            if isinstance(change, Text):
                log.extend(self._replace_all(change))
            else:
                log.append(self._edit(change.start, change.end, change.text))
        return Before(self.raw, log)

    def replace_all(self, text: Text) -> list[Splice]:
        """The whole text is new (full sync, a file read again from disk): the
        splices, last first, so that each applies to the lines the one before left."""
        return [splice for splice, _ in self._replace_all(text)]

    def _replace_all(self, text: Text) -> list[tuple[Splice, list[str]]]:
        old, new = self.raw, list(text.raw_lines)
        head = 0
        while head < len(old) and head < len(new) and old[head] == new[head]:
            head += 1
        tail = 0
        while (
            tail < len(old) - head and tail < len(new) - head and old[-1 - tail] == new[-1 - tail]
        ):
            tail += 1
        # Only the lines between the common head and tail are compared line by line.
        matcher = SequenceMatcher(
            None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
        )
        splices = [
            (Splice(head + i1, head + i2, j2 - j1), old[head + i1 : head + i2])
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"
        ]
        self.raw = new
        self.bom = text.bom
        self._text = text
        return splices[::-1]

    def _replace(self, start: int, end: int, replaced: list[str]) -> tuple[Splice, list[str]]:
        """The lines replaced, as a splice, and the lines it removed."""
        old = self.raw[start:end]
        # Lines equal at both ends were not touched: typing "x\n" at the start of a
        # line inserts a line before it; it does not rewrite it.
        low, high_old, high_new = 0, len(old), len(replaced)
        while high_old > low and high_new > low and old[high_old - 1] == replaced[high_new - 1]:
            high_old -= 1
            high_new -= 1
        while low < high_old and low < high_new and old[low] == replaced[low]:
            low += 1
        self.raw[start:end] = replaced
        self._text = None
        return Splice(start + low, start + high_old, high_new - low), old[low:high_old]


def _content(raw: Sequence[str], index: int) -> str:
    return strip_ending(raw[index])


@value
class Replacement:
    """Text between two points of a buffer to replace: what an editor applies."""

    start: Point
    end: Point
    text: str


def replacement(
    raw: Sequence[str],
    eol: str,
    edits: Sequence[LineEdit],
    *,
    final_newline: bool | None = None,
) -> list[Replacement]:
    """The smallest text replacements that make `raw` what `Text.replace` makes of
    it: kept lines stay byte-identical, new lines take the file's ending `eol`,
    the final newline is kept (or set by `final_newline`)."""
    out: list[Replacement] = []
    count = len(raw)
    groups = _touching(sorted(edits, key=lambda e: (e.start, e.end)), count)
    for index, (low, high, group) in enumerate(groups):
        if final_newline is not None and index == len(groups) - 1:
            # The last edit decides how the file ends: its window reaches the end.
            high = count
        window = Text(tuple(raw[low:high]))
        # The window's own dominant ending may not be the file's.
        window.__dict__["eol"] = eol
        at_end = high == count
        changed = window.replace(
            tuple(LineEdit(e.start - low, e.end - low, e.new_lines) for e in group),
            final_newline=final_newline if at_end else None,
        )
        out.extend(_trimmed(raw, low, list(window.raw_lines), list(changed.raw_lines)))
    return out


def _touching(ordered: Sequence[LineEdit], count: int) -> list[tuple[int, int, list[LineEdit]]]:
    """The edits in groups whose windows (a line of context each side) touch: each
    group is one replacement, so that no two replacements overlap (an edit at the
    end of a file without a final newline rewrites the line above it)."""
    groups: list[tuple[int, int, list[LineEdit]]] = []
    for edit in ordered:
        low, high = max(0, edit.start - 1), min(count, edit.end + 1)
        if groups and low <= groups[-1][1]:
            first, last, group = groups[-1]
            groups[-1] = (first, max(last, high), [*group, edit])
        else:
            groups.append((low, high, [edit]))
    return groups


def _trimmed(raw: Sequence[str], low: int, old: list[str], new: list[str]) -> list[Replacement]:
    head = 0
    while head < len(old) and head < len(new) and old[head] == new[head]:
        head += 1
    old_end, new_end = len(old), len(new)
    while old_end > head and new_end > head and old[old_end - 1] == new[new_end - 1]:
        old_end -= 1
        new_end -= 1
    if head == old_end and head == new_end:
        return []
    return [
        Replacement(
            _point_before(raw, low + head),
            _point_before(raw, low + old_end),
            "".join(new[head:new_end]),
        )
    ]


def _point_before(raw: Sequence[str], line: int) -> Point:
    """The point where line `line` starts; past the last line, the end of the text
    (which is the start of a line only when the text ends with a newline)."""
    if line < len(raw) or not raw:
        return Point(line, 0)
    last = raw[-1]
    content = strip_ending(last)
    if len(content) < len(last):
        return Point(len(raw), 0)
    return Point(len(raw) - 1, len(content))


# --- what an editor's batch of changes means -------------------------------------------


@value
class Window:
    """Where a batch of edits changed a buffer: raw lines `start`..`old_end` of the
    text before are lines `start`..`new_end` of the text after; every other line is
    the same (shifted by `delta` below the window)."""

    start: int
    old_end: int
    new_end: int

    @property
    def delta(self) -> int:
        return self.new_end - self.old_end

    def near(self, start: int, end: int) -> bool:
        """Whether lines `start`..`end` (before the batch) touch the window or the
        line on either side of it."""
        return start <= self.old_end + 1 and self.start - 1 <= end


def window_of(splices: Iterable[Splice]) -> Window | None:
    """The window of splices applied one after the other (each against the lines the
    one before left); None when there are none."""
    start = end = -1
    delta = 0
    for splice in splices:
        if start < 0:
            start, end = splice.start, splice.end + splice.delta
        else:
            start, end = min(start, splice.start), max(end, splice.end) + splice.delta
        delta += splice.delta
    return None if start < 0 else Window(start, end - delta, end)


class Before(Sequence[str]):
    """A buffer's raw lines as they were before a batch of edits, read through its
    lines now and the few lines the batch replaced: no copy of the buffer is made
    for a keystroke. Valid until the buffer changes again."""

    def __init__(self, after: list[str], log: Sequence[tuple[Splice, list[str]]]) -> None:
        self.after = after
        self.window = window_of(splice for splice, _ in log)
        self._log = log
        self._inside: list[str] | None = None

    @property
    def splices(self) -> list[Splice]:
        """The batch's splices, in order."""
        return [splice for splice, _ in self._log]

    def _lines_inside(self) -> list[str]:
        """The lines of the window before the batch: the batch undone, last first."""
        if self._inside is None:
            window = self.window
            assert window is not None
            inside = self.after[window.start : window.new_end]
            for splice, removed in reversed(self._log):
                at = splice.start - window.start
                inside[at : at + splice.count] = removed
            self._inside = inside
        return self._inside

    def __len__(self) -> int:
        window = self.window
        return len(self.after) - (window.delta if window is not None else 0)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            assert step == 1
            return self.lines(start, stop)
        if index < 0:
            index += len(self)
        found = self.lines(index, index + 1)
        if not found:
            raise IndexError(index)
        return found[0]

    def lines(self, start: int, stop: int) -> list[str]:
        """Raw lines `start`..`stop` as they were."""
        window = self.window
        if window is None:
            return self.after[start:stop]
        out: list[str] = []
        if start < window.start:
            out += self.after[start : min(stop, window.start)]
        if start < window.old_end and stop > window.start:
            low = max(start, window.start) - window.start
            out += self._lines_inside()[low : min(stop, window.old_end) - window.start]
        if stop > window.old_end:
            out += self.after[max(start, window.old_end) + window.delta : stop + window.delta]
        return out

    def eol(self) -> str:
        """The ending new lines got in this text (its dominant one)."""
        return detect_line_ending("".join(self.lines(0, len(self))))

    def touched_carriage_return(self) -> bool:
        """Whether a line the batch removed or wrote holds a CR: only then can the
        text's dominant line ending have changed."""
        window = self.window
        if window is None:
            return False
        written = self.after[window.start : window.new_end]
        return any("\r" in line for line in written) or any(
            "\r" in line for _, removed in self._log for line in removed
        )


@value
class Region:
    """Raw lines `start`..`end` of a text, and the raw lines that replace them."""

    start: int
    end: int
    lines: tuple[str, ...]

    @property
    def delta(self) -> int:
        return len(self.lines) - (self.end - self.start)


def regions(
    raw: Sequence[str], eol: str, edits: Sequence[LineEdit], *, final_newline: bool | None = None
) -> list[Region]:
    """What applying `replacement(raw, ...)` does to `raw`, as whole raw lines, one
    region per text replacement, in order."""
    out: list[Region] = []
    for change in replacement(raw, eol, edits, final_newline=final_newline):
        start, end = change.start, change.end
        low = start.line
        high = max(end.line + (1 if end.column > 0 else 0), low + (1 if start.column > 0 else 0))
        high = min(high, len(raw))
        part = TrackedBuffer(raw[low:high])
        part.edit(Point(0, start.column), Point(end.line - low, end.column), change.text)
        out.append(Region(low, high, tuple(part.raw)))
    return out


def shows(before: Before, changed: Sequence[Region]) -> bool:
    """Whether the buffer after a batch is exactly `before` with these regions
    replaced (regions in order, not overlapping; the batch's window decides where
    to look)."""
    window = before.window
    if window is None or not changed:
        return False
    if sum(region.delta for region in changed) != window.delta:
        return False
    start = min(window.start, changed[0].start)
    end = max(window.old_end, changed[-1].end)
    expected: list[str] = []
    at = start
    for region in changed:
        if region.start < at:
            return False  # overlapping regions: not a meaning of any batch
        expected += before.lines(at, region.start)
        expected += region.lines
        at = region.end
    expected += before.lines(at, end)
    return before.after[start : end + window.delta] == expected
