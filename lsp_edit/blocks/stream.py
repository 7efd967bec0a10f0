"""The one state machine that reads a reply, line by line, whole or streamed.

`ReplyStream.feed` takes each new piece of the reply and returns the items that
piece completed; `finish` returns the rest. `parse_reply` is the same stream fed
the whole text, so both give identical items: every decision is made on whole
lines, and each line is read once (a partial last line waits for its ending).
Lines that cannot change the state are taken in bulk, and a simple block whose
end has arrived is read whole (see `scanner.py`); both give what reading the
lines one by one gives.

Items come in reply order: each is reported when its block ends, and blocks do
not overlap (a fence that wraps SEARCH/REPLACE blocks is not an item itself).

Where a block takes its path from is kept line by line in a `Lookback` (see
lookback.py and docs/formats.md).
"""

from __future__ import annotations

import gc
import re

from lsp_edit.blocks import search_replace
from lsp_edit.blocks.fence import OPENER as FENCE_OPENER
from lsp_edit.blocks.fence import (
    FenceBlock,
    FenceOpener,
    Wrapper,
    is_diff_tag,
    is_untagged,
    line_opener,
    match_opener,
    opener,
    read_symbol_fence,
    read_targeted_run,
    read_untagged_run,
)
from lsp_edit.blocks.lookback import Gap, Lookback
from lsp_edit.blocks.markers import (
    BEGIN_PATCH,
    EDIT_OPENER,
    SEARCH_OPENER,
    is_edit_opener,
    is_patch_file_header,
    is_patch_opener,
    is_search_opener,
)
from lsp_edit.blocks.model import IgnoredBlock, ParseProblem, ReplyItem
from lsp_edit.blocks.scanner import (
    LazyModule,
    Plain,
    ReplyLine,
    Step,
    TwoHalfBlock,
    span,
    where,
)
from lsp_edit.blocks.search_replace import SearchReplaceBlock
from lsp_edit.patterns import LazyPattern
from lsp_edit.values import value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from lsp_edit.blocks import common_prefix, operations, unified_diff, v4a
    from lsp_edit.blocks.scanner import BlockParser
else:
    # The parsers of `««« EDIT` blocks, diffs, patches and JSON operations are imported
    # by the first block of their format: `lsp-edit apply` starts once per reply, and
    # most replies hold none of them.
    common_prefix = LazyModule("lsp_edit.blocks.common_prefix", globals())
    operations = LazyModule("lsp_edit.blocks.operations", globals())
    unified_diff = LazyModule("lsp_edit.blocks.unified_diff", globals())
    v4a = LazyModule("lsp_edit.blocks.v4a", globals())


def parse_reply(text: str) -> list[ReplyItem]:
    """Every block, shell suggestion and problem in a whole reply, in reply order."""
    collecting = gc.isenabled()
    # Reading makes no reference cycles, while the collector would go over every item
    # made so far again and again: a third of the time of a reply of a million blocks.
    gc.disable()
    try:
        stream = ReplyStream()
        items = stream.feed(text)
        items += stream.finish()  # in place: the items may be a million
        return items
    finally:
        if collecting:
            gc.enable()


class ReplyStream:
    """A reply read as it streams in. Each item is returned exactly once.

    Line endings are made `\n` as the text arrives (lines are read without their
    endings, so this changes nothing a parser sees); a partial last line waits
    for its ending, as does a `\r` at the very end of a piece: the next piece
    may start with the `\n` of the same `\r\n`.

    With `keep_ignored`, at most that many blocks not read as edits are returned
    (`IgnoredBlock` items); the rest are only counted, in `ignored_beyond`: a caller
    that lists a few of them need not have a million made.
    """

    def __init__(self, *, keep_ignored: int | None = None) -> None:
        self._pieces: list[str] = []  # the partial last line, `\n`-terminated lines never
        self._held_cr = False
        self._machine = _Machine(keep_ignored)
        self._finished = False
        self._started = False

    def feed(self, delta: str) -> list[ReplyItem]:
        """Reads the next piece of the reply; returns the items it completed."""
        if self._finished:
            raise RuntimeError("ReplyStream.feed after finish")
        if not delta:
            return []
        if not self._started:
            self._started = True
            delta = delta.removeprefix("\ufeff")  # a byte order mark is not text
            if not delta:
                return []
        if self._held_cr:
            self._held_cr = False
            delta = "\n" + (delta[1:] if delta[0] == "\n" else delta)
        if delta[-1] == "\r":
            self._held_cr = True
            delta = delta[:-1]
        if "\r" in delta:
            delta = delta.replace("\r\n", "\n").replace("\r", "\n")
        if "\n" not in delta:
            # Only appended, so a long line streamed in tiny pieces costs linear time.
            if delta:
                self._pieces.append(delta)
            return []
        self._pieces.append(delta)
        text = "".join(self._pieces)
        end = text.rfind("\n") + 1
        self._pieces = [text[end:]] if end < len(text) else []
        self._machine.read(text, end)
        return self._machine.take_items()

    @property
    def in_block(self) -> bool:
        """Whether a block is open: only then can the next line complete one."""
        return self._machine.in_block

    @property
    def ignored_beyond(self) -> int:
        """The blocks not read as edits that were only counted (see `keep_ignored`)."""
        return self._machine.ignored_beyond

    def finish(self) -> list[ReplyItem]:
        """The reply is complete: returns the remaining items, including a
        problem for a block left open."""
        if self._finished:
            return []
        self._finished = True
        text = "".join(self._pieces)
        self._pieces = []
        if text or self._held_cr:
            text += "\n"
            self._machine.read(text, len(text))
        self._machine.finish()
        return self._machine.take_items()


# Outside blocks, the lines that may do more than be remembered as the lines
# before the next block: fence lines, block openers and diff headers.
_NOT_PROSE_LINE = r"[^\S\n]*[`~<«*]|diff --git |--- "
_NOT_PROSE = Plain(LazyPattern(rf"^(?:{_NOT_PROSE_LINE})", re.MULTILINE))
# Outside blocks and wrappers: the lines up to the next line that is not prose, and
# that line when it opens a block, in a group named after its format. One match
# per block, whatever its format.
_NEXT_BLOCK = re.compile(
    # (an empty line, or one starting with a letter other than `d`, is prose at once)
    rf"(?P<prose>(?:\n|[^\s`~<«*d-].*\n|(?!{_NOT_PROSE_LINE}).*\n)*+)"
    r"(?:"
    rf"[^\S\n]*(?P<search>{SEARCH_OPENER})[^\S\n]*\n"
    rf"|[^\S\n]*(?P<edit>{EDIT_OPENER})[^\S\n]*\n"
    rf"|[^\S\n]*(?P<patch>{BEGIN_PATCH})[^\S\n]*\n"
    r"|(?P<diff>--- .*)\n"
    rf"|(?P<fence_line>{FENCE_OPENER})\n"
    r")?"
)
# Inside a ```diff fence, a hunk header without file headers starts a diff too.
_NOT_DIFF_PROSE = Plain(LazyPattern(r"^[^\S\n]*[`~<«*]|^(?:diff --git |--- |@@)", re.MULTILINE))


# Compiled when a reply starts with a blank line, and with a bracket: most start with
# neither, and compiling each cost more than reading a small reply's first lines.
_BLANK_LINES = LazyPattern(r"(?:[^\S\n]*\n)++")  # possessive: no backtracking state per line
_JSON_START = LazyPattern(r"\s*[\[{]\s*(?:$|[\"{\[\]}])")
_JSON_STRING = LazyPattern(r'"(?:[^"\\]|\\.)*"')


@value
class _JsonOutcome:
    items: list[ReplyItem]
    replay: list[tuple[str, int]]  # lines that were not JSON operations after all


class _JsonDocument:
    """A reply that starts as a JSON document: its lines are held until the
    brackets balance (strings cannot span lines in JSON, so counting brackets
    outside strings line by line is exact), then parsed once. Not operations
    after all: the lines are read again as ordinary reply text."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.lines: list[tuple[str, int]] = []
        self.depth = 0

    @staticmethod
    def starts(text: str) -> bool:
        # (`\s` is what `str.lstrip` strips: the pattern is asked only after a bracket)
        return text.lstrip().startswith(("[", "{")) and _JSON_START.match(text) is not None

    def take(self, text: str, number: int) -> _JsonOutcome | None:
        self.lines.append((text, number))
        bare = _JSON_STRING.sub("", text)
        if '"' in bare:
            return self.close()
        self.depth += bare.count("{") + bare.count("[") - bare.count("}") - bare.count("]")
        return self.close() if self.depth <= 0 else None

    def close(self) -> _JsonOutcome:
        end = self.lines[-1][1] if self.lines else self.start
        text = "\n".join(line for line, _ in self.lines)
        value = operations.load_json(text)
        if isinstance(value, operations.JsonError):
            if '"op"' not in text:
                return _JsonOutcome([], self.lines)
            problem = ParseProblem(
                span(self.start, end),
                "invalid_json",
                f"the JSON operations at {where(self.start, end)} are not valid JSON: "
                f"{value.message}",
            )
            return _JsonOutcome([problem], [])
        if not operations.is_operations(value):
            return _JsonOutcome([], self.lines)
        return _JsonOutcome(operations.operations_from_value(value, span(self.start, end)), [])


class _Machine:
    """Reads complete lines; owns the open block, the wrapping fence and the few
    lines of history that paths are read from."""

    def __init__(self, keep_ignored: int | None = None) -> None:
        self._items: list[ReplyItem] = []
        self._keep_ignored = keep_ignored  # how many more `IgnoredBlock`s to return
        self.ignored_beyond = 0  # and how many were only counted
        self._number = 0
        self._block: BlockParser | None = None
        self._wrapper: Wrapper | None = None
        self._look = Lookback()  # what lies before the current line, for paths
        self._last = ""  # the last line an open block took
        self._json: _JsonDocument | None = None
        self._at_start = True

    def take_items(self) -> list[ReplyItem]:
        items, self._items = self._items, []
        return items

    @property
    def in_block(self) -> bool:
        """A block, a wrapping fence or JSON operations are open."""
        return self._block is not None or self._wrapper is not None or self._json is not None

    def emit(self, item: ReplyItem) -> None:
        if self._keep_ignored is None or not isinstance(item, IgnoredBlock) or self._keeps():
            self._items.append(item)
        if self._wrapper is not None:
            self._wrapper.found += 1

    def _keeps(self) -> bool:
        """Whether one more block not read as an edit is returned, else counted."""
        if self._keep_ignored is None:
            return True
        if self._keep_ignored > 0:
            self._keep_ignored -= 1
            return True
        self.ignored_beyond += 1
        return False

    def read(self, text: str, end: int) -> None:
        """Reads the lines of `text[:end]`, each ending in `\n`.

        Outside blocks and wrappers, one match finds the next block and what format
        it is (`_NEXT_BLOCK`), and a simple block is read whole. Inside a block, runs
        of plain lines (see `Plain`) are found with one search and taken in bulk;
        every other line goes through `line`. The search result is kept while the
        same pattern applies, so no text is searched twice.
        """
        pos = 0
        searched: re.Pattern[str] | LazyPattern | None = None
        stop = 0
        while pos < end:
            if self._block is None and self._wrapper is None and self._json is None:
                if self._at_start:
                    pos = self._skip_leading_blanks(text, pos, end)
                    if pos < end:
                        newline = text.index("\n", pos)
                        self.line(text[pos:newline])
                        pos = newline + 1
                    continue
                pos = self._next_block(text, pos, end)
                continue
            plain = self._plain()
            if plain is not None:
                other = plain.other
                if other is not searched or stop < pos:
                    match = other.search(text, pos, end)
                    searched, stop = other, (end if match is None else match.start())
                if stop > pos:
                    pos = self._take_plain(text, pos, stop, plain.limit)
                    if pos < stop or stop == end:
                        continue
                if self._block is None:
                    pos = self._open(text, pos, end)
                    continue
            newline = text.index("\n", pos)
            if self.line(text[pos:newline]):
                pos = newline + 1

    def _skip_leading_blanks(self, text: str, pos: int, end: int) -> int:
        """Blank lines at the start of the reply, taken at once (they decide nothing:
        the first line that is not blank says whether the reply is JSON)."""
        if not text[pos].isspace():
            return pos  # (a blank line starts with a space, or is an ending alone)
        blank = _BLANK_LINES.match(text, pos, end)
        stop = blank.end() if blank is not None else pos
        if stop > pos:
            self._number += text.count("\n", pos, stop)
            self._look.note("")
        return stop

    def _next_block(self, text: str, pos: int, end: int) -> int:
        """Outside blocks and wrappers: skips the prose up to the next line that may
        open a block and reads that block whole if it can be, else opens it (or
        reads that line alone). Returns where reading stopped."""
        match = _NEXT_BLOCK.match(text, pos, end)
        assert match is not None, "the prose group matches any text"
        start = match.end("prose")
        if start > pos:
            self._skip_prose(text, pos, start)
        if start == end:
            return end
        kind = match.lastgroup
        after = match.end()
        if kind == "fence_line":
            raw = match[kind]
            indent, fence_chars, info = match.group("indent", "fence", "info")
            if not indent:
                stop = read_symbol_fence(
                    text,
                    after,
                    end,
                    self._number + 1,
                    fence_chars,
                    info,
                    self._look,
                    self._items.append,
                )
                if stop >= 0:
                    self._number += text.count("\n", start, stop)
                    self._look.restart()
                    return stop
            fence = opener(indent, fence_chars, info)  # as `match_opener(raw)`
            if is_untagged(raw) and self._look.line is None:
                # nothing before names a file: a run of fences naming none, at once
                stop = self._read_untagged(text, start, end)
                if stop > start:
                    self._look.restart()
                    return stop
            return self._open_fence_at(text, start, after, end, fence)
        stop = -1
        number = self._number + 1
        # outside wrappers, and these formats read whole report no `IgnoredBlock`: what
        # `emit` would do with their items is append them
        emit = self._items.append
        if kind == "search":
            path = self._look.block_path()
            stop = search_replace.read_whole(text, after, end, number, path, emit)
            if stop >= 0:
                self._look.restart(chain=path)
        elif kind == "edit":
            path = self._look.block_path()
            stop = common_prefix.read_whole(text, after, end, number, path, emit)
            if stop >= 0:
                self._look.restart(chain=path)
        elif kind == "patch":
            stop = v4a.read_whole(text, after, end, number, emit)
            if stop >= 0:
                self._look.restart()
        elif kind == "diff":
            if after < end and not text.startswith("+++ ", after):
                # no `+++ ` line follows: no diff starts here (`UnifiedDiff` would end
                # before the next line, with nothing to report)
                self._number += 1
                self._look.restart()
                return after
            stop = unified_diff.read_whole(text, after, end, match["diff"], number, emit)
            if stop >= 0:
                self._look.restart()
        if stop < 0:
            return self._open(text, start, end)
        self._number += text.count("\n", start, stop)
        return stop

    def _plain(self) -> Plain | None:
        if self._json is not None or self._at_start:
            return None
        wrapper = self._wrapper
        if wrapper is not None and wrapper.opener.indent:
            return None  # lines are dedented there: read one by one
        block = self._block
        if block is not None:
            return block.plain()
        return _NOT_DIFF_PROSE if wrapper is not None and wrapper.is_diff else _NOT_PROSE

    def _take_plain(self, text: str, pos: int, stop: int, limit: int) -> int:
        """Takes the plain lines in `text[pos:stop]` (at most `limit`); returns
        where it stopped."""
        block = self._block
        if block is None:
            self._skip_prose(text, pos, stop)
            return stop
        lines = text[pos : stop - 1].split("\n", limit)
        if 0 <= limit < len(lines):
            stop -= len(lines.pop()) + 1
        first = self._number + 1
        self._number += len(lines)
        block.take_plain(lines, first)
        self._last = lines[-1]
        return stop

    def _open(self, text: str, pos: int, end: int) -> int:
        """A line outside blocks that may open one (no indented wrapper around):
        read as `line` would, and when it opens a fenced block, that block is read
        whole if it can be (`FenceBlock.read_whole`). Returns where reading stopped."""
        newline = text.index("\n", pos)
        raw = text[pos:newline]
        stripped = raw.strip()
        first = stripped[:1]
        number = self._number + 1
        line = ReplyLine(raw, number, raw)
        block: BlockParser
        if first == "<" and is_search_opener(stripped):
            block = SearchReplaceBlock(line, self._look.block_path(), self.emit)
        elif first == "«" and is_edit_opener(stripped):
            block = common_prefix.CommonPrefixBlock(line, self._look.block_path(), self.emit)
        elif first == "*" and is_patch_opener(stripped):
            block = v4a.V4APatch(line, self.emit)
        elif first == "*" and is_patch_file_header(stripped):
            block = v4a.V4APatch.from_header(line, self.emit)
        elif raw.startswith("--- "):
            block = unified_diff.UnifiedDiff.from_minus(line, self.emit)
        elif first in ("`", "~") and self._wrapper is None:
            return self._open_fence_at(text, pos, newline + 1, end, line_opener(raw))
        else:
            self.line(raw)
            return newline + 1
        self._block = block
        self._number = number
        self._last = raw
        return newline + 1

    def _read_untagged(self, text: str, pos: int, end: int) -> int:
        """A run of fences naming no file, from `pos` (see `read_untagged_run`)."""
        keeps = None if self._keep_ignored is None else self._keeps
        # outside wrappers: `emit` would count the items for none
        stop, self._number = read_untagged_run(
            text, pos, end, self._number, self._items.append, keeps
        )
        return stop

    def _open_fence_at(
        self, text: str, pos: int, after: int, end: int, fence: FenceOpener | None
    ) -> int:
        """The line `text[pos:after]` outside blocks and wrappers, which starts like a
        fence (`fence`, if it opens one): read as `line` would, and a fenced block it
        opens is read whole if it can be (`FenceBlock.read_whole`). Returns where
        reading stopped."""
        raw = text[pos : after - 1]
        if fence is None or is_diff_tag(fence.info):
            self.line(raw)
            return after
        number = self._number + 1
        path, if_exists = self._look.fence_path()
        block = FenceBlock(fence, number, path, self.emit, path_if_exists=if_exists)
        stop = block.read_whole(text, after, end)
        if stop >= 0:
            self._number += text.count("\n", pos, stop)
            self._closed(block)
            following = block.next_opener
            if following is not None:
                # it ran into the next targeted fence, which may run into the next: at once
                stop, self._number = read_targeted_run(
                    text, stop, end, self._number, following, self._items.append
                )
            return stop
        self._look.note(raw)  # a fence line: what lies before stays the same
        self._block = block
        self._number = number
        self._last = raw
        return after

    def _skip_prose(self, text: str, pos: int, stop: int) -> None:
        """Lines outside blocks that open nothing: only what a block that follows
        reads its path from is remembered."""
        self._number += text.count("\n", pos, stop)
        self._look.note_lines(text, pos, stop)

    def line(self, text: str) -> bool:
        """Reads one line; False when it ended the open block without being read
        (`Step.REDO`): the caller reads it again, outside blocks."""
        self._number += 1
        number = self._number
        if self._json is not None:
            self._settle_json(self._json.take(text, number))
            return True
        if self._at_start and text.strip():
            self._at_start = False
            if _JsonDocument.starts(text):
                self._json = _JsonDocument(number)
                self._settle_json(self._json.take(text, number))
                return True
        if self._dispatch(text, number):
            return True
        self._number -= 1
        return False

    def finish(self) -> None:
        if self._json is not None:
            self._settle_json(self._json.close())
        if self._block is not None:
            block, self._block = self._block, None
            block.end(self._number)
        wrapper = self._wrapper
        if wrapper is not None:
            self._end_wrapper(wrapper, self._number)

    def _settle_json(self, outcome: _JsonOutcome | None) -> None:
        if outcome is None:
            return
        self._json = None
        for item in outcome.items:
            self.emit(item)
        for text, number in outcome.replay:
            if not self._dispatch(text, number):
                self._dispatch(text, number)

    def _dispatch(self, raw: str, number: int) -> bool:
        """Reads one line; False when it ended the open block without being read."""
        wrapper = self._wrapper
        if wrapper is None:
            line = ReplyLine(raw, number, raw)
        else:
            opener = wrapper.opener
            line = ReplyLine(opener.dedent(raw), number, raw, opener.closed_by(raw))
        if not self._step(line):
            return False
        self._last = line.text
        return True

    def _step(self, line: ReplyLine) -> bool:
        block = self._block
        if block is not None:
            step = block.take(line)
            if step is Step.CONTINUE:
                return True
            self._block = None
            if step is Step.DONE:
                self._closed(block)
                return True
            if step is Step.WRAP and isinstance(block, FenceBlock):
                wrapper = block.wrapper()
                self._wrapper = wrapper
                for content in block.content:
                    self._look.note(content)  # what the fence held is prose now
                if block.successor is not None:
                    self._block = block.successor
                    return True
                line = ReplyLine(wrapper.opener.dedent(line.raw), line.number, line.raw)
            else:
                # it ended before this line: a line it took may name the next block's file
                self._closed(block)
                for text in self._left_over(block):
                    self._look.note(text)
                return False  # read again outside blocks, where runs of lines go at once
        self._idle(line)
        return True

    def _idle(self, line: ReplyLine) -> None:
        wrapper = self._wrapper
        if wrapper is not None and line.closes_wrapper:
            self._end_wrapper(wrapper, line.number)
            self._look.note(line.text)
            return
        text = line.text
        stripped = text.strip()
        first = stripped[:1]
        if first in ("`", "~"):
            opener = match_opener(line.raw) if wrapper is None else None
            if opener is not None:
                self._open_fence(opener, line)
                return
        elif first == "<" and is_search_opener(stripped):
            self._block = SearchReplaceBlock(line, self._look.block_path(), self.emit)
            return
        elif first == "«" and is_edit_opener(stripped):
            self._block = common_prefix.CommonPrefixBlock(line, self._look.block_path(), self.emit)
            return
        elif first == "*" and is_patch_opener(stripped):
            self._block = v4a.V4APatch(line, self.emit)
            return
        elif first == "*" and is_patch_file_header(stripped):
            self._block = v4a.V4APatch.from_header(line, self.emit)
            return
        elif text.startswith("diff --git "):
            self._block = unified_diff.UnifiedDiff.from_git(line, self.emit)
            return
        elif text.startswith("--- "):
            self._block = unified_diff.UnifiedDiff.from_minus(line, self.emit)
            return
        elif text.startswith("@@") and wrapper is not None and wrapper.is_diff:
            self._block = unified_diff.UnifiedDiff.from_hunk(line, wrapper.path, self.emit)
            return
        self._look.note(text)

    def _open_fence(self, opener: FenceOpener, line: ReplyLine) -> None:
        if is_diff_tag(opener.info):
            named = self._look.fence_path()
            path = None if named.if_exists else named.path
            self._wrapper = Wrapper(opener, line.number, is_diff=True, path=path)
            self._look.note(line.text)
            return
        self._block = self._fence_block(opener, line)

    def _fence_block(self, opener: FenceOpener, line: ReplyLine) -> FenceBlock:
        path, if_exists = self._look.fence_path()
        block = FenceBlock(opener, line.number, path, self.emit, path_if_exists=if_exists)
        self._look.note(line.text)  # a fence line: what lies before stays the same
        return block

    def _end_wrapper(self, wrapper: Wrapper, end: int) -> None:
        self._wrapper = None
        if wrapper.is_diff and wrapper.found == 0:
            tag = wrapper.opener.char * wrapper.opener.length + wrapper.opener.info
            self.emit(
                ParseProblem(
                    span(wrapper.opener_line, end),
                    "malformed_diff",
                    f"`{tag}` block at {where(wrapper.opener_line, end)} holds no unified diff "
                    "(`--- a/path`, `+++ b/path`, `@@ -start,count +start,count @@`) and no V4A "
                    "patch (`*** Begin Patch`); nothing in it was applied.",
                )
            )

    def _left_over(self, block: BlockParser) -> list[str]:
        """The lines a SEARCH/REPLACE or `««« EDIT` block took after it ended (it ends
        before the line that showed it had ended, or at a divider before them): they
        may name the next block's file. Other blocks end where their content ends."""
        if isinstance(block, SearchReplaceBlock) and block.left_over is not None:
            return block.left_over
        if isinstance(block, TwoHalfBlock):
            return [self._last]
        return []

    def _closed(self, block: BlockParser) -> None:
        """A block ended: a SEARCH/REPLACE or `««« EDIT` block's path carries over to
        the next block; a fence holding only a path names the next block's file."""
        if isinstance(block, FenceBlock):
            named = block.names_path
            self._look.restart(named, Gap.NONE if named is None else Gap.FENCES)
        elif isinstance(block, TwoHalfBlock) and block.completed:
            self._look.restart(chain=block.path)
        else:
            self._look.restart()
