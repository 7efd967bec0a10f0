"""Edit blocks from the tool calls of an agent (`lsp-edit mcp`, docs/mcp.md).

Each editing tool is one of the blocks a reply can hold, so a tool call is placed,
refused and summarised exactly as the same edit written in a reply:

    replace_symbol, insert_before_symbol,    a fenced AST path edit (`FencedEdit` with
    insert_after_symbol, remove_symbol       an `AstTarget`: replace, before, after, remove)
    chunk_diff, delete_lines, insert_lines   the JSON operations (`ChunkDiff`, `DeleteLines`,
                                             `InsertLines`), read as `parse_operations` reads them
    propose_reply                            every block of the reply text

Arguments are checked here, shape and type only; whether a symbol or a line exists
is checked when the block is placed. A bad call is a `BadCall` that says what to
send instead, in words for the model that made it.
"""

from __future__ import annotations

from lsp_edit.blocks.fence import TagError, parse_fence_tag
from lsp_edit.blocks.model import AstTarget, FencedEdit, ParseProblem, ReplyItem, ReplySpan
from lsp_edit.text import split_content
from lsp_edit.values import value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from collections.abc import Mapping

MODES = ("auto", "ast_path", "line_numbers", "complete_file")

# What each symbol tool does at its AST path
SYMBOL_ACTIONS = {
    "replace_symbol": "replace",
    "insert_before_symbol": "before",
    "insert_after_symbol": "after",
    "remove_symbol": "remove",
}
OPERATION_TOOLS = ("chunk_diff", "delete_lines", "insert_lines")

# The arguments each editing tool takes (`wait` is read by the caller, not here)
ARGUMENTS: dict[str, tuple[str, ...]] = {
    "replace_symbol": ("path", "ast_path", "content", "wait"),
    "insert_before_symbol": ("path", "ast_path", "content", "wait"),
    "insert_after_symbol": ("path", "ast_path", "content", "wait"),
    "remove_symbol": ("path", "ast_path", "wait"),
    "chunk_diff": ("path", "ast_path", "chunks", "wait"),
    "delete_lines": ("path", "start_line", "end_line", "wait"),
    "insert_lines": ("path", "line", "position", "content", "wait"),
    "propose_reply": ("text", "path", "mode", "wait"),
}
EDIT_TOOLS = tuple(ARGUMENTS)


@value
class EditCall:
    """The blocks of one tool call, and how to place them: `target` is the file blocks
    that name none go to, `mode` the edit mode the call asks for (None: the server's),
    `reply` the reply text of `propose_reply`."""

    tool: str
    items: tuple[ReplyItem, ...]
    target: str | None = None
    mode: str | None = None
    reply: str | None = None


@value
class BadCall:
    """Why a tool call cannot be read, with what to send instead."""

    message: str


def edit_call(tool: str, arguments: Mapping[str, object]) -> EditCall | BadCall:
    """The blocks of a call of an editing tool (one of `EDIT_TOOLS`)."""
    allowed = ARGUMENTS.get(tool)
    if allowed is None:
        return BadCall(f"`{tool}` is not an editing tool; use one of {', '.join(EDIT_TOOLS)}.")
    unknown = sorted(set(arguments) - set(allowed))
    if unknown:
        names = ", ".join(f"`{name}`" for name in unknown)
        return BadCall(f"{tool}: unknown argument {names}; it takes {', '.join(allowed)}.")
    if tool == "propose_reply":
        return _reply(arguments)
    path = _text(tool, arguments, "path")
    if isinstance(path, BadCall):
        return path
    if tool in SYMBOL_ACTIONS:
        return _symbol_edit(tool, path, arguments)
    return _operation(tool, path, arguments)


def _symbol_edit(tool: str, path: str, arguments: Mapping[str, object]) -> EditCall | BadCall:
    action = SYMBOL_ACTIONS[tool]
    ast_path = _text(tool, arguments, "ast_path")
    if isinstance(ast_path, BadCall):
        return ast_path
    lines: tuple[str, ...] = ()
    if action != "remove":
        content = arguments.get("content")
        if not isinstance(content, str):
            return BadCall(f"{tool}: `content` must be a string (the code), got {_kind(content)}.")
        lines = tuple(split_content(content))
        if not any(line.strip() for line in lines):
            instead = "give code"
            if action == "replace":
                instead = "call remove_symbol to delete a symbol"
            return BadCall(f"{tool}: `content` is empty; {instead}.")
    target = ast_target(tool, path, ast_path, action)
    if isinstance(target, BadCall):
        return target
    language = _extension(path)
    suffix = "" if action == "replace" else f":{action}"
    block = FencedEdit(
        ReplySpan(1, max(1, len(lines))),
        path,
        language,
        f"{language}:{ast_path}{suffix}",
        target,
        lines,
    )
    return EditCall(tool, (block,))


def ast_target(tool: str, path: str, ast_path: str, action: str) -> AstTarget | BadCall:
    """The AST path as the fence tag `lang:Path:action` reads it."""
    bad = BadCall(
        f"{tool}: `ast_path` {ast_path!r} is not an AST path; write the names of the "
        "enclosing definitions and the symbol joined by `-`, outermost first, such as "
        f"`Cart-total` (the `symbols` tool lists the paths of `{path}`)."
    )
    if any(space in ast_path for space in " \t\r\n") or ":" in ast_path.replace("::", ""):
        return bad
    suffix = "" if action == "replace" else f":{action}"
    parsed = parse_fence_tag(f"{_extension(path)}:{ast_path}{suffix}")
    if isinstance(parsed, TagError) or not isinstance(parsed[1], AstTarget):
        return bad
    return parsed[1]


def _operation(tool: str, path: str, arguments: Mapping[str, object]) -> EditCall | BadCall:
    from lsp_edit.blocks.operations import operations_from_value

    operation: dict[str, object] = {"op": tool, "path": path}
    for name, given in arguments.items():
        if name in ("path", "wait"):
            continue
        operation["symbol" if name == "ast_path" else name] = given
    if tool == "chunk_diff" and "symbol" not in operation:
        return BadCall(f"{tool}: `ast_path` is missing (the symbol the chunks are in).")
    (item,) = operations_from_value(operation, ReplySpan(1, 1))
    if isinstance(item, ParseProblem):
        # Say it in the tool's words: the JSON key `symbol` is its `ast_path`.
        return BadCall(item.message.replace('"symbol"', "`ast_path`"))
    return EditCall(tool, (item,))


def _reply(arguments: Mapping[str, object]) -> EditCall | BadCall:
    from lsp_edit.blocks.stream import parse_reply

    text = arguments.get("text")
    if not isinstance(text, str):
        return BadCall(f"propose_reply: `text` must be a string (the reply), got {_kind(text)}.")
    target = arguments.get("path")
    if target is not None and (not isinstance(target, str) or not target.strip()):
        return BadCall(f"propose_reply: `path` must be a file path, got {_kind(target)}.")
    mode = arguments.get("mode")
    if mode is not None and mode not in MODES:
        return BadCall(f"propose_reply: `mode` must be one of {', '.join(MODES)}; got {mode!r}.")
    return EditCall(
        "propose_reply",
        tuple(parse_reply(text)),
        target=target.strip() if isinstance(target, str) else None,
        mode=mode if isinstance(mode, str) else None,
        reply=text,
    )


def _text(tool: str, arguments: Mapping[str, object], name: str) -> str | BadCall:
    given = arguments.get(name)
    if not isinstance(given, str) or not given.strip():
        return BadCall(f"{tool}: `{name}` must be a non-empty string, got {_kind(given)}.")
    return given.strip()


def _extension(path: str) -> str:
    """The fence language of a path: its extension (`py`), which names its language
    as a fence tag does; `text` for a file without one."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, extension = name.rpartition(".")
    return extension.lower() if dot and stem and extension else "text"


def _kind(given: object) -> str:
    if given is None:
        return "nothing"
    if isinstance(given, str):
        return "an empty string" if not given.strip() else "a string"
    if isinstance(given, bool):
        return "a boolean"
    if isinstance(given, int | float):
        return "a number"
    if isinstance(given, list):
        return "a list"
    if isinstance(given, dict):
        return "an object"
    return type(given).__name__
