"""Placing a fenced line-range block (` ```python:45:67 `): content replaces lines.

Ranges are 1-based, start inclusive, end exclusive (seed 000); `start == end`
inserts before line `start`, and `start` may be one past the last line to append.
Every line-range block of one reply refers to the document as it was before the
reply: `shift_line_target` maps such a range through the edits the reply's
earlier blocks already made, or refuses it when it overlaps them.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsp_edit.blocks.model import LineRangeTarget
from lsp_edit.resolve.diffing import minimal_edits
from lsp_edit.resolve.elision import expand_elisions, placeholders_in
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.text import LineEdit, Text


def resolve_line_range(target: LineRangeTarget, content: Sequence[str], text: Text) -> Resolution:
    """Replaces lines `target.start`..`target.end` (end exclusive) with `content`."""
    problem = _check(target, text.line_count)
    if problem is not None:
        return problem
    start, end = target.start - 1, target.end - 1
    region = text.lines[start:end]
    literal = {line.strip() for line in region}
    expanded = expand_elisions(region, content, placeholders_in(content, literal), target.start)
    if isinstance(expanded, Refused):
        return expanded
    new = list(expanded.lines)
    if new == region:
        if start == end:
            return AlreadyApplied("The block inserts no lines.")
        return AlreadyApplied(f"{_span(target)} this content already.")
    return Placed(minimal_edits(region, new, start), "line_range", expanded.notes)


def _check(target: LineRangeTarget, line_count: int) -> Refused | None:
    start, end = target.start, target.end
    if start < 1 or end < start:
        return Refused(
            "invalid_line_range",
            f"The line range {start}:{end} is not valid: lines are 1-based and the end "
            "(exclusive) may not be before the start.",
        )
    if end > line_count + 1:
        return Refused(
            "line_out_of_range",
            f"Lines {start}-{end} are outside the file, which has {line_count} lines.",
        )
    return None


def _span(target: LineRangeTarget) -> str:
    if target.end - target.start == 1:
        return f"Line {target.start} holds"
    return f"Lines {target.start}-{target.end - 1} hold"


def shift_line_target(
    target: LineRangeTarget, applied: Sequence[Sequence[LineEdit]]
) -> LineRangeTarget | Refused:
    """Maps a range written against the document before the reply through the
    edits already applied, batch by batch (each batch against the document its
    block saw, as `Placed.edits` are).

    An edit that changed a line inside the range, or that sits strictly inside an
    insertion point, makes the range meaningless: `overlapping_line_range`. Edits
    that end at or before the start shift it; an insertion exactly at the start
    of a range goes before it.
    """
    start, end = target.start - 1, target.end - 1
    for batch in applied:
        shift = 0
        for edit in batch:
            overlaps = edit.start < end and start < edit.end
            splits_point = start == end and edit.start < start < edit.end
            if overlaps or splits_point:
                return Refused(
                    "overlapping_line_range",
                    f"Lines {target.start}-{target.end} overlap lines an earlier block of this "
                    "reply already changed; line numbers refer to the file before the reply, "
                    "so write this change as part of the earlier one or with SEARCH/REPLACE.",
                )
            if edit.end <= start:
                shift += edit.delta
        start += shift
        end += shift
    return LineRangeTarget(start + 1, end + 1)
