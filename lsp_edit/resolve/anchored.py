"""Placing anchored text: SEARCH/REPLACE, common-prefix `««« EDIT`, V4A and unified diffs.

A block's hunks are placed in order, each on the result of the one before; the
block is atomic, so one hunk that cannot be placed refuses the whole block (`Hunk
2 of 3: ...`). Each hunk's old lines are found with the ladder (ladder.py): the
first strategy with any match decides, and it must match once, or a hint line
must pick one match that is nearer than every other. The new lines are written in
the file's form: lines the hunk keeps stay byte-identical, changed lines are
re-indented like the match, and placeholders (`# ... existing code ...`) in
SEARCH/REPLACE and `««« EDIT` blocks are filled from the original (in diffs and
patches every `+` line is literal). The result is the smallest set of line edits
against the text the block was given.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from lsp_edit.blocks.model import AnchoredEdit, AnchoredFormat, Hunk
from lsp_edit.patterns import LazyPattern
from lsp_edit.resolve.diffing import Opcodes, line_opcodes, minimal_edits, sequence_matcher
from lsp_edit.resolve.elision import expand_elisions, is_placeholder, placeholders_in
from lsp_edit.resolve.ladder import (
    LADDER,
    SAME_INDENT,
    STRATEGIES,
    LineIndex,
    Match,
    Reindent,
    Strategy,
    Window,
    blank_edge_counts,
    candidate_windows,
    detect_reindent,
    find_with,
    index_following,
    index_for,
    ladder_rank,
    leading_whitespace,
    most_similar,
    search,
    text_similarity,
)
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.text import Draft, LineEdit, Text
from lsp_edit.values import record, replace, value

_NOUN: dict[AnchoredFormat, str] = {
    "search_replace": "SEARCH text",
    "common_prefix": "EDIT text",
    "v4a": "patch hunk",
    "unified_diff": "diff hunk",
}
_QUOTED_LINES = 10
# Diffs and patches: every `+` line is a line of the result, so `...` there is
# Python's Ellipsis (a stub body), never a placeholder for elided code; and a hunk
# whose context lines are indented unevenly may still be placed by its removed lines.
_PATCH_FORMATS: frozenset[AnchoredFormat] = frozenset({"v4a", "unified_diff"})
CONTEXT_INDENTATION = "context_indentation"
"""A patch hunk whose context lines are indented differently from the file, each in
its own way, while its removed lines match (found after the whole ladder failed)."""
_CONTEXT_KEYS = Strategy(
    CONTEXT_INDENTATION, STRATEGIES["indentation"].key, reindent=False, blank_edges=False
)


def resolve_anchored(block: AnchoredEdit, text: Text | Draft) -> Resolution:
    """Places every hunk of `block` in `text`, or refuses the whole block."""
    if block.splits:
        return _resolve_split(block, text)
    return _resolve(block, text)


def _resolve_split(block: AnchoredEdit, text: Text | Draft) -> Resolution:
    """A SEARCH/REPLACE block with more than one `=======` line: read at the divider
    whose SEARCH half is found in the file. The longest such half wins, since each
    shorter reading's SEARCH text is a prefix of it (a heading underline inside the
    SEARCH text is found with the lines around it)."""
    first = block.hunks[0]
    readings = sorted((first, *block.splits), key=lambda hunk: -len(hunk.old_lines))
    index = index_for(text)
    chosen = next(
        (hunk for hunk in readings if hunk.old_lines and search(index, hunk.old_lines)), first
    )
    resolution = _resolve(replace(block, hunks=(chosen,), splits=()), text)
    count = len(block.splits) + 1
    if isinstance(resolution, Refused) and resolution.code == "not_found":
        return Refused(
            resolution.code,
            f"{resolution.message}\nThe block has {count} `=======` lines, and no way of "
            "splitting it at one gives SEARCH text found in the file.",
            resolution.lines,
        )
    if chosen is not first and isinstance(resolution, Placed):
        note = (
            f"The block has {count} `=======` lines; the one after its first "
            f"{len(chosen.old_lines)} lines was read as the divider, the one whose SEARCH "
            "text is in the file."
        )
        return replace(resolution, notes=(*resolution.notes, note))
    return resolution


def _resolve(block: AnchoredEdit, text: Text | Draft) -> Resolution:
    if len(block.hunks) == 1:
        placed = _placed_as_written(block, block.hunks[0], text)
        if placed is not None:
            return placed
    composer = _Composer(text.lines)
    total = len(block.hunks)
    if total > _HUNKS_SCANNED:
        composer.sought = {line for hunk in block.hunks for line in _lines_of(hunk)}
    strategies: list[str] = []
    notes: list[str] = []
    already: list[str] = []
    final_newline: bool | None = None
    for number, hunk in enumerate(block.hunks, start=1):
        index = composer.index(text)
        outcome = _place_hunk(hunk, _Context(block, index, composer))
        label = f"Hunk {number} of {total}: " if total > 1 else ""
        if isinstance(outcome, Refused):
            return replace(outcome, message=label + outcome.message)
        if isinstance(outcome, AlreadyApplied):
            already.append(label + outcome.message)
            if hunk.final_newline is not None and _ends_file(hunk.old_lines, composer.current):
                final_newline = hunk.final_newline
            continue
        composer.replace(outcome.start, outcome.end, outcome.lines, outcome.origins)
        strategies.append(outcome.strategy)
        if outcome.notes:
            notes.extend(label + note for note in outcome.notes)
        ends_file = outcome.start + len(outcome.lines) == composer.length and outcome.lines
        if ends_file and hunk.final_newline is not None:
            # `\ No newline at end of file` speaks of the file's end: only a hunk placed
            # there. A hunk without it says nothing of the final newline (V4A cannot say
            # it at all), so the file keeps its own.
            final_newline = hunk.final_newline
    edits = composer.edits()
    if text.lines and final_newline == text.final_newline:
        final_newline = None
    if not edits and final_newline is None:
        if already:
            return AlreadyApplied(" ".join(already))
        return AlreadyApplied("The block changes nothing: its old and new lines are the same.")
    loosest = _loosest(strategies)
    if total > 1:
        notes.extend(already)
    if final_newline is not None:
        notes.append(
            "The file now ends with a newline"
            if final_newline
            else "The file now ends without a newline, as `\\ No newline at end of file` says"
        )
    return Placed(edits, loosest, tuple(notes), final_newline)


# A block of more hunks has the lines they look for found in one pass, once the
# first hunk is placed, rather than each hunk scan the lines (a pass costs a few
# scans).
_HUNKS_SCANNED = 4


def _lines_of(hunk: Hunk) -> tuple[str, ...]:
    """The lines placing a hunk may look for: its old lines, and its new ones (to
    tell whether it is already applied)."""
    return hunk.old_lines + hunk.new_lines


def sought_lines(blocks: Sequence[AnchoredEdit]) -> set[str]:
    """The lines placing these blocks may look for (`Draft.sought`)."""
    hunks = (hunk for block in blocks for hunk in (*block.hunks, *block.splits))
    return {line for hunk in hunks for line in _lines_of(hunk)}


def _placed_as_written(block: AnchoredEdit, hunk: Hunk, text: Text | Draft) -> Placed | None:
    """Most blocks: one hunk whose old lines are in the file once, as written, not
    at its end, and whose new lines fill in no placeholder, placed as `_resolve`
    places it without following hunk after hunk; None for any other block."""
    if hunk.scope or not hunk.old_lines or hunk.old_lines == hunk.new_lines:
        return None
    old, new = list(hunk.old_lines), list(hunk.new_lines)
    index = index_for(text)
    lines = index.lines
    if _new_holds_old(old, new) or (block.format not in _PATCH_FORMATS and _holds_any(new)):
        return None
    found = find_with(index, old, LADDER[0], ((0, len(lines)),))
    if len(found) != 1 or found[0].end == len(lines):
        return None  # not found once, or ending the file (whose newline the hunk may set)
    start, end = found[0].start, found[0].end
    pairing = _pairing(hunk.ops, old, new, old, new)
    mapped = _file_form(lines[start:end], new, pairing, SAME_INDENT, set(), first=start)
    assert not isinstance(mapped, int)  # the indentation is the same: every line maps
    edits = _edits_around_kept(text.lines, start, end, *mapped)
    if not edits:
        return None  # the diff's line kinds kept what it writes: the general path says so
    return Placed(tuple(edits), LADDER[0].name)


def _ends_file(old: Sequence[str], current: Sequence[str]) -> bool:
    """Whether the file ends with these lines (a hunk already applied at the end)."""
    return bool(old) and len(old) <= len(current) and list(current[-len(old) :]) == list(old)


@value
class _Replacement:
    """Current lines `start`..`end` become `lines` (all in the file's form)."""

    start: int
    end: int
    lines: tuple[str, ...]
    strategy: str
    notes: tuple[str, ...]
    # per line, the current line it keeps (None: a new line); empty: unknown
    origins: tuple[int | None, ...] = ()


@value
class _Context:
    block: AnchoredEdit
    index: LineIndex
    composer: _Composer

    @property
    def noun(self) -> str:
        return _NOUN[self.block.format]

    @property
    def where(self) -> str:
        return f"`{self.block.path}`" if self.block.path else "the file"

    def line(self, current: int) -> int:
        """The 1-based line in the original document for a current 0-based index."""
        return self.composer.to_original(current) + 1

    def lines(self, start: int, end: int) -> str:
        """`line 4` or `lines 4-9`, for current lines `start`..`end` (end exclusive)."""
        first, last = self.span(start, end)
        return f"line {first}" if first >= last else f"lines {first}-{last}"

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The 1-based first and last original lines of current lines `start`..`end`
        (end exclusive; the one line at `start` when there are none)."""
        first = self.line(start)
        return first, max(first, self.line(end - 1)) if end > start else first


def _place_hunk(hunk: Hunk, ctx: _Context) -> _Replacement | AlreadyApplied | Refused:
    old, new = list(hunk.old_lines), list(hunk.new_lines)
    lines = ctx.index.lines
    windows: list[Window] = [(0, len(lines))]
    if hunk.scope:
        scoped = _scope_windows(hunk.scope, ctx)
        if isinstance(scoped, Refused):
            return scoped
        windows = scoped
    if not old:
        return _insert_without_context(hunk, new, windows, ctx)
    matches = search(ctx.index, old, windows)
    if hunk.scope and not matches:
        # the scope's block is found by indentation; a hunk may still sit just below it
        matches = search(ctx.index, old, [(lo, len(lines)) for lo, _ in windows])
    if not matches and ctx.block.format in _PATCH_FORMATS:
        matches = _context_reindented(old, new, ctx.index, windows)
    if not matches:
        numbered = _without_line_numbers(hunk)
        if numbered is not None and ctx.block.format == "search_replace":
            placed = _place_hunk(numbered, ctx)
            if isinstance(placed, _Replacement):
                note = (
                    "Its SEARCH lines carried line numbers (`12 | `); they were read without them"
                )
                return replace(placed, notes=(*placed.notes, note))
            return placed
        return _not_found(hunk, old, new, windows, ctx)
    if hunk.at_end and len(matches) > 1:
        # `*** End of File`: of several matches, the one that ends the file
        last = [match for match in matches if not any(map(str.strip, lines[match.end :]))]
        matches = last or matches
    if old == new:
        return AlreadyApplied("The hunk changes nothing: its old and new lines are the same.")
    covered = _covered_by_new(old, new, matches, windows, ctx)
    if covered and len(covered) == len(matches):
        return _already(next(iter(covered.values())), ctx)
    chosen = _choose(matches, hunk.hint_line, ctx)
    if isinstance(chosen, Refused):
        return chosen
    match, hint_note = chosen
    if covered and match in covered:
        return _already(covered[match], ctx)
    return _replacement(match, old, new, ctx, hint_note, hunk.ops)


_LINE_NUMBER = LazyPattern(r"\s*(\d+) ?\|(?: |$)")  # only for a block not found


def _without_line_numbers(hunk: Hunk) -> Hunk | None:
    """The hunk with the `12 | ` prefixes a file view puts before each line taken off
    its old lines (and its new lines, when they all carry them), when every old line
    carries one and they count up one by one; None otherwise."""
    numbers = [_LINE_NUMBER.match(line) for line in hunk.old_lines]
    if not all(numbers):
        return None
    counted = [int(found.group(1)) for found in numbers if found]
    if counted != list(range(counted[0], counted[0] + len(counted))):
        return None
    old = tuple(
        line[found.end() :] for line, found in zip(hunk.old_lines, numbers, strict=True) if found
    )
    new = hunk.new_lines
    prefixes = [_LINE_NUMBER.match(line) for line in new]
    if new and all(prefixes):
        new = tuple(line[found.end() :] for line, found in zip(new, prefixes, strict=True) if found)
    return replace(hunk, old_lines=old, new_lines=new, ops="")


def _loosest(strategies: list[str]) -> str:
    """The loosest of the strategies that placed a block's hunks."""
    if len(strategies) == 1:
        return strategies[0]
    return max(strategies, key=_rank) if strategies else "exact"


def _rank(strategy: str) -> int:
    return len(LADDER) if strategy == CONTEXT_INDENTATION else ladder_rank(strategy)


def _context_reindented(
    old: list[str], new: list[str], index: LineIndex, windows: list[Window]
) -> list[Match]:
    """Where the hunk's lines match once stripped, its removed lines (the old lines
    that are not context) are indented like the file's by one transform, and only
    its context lines differ otherwise: the context is kept as the file has it and
    the added lines get the removed lines' transform."""
    kept: set[int] = set()
    for block in sequence_matcher(old, new).get_matching_blocks():
        kept.update(range(block.a, block.a + block.size))
    removed = [offset for offset in range(len(old)) if offset not in kept and old[offset].strip()]
    if not removed:
        return []
    found = []
    for match in find_with(index, old, _CONTEXT_KEYS, windows):
        file_lines = [index.lines[match.start + offset] for offset in removed]
        reindent = detect_reindent([old[offset] for offset in removed], file_lines)
        if reindent is not None:
            found.append(replace(match, reindent=reindent))
    return found


def _replacement(
    match: Match, old: list[str], new: list[str], ctx: _Context, hint_note: str | None, ops: str
) -> _Replacement | Refused:
    core_old, core_new = _cores(match, old, new)
    region = list(ctx.index.lines[match.start : match.end])
    placeholders = _placeholders(core_new, core_old, ctx)
    pairing = _pairing(ops, old, new, core_old, core_new)
    mapped = _file_form(
        region, core_new, pairing, match.reindent, set(placeholders), first=match.start
    )
    if isinstance(mapped, int):
        return _cannot_reindent(match, core_new[mapped], ctx)
    lines, kept = mapped
    notes = _strategy_notes(match, ctx)
    if hint_note:
        notes.append(hint_note)
    if not placeholders:
        return _Replacement(
            match.start, match.end, tuple(lines), match.strategy, tuple(notes), tuple(kept)
        )
    expanded = expand_elisions(region, lines, placeholders, ctx.line(match.start))
    if isinstance(expanded, Refused):
        return expanded
    notes.extend(expanded.notes)
    return _Replacement(match.start, match.end, expanded.lines, match.strategy, tuple(notes))


def _cores(match: Match, old: list[str], new: list[str]) -> tuple[list[str], list[str]]:
    """The old lines the match holds, and the new lines without the blank lines at
    their edges that the match left out of the old ones (as far as they have them)."""
    if not match.lead and not match.trail:
        return old, new
    new_lead, new_trail = blank_edge_counts(new)
    drop_lead = min(match.lead, new_lead)
    drop_trail = min(match.trail, new_trail, len(new) - drop_lead)
    return old[match.lead : len(old) - match.trail], new[drop_lead : len(new) - drop_trail]


def _placeholders(new: list[str], old: list[str], ctx: _Context) -> list[int]:
    """The new lines that stand for elided code; none in diffs and patches."""
    if ctx.block.format in _PATCH_FORMATS or not _holds_any(new):
        return []
    return placeholders_in(new, {line.strip() for line in old})


def _holds_any(new: list[str]) -> bool:
    """Whether any of the new lines looks like a placeholder."""
    return any(map(is_placeholder, new))


def _pairing(
    ops: str, old: list[str], new: list[str], core_old: list[str], core_new: list[str]
) -> Opcodes:
    """Which old lines the new ones keep. A diff says which lines it keeps: a
    repeated kept line is that copy, not another."""
    if len(core_old) == len(old) and len(core_new) == len(new):
        spelled = _opcodes(ops, core_old, core_new)
        if spelled is not None:
            return spelled
    return line_opcodes(core_old, core_new)


def _cannot_reindent(match: Match, line: str, ctx: _Context) -> Refused:
    return Refused(
        "indentation_mismatch",
        f"The {ctx.noun} matches {ctx.lines(match.start, match.end)} "
        f"with other indentation ({match.reindent.describe()}), but its new line "
        f"`{line.strip()}` is indented in a way that cannot be carried over. "
        "Write the block with the file's exact indentation.",
        (ctx.span(match.start, match.end),),
    )


def _opcodes(ops: str, old: Sequence[str], new: Sequence[str]) -> Opcodes | None:
    """The pairing of old and new lines a diff's line kinds spell out; None when
    there are none or they do not fit the lines."""
    if not ops or ops.count("+") + ops.count(" ") != len(new):
        return None
    if ops.count("-") + ops.count(" ") != len(old):
        return None
    codes: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for op in ops:
        tag, di, dj = {" ": ("equal", 1, 1), "-": ("delete", 1, 0), "+": ("insert", 0, 1)}[op]
        if codes and codes[-1][0] == tag:
            _, i1, _, j1, _ = codes[-1]
            codes[-1] = (tag, i1, i + di, j1, j + dj)
        else:
            codes.append((tag, i, i + di, j, j + dj))
        i, j = i + di, j + dj
    return codes


def _file_form(
    region: Sequence[str],
    new: Sequence[str],
    pairing: Opcodes,
    reindent: Reindent,
    placeholders: set[int],
    first: int,
) -> tuple[list[str], list[int | None]] | int:
    """`new` as the file will hold it: lines paired with an old line are the file's
    line (byte-identical), changed lines re-indented; with, per line, the current
    line it keeps (None for a changed line), `region` being current lines from
    `first` on. An int is the index of a new line whose indentation cannot be mapped."""
    out: list[str] = []
    kept: list[int | None] = []
    for tag, i1, i2, j1, j2 in pairing:
        if tag == "equal":
            out.extend(region[i1:i2])
            kept.extend(range(first + i1, first + i2))
            continue
        for j in range(j1, j2):
            kept.append(None)
            if j in placeholders:
                out.append(new[j])
                continue
            line = reindent.line(new[j])
            if line is None:
                return j
            out.append(line)
    return out, kept


def _strategy_notes(match: Match, ctx: _Context) -> list[str]:
    if match.strategy == "exact":
        return []
    where = ctx.lines(match.start, match.end)
    what = {
        "trailing_whitespace": "trailing whitespace",
        "indentation": "indentation",
        "blank_edges": "indentation and blank lines at its edges",
        "unicode_punctuation": "typographic quotes, dashes and spaces",
        CONTEXT_INDENTATION: "the indentation of its context lines",
    }.get(match.strategy, match.strategy)
    note = f"Matched {where} ignoring {what}"
    if match.reindent.kind != "same":
        note += f"; {match.reindent.describe()}, so changed lines were re-indented"
    return [note]


def _choose(
    matches: list[Match], hint_line: int | None, ctx: _Context
) -> tuple[Match, str | None] | Refused:
    """The one match, or the one nearest the hint when it is strictly nearest."""
    if len(matches) == 1:
        return matches[0], None
    starts = [ctx.line(m.start) for m in matches]
    if hint_line is not None:
        hint = ctx.composer.to_current(hint_line - 1)
        distances = [abs(m.start - hint) for m in matches]
        nearest = min(distances)
        if distances.count(nearest) == 1:
            chosen = matches[distances.index(nearest)]
            return chosen, (
                f"The {ctx.noun} matches lines {_and(starts)}; chose line "
                f"{ctx.line(chosen.start)}, nearest to the hint line {hint_line}"
            )
    if ctx.block.format == "common_prefix":
        message = f"Edit location is ambiguous (matches at lines {_and(starts)})"
    else:
        message = f"The {ctx.noun} matches {len(matches)} places (lines {_and(starts)})"
    return Refused(
        "ambiguous",
        message + "; add surrounding lines to make it unique.",
        tuple(ctx.span(m.start, m.end) for m in matches),
    )


def _covered_by_new(
    old: list[str], new: list[str], matches: list[Match], windows: list[Window], ctx: _Context
) -> dict[Match, Match]:
    """When the old lines are part of the new ones (a hunk that only adds lines
    around its context), each old match that lies inside a match of the new lines,
    with that match: there, the hunk is already applied."""
    offsets = _old_in_new(old, new)
    if not offsets:
        return {}
    # `blank_edges` finds the new lines without their blank edges: blank lines the
    # hunk adds there were not looked for, and are no evidence that it is applied
    found = [
        covering
        for covering in search(ctx.index, new, windows)
        if any(_edges_are_old(covering, at, len(old), len(new)) for at in offsets)
    ]
    covered = {}
    for match in matches:
        for covering in found:
            if covering.start <= match.start and match.end <= covering.end:
                covered[match] = covering
                break
    return covered


def _edges_are_old(covering: Match, at: int, old: int, new: int) -> bool:
    """Whether the blank lines a match of the new lines left out at its edges are
    old lines (at new lines `at`..`at + old`), not lines the hunk adds."""
    top = covering.lead == 0 or (at == 0 and covering.lead <= old)
    bottom = covering.trail == 0 or (at + old == new and covering.trail <= old)
    return top and bottom


def _edges_not_added(found: Match, old: list[str]) -> bool:
    """Whether the blank lines a match of the new lines left out at its edges were
    at the old lines' edges too: blank lines the block adds were not looked for."""
    lead, trail = blank_edge_counts(old)
    return found.lead <= lead and found.trail <= trail


def _new_holds_old(old: list[str], new: list[str]) -> bool:
    """Whether the new lines hold the old ones among more (whitespace at the edges
    of each line ignored): a hunk that only adds lines around its context."""
    return bool(_old_in_new(old, new))


def _old_in_new(old: list[str], new: list[str]) -> list[int]:
    """Where the old lines stand among more new lines (whitespace at the edges of
    each line ignored); [] when the new lines do not hold them."""
    if len(new) <= len(old):
        return []
    old_keys = [line.strip() for line in old]
    new_keys = [line.strip() for line in new]
    size = len(old_keys)
    return [k for k in range(len(new_keys) - size + 1) if new_keys[k : k + size] == old_keys]


def _already(match: Match, ctx: _Context) -> AlreadyApplied:
    return AlreadyApplied(
        f"The replacement is already in {ctx.where} at {ctx.lines(match.start, match.end)}."
    )


def _insert_without_context(
    hunk: Hunk, new: list[str], windows: list[Window], ctx: _Context
) -> _Replacement | AlreadyApplied | Refused:
    """A hunk with no old lines: a create, a diff insertion at its line, an
    insertion after its V4A scope, or lines appended to the file (V4A)."""
    lines = ctx.index.lines
    if not new:
        return AlreadyApplied("The hunk changes nothing: it has no old and no new lines.")
    if not lines:
        return _Replacement(0, 0, tuple(new), "empty_file", ())
    if hunk.hint_line is not None:
        # a unified diff `@@ -l,0 +m,n @@` inserts after line l (l = 0: at the top)
        count = len(ctx.composer.original)
        if not 0 <= hunk.hint_line <= count:
            return Refused(
                "line_out_of_range",
                f"The {ctx.noun} inserts after line {hunk.hint_line}, but {ctx.where} "
                f"has {count} lines.",
            )
        at = ctx.composer.to_current(hunk.hint_line)
        return _Replacement(at, at, tuple(new), "hint_line", ())
    if hunk.scope and len(windows) == 1:
        at = windows[0][0]
        return _Replacement(at, at, tuple(new), "scope", ())
    if hunk.at_end:
        # `*** End of File` names the place: the end
        return _Replacement(len(lines), len(lines), tuple(new), "end_of_file", ())
    if hunk.scope:
        scope_lines = [ctx.line(lo - 1) for lo, _ in windows]
        return Refused(
            "ambiguous",
            f"The scope `{hunk.scope[-1].strip()}` matches {len(windows)} places "
            f"(lines {_and(scope_lines)}); add more scope or context lines to make it unique.",
            tuple((line, line) for line in scope_lines),
        )
    if ctx.block.format == "v4a":
        # apply_patch's own rule: a hunk of added lines that names no place goes at
        # the end of the file
        at = len(lines)
        return _Replacement(
            at,
            at,
            tuple(new),
            "end_of_file",
            ("Added at the end of the file: the hunk has no context lines",),
        )
    return Refused(
        "not_found",
        f"An empty {ctx.noun} only creates a new file or fills an empty one, and "
        f"{ctx.where} has {len(lines)} lines. To insert lines, put the lines just before "
        "the insertion point in both the old and the new text.",
    )


def _scope_windows(scope: Sequence[str], ctx: _Context) -> list[Window] | Refused:
    """The regions below each V4A `@@` scope line, found in order, each inside the
    previous one's block (its more-indented lines)."""
    lines = ctx.index.lines
    windows: list[Window] = [(0, len(lines))]
    for depth, written in enumerate(scope):
        found: list[Window] = []
        for lo, hi in windows:
            for at in _scope_matches(written, ctx.index, lo, hi):
                found.append((at + 1, _block_end(lines, at, hi)))
        if not found:
            after = f" after `{scope[depth - 1].strip()}`" if depth else ""
            return Refused(
                "not_found",
                f"The scope line `{written.strip()}`{after} was not found in {ctx.where}.",
            )
        windows = sorted(set(found))
    return windows


def _scope_matches(written: str, index: LineIndex, lo: int, hi: int) -> list[int]:
    matches = search(index, [written], [(lo, hi)])
    if matches:
        return [m.start for m in matches]
    # `@@ class Foo` names `class Foo(Base):`: a line that starts with the scope text
    wanted = written.strip()
    if not wanted:
        return []
    found = []
    for at in range(lo, hi):
        line = index.lines[at].strip()
        if line.startswith(wanted) and not line[len(wanted) : len(wanted) + 1].isidentifier():
            found.append(at)
    if not found and "(" in wanted:
        # `@@ async process()` names `async process(input: any) {`: the signature
        # shortened, so the text up to its `(`
        head = wanted[: wanted.index("(") + 1]
        found = [at for at in range(lo, hi) if index.lines[at].strip().startswith(head)]
    return found


def _block_end(lines: Sequence[str], at: int, hi: int) -> int:
    """The end of the block a line opens: the next non-blank line indented no deeper,
    after the brackets the line opens are closed (a signature spread over lines,
    `def attrs(` ... `):`, ends at its closing line, however indented), and outside
    triple-quoted strings (an f-string's lines at column 0 end no block)."""
    depth = len(leading_whitespace(lines[at]))
    start = at + 1
    open_brackets = _bracket_balance(lines[at])
    while open_brackets > 0 and start < hi:
        open_brackets += _bracket_balance(lines[start])
        start += 1
    in_string = False  # inside a triple-quoted string, whose lines may start anywhere
    for end in range(start, hi):
        line = lines[end]
        if not in_string and line.strip() and len(leading_whitespace(line)) <= depth:
            return end
        if '"""' in line or "'''" in line:
            in_string ^= (line.count('"""') + line.count("'''")) % 2 == 1
    return hi


def _bracket_balance(line: str) -> int:
    """How many more brackets the line opens than it closes."""
    return sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")


def _not_found(
    hunk: Hunk, old: list[str], new: list[str], windows: list[Window], ctx: _Context
) -> AlreadyApplied | Refused:
    if new and new != old:
        found = search(ctx.index, new, windows)
        if len(found) == 1 and _edges_not_added(found[0], old):
            if _holds_its_result(old, found[0], windows, ctx):
                return _already(found[0], ctx)
            refused = _why_not_found(hunk, old, new, windows, ctx)
            return Refused(
                refused.code,
                refused.message + _seen_elsewhere(found[0], ctx),
                (*refused.lines, ctx.span(found[0].start, found[0].end)),
            )
    return _why_not_found(hunk, old, new, windows, ctx)


def _why_not_found(
    hunk: Hunk, old: list[str], new: list[str], windows: list[Window], ctx: _Context
) -> Refused:
    if not ctx.index.lines:
        return Refused("not_found", f"The {ctx.noun} was not found: {ctx.where} is empty.")
    if ctx.block.format == "common_prefix":
        anchor = _common_prefix(old, new)
        if anchor and len(anchor) < len(old):
            return _anchor_diagnosis(anchor, old, windows, ctx)
        similar, lines = _similar(old, windows, ctx)
        return Refused("not_found", f"Content sequence not found in {ctx.where}.{similar}", lines)
    scope = f" below `{hunk.scope[-1].strip()}`" if hunk.scope else ""
    similar, lines = _similar(old, windows, ctx)
    return Refused(
        "not_found", f"{_capital(ctx.noun)} not found in {ctx.where}{scope}.{similar}", lines
    )


def _holds_its_result(old: list[str], found: Match, windows: list[Window], ctx: _Context) -> bool:
    """Whether the one place holding the new lines is the block's own place: of
    the places that look like the old lines, it is the one most like them. New
    lines found elsewhere (the same method in another class) are no evidence."""
    place: Window = (found.start, found.end)
    others = [
        (first, last)
        for first, last in candidate_windows(ctx.index, old, windows)
        if last <= place[0] or place[1] <= first
    ]
    if not others:
        return True
    mine = text_similarity(ctx.index, place, old)
    return all(mine > text_similarity(ctx.index, other, old) for other in others)


def _seen_elsewhere(found: Match, ctx: _Context) -> str:
    return (
        f"\nIts replacement text is in {ctx.where} at {ctx.lines(found.start, found.end)}, "
        "but that is not where the "
        f"{ctx.noun} points, so the block is not taken as already applied."
    )


def _anchor_diagnosis(
    anchor: list[str], old: list[str], windows: list[Window], ctx: _Context
) -> Refused:
    """Seed 001's messages: the anchor (common leading lines) missing, ambiguous,
    or found with other lines after it."""
    found = search(ctx.index, anchor, windows)
    if not found:
        similar, nearest = _similar(old, windows, ctx)
        return Refused(
            "not_found",
            f"Anchor not found in {ctx.where}: `{anchor[0].strip()}`"
            f"{' (and the lines after it)' if len(anchor) > 1 else ''} is not there.{similar}",
            nearest,
        )
    if len(found) > 1:
        starts = [ctx.line(m.start) for m in found]
        return Refused(
            "not_found",
            f"Content sequence not found in {ctx.where}: the anchor matches {len(found)} places "
            f"(lines {_and(starts)}), and the old lines follow it at none of them.",
            tuple(ctx.span(m.start, m.end) for m in found),
        )
    match = found[0]
    anchored = ctx.span(match.start, match.end)
    key = STRATEGIES[match.strategy].key
    rest = old[len(anchor) - match.trail :]
    lines = ctx.index.lines
    for offset, expected in enumerate(rest):
        at = match.end + offset
        if at >= len(lines):
            return Refused(
                "old_lines_mismatch",
                f"Old lines don't match content after anchor (anchor at "
                f"{ctx.lines(match.start, match.end)}): the file ends at line "
                f"{ctx.line(len(lines) - 1)}, but `{expected.strip()}` was expected next.",
                (anchored,),
            )
        if key(lines[at]) != key(expected):
            return Refused(
                "old_lines_mismatch",
                f"Old lines don't match content after anchor (anchor at "
                f"{ctx.lines(match.start, match.end)}): line {ctx.line(at)} "
                f"is `{lines[at]}` but the block expects `{expected}`.",
                (ctx.span(at, at + 1), anchored),
            )
    # the anchor and the lines after it match line by line, but not as one block
    return Refused(
        "old_lines_mismatch",
        f"Old lines don't match content after anchor (anchor at line {ctx.line(match.start)}): "
        "their indentation differs from the file's in a way that is not uniform.",
        (anchored,),
    )


def _common_prefix(old: Sequence[str], new: Sequence[str]) -> list[str]:
    prefix = []
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        prefix.append(a)
    return prefix


def _similar(
    old: Sequence[str], windows: list[Window], ctx: _Context
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The sentence naming (and quoting) the lines most like `old`, and those lines."""
    window = most_similar(ctx.index, old, windows)
    if window is None:
        return " None of its lines occur in the file; check the path and the text.", ()
    start, end = window
    quoted = list(ctx.index.lines[start : min(end, start + _QUOTED_LINES)])
    more = "\n..." if end - start > _QUOTED_LINES else ""
    if end - start == 1:
        span = f"line is {ctx.line(start)}"
    else:
        span = f"lines are {ctx.line(start)}-{ctx.line(end - 1)}"
    return f" The most similar {span}:\n" + "\n".join(quoted) + more, (ctx.span(start, end),)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _and(numbers: Sequence[int]) -> str:
    words = [str(n) for n in numbers]
    if len(words) <= 2:
        return " and ".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


@record
class _Dirty:
    """A changed stretch: current lines `cur_start`..`cur_end` stand where original
    lines `orig_start`..`orig_end` were."""

    cur_start: int
    cur_end: int
    orig_start: int
    orig_end: int
    # per current line of the stretch, the original line it is (None: written)
    origins: list[int | None]

    @property
    def delta(self) -> int:
        return (self.cur_end - self.cur_start) - (self.orig_end - self.orig_start)


class _Composer:
    """The text as hunk after hunk changes it, remembering which original lines each
    changed stretch replaced, so the block's edits are given against the original.

    Each changed stretch knows, per line, the original line it is (kept by a hunk)
    or None for a line a hunk wrote: a kept line stays that very line, with its own
    ending, even where an equal line sits next to it. The stretches are kept in
    order, never touching, with their first and last lines and the lines each
    adds, so finding a line's stretch is a bisection: a diff of hundreds of hunks
    costs each hunk what it changes. `log` lists the changes in order (as a
    `Draft`'s does), so the index of the current lines follows them.
    """

    def __init__(self, original: Sequence[str]) -> None:
        # (imported here: `bisect` loads a library of its own, and most blocks are
        # placed without a composer)
        from bisect import bisect_left, bisect_right

        self._bisect_left, self._bisect_right = bisect_left, bisect_right
        self.original = original
        self.dirty: list[_Dirty] = []
        # per stretch: its first and end current line, its first original line, and
        # (one longer) how many lines the stretches before it add
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._original_starts: list[int] = []
        self._added: list[int] = [0]
        self.log: list[tuple[int, int, tuple[str, ...]]] = []
        self._index: LineIndex | None = None
        # the lines the hunks will look for, for a block of many (see `Draft.sought`)
        self.sought: Collection[str] = ()
        # The current lines are copied from the original only when a second hunk
        # needs them: a one-hunk block keeps its change aside (`_first`), so placing
        # it costs what it changes, not the size of the file.
        self._current: list[str] | None = None
        self._first: tuple[int, int, list[str]] | None = None

    @property
    def current(self) -> Sequence[str]:
        if self._first is not None:
            start, end, lines = self._first
            self._current = [*self.original[:start], *lines, *self.original[end:]]
            self._first = None
        return self.original if self._current is None else self._current

    @property
    def lines(self) -> list[str]:
        """The current lines, as a list changed in place from now on."""
        current = self.current
        if not isinstance(current, list):
            current = self._current = list(current)
        return current

    def index(self, text: Text | Draft) -> LineIndex:
        """The index of the text as the hunks so far left it."""
        if not self.dirty:
            return index_for(text)
        if self._index is None:
            self._index = index_following(self)
        return self._index

    @property
    def length(self) -> int:
        """How many lines the text has now."""
        if self._first is not None:
            start, end, lines = self._first
            return len(self.original) + len(lines) - (end - start)
        return len(self.current)

    def _lines(self, start: int, end: int) -> list[str]:
        """Current lines `start`..`end`."""
        if self._first is None:
            return list(self.current[start:end])
        first, last, lines = self._first
        stop = first + len(lines)
        if first <= start and end <= stop:
            return lines[start - first : end - first]  # the changed lines alone
        delta = len(lines) - (last - first)
        return [
            *self.original[start : min(end, first)],
            *lines[max(start, first) - first : max(min(end, stop) - first, 0)],
            *self.original[max(start, stop) - delta : max(end - delta, max(start, stop) - delta)],
        ]

    def _stretch_at(self, current: int) -> tuple[_Dirty | None, int]:
        """The changed stretch holding current line `current`, or None and how many
        lines the stretches above it add."""
        at = self._bisect_right(self._starts, current) - 1
        if at >= 0 and current < self._ends[at]:
            return self.dirty[at], 0
        return None, self._added[at + 1]

    def to_original(self, current: int) -> int:
        region, added = self._stretch_at(current)
        return current - added if region is None else region.orig_start

    def origin_of(self, current: int) -> int | None:
        """The original line a current line is; None for a line a hunk wrote."""
        region, added = self._stretch_at(current)
        if region is None:
            return current - added
        return region.origins[current - region.cur_start]

    def to_current(self, original: int) -> int:
        at = self._bisect_right(self._original_starts, original) - 1
        if at >= 0 and original < self.dirty[at].orig_end:
            return self.dirty[at].cur_start
        return original + self._added[at + 1]

    def replace(
        self, start: int, end: int, lines: Sequence[str], keeps: Sequence[int | None] = ()
    ) -> None:
        """Current lines `start`..`end` become `lines`; `keeps` gives, per line, the
        current line it keeps (None: a new line), when the hunk says so."""
        origins: list[int | None] = (
            [None if k is None else self.origin_of(k) for k in keeps] if self.dirty else list(keeps)
        )
        if len(origins) != len(lines):
            origins = [None] * len(lines)
        if not self.dirty:
            self._first_change(start, end, lines, origins)
            return
        delta = len(lines) - (end - start)
        # the stretches this one overlaps or touches become one with it
        low = self._bisect_left(self._ends, start)
        high = max(self._bisect_right(self._starts, end), low)
        first, last = start, end
        before = self._added[low]
        orig_start = first - before
        orig_end = last - before - (self._added[high] - before)
        if high > low:
            top, bottom = self.dirty[low], self.dirty[high - 1]
            if top.cur_start <= first:
                first, orig_start = top.cur_start, top.orig_start
            if bottom.cur_end >= last:
                last, orig_end = bottom.cur_end, bottom.orig_end
        origins = [
            *(self.origin_of(at) for at in range(first, start)),
            *origins,
            *(self.origin_of(at) for at in range(end, last)),
        ]
        if self._current is None and self._first is None:
            self._first = (start, end, list(lines))
        else:
            self.lines[start:end] = lines
        self.log.append((start, end, tuple(lines)))
        merged = _Dirty(first, last + delta, orig_start, orig_end, origins)
        below = self.dirty[high:]
        for region in below:
            region.cur_start += delta
            region.cur_end += delta
        added = self._added
        shift = merged.delta - (added[high] - added[low])
        added[low + 1 :] = [added[low] + merged.delta, *(n + shift for n in added[high + 1 :])]
        self.dirty[low:high] = [merged]
        self._starts[low:] = [merged.cur_start, *(region.cur_start for region in below)]
        self._ends[low:] = [merged.cur_end, *(region.cur_end for region in below)]
        self._original_starts[low:high] = [orig_start]

    def _first_change(
        self, start: int, end: int, lines: Sequence[str], origins: list[int | None]
    ) -> None:
        """`replace` when nothing is changed yet: the current lines are the original
        ones, so the change is the one stretch, kept aside (most blocks have one hunk)."""
        self._first = (start, end, list(lines))
        self.log.append((start, end, tuple(lines)))
        stretch = _Dirty(start, start + len(lines), start, end, origins)
        self.dirty = [stretch]
        self._starts, self._ends, self._original_starts = [start], [stretch.cur_end], [start]
        self._added = [0, stretch.delta]

    def edits(self) -> tuple[LineEdit, ...]:
        edits: list[LineEdit] = []
        for region in self.dirty:
            edits.extend(self._stretch_edits(region))
        return tuple(edits)

    def _stretch_edits(self, region: _Dirty) -> list[LineEdit]:
        current = self._lines(region.cur_start, region.cur_end)
        return _edits_around_kept(
            self.original, region.orig_start, region.orig_end, current, region.origins
        )


def _edits_around_kept(
    original: Sequence[str],
    start: int,
    end: int,
    lines: Sequence[str],
    origins: Sequence[int | None],
) -> list[LineEdit]:
    """The smallest edits that make original lines `start`..`end` into `lines`,
    keeping each line that `origins` says is an original one (None: a written line)."""
    edits: list[LineEdit] = []
    old_at, new_at = start, 0
    for at, kept in enumerate(origins):
        if kept is None or not old_at <= kept < end:
            continue
        if old_at < kept or new_at < at:  # lines changed before this kept one
            edits.extend(minimal_edits(original[old_at:kept], lines[new_at:at], old_at))
        old_at, new_at = kept + 1, at + 1
    edits.extend(minimal_edits(original[old_at:end], lines[new_at:], old_at))
    return edits
