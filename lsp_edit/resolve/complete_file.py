"""Placing a whole-file block (a bare ` ```python ` fence): the content is the file.

A missing file is created. Otherwise only lines that change are edited (kept
lines stay byte-identical, with their endings), and a placeholder such as
`// ... existing code ...` never deletes the rest of the file: it is filled with
the original lines it stands for, or the block is refused (`elision_ambiguous`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lsp_edit.resolve.diffing import minimal_edits
from lsp_edit.resolve.elision import expand_elisions, placeholders_in
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.text import LineEdit, Text

STRATEGY = "complete_file"


def resolve_complete_file(content: Sequence[str], text: Text | None) -> Resolution:
    """`text` None means the file does not exist yet."""
    if text is None:
        return Placed((LineEdit(0, 0, tuple(content)),), STRATEGY)
    original = text.lines
    literal = {line.strip() for line in original}
    expanded = expand_elisions(original, content, placeholders_in(content, literal))
    if isinstance(expanded, Refused):
        return expanded
    new = list(expanded.lines)
    if new == original:
        return AlreadyApplied("The file already has this content.")
    return Placed(minimal_edits(original, new), STRATEGY, expanded.notes)
