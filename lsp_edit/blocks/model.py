"""What the parsers find in an LLM reply: one value per edit block, format by format.

These are plain frozen values (`lsp_edit.values`) with no LSP types. Lines are stored without
their line endings (whatever endings the LLM wrote); the file's own endings are
applied when a block is placed.

`ReplySpan` records where a block sits in the reply, so a failed block can be
reported on the reply document itself.

A reply may hold a million blocks: the values are slotted (a third of the memory of
a dict per value).
"""

from __future__ import annotations

from lsp_edit.values import field, value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

# Types only (strings at run time, importable all the same)
AstAction: TypeAlias = 'Literal["replace", "before", "after", "remove"]'
AnchoredFormat: TypeAlias = 'Literal["search_replace", "common_prefix", "v4a", "unified_diff"]'
InsertPosition: TypeAlias = 'Literal["before", "after"]'


class ReplySpan:
    """Where a block sits in the reply: 1-based lines, inclusive.

    A frozen value as `value` makes them, written out: every item has one, and a reply
    may hold a million items. It keeps its first line and its count of lines after it,
    which for most blocks is a small number Python shares rather than a new one, and
    is made without `value`'s guard against assignment (its lines are read-only
    properties): made in half the time, and an item of a short block takes a fifth less
    memory.
    """

    __slots__ = ("_after", "_start")

    def __init__(self, start_line: int, end_line: int) -> None:
        self._start = start_line
        self._after = end_line - start_line

    @property
    def start_line(self) -> int:
        return self._start

    @property
    def end_line(self) -> int:
        return self._start + self._after

    def __repr__(self) -> str:
        return f"ReplySpan(start_line={self._start!r}, end_line={self.end_line!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReplySpan):
            return NotImplemented
        return self._start == other._start and self._after == other._after

    def __hash__(self) -> int:
        return hash((self._start, self.end_line))

    def __reduce__(self) -> tuple[type[ReplySpan], tuple[int, int]]:
        return ReplySpan, (self._start, self.end_line)


@value(slots=True)
class AstTarget:
    """`python:Client-chat:before`: the symbol path and what to do there.

    `parts` is the path split on any of `-`, `.`, `::`, `/`; `written` is the
    path exactly as the LLM wrote it (used in messages).
    """

    written: str
    parts: tuple[str, ...]
    action: AstAction = "replace"


@value(slots=True)
class LineRangeTarget:
    """`python:45:67`: 1-based, start inclusive, end exclusive.

    `python:10:10` is an empty range (insert before line 10); `python:N` is the
    single line N, stored as `start=N, end=N+1`.
    """

    start: int
    end: int


@value(slots=True)
class FencedEdit:
    """A fenced code block that edits: by AST path, by line range, or the whole file.

    `target` is None for a bare language tag (complete file). `tag` is the fence
    info string as written (`python:Client-chat`), `language` its first part.
    `path` is the file named just before the fence, if any; `path_if_exists` when
    the prose there only may name it (a bare word, a name in backticks): it counts
    only if that file exists.
    """

    span: ReplySpan
    path: str | None
    language: str
    tag: str
    target: AstTarget | LineRangeTarget | None
    content: tuple[str, ...]
    path_if_exists: bool = False


@value(slots=True)
class Hunk:
    """Old lines to find and the new lines that replace them.

    `hint_line` is the 1-based line where the hunk's old lines start in the file as
    it was before the block (unified diff `@@ -l`), used only to choose between
    several matches. `scope` holds V4A `@@ class Foo` lines that must be found, in
    order, before the hunk. `final_newline` is set by a unified diff's `\\ No newline
    at end of file`: the hunk ends the file, whose new side ends with a newline
    (True) or without one (False); None says nothing about it. `ops` is the kind of
    each hunk line in order (` ` kept, `-` removed, `+` added) where the format
    says which lines are kept (diffs, patches); empty for SEARCH/REPLACE. It says
    how the lines pair up, not what the hunk changes, so equality ignores it.
    `at_end` (V4A `*** End of File`) says the old lines end the file, and a hunk
    without old lines appends there.
    """

    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    hint_line: int | None = None
    scope: tuple[str, ...] = ()
    final_newline: bool | None = None
    ops: str = field(default="", compare=False)
    at_end: bool = False


@value(slots=True)
class AnchoredEdit:
    """SEARCH/REPLACE, common-prefix `««« EDIT`, a V4A `Update File` or a unified diff
    for one file: its hunks, placed in order, each on the result of the one before.

    `move_to` is the new path of a V4A `*** Move to:` or a renaming diff.

    `splits` holds the other ways to read a SEARCH/REPLACE block with more than one
    `=======` line, one hunk per other divider (`hunks` splits at the first); the
    resolver uses the one whose SEARCH half is found in the file.
    """

    span: ReplySpan
    path: str | None
    format: AnchoredFormat
    hunks: tuple[Hunk, ...]
    move_to: str | None = None
    splits: tuple[Hunk, ...] = ()


@value(slots=True)
class CreateFile:
    """A new file with this content (V4A `Add File`, a diff from `/dev/null`);
    `final_newline` False when a diff marks its end `\\ No newline at end of file`."""

    span: ReplySpan
    path: str
    content: tuple[str, ...]
    format: AnchoredFormat
    final_newline: bool = True


@value(slots=True)
class DeleteFile:
    """V4A `Delete File`, or a diff to `/dev/null`."""

    span: ReplySpan
    path: str
    format: AnchoredFormat


@value(slots=True)
class Chunk:
    """One chunk of a chunk diff; lines without endings."""

    context_before: tuple[str, ...]
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    context_after: tuple[str, ...]


@value(slots=True)
class ChunkDiff:
    """`{"op": "chunk_diff", ...}`: chunks inside one symbol, found by AST path or
    by a 1-based line (and column) inside it."""

    span: ReplySpan
    path: str | None
    symbol: str | None
    line: int | None
    column: int | None
    chunks: tuple[Chunk, ...]


@value(slots=True)
class DeleteLines:
    """`{"op": "delete_lines", ...}`: 1-based, inclusive. Numbers are checked when
    placed, against the document, so a bad one becomes a failed change."""

    span: ReplySpan
    path: str | None
    start_line: int
    end_line: int


@value(slots=True)
class InsertLines:
    """`{"op": "insert_lines", ...}`: `content` is raw text; its own final newline
    decides whether the inserted text ends one."""

    span: ReplySpan
    path: str | None
    line: int
    position: str
    content: str


@value(slots=True)
class ShellSuggestion:
    """A shell command the reply suggests (from a ```bash block). Reported, never run."""

    span: ReplySpan
    command: str


class IgnoredBlock:
    """A block that was seen and is not an edit (a fence naming no file, a shell
    block), with why; reported so that "no edit blocks" never hides it.

    `block` names it as the reply wrote it (`` ```bash `` block).

    A frozen value written out, as `ReplySpan` is: a reply may hold a million of them.
    """

    __slots__ = ("_block", "_reason", "_span")

    def __init__(self, span: ReplySpan, block: str, reason: str) -> None:
        self._span = span
        self._block = block
        self._reason = reason

    @property
    def span(self) -> ReplySpan:
        return self._span

    @property
    def block(self) -> str:
        return self._block

    @property
    def reason(self) -> str:
        return self._reason

    def __repr__(self) -> str:
        return f"IgnoredBlock(span={self._span!r}, block={self._block!r}, reason={self._reason!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IgnoredBlock):
            return NotImplemented
        return (self._span, self._block, self._reason) == (other._span, other._block, other._reason)

    def __hash__(self) -> int:
        return hash((self._span, self._block, self._reason))

    def __reduce__(self) -> tuple[type[IgnoredBlock], tuple[ReplySpan, str, str]]:
        return IgnoredBlock, (self._span, self._block, self._reason)


@value(slots=True)
class ParseProblem:
    """A block that was skipped because it is malformed, with the reason.

    `code` is stable (clients and tests rely on it): `unclosed_block`,
    `missing_separator`, `markers_in_content`, `invalid_json`, `invalid_operation`,
    `invalid_line_range`, `invalid_ast_path`, `malformed_patch`, `malformed_diff`.
    """

    span: ReplySpan
    code: str
    message: str
    path: str | None = None


class LateMessage:
    """A problem's message, written from the problem when it is first read (see
    `late_problem`). One is shared by every problem of its kind: a reply of unclosed
    fences holds half a million problems, whose messages nobody reads."""

    __slots__ = ()

    def text(self, problem: ParseProblem) -> str:
        raise NotImplementedError


def late_problem(
    span: ReplySpan, code: str, message: LateMessage, path: str | None = None
) -> ParseProblem:
    """A problem whose message is written when first read, then kept."""
    return ParseProblem(span, code, message, path)  # type: ignore[arg-type]


def _message(problem: ParseProblem) -> str:
    stored: str | LateMessage = problem._message  # type: ignore[attr-defined]  # or its `LateMessage`
    if isinstance(stored, str):
        return stored
    text = stored.text(problem)
    problem._message = text  # type: ignore[attr-defined]
    return text


# Everything that reads the message (equality, `repr`, `replace`, copies) reads the
# text: a late message is never seen. (The property still refuses assignment.)
setattr(ParseProblem, "message", vars(ParseProblem)["message"].getter(_message))  # noqa: B010


EditBlock = (
    FencedEdit | AnchoredEdit | CreateFile | DeleteFile | ChunkDiff | DeleteLines | InsertLines
)
"""Everything that changes a file."""

Notice = ShellSuggestion | IgnoredBlock
"""What a parser reports that is never a change."""

ReplyItem = EditBlock | Notice | ParseProblem
"""Everything a parser reports, in reply order."""
