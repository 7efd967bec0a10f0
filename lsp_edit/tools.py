"""The edit operations as tools a model calls: their schemas, each call as the block
it stands for, and what goes back to the model about it. No LSP types here.

One definition for every front door that offers tools: `lspEdit.ask` offers them to
the model it asks, and an MCP server offers the same ones to an agent. A call
becomes the reply text of its block (`call_as_block`): a ```` ```json ```` operation
(`chunk_diff`, `delete_lines`, `insert_lines`, docs/formats.md) or an AST path fence
(`ast_path_edit`), which the parser reads like any block a model writes, so a call
becomes a pending change exactly as a block does. `tool_result` is the answer sent
back for it: pending review, applied, or refused with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from lsp_edit.values import field, value

CHUNK_DIFF = "chunk_diff"
DELETE_LINES = "delete_lines"
INSERT_LINES = "insert_lines"
AST_PATH_EDIT = "ast_path_edit"
AST_ACTIONS = ("replace", "before", "after", "remove")


@value
class Tool:
    """A tool: its name, what it does, and its arguments as a JSON Schema object."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(compare=False)


@value
class ToolRefusal:
    """A call that stands for no block (its arguments are not a JSON object, the tool
    is unknown...), with the reason the model reads."""

    message: str


_LINES = {
    "description": "Lines of the file, indentation included: a string, or a list of lines",
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
}
_PATH = {
    "type": "string",
    "description": "The file's path, relative to the workspace folder",
}

TOOLS: tuple[Tool, ...] = (
    Tool(
        CHUNK_DIFF,
        "Edit lines inside one definition (function, method, class), found by its AST path "
        "or by a line inside it. Each chunk gives the exact old lines, the new lines, and a "
        "few unchanged lines around them; chunks apply together or not at all.",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "symbol": {
                    "type": "string",
                    "description": "The definition's AST path: enclosing names joined by '-', "
                    "outermost first (Client-chat)",
                },
                "line": {"type": "integer", "description": "A 1-based line inside it"},
                "chunks": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "context_before": _LINES,
                            "old_lines": _LINES,
                            "new_lines": _LINES,
                            "context_after": _LINES,
                        },
                        "required": ["old_lines", "new_lines"],
                    },
                },
            },
            "required": ["path", "chunks"],
        },
    ),
    Tool(
        DELETE_LINES,
        "Delete lines start_line..end_line (1-based, inclusive) of a file, as numbered in the "
        "file you were shown.",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "start_line": {"type": "integer"},
                "end_line": {"type": "integer"},
            },
            "required": ["path", "start_line", "end_line"],
        },
    ),
    Tool(
        INSERT_LINES,
        "Insert text before or after line `line` (1-based) of a file, as numbered in the file "
        "you were shown. End `content` with a newline to insert whole lines.",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "line": {"type": "integer"},
                "position": {"type": "string", "enum": ["before", "after"]},
                "content": {"type": "string"},
            },
            "required": ["path", "line", "position", "content"],
        },
    ),
    Tool(
        AST_PATH_EDIT,
        "Replace a whole definition found by its AST path (enclosing names joined by '-', "
        "outermost first: Client-chat), insert new code before or after it, or remove it.",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "symbol": {"type": "string", "description": "The AST path: Client-chat"},
                "action": {"type": "string", "enum": list(AST_ACTIONS)},
                "content": {
                    "type": "string",
                    "description": "The new definition (replace) or the code to insert; "
                    "empty to remove",
                },
            },
            "required": ["path", "symbol", "action"],
        },
    ),
)


def tools_for_mode(mode: str) -> tuple[Tool, ...]:
    """The tools a session in this edit mode may use: AST path edits only where AST
    paths are allowed (a session does not mix formats)."""
    if mode in ("auto", "ast_path"):
        return TOOLS
    return tuple(t for t in TOOLS if t.name != AST_PATH_EDIT)


def call_as_block(name: str, arguments: str | Mapping[str, Any]) -> str | ToolRefusal:
    """The reply text a call stands for, ending in a newline: the block lsp-edit's
    parser reads as this edit."""
    known = {t.name for t in TOOLS}
    if name not in known:
        return ToolRefusal(f"Unknown tool {name!r}; the tools are {', '.join(sorted(known))}.")
    if isinstance(arguments, str):
        try:
            loaded = json.loads(arguments) if arguments.strip() else {}
        except ValueError as error:
            return ToolRefusal(f"The arguments of {name} are not valid JSON: {error}.")
    else:
        loaded = dict(arguments)
    if not isinstance(loaded, dict):
        return ToolRefusal(f"The arguments of {name} must be a JSON object.")
    if name == AST_PATH_EDIT:
        return _ast_path_block(loaded)
    operation = {"op": name, **{k: v for k, v in loaded.items() if k != "op"}}
    return "```json\n" + json.dumps(operation, indent=2, ensure_ascii=False) + "\n```\n"


def _ast_path_block(arguments: dict[str, Any]) -> str | ToolRefusal:
    from lsp_edit.symbols import language_for

    path, symbol = arguments.get("path"), arguments.get("symbol")
    action = arguments.get("action", "replace")
    content = arguments.get("content", "")
    if not isinstance(path, str) or not path.strip():
        return ToolRefusal(f'{AST_PATH_EDIT} needs "path", the file to edit.')
    if not isinstance(symbol, str) or not symbol.strip() or any(c.isspace() for c in symbol):
        return ToolRefusal(f'{AST_PATH_EDIT} needs "symbol", an AST path such as Client-chat.')
    if action not in AST_ACTIONS:
        return ToolRefusal(f'{AST_PATH_EDIT}: "action" must be one of {", ".join(AST_ACTIONS)}.')
    if not isinstance(content, str):
        return ToolRefusal(f'{AST_PATH_EDIT}: "content" must be a string.')
    language = language_for(path.strip())
    if language is None:
        return ToolRefusal(
            f"{AST_PATH_EDIT} works on source files of a supported language; {path} is not one."
        )
    tag = f"{language}:{symbol.strip()}" + ("" if action == "replace" else f":{action}")
    lines = content.splitlines() if action != "remove" else []
    fence = "`" * max(3, 1 + _longest_fence(lines))
    body = "".join(line + "\n" for line in lines)
    return f"{path.strip()}\n{fence}{tag}\n{body}{fence}\n"


def _longest_fence(lines: Sequence[str]) -> int:
    longest = 0
    for line in lines:
        stripped = line.lstrip()
        run = len(stripped) - len(stripped.lstrip("`"))
        longest = max(longest, run)
    return longest


@value
class ToolOutcome:
    """What became of one change a call made: its state (`pending`, `applied`,
    `failed`, `rejected`...), the file, its lines (1-based, inclusive) and why it
    failed."""

    status: str
    description: str
    file: str | None = None
    lines: tuple[int, int] | None = None
    message: str | None = None
    change_id: str | None = None


def tool_result(outcomes: Sequence[ToolOutcome] | ToolRefusal) -> str:
    """The tool message for a call: what the model reads about its edit."""
    if isinstance(outcomes, ToolRefusal):
        return f"refused: {outcomes.message}"
    if not outcomes:
        return "refused: the call made no edit."
    return "\n".join(_one_result(o) for o in outcomes)


def _one_result(outcome: ToolOutcome) -> str:
    where = f" in {outcome.file}" if outcome.file else ""
    if outcome.lines is not None:
        where += f" (lines {outcome.lines[0]}-{outcome.lines[1]})"
    if outcome.status == "pending":
        return (
            f"pending: {outcome.description}{where} waits for the user's review; it is not "
            "applied yet, so do not send it again."
        )
    if outcome.status == "applied":
        return f"applied: {outcome.description}{where}."
    if outcome.status == "rejected":
        return f"rejected by the user: {outcome.description}{where}."
    reason = outcome.message or "no reason given"
    return f"refused: {outcome.description}{where}: {reason}"
