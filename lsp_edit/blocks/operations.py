"""JSON operations: `chunk_diff`, `delete_lines` and `insert_lines`.

They arrive three ways: given directly to the server or CLI (`parse_operations`),
as a ```` ```json ```` block in a reply, or as a reply that is itself a JSON
document. A document may be one operation, a list of them, or
`{"operations": [...]}`.

Only shapes and types are checked here (integers must be ints, not bools or
strings; `position` must be exactly "before" or "after"); whether a line exists
in the document is checked when the operation is placed.
"""

from __future__ import annotations

from collections.abc import Callable

from lsp_edit.blocks.model import (
    Chunk,
    ChunkDiff,
    DeleteLines,
    InsertLines,
    ParseProblem,
    ReplyItem,
    ReplySpan,
)
from lsp_edit.text import split_content
from lsp_edit.values import value

OPERATION_NAMES = ("chunk_diff", "delete_lines", "insert_lines")


@value
class _Bad:
    """Why an operation is invalid (a returned value, never raised)."""

    message: str


def parse_operations(ops: object) -> list[ReplyItem]:
    """Operations given directly: a list of dicts, one dict, `{"operations": [...]}`,
    or any of those as a JSON string. Each invalid one becomes a `ParseProblem`.

    A JSON string spans reply lines 1..its line count; other values span line 1.
    """
    if isinstance(ops, str):
        where = ReplySpan(1, max(1, len(split_content(ops))))
        loaded = load_json(ops)
        if isinstance(loaded, JsonError):
            return [
                ParseProblem(
                    where, "invalid_json", f"operations are not valid JSON: {loaded.message}"
                )
            ]
        return operations_from_value(loaded, where)
    return operations_from_value(ops, ReplySpan(1, 1))


@value
class JsonError:
    """Why a text is not valid JSON."""

    message: str


def load_json(text: str) -> object | JsonError:
    import json  # only a reply that holds JSON needs it: the import costs every start

    try:
        value: object = json.loads(text)
    except json.JSONDecodeError as error:
        return JsonError(f"{error.msg} at line {error.lineno} column {error.colno}")
    except (ValueError, RecursionError) as error:
        # Deeply nested input exhausts the recursion limit; it is still just bad JSON.
        return JsonError(str(error) or type(error).__name__)
    return value


def is_operations(value: object) -> bool:
    """Whether a parsed JSON value is meant as operations (and not, say, a
    `package.json`): an object with an "op" or "operations" key, or a list
    holding at least one object with an "op" key."""
    if isinstance(value, dict):
        return "op" in value or "operations" in value
    if isinstance(value, list):
        return any(isinstance(item, dict) and "op" in item for item in value)
    return False


def operations_from_value(value: object, where: ReplySpan) -> list[ReplyItem]:
    """The operations in a parsed JSON value, each valid one as its block and each
    invalid one as an `invalid_operation` problem, in order."""
    if isinstance(value, dict) and "operations" in value and "op" not in value:
        listed = value["operations"]
        if not isinstance(listed, list):
            return [_problem(where, f'"operations" must be a list, got {_kind(listed)}')]
        value = listed
    if isinstance(value, dict):
        return [_one(value, where, "")]
    if isinstance(value, list):
        total = len(value)
        return [
            _one(item, where, f" (operation {index} of {total})")
            for index, item in enumerate(value, start=1)
        ]
    return [
        _problem(
            where,
            "operations must be an object, a list of objects or "
            f'{{"operations": [...]}}, got {_kind(value)}',
        )
    ]


def _one(op: object, where: ReplySpan, position: str) -> ReplyItem:
    if not isinstance(op, dict):
        return _problem(where, f"operation{position} must be an object, got {_kind(op)}")
    name = op.get("op")
    if name is None:
        return _problem(
            where,
            f'operation{position} has no "op" key; use one of {_names()}',
        )
    reader = _READERS.get(name) if isinstance(name, str) else None
    if reader is None:
        return _problem(where, f"unknown op {_show(name)}{position}; use one of {_names()}")
    result = reader(op, where)
    if isinstance(result, _Bad):
        return _problem(where, f"{name}{position}: {result.message}")
    return result


def _chunk_diff(op: dict[str, object], where: ReplySpan) -> ReplyItem | _Bad:
    path = _path(op)
    if isinstance(path, _Bad):
        return path
    symbol = op.get("symbol")
    if symbol is not None and (not isinstance(symbol, str) or not symbol.strip()):
        return _Bad(f'"symbol" must be a non-empty string, got {_show(symbol)}')
    line = _optional_int(op, "line")
    if isinstance(line, _Bad):
        return line
    column = _optional_int(op, "column")
    if isinstance(column, _Bad):
        return column
    if column is not None and line is None:
        return _Bad('"column" needs a "line"')
    if symbol is None and line is None:
        return _Bad(
            'give the symbol to edit as "symbol" (an AST path) or "line" (a line inside it)'
        )
    chunks = op.get("chunks")
    if not isinstance(chunks, list) or not chunks:
        return _Bad(f'"chunks" must be a non-empty list of objects, got {_show(chunks)}')
    parsed: list[Chunk] = []
    for index, chunk in enumerate(chunks, start=1):
        read = _chunk(chunk, index)
        if isinstance(read, _Bad):
            return read
        parsed.append(read)
    return ChunkDiff(where, path, symbol, line, column, tuple(parsed))


def _chunk(chunk: object, index: int) -> Chunk | _Bad:
    if not isinstance(chunk, dict):
        return _Bad(f"chunk {index} must be an object, got {_kind(chunk)}")
    fields: list[tuple[str, ...]] = []
    for key, required in (
        ("context_before", False),
        ("old_lines", True),
        ("new_lines", True),
        ("context_after", False),
    ):
        if key not in chunk:
            if required:
                return _Bad(f'chunk {index} has no "{key}" (a string or a list of strings)')
            fields.append(())
            continue
        lines = _lines(chunk[key], f"chunk {index} {key}")
        if isinstance(lines, _Bad):
            return lines
        fields.append(lines)
    return Chunk(*fields)


def _lines(value: object, name: str) -> tuple[str, ...] | _Bad:
    """A string (split into lines) or a list of one-line strings."""
    if isinstance(value, str):
        return tuple(split_content(value))
    if not isinstance(value, list):
        return _Bad(f"{name} must be a string or a list of strings, got {_kind(value)}")
    lines: list[str] = []
    for number, item in enumerate(value, start=1):
        if not isinstance(item, str):
            return _Bad(f"{name} item {number} must be a string, got {_kind(item)}")
        # A list item is one line; an LLM often leaves its newline on it.
        one = split_content(item) if item else [""]
        if len(one) > 1:
            return _Bad(f"{name} item {number} holds {len(one)} lines; give one line per item")
        lines.append(one[0] if one else "")
    return tuple(lines)


def _delete_lines(op: dict[str, object], where: ReplySpan) -> ReplyItem | _Bad:
    path = _path(op)
    if isinstance(path, _Bad):
        return path
    start = _required_int(op, "start_line")
    if isinstance(start, _Bad):
        return start
    end = _required_int(op, "end_line")
    if isinstance(end, _Bad):
        return end
    return DeleteLines(where, path, start, end)


def _insert_lines(op: dict[str, object], where: ReplySpan) -> ReplyItem | _Bad:
    path = _path(op)
    if isinstance(path, _Bad):
        return path
    line = _required_int(op, "line")
    if isinstance(line, _Bad):
        return line
    position = op.get("position")
    if not isinstance(position, str) or position not in ("before", "after"):
        return _Bad(f'position must be "before" or "after", got {_show(position)}')
    content = op.get("content")
    if not isinstance(content, str):
        return _Bad(f'"content" must be a string, got {_show(content)}')
    return InsertLines(where, path, line, position, content)


def operation_value(item: ChunkDiff | DeleteLines | InsertLines) -> dict[str, object]:
    """An operation as JSON holds it: the value `operations_from_value` reads back
    as `item`."""
    written: dict[str, object] = {"op": _NAMES[type(item)]}
    if item.path is not None:
        written["path"] = item.path
    if isinstance(item, DeleteLines):
        written.update(start_line=item.start_line, end_line=item.end_line)
    elif isinstance(item, InsertLines):
        written.update(line=item.line, position=item.position, content=item.content)
    else:
        optional = (("symbol", item.symbol), ("line", item.line), ("column", item.column))
        written.update((key, given) for key, given in optional if given is not None)
        written["chunks"] = [_chunk_value(chunk) for chunk in item.chunks]
    return written


def _chunk_value(chunk: Chunk) -> dict[str, list[str]]:
    written = {"context_before": list(chunk.context_before)} if chunk.context_before else {}
    written.update(old_lines=list(chunk.old_lines), new_lines=list(chunk.new_lines))
    if chunk.context_after:
        written["context_after"] = list(chunk.context_after)
    return written


_NAMES: dict[type, str] = {
    ChunkDiff: "chunk_diff",
    DeleteLines: "delete_lines",
    InsertLines: "insert_lines",
}

_READERS: dict[str, Callable[[dict[str, object], ReplySpan], ReplyItem | _Bad]] = {
    "chunk_diff": _chunk_diff,
    "delete_lines": _delete_lines,
    "insert_lines": _insert_lines,
}


def _path(op: dict[str, object]) -> str | _Bad | None:
    if "path" not in op or op["path"] is None:
        return None
    path = op["path"]
    if not isinstance(path, str) or not path.strip():
        return _Bad(f'"path" must be a non-empty string, got {_show(path)}')
    return path.strip()


def _required_int(op: dict[str, object], key: str) -> int | _Bad:
    if key not in op:
        return _Bad(f'"{key}" is missing (an integer)')
    value = _optional_int(op, key)
    if value is None:
        return _Bad(f'"{key}" must be an integer, got null')
    return value


def _optional_int(op: dict[str, object], key: str) -> int | _Bad | None:
    value = op.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        return _Bad(f'"{key}" must be an integer, got {_show(value)}')
    return value


def _problem(where: ReplySpan, message: str) -> ParseProblem:
    return ParseProblem(where, "invalid_operation", message)


def _names() -> str:
    return ", ".join(f'"{name}"' for name in OPERATION_NAMES)


def _kind(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    if isinstance(value, int | float):
        return "a number"
    return type(value).__name__


def _show(value: object, limit: int = 60) -> str:
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
