"""`SymbolIndex`: the symbols of open documents, cached per version and kept up to
date by incremental reparsing.

For each document key the index keeps the last source, tree and symbols. A new
version is diffed against the last one (common byte prefix and suffix), the old
tree is `edit`ed and reparsed incrementally, and only the top-level definitions
around the change are queried again: symbols above them are reused as they are,
symbols below them are shifted by the change in line count.

A change inside one top-level definition that wraps the whole file (a Java
class, a C# namespace) re-queries that whole definition.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import tree_sitter as ts

from lsp_edit.symbols.index import canonical_language, parse, source_bytes, symbols_from_tree
from lsp_edit.symbols.languages import LanguageSpec
from lsp_edit.symbols.model import Symbol
from lsp_edit.text import Text

_CHUNK = 4096


@dataclass
class _Document:
    version: int | None
    language: str
    source: bytes
    line_count: int
    tree: ts.Tree
    symbols: list[Symbol]


class SymbolIndex:
    """Symbols per document, cached by (key, version), reparsed incrementally.

    `key` is whatever names the document for the caller (a URI, a path).
    `version` is the editor's document version; None means "unknown", and then
    the text itself decides whether the cached symbols still hold. The returned
    lists are shared between calls: do not mutate them.
    """

    def __init__(self, max_documents: int = 64) -> None:
        self._documents: OrderedDict[str, _Document] = OrderedDict()
        self._max_documents = max_documents

    def symbols(self, key: str, version: int | None, text: Text, language: str) -> list[Symbol]:
        """The symbols of `text` (document `key` at `version`) in `language`.

        The same (key, version) returns the cached list without looking at the
        text. A new version is reparsed incrementally from the document's last
        tree; a new document or another language is parsed from scratch.
        Raises ValueError for a language `language_for` does not know.
        """
        spec = canonical_language(language)
        cached = self._documents.get(key)
        if (
            cached is not None
            and cached.language == spec.name
            and version is not None
            and cached.version == version
        ):
            self._documents.move_to_end(key)
            return cached.symbols
        source = source_bytes(text)
        if cached is not None and cached.language == spec.name:
            document = _update(cached, spec, version, source, text)
        else:
            tree = parse(spec.name, source)
            document = _Document(
                version,
                spec.name,
                source,
                text.line_count,
                tree,
                symbols_from_tree(tree, text.lines, spec),
            )
        self._documents[key] = document
        self._documents.move_to_end(key)
        while len(self._documents) > self._max_documents:
            self._documents.popitem(last=False)
        return document.symbols

    def forget(self, key: str) -> None:
        """Drops a document (closed in the editor)."""
        self._documents.pop(key, None)

    def clear(self) -> None:
        """Drops every document."""
        self._documents.clear()

    def __contains__(self, key: object) -> bool:
        return key in self._documents


def _update(
    cached: _Document, spec: LanguageSpec, version: int | None, source: bytes, text: Text
) -> _Document:
    old = cached.source
    start, old_end, new_end = changed_bytes(old, source)
    if start == old_end == new_end:
        return _Document(version, spec.name, source, text.line_count, cached.tree, cached.symbols)
    tree = cached.tree
    tree.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_point(old, start),
        old_end_point=_point(old, old_end),
        new_end_point=_point(source, new_end),
    )
    new_tree = parse(spec.name, source, tree)
    lines = text.lines
    region = _region(tree, new_tree, start, new_end, source)
    if region is None:
        symbols = symbols_from_tree(new_tree, lines, spec)
    else:
        first_row, last_row, nodes = region
        delta = text.line_count - cached.line_count
        old_last_row = last_row - delta
        before = [s for s in cached.symbols if s.body_start_line < first_row]
        after = [
            _shift(s, delta) if delta else s
            for s in cached.symbols
            if s.body_start_line > old_last_row
        ]
        symbols = before + symbols_from_tree(new_tree, lines, spec, nodes) + after
    return _Document(version, spec.name, source, text.line_count, new_tree, symbols)


def changed_bytes(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, old_end, new_end): the byte range that differs, from the longest
    common prefix and then the longest common suffix of what remains."""
    limit = min(len(old), len(new))
    start = 0
    # Compare in chunks first (C speed), then byte by byte inside the first differing one.
    while start + _CHUNK <= limit and old[start : start + _CHUNK] == new[start : start + _CHUNK]:
        start += _CHUNK
    while start < limit and old[start] == new[start]:
        start += 1
    suffix = 0
    room = limit - start
    while suffix + _CHUNK <= room and (
        old[len(old) - suffix - _CHUNK : len(old) - suffix]
        == new[len(new) - suffix - _CHUNK : len(new) - suffix]
    ):
        suffix += _CHUNK
    while suffix < room and old[len(old) - suffix - 1] == new[len(new) - suffix - 1]:
        suffix += 1
    return start, len(old) - suffix, len(new) - suffix


def _point(source: bytes, offset: int) -> tuple[int, int]:
    row = source.count(b"\n", 0, offset)
    return row, offset - (source.rfind(b"\n", 0, offset) + 1)


def _last_row(node: ts.Node) -> int:
    end = node.end_point
    if end.column == 0 and end.row > node.start_point.row:
        return end.row - 1
    return end.row


def _is_leading(node: ts.Node) -> bool:
    """Comments and attributes belong to the definition after them."""
    return "comment" in node.type or node.type in _LEADING_TYPES


def _region(
    old_tree: ts.Tree, new_tree: ts.Tree, start: int, new_end: int, source: bytes
) -> tuple[int, int, list[ts.Node]] | None:
    """The top-level nodes to query again, and their rows; None to redo everything.

    Taken: the nodes the change touches or that changed shape, the node before
    them (the change may end right after it), and the nodes after them up to
    the first that is not a comment or attribute (whose leading comments may
    have changed). Extended so no other top-level node shares their first or
    last row, which lets symbols outside be told apart by line.
    """
    root = new_tree.root_node
    if root.child_count == 0:
        return None
    low, high = start, new_end
    for changed in old_tree.changed_ranges(new_tree):
        low, high = min(low, changed.start_byte), max(high, changed.end_byte)
    cursor = root.walk()
    # (Node.first_child_for_byte crashes the 0.26 binding on edited trees; the cursor does not.)
    if cursor.goto_first_child_for_byte(low) is None:
        cursor.goto_first_child()
        while cursor.goto_next_sibling():
            pass
    first = cursor.node
    if first is None or first == root:
        return None
    previous = first.prev_sibling
    if previous is not None:
        first = previous
    last = first
    while (following := last.next_sibling) is not None and following.start_byte <= high:
        last = following
    # The definition after the change, past the comments and attributes between,
    # may have gained or lost the comments above it.
    node = last
    while (following := node.next_sibling) is not None:
        node = following
        if not _is_leading(node):
            break
    last = node
    while (before := first.prev_sibling) is not None and _last_row(before) >= first.start_point.row:
        first = before
    while (following := last.next_sibling) is not None and following.start_point.row <= _last_row(
        last
    ):
        last = following
    if first.start_byte == root.start_byte and last.end_byte >= root.end_byte:
        return None
    nodes: list[ts.Node] = [first]
    walker: ts.Node | None = first
    while walker is not None and walker != last:
        walker = walker.next_sibling
        if walker is not None:
            nodes.append(walker)
    first_row = min(first.start_point.row, _point(source, start)[0])
    last_row = max(_last_row(last), _point(source, new_end)[0])
    return first_row, last_row, nodes


# Decorators and attributes standing alone at the top level in any language here.
_LEADING_TYPES = frozenset({"attribute_item", "decorator", "attribute_list", "annotation"})


def _shift(symbol: Symbol, delta: int) -> Symbol:
    return Symbol(
        symbol.path,
        symbol.kind,
        symbol.start_line + delta,
        symbol.body_start_line + delta,
        symbol.end_line + delta,
        symbol.indent,
    )
