"""The pieces every reply parser shares: a reply line, the step a block parser
takes on it, the interface of a block parser, and the splitter that turns
streamed deltas into complete lines.

The reply is read one line at a time by one state machine (`stream.py`). While a
block is open, each line goes to that block's parser, which answers with a
`Step`: keep going, done, or done *before* this line (the line is then read again
outside the block). Parsers report what they find through an `Emit` callback, so a
V4A patch can report each file as soon as its section ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from lsp_edit.blocks.model import ParseProblem, ReplyItem, ReplySpan

Emit = Callable[[ReplyItem], None]


@dataclass(frozen=True, slots=True)
class ReplyLine:
    """One line of the reply, without its ending.

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


class BlockParser(Protocol):
    """A block being read. It reports items through the `Emit` it was given."""

    def take(self, line: ReplyLine) -> Step: ...

    def end(self, last_line: int) -> None:
        """The reply ended while the block was open (`last_line` is its last line)."""


def span(start: int, end: int) -> ReplySpan:
    """A span that is never inverted (an empty block ends where it starts)."""
    return ReplySpan(start, max(start, end))


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


_BREAK = re.compile(r"\r\n|\n|\r")


class LineSplitter:
    """Cuts streamed text into lines ending in `\\r\\n`, `\\n` or `\\r`.

    A partial last line is kept until its ending arrives (or `finish`). A `\\r` at
    the very end of a delta is held back too: the next delta may start with the
    `\\n` of the same `\\r\\n`. Text without a line break is only appended, so a
    long line streamed in tiny deltas costs linear time.
    """

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self._ends_with_cr = False

    def feed(self, delta: str) -> list[str]:
        if not delta:
            return []
        if "\n" not in delta and "\r" not in delta and not self._ends_with_cr:
            self._pieces.append(delta)
            return []
        self._pieces.append(delta)
        text = "".join(self._pieces)
        self._pieces = []
        held_cr = text.endswith("\r")
        lines = _BREAK.split(text[:-1] if held_cr else text)
        rest = lines.pop() + ("\r" if held_cr else "")
        if rest:
            self._pieces.append(rest)
        self._ends_with_cr = held_cr
        return lines

    def finish(self) -> list[str]:
        text = "".join(self._pieces)
        self._pieces = []
        self._ends_with_cr = False
        if not text:
            return []
        return [text[:-1] if text.endswith("\r") else text]


@dataclass(frozen=True)
class BlockPath:
    """The path of a SEARCH/REPLACE or `««« EDIT` block, read from the line before it.

    `path` None means the block names no file (the caller's default applies).
    `empty_line` is set when the path line is there but empty: the block is then
    reported as `empty_path` instead of being placed.
    """

    path: str | None
    empty_line: int | None = None


def empty_path_problem(kind: str, marker: str, start: int, end: int, path_line: int) -> ReplyItem:
    """The problem for a block whose path line is empty."""
    return ParseProblem(
        span(start, end),
        "empty_path",
        f"{kind} block at {where(start, end)} has an empty path line (reply line {path_line}); "
        f"it was skipped. Write the file path on the line directly before `{marker}`.",
    )
