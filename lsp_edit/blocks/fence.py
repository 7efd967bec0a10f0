"""Fenced code blocks: the fence tag grammar and the parser of one fenced block.

Tag grammar (the first word of the info string):

    lang                  the complete new file              target None
    lang:N                line N                             LineRangeTarget(N, N + 1)
    lang:A:B              lines A..B-1 (1-based, end         LineRangeTarget(A, B)
                          exclusive; A == B inserts before A)
    lang:Path-To-Symbol   a symbol by AST path, parts        AstTarget(action="replace")
                          split on `-` `.` `::` `/`
    lang:Path:before|after|remove                            AstTarget(action=...)

A tag whose tail is a file path (`python:app/utils.py`, `app/utils.py`, or a
later word `title="app/utils.py"`) names the block's file instead (see
`paths.tag_path`).

A fence opens with 3+ backticks or tildes and closes with a line of the same
character, at least as long, with nothing else but whitespace. Inside it, a fence
line with an info string (```` ```bash ````) at least as long opens a nested
level, which the next bare fence closes: a README in a ```` ```markdown ```` block
keeps its ```` ```bash ```` blocks. A block whose levels are still open when the
reply ends is refused, never cut short.

Shell fences are not edits (they yield the git commands they hold); a
```` ```json ```` fence holding operations yields them; an untagged fence is an
edit only when a path names its file. A fence without an edit target whose
content turns out to hold SEARCH/REPLACE, `««« EDIT` or a V4A patch (or, in a
fence that is not a shell or JSON block, a unified diff) is a *wrapper*: its
content is read as those blocks. An edit whose content holds edit markers
(`>>>>>>> REPLACE`, `<<<<<<< HEAD`, `»»» EDIT END`) is refused: they are never
written into a file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from lsp_edit.blocks.markers import is_block_opener, is_patch_file_header
from lsp_edit.blocks.model import (
    AstAction,
    AstTarget,
    FencedEdit,
    IgnoredBlock,
    LateMessage,
    LineRangeTarget,
    ParseProblem,
    ReplySpan,
    ShellSuggestion,
    late_problem,
)
from lsp_edit.blocks.paths import (
    comment_path,
    file_named_by,
    path_or_none,
    tag_path,
)
from lsp_edit.blocks.scanner import (
    FENCE_LINE,
    Emit,
    LazyModule,
    Plain,
    ReplyLine,
    Step,
    shown,
    span,
    split_block,
    where,
    without_bom,
)
from lsp_edit.patterns import LazyPattern
from lsp_edit.values import NamedTuple, record, value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from lsp_edit.blocks import operations, unified_diff
    from lsp_edit.blocks.lookback import Lookback
    from lsp_edit.blocks.unified_diff import UnifiedDiff
else:
    # The parsers of diffs and JSON operations are imported by the first block that
    # holds one: `lsp-edit apply` starts once per reply, and most replies hold none.
    operations = LazyModule("lsp_edit.blocks.operations", globals())
    unified_diff = LazyModule("lsp_edit.blocks.unified_diff", globals())

SHELL_TAGS = frozenset(
    {"bash", "sh", "shell", "console", "zsh", "fish", "ksh", "csh", "tcsh", "shellsession"}
    | {"cmd", "bat", "batch", "powershell", "ps1", "pwsh"}
)
DIFF_TAGS = frozenset({"diff", "patch", "udiff"})
_DIFF_STARTS = frozenset("dpuDPU")  # the first letters of DIFF_TAGS, either case
AST_ACTIONS: tuple[AstAction, ...] = ("before", "after", "remove")
OPENER = r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)"
"""A line that may open a fence, for `opener` (as a pattern for `stream.py`)."""

_OPENER = LazyPattern(OPENER)

_CLOSER = LazyPattern(r"[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*")
_SINGLE_COLON = LazyPattern(r"(?<!:):(?!:)")
_PATH_SEPARATOR = LazyPattern(r"::|[-./]")
_GIT_COMMAND = LazyPattern(r"\s*(?:\$\s*)?(git\s+\S.*?)\s*")
# Lines a fenced block must look at: fence lines (its closer, or the next
# targeted opener); in a shell block git commands; in a block that may wrap
# others, block openers and diff headers.
# A whole block after its opener, by its fence's character: content lines, then a
# fence line of that character (the closer if its fence matches, or in a targeted
# block the next targeted opener); in a block that may wrap others, no opener or
# diff header. A fence line of the other character is content: only the block's
# own can close it, open a level inside it or name its file (see `take`).
_OWN_FENCE = {"`": r"[ \t]*```", "~": r"[ \t]*~~~"}


def _content(fence: str, wrapped: bool) -> str:
    return rf"(?P<content>{_lines(fence, wrapped)})"


def _lines(fence: str, wrapped: bool) -> str:
    # (a line whose first character after its indentation cannot start a fence line,
    # nor in a block that may wrap others an opener or a diff header, is taken at once)
    char = fence[-1]
    if not wrapped:
        return rf"(?:[ \t]*+[^\s{char}].*\n|(?!{fence}).*\n)*+"
    return (
        rf"(?:[^\S\n]*+[^\s{char}<«*d-].*\n"
        rf"|(?!{fence}|[^\S\n]*(?:<<<<<|«««|\*\*\*)| *(?:diff --git |--- )).*\n)*+"
    )


_WHOLE = {
    char: LazyPattern(rf"{_content(fence, False)}(?P<fence_line>{fence}.*)\n")
    for char, fence in _OWN_FENCE.items()
}
_WHOLE_UNWRAPPED = {
    char: LazyPattern(rf"{_content(fence, True)}(?P<fence_line>{fence}.*)\n")
    for char, fence in _OWN_FENCE.items()
}
# A fence with no tag, read whole (see `read_untagged_run`); a fence of one line that
# starts like no fence line, marker or diff header is matched first, in a few steps
_UNTAGGED_WHOLE = {
    char: LazyPattern(
        rf"{char * 3}\n(?P<content>[^\s`~<«*d-].*+\n(?={char * 3}\n)|{_lines(fence, True)})"
        rf"{char * 3}\n"
    )
    for char, fence in _OWN_FENCE.items()
}
_UNTAGGED_OPENERS = frozenset({"```", "~~~"})
_NAMES_NO_FILE = "it has no language tag and names no file"
_NOT_CONTENT = Plain(LazyPattern(rf"^{FENCE_LINE}", re.MULTILINE))
_NOT_SHELL = Plain(
    LazyPattern(
        rf"^{FENCE_LINE}|^[^\S\n]*(?:\$[^\S\n]*)?git|^[^\S\n]*(?:<<<<<|«««|\*\*\*)", re.MULTILINE
    )
)
_NOT_OPENER = Plain(LazyPattern(rf"^{FENCE_LINE}|^[^\S\n]*(?:<<<<<|«««|\*\*\*)", re.MULTILINE))
# Lines that must never be written into a file: the markers of edit blocks and of
# merge conflicts (a lone `=======` is a heading underline in Markdown and rst).
_MARKER = LazyPattern(
    r"<{5,9}(?:[ \t].*)?|>{5,9}(?:[ \t]*\w+)?|«««[ \t]*EDIT|»»»(?:[ \t]*EDIT[ \t]+END)?"
    r"|═{3,}[ \t]*REPL|\*\*\*[ \t]*(?:Begin|End)[ \t]+Patch",
    re.IGNORECASE,
)
_MARKER_LINE = LazyPattern(
    rf"^[^\S\n]*(?:{_MARKER.pattern})[^\S\n]*$", re.MULTILINE | re.IGNORECASE
)
_TITLE = LazyPattern(r"(?:title|file|filename|path|name)=[\"']?(?P<path>[^\"'\s]+)[\"']?", re.I)
_NOT_WRAPPED = Plain(
    LazyPattern(
        rf"^{FENCE_LINE}|^[^\S\n]*(?:<<<<<|«««|\*\*\*)|^ *(?:diff --git |--- )", re.MULTILINE
    )
)
# Once a fence is open inside a block that may wrap others, a fence line with a tag
# only opens another level (or is content): the bare fence lines that may close one
# still go through `take`, the others are taken in bulk (`take_plain` opens levels).
_BARE_FENCE = r"[ \t]*(?:`{3,}|~{3,})[ \t]*$"
_NOT_OPENER_NESTED = Plain(
    LazyPattern(rf"^{_BARE_FENCE}|^[^\S\n]*(?:<<<<<|«««|\*\*\*)", re.MULTILINE)
)
_NOT_WRAPPED_NESTED = Plain(
    LazyPattern(
        rf"^{_BARE_FENCE}|^[^\S\n]*(?:<<<<<|«««|\*\*\*)|^ *(?:diff --git |--- )", re.MULTILINE
    )
)


@value
class TagError:
    """Why a fence tag cannot be read; `code` is `invalid_line_range` or
    `invalid_ast_path` (the `ParseProblem` code the block is reported with)."""

    code: str
    message: str


FenceTarget = AstTarget | LineRangeTarget | None


def parse_fence_tag(info: str) -> tuple[str, FenceTarget] | TagError:
    """Reads a fence info string: `(language, target)` or why it is invalid.

    Only the first word counts (`python title="x"` is `python`). An empty info
    string gives `("", None)`, which callers treat as "not an edit".
    """
    words = info.split()
    if not words:
        return "", None
    tag = words[0]
    language, colon, rest = tag.partition(":")
    if not colon or tag_path(rest) is not None:
        return language, None
    if not language:
        code = "invalid_line_range" if rest[:1].isdigit() else "invalid_ast_path"
        return TagError(code, f"fence tag `{tag}` has no language before the first `:`")
    if rest[:1].isdigit() or (rest[:1] == "-" and rest[1:2].isdigit()):
        return _line_range(tag, language, rest)
    return _ast_path(tag, language, rest)


def fence_tag_path(info: str) -> str | None:
    """The file a fence's info string names: its tag's tail (`python:app/utils.py`),
    the tag itself (`app/utils.py`), or a later word (`title="app/utils.py"`)."""
    words = info.split()
    if not words:
        return None
    _, colon, rest = words[0].partition(":")
    found = tag_path(rest if colon else words[0])
    if found is not None:
        return found
    for word in words[1:]:
        titled = _TITLE.fullmatch(word)
        if titled is not None:
            return path_or_none(titled["path"])
    return None


def _line_range(tag: str, language: str, rest: str) -> tuple[str, FenceTarget] | TagError:
    from lsp_edit.positions import PositionError, parse_line_tail  # only a line-range tag needs it

    tail = parse_line_tail(rest)
    if isinstance(tail, PositionError):
        return TagError(
            "invalid_line_range",
            f"fence tag `{tag}`: {tail.message}; write `{language}:start:end` "
            f"(1-based, end exclusive) or `{language}:N` for line N",
        )
    start = tail.start.value
    end = start + 1 if tail.end is None else tail.end.value
    return language, LineRangeTarget(start, end)


def _ast_path(tag: str, language: str, rest: str) -> tuple[str, FenceTarget] | TagError:
    pieces = _SINGLE_COLON.split(rest) if ":" in rest else [rest]
    written = pieces[0]
    action: AstAction = "replace"
    if len(pieces) == 2:
        suffix = pieces[1].lower()
        for known in AST_ACTIONS:
            if suffix == known:
                action = known
                break
        else:
            return TagError(
                "invalid_ast_path",
                f"fence tag `{tag}`: `:{pieces[1]}` is not an action; "
                "end the path with `:before`, `:after` or `:remove`, or with nothing to replace",
            )
    elif len(pieces) > 2:
        return TagError(
            "invalid_ast_path",
            f"fence tag `{tag}`: write `{language}:Namespace-Class-Method` optionally "
            "followed by one of `:before`, `:after`, `:remove`",
        )
    parts = tuple(_PATH_SEPARATOR.split(written))
    if not written or "" in parts or ":" in "".join(parts):  # an empty part, or one with `:`
        return TagError(
            "invalid_ast_path",
            f"fence tag `{tag}`: the AST path `{written}` has an empty part; write names "
            f"separated by `-`, `.`, `::` or `/`, e.g. `{language}:Client-chat`",
        )
    return language, AstTarget(written, parts, action)


def _closes(raw: str, char: str, length: int) -> bool:
    """`raw` closes a fence of `char` opened `length` long: a fence of that character,
    at least as long, with nothing else but spaces and tabs (as `_CLOSER` reads it,
    without a match per line)."""
    fence = raw.strip(" \t")
    return len(fence) >= length and not fence.lstrip(char)


class FenceOpener(NamedTuple):
    """A line that opens a fence (a tuple: one is made per fence line)."""

    indent: int  # leading spaces, removed from content lines (as Markdown does)
    char: str
    length: int
    info: str

    def closed_by(self, raw: str) -> bool:
        return _closes(raw, self.char, self.length)

    def dedent(self, raw: str) -> str:
        if not self.indent:
            return raw
        spaces = len(raw) - len(raw.lstrip(" "))
        return raw[min(spaces, self.indent) :]


def match_opener(raw: str) -> FenceOpener | None:
    """The fence a line opens, if it opens one."""
    if "```" not in raw and "~~~" not in raw:
        return None
    match = _OPENER.fullmatch(raw)
    if match is None:
        return None
    return opener(match["indent"], match["fence"], match["info"])


@lru_cache(maxsize=256)
def line_opener(raw: str) -> FenceOpener | None:
    """`match_opener`, remembered for the lines a reply repeats (```` ``` ````,
    ```` ```python ````)."""
    return match_opener(raw)


def opener(indent: str, fence: str, info: str) -> FenceOpener | None:
    """The fence a line matching `OPENER` opens, from its groups (a backtick fence's
    info string may not hold a backtick)."""
    info = info.strip()
    if fence[0] == "`" and "`" in info:
        return None
    return FenceOpener(len(indent.expandtabs(4)) if indent else 0, fence[0], len(fence), info)


def is_diff_tag(info: str) -> bool:
    """```` ```diff ````, ```` ```patch ```` or ```` ```udiff ````: content is read as
    a unified diff or a V4A patch."""
    if info.lstrip()[:1] not in _DIFF_STARTS:
        return False
    words = info.split()
    return bool(words) and words[0].lower() in DIFF_TAGS


@record
class Wrapper:
    """A fence whose content is read as other blocks; `found` counts the items
    reported inside it (a ```diff fence that yields none is reported)."""

    opener: FenceOpener
    opener_line: int
    is_diff: bool
    found: int = 0
    path: str | None = None  # the path line before a ```diff fence, for headerless hunks


class _Tag(NamedTuple):
    """What a fence's info string says: an error, or a language, an edit target and
    the file it names; whether the block holds shell commands or JSON."""

    error: TagError | None
    language: str
    target: FenceTarget
    path: str | None
    is_shell: bool
    is_json: bool


@lru_cache(maxsize=256)
def _read_tag(info: str) -> _Tag:
    """The fence tag read once per info string (a reply repeats its tags)."""
    parsed = parse_fence_tag(info)
    if isinstance(parsed, TagError):
        return _Tag(parsed, "", None, None, is_shell=False, is_json=False)
    language, target = parsed
    carried = fence_tag_path(info) if target is None else None
    if carried is not None and carried == info.split()[0]:
        language = ""  # the tag is the path itself
    lower = language.lower() if target is None else ""
    return _Tag(None, language, target, carried, lower in SHELL_TAGS, lower == "json")


class FenceBlock:
    """One fenced block, from its opening line to its closing fence."""

    # what most blocks keep as they start (set on the instance when it changes)
    successor: UnifiedDiff | None = None
    names_path: str | None = None  # a fence holding only a path names it
    _pending_minus: ReplyLine | None = None
    _inner_line = 0  # the first fence opened inside this one
    _read_for_content = 0  # how many content lines `_file_content_before` has read
    _holds_content = False  # a line a file holds came before any block marker
    _named_before = False  # a line naming a path came before any block marker
    next_opener: FenceOpener | None = None  # read whole, it ended where this one opens
    suggested = False  # a shell block gave git commands

    def __init__(
        self,
        opener: FenceOpener,
        start: int,
        path: str | None,
        emit: Emit,
        *,
        path_if_exists: bool = False,
    ) -> None:
        """`start` is the reply line of the opening fence."""
        self.opener = opener
        self.start = start
        self.emit = emit
        self.content: list[str] = []
        self._nested: list[int] = []  # the length of each fence open inside this one
        tag = _read_tag(opener.info)
        self.error: TagError | None = tag.error
        self.language = tag.language
        self.target: FenceTarget = tag.target
        if tag.path is not None:
            path = tag.path
            path_if_exists = False
        self.path = path
        self.path_if_exists = path_if_exists
        self.is_shell = tag.is_shell
        self.is_json = tag.is_json
        self.can_wrap = tag.error is None and tag.target is None
        # a tag or a path makes it a file's content (a shell block, or an untagged
        # fence naming no file, is no file: whatever it holds, it may wrap blocks)
        self._may_be_a_file = (bool(tag.language) or path is not None) and not tag.is_shell
        # shell and JSON content never starts with a diff header, prose may
        self.wraps_diffs = self.can_wrap and not (tag.is_shell or tag.is_json)

    def wrapper(self) -> Wrapper:
        return Wrapper(self.opener, self.start, is_diff=False)

    def take(self, line: ReplyLine) -> Step:
        raw = line.raw
        if self._nested:
            closer = _CLOSER.fullmatch(raw)
            if closer is not None and self._closes_nested(closer.group("fence")):
                self._nested.pop()
                self.content.append(self.opener.dedent(raw))
                return Step.CONTINUE
        elif self.opener.closed_by(raw):
            self._flush_pending()
            self._close(line.number)
            return Step.DONE
        text = self.opener.dedent(raw)
        if self.can_wrap and not (self._may_be_a_file and self._file_content_before()):
            pending = self._pending_minus
            if pending is not None:
                self._pending_minus = None
                if text.startswith("+++ "):
                    plus = ReplyLine(text, line.number, raw)
                    self.successor = unified_diff.UnifiedDiff.from_headers(pending, plus, self.emit)
                    return Step.WRAP
                self.content.append(pending.text)
            stripped = text.strip()
            if is_block_opener(stripped) or is_patch_file_header(stripped):
                return Step.WRAP
            if self.wraps_diffs:
                if text.startswith("diff --git "):
                    return Step.WRAP
                if text.startswith("--- "):
                    self._pending_minus = ReplyLine(text, line.number, raw)
                    return Step.CONTINUE
        elif self.target is not None and self._opens_next_edit(raw):
            self._report_next_opener(raw, line.number)
            return Step.REDO
        if self._path_then_fence(raw):
            return Step.REDO
        if self.is_shell:
            command = _GIT_COMMAND.fullmatch(text)
            if command is not None:
                self.suggested = True
                self.emit(ShellSuggestion(span(line.number, line.number), command.group(1)))
            self.content.append(text)  # a path line, should the block wrap others
            return Step.CONTINUE
        nested = self._opens_nested(raw)
        if nested:
            self._nested.append(nested)
            self._inner_line = self._inner_line or line.number
        self.content.append(text)
        return Step.CONTINUE

    def plain(self) -> Plain | None:
        if self.is_shell:
            return _NOT_SHELL
        # a fence line right after the first content line may end a fence holding a path
        nested = bool(self._nested) and len(self.content) > 1
        if self.is_json:
            return _NOT_OPENER_NESTED if nested else _NOT_OPENER
        if self.can_wrap:
            if self._pending_minus is not None:
                return None
            return _NOT_WRAPPED_NESTED if nested else _NOT_WRAPPED
        return _NOT_CONTENT

    def take_plain(self, lines: list[str], first: int) -> None:
        indent = self.opener.indent
        if indent:
            dedent = self.opener.dedent
            self.content.extend([dedent(line) for line in lines])
        else:
            self.content.extend(lines)
        if self._nested:  # the lines may open more levels (see `plain`)
            for raw in lines:
                if "```" in raw or "~~~" in raw:
                    length = self._opens_nested(raw)
                    if length:
                        self._nested.append(length)

    def read_whole(self, text: str, pos: int, end: int) -> int:
        """Reads the block from `text[pos:end]` when its end is there and nothing in
        it needs reading line by line: up to its closing fence, or in a targeted
        block up to the next targeted opener (the block is then reported unclosed,
        and reading resumes at that opener, as `take` would have it). Returns where
        reading stopped, -1 when the lines must go through `take`."""
        if self.is_shell:
            return -1
        whole = _WHOLE_UNWRAPPED if self.can_wrap else _WHOLE
        match = whole[self.opener.char].match(text, pos, end)
        if match is None:
            return -1
        fence_line = match["fence_line"]
        closes = self.opener.closed_by(fence_line)
        if not closes and (self.target is None or not self._opens_next_edit(fence_line)):
            return -1
        written = match["content"]
        content = split_block(written)
        self.take_plain(content, self.start + 1)
        last = self.start + len(content)
        if not closes:
            self._report_next_opener(fence_line, last + 1)
            self.next_opener = line_opener(fence_line)
            return match.start("fence_line")
        # the lines as one text, to look for markers in, when they are the content as is
        plain = not self.opener.indent and not written.startswith("\ufeff")
        self._close(last + 1, written if plain else None)
        return match.end()

    def end(self, last_line: int) -> None:
        self._flush_pending()
        if self.error is not None:
            self._report_error(self.error, last_line)
        elif self._inner_line:
            self._report_unclosed(
                last_line,
                f"the reply ended at line {last_line}, and a fence opened inside it at line "
                f"{self._inner_line}, so where the block ends cannot be told",
                self.opener.char * (self._nested[-1] if self._nested else self.opener.length),
            )
        elif self.target is not None or (self.language and not self.is_shell) or self.path:
            self._report_unclosed(last_line, f"the reply ended at line {last_line}")

    def _path_then_fence(self, raw: str) -> bool:
        """```` ``` ```` / `src/app.js` / ```` ```javascript ````: a fence holding only
        a path, whose closing fence the model wrote as the next block's opener. It
        names that block's file and ends here."""
        if len(self.content) != 1 or self.target is not None or self.path is not None:
            return False
        inner = match_opener(raw)
        if inner is None or not inner.info or inner.char != self.opener.char:
            return False
        return self._names_a_path()

    def _opens_nested(self, raw: str) -> int:
        """The length of a fence line with a language tag right after it (```` ```bash ````)
        and as long as ours: a fence inside this one (`` ``` not a close `` is
        content); 0 for any other line (as `match_opener` reads a fence line)."""
        body = raw.lstrip(" \t")
        char = self.opener.char
        if body[:3] != char * 3:
            return 0
        length = len(body) - len(body.lstrip(char))
        if length < self.opener.length or not body[length : length + 1].isalpha():
            return 0
        if char == "`" and "`" in body[length:]:
            return 0  # not a fence line: its info string holds a backtick
        return length

    def _closes_nested(self, fence: str) -> bool:
        length = self._nested[-1]
        return fence[0] == self.opener.char and len(fence) >= length

    def _file_content_before(self) -> bool:
        """Whether the fence held a file's lines before this line: anything but blank
        lines, fence lines and one line naming a path (the wrapped block's file, as
        DeepSeek and Gemini write it). Then a block marker or a diff header met now
        is part of that file (a README showing `git diff` output, docs showing a
        SEARCH/REPLACE block), never a block: wrapping would drop the lines before."""
        if not self._holds_content:
            named = self._named_before
            for line in self.content[self._read_for_content :]:
                stripped = line.strip()
                if not stripped or stripped.startswith(("```", "~~~")):
                    continue
                if named or file_named_by(stripped) is None:
                    self._holds_content = True
                    break
                named = True
            self._named_before = named
            self._read_for_content = len(self.content)
        return self._holds_content

    def _flush_pending(self) -> None:
        if self._pending_minus is not None:
            self.content.append(self._pending_minus.text)
            self._pending_minus = None

    def _opens_next_edit(self, raw: str) -> bool:
        """A fence opener with an edit target, as long as ours, inside a targeted
        block: our closing fence is missing (as Markdown has it, the opener would
        be content and the next block's closing fence would end ours)."""
        return _opens_next_edit(self.opener, line_opener(raw))

    def _report_next_opener(self, raw: str, number: int) -> None:
        """The fence line `raw` at reply line `number` opens the next targeted block."""
        late = _next_fence_opened(self.opener, raw)  # (the block holds a line at least)
        where = ReplySpan(self.start, number - 1)
        self.emit(late_problem(where, "unclosed_block", late, self.path))

    def _close(self, end: int, written: str | None = None) -> None:
        """The block ended at reply line `end`; `written` is its content as one text,
        when the caller has it."""
        if self.error is not None:
            self._report_error(self.error, end)
            return
        if self.is_shell:
            if not self.suggested:
                self._ignore(end, "shell commands are never run")
            return
        if self.is_json and self._json(end):
            return
        path = self.path
        if path is None and self.target is None:
            if self._names_a_path():
                return
            path = comment_path(self.content[0]) if self.content else None
        if not self.language and path is None:
            self._ignore(end, _NAMES_NO_FILE)
            return
        without_bom(self.content)
        if self._refused_for_markers(end, path, written):
            return
        self.emit(
            FencedEdit(
                span(self.start, end),
                path,
                self.language,
                self.opener.info,
                self.target,
                tuple(self.content),
                path_if_exists=self.path_if_exists and path == self.path,
            )
        )

    def _refused_for_markers(self, end: int, path: str | None, written: str | None) -> bool:
        """Content holding an edit or conflict marker is never written into a file."""
        marker = _first_marker("\n".join(self.content) if written is None else written)
        if marker is None:
            return False
        number, text = marker
        self.emit(
            ParseProblem(
                span(self.start, end),
                "markers_in_content",
                f"fenced block at {where(self.start, end)} holds the edit marker {shown(text)} "
                f"(reply line {self.start + 1 + number}); it was skipped, never written into "
                "the file. A SEARCH/REPLACE block is `<<<<<<< SEARCH`, the old lines, "
                "`=======`, the new lines, `>>>>>>> REPLACE`.",
                path,
            )
        )
        return True

    def _names_a_path(self) -> bool:
        """A fence holding only a file path (DeepSeek writes the path fenced, then
        the block in a second fence): it names the next block's file."""
        self.names_path = _only_path(self.content)
        return self.names_path is not None

    def _ignore(self, end: int, reason: str) -> None:
        self.emit(IgnoredBlock(span(self.start, end), _block_name(self.opener), reason))

    def _json(self, end: int) -> bool:
        """Operations in a ```json block; False when the block is an ordinary JSON file."""
        text = "\n".join(self.content)
        value = operations.load_json(text)
        if isinstance(value, operations.JsonError):
            if '"op"' in text:
                self.emit(
                    ParseProblem(
                        span(self.start, end),
                        "invalid_json",
                        f"```json block at {where(self.start, end)} looks like operations but is "
                        f"not valid JSON: {value.message}",
                    )
                )
                return True
            return False
        if not operations.is_operations(value):
            return False
        for item in operations.operations_from_value(value, span(self.start, end)):
            self.emit(item)
        return True

    def _report_error(self, error: TagError, end: int) -> None:
        self.emit(
            ParseProblem(
                span(self.start, end),
                error.code,
                f"{error.message} (block at {where(self.start, end)} skipped)",
                self.path,
            )
        )

    def _report_unclosed(self, end: int, reason: str, closer: str | None = None) -> None:
        self.emit(_unclosed(self.opener, self.start, end, reason, self.path, closer))


def _unclosed(
    opener: FenceOpener, start: int, end: int, reason: str, path: str | None, closer: str | None
) -> ParseProblem:
    """The problem of a block opened by `opener` at reply line `start`, never closed."""
    return ParseProblem(
        span(start, end), "unclosed_block", _unclosed_message(opener, start, reason, closer), path
    )


def _unclosed_message(opener: FenceOpener, start: int, reason: str, closer: str | None) -> str:
    fence = opener.char * opener.length
    return (
        f"fenced block `{fence}{opener.info}` opened at reply line {start} was never closed "
        f"({reason}); it was skipped. Close it with a line `{closer or fence}`."
    )


class _NextFenceOpened(LateMessage):
    """The message of a targeted block left open where the fence line `following`
    opens the next one, on the line after the block's span."""

    __slots__ = ("following", "opener")

    def __init__(self, opener: FenceOpener, following: str) -> None:
        self.opener = opener
        self.following = following

    def text(self, problem: ParseProblem) -> str:
        where = problem.span
        reason = f"a new fence `{self.following}` opened at line {where.end_line + 1}"
        return _unclosed_message(self.opener, where.start_line, reason, None)


@lru_cache(maxsize=256)
def _next_fence_opened(opener: FenceOpener, fence_line: str) -> _NextFenceOpened:
    """One message per pair of fence lines (a reply repeats its fence lines)."""
    return _NextFenceOpened(opener, fence_line.strip())


def _opens_next_edit(opener: FenceOpener, following: FenceOpener | None) -> bool:
    """`following`, inside a block opened by `opener`, opens the next targeted one
    (see `FenceBlock._opens_next_edit`)."""
    if following is None or following.char != opener.char or following.length < opener.length:
        return False
    tag = _read_tag(following.info)
    return tag.error is None and tag.target is not None


# A fence tag naming a symbol the plainest way (`python:Service-run`): a language, then
# names of word characters joined by `-`, the first not starting with a digit. It
# holds no `.`, `/` or `:` after the language, so it is no file path, no line range
# and no action: `parse_fence_tag` reads it as `AstTarget(path, path.split("-"))`.
_PLAIN_SYMBOL_TAG = LazyPattern(r"(?P<language>[^\s:`]+):(?P<path>[^\W\d]\w*(?:-\w+)*)")


def plain_symbol_target(info: str) -> tuple[str, AstTarget] | None:
    """The language and target of a fence info string that is only a plain symbol
    tag (see `_PLAIN_SYMBOL_TAG`), as `parse_fence_tag` reads it; None for any other."""
    match = _PLAIN_SYMBOL_TAG.fullmatch(info)
    if match is None:
        return None
    path = match["path"]
    return match["language"], AstTarget(path, tuple(path.split("-")))


def read_symbol_fence(
    text: str,
    pos: int,
    end: int,
    start: int,
    fence: str,
    info: str,
    look: Lookback,
    emit: Emit,
) -> int:
    """Reads a whole fenced block opened at reply line `start` by the unindented line
    `fence` + `info` (a plain symbol tag, see `plain_symbol_target`), from `text[pos]`
    (the line after it), when its closing fence is in `text[:end]` and its content
    holds no fence line of its own, no byte order mark at its start and nothing that
    may be an edit marker: reports it as `FenceBlock` would have, and returns where
    its closing fence ends; -1 otherwise (the block is then read by `FenceBlock`).
    `look` holds the lines before the fence, which may name its file."""
    tagged = plain_symbol_target(info)
    if tagged is None:
        return -1
    match = _WHOLE[fence[0]].match(text, pos, end)
    if match is None:
        return -1
    if not _closes(match["fence_line"], fence[0], len(fence)):
        return -1  # not its closing fence
    written = match["content"]
    if written.startswith("\ufeff") or _may_hold_marker(written):
        return -1
    content = tuple(split_block(written))
    language, target = tagged
    path = look.fence_path()
    emit(
        FencedEdit(
            ReplySpan(start, start + len(content) + 1),
            path.path,
            language,
            info,
            target,
            content,
            path.if_exists,
        )
    )
    return match.end()


def read_targeted_run(
    text: str, pos: int, end: int, number: int, opener: FenceOpener, emit: Emit
) -> tuple[int, int]:
    """Fences with an edit target, each left open where the next one opens, from
    the line at `text[pos:end]` that `opener` opens (the fence a targeted block ran
    into, so nothing before it names a file): each is reported unclosed, as
    `FenceBlock` reports it, in one loop (a reply may hold half a million). `number`
    is the reply line before `pos`. Stops at the first fence that is anything else,
    or whose end has not arrived yet; returns where, and the reply line read last."""
    whole = _WHOLE[opener.char].match  # the next opener has the same character
    while True:
        match = whole(text, text.index("\n", pos, end) + 1, end)
        if match is None:
            break
        fence_line = match["fence_line"]
        following = line_opener(fence_line)
        # (a fence line that opens a targeted block has a tag, so it closes nothing;
        # a reply repeats its fence lines, and each is one opener: see `line_opener`)
        if following is not opener and not _opens_next_edit(opener, following):
            break
        assert following is not None
        start = number + 1
        number = start + match["content"].count("\n")
        late = _next_fence_opened(opener, fence_line)
        emit(late_problem(ReplySpan(start, number), "unclosed_block", late))
        pos = match.start("fence_line")
        opener = following
    return pos, number


def _only_path(lines: list[str]) -> str | None:
    """The path a fence names when it holds nothing else (one line that is a path,
    blank lines aside)."""
    first = None
    for line in lines:
        if line.strip():
            if first is not None:
                return None
            first = line
    return path_or_none(first)


def read_untagged_run(
    text: str, pos: int, end: int, number: int, emit: Emit, keeps: Callable[[], bool] | None
) -> tuple[int, int]:
    """Fences with no tag (```` ``` ```` or `~~~` lines alone), one right after
    another from `text[pos:end]`, none of them naming a file, where nothing before
    the first names one: each is reported as `FenceBlock` reports it (not an edit),
    in one loop, as a reply may hold a million of them. `number` is the reply line
    before `pos`; `keeps` says whether each is made and emitted (None: all are).
    Stops before the first fence that is anything else, or not whole yet; returns
    where, and the reply line read last."""
    patterns, names = _UNTAGGED_WHOLE, _UNTAGGED_BLOCK_NAMES
    block, span = IgnoredBlock, ReplySpan  # (locals: a reply may hold a million)
    while True:
        char = text[pos : pos + 1]
        whole = patterns.get(char)
        match = None if whole is None else whole.match(text, pos, end)
        if match is None:
            break
        written = match["content"]
        count = written.count("\n")
        if count == 1:  # the one line neither is a path nor a comment naming one
            if file_named_by(written[:-1]) is not None:
                break
        elif count:
            lines = split_block(written)
            if _only_path(lines) is not None or comment_path(lines[0]) is not None:
                break
        start = number + 1
        number = start + count + 1
        if keeps is None or keeps():
            emit(block(span(start, number), names[char], _NAMES_NO_FILE))
        pos = match.end()
    return pos, number


def is_untagged(fence_line: str) -> bool:
    """```` ``` ```` or `~~~` alone: where `read_untagged_run` may start."""
    return fence_line in _UNTAGGED_OPENERS


@lru_cache(maxsize=256)
def _block_name(opener: FenceOpener) -> str:
    """`` ```bash block ``, for a block not read as an edit (one text per tag: a
    reply may hold a million such blocks)."""
    tag = opener.info.split()[0] if opener.info else ""
    return f"{opener.char * opener.length}{tag} block"


_UNTAGGED_BLOCK_NAMES = {
    fence[0]: _block_name(FenceOpener(0, fence[0], 3, "")) for fence in _UNTAGGED_OPENERS
}


def _first_marker(text: str) -> tuple[int, str] | None:
    """The first line of `text` that is an edit or conflict marker, with its index
    (one search over the lines: most content has none)."""
    if not _may_hold_marker(text):
        return None
    found = _MARKER_LINE.search(text)
    if found is None:
        return None
    return text.count("\n", 0, found.start()), found.group().strip()


def _may_hold_marker(text: str) -> bool:
    """Whether `text` holds what every marker line holds, whatever its case: looking
    for these is many times quicker than the search for marker lines, which tries
    every line."""
    return (
        "<<<<<" in text
        or ">>>>>" in text
        or "«««" in text
        or "»»»" in text
        or "═══" in text
        or "***" in text
    )
