"""The tools lsp-edit offers a model, defined once: names, descriptions written for
the model that calls them, and JSON schemas of their arguments.

`lsp-edit mcp` serves every one of them to an agent (docs/mcp.md); `lspEdit.ask`
offers the editing ones its session's edit mode accepts to the model it asks
(docs/ask.md, `lsp_edit.blocks.tool_calls.tools_for_mode`). A call of an editing tool
becomes the blocks it stands for in `lsp_edit.blocks.tool_calls`.

Plain data and words, with no MCP, LSP or HTTP types: `lsp_edit.mcp.stdio` turns them
into the SDK's, the providers into a chat request's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsp_edit.values import value


@value
class Tool:
    """A tool: `schema` is the JSON schema of its arguments; a `read_only` one
    changes no file."""

    name: str
    title: str
    description: str
    schema: dict[str, Any]
    read_only: bool = False


_PATH = {
    "type": "string",
    "description": "The file, relative to the workspace root, e.g. `src/shop/cart.py`.",
}
_AST_PATH = {
    "type": "string",
    "description": "The symbol's AST path: the names of its enclosing definitions and its "
    "own, outermost first, joined by `-`, e.g. `Cart-total` for method `total` of class "
    "`Cart`, `parse_args` for a top-level function, as a file's symbols list them (the "
    "`symbols` tool, or the outline sent with the file).",
}
_CONTENT = {
    "type": "string",
    "description": "The code, as it should read in the file. Indentation is adjusted to "
    "the symbol's own.",
}
_WAIT = {
    "type": "boolean",
    "description": "When the edit goes to the user's review in their editor: true waits "
    "until the user accepted or rejected every change of this call and returns their "
    "decision; false returns at once, saying which changes are pending. Default: false, "
    "unless the server was started to wait. Ignored when the edit is written to disk.",
}
_LINES = {"type": "array", "items": {"type": "string"}}
_NUMBERED = "`read` numbers a file's lines, or as the file was sent to you numbered"


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_RESULT = (
    " Returns what happened to the change, in the words of a review summary: applied (or "
    "pending review in the user's editor, with its id), or not applied and why (the symbol "
    "does not exist, the path names several symbols, ...), so you can correct the call."
)

_ROUTES = (
    "Edits go to the user's review when their editor runs lsp-edit for this workspace: each "
    "becomes a pending change the user accepts or rejects. Otherwise they are written to "
    "disk, all or nothing."
)

# The arguments of replacing a symbol and of inserting code next to it
_SYMBOL_EDIT = _object(
    {"path": _PATH, "ast_path": _AST_PATH, "content": _CONTENT, "wait": _WAIT},
    ["path", "ast_path", "content"],
)

TOOLS: tuple[Tool, ...] = (
    Tool(
        "symbols",
        "List a file's symbols",
        "List the symbols of a source file: each class, function, method, etc. with its AST "
        "path, kind and 1-based line range (first and last line, inclusive). Call this before "
        "editing a file, to address code by symbol instead of reading the whole file. Supports "
        "Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, C# and Ruby.",
        _object({"path": _PATH}, ["path"]),
        read_only=True,
    ),
    Tool(
        "read",
        "Read a symbol or lines",
        "Read the lines of one symbol (give `ast_path`) or of a line range (give `start_line` "
        "and `end_line`, 1-based, inclusive), each line prefixed with its 1-based line number "
        "and a tab. With neither, reads the file from its start (at most 2,000 lines per "
        "call). Line numbers are those `delete_lines` and `insert_lines` take; the prefixes "
        "are not part of the code.",
        _object(
            {
                "path": _PATH,
                "ast_path": _AST_PATH,
                "start_line": {"type": "integer", "minimum": 1, "description": "First line."},
                "end_line": {"type": "integer", "minimum": 1, "description": "Last line."},
            },
            ["path"],
        ),
        read_only=True,
    ),
    Tool(
        "replace_symbol",
        "Replace a symbol",
        "Replace a whole symbol (function, method, class, ...) with new code: `content` is "
        "its complete new definition, from its first line (decorators, doc comment, signature) "
        "to its last. Give a comment or decorator in `content` to replace the old ones; "
        "without them the old ones are kept. " + _ROUTES + _RESULT,
        _SYMBOL_EDIT,
    ),
    Tool(
        "insert_before_symbol",
        "Insert code before a symbol",
        "Insert new code (one or more definitions, or other lines) right before a symbol, "
        "separated from it as the file separates definitions. " + _ROUTES + _RESULT,
        _SYMBOL_EDIT,
    ),
    Tool(
        "insert_after_symbol",
        "Insert code after a symbol",
        "Insert new code (one or more definitions) right after a symbol, e.g. a new method "
        "after `Cart-add`, separated from it as the file separates definitions. "
        + _ROUTES
        + _RESULT,
        _SYMBOL_EDIT,
    ),
    Tool(
        "remove_symbol",
        "Remove a symbol",
        "Remove a symbol with its decorators and the comments attached above it. "
        + _ROUTES
        + _RESULT,
        _object({"path": _PATH, "ast_path": _AST_PATH, "wait": _WAIT}, ["path", "ast_path"]),
    ),
    Tool(
        "chunk_diff",
        "Edit inside a symbol",
        "Change a few lines inside one symbol without rewriting it: each chunk gives "
        "`old_lines` (the lines to replace, exactly as they are), `new_lines` (what replaces "
        "them; empty to delete) and a line or two of unchanged `context_before` / "
        "`context_after` so the place is unique. Lines carry no line endings; trailing "
        "whitespace is ignored when comparing. All chunks apply, or none. A chunk that fits "
        "nowhere, or at several places, is refused with the lines that differ. "
        + _ROUTES
        + _RESULT,
        _object(
            {
                "path": _PATH,
                "ast_path": _AST_PATH,
                "chunks": {
                    "type": "array",
                    "minItems": 1,
                    "items": _object(
                        {
                            "context_before": {
                                **_LINES,
                                "description": "Unchanged lines just above the change.",
                            },
                            "old_lines": {
                                **_LINES,
                                "description": "The lines replaced (empty: an insertion).",
                            },
                            "new_lines": {
                                **_LINES,
                                "description": "The lines that replace them (empty: a deletion).",
                            },
                            "context_after": {
                                **_LINES,
                                "description": "Unchanged lines just below the change.",
                            },
                        },
                        ["old_lines", "new_lines"],
                    ),
                },
                "wait": _WAIT,
            },
            ["path", "ast_path", "chunks"],
        ),
    ),
    Tool(
        "delete_lines",
        "Delete lines",
        "Delete whole lines `start_line` to `end_line` (1-based, inclusive), numbered as "
        + _NUMBERED
        + ". To replace lines, delete them, then `insert_lines` before the line "
        "that followed them. " + _ROUTES + _RESULT,
        _object(
            {
                "path": _PATH,
                "start_line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer", "minimum": 1},
                "wait": _WAIT,
            },
            ["path", "start_line", "end_line"],
        ),
    ),
    Tool(
        "insert_lines",
        "Insert lines",
        "Insert whole lines before or after line `line` (1-based, numbered as "
        + _NUMBERED
        + "). `content` is the lines to insert, each ending with a newline. In an empty file use "
        "line 1. " + _ROUTES + _RESULT,
        _object(
            {
                "path": _PATH,
                "line": {"type": "integer", "minimum": 1},
                "position": {"type": "string", "enum": ["before", "after"]},
                "content": {"type": "string", "description": "The lines to insert."},
                "wait": _WAIT,
            },
            ["path", "line", "position", "content"],
        ),
    ),
    Tool(
        "propose_reply",
        "Propose edits written as a reply",
        "Apply the edit blocks of a reply written as text: SEARCH/REPLACE blocks, fenced "
        "blocks addressed by AST path (```python:Cart-total) or line range (```python:12:15), "
        "whole files, unified diffs, V4A patches (*** Begin Patch) or JSON operations, any "
        "number, in any order, each after the path of its file on its own line. Use it for "
        "several edits at once, new files, or formats the other tools do not cover. "
        + _ROUTES
        + " Returns what happened to each block, in a review summary's words.",
        _object(
            {
                "text": {"type": "string", "description": "The reply holding the edit blocks."},
                "path": {
                    "type": "string",
                    "description": "The file blocks that name no file go to (optional).",
                },
                "mode": {
                    "type": "string",
                    "enum": ["auto", "ast_path", "line_numbers", "complete_file"],
                    "description": "How fenced blocks are read (default: the server's, auto).",
                },
                "wait": _WAIT,
            },
            ["text"],
        ),
    ),
    Tool(
        "instructions",
        "How to write edit blocks",
        "The instructions for writing the edit blocks `propose_reply` reads, for one edit "
        "mode: `ast_path` (fenced blocks addressed by symbol), `line_numbers` (by line "
        "range) or `complete_file` (whole files).",
        _object(
            {
                "mode": {
                    "type": "string",
                    "enum": ["auto", "ast_path", "line_numbers", "complete_file"],
                    "description": "The edit mode (default ast_path).",
                }
            },
            [],
        ),
        read_only=True,
    ),
    Tool(
        "review_status",
        "Where proposed changes stand",
        "Where the changes you proposed for the user's review stand: pending, accepted "
        "(applied), rejected, or stale (the user changed the lines meanwhile; propose it "
        "again), with a review summary. Without `ids`, every change this server proposed.",
        _object(
            {"ids": {**_LINES, "description": "Change ids, as the edit tools returned them."}},
            [],
        ),
        read_only=True,
    ),
)

SERVER_INSTRUCTIONS = (
    "lsp-edit edits source files by symbol. Call `symbols` to list a file's symbols (AST "
    "paths such as `Cart-total`), `read` to read one, then `replace_symbol`, "
    "`insert_before_symbol`, `insert_after_symbol`, `remove_symbol` or `chunk_diff` to "
    "change it; `delete_lines` and `insert_lines` for lines; `propose_reply` for several "
    "edits written as text. Paths are relative to the workspace root. When the user's editor "
    "runs lsp-edit, edits become pending changes the user accepts or rejects there: a "
    "result says which are pending, and `review_status` (or `wait: true`) tells their "
    "decision. A refused edit says why; correct it and call again."
)


# --- what an editing call's result says of the user's review ------------------------------
# (the rest of a result is a review summary's words: `lsp-edit apply`'s, or the editor's)


def pending_note(pending: Sequence[tuple[str, str]], told_by: str) -> str:
    """The line after a summary whose changes wait for the user's review: each change
    as (id, description); `told_by` is how the model learns the user's decision."""
    return (
        f"Pending in the user's editor: {_changes(pending)}. The user accepts or rejects "
        f"each there; {told_by} tells what they decided."
    )


def undecided_note(pending: Sequence[tuple[str, str]], timeout: float, told_by: str) -> str:
    """The line before the summary of a call that waited for the user's decision in vain."""
    return (
        f"The user has not decided on {_changes(pending)} within {timeout:g} s; {told_by} "
        "tells what they decide."
    )


def _changes(changes: Sequence[tuple[str, str]]) -> str:
    one = "change" if len(changes) == 1 else "changes"
    return f"{one} " + ", ".join(f"{change_id} ({described})" for change_id, described in changes)
