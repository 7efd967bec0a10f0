"""The lines that open a block, shared by the parsers that must recognise another
format's opener (a fence that wraps blocks, a block that was never closed).

Every marker must be the whole line once stripped: `x <<<<<<< SEARCH` is content.
"""

from __future__ import annotations

import re

from lsp_edit.patterns import LazyPattern

# 5-9 `<`, the word optional; more `<` only with the word (a bare long run of `<`
# is more likely text than a marker)
SEARCH_OPENER = r"(?i:<{5,9}(?:[ \t]*SEARCH)?|<{10,}[ \t]*SEARCH)"
EDIT_OPENER = r"«««[ \t]*EDIT"
BEGIN_PATCH = r"(?i:\*\*\*[ \t]*Begin Patch)"
"""The openers as patterns, for the reader that finds the next block (`stream.py`)."""

_SEARCH_OPENER = LazyPattern(SEARCH_OPENER)
_EDIT_OPENER = LazyPattern(EDIT_OPENER)
_BEGIN_PATCH = LazyPattern(BEGIN_PATCH)
PATCH_FILE_HEADER = LazyPattern(
    r"\*\*\*[ \t]*(Update|Add|Delete)[ \t]+File[ \t]*:(.*)", re.IGNORECASE
)


def is_search_opener(stripped: str) -> bool:
    """`<<<<<<< SEARCH` (5-9 `<`, the word optional; 10 or more with the word)."""
    return stripped.startswith("<<<<<") and _SEARCH_OPENER.fullmatch(stripped) is not None


def is_edit_opener(stripped: str) -> bool:
    """`««« EDIT`."""
    return stripped.startswith("«««") and _EDIT_OPENER.fullmatch(stripped) is not None


def is_patch_opener(stripped: str) -> bool:
    """`*** Begin Patch`."""
    return stripped.startswith("***") and _BEGIN_PATCH.fullmatch(stripped) is not None


def is_patch_file_header(stripped: str) -> bool:
    """`*** Update File: path` (or `Add`, `Delete`): a patch that left out its
    `*** Begin Patch` starts there."""
    return stripped.startswith("***") and PATCH_FILE_HEADER.fullmatch(stripped) is not None


def is_block_opener(stripped: str) -> bool:
    """`<<<<<<< SEARCH`, `««« EDIT` or `*** Begin Patch`."""
    return is_search_opener(stripped) or is_edit_opener(stripped) or is_patch_opener(stripped)
