"""A bare fence (```` ```python ````) under a file's name: the whole new file, or
the definitions it holds.

LLMs write such a block for a whole file, and just as often for one function out
of it. Taken for the whole file, a snippet wipes everything it leaves out, so the
content decides, never the file's size:

- a block that is the file's first lines, unchanged, stopping before its end is a
  cut-off reply: refused (`truncated_file`), in every mode;
- a block that leaves out whole definitions of the file that the reply never
  mentions is not the whole file. Where its own definitions exist in the file,
  each replaces its symbol, as an AST path block would (strategy `definitions`,
  with a note); a new definition goes next to its neighbour in the block. Else it
  is refused (`not_whole_file`) with the reason;
- anything else is the whole file (`complete_file.py`, which fills placeholders).

A definition the block writes without some of its members is looked into the
same way: its members are placed one by one, and the ones it leaves out stay.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lsp_edit.blocks.model import AstAction, AstTarget, FencedEdit, ReplySpan
from lsp_edit.resolve.ast_path import resolve_ast_path
from lsp_edit.resolve.complete_file import resolve_complete_file
from lsp_edit.resolve.diffing import minimal_edits
from lsp_edit.resolve.elision import is_dots_only, is_placeholder
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.symbols.index import parse, source_bytes, symbols_from_tree
from lsp_edit.symbols.languages import FRAGMENT, LanguageSpec, spec_for
from lsp_edit.symbols.model import Symbol
from lsp_edit.text import Text
from lsp_edit.values import value

STRATEGY = "definitions"
Mentioned = Callable[[str], bool]
SymbolsOf = Callable[[Text, str], list[Symbol]]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FENCE = re.compile(r"\s*(`{3,}|~{3,})(.*)")
_LISTED = 4


def names_in_prose(reply: str) -> frozenset[str]:
    """The words of a reply outside its fenced blocks: what the reply mentions."""
    words: set[str] = set()
    opener = ""  # the open fence's run of backticks or tildes
    for line in reply.splitlines():
        fence = _FENCE.match(line)
        if fence is None:
            if not opener:
                words.update(_WORD.findall(line))
        elif not opener:
            opener = fence.group(1)
        elif _closes(fence, opener):
            opener = ""
    return frozenset(words)


def _closes(fence: re.Match[str], opener: str) -> bool:
    """A fence line closes the open fence: the same character, at least as long,
    nothing after it (a shorter fence inside a longer one is its text)."""
    run = fence.group(1)
    return run[0] == opener[0] and len(run) >= len(opener) and not fence.group(2).strip()


def resolve_whole_file(
    content: Sequence[str],
    text: Text | None,
    language: str | None,
    *,
    name: str,
    symbols_of: SymbolsOf,
    mentioned: Mentioned,
) -> Resolution:
    """Places a bare fence's content in `text` (None: a new file), named `name` in
    messages; `mentioned` says whether the reply's prose names a definition."""
    if text is None or not text.lines:
        return resolve_complete_file(content, text)
    cut = _cut_off(content, text.lines)
    if cut is not None:
        return Refused(
            "truncated_file",
            f"The block holds only the first {cut} of the {text.line_count} lines of "
            f"`{name}`, unchanged, and stops there: the reply looks cut off, so it is not "
            "taken as the whole file and nothing was changed. Write the complete file, or "
            "address the part that changes.",
        )
    whole = resolve_complete_file(content, text)
    spec = spec_for(language) if language else None
    if spec is None or isinstance(whole, AlreadyApplied):
        return whole
    symbols = symbols_of(text, spec.name)
    if not symbols:
        return whole
    if isinstance(whole, Placed):
        result = text.replace(whole.edits)
        left_out = _left_out(symbols, _symbols(result.lines, spec), mentioned)
        if not left_out:
            return whole
        reason = f"it leaves out {_listing(left_out)}, which the reply does not mention"
        detail = reason
    else:
        reason = "its placeholders cannot be filled line by line"
        detail = whole.message[:1].lower() + whole.message[1:].rstrip(".")
    placed = _Definitions(content, text, spec, symbols, mentioned).place()
    if isinstance(placed, Refused):
        return Refused(
            "not_whole_file",
            f"This block is not the whole of `{name}`: {detail}. Nor can it be placed by "
            f"its definitions: {placed.message} Write the whole file, or address the part "
            "that changes (an AST path block, or SEARCH/REPLACE).",
        )
    if isinstance(placed, AlreadyApplied):
        return placed
    note = f"Taken as definitions, not as the whole file ({reason}): {placed.notes[0]}"
    return Placed(placed.edits, STRATEGY, (note,))


def _cut_off(content: Sequence[str], lines: Sequence[str]) -> int | None:
    """The number of lines of a block that is the file's start, unchanged, ending
    before the file does; None otherwise. (A closed fence holds whole lines: a
    reply cut mid-line never closes its fence.)"""
    body = list(content)
    while body and not body[-1].strip():
        body.pop()
    count = len(body)
    if not count or count > len(lines):
        return None
    if any(body[i].rstrip() != lines[i].rstrip() for i in range(count)):
        return None
    if not any(line.strip() for line in lines[count:]):
        return None  # all there: the whole file, unchanged
    return count


def _symbols(lines: Sequence[str], spec: LanguageSpec) -> list[Symbol]:
    return symbols_from_tree(parse(spec.name, source_bytes(Text.from_lines(lines))), lines, spec)


def _left_out(
    symbols: Sequence[Symbol], kept: Sequence[Symbol], mentioned: Mentioned
) -> list[Symbol]:
    """The outermost definitions of `symbols` that `kept` lacks and the reply does
    not mention."""
    paths = {symbol.path for symbol in kept}
    missing = [s for s in symbols if s.path not in paths and not mentioned(s.path[-1])]
    gone = {s.path for s in missing}
    return [s for s in missing if not any(s.path[:n] in gone for n in range(1, len(s.path)))]


def _listing(symbols: Sequence[Symbol]) -> str:
    named = [f"`{s.dotted}` ({s.kind})" for s in symbols[:_LISTED]]
    more = len(symbols) - len(named)
    if more:
        named.append(f"{more} more")
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


@value
class _Step:
    """One AST path block to place: `lines` at `path` (replace, before or after);
    `name` is the definition's path in the file once placed."""

    path: tuple[str, ...]
    action: AstAction
    lines: tuple[str, ...]
    name: str


class _Definitions:
    """Places a block's definitions by symbol, each as an AST path block would."""

    def __init__(
        self,
        content: Sequence[str],
        text: Text,
        spec: LanguageSpec,
        symbols: Sequence[Symbol],
        mentioned: Mentioned,
    ) -> None:
        self.content = list(content)
        self.text = text
        self.spec = spec
        self.symbols = symbols
        self.mentioned = mentioned
        self.file_keys = {line.strip() for line in text.lines}
        self.placeholders = {
            i
            for i, line in enumerate(content)
            if is_placeholder(line) and line.strip() not in self.file_keys
        }

    def place(self) -> Resolution:
        block = self._parse()
        if block is None:
            return Refused(
                "not_whole_file",
                f"it does not read as {self.spec.name} definitions (it may be cut off, or "
                "a part of a definition).",
            )
        stray = self._stray_line(block)
        if stray is not None:
            return Refused(
                "not_whole_file",
                f"its line `{stray}` is outside its definitions and not in the file, so it "
                "has no place.",
            )
        steps = self._level(block, (), _top(block))
        if isinstance(steps, Refused):
            return steps
        current = self.text
        for step in steps:
            placed = self._apply(step, current)
            if isinstance(placed, Refused):
                return Refused(placed.code, f"`{'-'.join(step.path)}`: {placed.message}")
            current = placed
        edits = minimal_edits(self.text.lines, current.lines)
        if not edits:
            return AlreadyApplied("The file already holds the definitions this block writes.")
        replaced = [f"`{step.name}`" for step in steps if step.action == "replace"]
        added = [
            f"`{step.name}` {step.action} `{'-'.join(step.path)}`"
            for step in steps
            if step.action != "replace"
        ]
        done = [f"replaced {', '.join(replaced)}"] if replaced else []
        done += [f"added {', '.join(added)}"] if added else []
        return Placed(edits, STRATEGY, ("; ".join(done),))

    def _stray_line(self, block: Sequence[Symbol]) -> str | None:
        """The first line outside the block's definitions that the file does not have."""
        for i, line in enumerate(self.content):
            if i in self.placeholders or not line.strip():
                continue
            if any(s.start_line <= i < s.end_line for s in block):
                continue
            if line.strip() not in self.file_keys:
                return line.strip()
        return None

    def _parse(self) -> list[Symbol] | None:
        """The block's definitions, line numbers in `content`; None when it does not
        parse. Placeholders are read as blank lines, but dots alone first as they are:
        `...` may be a stub's body, which a definition written as new keeps."""
        as_written = [
            "" if i in self.placeholders and not is_dots_only(line) else line
            for i, line in enumerate(self.content)
        ]
        blanked = ["" if i in self.placeholders else line for i, line in enumerate(self.content)]
        for lines in (as_written, blanked) if as_written != blanked else (blanked,):
            found = self._parse_lines(lines)
            if found:
                return found
        return None

    def _parse_lines(self, lines: list[str]) -> list[Symbol] | None:
        """The definitions of `lines`, read alone or, for members written without
        their class, inside the language's wrapper."""
        found = self._parsed(lines)
        if found:
            return found
        wrapper = self.spec.member_wrapper
        if wrapper is None:
            return None
        members = self._parsed([wrapper[0], *lines, wrapper[1]])
        if not members:
            return None
        unwrapped = [
            Symbol(
                s.path[1:],
                s.kind,
                s.start_line - 1,
                s.body_start_line - 1,
                s.end_line - 1,
                s.indent,
            )
            for s in members
            if s.path[0] == FRAGMENT and len(s.path) > 1
        ]
        return unwrapped or None

    def _parsed(self, lines: Sequence[str]) -> list[Symbol] | None:
        text = Text.from_lines(lines)
        tree = parse(self.spec.name, source_bytes(text))
        if tree.root_node.has_error:
            return None
        return symbols_from_tree(tree, text.lines, self.spec) or None

    def _level(
        self, block: Sequence[Symbol], scope: tuple[str, ...], members: Sequence[Symbol]
    ) -> list[_Step] | Refused:
        """The steps for `members` (block definitions at one level), placed among the
        file's definitions under `scope`."""
        steps: list[_Step] = []
        placed: list[tuple[str, ...] | None] = []  # per member, its path in the file
        for member in members:
            found = self._find(member, scope)
            if isinstance(found, Refused):
                return found
            if found is None:
                placed.append(None)
                continue
            placed.append(found.path)
            inner = self._inside(block, member, found)
            if isinstance(inner, Refused):
                return inner
            steps.extend(inner)
        for index, member in enumerate(members):
            if placed[index] is not None:
                continue
            where = self._new_place(members, placed, index, scope)
            if isinstance(where, Refused):
                return where
            path, action = where
            name = (*path[:-1], member.path[-1])
            steps.append(_Step(path, action, self._lines_of(member), "-".join(name)))
            placed[index] = name
        return steps

    def _inside(
        self, block: Sequence[Symbol], member: Symbol, found: Symbol
    ) -> list[_Step] | Refused:
        """Replace `found` with `member`, unless `member` leaves out some of its
        members: then place its own members inside it."""
        own = _children(block, member)
        theirs = _children(self.symbols, found)
        names = {child.path[-1] for child in own}
        dropped = [c for c in theirs if c.path[-1] not in names and not self.mentioned(c.path[-1])]
        step = _Step(found.path, "replace", self._lines_of(member), found.dotted)
        if not dropped:
            return [step]
        if self._holds_placeholder(member, own):
            # its placeholders stand for what it leaves out, when they can be filled
            trial = self._apply(step, self.text)
            if not isinstance(trial, Refused) or trial.code != "elision_ambiguous" or not own:
                return [step]
        frame = self._frame_differs(member, own, found, theirs)
        if frame is not None:
            return Refused(
                "not_whole_file",
                f"`{found.dotted}` leaves out {_listing(dropped)}, and its line `{frame}` "
                "differs from the file's, so its members cannot be placed one by one.",
            )
        return self._level(block, found.path, own)

    def _holds_placeholder(self, member: Symbol, own: Sequence[Symbol]) -> bool:
        """Whether `member` has a placeholder of its own (outside its members)."""
        return any(
            member.start_line <= i < member.end_line
            and not any(c.start_line <= i < c.end_line for c in own)
            for i in self.placeholders
        )

    def _frame_differs(
        self, member: Symbol, own: Sequence[Symbol], found: Symbol, theirs: Sequence[Symbol]
    ) -> str | None:
        """The first line of `member` outside its members (its header, its closing
        line) that the file's `found` does not have; None when all are there."""
        frame = {
            line.strip()
            for i, line in enumerate(
                self.text.lines[found.start_line : found.end_line], found.start_line
            )
            if not any(c.start_line <= i < c.end_line for c in theirs)
        }
        for i in range(member.start_line, member.end_line):
            if i in self.placeholders or any(c.start_line <= i < c.end_line for c in own):
                continue
            line = self.content[i].strip()
            if line and line not in frame:
                return line
        return None

    def _find(self, member: Symbol, scope: tuple[str, ...]) -> Symbol | Refused | None:
        """The file's definition a block definition stands for: the same path under
        `scope`; at the top, also a definition nested deeper with that name (a method
        written alone). None: a new definition."""
        if scope:
            wanted = (*scope, member.path[-1])
            candidates = [s for s in self.symbols if s.path == wanted]
        else:
            wanted = member.path
            candidates = [s for s in self.symbols if s.path == wanted] or [
                s for s in self.symbols if s.path[-len(wanted) :] == wanted
            ]
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        signature = self.content[member.body_start_line].strip()
        chosen = [c for c in candidates if self.text.lines[c.body_start_line].strip() == signature]
        if len(chosen) == 1:
            return chosen[0]
        listing = ", ".join(f"`{c.dotted}`" for c in candidates)
        return Refused(
            "not_whole_file",
            f"its definition `{member.dotted}` may be any of {listing}.",
        )

    def _new_place(
        self,
        members: Sequence[Symbol],
        placed: Sequence[tuple[str, ...] | None],
        index: int,
        scope: tuple[str, ...],
    ) -> tuple[tuple[str, ...], AstAction] | Refused:
        """Where a new definition goes: right after the block definition above it, or
        right before the one below it, when no placeholder stands between; after the
        last (before the first) of the file's definitions there when a placeholder
        stands above (below) it and nothing else is on that side."""
        member = members[index]
        above = self._gap_has_placeholder(
            members[index - 1].end_line if index else None, member.start_line
        )
        below = self._gap_has_placeholder(
            member.end_line, members[index + 1].start_line if index + 1 < len(members) else None
        )
        if index and placed[index - 1] is not None and not above:
            return placed[index - 1] or (), "after"
        if index + 1 < len(members) and placed[index + 1] is not None and not below:
            return placed[index + 1] or (), "before"
        siblings = [s for s in self.symbols if s.path[:-1] == scope]
        if siblings and above and index + 1 == len(members) and not below:
            return siblings[-1].path, "after"
        if siblings and below and index == 0 and not above:
            return siblings[0].path, "before"
        return Refused(
            "not_whole_file",
            f"it adds `{member.dotted}`, and where it goes among the file's definitions is "
            "not certain (placeholders on both sides, or no neighbour the file has).",
        )

    def _gap_has_placeholder(self, start: int | None, end: int | None) -> bool:
        lo = start if start is not None else 0
        hi = end if end is not None else len(self.content)
        return any(lo <= i < hi for i in self.placeholders)

    def _lines_of(self, member: Symbol) -> tuple[str, ...]:
        return tuple(self.content[member.start_line : member.end_line])

    def _apply(self, step: _Step, text: Text) -> Text | Refused:
        block = FencedEdit(
            ReplySpan(1, 1),
            None,
            self.spec.name,
            f"{self.spec.name}:{'-'.join(step.path)}",
            AstTarget("-".join(step.path), step.path, step.action),
            step.lines,
        )
        placed = resolve_ast_path(block, text, self.spec.name)
        if isinstance(placed, AlreadyApplied):
            return text
        if isinstance(placed, Refused):
            return placed
        return text.replace(placed.edits)


def _top(symbols: Sequence[Symbol]) -> list[Symbol]:
    """The definitions no other one contains."""
    return [
        s
        for s in symbols
        if not any(
            o is not s
            and o.start_line <= s.start_line
            and s.end_line <= o.end_line
            and len(o.path) < len(s.path)
            for o in symbols
        )
    ]


def _children(symbols: Sequence[Symbol], parent: Symbol) -> list[Symbol]:
    return [
        s for s in symbols if s.path[:-1] == parent.path and len(s.path) == len(parent.path) + 1
    ]
