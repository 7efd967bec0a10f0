"""Placeholders that stand for unchanged code (`# ... existing code ...`).

LLMs shorten replacements with a comment that means "the original lines go here".
Taken literally, such a line would delete everything it stands for. Here each
placeholder is either filled with the original lines between its neighbours,
when they can be told apart without guessing, or the block is refused with
`elision_ambiguous`.

A placeholder is a whole line: a comment (`#`, `//`, `--`, `;`, `%`, `/* */`,
`<!-- -->`, `{/* */}`, `(* *)`) whose text is only dots or mentions `...`/`…`
together with words like existing/unchanged/rest/remaining, or says "rest of the
code (unchanged)", "existing code here" and the like; or `...`/`…` alone.

A placeholder stands for original lines left out; where none are, it is not one.
`...` alone is code in Python (a stub's body) and C (varargs), so a placeholder of
dots alone that stands for nothing is content and stays; a worded one ("existing
code") is removed, and the notes say so.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from lsp_edit.patterns import LazyPattern
from lsp_edit.resolve.diffing import sequence_matcher
from lsp_edit.resolve.model import Refused
from lsp_edit.values import value

_LINE_COMMENT = LazyPattern(r"\s*(?:#+|//+|--|;+|%+)\s*(?P<body>.*?)\s*")
_BLOCK_COMMENT = LazyPattern(
    r"\s*(?:\{/\*|/\*+|<!--|\(\*)\s*(?P<body>.*?)\s*(?:\*/\}|\*+/|-->|\*\))\s*"
)
_BARE = LazyPattern(r"\s*(?:\.{3,}|…)\s*")

_DOTS = r"(?:\.{3,}|…)"
_ONLY_DOTS = LazyPattern(rf"{_DOTS}(?:\s*{_DOTS})*")
_WORD = (
    r"(?:existing|unchanged|rest|remaining|remainder|same|as before|previous|omitted|elided"
    r"|other (?:code|methods|functions|lines|fields|members|imports|tests|cases)|more code)"
)
# dots at an edge of the text plus one of the words: "... existing code ...", "rest of file ..."
_DOTTED = LazyPattern(rf"(?:{_DOTS}.*\b{_WORD}\b.*|.*\b{_WORD}\b.*{_DOTS})", re.IGNORECASE)
_NOUN = (
    r"(?:code|file|function|method|class|body|implementation|module|lines|content|contents"
    r"|component|functions|methods|imports|tests|logic|script|config|struct|impl)"
)
_STAYS = r"(?:\s+(?:is|are|remains?|stays?|goes))?\s+(?:unchanged|the same|as before|here|omitted)"
# worded without dots: "rest of the code unchanged", "existing code here", "unchanged code"
_WORDED = LazyPattern(
    rf"(?:(?:the\s+)?(?:rest|remainder)\s+of\s+(?:the\s+)?(?:\w+\s+)?{_NOUN}(?:{_STAYS})?"
    rf"|(?:keep\s+)?(?:the\s+)?existing\s+{_NOUN}(?:{_STAYS})?"
    rf"|(?:the\s+)?(?:remaining|other|original)\s+{_NOUN}{_STAYS}"
    rf"|(?:everything\s+else|{_NOUN}){_STAYS}"
    rf"|(?:unchanged|same as before)(?:\s+{_NOUN})?)",
    re.IGNORECASE,
)


# what a placeholder's first character after its indentation is: a comment's opening
# or dots (`str.lstrip` and the patterns' `\s` strip the same whitespace)
_PLACEHOLDER_OPENINGS = frozenset("#/-;%{<(.…")


def is_placeholder(line: str) -> bool:
    """True when the whole line is a comment (or bare `...`) standing for elided code."""
    if line.lstrip()[:1] not in _PLACEHOLDER_OPENINGS:
        return False  # most lines, without running the patterns
    if _BARE.fullmatch(line):
        return True
    match = _BLOCK_COMMENT.fullmatch(line) or _LINE_COMMENT.fullmatch(line)
    if match is None:
        return False
    body = match.group("body").strip("[]() \t:.,;-").strip()
    raw = match.group("body").strip()
    if _ONLY_DOTS.fullmatch(raw):
        return True
    return bool(_DOTTED.fullmatch(raw) or _WORDED.fullmatch(body))


def is_dots_only(line: str) -> bool:
    """Whether the line is dots alone (`...`, `…`), or a comment of dots alone
    (`# ...`, `/* ... */`): text a file may hold as it is, unlike "existing code"."""
    if _BARE.fullmatch(line):
        return True
    match = _BLOCK_COMMENT.fullmatch(line) or _LINE_COMMENT.fullmatch(line)
    return match is not None and bool(_ONLY_DOTS.fullmatch(match.group("body").strip()))


def placeholders_in(new: Sequence[str], literal: Collection[str]) -> list[int]:
    """Indices of the placeholder lines in `new`, except those whose text (stripped)
    is in `literal` (the old lines hold the same comment: it is real), new lines
    that are dots alone and nothing else (a stub's `...` body, an underline), lines
    of dots alone shaped like a line of dots the old lines hold (a benchmark's
    progress dots: `.....` where the file has `........`), and a heading's underline
    of dots."""
    found = [i for i, line in enumerate(new) if is_placeholder(line)]
    found = [i for i in found if new[i].strip() not in literal]
    if not found or all(is_dots_only(line) for line in new if line.strip()):
        return []  # dots alone say nothing but themselves: `...` as a stub's body
    shapes = {_dots_shape(line) for line in literal if is_dots_only(line)}
    found = [i for i in found if not shapes or _dots_shape(new[i]) not in shapes]
    return [i for i in found if not _underlines(new, i)]


def _dots_shape(line: str) -> str:
    """A line of dots with each run of dots written as three: `# .....` is `# ...`."""
    return re.sub(r"\.{3,}|…", "...", line.strip())


def _underlines(lines: Sequence[str], i: int) -> bool:
    """Whether line `i` is a heading's underline of dots (reStructuredText, also as
    indented in a package's PKG-INFO): four dots or more, under a title indented as
    much and no longer than they are."""
    if i == 0:
        return False
    line, title = lines[i].rstrip(), lines[i - 1].rstrip()
    dots = line.lstrip()
    if len(dots) < 4 or dots.strip(".") or not title.strip():
        return False
    indent = len(line) - len(dots)
    return len(title) - len(title.lstrip()) == indent and len(title) <= len(line)


@value
class Expanded:
    """New lines with every placeholder replaced by the original lines it stands for."""

    lines: tuple[str, ...]
    notes: tuple[str, ...]


def expand_elisions(
    original: Sequence[str],
    new: Sequence[str],
    placeholders: Sequence[int],
    first_line: int = 1,
) -> Expanded | Refused:
    """Replaces each placeholder in `new` with the lines of `original` between its
    neighbours.

    `original` is the region the new lines replace (file lines); `new` is in the
    file's form already (kept lines equal to the file's); `first_line` is the
    1-based document line of `original[0]`, for messages. Neighbours are compared
    with surrounding whitespace ignored. The line before a placeholder must be found
    after the previous fill, the line after it after that line; a neighbour found
    more than once counts only when its whole run of lines up to the next
    placeholder matches in just one place, or, at the two ends of `new`, when it
    lines up with the end of `original`.
    """
    if not placeholders:
        return Expanded(tuple(new), ())
    if _nothing_left_out(original, new, placeholders):
        return _standing_for_nothing(new, placeholders)
    keys = [line.strip() for line in original]
    groups = _consecutive(placeholders)
    out: list[str] = []
    notes: list[str] = []
    cursor = 0  # the first original line the next fill may take
    taken = 0  # the first new line not yet copied
    for number, group in enumerate(groups):
        written = new[group[0]].strip()
        before = new[taken : group[0]]
        next_start = groups[number + 1][0] if number + 1 < len(groups) else len(new)
        after = new[group[-1] + 1 : next_start]
        if before:
            head = number == 0
            found = _locate(keys, before, cursor, at_end=False, head=head)
            if isinstance(found, list):
                across = _fill_start_across_new_lines(keys, before, cursor, head=head)
                if across is None:
                    return _refuse(written, group[0], before[-1], found, (first_line, len(keys)))
                fill_start = across
            else:
                fill_start = found + 1
        else:
            fill_start = cursor
        if after:
            tail = next_start == len(new)
            found = _locate(keys, after, fill_start, at_end=True, tail=tail)
            if isinstance(found, list):
                across = _fill_end_across_new_lines(keys, after, fill_start, tail=tail)
                if across is None:
                    return _refuse(written, group[0], after[0], found, (first_line, len(keys)))
                found = across
            fill_end = found
        else:
            fill_end = len(original)
        out.extend(before)
        if fill_end > fill_start:
            out.extend(original[fill_start:fill_end])
            notes.append(_note(written, fill_end - fill_start, fill_start + first_line))
        else:
            kept = _standing_for_nothing([new[i] for i in group], range(len(group)))
            out.extend(kept.lines)
            notes.extend(kept.notes)
        cursor = fill_end
        taken = group[-1] + 1
    out.extend(new[taken:])
    return Expanded(tuple(out), tuple(notes))


def _nothing_left_out(
    original: Sequence[str], new: Sequence[str], placeholders: Sequence[int]
) -> bool:
    """Whether the new lines other than the placeholders hold every original line, in
    order (whitespace at their edges ignored): then the placeholders stand for nothing."""
    skipped = set(placeholders)
    rest = [line.strip() for i, line in enumerate(new) if i not in skipped]
    keys = [line.strip() for line in original]
    if len(rest) < len(keys) or not set(keys) <= set(rest):
        return False
    matcher = sequence_matcher(keys, rest)
    return sum(block.size for block in matcher.get_matching_blocks()) == len(keys)


def _standing_for_nothing(new: Sequence[str], placeholders: Collection[int]) -> Expanded:
    """`new` where its placeholders stand for no original line: dots alone are content
    and stay; a worded placeholder is removed, with a note."""
    lines: list[str] = []
    notes: list[str] = []
    for i, line in enumerate(new):
        if i in placeholders and not is_dots_only(line):
            notes.append(_note(line.strip(), 0, 0))
        else:
            lines.append(line)
    return Expanded(tuple(lines), tuple(notes))


def _consecutive(indices: Sequence[int]) -> list[list[int]]:
    """Adjacent placeholders stand for one stretch of original lines."""
    groups: list[list[int]] = []
    for index in indices:
        if groups and groups[-1][-1] == index - 1:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


def _locate(
    keys: Sequence[str],
    run: Sequence[str],
    lo: int,
    *,
    at_end: bool,
    head: bool = False,
    tail: bool = False,
) -> int | list[int]:
    """Where the neighbour of a placeholder is in the original (0-based), or else
    every place it occurs (none: it is not there; several: they cannot be told apart).

    `at_end` False: the neighbour is `run[-1]` (the line above the placeholder);
    True: `run[0]` (the line below).
    """
    run_keys = [line.strip() for line in run]
    size = len(run_keys)
    if head and list(keys[:size]) == run_keys and size - 1 >= lo:
        return size - 1
    last = len(keys) - size
    if tail and last >= lo and list(keys[last:]) == run_keys:
        return last
    neighbour = run_keys[0] if at_end else run_keys[-1]
    found = [i for i in range(lo, len(keys)) if keys[i] == neighbour]
    if len(found) == 1:
        return found[0]
    if not found:
        return found
    if at_end:
        whole = [i for i in found if list(keys[i : i + size]) == run_keys]
    else:
        whole = [i for i in found if i + 1 >= size and list(keys[i + 1 - size : i + 1]) == run_keys]
    if len(whole) == 1:
        return whole[0]
    through_blanks = _locate_through_blanks(keys, run_keys, lo, at_end=at_end)
    return found if through_blanks is None else through_blanks


def _locate_through_blanks(
    keys: Sequence[str], run_keys: Sequence[str], lo: int, *, at_end: bool
) -> int | None:
    """LLMs set placeholders off with blank lines, which occur everywhere: anchor on
    the nearest line with text instead, the blank lines between included, when that
    line occurs in one place only."""
    size = len(run_keys)
    blanks = 0
    while blanks < size and not run_keys[blanks if at_end else size - 1 - blanks]:
        blanks += 1
    if blanks == 0 or blanks == size:
        return None
    anchor = run_keys[blanks] if at_end else run_keys[size - 1 - blanks]
    places = []
    for i in range(lo, len(keys)):
        if keys[i] != anchor:
            continue
        gap = keys[i - blanks : i] if at_end else keys[i + 1 : i + 1 + blanks]
        start = i - blanks if at_end else i
        if start >= lo and len(gap) == blanks and not any(gap):
            places.append(i - blanks if at_end else i + blanks)
    return places[0] if len(places) == 1 else None


def _fill_start_across_new_lines(
    keys: Sequence[str], run: Sequence[str], lo: int, *, head: bool
) -> int | None:
    """Where a fill starts when the lines just above the placeholder are new or
    blank (`x = 1`, a new line, a blank line, then `# ...`): they follow the
    nearest run of original lines above them that occurs in one place only, or,
    for the block's first lines, the start of the file. None when that is not
    certain."""
    run_keys = [line.strip() for line in run]
    present = set(keys[lo:])
    split = len(run_keys)
    while split and (not run_keys[split - 1] or run_keys[split - 1] not in present):
        split -= 1
    gap = run_keys[split:]
    if split:
        anchor = _unique_run(keys, run_keys[:split], lo, from_end=True)
        if anchor is None:
            return None
        start, size = anchor
        if _inside_new_block(run, split - size, present):
            return None
        return _walk_gap(keys, gap, start + size, step=1, limit=len(keys), file_edge=False)
    if not head or lo:
        return None
    return _walk_gap(keys, gap, 0, step=1, limit=len(keys), file_edge=True)


def _fill_end_across_new_lines(
    keys: Sequence[str], run: Sequence[str], lo: int, *, tail: bool
) -> int | None:
    """The mirror of `_fill_start_across_new_lines`: where a fill ends when the lines
    just below the placeholder are new or blank."""
    run_keys = [line.strip() for line in run]
    present = set(keys[lo:])
    split = 0
    while split < len(run_keys) and (not run_keys[split] or run_keys[split] not in present):
        split += 1
    gap = run_keys[:split]
    if split < len(run_keys):
        anchor = _unique_run(keys, run_keys[split:], lo, from_end=False)
        if anchor is None:
            return None
        start, _size = anchor
        if _inside_new_block(run, split, present):
            return None
        end = _walk_gap(keys, gap[::-1], start - 1, step=-1, limit=lo - 1, file_edge=False)
        return None if end is None else end + 1
    if not tail:
        return None
    end = _walk_gap(keys, gap[::-1], len(keys) - 1, step=-1, limit=lo - 1, file_edge=True)
    return None if end is None else end + 1


def _unique_run(
    keys: Sequence[str], run_keys: Sequence[str], lo: int, *, from_end: bool
) -> tuple[int, int] | None:
    """The shortest stretch of `run_keys` next to its gap (its end, or its start) that
    occurs in one place of `keys[lo:]`: that place and the stretch's size."""
    for size in range(1, len(run_keys) + 1):
        part = list(run_keys[len(run_keys) - size :] if from_end else run_keys[:size])
        places = [i for i in range(lo, len(keys) - size + 1) if list(keys[i : i + size]) == part]
        if len(places) == 1:
            return places[0], size
        if not places:
            return None
    return None


def _inside_new_block(run: Sequence[str], first: int, present: Collection[str]) -> bool:
    """Whether the original lines found from `run[first]` on sit inside a block that
    a new line above them opens (`exp(a) {` then `return this;`): then they are that
    new block's lines, found in the file by chance, and no anchor. Above them, a new
    line indented less than they are opens such a block; an original one closes the
    search."""
    depth = _indent(run[first])
    for line in reversed(run[:first]):
        if not line.strip() or _indent(line) >= depth:
            continue
        return line.strip() not in present
    return False


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_SIMILAR = 0.6


def _walk_gap(
    keys: Sequence[str], gap: Sequence[str], at: int, *, step: int, limit: int, file_edge: bool
) -> int | None:
    """Walks the new or blank lines between a placeholder and its anchor (`at` is
    the first original line past the anchor, `step` the direction): a line equal to
    the original one there keeps it; a new line leaves the original in the fill.
    Returns the first original line the fill does not take from that side.

    A line that reads like the original one there (changed, or new?) makes the fill
    uncertain: None. At an edge of the file (`file_edge`) there is no anchor: the gap may
    only be blank lines the file has, around one changed line in its place."""
    changed = 0
    for line in gap:
        there = keys[at] if 0 <= at < len(keys) and at != limit else None
        if there is not None and line == there:
            at += step
            continue
        similar = (
            there is not None
            and bool(line)
            and bool(there)
            and sequence_matcher(line, there, autojunk=True).ratio() >= _SIMILAR
        )
        if file_edge:
            if not similar or changed:
                return None
            changed += 1
            at += step
        elif similar:
            return None
    return at


def _refuse(
    placeholder: str, at: int, neighbour: str, found: Sequence[int], region: tuple[int, int]
) -> Refused:
    """`region`: the 1-based first line of the original lines, and how many there are."""
    first_line, count = region
    head = (
        f"Could not expand the placeholder `{placeholder}` (line {at + 1} of the new text): "
        f"the line next to it, `{neighbour.strip()}`,"
    )
    if not found:
        reason = " is not in the original lines it replaces"
        about: tuple[tuple[int, int], ...] = (
            ((first_line, first_line + count - 1),) if count else ()
        )
    else:
        lines = [i + first_line for i in found]
        reason = f" occurs {len(lines)} times in the original (lines {_and(lines)})"
        about = tuple((line, line) for line in lines)
    return Refused(
        "elision_ambiguous",
        f"{head}{reason}, so it is unclear which original lines the placeholder stands for. "
        "Keep one unchanged original line directly above and below each placeholder, "
        "or write the lines out in full.",
        about,
    )


def _note(placeholder: str, count: int, first: int) -> str:
    if count == 0:
        return f"Removed the placeholder `{placeholder}`: no original lines were left out there"
    where = f"line {first}" if count == 1 else f"lines {first}-{first + count - 1}"
    plural = "line" if count == 1 else "lines"
    return f"Filled {count} elided {plural} at `{placeholder}` from the original ({where})"


def _and(numbers: Sequence[int]) -> str:
    words = [str(n) for n in numbers]
    if len(words) <= 2:
        return " and ".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
