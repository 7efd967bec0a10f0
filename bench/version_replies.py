"""The change between two versions of a file, written as a reply in every format
lsp-edit reads (docs/formats.md), with the file each of its blocks leaves: the
replies bench/realpackages.py applies.

Each writer says a change the way a careful model would: SEARCH/REPLACE, `««« EDIT`
and V4A hunks carry three lines of context, more when their old lines occur more
than once in the text they meet; fences are longer than any fence inside them;
AST paths and chunk diffs name only definitions whose path names one definition.
A change a format cannot say (a deleted file in a line range, a final newline
removed in SEARCH/REPLACE, decorators removed by an AST path block, which keeps
those it does not bring) is left out, with the reason.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import PurePosixPath

Tree = dict[str, bytes]


# ---------------------------------------------------------------- text


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r|$)")
BOM = "\ufeff"


def split_lines(text: str) -> list[str]:
    """Lines with their endings; only CRLF, LF and CR end a line (as in lsp-edit)."""
    lines = _LINE.findall(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return line[-1] if line.endswith(("\n", "\r")) else ""


def content(line: str) -> str:
    return line[: len(line) - len(ending(line))]


@dataclass(frozen=True)
class Doc:
    """A text file: its lines with their endings, and whether it starts with a BOM."""

    lines: tuple[str, ...]
    bom: bool

    @staticmethod
    def read(data: bytes) -> Doc | None:
        """The file's text, or None for what lsp-edit does not edit (binary, not UTF-8)."""
        if b"\x00" in data[:8192]:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        bom = text.startswith(BOM)
        return Doc(tuple(split_lines(text[1:] if bom else text)), bom)

    def encode(self) -> bytes:
        return ((BOM if self.bom else "") + "".join(self.lines)).encode("utf-8")

    @property
    def final_newline(self) -> bool:
        return bool(self.lines) and ending(self.lines[-1]) != ""

    @property
    def eol(self) -> str:
        """The ending lsp-edit gives new lines: CRLF if any, else LF, else CR, else LF."""
        text = "".join(self.lines)
        if "\r\n" in text:
            return "\r\n"
        if "\n" in text:
            return "\n"
        return "\r" if "\r" in text else "\n"


def keeping_final_newline(lines: list[str], old: Doc) -> list[str]:
    """`lines` ending as `old` ends: with a final newline or without one."""
    if not lines or not old.lines:
        return lines
    last = lines[-1]
    if old.final_newline and not ending(last):
        return [*lines[:-1], last + old.eol]
    if not old.final_newline and ending(last):
        return [*lines[:-1], content(last)]
    return lines


def fence_for(lines: Iterable[str]) -> str:
    """A backtick fence longer than every backtick fence inside `lines`."""
    longest = 2
    for line in lines:
        stripped = line.lstrip()
        run = len(stripped) - len(stripped.lstrip("`"))
        longest = max(longest, run)
    return "`" * (longest + 1)


# lsp-edit reads fences with these tags as shell commands or diffs, never as a file
_NOT_FILE_TAGS = frozenset(
    {"bash", "sh", "shell", "console", "zsh", "fish", "ksh", "csh", "tcsh", "shellsession"}
    | {"cmd", "bat", "batch", "powershell", "ps1", "pwsh", "diff", "patch", "udiff"}
)


def fence_tag(path: str) -> str:
    """The language tag a model would write for `path` ("" when it has none)."""
    from lsp_edit.symbols import language_for

    name = PurePosixPath(path).name
    language = language_for(name)
    if language:
        return language
    suffix = PurePosixPath(path).suffix[1:].lower()
    if not suffix.isalnum():
        return ""
    return "text" if suffix in _NOT_FILE_TAGS else suffix


def shown_path(path: str) -> str:
    """A path as a path line: in backticks when it holds a space."""
    return f"`{path}`" if " " in path else path


# ---------------------------------------------------------------- a pair's changes


@dataclass(frozen=True)
class FileChange:
    """One text file that differs between two versions (None: it does not exist)."""

    path: str
    old: Doc | None
    new: Doc | None

    @cached_property
    def matcher(self) -> difflib.SequenceMatcher[str]:
        """The line diff, made once: every format's writer reads it."""
        old = self.old.lines if self.old else ()
        new = self.new.lines if self.new else ()
        return difflib.SequenceMatcher(None, old, new, autojunk=False)

    def opcodes(self) -> Sequence[tuple[str, int, int, int, int]]:
        return self.matcher.get_opcodes()


@dataclass(frozen=True)
class PairChanges:
    files: tuple[FileChange, ...]
    binary: int  # files that changed but are not text lsp-edit edits
    old_paths: frozenset[str]  # every file of the old version


def changes_between(old: Tree, new: Tree) -> PairChanges:
    files: list[FileChange] = []
    binary = 0
    for path in sorted(old.keys() | new.keys()):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        old_doc = Doc.read(before) if before is not None else None
        new_doc = Doc.read(after) if after is not None else None
        if (before is not None and old_doc is None) or (after is not None and new_doc is None):
            binary += 1
            continue
        files.append(FileChange(path, old_doc, new_doc))
    return PairChanges(tuple(files), binary, frozenset(old))


# ---------------------------------------------------------------- replies


@dataclass(frozen=True)
class Written:
    """A file's part of a reply: its text, and the file each of its changes leaves
    (in reply order: `after[k]` is the file once changes 0..k applied; None: deleted)."""

    text: str
    after: tuple[bytes | None, ...]


@dataclass(frozen=True)
class Can:
    """What a format can say."""

    create: bool = False
    delete: bool = False
    final_newline: bool = False
    # a new file is named by a line of prose before its block (SEARCH/REPLACE, a
    # whole file), which names a new file only when it looks like a path, and which
    # names the one existing file whose path ends with it
    path_line: bool = False


def unsayable_new_file(change: FileChange, can: Can, old_paths: frozenset[str]) -> str | None:
    """Why a format cannot name this new file (None: it can, or it is no new file)."""
    if change.old is not None or not can.path_line:
        return None
    from lsp_edit.blocks.paths import path_or_none

    if path_or_none(change.path) is None:
        return "new file named by a line that is no path"
    if any(path.endswith("/" + change.path) for path in old_paths):
        return "new file named as the end of an existing path"
    return None


def unsayable(change: FileChange, can: Can) -> str | None:
    """Why a format with abilities `can` cannot say `change` (None: it can)."""
    old, new = change.old, change.new
    if old is None:
        assert new is not None
        if not can.create:
            return "new file"
        if not new.lines:
            return "new empty file"
        if new.bom:
            return "new file with a byte order mark"
        if any(ending(line) not in ("\n", "") for line in new.lines):
            return "new file with CR line endings"
        if not new.final_newline and not can.final_newline:
            return "new file without final newline"
        return None
    if new is None:
        return None if can.delete and old.lines else "deleted file"
    if old.bom != new.bom:
        return "byte order mark changed"
    was_ended = old.final_newline if old.lines else True
    if not can.final_newline and new.lines and was_ended != new.final_newline:
        return "final newline changed"
    eol = old.eol
    for tag, _i1, _i2, j1, j2 in change.opcodes():
        if tag in ("insert", "replace") and any(
            ending(line) not in (eol, "") for line in new.lines[j1:j2]
        ):
            return "line endings changed"
    if _endings_changed_alone(old, new):
        return "line endings changed"
    return None


def _endings_changed_alone(old: Doc, new: Doc) -> bool:
    """Whether a line the new version keeps (its text the same) ends otherwise: every
    format keeps such a line's bytes (only a diff's `\\ No newline` marker speaks of
    the last one's ending)."""
    if not any("\r" in line for line in (*old.lines, *new.lines)):
        return False
    before, after = [content(x) for x in old.lines], [content(x) for x in new.lines]
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag == "equal":
            pairs = zip(old.lines[i1:i2], new.lines[j1 : j1 + i2 - i1], strict=True)
            if any(ending(a) != ending(b) and ending(a) and ending(b) for a, b in pairs):
                return True
    return False


FormatWriter = Callable[[FileChange], "Written | str"]


@dataclass(frozen=True)
class Format:
    name: str
    can: Can
    write: FormatWriter
    wrap: Callable[[str], str] = lambda body: body


@dataclass(frozen=True)
class FileReply:
    path: str
    old: bytes | None
    after: tuple[bytes | None, ...]
    text: str  # its part of the reply


@dataclass(frozen=True)
class Reply:
    text: str
    files: tuple[FileReply, ...]
    unsaid: tuple[tuple[str, str], ...]  # (path, why)


def reply_for(fmt: Format, pair: PairChanges, title: str) -> Reply:
    parts: list[str] = []
    files: list[FileReply] = []
    unsaid: list[tuple[str, str]] = []
    for change in pair.files:
        why = unsayable(change, fmt.can) or unsayable_new_file(change, fmt.can, pair.old_paths)
        written = fmt.write(change) if why is None else why
        if not isinstance(written, str) and not written.after:
            written = "no block to write"
        if isinstance(written, str):
            unsaid.append((change.path, written))
            continue
        parts.append(written.text)
        old = change.old.encode() if change.old else None
        files.append(FileReply(change.path, old, written.after, written.text))
    body = "\n\n".join(parts)
    text = f"Here are the changes of {title}.\n\n{fmt.wrap(body)}\n" if parts else ""
    return Reply(text, tuple(files), tuple(unsaid))


# ---------------------------------------------------------------- anchored hunks


@dataclass(frozen=True)
class Hunk:
    """A hunk against the text the earlier hunks left: its first line there, and its
    lines marked ` ` (kept), `-` (removed) or `+` (added), each with its ending."""

    start: int
    ops: tuple[tuple[str, str], ...]

    @property
    def old(self) -> list[str]:
        return [line for op, line in self.ops if op != "+"]

    @property
    def new(self) -> list[str]:
        return [line for op, line in self.ops if op != "-"]


def _occurrences(lines: Sequence[str], wanted: Sequence[str]) -> int:
    """How many places `wanted` (line contents) starts at in `lines` (contents)."""
    if not wanted:
        return 1 if not lines else 2
    first, count, size = wanted[0], 0, len(wanted)
    for at, line in enumerate(lines):
        if line == first and list(lines[at : at + size]) == list(wanted):
            count += 1
            if count > 1:
                break
    return count


def anchored_hunks(change: FileChange, context: int = 3) -> Iterator[tuple[Hunk, list[str]]]:
    """The hunks from `old` to `new` with `context` lines around each change, each
    with more context (above, then below, in turn) until its old lines occur once in
    the text it meets; each with the text it leaves."""
    assert change.old is not None and change.new is not None
    old, new = change.old.lines, change.new.lines
    current = list(old)
    delta = 0
    for group in change.matcher.get_grouped_opcodes(context):
        if all(tag == "equal" for tag, *_ in group):
            continue
        ops: list[tuple[str, str]] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                ops += [(" ", line) for line in old[i1:i2]]
            else:
                ops += [("-", line) for line in old[i1:i2]]
                ops += [("+", line) for line in new[j1:j2]]
        start = group[0][1] + delta
        end = start + sum(1 for op, _ in ops if op != "+")
        contents = [content(line) for line in current]
        upwards = True
        while _occurrences(contents, [content(line) for op, line in ops if op != "+"]) > 1:
            if (upwards or end == len(current)) and start > 0:
                start -= 1
                ops.insert(0, (" ", current[start]))
            elif end < len(current):
                ops.append((" ", current[end]))
                end += 1
            else:
                break
            upwards = not upwards
        hunk = Hunk(start, tuple(ops))
        current[start:end] = hunk.new
        delta += len(hunk.new) - len(hunk.old)
        yield hunk, list(current)


def _lines_of(lines: Iterable[str]) -> str:
    return "".join(content(line) + "\n" for line in lines)


def _after(lines: list[str], change: FileChange) -> bytes:
    old = change.old
    assert old is not None
    return Doc(tuple(keeping_final_newline(lines, old)), old.bom).encode()


def _new_file(change: FileChange) -> bytes:
    assert change.new is not None
    return change.new.encode()


def write_search_replace(change: FileChange) -> Written | str:
    """aider's layout: the path, a fence, the block, the fence; one block per hunk."""
    fence = "```" + fence_tag(change.path)
    path = shown_path(change.path)
    if change.old is None:
        assert change.new is not None
        block = f"{path}\n{fence}\n<<<<<<< SEARCH\n=======\n"
        block += f"{_lines_of(change.new.lines)}>>>>>>> REPLACE\n```"
        return Written(block, (_new_file(change),))
    assert change.new is not None
    texts: list[str] = []
    after: list[bytes | None] = []
    for hunk, current in anchored_hunks(change):
        texts.append(
            f"{path}\n{fence}\n<<<<<<< SEARCH\n{_lines_of(hunk.old)}=======\n"
            f"{_lines_of(hunk.new)}>>>>>>> REPLACE\n```"
        )
        after.append(_after(current, change))
    return Written("\n\n".join(texts), tuple(after))


def write_common_prefix(change: FileChange) -> Written | str:
    """`««« EDIT` blocks; every other block in the explicit-anchor layout. A new
    file's block has an empty old half."""
    assert change.new is not None
    if change.old is None:
        block = f"««« EDIT\n═══════ REPL\n{_lines_of(change.new.lines)}»»» EDIT END"
        return Written(f"{shown_path(change.path)}\n{block}", (_new_file(change),))
    texts: list[str] = []
    after: list[bytes | None] = []
    hunks = anchored_hunks(change)
    for number, (hunk, current) in enumerate(hunks):
        ops = list(hunk.ops)
        lead = next((i for i, (op, _) in enumerate(ops) if op != " "), len(ops))
        tail = next((i for i, (op, _) in enumerate(reversed(ops)) if op != " "), len(ops))
        if number % 2 and lead and tail:
            middle = ops[lead : len(ops) - tail]
            block = (
                f"««« EDIT\n{_lines_of(line for _, line in ops[:lead])}───────\n"
                f"{_lines_of(line for op, line in middle if op != '+')}═══════\n"
                f"{_lines_of(line for op, line in middle if op != '-')}───────\n"
                f"{_lines_of(line for _, line in ops[len(ops) - tail :])}»»»"
            )
        else:
            block = (
                f"««« EDIT\n{_lines_of(hunk.old)}═══════ REPL\n{_lines_of(hunk.new)}»»» EDIT END"
            )
        texts.append(f"{shown_path(change.path)}\n{block}")
        after.append(_after(current, change))
    return Written("\n\n".join(texts), tuple(after))


def write_v4a(change: FileChange) -> Written | str:
    """A V4A file section: Add File, Delete File, or Update File with `@@` hunks."""
    if change.old is None:
        assert change.new is not None
        lines = "".join(f"+{content(line)}\n" for line in change.new.lines)
        return Written(f"*** Add File: {change.path}\n{lines}".rstrip("\n"), (_new_file(change),))
    if change.new is None:
        return Written(f"*** Delete File: {change.path}", (None,))
    sections = [f"*** Update File: {change.path}"]
    current: list[str] = list(change.old.lines)
    for hunk, after in anchored_hunks(change):
        scope = _scope(change.path, current, hunk)
        sections += [f"@@ {line}" for line in scope] or ["@@"]
        sections += [f"{op}{content(line)}" for op, line in hunk.ops]
        current = after
        if hunk.start + len(hunk.new) == len(current):
            sections.append("*** End of File")
    return Written("\n".join(sections), (_after(current, change),))


def _scope(path: str, before: list[str], hunk: Hunk) -> list[str]:
    """The definition lines of the definitions the hunk's first change is in,
    outermost first, as OpenAI's patches write them after `@@` (`class Cart`, then
    `def total(self):`): those that open above the hunk's first line."""
    defs = definitions(path, Doc(tuple(before), False))
    if not defs:
        return []
    first = hunk.start + next(i for i, (op, _) in enumerate(hunk.ops) if op != " ")
    holders = sorted(
        (d for d in defs.values() if d.head < hunk.start and d.start <= first < d.end),
        key=lambda d: (d.start, -d.end),
    )
    return [content(before[d.head]).strip() for d in holders]


def write_unified_diff(change: FileChange) -> Written | str:
    """`git diff` output for the file, with three lines of context."""
    old = change.old.lines if change.old else ()
    new = change.new.lines if change.new else ()
    lines = [f"diff --git a/{change.path} b/{change.path}"]
    lines.append(f"--- a/{change.path}" if change.old else "--- /dev/null")
    lines.append(f"+++ b/{change.path}" if change.new else "+++ /dev/null")
    for group in change.matcher.get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@")
        for tag, a1, a2, b1, b2 in group:
            marked = [(" ", line) for line in old[a1:a2]] if tag == "equal" else []
            if tag != "equal":
                marked += [("-", line) for line in old[a1:a2]]
                marked += [("+", line) for line in new[b1:b2]]
            for op, line in marked:
                lines.append(op + content(line))
                if not ending(line):
                    lines.append("\\ No newline at end of file")
    after = change.new.encode() if change.new else None
    return Written("\n".join(lines), (after,))


def _range(start: int, end: int) -> str:
    count = end - start
    return f"{start + 1 if count else start},{count}"


def write_whole_file(change: FileChange) -> Written | str:
    """The new file in a fence under its path; the prose names the definitions the
    new version removes (lsp-edit keeps a definition a whole file leaves out unless
    the reply mentions it)."""
    assert change.new is not None
    fence = fence_for(content(line) for line in change.new.lines)
    removed = _removed_names(change)
    prose = f"This removes {', '.join(f'`{name}`' for name in removed)}.\n\n" if removed else ""
    text = (
        f"{prose}{shown_path(change.path)}\n{fence}{fence_tag(change.path)}\n"
        f"{_lines_of(change.new.lines)}{fence}"
    )
    after = _after(list(change.new.lines), change) if change.old else _new_file(change)
    return Written(text, (after,))


def write_line_range(change: FileChange) -> Written | str:
    """One ```` ```lang:A:B ```` block per changed stretch, numbered in the old file."""
    assert change.old is not None and change.new is not None
    tag = fence_tag(change.path) or "text"
    current = list(change.old.lines)
    delta = 0
    texts: list[str] = []
    after: list[bytes | None] = []
    for op, i1, i2, j1, j2 in change.opcodes():
        if op == "equal":
            continue
        lines = change.new.lines[j1:j2]
        fence = fence_for(content(line) for line in lines)
        texts.append(
            f"{shown_path(change.path)}\n{fence}{tag}:{i1 + 1}:{i2 + 1}\n{_lines_of(lines)}{fence}"
        )
        current[i1 + delta : i2 + delta] = lines
        delta += (j2 - j1) - (i2 - i1)
        after.append(_after(current, change))
    return Written("\n\n".join(texts), tuple(after))


# ---------------------------------------------------------------- symbols


@dataclass(frozen=True)
class Definition:
    path: str  # dotted with `-`
    start: int  # 0-based, the first line (decorators and comments above included)
    end: int  # exclusive
    leading: frozenset[str]  # what stands above its definition line: comment, attribute
    indent: str  # of its definition line
    head: int  # its definition line (`def`, `class`, `fn`), after what stands above it


_SEPARATORS = re.compile(r"[-.:/\s]|::")


@lru_cache(maxsize=32)
def definitions(path: str, doc: Doc) -> dict[str, Definition] | None:
    """The definitions of a file whose AST path names one definition only (None: no
    symbols for its language)."""
    from lsp_edit.symbols import index_symbols, language_for
    from lsp_edit.symbols.languages import spec_for
    from lsp_edit.text import Text

    language = language_for(PurePosixPath(path).name)
    spec = spec_for(language) if language else None
    if language is None or spec is None:
        return None
    symbols = index_symbols(Text.from_string("".join(doc.lines)), language)
    counts = Counter(symbol.path for symbol in symbols)
    found: dict[str, Definition] = {}
    for symbol in symbols:
        if counts[symbol.path] == 1 and not any(_SEPARATORS.search(p) for p in symbol.path):
            dotted = "-".join(symbol.path)
            above = [
                content(x).strip() for x in doc.lines[symbol.start_line : symbol.body_start_line]
            ]
            leading = {
                kind
                for line in above
                for kind, prefixes in (
                    ("attribute", spec.attribute_prefixes),
                    ("comment", spec.comment_prefixes),
                )
                if prefixes and line.startswith(prefixes)
            }
            found[dotted] = Definition(
                dotted,
                symbol.start_line,
                symbol.end_line,
                frozenset(leading),
                symbol.indent,
                symbol.body_start_line,
            )
    return found


def _removed_names(change: FileChange) -> list[str]:
    """The names of the definitions the new version no longer has (by path, those
    defined twice too)."""
    if change.old is None or change.new is None:
        return []
    old = symbol_paths(change.path, change.old)
    new = symbol_paths(change.path, change.new)
    return sorted({path[-1] for path in old - new})


@lru_cache(maxsize=32)
def symbol_paths(path: str, doc: Doc) -> frozenset[tuple[str, ...]]:
    """Every definition's AST path in the file (none for a language without symbols)."""
    from lsp_edit.symbols import index_symbols, language_for
    from lsp_edit.text import Text

    language = language_for(PurePosixPath(path).name)
    if language is None:
        return frozenset()
    return frozenset(s.path for s in index_symbols(Text.from_string("".join(doc.lines)), language))


def _innermost(defs: Iterable[Definition], i1: int, i2: int, inside: bool) -> Definition | None:
    """The smallest definition holding old lines i1..i2 (an insertion, i1 == i2,
    strictly inside when `inside`)."""
    best: Definition | None = None
    for d in defs:
        if i1 == i2 and inside:
            holds = d.start < i1 < d.end
        else:
            holds = d.start <= i1 and i2 <= d.end and (i1 < i2 or d.start < i1 <= d.end)
        if holds and (best is None or d.end - d.start < best.end - best.start):
            best = d
    return best


def write_ast_path(change: FileChange) -> Written | str:
    """A ```` ```lang:Class-method ```` block with the new text of each definition the
    change is inside (a change outside every definition is left out)."""
    assert change.old is not None and change.new is not None
    old_defs = definitions(change.path, change.old)
    new_defs = definitions(change.path, change.new)
    if old_defs is None or new_defs is None:
        return "no symbols in this language"
    chosen: dict[str, Definition] = {}
    for op, i1, i2, j1, j2 in change.opcodes():
        if op == "equal":
            continue
        holder = _innermost(old_defs.values(), i1, i2, inside=False)
        while holder is not None:
            twin = new_defs.get(holder.path)
            # a replacement keeps each kind of leading line (comments, decorators) it
            # does not bring, unless it brings both: it cannot say "remove them"; and
            # it is indented as the symbol it replaces
            keeps = (
                twin is not None
                and (holder.leading <= twin.leading or len(twin.leading) == 2)
                and twin.indent == holder.indent
            )
            if twin is not None and keeps and twin.start <= j1 and j2 <= twin.end:
                chosen[holder.path] = holder
                break
            outer = [
                d
                for d in old_defs.values()
                if d.start <= holder.start and holder.end <= d.end and d != holder
            ]
            holder = min(outer, key=lambda d: d.end - d.start) if outer else None
    outermost = [
        d
        for d in chosen.values()
        if not any(o != d and o.start <= d.start and d.end <= o.end for o in chosen.values())
    ]
    if not outermost:
        return "no change inside a definition"
    language = fence_tag(change.path)
    current = list(change.old.lines)
    delta = 0
    texts: list[str] = []
    after: list[bytes | None] = []
    for d in sorted(outermost, key=lambda d: d.start):
        twin = new_defs[d.path]
        lines = change.new.lines[twin.start : twin.end]
        fence = fence_for(content(line) for line in lines)
        texts.append(
            f"{shown_path(change.path)}\n{fence}{language}:{d.path}\n{_lines_of(lines)}{fence}"
        )
        current[d.start + delta : d.end + delta] = lines
        delta += len(lines) - (d.end - d.start)
        after.append(_after(current, change))
    return Written("\n\n".join(texts), tuple(after))


def write_chunk_diff(change: FileChange) -> Written | str:
    """One `chunk_diff` operation per definition holding changes, a chunk per change
    with up to three lines of context, more when needed to tell places apart."""
    assert change.old is not None and change.new is not None
    old_defs = definitions(change.path, change.old)
    if old_defs is None:
        return "no symbols in this language"
    by_definition: dict[str, list[tuple[int, int, int, int]]] = {}
    for op, i1, i2, j1, j2 in change.opcodes():
        if op == "equal":
            continue
        if _trailing_whitespace_only(change.old.lines[i1:i2], change.new.lines[j1:j2]):
            continue
        # a chunk may not delete every line of its symbol: the one around it takes it
        holders = [
            d
            for d in old_defs.values()
            if (d.start < i1 < d.end if i1 == i2 else d.start <= i1 and i2 <= d.end)
            and (i2 - i1 < d.end - d.start or j2 > j1)
        ]
        if holders:
            holder = min(holders, key=lambda d: d.end - d.start)
            by_definition.setdefault(holder.path, []).append((i1, i2, j1, j2))
    if not by_definition:
        return "no change inside a definition"
    return _chunk_operations(change, old_defs, by_definition)


def _chunk_operations(
    change: FileChange,
    defs: dict[str, Definition],
    by_definition: dict[str, list[tuple[int, int, int, int]]],
) -> Written | str:
    """The operations, each read against the file as the operations before it left
    it (a class's chunks may sit next to lines a method's operation changed)."""
    assert change.old is not None and change.new is not None
    new = change.new.lines
    current = list(change.old.lines)
    done: list[tuple[int, int, int]] = []  # old lines i1..i2 became n lines

    def now(line: int, end: bool = False) -> int:
        """Where old line `line` is in `current` (as the end of a range: lines
        inserted right there come after it)."""
        return line + sum(
            n - (i2 - i1) for i1, i2, n in done if i2 <= line and not (end and i1 == i2 == line)
        )

    operations: list[dict[str, object]] = []
    after: list[bytes | None] = []
    # the innermost first: an outer one may add a definition of the same name
    # (one moved within its class), which would make an inner one's path ambiguous
    order = sorted(by_definition, key=lambda name: defs[name].end - defs[name].start)
    for name in order:
        stretches = by_definition[name]
        # the operations before may have made its path name another definition, or
        # two (a definition moved out of the one they changed): then it is left out
        here = (definitions(change.path, Doc(tuple(current), False)) or {}).get(name)
        first, last = now(defs[name].start), now(defs[name].end, end=True)
        if here is None or (here.start, here.end) != (first, last):
            continue
        symbol = [content(line).rstrip() for line in current[first:last]]
        chunks: list[dict[str, list[str]]] = []
        edits: list[tuple[int, int, Sequence[str]]] = []
        for i1, i2, j1, j2 in stretches:
            start, end = now(i1), now(i1) + (i2 - i1)
            above, below = max(first, start - 3), min(last, end + 3)
            upwards = True
            while _occurrences(symbol, [content(x).rstrip() for x in current[above:below]]) > 1:
                if (upwards or below == last) and above > first:
                    above -= 1
                elif below < last:
                    below += 1
                else:
                    break
                upwards = not upwards
            chunks.append(
                {
                    "context_before": [content(line) for line in current[above:start]],
                    "old_lines": [content(line) for line in current[start:end]],
                    "new_lines": [content(line) for line in new[j1:j2]],
                    "context_after": [content(line) for line in current[end:below]],
                }
            )
            edits.append((start, end, new[j1:j2]))
        for start, end, lines in reversed(edits):
            current[start:end] = lines
        done += [(i1, i2, j2 - j1) for i1, i2, j1, j2 in stretches]
        operations.append(
            {"op": "chunk_diff", "path": change.path, "symbol": name, "chunks": chunks}
        )
        after.append(_after(current, change))
    if not operations:
        return "no definition left to name"
    return Written(_json_block(operations), tuple(after))


def _trailing_whitespace_only(old: Sequence[str], new: Sequence[str]) -> bool:
    """Whether a new line differs from an old one only in trailing whitespace: a
    chunk keeps the file's bytes of a line it repeats, so it cannot say that change."""
    olds = {content(line).rstrip(): content(line) for line in old}
    return any(olds.get(content(line).rstrip(), content(line)) != content(line) for line in new)


def write_line_operations(change: FileChange) -> Written | str:
    """`delete_lines` then `insert_lines` for each changed stretch, top to bottom,
    each numbered in the file as the operations before it left it."""
    assert change.old is not None and change.new is not None
    old, new = change.old, change.new
    current = list(old.lines)
    delta = 0
    operations: list[dict[str, object]] = []
    after: list[bytes | None] = []
    for op, i1, i2, j1, j2 in change.opcodes():
        if op == "equal":
            continue
        start = i1 + delta
        if i2 > i1:
            operations.append(
                {"op": "delete_lines", "path": change.path, "start_line": start + 1,
                 "end_line": start + (i2 - i1)}
            )  # fmt: skip
            del current[start : start + (i2 - i1)]
            after.append(_after(current, change))
        if j2 > j1:
            lines = new.lines[j1:j2]
            at_end = start == len(current)
            text = "".join(content(line) + "\n" for line in lines)
            if at_end and old.lines and not old.final_newline:
                text = text[:-1]
            if start < len(current):
                where: dict[str, object] = {"line": start + 1, "position": "before"}
            else:
                where = {"line": max(start, 1), "position": "after" if start else "before"}
            operations.append({"op": "insert_lines", "path": change.path, **where, "content": text})
            current[start:start] = lines
            after.append(_after(current, change))
        delta += (j2 - j1) - (i2 - i1)
    return Written(_json_block(operations), tuple(after))


def _json_block(operations: list[dict[str, object]]) -> str:
    return "```json\n" + json.dumps(operations, indent=2, ensure_ascii=False) + "\n```"


def _patch(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch"


FORMATS = (
    Format("unified_diff", Can(create=True, delete=True, final_newline=True), write_unified_diff),
    Format("search_replace", Can(create=True, path_line=True), write_search_replace),
    Format("common_prefix", Can(create=True, path_line=True), write_common_prefix),
    Format("v4a", Can(create=True, delete=True), write_v4a, _patch),
    Format("whole_file", Can(create=True, path_line=True), write_whole_file),
    Format("line_range", Can(), write_line_range),
    Format("ast_path", Can(), write_ast_path),
    Format("chunk_diff", Can(), write_chunk_diff),
    Format("line_operations", Can(), write_line_operations),
)
