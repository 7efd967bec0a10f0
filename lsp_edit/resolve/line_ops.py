"""Placing the line operations of seed 003: `delete_lines` and `insert_lines`.

Each operation sees the document as the previous one left it. Numbers are
checked against the document here (not when parsed), through `LineNumber` and
`LineRange`, so a bad one becomes a refused change with a reason.

Newline rules (seed 003): deleted lines go with their line endings, and deleting
the last line leaves no stray newline (the file keeps its final newline or lack
of one); deleting every line leaves an empty file. Inserted content always forms
whole lines, before or after a line, and takes the file's line ending; inserting
after a last line without a newline adds one first. When content lands at the
end of the file, its own final newline decides whether the file ends with one.
"""

from __future__ import annotations

from lsp_edit.blocks.model import DeleteLines, InsertLines
from lsp_edit.positions import LineNumber, LineRange, PositionError
from lsp_edit.resolve.model import Placed, Refused, Resolution
from lsp_edit.text import CR, LF, LineEdit, Text, split_content

STRATEGY = "line_operation"


def resolve_line_operation(op: DeleteLines | InsertLines, text: Text) -> Resolution:
    if isinstance(op, DeleteLines):
        return _delete(op, text)
    return _insert(op, text)


def _delete(op: DeleteLines, text: Text) -> Resolution:
    for name, value in (("start_line", op.start_line), ("end_line", op.end_line)):
        if isinstance(value, bool) or not isinstance(value, int):
            return Refused(
                "invalid_operation", f"delete_lines: {name} must be an integer, got {value!r}."
            )
    count = text.line_count
    if count == 0:
        return Refused("line_out_of_range", "delete_lines: the file is empty; no lines to delete.")
    lines = LineRange.of(op.start_line, op.end_line)
    if isinstance(lines, PositionError):
        code = (
            "invalid_operation" if op.start_line >= 1 and op.end_line >= 1 else "line_out_of_range"
        )
        return Refused(code, f"delete_lines: {lines.message} (the file has {count} lines).")
    if lines.end.value > count:
        return Refused(
            "line_out_of_range",
            f"delete_lines: {lines} {'is' if lines.count == 1 else 'are'} past the end of the "
            f"file, which has {count} lines.",
        )
    edit = LineEdit(lines.start.index, lines.end.index + 1, ())
    return Placed((edit,), STRATEGY)


def _insert(op: InsertLines, text: Text) -> Resolution:
    if isinstance(op.line, bool) or not isinstance(op.line, int):
        return Refused(
            "invalid_operation", f"insert_lines: line must be an integer, got {op.line!r}."
        )
    if op.position not in ("before", "after"):
        return Refused(
            "invalid_operation",
            f'insert_lines: position must be "before" or "after", got {op.position!r}.',
        )
    if not isinstance(op.content, str) or not op.content:
        return Refused("invalid_operation", "insert_lines: content is empty; nothing to insert.")
    line = LineNumber.try_create(op.line)
    count = text.line_count
    if isinstance(line, PositionError):
        return Refused(
            "line_out_of_range",
            f'insert_lines: {line.message}; to insert at the top, use line 1 with "before".',
        )
    # an empty file has no line 1, but inserting at line 1 is how it gets content
    if line.value > max(count, 1):
        return Refused(
            "line_out_of_range",
            f"insert_lines: line {line} is past the end of the file, which has {count} lines; "
            f'to append, use line {max(count, 1)} with "after".',
        )
    at = 0 if count == 0 else (line.index if op.position == "before" else line.value)
    new = split_content(op.content)
    final_newline = op.content.endswith((LF, CR)) if at == count else None
    return Placed((LineEdit(at, at, tuple(new)),), STRATEGY, final_newline=final_newline)
