"""Reading the file path an LLM writes on the line before a block.

LLMs decorate that line in many ways: `src/x.py`, `**src/x.py**`, `` `src/x.py` ``,
`# File: src/x.py`, `File: src/x.py`, `src/x.py:`. `clean_path_line` removes the
decoration; `looks_like_path` decides whether a cleaned line is a path at all
(for fenced blocks, where the line before is often prose like "Here is the fix:").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^#{1,6}\s+")
_LABEL = re.compile(r"^[*_]*(?:file|filename|file name|filepath|path)\s*:[*_]*\s*", re.IGNORECASE)
_EXTENSION = re.compile(r"\.[A-Za-z0-9_+-]+$")
_QUOTES = "\"'"
_DECORATED = "#*_`\"'"  # first characters of the decorations removed below
_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class PathLine:
    """A cleaned path line: `quoted` when the whole path was in backticks or
    quotes, where spaces are part of the path rather than a sign of prose."""

    path: str
    quoted: bool


def clean_path(line: str) -> str:
    """`clean_path_line(line).path`."""
    text = line.strip()
    if text[:1] not in _DECORATED and text[-1:] != ":" and _LABEL.match(text) is None:
        return text  # nothing to remove (`clean_path_line` would agree)
    return clean_path_line(line).path


def clean_path_line(line: str) -> PathLine:
    """Strips the decoration around a path; the result may be empty."""
    text = line.strip()
    if text[:1] not in _DECORATED and text[-1:] != ":" and _LABEL.match(text) is None:
        return PathLine(text, False)  # nothing to remove (the loop below would agree)
    quoted = False
    for _ in range(8):
        before = text
        text = _HEADING.sub("", text, count=1)
        text = _LABEL.sub("", text, count=1)
        text = text.rstrip(":").rstrip()
        if len(text) >= 4 and text.startswith("**") and text.endswith("**"):
            text = text[2:-2].strip()
        elif text.startswith("`") and text.endswith("`"):
            text = text.strip("`").strip()
            quoted = True
        elif len(text) >= 2 and text[0] in _QUOTES and text[-1] == text[0]:
            text = text[1:-1].strip()
            quoted = True
        if text == before:
            break
    return PathLine(text, quoted)


def looks_like_path(line: PathLine) -> bool:
    """A path has a `/` (or `\\`) or ends in a `.ext`, and no spaces unless quoted."""
    text = line.path
    if not text or "://" in text:
        return False
    if not line.quoted and _SPACE.search(text):
        return False
    if "/" in text or "\\" in text:
        return True
    return _EXTENSION.search(text) is not None


def path_for_fence(line_before: str | None) -> str | None:
    """The path a fenced block names on its nearest non-blank line before, if that
    line looks like a path."""
    if line_before is None:
        return None
    cleaned = clean_path_line(line_before)
    return cleaned.path if looks_like_path(cleaned) else None
