"""Edit blocks from the tool calls of a model: an agent's over `lsp-edit mcp`
(docs/mcp.md), or the model `lspEdit.ask` asks (docs/ask.md). The tools themselves
are `lsp_edit.tools`.

Each editing tool is one of the blocks a reply can hold, so a tool call is placed,
refused and summarised exactly as the same edit written in a reply:

    replace_symbol, insert_before_symbol,    a fenced AST path edit (`FencedEdit` with
    insert_after_symbol, remove_symbol       an `AstTarget`: replace, before, after, remove)
    chunk_diff, delete_lines, insert_lines   the JSON operations (`ChunkDiff`, `DeleteLines`,
                                             `InsertLines`), read as `parse_operations` reads them
    propose_reply                            every block of the reply text

Arguments are checked here, shape and type only; whether a symbol or a line exists
is checked when the block is placed. A bad call is a `BadCall` that says what to
send instead, in words for the model that made it. `call_text` writes a call's
blocks as reply text (what a reply document shows of a call), which the parser
reads back as the same blocks.
"""

from __future__ import annotations

from lsp_edit.blocks.fence import TagError, parse_fence_tag
from lsp_edit.blocks.model import (
    AstTarget,
    ChunkDiff,
    DeleteLines,
    FencedEdit,
    InsertLines,
    ParseProblem,
    ReplyItem,
    ReplySpan,
)
from lsp_edit.text import split_content
from lsp_edit.tools import TOOLS, Tool
from lsp_edit.values import replace, value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

MODES = ("auto", "ast_path", "line_numbers", "complete_file")

# What each symbol tool does at its AST path
SYMBOL_ACTIONS = {
    "replace_symbol": "replace",
    "insert_before_symbol": "before",
    "insert_after_symbol": "after",
    "remove_symbol": "remove",
}

# The arguments each editing tool takes, as its schema names them
ARGUMENTS: dict[str, tuple[str, ...]] = {
    tool.name: tuple(tool.schema["properties"]) for tool in TOOLS if not tool.read_only
}
EDIT_TOOLS = tuple(ARGUMENTS)


def tools_for_mode(mode: str) -> tuple[Tool, ...]:
    """The editing tools a model asked from the editor is offered in a session of
    this edit mode: the AST path edits only where the mode accepts their blocks
    (`auto`, `ast_path`: a session does not mix formats), and no `propose_reply`
    (the model writes its reply's blocks itself)."""
    symbols = mode in ("auto", "ast_path")
    return tuple(
        tool
        for tool in TOOLS
        if tool.name in EDIT_TOOLS
        and tool.name != "propose_reply"
        and (symbols or tool.name not in SYMBOL_ACTIONS)
    )


@value
class EditCall:
    """The blocks of one tool call, and how to place them: `target` is the file blocks
    that name none go to, `mode` the edit mode the call asks for (None: the server's),
    `reply` the reply text of `propose_reply`, `wait` whether the call waits for the
    user's review (None: as the server is set)."""

    tool: str
    items: tuple[ReplyItem, ...]
    target: str | None = None
    mode: str | None = None
    reply: str | None = None
    wait: bool | None = None


@value
class BadCall:
    """Why a tool call cannot be read, with what to send instead."""

    message: str


def edit_call(
    tool: str, arguments: Mapping[str, object], tools: Sequence[str] = EDIT_TOOLS
) -> EditCall | BadCall:
    """The blocks of a call of an editing tool, one of `tools` (those offered)."""
    allowed = ARGUMENTS.get(tool) if tool in tools else None
    if allowed is None:
        instead = f"; use one of {', '.join(tools)}" if tools else ""
        return BadCall(f"There is no editing tool `{tool}`{instead}.")
    unknown = sorted(set(arguments) - set(allowed))
    if unknown:
        names = ", ".join(f"`{name}`" for name in unknown)
        return BadCall(f"{tool}: unknown argument {names}; it takes {', '.join(allowed)}.")
    wait = arguments.get("wait")
    if wait is not None and not isinstance(wait, bool):
        return BadCall(f"{tool}: `wait` must be true or false.")
    if tool == "propose_reply":
        call = _reply(arguments)
    else:
        path = _text(tool, arguments, "path")
        if isinstance(path, BadCall):
            return path
        call = (_symbol_edit if tool in SYMBOL_ACTIONS else _operation)(tool, path, arguments)
    return call if isinstance(call, BadCall) else replace(call, wait=wait)


def edit_call_from_json(tool: str, arguments: str, tools: Sequence[str]) -> EditCall | BadCall:
    """The blocks of a call whose arguments are the JSON text a model wrote."""
    from lsp_edit.blocks.operations import JsonError, load_json

    loaded = load_json(arguments) if arguments.strip() else {}
    if isinstance(loaded, JsonError):
        return BadCall(f"{tool}: the arguments are not valid JSON ({loaded.message}).")
    if not isinstance(loaded, dict):
        return BadCall(f"{tool}: the arguments must be a JSON object, got {_kind(loaded)}.")
    return edit_call(tool, loaded, tools)


def call_text(call: EditCall) -> str:
    """The reply text of a call's blocks, ending in a newline: what a reply document
    shows of the call, and what the parser reads back as the same blocks."""
    if call.reply is not None:
        return call.reply if call.reply.endswith("\n") else call.reply + "\n"
    return "".join(_block_text(item) for item in call.items)


def _block_text(item: ReplyItem) -> str:
    if isinstance(item, FencedEdit):
        fence = "`" * max(3, 1 + max((_backticks(line) for line in item.content), default=0))
        body = "".join(line + "\n" for line in item.content)
        # in backticks, the line names the file whatever its name (spaces, no extension)
        path = f"`{item.path}`" if item.path and "`" not in item.path else item.path
        return f"{path}\n{fence}{item.tag}\n{body}{fence}\n"
    assert isinstance(item, ChunkDiff | DeleteLines | InsertLines)
    import json

    from lsp_edit.blocks.operations import operation_value

    written = json.dumps(operation_value(item), indent=2, ensure_ascii=False)
    return f"```json\n{written}\n```\n"


def _backticks(line: str) -> int:
    """How many backticks a line starts with (after its indentation)."""
    stripped = line.lstrip()
    return len(stripped) - len(stripped.lstrip("`"))


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
        return BadCall(_sentence(item.message.replace('"symbol"', "`ast_path`")))
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


def _sentence(message: str) -> str:
    return message if message.endswith((".", "!", "?")) else message + "."


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
