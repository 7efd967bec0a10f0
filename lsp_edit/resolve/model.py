"""What placing one block in a document gives: exact line edits, or a refusal.

Refusals are values: a block that does not match is an expected result, with a
stable `code` (clients and tests rely on it) and a message the LLM can act on.
"""

from __future__ import annotations

from lsp_edit.text import LineEdit
from lsp_edit.values import value


@value
class Placed:
    """The block lands here. `edits` are against the text the block was resolved
    against, sorted and non-overlapping. `strategy` names how it was found
    (`exact`, `trailing_whitespace`, `indentation`, `blank_edges`, `unicode_punctuation`,
    `line_range`, `ast_path`, `line_operation`, `complete_file`, `chunk_diff`, ...).
    `notes` say anything the user should know (elided lines filled in, ...).
    `final_newline` overrides whether the result ends with a newline; None keeps
    the document's (only line operations, whose content decides, set it).
    """

    edits: tuple[LineEdit, ...]
    strategy: str
    notes: tuple[str, ...] = ()
    final_newline: bool | None = None


@value
class AlreadyApplied:
    """The block's result is already in the document; nothing to do."""

    message: str


@value
class Refused:
    """The block cannot be placed safely.

    Codes: `not_found`, `ambiguous`, `old_lines_mismatch`, `indentation_mismatch`,
    `elision_ambiguous`, `invalid_line_range`, `line_out_of_range`,
    `overlapping_line_range`, `invalid_operation`, `symbol_not_found`,
    `symbol_ambiguous`, `unsupported_language`, `language_mismatch`, `chunk_validation_failed`,
    `overlapping_chunks`, `mode_mismatch`, `file_not_found`, `file_exists`,
    `binary_file`, `not_utf8`, `io_error`, `outside_workspace`, `truncated_file`,
    `not_whole_file`.

    `lines` are the lines of the document the refusal is about, as 1-based inclusive
    (first, last) pairs in the text the block was placed against, most relevant
    first: the places an ambiguous block matches, the lines most like the text not
    found, the symbol a chunk diff did not fit, ... (empty: none in particular).
    """

    code: str
    message: str
    lines: tuple[tuple[int, int], ...] = ()


Resolution = Placed | AlreadyApplied | Refused
