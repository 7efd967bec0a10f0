"""From parsed blocks to changes: each block placed against its file, in reply
order, each on the result of the previous; the edit mode of a session; and the
summary handed back to the LLM.

Nothing here touches the disk or the editor: files come from a `FileSource`
(the workspace on disk for `lsp-edit apply`, open documents for the server), and
the result is a `Plan` the caller writes or shows.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

from lsp_edit.blocks.model import (
    AnchoredEdit,
    AstTarget,
    ChunkDiff,
    CreateFile,
    DeleteFile,
    DeleteLines,
    EditBlock,
    FencedEdit,
    IgnoredBlock,
    InsertLines,
    LineRangeTarget,
    ParseProblem,
    ReplyItem,
    ReplySpan,
    ShellSuggestion,
)
from lsp_edit.blocks.paths import PathLine, looks_like_path
from lsp_edit.resolve.anchored import resolve_anchored, sought_lines
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.text import Draft, LineEdit, Text
from lsp_edit.values import field, record, replace, value
from lsp_edit.workspace import FileRef

# The resolvers only some blocks need are imported by the first block that needs
# them, the symbol index (tree-sitter and the grammars) above all: `lsp-edit apply`
# starts once per reply, and most replies need none of them.
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from typing import ClassVar, Protocol

    from lsp_edit.symbols import SymbolIndex
    from lsp_edit.symbols.model import Symbol

EDIT_MODES = ("ast_path", "line_numbers", "complete_file")
FENCE = "```"
MODE_ERROR = "edit_mode must be one of: auto, ast_path, line_numbers, complete_file"
AFTER_FAILURE_NOTE = (
    "An earlier block for this file failed: check that this one does not build on it."
)


class Status(str):
    """What became of a change: one of the strings below, each a single object (`is`
    tells them apart, as `==` does), with an enum member's `value` and `repr`. Not an
    `enum.StrEnum`: making that class cost 1% of starting `lsp-edit apply`."""

    __slots__ = ()

    PENDING: ClassVar[Status]
    APPLIED: ClassVar[Status]
    REJECTED: ClassVar[Status]
    FAILED: ClassVar[Status]
    SKIPPED: ClassVar[Status]
    # Pending in an editor, but the user edited its lines and it can no longer be
    # placed safely; never applied.
    STALE: ClassVar[Status]

    @property
    def value(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"<Status.{self.upper()}: {str(self)!r}>"


for _status in ("pending", "applied", "rejected", "failed", "skipped", "stale"):
    setattr(Status, _status.upper(), Status(_status))


@record(slots=True)
class Change:
    """One block's outcome. `range` is the 1-based inclusive lines the change covers
    in the file as it was when the change was placed; `edits` are against that text.
    `lines`, for a change not placed, are the lines of that text its refusal is about
    (`Refused.lines`)."""

    id: str
    description: str
    status: Status
    file: str | None = None
    message: str | None = None
    detail: str | None = None
    code: str | None = None
    strategy: str | None = None
    range: tuple[int, int] | None = None
    notes: tuple[str, ...] = ()
    span: ReplySpan | None = None
    edits: tuple[LineEdit, ...] = ()
    lines: tuple[tuple[int, int], ...] = ()

    @property
    def succeeded(self) -> bool:
        """Applied, or nothing to do because it already was."""
        return self.status in (Status.APPLIED, Status.PENDING) or self.code == "already_applied"


@record
class FileOutcome:
    """A file a reply touched: its text before and after (None: absent)."""

    ref: FileRef
    before: Text | None
    after: Text | None
    moved_to: str | None = None

    @property
    def changed(self) -> bool:
        if self.before is None or self.after is None:
            return self.before is not self.after
        return self.before != self.after  # their lines with their endings, and BOM


@record
class Plan:
    changes: list[Change] = field(default_factory=list)
    files: dict[str, FileOutcome] = field(default_factory=dict)
    suggestions: list[ShellSuggestion] = field(default_factory=list)
    # Blocks seen and not read as edits, named when a reply holds no edit at all: the
    # first `LISTED` of them, and how many there were (a reply may hold a million)
    ignored: list[IgnoredBlock] = field(default_factory=list)
    ignored_count: int = 0
    # Blocks that could not be read, only counted (see `Planner`'s `list_failures`)
    unlisted_failures: int = 0

    def ignore(self, block: IgnoredBlock) -> None:
        """A block seen and not read as an edit."""
        if self.ignored_count < LISTED:
            self.ignored.append(block)
        self.ignored_count += 1

    def count_ignored(self, count: int) -> None:
        """Blocks not read as edits that the reader only counted, past the first
        `LISTED` (those it returned come before them in the reply)."""
        self.ignored_count += count


if TYPE_CHECKING:  # a type only

    class FileSource(Protocol):
        """Where files come from: `Workspace` on disk, or the editor's open documents."""

        def locate(self, written: str, *, allow_tail_match: bool = True) -> FileRef | Refused: ...

        def read(self, ref: FileRef) -> Text | Refused | None: ...

        def similar_files(self, written: str) -> list[str]:
            """The files a path that names none may have meant ("did you mean")."""
            ...


def check_mode(mode: str) -> str:
    """Validates a requested edit mode (`auto` or one of EDIT_MODES)."""
    if mode != "auto" and mode not in EDIT_MODES:
        raise ValueError(MODE_ERROR)
    return mode


@value
class ModeMismatch:
    message: str
    detail: str


class Session:
    """The edit mode across one editing session (one reply, or several streamed into
    the same server session).

    `auto` starts as AST path mode; if the first valid fenced edit is a line range,
    line-number mode holds for the rest of the session.
    """

    def __init__(self, mode: str = "auto") -> None:
        self.requested = check_mode(mode)
        self.active: str | None = None if self.requested == "auto" else self.requested

    def check(self, block: FencedEdit) -> ModeMismatch | None:
        """Whether this fenced edit is allowed now; the first one decides an auto session."""
        kind = _fenced_kind(block)
        if self.active == "complete_file":
            if kind == "complete_file":
                return None
            return ModeMismatch(
                f"{_KIND_NAMES[kind]} format specified but complete file mode is active. Use a "
                f"bare language tag (`{block.language}`) with the whole file content instead.",
                f"Active mode: Complete file\nRequired format: `{block.language}`",
            )
        if kind == "complete_file":
            return None
        if self.active is None:
            self.active = kind
            return None
        if kind == self.active:
            return None
        if self.active == "line_numbers":
            return ModeMismatch(
                "AST path format specified but line number mode is active. "
                "Use `type:startline:endline` format instead.",
                f"Active mode: Line numbers\nRequired format: `{block.language}:startline:endline`",
            )
        return ModeMismatch(
            "Line number format specified but AST path mode is active. "
            "Use `type:Namespace-Class-Method` format instead.",
            f"Active mode: AST paths\nRequired format: `{block.language}:Namespace-Class-Method`",
        )

    def accepts_bare_fence(self, block: FencedEdit) -> bool:
        """Whether a bare-tag fence is a complete-file edit rather than a snippet.

        In complete file mode it always is. Otherwise it is only when the reply names
        its file right before it: replies are full of example snippets, and taking one
        for a whole file would wipe the user's file.
        """
        if self.active == "complete_file":
            return True
        return self.requested == "auto" and block.path is not None


def _fenced_kind(block: FencedEdit) -> str:
    if isinstance(block.target, AstTarget):
        return "ast_path"
    if isinstance(block.target, LineRangeTarget):
        return "line_numbers"
    return "complete_file"


_KIND_NAMES = {
    "ast_path": "AST path",
    "line_numbers": "Line number",
    "complete_file": "Complete file",
}


_FORMAT_NAMES = {
    "search_replace": "SEARCH/REPLACE",
    "common_prefix": "edit block",
    "v4a": "patch",
    "unified_diff": "diff",
}


def describe(block: ReplyItem) -> str:
    """The change as the summary names it (the mode separation plan's wording)."""
    if isinstance(block, ParseProblem):
        return f"Block at reply lines {block.span.start_line}-{block.span.end_line}"
    if isinstance(block, FencedEdit):
        target = block.target
        if isinstance(target, AstTarget):
            suffix = "" if target.action == "replace" else f":{target.action}"
            return f"Change to `ast-path:{target.written}{suffix}`"
        if isinstance(target, LineRangeTarget):
            # the tag's end is exclusive: `python:17:19` changes lines 17 and 18
            if target.end == target.start:
                return f"Insertion before line {target.start}"
            if target.end == target.start + 1:
                return f"Change at line {target.start}"
            return f"Change at lines {target.start}-{target.end - 1}"
        return f"Change to `{block.path or 'the target file'}` (complete file)"
    if isinstance(block, AnchoredEdit):
        kind = _FORMAT_NAMES[block.format]
        where = block.path or "the target file"
        return f"Change to `{where}` ({kind}, reply line {block.span.start_line})"
    if isinstance(block, CreateFile):
        return f"New file `{block.path}`"
    if isinstance(block, DeleteFile):
        return f"Deletion of `{block.path}`"
    if isinstance(block, ChunkDiff):
        where = f"ast-path:{block.symbol}" if block.symbol else f"line {block.line}"
        return f"Change to `{where}` (chunk diff)"
    if isinstance(block, DeleteLines | InsertLines):
        where = f" in `{block.path}`" if block.path else ""
        if isinstance(block, DeleteLines):
            return f"Deletion of lines {block.start_line}-{block.end_line}{where}"
        return f"Insertion {block.position} line {block.line}{where}"
    if isinstance(block, IgnoredBlock):
        return f"The {block.block} at reply lines {block.span.start_line}-{block.span.end_line}"
    return f"Suggested command `{block.command}`"


class Planner:
    """Places blocks file by file, in reply order. One per reply (or stream)."""

    def __init__(
        self,
        files: FileSource,
        session: Session,
        *,
        default_target: str | None = None,
        ids: Iterator[str] | None = None,
        reply: str | None = None,
        list_failures: int | None = None,
        symbols: SymbolIndex | None = None,
        skip_after_failure: bool = True,
    ) -> None:
        """`reply` is the reply's text, when the caller has it: a whole-file block that
        leaves out definitions the reply's prose names may have removed them on
        purpose; without it, no definition counts as mentioned.

        A block for a file where an earlier block failed is skipped (the LLM's later
        blocks may build on the failed one); with `skip_after_failure` False, it is
        placed all the same, with a note that says so (an editor, where the user
        reviews each change).

        With `list_failures`, once that many changes failed (or were already in the
        file), a block that could not be read is only counted
        (`Plan.unlisted_failures`), not made a change: for a caller that lists no
        more of them (the summary), a reply of half a million such blocks.

        `symbols` is an index to keep using (a caller placing reply after reply in
        the same files): otherwise the first block that needs one makes it."""
        self.files = files
        self._list_failures = list_failures
        self._unapplied = 0  # changes recorded that failed or were already applied
        self.session = session
        self.default_target = default_target
        self._reply = reply
        self._mentioned: frozenset[str] | None = None  # read when a block first asks
        self.plan = Plan()
        self._ids = ids if ids is not None else (str(n) for n in itertools.count(1))
        self._failed: set[str] = set()
        self._skip_after_failure = skip_after_failure
        # Every file read for this reply, by path: read once, whatever its blocks do.
        # `plan.files` holds those a block changed.
        self._outcomes: dict[str, FileOutcome] = {}
        # Per file, the edit batches applied so far, to map line ranges that refer
        # to the document as it was before the reply.
        self._history: dict[str, list[tuple[LineEdit, ...]]] = {}
        # One index for the reply, made by the first block that needs symbols: each
        # block's text is reparsed incrementally from the previous one of the same file.
        self._symbols: SymbolIndex | None = symbols
        # Files whose blocks land in a draft, changed in place block after block;
        # their `FileOutcome.after` is brought up to date when the items are placed.
        self._drafts: dict[str, Draft] = {}
        # Drafts settled, kept for the file's next blocks while its text is theirs
        # (a streamed reply is placed a few blocks at a time).
        self._kept: dict[str, Draft] = {}
        # The lines the anchored edits being placed look for (`Draft.sought`)
        self._sought: set[str] = set()

    def add(self, items: Sequence[ReplyItem]) -> list[Change]:
        """Places the items, returns the changes they made (suggestions are collected)."""
        made: list[Change] = []
        self._sought = sought_lines([item for item in items if isinstance(item, AnchoredEdit)])
        for item in items:
            if isinstance(item, ParseProblem):  # first: a reply may hold half a million
                if self._list_failures is not None and self._unapplied >= self._list_failures:
                    self.plan.unlisted_failures += 1
                    continue
                self._record(self._problem(item), made)
                continue
            if isinstance(item, ShellSuggestion):
                self.plan.suggestions.append(item)
                continue
            if isinstance(item, IgnoredBlock):
                self.plan.ignore(item)
                continue
            placed = self._place(item)
            if placed is not None:
                self._record(placed, made)
        for relative in list(self._drafts):
            self._settle(relative)
        return made

    def files_read(self) -> list[FileRef]:
        """Every file this reply read, whatever its blocks did there: it places the
        next blocks on the text it read then."""
        return [outcome.ref for outcome in self._outcomes.values()]

    def failed_before(self, relative: str) -> None:
        """An earlier block for this file failed (a caller placing a reply's blocks
        again, without its failures)."""
        self._failed.add(relative)

    def _record(self, change: Change, made: list[Change]) -> None:
        self.plan.changes.append(change)
        made.append(change)
        if change.code or not change.succeeded:  # as the summary lists them
            self._unapplied += 1

    def _problem(self, problem: ParseProblem) -> Change:
        """A block that could not be read: a failed change that says why."""
        return Change(
            next(self._ids),
            describe(problem),
            Status.FAILED,
            file=problem.path,
            message=problem.message,
            code=problem.code,
            span=problem.span,
        )

    def _settle(self, relative: str) -> None:
        """The file's outcome made to hold what its draft holds (the draft is done)."""
        draft = self._drafts.pop(relative, None)
        if draft is not None:
            self._outcomes[relative].after = draft.text()
            self._kept[relative] = draft

    def _text_for(self, item: EditBlock, outcome: FileOutcome) -> Text | Draft | None:
        """The file's newest text for placing `item`: SEARCH/REPLACE blocks, diffs and
        patches one after another land in one draft of the file, changed in place,
        whatever the file's size; any other block reads the file as a `Text`."""
        relative = outcome.ref.relative
        if isinstance(item, AnchoredEdit) and not item.move_to and outcome.after is not None:
            draft = self._drafts.get(relative)
            if draft is None:
                kept = self._kept.pop(relative, None)
                if kept is None or not kept.holds(outcome.after):
                    kept = Draft(outcome.after)
                draft = self._drafts[relative] = kept
            draft.sought = self._sought
            return draft
        self._settle(relative)
        return outcome.after

    def _place(self, item: EditBlock) -> Change | None:
        """The change a block makes to its file, each block on the result of the ones
        before; None for a fenced example that names no file (ignored)."""
        if isinstance(item, FencedEdit) and item.path is not None and not self._names_file(item):
            item = replace(item, path=None)
        if isinstance(item, FencedEdit) and self._is_example(item):
            return None
        change = Change(id=next(self._ids), description=describe(item), status=Status.FAILED)
        change.span = item.span
        if isinstance(item, FencedEdit) and self._against_the_mode(item, change):
            return change
        found = self._file_for(item, change)
        if found is None:
            return change
        ref, written = found
        outcome = self._read_once(ref, change)
        if outcome is None:
            return change
        text = self._text_for(item, outcome)
        if text is None and item.path == written and _prose_path(item):
            # The line before a block is taken as its path; prose there must not
            # become a new file named "Here is the new module".
            return _fail(change, _prose_is_no_path(item))
        resolution, destination = self._resolve_with_move(item, text, ref)
        if isinstance(resolution, Refused):
            self._failed.add(ref.relative)
            return _fail(change, resolution)
        if isinstance(resolution, AlreadyApplied):
            change.status = Status.SKIPPED
            change.code = "already_applied"
            change.message = resolution.message
            return change
        self._apply(change, item, resolution, text, outcome)
        if destination is not None:
            self._move(change, outcome, destination)
        return change

    def _is_example(self, item: FencedEdit) -> bool:
        """A bare fence that names no file is an example snippet, not a whole file:
        ignored, and the plan says why."""
        if item.target is not None or self.session.accepts_bare_fence(item):
            return False
        self.plan.ignore(
            IgnoredBlock(
                item.span,
                f"{FENCE}{item.tag} block",
                "it names no file, so it was read as an example; to replace a whole "
                "file, put the file's path on the line before the fence",
            )
        )
        return True

    def _against_the_mode(self, item: FencedEdit, change: Change) -> bool:
        """Whether the session's edit mode refuses this fenced block (the change says
        so and what to write instead)."""
        mismatch = self.session.check(item)
        if mismatch is None:
            return False
        change.code, change.message, change.detail = (
            "mode_mismatch",
            mismatch.message,
            mismatch.detail,
        )
        change.file = item.path or self.default_target
        return True

    def _file_for(self, item: EditBlock, change: Change) -> tuple[FileRef, str] | None:
        """The file the block edits and the path it was found by; None when there is
        none, or an earlier block of the file failed (the change says why)."""
        written, note = self._target_path(item)
        if note:
            change.notes += (note,)
        if written is None:
            _fail(
                change,
                Refused(
                    "file_not_found",
                    "The block names no file and no default target was given; put the file's "
                    "path on the line before the block.",
                ),
            )
            return None
        ref = self.files.locate(written, allow_tail_match=not isinstance(item, CreateFile))
        if isinstance(ref, Refused):
            _fail(change, ref)
            return None
        change.file = ref.relative
        if ref.note:
            change.notes += (ref.note,)
        if ref.relative in self._failed:
            if self._skip_after_failure:
                change.status = Status.SKIPPED
                change.code = "previous_edit_failed"
                change.message = "Previous edit to this file failed"
                return None
            change.notes += (AFTER_FAILURE_NOTE,)
        return ref, written

    def _read_once(self, ref: FileRef, change: Change) -> FileOutcome | None:
        """The file as this reply has it so far, read the first time a block names it;
        None when it cannot be read (the change says why)."""
        outcome = self._outcomes.get(ref.relative)
        if outcome is None:
            current = self.files.read(ref)
            if isinstance(current, Refused):
                _fail(change, current)
                return None
            outcome = self._outcomes[ref.relative] = FileOutcome(ref, current, current)
        return outcome

    def _resolve_with_move(
        self, item: EditBlock, text: Text | Draft | None, ref: FileRef
    ) -> tuple[Resolution, FileRef | None]:
        """Where the block lands, and the file it moves its file to (a patch's
        `*** Move to`, a diff's rename)."""
        resolution = self._resolve(item, text, ref)
        if not (isinstance(item, AnchoredEdit) and item.move_to and text is not None):
            return resolution, None
        moved = self._move_destination(item.move_to, ref)
        if isinstance(moved, Refused):
            return moved, None
        if isinstance(resolution, AlreadyApplied):
            resolution = Placed((), "rename")
        return resolution, moved

    def _apply(
        self,
        change: Change,
        item: EditBlock,
        placed: Placed,
        text: Text | Draft | None,
        outcome: FileOutcome,
    ) -> None:
        """The block's edits written to the file as this reply has it."""
        self.plan.files[outcome.ref.relative] = outcome
        change.status = Status.APPLIED
        change.strategy = placed.strategy
        change.notes += placed.notes
        change.edits = placed.edits
        change.range = _covered_lines(placed.edits)
        if isinstance(item, DeleteFile):
            outcome.after = None
            return
        if isinstance(text, Draft):
            text.replace(placed.edits, final_newline=placed.final_newline)
        else:
            base = text if text is not None else Text(())
            outcome.after = base.replace(placed.edits, final_newline=placed.final_newline)
        self._history.setdefault(outcome.ref.relative, []).append(placed.edits)

    def _move(self, change: Change, outcome: FileOutcome, destination: FileRef) -> None:
        """The file, as the block left it, moved to `destination`."""
        arrived = FileOutcome(destination, None, outcome.after)
        self.plan.files[destination.relative] = self._outcomes[destination.relative] = arrived
        outcome.after = None
        outcome.moved_to = destination.relative
        change.notes += (f"Moved to `{destination.relative}`.",)

    def _names_file(self, item: FencedEdit) -> bool:
        """Whether the path a fenced block names is one: the prose before the fence
        only may name it (a word, a name in backticks) unless that file exists."""
        if not item.path_if_exists:
            return True
        ref = self.files.locate(item.path or "", allow_tail_match=False)
        return isinstance(ref, FileRef) and self.files.read(ref) is not None

    def _move_destination(self, written: str, source: FileRef) -> FileRef | Refused:
        destination = self.files.locate(written, allow_tail_match=False)
        if isinstance(destination, Refused):
            return destination
        self._settle(destination.relative)
        planned = self._outcomes.get(destination.relative)
        exists = (
            planned.after is not None
            if planned is not None
            else self.files.read(destination) is not None
        )
        if exists or destination.relative == source.relative:
            return Refused(
                "file_exists",
                f"Cannot move `{source.relative}` to `{destination.relative}`: that file "
                "already exists.",
            )
        return destination

    def _resolve(self, item: EditBlock, text: Text | Draft | None, ref: FileRef) -> Resolution:
        if isinstance(text, Draft):
            # only blocks that `_text_for` gives a draft: SEARCH/REPLACE, diffs, patches
            assert isinstance(item, AnchoredEdit)
            return resolve_anchored(item, text)
        if isinstance(item, CreateFile):
            if text is not None and text.line_count > 0:
                if text.lines == list(item.content):
                    return AlreadyApplied(f"`{ref.relative}` already exists with this content.")
                return Refused(
                    "file_exists",
                    f"`{ref.relative}` already exists; edit it with an update instead of "
                    "creating it.",
                )
            from lsp_edit.resolve.complete_file import resolve_complete_file

            created = resolve_complete_file(item.content, None)
            if isinstance(created, Placed) and not item.final_newline:
                return replace(created, final_newline=False)
            return created
        if isinstance(item, DeleteFile):
            if text is None:
                return AlreadyApplied(f"`{ref.relative}` does not exist.")
            return Placed((), "delete_file")
        if isinstance(item, FencedEdit) and item.target is None:
            from lsp_edit.resolve.whole_file import resolve_whole_file

            return resolve_whole_file(
                item.content,
                text,
                _language(item, ref),
                name=ref.relative,
                symbols_of=self._symbols_of(ref),
                mentioned=self._mentions,
            )
        if isinstance(item, AnchoredEdit):
            if text is None and any(hunk.old_lines for hunk in item.hunks):
                return self._missing(ref)
            return resolve_anchored(item, text if text is not None else Text(()))
        if text is None:
            return self._missing(ref)
        if isinstance(item, FencedEdit) and isinstance(item.target, LineRangeTarget):
            from lsp_edit.resolve.line_range import resolve_line_range, shift_line_target

            target = shift_line_target(item.target, self._history.get(ref.relative, []))
            if isinstance(target, Refused):
                return target
            return resolve_line_range(target, item.content, text)
        if isinstance(item, DeleteLines | InsertLines):
            from lsp_edit.resolve.line_ops import resolve_line_operation

            return resolve_line_operation(item, text)
        if isinstance(item, FencedEdit):
            mismatch = _language_mismatch(item, ref)
            if mismatch is not None:
                return mismatch
        language = _language(item, ref)
        if language is None:
            return Refused(
                "unsupported_language",
                f"Cannot find symbols in `{ref.relative}`: its language is not supported.",
            )

        symbols_of = self._symbols_of(ref)
        if isinstance(item, ChunkDiff):
            from lsp_edit.resolve.chunk_diff import resolve_chunk_diff

            return resolve_chunk_diff(item, text, language, symbols_of=symbols_of)
        from lsp_edit.resolve.ast_path import resolve_ast_path

        return resolve_ast_path(item, text, language, symbols_of=symbols_of)

    def _mentions(self, name: str) -> bool:
        """Whether the reply's prose names `name` (its words are read once, the first
        time a block asks: most replies never do)."""
        if self._mentioned is None:
            from lsp_edit.resolve.whole_file import names_in_prose

            self._mentioned = names_in_prose(self._reply) if self._reply else frozenset()
        return name in self._mentioned

    def _symbols_of(self, ref: FileRef) -> Callable[[Text, str], list[Symbol]]:
        """A file's symbols through the reply's index: each new text of the file is
        reparsed incrementally from the one before."""

        def symbols_of(text: Text, language: str) -> list[Symbol]:
            return self._symbol_index().symbols(ref.relative, None, text, language)

        return symbols_of

    def _symbol_index(self) -> SymbolIndex:
        if self._symbols is None:
            from lsp_edit.symbols import SymbolIndex

            self._symbols = SymbolIndex()
        return self._symbols

    def _target_path(self, item: EditBlock) -> tuple[str | None, str | None]:
        """The path a block targets, and a note when it is not the one it wrote: a
        prose line before a block that names no file gives way to the default target."""
        if item.path is None:
            return self.default_target, None
        if self.default_target is not None and _prose_path(item):
            ref = self.files.locate(item.path)
            if isinstance(ref, FileRef) and self.files.read(ref) is None:
                return self.default_target, (
                    f"`{item.path}` names no file; the block went to the default target "
                    f"`{self.default_target}`."
                )
        return item.path, None

    def lines_as_read(self, change: Change) -> tuple[tuple[int, int], ...]:
        """A change's `lines` in its file as this planner first read it, before the
        reply's earlier blocks changed it (a line they wrote is the place they wrote it)."""
        batches = self._history.get(change.file or "", [])
        spans = ((_line_before(a, batches), _line_before(b, batches)) for a, b in change.lines)
        return tuple((first, max(first, last)) for first, last in spans)

    def _missing(self, ref: FileRef) -> Refused:
        return Refused("file_not_found", f"File not found: {ref.relative}.{self._meant(ref)}")

    def _meant(self, ref: FileRef) -> str:
        """ "Did you mean" the files a missing one's path may have meant (one edit away,
        in another folder)."""
        meant = [f"`{path}`" for path in self.files.similar_files(ref.relative)[:5]]
        if not meant:
            return ""
        if len(meant) == 1:
            return f" Did you mean {meant[0]}?"
        return f" Did you mean one of {', '.join(meant[:-1])} or {meant[-1]}?"


def _prose_path(item: EditBlock) -> bool:
    """Whether the block's path is the line before it (SEARCH/REPLACE, `««« EDIT`)
    and reads like prose rather than a path (`Next`, `Change this`)."""
    return (
        isinstance(item, AnchoredEdit)
        and item.format in ("search_replace", "common_prefix")
        and item.path is not None
        and not looks_like_path(PathLine(item.path, quoted=False))
    )


def _prose_is_no_path(item: EditBlock) -> Refused:
    return Refused(
        "file_not_found",
        f"File not found: `{item.path}`. It does not look like a path (a `/`, a "
        "`.ext` and no spaces), so it is taken for prose rather than the name of a new "
        "file; put the file's path alone on the line before the block.",
    )


def _language(item: FencedEdit | ChunkDiff, ref: FileRef) -> str | None:
    """The language the block's file is read in: the file's own, never one it is not."""
    from lsp_edit.symbols.languages import language_of_file

    return language_of_file(ref.relative, item.language if isinstance(item, FencedEdit) else None)


def _language_mismatch(item: FencedEdit, ref: FileRef) -> Refused | None:
    """An AST path block tagged with a language its file is not written in."""
    from lsp_edit.symbols.languages import language_for, language_of_file, tag_contradicts

    if not tag_contradicts(ref.relative, item.language):
        return None
    tagged = language_for(item.language)
    own = language_of_file(ref.relative)
    what = f"a {own} file" if own else f"not a {tagged} file"
    return Refused(
        "language_mismatch",
        f"The block is tagged `{item.language}`, but `{ref.relative}` is {what}, so the AST "
        f"path cannot name a {tagged} definition there. Put the path of the {tagged} file "
        "it edits on the line before the block.",
    )


def _line_before(line: int, batches: Sequence[Sequence[LineEdit]]) -> int:
    """A 1-based line of a file after the edit batches, in the file before them."""
    at = line - 1
    for batch in reversed(batches):
        at = _before_batch(at, batch)
    return at + 1


def _before_batch(at: int, batch: Sequence[LineEdit]) -> int:
    """A 0-based line after one batch of edits (sorted, each against the text before
    the batch) in the text before it; a line an edit wrote is where that edit was."""
    shift = 0
    for edit in batch:
        start = edit.start + shift
        if at < start:
            break
        if at < start + len(edit.new_lines):
            return edit.start
        shift += edit.delta
    return at - shift


def _fail(change: Change, refusal: Refused) -> Change:
    change.status = Status.FAILED
    change.code = refusal.code
    change.message = refusal.message
    change.lines = refusal.lines
    return change


def _covered_lines(edits: Sequence[LineEdit]) -> tuple[int, int] | None:
    if not edits:
        return None
    start = edits[0].start
    end = max(edit.end for edit in edits)
    return (start + 1, max(end, start + 1))


def file_fate(outcome: FileOutcome) -> str:
    """What the reply does to a file: `created`, `updated`, `deleted`, `moved` or
    `unchanged`."""
    if not outcome.changed:
        return "unchanged"
    if outcome.moved_to is not None:
        return "moved"
    if outcome.after is None:
        return "deleted"
    return "created" if outcome.before is None else "updated"


def summary(plan: Plan, *, dry_run: bool = False, not_written: str | None = None) -> str:
    """The reply for the LLM, in the mode separation plan's words.

    With `dry_run`, or `not_written` (why writing the files failed), it says what
    the reply would do, since no file holds it."""
    hypothetical = dry_run or not_written is not None
    lines = [_file_line(name, outcome, hypothetical) for name, outcome in plan.files.items()]
    lines = [line for line in lines if line]
    changes = plan.changes
    if not changes and not plan.unlisted_failures:
        lines.append("No edit blocks were found in the reply.")
        ignored = (
            f"  • {describe(block)} was not read as an edit: {block.reason}."
            for block in plan.ignored
        )
        lines += _listed(ignored, plan.ignored_count, where="")  # `--json` lists changes
    else:
        if lines:
            lines.append("")
        lines.append(_verdict(changes, hypothetical, plan.unlisted_failures))
        unapplied = [change for change in changes if change.code or not change.succeeded]
        noted = [(change, note) for change in changes for note in change.notes]
        bullets = itertools.chain(
            map(_bullet, unapplied),
            (f"  • {change.description}: {note}" for change, note in noted),
        )
        if unapplied or noted:  # (a failure only counted comes after a hundred listed)
            lines.append("")
            lines += _listed(bullets, len(unapplied) + len(noted) + plan.unlisted_failures)
    if dry_run:
        lines += ["", "(dry run: no file was written)"]
    if not_written is not None:
        lines += ["", not_written]
    return "\n".join(lines)


LISTED = 100
"""The summary lists at most this many failed changes and notes (or blocks not read
as edits); a reply with more says how many it left out (`--json` lists them all)."""


_IN_JSON = " (`lsp-edit apply --json` lists every change)"


def _listed(bullets: Iterator[str], count: int, where: str = _IN_JSON) -> list[str]:
    """The first `LISTED` of `count` bullets, and a line saying how many more there are
    (and `where` they are all listed)."""
    shown = list(itertools.islice(bullets, LISTED))
    if count > LISTED:
        shown.append(f"  • … and {count - LISTED:,} more, not listed here{where}.")
    return shown


def _file_line(name: str, outcome: FileOutcome, hypothetical: bool) -> str:
    fate = file_fate(outcome)
    if fate == "unchanged":
        return ""
    has = "would be" if hypothetical else "has been"
    if fate == "moved":
        return f"File '{name}' {has} moved to '{outcome.moved_to}'."
    if fate == "deleted":
        return f"File '{name}' {has} deleted."
    assert outcome.after is not None
    count = outcome.after.line_count
    size = f"{count} line{'' if count == 1 else 's'}"
    now = f"It would have {size}." if hypothetical else f"It now has {size}."
    return f"File '{name}' {has} {fate}. {now}"


_PLACED = (Status.APPLIED, Status.PENDING)


def _verdict(changes: Sequence[Change], hypothetical: bool, unlisted_failures: int) -> str:
    placed = already = 0
    for change in changes:  # one pass: a reply may hold half a million changes
        if change.status in _PLACED:
            placed += 1
        if change.code == "already_applied":
            already += 1
    failed = len(changes) - placed - already + unlisted_failures
    were = "would be" if hypothetical else "were"
    if failed and placed:
        return f"Some changes {were} applied."
    if failed:
        return f"No changes {were} applied."
    if not placed:
        return "Nothing to do: every change was already in the file."
    if already:
        return f"All changes {were} applied or already in the file."
    return f"All changes {were} applied."


def _bullet(change: Change) -> str:
    if change.code == "already_applied":
        return f"  • {change.description} was already in the file: {change.message}"
    return f"  • {change.description} was not applied: {change.message}"
