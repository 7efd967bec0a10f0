"""What lies before a block: the line its file path is read from.

The reply is read once, so the machine keeps, line by line, the nearest line of
prose before the current one and what lies between: nothing, only lines that
carry no text (fence lines such as ```` ``` ````, ```` ```python ````, `<source>`,
and `...`), or a blank line. A SEARCH/REPLACE or `««« EDIT` block takes its path
from that line when it is near (nothing or only fence lines between: aider's
layout, DeepSeek's path fenced on its own), or, across a blank line, when the line
looks like a path. A block right after another one (with only blank or fence lines
or `...` between) keeps that block's path.
"""

from __future__ import annotations

import re

from lsp_edit.blocks.paths import (
    LONGEST_PATH,
    clean_path,
    clean_path_line,
    comment_path,
    looks_like_path,
    path_or_none,
    tag_path,
)
from lsp_edit.blocks.scanner import BlockPath
from lsp_edit.patterns import LazyPattern
from lsp_edit.values import NamedTuple, record

# Fences as some tools write them: `<source>python`, `</source>`, `<code>`, `[source]`
_TAG_FENCE = LazyPattern(r"</?(?:source|code|pre|codeblock)\b[^>]*>\w*|\[/?source\]\w*", re.I)
_ELLIPSIS = frozenset({"...", "…", "[...]", "(...)"})
_FILE_NAME = LazyPattern(r"[\w.+-]+")
_CODE_SPAN = LazyPattern(r"`([^`\s]+)`")
_FENCE_INFO = LazyPattern(r"(?:`{3,}|~{3,})\s*(?P<info>\S*)")


class FencePath(NamedTuple):
    """A fenced block's path; `if_exists` when the prose only may name it."""

    path: str | None
    if_exists: bool = False


class Gap:
    """What lies between the nearest prose line and here (the larger wins): plain
    ints, as no enum class is built at start-up and none is read on every line."""

    NONE = 0
    FENCES = 1  # fence lines or `...` only
    BLANK = 2  # at least one blank line


def is_tag_fence(stripped: str) -> bool:
    """`<source>python`, `</source>` and the like: fences some tools use."""
    return stripped[:1] in "<[" and _TAG_FENCE.fullmatch(stripped) is not None


def fence_line_path(stripped: str) -> str | None:
    """The path a fence line's tag carries: ```` ```python:app/utils.py ```` or
    ```` ```app/utils.py ````."""
    match = _FENCE_INFO.fullmatch(stripped)
    if match is None:
        return None
    info = match["info"]
    tail = info.split(":", 1)[1] if ":" in info else info
    return tag_path(tail) if tail else None


def is_transparent(stripped: str) -> bool:
    """A non-blank line that carries no text of its own: a fence line or `...`."""
    return stripped.startswith(("```", "~~~")) or is_tag_fence(stripped) or stripped in _ELLIPSIS


_NO_PATH = FencePath(None)
_TRANSPARENT_STARTS = "`~<[.…("  # what a line `is_transparent` accepts starts with
# Gap's values read once (Python 3.11 looks a class attribute up on every read), for
# what runs once per block
_NEAR, _FENCES, _BLANK = Gap.NONE, Gap.FENCES, Gap.BLANK


@record(slots=True)
class Lookback:
    """`line` is the nearest prose line before the current one (None: none, or
    the previous block ended there); `chain` the path of the block that ended
    there, when that block was SEARCH/REPLACE or `««« EDIT`."""

    line: str | None = None
    gap: int = Gap.NONE
    chain: BlockPath | None = None

    def restart(
        self, line: str | None = None, gap: int = Gap.NONE, chain: BlockPath | None = None
    ) -> None:
        """A block ended here: only what it leaves names the next block's file (as
        a new `Lookback` would; reused, as one block ends after another)."""
        self.line, self.gap, self.chain = line, gap, chain

    def note(self, text: str) -> None:
        """One line of prose (outside blocks, or inside a fence that wraps blocks)."""
        stripped = text.strip()
        if not stripped:
            self.gap = Gap.BLANK
        elif is_transparent(stripped):
            carried = fence_line_path(stripped) if stripped[0] in "`~" else None
            if carried is not None:
                self.line, self.gap, self.chain = carried, Gap.NONE, None
            elif self.gap < Gap.FENCES:
                self.gap = Gap.FENCES
        else:
            self.line, self.gap, self.chain = text, Gap.NONE, None

    def note_lines(self, text: str, pos: int, stop: int) -> None:
        """The lines of `text[pos:stop]` (each ending in `\\n`), as `note` would one
        by one: only the last prose line and what follows it matter, so they are
        read from the end."""
        if stop - pos == 1:  # one empty line (between blocks, mostly)
            self.gap = _BLANK
            return
        gap = _NEAR
        end = stop - 1
        while end > pos:
            start = text.rfind("\n", pos, end) + 1 or pos
            stripped = text[start:end].strip()
            if not stripped:
                gap = _BLANK
            elif stripped[0] in _TRANSPARENT_STARTS and is_transparent(stripped):
                if stripped[0] in "`~" and fence_line_path(stripped) is not None:
                    # one line read alone gives the same as the rest of them
                    for line in text[start:stop].split("\n")[:-1]:
                        self.note(line)
                    return
                gap = max(gap, _FENCES)
            else:
                self.line, self.gap, self.chain = text[start:end], gap, None
                return
            end = start - 1
        if end == pos and pos < stop:  # the first line is empty
            gap = _BLANK
        self.gap = max(self.gap, gap)

    def block_path(self) -> BlockPath:
        """The path of a SEARCH/REPLACE or `««« EDIT` block opening here."""
        if self.chain is not None:
            return self.chain
        line = self.line
        if line is None or len(line) > LONGEST_PATH:
            return BlockPath(None)
        commented = comment_path(line)
        if commented is not None:
            return BlockPath(commented)
        if self.gap != _BLANK:
            return BlockPath(clean_path(line) or None)
        cleaned = clean_path_line(line)
        return BlockPath(cleaned.path if looks_like_path(cleaned) else None)

    def fence_path(self) -> FencePath:
        """The path of a fenced block opening here: the nearest prose line, if it
        looks like a path. Failing that, a file the prose may name, used only if it
        exists (`FencePath.if_exists`): one word right before the fence (a file
        without extension), or the one path in backticks in the prose line
        (`Here is the new version of `a.txt`:`, as aider's whole-file format has it)."""
        line = self.line
        if line is None or len(line) > LONGEST_PATH:
            return _NO_PATH
        found = comment_path(line) or path_or_none(line)
        if found is not None:
            return FencePath(found)
        if self.gap == Gap.NONE and not line.rstrip().endswith(":"):
            word = clean_path_line(line).path  # `Output:` leads into the fence: prose
            if _FILE_NAME.fullmatch(word) and word[-1] != ".":
                return FencePath(word, if_exists=True)
        mentioned = {path for path in map(path_or_none, _CODE_SPAN.findall(line)) if path}
        if len(mentioned) == 1:
            return FencePath(mentioned.pop(), if_exists=True)
        return _NO_PATH
