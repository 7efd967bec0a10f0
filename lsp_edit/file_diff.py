"""The unified diff of a whole file before and after a reply (`lsp-edit apply --diff`).

difflib's matcher looks for the longest run of equal lines in the whole file, then
again on each side of it: 200 edits spread over a 20,000-line file took it a second.
Here the lines both sides hold once and in the same order are matched first (as
`git diff --patience` does), which cuts the file into short stretches between them,
and difflib compares only those. A short file difflib compares whole, as
`difflib.unified_diff` does.

The text is `difflib.unified_diff`'s: `---`/`+++` headers, then hunks with three
lines of context, joined when their contexts touch.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence

CONTEXT = 3
# A file shorter than this on both sides is compared whole by difflib, as
# `difflib.unified_diff` would (fast enough there).
_WHOLE_BELOW = 2_000

Match = tuple[int, int, int]  # a run of equal lines: old start, new start, length
Opcode = tuple[str, int, int, int, int]  # as difflib's get_opcodes gives them
Stretch = tuple[int, int, int, int]  # lines of both files: old start, old end, new start, new end


def unified_diff(old: Sequence[str], new: Sequence[str], fromfile: str, tofile: str) -> str:
    """The unified diff turning `old` into `new` (lines with their endings), or ""
    when they are equal."""
    hunks = list(_hunks(_opcodes(old, new)))
    if not hunks:
        return ""
    out = [f"--- {fromfile}\n", f"+++ {tofile}\n"]
    for hunk in hunks:
        out += _hunk_text(hunk, old, new)
    return "".join(out)


def _opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """What becomes of each line: difflib's matcher over the whole of a short file,
    a long one cut at its unique lines first."""
    if len(old) < _WHOLE_BELOW and len(new) < _WHOLE_BELOW:
        matches = _matches_within(old, new, (0, len(old), 0, len(new)))
    else:
        matches = _matches_cut_at_unique_lines(old, new)
    return _to_opcodes(_joined(matches), len(old), len(new))


def _matches_cut_at_unique_lines(old: Sequence[str], new: Sequence[str]) -> list[Match]:
    """The runs of equal lines: the common start and end, the lines each side holds
    once and both hold in the same order, and the runs between those."""
    head, tail = _equal_ends(old, new, (0, len(old), 0, len(new)))
    old_end, new_end = len(old) - tail, len(new) - tail
    matches: list[Match] = [(0, 0, head)] if head else []
    old_at = new_at = head
    for old_line, new_line in _unique_in_order(old, new, head, old_end, new_end):
        matches += _matches_between(old, new, (old_at, old_line, new_at, new_line))
        matches.append((old_line, new_line, 1))
        old_at, new_at = old_line + 1, new_line + 1
    matches += _matches_between(old, new, (old_at, old_end, new_at, new_end))
    if tail:
        matches.append((old_end, new_end, tail))
    return matches


def _equal_ends(old: Sequence[str], new: Sequence[str], stretch: Stretch) -> tuple[int, int]:
    """How many lines the two sides of a stretch share at their start, and then at
    their end."""
    old_start, old_end, new_start, new_end = stretch
    limit = min(old_end - old_start, new_end - new_start)
    head = 0
    while head < limit and old[old_start + head] == new[new_start + head]:
        head += 1
    tail = 0
    while tail < limit - head and old[old_end - 1 - tail] == new[new_end - 1 - tail]:
        tail += 1
    return head, tail


def _matches_between(old: Sequence[str], new: Sequence[str], stretch: Stretch) -> list[Match]:
    """The runs of equal lines in a stretch between two unique lines: the lines it
    starts and ends with on both sides, then difflib's runs in what is left."""
    old_start, old_end, new_start, new_end = stretch
    head, tail = _equal_ends(old, new, stretch)
    matches: list[Match] = [(old_start, new_start, head)] if head else []
    matches += _matches_within(
        old, new, (old_start + head, old_end - tail, new_start + head, new_end - tail)
    )
    if tail:
        matches.append((old_end - tail, new_end - tail, tail))
    return matches


def _unique_in_order(
    old: Sequence[str], new: Sequence[str], start: int, old_end: int, new_end: int
) -> list[tuple[int, int]]:
    """The lines that each side holds once between `start` and its end, as (old
    line, new line) pairs: the longest run of them in the same order on both sides."""
    in_old = _once(old, start, old_end)
    in_new = _once(new, start, new_end)
    pairs = [(line, in_new[text]) for text, line in in_old.items() if text in in_new]
    pairs.sort()
    return _longest_increasing(pairs)


def _once(lines: Sequence[str], start: int, end: int) -> dict[str, int]:
    """Each line found once between `start` and `end`, with its index."""
    seen: dict[str, int] = {}
    twice: set[str] = set()
    for index in range(start, end):
        line = lines[index]
        if line in seen:
            twice.add(line)
        else:
            seen[line] = index
    for line in twice:
        del seen[line]
    return seen


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of `pairs` (sorted by old line) whose new lines rise too."""
    tails: list[int] = []  # the new line ending the best run of each length
    tail_at: list[int] = []  # and that pair's index
    before: list[int] = []  # each pair's predecessor in its run (-1: none)
    for index, (_, new_line) in enumerate(pairs):
        length = bisect_left(tails, new_line)
        if length == len(tails):
            tails.append(new_line)
            tail_at.append(index)
        else:
            tails[length] = new_line
            tail_at[length] = index
        before.append(tail_at[length - 1] if length else -1)
    run: list[tuple[int, int]] = []
    index = tail_at[-1] if tail_at else -1
    while index >= 0:
        run.append(pairs[index])
        index = before[index]
    run.reverse()
    return run


def _matches_within(old: Sequence[str], new: Sequence[str], stretch: Stretch) -> list[Match]:
    """The runs of equal lines difflib's matcher finds in one stretch."""
    old_start, old_end, new_start, new_end = stretch
    if old_start == old_end or new_start == new_end:
        return []
    from difflib import SequenceMatcher

    matcher = SequenceMatcher(None, old[old_start:old_end], new[new_start:new_end])
    return [
        (old_start + i, new_start + j, size) for i, j, size in matcher.get_matching_blocks() if size
    ]


def _joined(matches: list[Match]) -> list[Match]:
    """Runs that follow one another on both sides, as one run."""
    joined: list[Match] = []
    for old_line, new_line, size in matches:
        if joined:
            last_old, last_new, last_size = joined[-1]
            if last_old + last_size == old_line and last_new + last_size == new_line:
                joined[-1] = (last_old, last_new, last_size + size)
                continue
        joined.append((old_line, new_line, size))
    return joined


def _to_opcodes(matches: list[Match], old_length: int, new_length: int) -> list[Opcode]:
    """Equal runs and what lies between them, as difflib names them."""
    opcodes: list[Opcode] = []
    old_at = new_at = 0
    for old_line, new_line, size in [*matches, (old_length, new_length, 0)]:
        if old_at < old_line and new_at < new_line:
            opcodes.append(("replace", old_at, old_line, new_at, new_line))
        elif old_at < old_line:
            opcodes.append(("delete", old_at, old_line, new_at, new_line))
        elif new_at < new_line:
            opcodes.append(("insert", old_at, old_line, new_at, new_line))
        if size:
            opcodes.append(("equal", old_line, old_line + size, new_line, new_line + size))
        old_at, new_at = old_line + size, new_line + size
    return opcodes


def _hunks(opcodes: list[Opcode]) -> Iterator[list[Opcode]]:
    """The opcodes in hunks: each change with up to `CONTEXT` equal lines around it,
    changes whose contexts would touch in one hunk."""
    if not any(tag != "equal" for tag, *_ in opcodes):
        return
    codes = list(opcodes)
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = (tag, max(i1, i2 - CONTEXT), i2, max(j1, j2 - CONTEXT), j2)
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = (tag, i1, min(i2, i1 + CONTEXT), j1, min(j2, j1 + CONTEXT))
    hunk: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * CONTEXT:
            hunk.append((tag, i1, i1 + CONTEXT, j1, j1 + CONTEXT))
            yield hunk
            hunk = []
            i1, j1 = i2 - CONTEXT, j2 - CONTEXT
        hunk.append((tag, i1, i2, j1, j2))
    if hunk and not (len(hunk) == 1 and hunk[0][0] == "equal"):
        yield hunk


def _hunk_text(hunk: list[Opcode], old: Sequence[str], new: Sequence[str]) -> list[str]:
    first, last = hunk[0], hunk[-1]
    out = [f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"]
    for tag, i1, i2, j1, j2 in hunk:
        if tag == "equal":
            out += [" " + line for line in old[i1:i2]]
            continue
        out += ["-" + line for line in old[i1:i2]]
        out += ["+" + line for line in new[j1:j2]]
    return out


def _range(start: int, stop: int) -> str:
    """A hunk side's range as unified diffs write it: 1-based start, then the count
    when it is not 1 (an empty side names the line before it)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"
