"""Reading the file path an LLM writes near a block.

LLMs decorate a path line in many ways: `src/x.py`, `**src/x.py**`, `` `src/x.py` ``,
`# File: src/x.py`, `**File: `src/x.py`**`, `File: src/x.py`, `src/x.py:`, or a
comment such as `// src/x.ts` as the first line inside a fence. `clean_path_line`
removes the decoration; `looks_like_path` decides whether a cleaned line is a
path at all (prose like "Here is the fix:" or "Next:" is not). `tag_path` reads a
path carried by a fence tag (```` ```python:app/utils.py ````).
"""

from __future__ import annotations

import re

from lsp_edit.patterns import LazyPattern
from lsp_edit.values import NamedTuple

_HEADING = LazyPattern(r"^#{1,6}\s+")
_LABEL = LazyPattern(r"^[*_]*(?:file|filename|file name|filepath|path)\s*:[*_]*\s*", re.IGNORECASE)
_EXTENSION = LazyPattern(r"\.[A-Za-z0-9_+-]*[A-Za-z][A-Za-z0-9_+-]*$")
_QUOTES = "\"'"
_DECORATED = "#*_`\"'"  # first characters of the decorations removed below
_SPACE = LazyPattern(r"\s")
_LETTER = LazyPattern(r"[A-Za-z]")
_NOT_IN_PATHS = LazyPattern(r'[<>|"?*]')  # markup (`</div>`), globs, shell
# A comment holding only a path: `// src/x.ts`, `<!-- index.html -->`, `/* a.css */`
_COMMENT = LazyPattern(
    r"(?://+|--|;+|#+)\s*(?P<a>\S.*?)\s*|<!--\s*(?P<b>.*?)\s*-->|/\*\s*(?P<c>.*?)\s*\*/"
)
_COMMENT_STARTS = frozenset("/-;#<")  # what a line `_COMMENT` matches starts with
# What a line that names a file holds: a path has a `/`, a backslash or a `.ext`, unless it is
# a well-known name (letters); a comment starts with one of `_COMMENT_STARTS`.
_MAY_NAME_FILE = LazyPattern(r"[/\\.A-Za-z]|^\s*[-;#<]")

LONGEST_PATH = 4096
"""No path a reply names is longer (Linux's PATH_MAX): a longer line is prose."""

# Files that are usually written without an extension.
KNOWN_NAMES = frozenset(
    {
        "Makefile",
        "makefile",
        "GNUmakefile",
        "Dockerfile",
        "Containerfile",
        "Jenkinsfile",
        "Vagrantfile",
        "Procfile",
        "Gemfile",
        "Rakefile",
        "Brewfile",
        "Podfile",
        "Pipfile",
        "Justfile",
        "justfile",
        "Caddyfile",
        "Snakefile",
        "Earthfile",
        "Tiltfile",
        "BUILD",
        "WORKSPACE",
        "LICENSE",
        "LICENCE",
        "COPYING",
        "README",
        "CHANGELOG",
        "AUTHORS",
        "CONTRIBUTORS",
        "NOTICE",
        "CODEOWNERS",
        "VERSION",
        "MANIFEST",
    }
)

# Extensions of source and text files: what tells `python:app/utils.py` (a path)
# from `python:Client.chat` (an AST path).
_SOURCE_EXTENSIONS = """
    py pyi pyx ipynb js jsx mjs cjs ts tsx mts cts vue svelte astro go rs java kt kts scala
    groovy gradle c h cc cpp cxx hpp hh hxx m mm cs fs fsx vb rb erb php swift dart lua r
    jl ex exs erl hrl clj cljs hs ml mli elm zig nim v sv vhd sol pl pm tcl sh bash zsh
    fish ps1 bat cmd sql graphql gql proto thrift html htm css scss sass less xml xsl svg
    json jsonc json5 yaml yml toml ini cfg conf env properties md mdx rst txt adoc tex
    csv tsv lock mod sum tf hcl nix cmake mk dockerfile gitignore editorconfig
"""
SOURCE_EXTENSIONS = frozenset(_SOURCE_EXTENSIONS.split())


class PathLine(NamedTuple):
    """A cleaned path line: `quoted` when the whole path was in backticks or
    quotes, where spaces are part of the path rather than a sign of prose (a tuple:
    one is made for many lines of a reply)."""

    path: str
    quoted: bool


def _has_label(text: str) -> bool:
    """`File: ...` and the like (a label ends in a colon)."""
    return ":" in text and _LABEL.match(text) is not None


def clean_path(line: str) -> str:
    """`clean_path_line(line).path`."""
    text = line.strip().lstrip("\ufeff")
    if text[:1] not in _DECORATED and text[-1:] != ":" and not _has_label(text):
        return text  # nothing to remove (`clean_path_line` would agree)
    return clean_path_line(line).path


def clean_path_line(line: str) -> PathLine:
    """Strips the decoration around a path; the result may be empty."""
    text = line.strip().lstrip("\ufeff")
    if text[:1] not in _DECORATED and text[-1:] != ":" and not _has_label(text):
        return PathLine(text, False)  # nothing to remove (the loop below would agree)
    quoted = False
    for _ in range(8):
        before = text
        text = _HEADING.sub("", text, count=1)
        text = _LABEL.sub("", text, count=1)
        text = text.rstrip(":").rstrip()
        if text.startswith("**") or text.endswith("**"):
            # bold, also around a label and a code span: `**File: `x`**`
            text = text.strip("*").strip()
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
    """A path has a `/` (or `\\`) or ends in a `.ext` or is a well-known name
    (`Makefile`), and has no spaces unless quoted, and none of `<>|"?*`."""
    text = line.path
    if not text or len(text) > LONGEST_PATH or "://" in text or text.startswith(("`", "~~~")):
        return False
    if _NOT_IN_PATHS.search(text):
        return False
    if not line.quoted and _SPACE.search(text):
        return False
    if "/" in text or "\\" in text:
        return True
    return _EXTENSION.search(text) is not None or text in KNOWN_NAMES


def path_or_none(line: str | None) -> str | None:
    """The path a line names, if it looks like a path once cleaned."""
    if line is None:
        return None
    if "/" not in line and "." not in line and "\\" not in line:
        # then only a well-known name is a path (and every one of them is): letters
        if _LETTER.search(line) is None:
            return None
        text = clean_path(line)
        return text if text in KNOWN_NAMES else None
    cleaned = clean_path_line(line)
    return cleaned.path if looks_like_path(cleaned) else None


def file_named_by(line: str) -> str | None:
    """The path a line names, as a path line or as a comment (`path_or_none`, then
    `comment_path`)."""
    if _MAY_NAME_FILE.search(line) is None:
        # one quick search rules most lines out: a reply may hold a million fences
        # of one number each
        return None
    return path_or_none(line) or comment_path(line)


def comment_path(line: str) -> str | None:
    """The path a comment line names (`# app/utils.py`, `// src/x.ts`,
    `<!-- index.html -->`), if it holds nothing else."""
    stripped = line.strip()
    if stripped[:1] not in _COMMENT_STARTS:
        return None
    match = _COMMENT.fullmatch(stripped)
    if match is None:
        return None
    return path_or_none(match["a"] or match["b"] or match["c"] or "")


def tag_path(tag: str) -> str | None:
    """The path a fence tag's tail names (`python:app/utils.py`), or None when the
    tail is an AST path or line range: a path has a `/` and a `.ext` in its last
    part, or ends in a known source extension (`python:utils.py`)."""
    name = tag.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot <= 0 or dot == len(name) - 1:
        return None
    extension = name[dot + 1 :]
    if "/" in tag and _EXTENSION.fullmatch("." + extension):
        return tag
    return tag if extension.lower() in SOURCE_EXTENSIONS else None
