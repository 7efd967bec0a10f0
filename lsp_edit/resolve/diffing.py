"""Turns "these lines become those lines" into the smallest line edits.

Lines equal on both sides are kept (not rewritten), so an edit shown to the user,
or sent to the editor, touches only what really changes.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from lsp_edit.text import LineEdit

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from difflib import SequenceMatcher


def sequence_matcher(
    old: Sequence[Hashable], new: Sequence[Hashable], *, autojunk: bool = False
) -> SequenceMatcher[Hashable]:
    """difflib's matcher of two sequences. difflib is imported by the first block that
    needs it: one found as written, with one line replaced, never does."""
    from difflib import SequenceMatcher

    return SequenceMatcher(None, old, new, autojunk=autojunk)


def minimal_edits(old: Sequence[str], new: Sequence[str], offset: int = 0) -> tuple[LineEdit, ...]:
    """The edits that turn `old` into `new`, with line indices shifted by `offset`
    (the 0-based line where `old` starts in the document)."""
    if list(old) == list(new):
        return ()
    if len(old) <= 1 and len(new) <= 1:
        # one line replaced, written or removed: the one edit the matcher would give
        return (LineEdit(offset, offset + len(old), tuple(new)),)
    edits = [
        LineEdit(offset + i1, offset + i2, tuple(new[j1:j2]))
        for tag, i1, i2, j1, j2 in line_opcodes(old, new)
        if tag != "equal"
    ]
    return tuple(edits)


Opcodes = Sequence[tuple[str, int, int, int, int]]


def line_opcodes(old: Sequence[str], new: Sequence[str]) -> Opcodes:
    """`SequenceMatcher(None, old, new, autojunk=False).get_opcodes()`, without the
    matcher when one line is replaced by a line found nowhere else on either side
    (most edits): then the lines around it are all that can be kept, and they are
    kept where they are, as the matcher would keep them."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    if len(old) - prefix - suffix != 1 or len(new) - prefix - suffix != 1:
        return sequence_matcher(old, new).get_opcodes()
    removed, written = old[prefix], new[prefix]
    if removed in new or written in old:
        return sequence_matcher(old, new).get_opcodes()
    opcodes: list[tuple[str, int, int, int, int]] = []
    if prefix:
        opcodes.append(("equal", 0, prefix, 0, prefix))
    opcodes.append(("replace", prefix, prefix + 1, prefix, prefix + 1))
    if suffix:
        opcodes.append(("equal", prefix + 1, len(old), prefix + 1, len(new)))
    return opcodes
