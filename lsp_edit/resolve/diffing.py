"""Turns "these lines become those lines" into the smallest line edits.

Lines equal on both sides are kept (not rewritten), so an edit shown to the user,
or sent to the editor, touches only what really changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from lsp_edit.text import LineEdit


def minimal_edits(old: Sequence[str], new: Sequence[str], offset: int = 0) -> tuple[LineEdit, ...]:
    """The edits that turn `old` into `new`, with line indices shifted by `offset`
    (the 0-based line where `old` starts in the document)."""
    if list(old) == list(new):
        return ()
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    edits = [
        LineEdit(offset + i1, offset + i2, tuple(new[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    return tuple(edits)
