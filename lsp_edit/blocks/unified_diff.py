"""Unified diffs, with or without a `diff --git` header:

    --- a/src/app.py
    +++ b/src/app.py
    @@ -12,3 +12,4 @@ def run():
     context
    -removed
    +added

`a/` and `b/` prefixes and tab-separated timestamps are stripped. A diff from
`/dev/null` creates a file, one to `/dev/null` deletes it; `rename from/to`
headers give `move_to`. The `@@` line's old start becomes the hunk's hint line
(1 for an insertion at 0). Several files and several hunks per file are read.

The counts say where a hunk ends, so a removed line that reads `-- x` (written
`--- x`) is not taken for the next file's header. LLMs miscount often, so a hunk
that ends early at a structural line (`@@`, the next file's header, the
closing fence) or at a blank line followed by prose is taken as written. Two
mistakes are refused as `malformed_diff`, because guessing would place a partial
edit: a line without ` `, `-` or `+` directly inside a hunk whose counts say more
lines follow, and a `+`/`-`/` ` line right
after a hunk whose counts are used up. A reply that ends before a hunk's
counts are reached is `unclosed_block` (it may be cut off) unless the hunk's last
line is a context line, which no cut-off change ends with: then the hunk is taken
as written (a diff passed as a tool call's argument ends with the reply).
`\\ No newline at end of file` marks the side of the line before it (the old side
after a `-` line, the new side after a `+` line, both after a context line) as
ending without a newline: the hunk carries the new side's state. A blank line
inside a hunk is an empty context line; blank lines closing a hunk that ended early
are dropped.
"""

from __future__ import annotations

import re
from enum import Enum

from lsp_edit.blocks.model import (
    AnchoredEdit,
    CreateFile,
    DeleteFile,
    Hunk,
    ParseProblem,
    ReplySpan,
)
from lsp_edit.blocks.scanner import (
    FENCE_LINE,
    Emit,
    Plain,
    ReplyLine,
    Step,
    add_prefixed,
    shown,
    span,
    split_block,
    where,
)
from lsp_edit.patterns import LazyPattern
from lsp_edit.values import field, record

DEV_NULL = "/dev/null"

# A hunk header's start: `@@ -l,s +l,s @@` (a count left out is 1)
_COUNTS = (
    r"@@[ \t]*-(?P<old_start>\d+)(?:,(?P<old_count>\d+))?"
    r"[ \t]+\+(?P<new_start>\d+)(?:,(?P<new_count>\d+))?[ \t]*@@"
)
_HUNK_HEADER = LazyPattern(_COUNTS)
_GIT_PATHS = LazyPattern(r'"?a/(.*?)"? "?b/(.*?)"?')
_GIT_EXTENDED = LazyPattern(
    r"(index |new file mode|deleted file mode|old mode|new mode|similarity index"
    r"|dissimilarity index|rename from |rename to |copy from |copy to |Binary files "
    r"|GIT binary patch)"
)

# Inside a hunk, the lines that are more than a ` `, `-`, `+` or empty line: `@@`,
# `\`, `diff --git`, a `--- ` that may be the next header, fence lines (which may
# close a wrapper), anything unprefixed.
_NOT_HUNK_LINE = LazyPattern(rf"^[^ +\n-]|^--- |^{FENCE_LINE}", re.MULTILINE)
_ANY_HUNK_LINES = Plain(_NOT_HUNK_LINE)
# After `--- `: the `+++ ` line, an `@@` line with counts, and the hunk lines after it
_WHOLE = LazyPattern(
    rf"(?P<plus>\+\+\+ .*)\n{_COUNTS}.*\n"
    # (an empty line, a `+` line and a `-` line that is no `--- ` are taken at once)
    rf"(?P<body>(?:\n|\+.*\n|-(?!-- ).*\n|(?!--- |{FENCE_LINE})(?:[ +-].*)?\n)*+)"
)
_FENCE_LINE = LazyPattern(FENCE_LINE)
_NOT_AFTER_HUNK = ("@@", "\\", "diff --git ", "--- ")


class _State(Enum):
    GIT_HEADER = "git_header"  # after `diff --git`, reading its extended headers
    AWAIT_PLUS = "await_plus"  # after `--- `
    AWAIT_HUNK = "await_hunk"  # after `+++ `
    IN_HUNK = "in_hunk"
    AFTER_HUNK = "after_hunk"  # a hunk's counts are used up


@record
class _HunkLines:
    header: str
    header_line: int
    hint: int | None
    old_left: int | None  # None when the `@@` line gives no counts
    new_left: int | None
    old_count: int = 0
    new_count: int = 0
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    trailing_blank: int = 0
    last_prefix: str = " "  # of the last hunk line, which a `\ No newline` line follows
    last_written: str = ""  # the prefix of the last line that is not blank
    old_ends_file: bool = False  # a `\ No newline` line followed an old line
    new_ends_file: bool = False  # ... a new line (the new side ends without a newline)

    @staticmethod
    def start(line: ReplyLine) -> _HunkLines:
        match = _HUNK_HEADER.match(line.text)
        if match is None:
            return _HunkLines(line.text.strip(), line.number, None, None, None)
        old_start = int(match["old_start"])
        old_count = 1 if match["old_count"] is None else int(match["old_count"])
        new_count = 1 if match["new_count"] is None else int(match["new_count"])
        return _HunkLines(
            line.text.strip(),
            line.number,
            max(1, old_start),
            old_count,
            new_count,
            old_count,
            new_count,
        )

    @property
    def counted(self) -> bool:
        return self.old_left is not None

    @property
    def exhausted(self) -> bool:
        return (
            self.old_left is not None
            and self.new_left is not None
            and self.old_left <= 0
            and self.new_left <= 0
        )

    def expects_old_line(self) -> bool:
        return self.old_left is not None and self.old_left > 0

    def add(self, prefix: str, body: str, *, blank: bool = False) -> None:
        if prefix != "+":
            self.old.append(body)
            if self.old_left is not None:
                self.old_left -= 1
        if prefix != "-":
            self.new.append(body)
            if self.new_left is not None:
                self.new_left -= 1
        self.ops.append(prefix)
        self.trailing_blank = self.trailing_blank + 1 if blank else 0
        self.last_prefix = prefix
        if not blank:
            self.last_written = prefix

    def mark_no_newline(self) -> None:
        """A `\\ No newline at end of file` line: the side of the line before it ends there."""
        if self.last_prefix != "+":
            self.old_ends_file = True
        if self.last_prefix != "-":
            self.new_ends_file = True

    def finish(self, *, exact: bool) -> Hunk | None:
        if not exact and self.trailing_blank:
            del self.old[-self.trailing_blank :]
            del self.new[-self.trailing_blank :]
            del self.ops[-self.trailing_blank :]
            self.trailing_blank = 0
        if not self.old and not self.new:
            return None
        final_newline = None
        if self.old_ends_file or self.new_ends_file:
            final_newline = not self.new_ends_file
        return Hunk(
            tuple(self.old),
            tuple(self.new),
            self.hint,
            final_newline=final_newline,
            ops="".join(self.ops),
        )


@record
class _FileDiff:
    start: int
    end: int
    from_git: bool = False
    git_old: str | None = None
    git_new: str | None = None
    old_path: str | None = None
    new_path: str | None = None
    rename_from: str | None = None
    rename_to: str | None = None
    new_file: bool = False
    deleted_file: bool = False
    # hunks in a ```diff fence without `---`/`+++` lines: the file is the path line
    # before the fence, or the default target
    headerless: bool = False
    hunks: list[Hunk] = field(default_factory=list)

    def name(self) -> str | None:
        for path in (self.new_path, self.old_path, self.git_new, self.git_old):
            if path and path != DEV_NULL:
                return path
        return None


def _diff_path(rest: str, prefix: str) -> str:
    path = rest.split("\t", 1)[0].strip()
    if len(path) >= 2 and path[0] == '"' and path[-1] == '"':
        path = path[1:-1]
    if path != DEV_NULL and path.startswith(prefix):
        path = path[len(prefix) :]
    return path


class UnifiedDiff:
    """A run of unified-diff file sections; each file is reported when it ends."""

    def __init__(self, file: _FileDiff, state: _State, emit: Emit) -> None:
        self._file: _FileDiff | None = file
        self._state = state
        self._hunk: _HunkLines | None = None
        self._finished: _HunkLines | None = None  # the hunk a `\ No newline` line may follow
        self._pending: ReplyLine | None = None  # a `--- ` line that may be the next header
        self.emit = emit

    @staticmethod
    def from_git(line: ReplyLine, emit: Emit) -> UnifiedDiff:
        return UnifiedDiff(_git_file(line), _State.GIT_HEADER, emit)

    @staticmethod
    def from_minus(line: ReplyLine, emit: Emit) -> UnifiedDiff:
        file = _FileDiff(line.number, line.number, old_path=_diff_path(line.text[4:], "a/"))
        return UnifiedDiff(file, _State.AWAIT_PLUS, emit)

    @staticmethod
    def from_headers(minus: ReplyLine, plus: ReplyLine, emit: Emit) -> UnifiedDiff:
        file = _FileDiff(
            minus.number,
            plus.number,
            old_path=_diff_path(minus.text[4:], "a/"),
            new_path=_diff_path(plus.text[4:], "b/"),
        )
        return UnifiedDiff(file, _State.AWAIT_HUNK, emit)

    @staticmethod
    def from_hunk(line: ReplyLine, path: str | None, emit: Emit) -> UnifiedDiff:
        """A hunk that starts without file headers (in a ```diff fence)."""
        file = _FileDiff(line.number, line.number, new_path=path, headerless=True)
        diff = UnifiedDiff(file, _State.IN_HUNK, emit)
        diff._start_hunk(line)
        return diff

    def take(self, line: ReplyLine) -> Step:
        if line.closes_wrapper:
            self._finish(line.number - 1, reply_ended=False)
            return Step.REDO
        pending = self._pending
        if pending is not None:
            self._pending = None
            if line.text.startswith("+++ "):
                self._end_hunk(exact=False)
                self._report_file()
                self._file = _FileDiff(
                    pending.number,
                    line.number,
                    old_path=_diff_path(pending.text[4:], "a/"),
                    new_path=_diff_path(line.text[4:], "b/"),
                )
                self._state = _State.AWAIT_HUNK
                return Step.CONTINUE
            if not self._removed_line(pending):
                return Step.REDO
        return self._step(line)

    def plain(self) -> Plain | None:
        hunk = self._hunk
        if self._state is not _State.IN_HUNK or self._pending is not None or hunk is None:
            return None
        if hunk.old_left is None or hunk.new_left is None:
            return _ANY_HUNK_LINES
        # A hunk cannot use up its counts before this many lines (each line counts
        # against one side or both), so only the last of them needs checking.
        room = max(hunk.old_left, hunk.new_left)
        return Plain(_NOT_HUNK_LINE, room) if room > 0 else None

    def take_plain(self, lines: list[str], first: int) -> None:
        hunk = self._hunk
        file = self._file
        assert hunk is not None and file is not None, "inside a hunk of a file"
        old, new = hunk.old, hunk.new
        old_before, new_before = len(old), len(new)
        hunk.trailing_blank, last = add_prefixed(
            lines, first, old, new, hunk.trailing_blank, hunk.ops
        )
        if last is not None:
            file.end = last
            hunk.last_written = lines[last - first][0]
        if lines:
            hunk.last_prefix = lines[-1][:1] or " "
        if hunk.old_left is not None:
            hunk.old_left -= len(old) - old_before
        if hunk.new_left is not None:
            hunk.new_left -= len(new) - new_before
        if hunk.exhausted:
            self._end_hunk(exact=True)
            self._state = _State.AFTER_HUNK

    def end(self, last_line: int) -> None:
        self._finish(last_line, reply_ended=True)

    def _finish(self, last_line: int, *, reply_ended: bool) -> None:
        """The diff ends: at the end of the reply, or at the fence around it (where
        a hunk short of its counts is taken as written: the LLM miscounted)."""
        self._settle_pending()
        file = self._file
        hunk = self._hunk
        if file is None:
            return
        in_short_hunk = hunk is not None and hunk.counted and not hunk.exhausted
        if (
            reply_ended
            and self._state is _State.IN_HUNK
            and hunk is not None
            and in_short_hunk
            and hunk.last_written != " "
        ):
            # A hunk that ends on a context line is whole, counts aside (a diff given as
            # a tool call's argument ends with the reply); one that ends on a change may
            # have been cut off.
            self._fail(
                "unclosed_block",
                f"the reply ended at line {last_line} inside hunk `{hunk.header}` (reply line "
                f"{hunk.header_line}), which {self._short_by(hunk)}; the diff may be cut off",
            )
            return
        if self._state is _State.AWAIT_PLUS and file.from_git:
            self._fail(
                "malformed_diff", f"the `--- ` line at {file.end} is not followed by a `+++ ` line"
            )
            return
        if self._state is _State.AWAIT_PLUS:
            self._file = None
            return
        self._end_hunk(exact=False)
        self._report_file()

    def _step(self, line: ReplyLine) -> Step:
        state = self._state
        text = line.text
        if state is _State.IN_HUNK:
            return self._hunk_line(line)
        if state is _State.AFTER_HUNK:
            return self._after_hunk(line)
        file = self._file
        assert file is not None, "a diff with no file section is finished"
        if state is _State.GIT_HEADER:
            if text.startswith("--- "):
                file.old_path = _diff_path(text[4:], "a/")
                file.end = line.number
                self._state = _State.AWAIT_PLUS
                return Step.CONTINUE
            if text.startswith("diff --git "):
                self._report_file()
                self._file = _git_file(line)
                return Step.CONTINUE
            if _GIT_EXTENDED.match(text):
                _record_git_header(file, text)
                file.end = line.number
                return Step.CONTINUE
            self._report_file()
            return Step.REDO
        if state is _State.AWAIT_PLUS:
            if text.startswith("+++ "):
                file.new_path = _diff_path(text[4:], "b/")
                file.end = line.number
                self._state = _State.AWAIT_HUNK
                return Step.CONTINUE
            if file.from_git:
                self._fail(
                    "malformed_diff",
                    f"the `--- ` line at {file.end} is not followed by a `+++ ` line",
                )
            self._file = None
            return Step.REDO
        if text.startswith("@@"):
            self._start_hunk(line)
            return Step.CONTINUE
        self._report_file()
        return Step.REDO

    def _hunk_line(self, line: ReplyLine) -> Step:
        hunk = self._hunk
        file = self._file
        assert hunk is not None and file is not None, "inside a hunk of a file"
        text = line.text
        if text.startswith("@@"):
            self._end_hunk(exact=False)
            self._start_hunk(line)
            return Step.CONTINUE
        if text.startswith("\\"):
            hunk.mark_no_newline()
            file.end = line.number
            return Step.CONTINUE
        if text.startswith("diff --git "):
            self._end_hunk(exact=False)
            self._report_file()
            self._file = _git_file(line)
            self._state = _State.GIT_HEADER
            return Step.CONTINUE
        if text.startswith("--- ") and not hunk.expects_old_line():
            self._pending = line
            return Step.CONTINUE
        if text[:1] in (" ", "-", "+"):
            hunk.add(text[0], text[1:])
            file.end = line.number
        elif text == "":
            hunk.add(" ", "", blank=True)
        elif hunk.counted and not hunk.exhausted and not hunk.trailing_blank:
            self._fail(
                "malformed_diff",
                f"line {line.number} {shown(text)} inside hunk `{hunk.header}` (reply line "
                f"{hunk.header_line}) has no ' ', '-' or '+' prefix, but the hunk "
                f"{self._short_by(hunk)}; prefix context lines with a space, or end the "
                "diff with a blank line",
            )
            return Step.REDO
        else:
            self._end_hunk(exact=False)
            self._report_file()
            return Step.REDO
        if hunk.exhausted:
            self._end_hunk(exact=True)
            self._state = _State.AFTER_HUNK
        return Step.CONTINUE

    def _after_hunk(self, line: ReplyLine) -> Step:
        text = line.text
        if text.startswith("@@"):
            self._start_hunk(line)
            return Step.CONTINUE
        if text.startswith("\\"):
            self._mark_finished_hunk(line)
            return Step.CONTINUE
        if text.startswith("diff --git "):
            self._report_file()
            self._file = _git_file(line)
            self._state = _State.GIT_HEADER
            return Step.CONTINUE
        if text.startswith("--- "):
            self._pending = line
            return Step.CONTINUE
        if text[:1] in (" ", "-", "+") and text.strip():
            self._overflow(line)
            return Step.REDO
        self._report_file()
        return Step.REDO

    def _removed_line(self, pending: ReplyLine) -> bool:
        """A `--- x` line that was not a header: a removed line inside a hunk, or a
        line beyond a finished hunk. False when the file had to be dropped."""
        if self._state is _State.IN_HUNK and self._hunk is not None and self._file is not None:
            self._hunk.add("-", pending.text[1:])
            self._file.end = pending.number
            if self._hunk.exhausted:
                self._end_hunk(exact=True)
                self._state = _State.AFTER_HUNK
            return True
        self._overflow(pending)
        return False

    def _settle_pending(self) -> None:
        pending = self._pending
        if pending is not None:
            self._pending = None
            self._removed_line(pending)

    def _start_hunk(self, line: ReplyLine) -> None:
        self._finished = None
        self._hunk = _HunkLines.start(line)
        self._state = _State.IN_HUNK
        if self._file is not None:
            self._file.end = line.number

    def _end_hunk(self, *, exact: bool) -> None:
        hunk = self._hunk
        self._hunk = None
        self._finished = None
        if hunk is None or self._file is None:
            return
        finished = hunk.finish(exact=exact)
        if finished is not None:
            self._file.hunks.append(finished)
            if exact:
                self._finished = hunk

    def _mark_finished_hunk(self, line: ReplyLine) -> None:
        """`\\ No newline at end of file` right after a hunk whose counts were used up."""
        hunk, file = self._finished, self._file
        if hunk is None or file is None or not file.hunks:
            return
        hunk.mark_no_newline()
        finished = hunk.finish(exact=True)
        if finished is not None:
            file.hunks[-1] = finished
            file.end = line.number

    def _overflow(self, line: ReplyLine) -> None:
        hunks = self._file.hunks if self._file is not None else []
        counts = (
            f" ({len(hunks[-1].old_lines)} old, {len(hunks[-1].new_lines)} new lines)"
            if hunks
            else ""
        )
        self._fail(
            "malformed_diff",
            f"line {line.number} {shown(line.text)} continues a hunk whose counts{counts} were "
            "already used up; fix the `@@ -start,count +start,count @@` counts",
        )

    def _short_by(self, hunk: _HunkLines) -> str:
        return (
            f"declares {hunk.old_count} old and {hunk.new_count} new lines and has "
            f"{len(hunk.old)} and {len(hunk.new)} so far"
        )

    def _fail(self, code: str, reason: str) -> None:
        file = self._file
        self._file = None
        self._hunk = None
        if file is None:
            return
        name = file.name()
        subject = f"unified diff for `{name}`" if name else "unified diff"
        self.emit(
            ParseProblem(
                span(file.start, file.end),
                code,
                f"{subject} at {where(file.start, file.end)} was skipped: {reason}.",
                name,
            )
        )

    def _report_file(self) -> None:
        file = self._file
        self._file = None
        self._finished = None
        if file is None:
            return
        section = span(file.start, file.end)
        # a hunk with old lines edits the file, whatever its `--- /dev/null` header says
        edits = any(hunk.old_lines for hunk in file.hunks)
        creating = not edits and (
            file.old_path == DEV_NULL or (file.new_file and file.old_path is None)
        )
        deleting = file.new_path == DEV_NULL or (file.deleted_file and file.new_path is None)
        name = file.name()
        if file.headerless:
            if file.hunks:
                self.emit(AnchoredEdit(section, name, "unified_diff", tuple(file.hunks)))
            return
        if name is None:
            self._file = file
            self._fail("malformed_diff", "its `--- ` and `+++ ` lines name no file")
            return
        if creating:
            content = tuple(line for hunk in file.hunks for line in hunk.new_lines)
            ends = file.hunks[-1].final_newline if file.hunks else None
            self.emit(
                CreateFile(section, name, content, "unified_diff", final_newline=ends is not False)
            )
            return
        if deleting:
            self.emit(DeleteFile(section, name, "unified_diff"))
            return
        path = file.rename_from or name
        move_to = file.rename_to if file.rename_to and file.rename_to != path else None
        if not file.hunks and move_to is None:
            if file.old_path is not None:
                self._file = file
                self._fail(
                    "malformed_diff",
                    "no `@@ -start,count +start,count @@` hunk follows its `+++ ` line",
                )
            return
        self.emit(AnchoredEdit(section, path, "unified_diff", tuple(file.hunks), move_to))


def _git_file(line: ReplyLine) -> _FileDiff:
    file = _FileDiff(line.number, line.number, from_git=True)
    match = _GIT_PATHS.fullmatch(line.text[len("diff --git ") :].strip())
    if match is not None:
        file.git_old, file.git_new = match.group(1), match.group(2)
    return file


def _record_git_header(file: _FileDiff, text: str) -> None:
    if text.startswith("new file mode"):
        file.new_file = True
    elif text.startswith("deleted file mode"):
        file.deleted_file = True
    elif text.startswith("rename from "):
        file.rename_from = text[len("rename from ") :].strip()
    elif text.startswith("rename to "):
        file.rename_to = text[len("rename to ") :].strip()


def read_whole(text: str, pos: int, end: int, minus: str, start: int, emit: Emit) -> int:
    """Reads a whole diff that starts with the `--- ` line `minus`, reply line `start`,
    from `text[pos]` (the line after it): only one counted hunk whose lines use up
    its counts exactly, followed by a line that ends the diff (a blank line, prose),
    all in `text[:end]`. Reports it as `UnifiedDiff` would have and returns where the
    hunk ends; -1 otherwise (the diff is then read line by line)."""
    match = _WHOLE.match(text, pos, end)
    if match is None:
        return -1
    old_start, old_count, new_count = match.group("old_start", "old_count", "new_count")
    body = match["body"]
    lines = split_block(body)
    ops = "".join([line[:1] or " " for line in lines])
    kept = body.rstrip("\n")  # up to the last line that is not blank
    written = kept.count("\n") + 1 if kept else 0
    taken = _lines_counted(
        ops,
        written,
        1 if old_count is None else int(old_count),
        1 if new_count is None else int(new_count),
    )
    if taken < 0:
        return -1
    if taken < len(lines):
        stop = match.start("body") + len("\n".join(lines[:taken])) + 1
        after = lines[taken]
        del lines[taken:]
        ops = ops[:taken]
    else:
        stop = match.end()
        if stop >= end:
            return -1  # the line that ends the diff has not arrived yet
        after = text[stop : text.index("\n", stop)]
    if after and (
        after.startswith(_NOT_AFTER_HUNK)
        or (after[:1] in (" ", "-", "+") and after.strip())
        or _FENCE_LINE.match(after)
    ):
        return -1
    # Every line is empty (a blank context line) or starts with ` `, `-` or `+`.
    last = start + 2  # the last line that is not blank: the header, or the one found
    if taken >= written:
        last += written
    else:
        for index in range(taken - 1, -1, -1):
            if lines[index]:
                last += 1 + index
                break
    hunk = Hunk(
        tuple([line[1:] for line in lines if line[:1] != "+"]),
        tuple([line[1:] for line in lines if line[:1] != "-"]),
        max(1, int(old_start)),
        ops=ops,
    )
    old_path = _diff_path(minus[4:], "a/")
    new_path = _diff_path(match["plus"][4:], "b/")
    if new_path and DEV_NULL not in (old_path, new_path):
        # neither creates nor deletes a file: an edit of the file the `+++ ` line names
        emit(AnchoredEdit(ReplySpan(start, last), new_path, "unified_diff", (hunk,)))
        return stop
    file = _FileDiff(start, last, old_path=old_path, new_path=new_path, hunks=[hunk])
    UnifiedDiff(file, _State.AFTER_HUNK, emit)._report_file()
    return stop


def _lines_counted(ops: str, written: int, old_left: int, new_left: int) -> int:
    """How many hunk lines, of kinds `ops` (` `, `-`, `+`; blank lines after the first
    `written` ones), use up a hunk header's counts; -1 when all of them do not."""
    core = ops[:written]
    if core and len(core) - core.count("+") == old_left and len(core) - core.count("-") == new_left:
        return written  # exactly the written lines: every line uses up a count
    for taken, op in enumerate(ops, 1):
        old_left -= op != "+"
        new_left -= op != "-"
        if old_left <= 0 and new_left <= 0:
            return taken
    return -1
