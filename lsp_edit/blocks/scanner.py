"""The pieces every reply parser shares: a reply line, the step a block parser
takes on it, the interface of a block parser, and the splitter that turns
streamed deltas into complete lines.

The reply is read one line at a time by one state machine (`stream.py`). While a
block is open, each line goes to that block's parser, which answers with a
`Step`: keep going, done, or done *before* this line (the line is then read again
outside the block). Lines that cannot change a block's state (most content lines)
are found with one regular expression and handed over in bulk (`Plain`), and a
simple block is read whole (each format's `read_whole`). Parsers report what they find
through an `Emit` callback, so a V4A patch can report each file as soon as its
section ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum

from lsp_edit.blocks.model import AnchoredEdit, Hunk, ReplyItem, ReplySpan
from lsp_edit.patterns import LazyPattern
from lsp_edit.values import NamedTuple, value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from typing import Protocol

    from lsp_edit.blocks.model import AnchoredFormat

Emit = Callable[[ReplyItem], None]


class LazyModule:
    """A module imported when one of its names is first read (a parser most replies
    never need), written where the import would be: `x = LazyModule("pkg.x", globals())`.
    The first read imports the module and puts it in that namespace in its own place,
    so from then on `x` is the module itself: a reply of a thousand tiny diffs imports
    the diff parser once, and reads it as fast as an import at the top would."""

    def __init__(self, module: str, namespace: dict[str, object]) -> None:
        self.module = module
        self.namespace = namespace

    def __getattr__(self, name: str) -> object:
        from importlib import import_module

        module = import_module(self.module)
        self.namespace[self.module.rpartition(".")[2]] = module
        return getattr(module, name)


class ReplyLine(NamedTuple):
    """One line of the reply, without its ending (a tuple: made for most lines
    of a reply that needs per-line reading, so it must be cheap).

    `text` is what parsers read: inside an indented fence it has the fence's
    indentation removed (as Markdown renders it); `raw` is the line as written.
    `closes_wrapper` says the line is the closing fence of the fence that wraps
    the current blocks.
    """

    text: str
    number: int
    raw: str
    closes_wrapper: bool = False


class Step(Enum):
    """What a block parser did with a line."""

    CONTINUE = "continue"  # the line belongs to the block, which is still open
    DONE = "done"  # the line belongs to the block, which is now complete
    REDO = "redo"  # the block ended before this line: read the line again outside it
    WRAP = "wrap"  # a fence turned out to wrap other blocks (fence parser only)


FENCE_LINE = r"[ \t]*(?:```|~~~)"
"""Where a line that may open or close a fence starts (for `Plain` patterns)."""


@value(slots=True)
class Plain:
    """How to find the lines a block would only store, so they can be taken in
    bulk: `other` (re.MULTILINE) matches at the start of every line that is *not*
    plain, and at most `limit` plain lines may be taken in a row (-1: any number).
    """

    other: re.Pattern[str] | LazyPattern
    limit: int = -1


if TYPE_CHECKING:  # a type only

    class BlockParser(Protocol):
        """A block being read. It reports items through the `Emit` it was given.

        `plain` says which of the next lines `take` would only store (None: the next
        line must go through `take`); `take_plain` takes such lines, numbered from
        `first`, exactly as `take` would have one by one. Lines passed to it are raw:
        the stream never bulk-reads inside an indented wrapper fence, and every
        pattern treats a fence line as not plain, so `closes_wrapper` is False.
        """

        def take(self, line: ReplyLine) -> Step: ...

        def plain(self) -> Plain | None: ...

        def take_plain(self, lines: list[str], first: int) -> None: ...

        def end(self, last_line: int) -> None:
            """The reply ended while the block was open (`last_line` is its last line)."""


def split_block(lines: str) -> list[str]:
    """The lines of a run of whole lines, each ending in `\\n`."""
    return lines[:-1].split("\n") if lines else []


def add_prefixed(
    lines: list[str],
    first: int,
    old: list[str],
    new: list[str],
    trailing_blank: int,
    ops: list[str],
) -> tuple[int, int | None]:
    """Adds hunk lines (` ` context, `-` removed, `+` added; a bare blank line is an
    empty context line) to `old` and `new`, and each line's kind to `ops`. Returns
    the count of blank lines now closing the hunk, and the reply line of the last
    line with a prefix (None if every line was blank)."""
    old.extend([text[1:] for text in lines if text[:1] != "+"])  # a blank line is in both
    new.extend([text[1:] for text in lines if text[:1] != "-"])
    ops.extend([text[:1] or " " for text in lines])
    written = len(lines)  # up to the last line with a prefix
    while written and not lines[written - 1]:
        written -= 1
    if not written:
        return trailing_blank + len(lines), None
    return len(lines) - written, first + written - 1


def without_bom(lines: list[str]) -> list[str]:
    """The lines with a byte order mark copied at the start of the first removed
    (the file's own mark is not part of its text)."""
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0].lstrip("\ufeff")
    return lines


def span(start: int, end: int) -> ReplySpan:
    """A span that is never inverted (an empty block ends where it starts)."""
    return ReplySpan(start, end if end > start else start)


def emit_halves(
    match: re.Match[str], start: int, path: str | None, kind: AnchoredFormat, emit: Emit
) -> int:
    """Reports a two-half block read whole by `match` (its `old` and `new` groups),
    whose opener is reply line `start`, as one hunk; returns where the match ends."""
    old, new = match.group("old", "new")
    end = start + old.count("\n") + new.count("\n") + 2
    emit(AnchoredEdit(ReplySpan(start, end), path, kind, (Hunk(_half(old), _half(new)),)))
    return match.end()


def _half(lines: str) -> tuple[str, ...]:
    """The lines of one half of a two-half block read whole. (Most halves hold no byte
    order mark, and a reply of tiny blocks makes a million halves: only one that starts
    with a mark is asked to drop it.)"""
    split = split_block(lines)
    return tuple(without_bom(split) if lines[:1] == "\ufeff" else split)


def where(start: int, end: int) -> str:
    """`reply line 3` or `reply lines 3-9`, for messages."""
    if end <= start:
        return f"reply line {start}"
    return f"reply lines {start}-{end}"


def shown(text: str, limit: int = 60) -> str:
    """A line quoted for a message, shortened when long."""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"`{text}`"


class BlockPath(NamedTuple):
    """The path of a SEARCH/REPLACE or `««« EDIT` block, read from the lines before
    it (see lookback.py); None means the block names no file (the caller's default
    applies)."""

    path: str | None


class TwoHalfBlock:
    """A SEARCH/REPLACE or `««« EDIT` block being read: its `path` comes from the
    lines before it (see lookback.py), and once it is `completed` it carries over to
    the next block."""

    path: BlockPath
    completed: bool


def for_path(path: BlockPath) -> str:
    """` for `src/x.py``, to name a block's file in a message; empty when it has none."""
    return f" for `{path.path}`" if path.path else ""
