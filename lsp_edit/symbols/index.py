"""Builds a document's symbol index from a tree-sitter tree and the language's query.

The query (`lsp_edit/grammars/<language>.scm`) names definitions with standard
captures: `@definition.<kind>` on the definition node, `@name` on its name,
optionally `@owner` (a Go receiver type, prepended to the path) and `@scope`
instead of a definition capture for a node that names the definitions inside it
without being a symbol itself (a Rust `impl` block). Nesting comes from the
tree: a definition inside another one hangs under it. A name written qualified
(`net::Client::chat`, `Chat.Net`) gives several path parts.

Rows of the tree are line indices because the parsed source is the document's
lines joined with `\\n` (whatever their own endings), so CR-only files work too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from operator import attrgetter

import tree_sitter as ts

from lsp_edit.symbols.languages import LanguageSpec, grammar, spec_for, symbol_query
from lsp_edit.symbols.model import Symbol, symbol_from_row
from lsp_edit.text import Text

# Kinds whose directly nested functions are methods.
_TYPE_KINDS = frozenset({"class", "struct", "interface", "enum", "scope", "trait", "impl"})
_TEMPLATE_ARGUMENTS = re.compile(r"<[^<>]*>")
_SEPARATOR = re.compile(r"::|\.")
# Last characters of a line that end a comment or sentence (`*/`, `/// Runs.`,
# `/// <summary>...</summary>`) or open a body (`class A {`), and never end an
# attribute or decorator.
_NOT_ATTRIBUTE_ENDS = ("/", ".", ">", "{")
# What the text of a comment's last line holds, in every language here.
_COMMENT_MARK = re.compile(r"//|/\*|\*/|#|=end")


def source_bytes(text: Text) -> bytes:
    """What the parser reads: the lines joined with `\\n`, UTF-8 (rows = line indices)."""
    return "\n".join(text.lines).encode("utf-8")


def parse(language: str, source: bytes, old_tree: ts.Tree | None = None) -> ts.Tree:
    """Parses `source`; with `old_tree` (already `edit`ed), reparses incrementally."""
    parser = ts.Parser(grammar(language))
    return parser.parse(source, old_tree) if old_tree is not None else parser.parse(source)


def canonical_language(language: str) -> LanguageSpec:
    """The table row of a language name or fence tag; ValueError when unknown."""
    spec = spec_for(language)
    if spec is None:
        raise ValueError(f"unsupported language: {language!r}")
    return spec


def index_symbols(text: Text, language: str) -> list[Symbol]:
    """All symbols of `text`, in document order (outer before inner)."""
    spec = canonical_language(language)
    tree = parse(spec.name, source_bytes(text))
    return symbols_from_tree(tree, text.lines, spec)


# A definition or scope the query found, before its path is known: its start
# byte, minus its end byte and the match's number first, so that sorting puts
# outer definitions before those inside them (and keeps the query's order among
# equals); then kind, name parts, start line, body start line, end line and
# indent. (Bytes order as the document does in any tree, a region's too, whose
# bytes are those of its rows only.)
_Definition = tuple[int, int, int, str, tuple[str, ...], int, int, int, str]


def symbols_from_tree(
    tree: ts.Tree,
    lines: Sequence[str],
    spec: LanguageSpec,
    nodes: Sequence[ts.Node] | None = None,
) -> list[Symbol]:
    """The symbols of a parsed tree; with `nodes` (consecutive top-level nodes, for
    an incremental update), only those that end within their bytes. The query runs
    from the root over that byte range: patterns anchored at the root (module
    constants in Python, Go's top-level constants) do not match in a subtree
    queried alone."""
    cursor = ts.QueryCursor(symbol_query(spec.name))
    low = high = -1
    if nodes:
        low, high = nodes[0].start_byte, nodes[-1].end_byte
        cursor.set_byte_range(low, high)
    # The definitions by the id of their node (a node matched by two patterns is
    # one definition), in the order found.
    found: dict[int, tuple[ts.Node, str, ts.Node, list[ts.Node] | None]] = {}
    # The wrappers the query found, by the id of the node each wraps.
    wrapped: dict[int, ts.Node] = {}
    # Per pattern, its definition (or scope) capture and the kind it names.
    kinds: dict[int, tuple[str, str]] = {}
    for pattern, captures in cursor.matches(tree.root_node):
        known = kinds.get(pattern)
        if known is None:
            known = kinds[pattern] = _definition_capture(captures)
        capture, kind = known
        if kind == "wrapper":
            wrapped[captures["wrapped"][0].id] = captures["wrapper"][0]
            continue
        nodes_found = captures.get(capture)
        names = captures.get("name")
        if not nodes_found or not names:
            continue
        node = nodes_found[0]
        identity = node.id
        if identity not in found:
            found[identity] = (node, kind, names[0], captures.get("owner"))
    definitions: list[_Definition] = []
    root = tree.root_node
    clean = not root.has_error
    # What the tree was parsed from, where names are read (the root's text, which
    # leaves out what comes before its first token: zero bytes stand for that).
    source = bytes(root.start_byte) + (root.text or b"")
    for identity, (node, kind, name, owners) in found.items():
        # The outermost of the wrappers around the node, which belong to it.
        wrapper = wrapped.get(identity)
        while wrapper is not None:
            node = wrapper
            wrapper = wrapped.get(node.id)
        definition = _definition(
            node, kind, name, owners, len(definitions), lines, source, spec, clean
        )
        # (Matches merely touching the range belong to the nodes around it.)
        if definition is not None and (high < 0 or low < -definition[1] <= high):
            definitions.append(definition)
    return _nest(definitions)


def _definition_capture(captures: dict[str, list[ts.Node]]) -> tuple[str, str]:
    """The capture naming the definition in a match's captures, and its kind."""
    for capture in captures:
        if capture.startswith("definition."):
            return capture, capture[len("definition.") :]
        if capture in ("scope", "wrapper"):
            return capture, capture
    return "", ""


def _definition(
    node: ts.Node,
    kind: str,
    name: ts.Node,
    owners: list[ts.Node] | None,
    number: int,
    lines: Sequence[str],
    source: bytes,
    spec: LanguageSpec,
    clean: bool,
) -> _Definition | None:
    """What the index keeps of one definition, the `number`th found: `node` (with
    the wrappers around it that belong to it), `name` and the `owners` written
    before the name (`clean`: in a tree without a syntax error, parsed from
    `source`); None when it has no name."""
    # (This runs for every definition of a file, 5,000 in a 20,000-line one:
    # each read of a node crosses into tree-sitter, so each is made once; a
    # byte costs a third of what a point does.)
    name_start = name.start_byte
    parts = _name_parts(_name_text(name, name_start, source))
    if owners:
        parts = _owner_parts(owners, source) + parts
    if not parts:
        return None
    first = node.start_point
    first_row = first[0]
    start = node.start_byte
    # The first token that is not an attribute or comment lies between the
    # node's first row and its name's: on one row, nothing to look for.
    body_start = first_row
    if source.find(b"\n", start, name_start) >= 0:
        token_row = _first_token_row(node, spec, depth=0)
        if token_row is not None:
            body_start = token_row
    start_row = first_row
    if spec.attribute_nodes and not _nothing_attached(lines, first, clean):
        start_row, start = _attached_siblings(node, first, spec)
    line = lines[body_start] if body_start < len(lines) else ""
    start_row = _comments_start(lines, start_row, spec, line[: len(line) - len(line.lstrip())])
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return (
        start,
        -node.end_byte,
        number,
        kind,
        parts,
        start_row,
        body_start,
        _end_line(node, first_row, lines),
        indent,
    )


def _owner_parts(owners: list[ts.Node], source: bytes) -> tuple[str, ...]:
    """The path parts of the owners written before a name (a Go receiver type)."""
    if len(owners) == 1:
        return _name_parts(_name_text(owners[0], owners[0].start_byte, source))
    return tuple(
        part
        for owner in owners
        for part in _name_parts(_name_text(owner, owner.start_byte, source))
    )


def _name_text(name: ts.Node, start: int, source: bytes) -> str:
    """The text of a name starting at byte `start` of the `source` its tree was
    parsed from (read there: a node's own text costs more)."""
    return source[start : name.end_byte].decode("utf-8", "replace")


def _name_parts(raw: str) -> tuple[str, ...]:
    """The path parts a name written `raw` gives."""
    if raw.isidentifier():
        return (raw,)
    name = "".join(raw.split())
    if "operator" not in name:
        # Template arguments are not part of a path: `Box<T>::get` is Box-get.
        previous = None
        while previous != name:
            previous, name = name, _TEMPLATE_ARGUMENTS.sub("", name)
    return tuple(part for part in _SEPARATOR.split(name) if part)


def _first_token_row(node: ts.Node, spec: LanguageSpec, depth: int) -> int | None:
    """The row of the definition's first token that is not a decorator, attribute
    or comment (Java annotations sit inside `modifiers`)."""
    for index in range(node.child_count):
        child = node.child(index)
        if child is None:
            continue
        child_type = child.type
        if child_type in spec.attribute_nodes or "comment" in child_type:
            continue
        if child_type == "modifiers" and depth == 0:
            row = _first_token_row(child, spec, depth + 1)
            if row is not None:
                return row
            continue
        return child.start_point.row
    return None


def _attached_siblings(node: ts.Node, start: ts.Point, spec: LanguageSpec) -> tuple[int, int]:
    """Extends the start (`node` starts at `start`) over decorators/attributes
    that precede the node as siblings (Rust `#[...]`, decorators in a TypeScript
    class body): its row and byte."""
    start_row = start[0]
    start_byte = node.start_byte
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in spec.attribute_nodes:
        if sibling.end_point.row < start_row - 1:
            break
        start_row = sibling.start_point.row
        start_byte = sibling.start_byte
        sibling = sibling.prev_named_sibling
    return start_row, start_byte


def _nothing_attached(lines: Sequence[str], start: ts.Point, clean: bool) -> bool:
    """True when no attribute can end right before a definition starting at
    `start`: nothing before it on its line, and the line above blank or ending a
    block or statement (an attached attribute ends on one of those lines). In a
    tree without a syntax error (`clean`), also when the line above ends with a
    character no attribute ends with (they end with `]`, `)` or a name): its
    last token is then a comment, or ends a node that is not an attribute, and
    either stands between the definition and any attribute above; or it is the
    `{` opening the body the definition is in, whose members start after it
    (no grammar here writes an attribute and a member as siblings with a `{`
    between them)."""
    row, column = start
    if row >= len(lines):
        return False
    line = lines[row]
    # (Columns count UTF-8 bytes.)
    if not line.isascii() or line[:column].strip():
        return False
    if row == 0:
        return True
    above = lines[row - 1].rstrip()
    return (
        not above or above.endswith(("}", ";")) or (clean and above.endswith(_NOT_ATTRIBUTE_ENDS))
    )


def comments_above(lines: Sequence[str], row: int, spec: LanguageSpec, body_row: int) -> int:
    """Extends the start over the comment and attribute lines directly above (no
    blank line between) written at the definition's own indentation."""
    definition_line = lines[body_row] if body_row < len(lines) else ""
    indent = definition_line[: len(definition_line) - len(definition_line.lstrip())]
    return _comments_start(lines, row, spec, indent)


def _comments_start(lines: Sequence[str], row: int, spec: LanguageSpec, indent: str) -> int:
    """`comments_above` for a definition written at `indent`."""
    start = row
    while start > 0:
        above = lines[start - 1]
        stripped = above.strip()
        if not stripped:
            break
        if stripped.endswith("*/") and "/*" in spec.comment_prefixes:
            opening = _block_comment_start(lines, start - 1, indent)
            if opening is None:
                break
            start = opening
            continue
        if not above.startswith(indent) or above[len(indent)] in " \t":
            break
        if stripped.startswith(spec.comment_prefixes + spec.attribute_prefixes):
            start -= 1
            continue
        break
    return start


def _block_comment_start(lines: Sequence[str], last: int, indent: str) -> int | None:
    """The row where the block comment ending on row `last` opens, when that
    comment stands alone on its lines at `indent`. None too when a line above
    `last` closes a comment: then the one ending on `last` is not a comment (a
    stray `*/`), and no comment above it belongs to the definition."""
    row = last
    while row >= 0:
        line = lines[row]
        if row != last and "*/" in line:
            return None
        position = line.find("/*")
        if position >= 0:
            opening = line[:position]
            if opening != indent or (row == last and line.find("*/", position + 2) < len(line) - 2):
                return None
            return row
        row -= 1
    return None


def _has_comment_mark(line: str) -> bool:
    # (Every mark holds one of the characters looked for first, which most
    # lines ending a definition do not hold.)
    return ("/" in line or "#" in line or "=end" in line) and bool(_COMMENT_MARK.search(line))


def _end_line(node: ts.Node, start_row: int, lines: Sequence[str]) -> int:
    """The exclusive end line of `node` (starting on `start_row`), leaving out
    comments that trail the definition (tree-sitter puts a comment before a
    dedent inside the block above it)."""
    end = node.end_point
    row = end.row
    # A trailing comment ends where the node does: where the node's last line
    # (or the one before, for a node ending with a line break) holds no comment
    # mark, its last token is not a comment.
    if row < len(lines) and not _has_comment_mark(lines[row]):
        if end.column:
            return row + 1
        if row > start_row and not _has_comment_mark(lines[row - 1]):
            return row
    last = node
    count = last.child_count
    while count:
        index = count - 1
        child = last.child(index)
        child_type = child.type if child is not None else "comment"
        while "comment" in child_type and index > 0:
            index -= 1
            child = last.child(index)
            child_type = child.type if child is not None else "comment"
        if child is None or "comment" in child_type:
            break
        last = child
        count = last.child_count
    end = last.end_point
    if end.column == 0 and end.row > start_row:
        return end.row
    return end.row + 1


def _nest(definitions: list[_Definition]) -> list[Symbol]:
    """Gives each definition the path of the definitions containing it; drops
    scopes. The symbols come in document order (outer before inner)."""
    definitions.sort()
    # The definitions containing the current one: end byte, kind, path.
    stack: list[tuple[int, str, tuple[str, ...]]] = []
    symbols: list[Symbol] = []
    for start, minus_end, _, kind, parts, start_line, body_start, end_line, indent in definitions:
        while stack and stack[-1][0] <= start:
            stack.pop()
        path = stack[-1][2] + parts if stack else parts
        if kind == "function" and ((stack and stack[-1][1] in _TYPE_KINDS) or len(parts) > 1):
            # Directly inside a type, or defined out of it (`void Client::chat()`).
            kind = "method"
        stack.append((-minus_end, kind, path))
        if kind != "scope":
            symbols.append(symbol_from_row((path, kind, start_line, body_start, end_line, indent)))
    # By start line, then the longest first (sorts keep the order of equals).
    symbols.sort(key=_END_LINE, reverse=True)
    symbols.sort(key=_START_LINE)
    return symbols


_START_LINE = attrgetter("start_line")
_END_LINE = attrgetter("end_line")


def find_symbols(symbols: Sequence[Symbol], parts: Sequence[str]) -> list[Symbol]:
    """The symbols whose path is exactly `parts`, in document order."""
    wanted = tuple(parts)
    return [symbol for symbol in symbols if symbol.path == wanted]


def symbol_at(symbols: Sequence[Symbol], line: int, column: int | None = None) -> Symbol | None:
    """The innermost symbol whose lines (with its doc comment) contain the 0-based
    `line`. `column` is accepted for callers that have one; symbols are line-based."""
    best: Symbol | None = None
    for symbol in symbols:
        if symbol.start_line <= line < symbol.end_line and (
            best is None or symbol.end_line - symbol.start_line <= best.end_line - best.start_line
        ):
            best = symbol
    return best
