"""`SymbolIndex`: the symbols of open documents, cached per version and brought
up to date after an edit by reparsing only the code around it.

For each document the index keeps the last source, symbols and outline (see
`regions`). A new version is diffed against the last one (common byte prefix
and suffix). The units around the change are parsed on their own
(`regions.reparse_region`, which also says when that cannot stand for the
whole document); symbols above them are reused as they are, symbols below are
shifted by the change in line count. A one-line edit so costs a millisecond or
two, where tree-sitter reparsing a 20,000-line file, even incrementally, takes
5-15 ms.

An edit that leaves a syntax error in the code it changed is re-indexed from
the last version without one (`SymbolIndex._from_clean`): the units the text
changed in since then are parsed on their own, error and all, and the symbols
are that clean version's outside them (shifted) and their own inside. That is
not what a fresh parse gives, on purpose: tree-sitter's error recovery can take
a stray `(` in a Java class header for the start of something that swallows
every class below it, and takes a second or more to do so in a large file. An
edit elsewhere while the text is broken, which parses there, is made in the
clean version too (`_clean_beside`), so the broken units stay those the first
edit touched. Once the changed units parse again, the usual region update from
the clean version gives the symbols of a fresh parse again. (When the code
below could mend the error, see `regions.parse_edited_units`, the text is
parsed whole instead: the symbols of a text without an error are always those
of a fresh parse.)

Otherwise (a syntax error above the edit, an edit at a container's edge, a
region that does not come back the same) the document is parsed whole:
incrementally from the last parse that had no syntax error, querying only the
top-level definitions around the change again, or, when the new text has a
syntax error, from scratch (see `_whole`). The outline is then built from that
tree when the next edit needs it.
"""

from __future__ import annotations

import bisect
import operator
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Literal

import tree_sitter as ts

# The index's own steps, run here on part of a tree: its comment scan resumed
# where the last one stopped, and its query matches over a byte range.
from lsp_edit.symbols.index import (
    canonical_language,
    comments_above,
    parse,
    symbols_from_tree,
)
from lsp_edit.symbols.languages import LanguageSpec
from lsp_edit.symbols.model import Symbol
from lsp_edit.symbols.regions import (
    Container,
    build,
    parse_edited_units,
    reparse_region,
)
from lsp_edit.text import Text
from lsp_edit.values import record

_CHUNK = 4096

Update = Literal["region", "full", "cached"]


@record
class _Snapshot:
    """A whole-document parse: its source, tree and symbols."""

    source: bytes
    line_count: int
    tree: ts.Tree
    symbols: list[Symbol]


@record
class _Document:
    version: int | None
    language: str
    source: bytes
    line_count: int
    lines: Sequence[str]
    symbols: list[Symbol]
    # Built from `tree` (this very text's, after a whole parse) when an edit
    # first needs it; None when it cannot be (see `_outline`). Its units not
    # read yet hold that tree's nodes (mostly the tree `base` keeps anyway).
    outline: Container | None
    tree: ts.Tree | None
    # What a whole reparse starts from: the last whole parse without a syntax
    # error (or the first parse while there is none).
    base: _Snapshot
    # Whether the text has a syntax error: in its whole parse, or, re-indexed
    # from its last version without one, in the code around the change.
    has_error: bool = False
    # While the text has a syntax error, its last version without one (where
    # the next edit is re-indexed from, see `_from_clean`); None otherwise.
    clean: _Document | None = None


class SymbolIndex:
    """Symbols per document, cached by (key, version), reparsed incrementally.

    `key` is whatever names the document for the caller (a URI, a path).
    `version` is the editor's document version; None means "unknown", and then
    the text itself decides whether the cached symbols still hold. The returned
    lists are shared between calls: do not mutate them.

    `last_update` says how the last call got its symbols: "cached" (same
    version or same text), "region" (only the code around the edit was parsed)
    or "full" (the whole document was parsed, incrementally when possible).

    A text without a syntax error gets the symbols `index_symbols` gives. One
    with an error gets either those or, when the error is in the code changed
    since its last version without one, that version's symbols outside that
    code and the code's own inside (see the module docstring).
    """

    def __init__(self, max_documents: int = 64) -> None:
        self._documents: OrderedDict[str, _Document] = OrderedDict()
        self._max_documents = max_documents
        self.last_update: Update = "full"

    def symbols(self, key: str, version: int | None, text: Text, language: str) -> list[Symbol]:
        """The symbols of `text` (document `key` at `version`) in `language`.

        The same (key, version) returns the cached list without looking at the
        text. A new version is reparsed around the change; a new document or
        another language is parsed from scratch.
        Raises ValueError for a language `language_for` does not know.
        """
        spec = canonical_language(language)
        cached = self._documents.get(key)
        if cached is not None and cached.language != spec.name:
            cached = None
        if cached is not None and version is not None and cached.version == version:
            self._documents.move_to_end(key)
            self.last_update = "cached"
            return cached.symbols
        source = _source(text)
        lines = text.lines
        document = None
        clean = None
        if cached is not None:
            document = self._update(cached, spec, version, source, lines)
            clean = cached.clean if cached.has_error else cached
            if document is None and clean is not None:
                if cached.has_error:
                    clean = self._clean_beside(cached, clean, spec, source)
                document = self._from_clean(
                    clean, spec, version, source, lines, tried=clean is cached
                )
        if document is None:
            previous = cached.base if cached is not None else None
            document = _whole(previous, spec, version, source, lines, clean)
            self.last_update = "full"
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
        self,
        cached: _Document,
        spec: LanguageSpec,
        version: int | None,
        source: bytes,
        lines: Sequence[str],
    ) -> _Document | None:
        """The document after an edit from the cached one, without a whole
        parse; None when that needs one."""
        old = cached.source
        start, old_end, new_end = changed_bytes(old, source)
        if start == old_end == new_end:
            self.last_update = "cached"
            return _Document(
                version,
                spec.name,
                source,
                cached.line_count,
                lines,
                cached.symbols,
                cached.outline,
                cached.tree,
                cached.base,
                cached.has_error,
                cached.clean,
            )
        if cached.tree is not None and cached.outline is None:
            cached.outline = _outline(cached.tree, cached, spec, start)
            cached.tree = None
        if cached.outline is None or not lines:
            return None
        delta = len(lines) - cached.line_count
        found = reparse_region(
            cached.outline,
            spec,
            lines,
            old.count(b"\n", 0, start),
            old.count(b"\n", 0, old_end),
            delta,
        )
        if found is None:
            return None
        first, old_last, new_last, tree = found
        symbols = _merge(
            cached.symbols, tree, lines, spec, source, (first, old_last, new_last, new_end)
        )
        if symbols is None:
            # The outline changed already and no longer fits `cached` (which may
            # stay the clean version of what follows); the whole parse makes a
            # new one.
            cached.outline = None
            return None
        self.last_update = "region"
        return _Document(
            version,
            spec.name,
            source,
            len(lines),
            lines,
            symbols,
            cached.outline,
            None,
            cached.base,
            cached.has_error,
            cached.clean,
        )

    def _clean_beside(
        self, cached: _Document, clean: _Document, spec: LanguageSpec, source: bytes
    ) -> _Document:
        """`clean` with the change from `cached` (which has a syntax error) to
        `source` made too, when that change lies outside the code `cached`
        changed since `clean` and the result parses there (a region update of
        `clean`); `clean` otherwise. So an edit elsewhere in a broken text does
        not widen the code whose symbols are taken from its own parse."""
        start, old_end, new_end = changed_bytes(cached.source, source)
        broken_start, clean_end, cached_end = changed_bytes(clean.source, cached.source)
        if old_end < broken_start:
            shift = 0
        elif start > cached_end:
            shift = clean_end - cached_end
        else:
            return clean
        beside = (
            clean.source[: start + shift] + source[start:new_end] + clean.source[old_end + shift :]
        )
        lines = beside.decode("utf-8").split("\n")
        advanced = self._update(clean, spec, None, beside, lines)
        if advanced is None or advanced.has_error:
            return clean
        return advanced

    def _from_clean(
        self,
        clean: _Document,
        spec: LanguageSpec,
        version: int | None,
        source: bytes,
        lines: Sequence[str],
        *,
        tried: bool,
    ) -> _Document | None:
        """The document of a text from `clean`, its last version without a
        syntax error, when the units changed since then have one: they are
        parsed on their own, error and all, and the symbols are `clean`'s
        outside them and theirs inside. When those units parse without an
        error, the usual region update from `clean` (unless `tried` already).
        None when neither can stand for the document."""
        if clean.outline is None and clean.tree is not None:
            clean.outline = _outline(clean.tree, clean, spec, len(clean.source))
            clean.tree = None
        if clean.outline is None or not lines:
            return None
        old = clean.source
        start, old_end, new_end = changed_bytes(old, source)
        found = parse_edited_units(
            clean.outline,
            spec,
            lines,
            old.count(b"\n", 0, start),
            old.count(b"\n", 0, old_end),
            len(lines) - clean.line_count,
        )
        if found is None:
            return None
        if not found.broken:
            return None if tried else self._update(clean, spec, version, source, lines)
        symbols = _merge(
            clean.symbols,
            found.tree,
            lines,
            spec,
            source,
            (found.first, found.old_end, found.new_end, new_end),
        )
        if symbols is None:
            return None
        self.last_update = "region"
        return _Document(
            version,
            spec.name,
            source,
            len(lines),
            lines,
            symbols,
            None,
            None,
            clean.base,
            has_error=True,
            clean=clean,
        )


def _merge(
    old: list[Symbol],
    tree: ts.Tree,
    lines: Sequence[str],
    spec: LanguageSpec,
    source: bytes,
    region: tuple[int, int, int, int],
) -> list[Symbol] | None:
    """The old symbols above the region, the region's, and the old ones below
    it shifted; None when a symbol outside may have changed after all.

    `region`: its first row, old and new end rows, and a byte offset in the new
    source at or before the region's end.
    """
    first, old_end, new_end, end_byte = region
    delta = new_end - old_end
    # Symbols sort by their first line, comments included, which for the
    # region's first symbols may lie above the region.
    low = bisect.bisect_left(old, first, key=_start)
    while low > 0 and old[low - 1].body_start_line >= first:
        low -= 1
    high = bisect.bisect_left(old, old_end, key=_start)
    above, below = old[:low], old[high:]
    # A symbol below whose comments reach into the region may have changed (and
    # sorts among the region's): leave that to a whole parse.
    inside_before = [_body_start(symbol) for symbol in old[low:high]]
    if not (
        max(map(_body_start, above), default=first - 1) < first
        and first <= min(inside_before, default=first)
        and max(inside_before, default=first) < old_end
        and min(map(_body_start, below), default=old_end) >= old_end
        and _no_comment_across(spec, source, end_byte)
    ):
        return None
    if delta and any(symbol.end_line > first for symbol in above):
        # The containers around a nested region end `delta` lines further.
        above = [
            _shift_end(symbol, delta) if symbol.end_line > first else symbol for symbol in above
        ]
    inside = [
        symbol
        for symbol in symbols_from_tree(tree, lines, spec)
        if first <= symbol.body_start_line < new_end
    ]
    if delta:
        below = [_shift(symbol, delta) for symbol in below]
    _rescan(below, lines, spec, new_end)
    return above + inside + below


def _no_comment_across(spec: LanguageSpec, source: bytes, offset: int) -> bool:
    """False when a `*/` follows `offset` before any `/*`: the comment scan of a
    symbol below (`index._block_comment_start`) could then look for its `/*`
    above `offset`, in the lines that changed."""
    if "/*" not in spec.comment_prefixes:
        return True
    closing = source.find(b"*/", offset)
    opening = source.find(b"/*", offset)
    return closing == -1 or (opening != -1 and opening < closing)


def _rescan(below: list[Symbol], lines: Sequence[str], spec: LanguageSpec, end: int) -> None:
    """The comment scan of the symbols `below` a reparsed region ending at row
    `end` that stopped at `end`, looking at the changed line above: run again
    from there (the lines it went through did not change)."""
    index = 0
    while index < len(below) and below[index].start_line <= end:
        symbol = below[index]
        start = comments_above(lines, end, spec, symbol.body_start_line)
        if start != symbol.start_line:
            below[index] = Symbol(
                symbol.path,
                symbol.kind,
                start,
                symbol.body_start_line,
                symbol.end_line,
                symbol.indent,
            )
        index += 1


def _start(symbol: Symbol) -> int:
    return symbol.start_line


_body_start = operator.attrgetter("body_start_line")


def _source(text: Text) -> bytes:
    """What the parser reads: the lines joined with `\\n`, as `index.source_bytes`
    gives."""
    return text.lines_joined().encode("utf-8")


def _whole(
    previous: _Snapshot | None,
    spec: LanguageSpec,
    version: int | None,
    source: bytes,
    lines: Sequence[str],
    clean: _Document | None,
) -> _Document:
    """The document parsed whole: incrementally from the last parse without a
    syntax error when there is one and the result has none either, else from
    scratch. `clean`: the last version without a syntax error, kept when this
    one has one.

    Tree-sitter reusing subtrees next to a syntax error can recover from it
    otherwise than a fresh parse does (an unclosed JavaScript template string,
    a stray function header in a class did): a tree with an error is neither
    the start nor the result of an incremental parse here.
    """
    base = None
    if previous is not None and not previous.tree.root_node.has_error:
        base = _reparse(previous, spec, source, lines)
    if base is None:
        tree = parse(spec.name, source)
        fresh = _Snapshot(source, len(lines), tree, symbols_from_tree(tree, lines, spec))
        if tree.root_node.has_error:
            # Keep the last clean parse as the start of the next reparse.
            return _Document(
                version,
                spec.name,
                source,
                len(lines),
                lines,
                fresh.symbols,
                None,
                tree,
                previous if previous is not None else fresh,
                True,
                clean,
            )
        base = fresh
    return _Document(
        version, spec.name, source, len(lines), lines, base.symbols, None, base.tree, base
    )


def _outline(
    tree: ts.Tree, document: _Document, spec: LanguageSpec, changed: int
) -> Container | None:
    """The outline of a document from its whole tree; None when a syntax error
    comes before byte `changed` (regions above an error are not trusted, and a
    user typing makes many: do not outline for nothing)."""
    root = tree.root_node
    if root.type == "ERROR":
        return None
    children = root.children
    if root.has_error:
        for child in children:
            if child.start_byte > changed:
                break
            if child.has_error or child.is_missing:
                return None
    count = document.line_count
    return build(children, 0, count, count, "", document.lines, spec, error=root.has_error)


def _reparse(
    cached: _Snapshot, spec: LanguageSpec, source: bytes, lines: Sequence[str]
) -> _Snapshot | None:
    """`cached` (parsed without a syntax error) reparsed incrementally to `source`;
    only the top-level definitions around the change are queried again. None
    when the new tree has a syntax error."""
    old = cached.source
    start, old_end, new_end = changed_bytes(old, source)
    if start == old_end == new_end:
        return cached
    # A copy: `cached` stays the start of later reparses while this one has an error.
    tree = cached.tree.copy()
    tree.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_point(old, start),
        old_end_point=_point(old, old_end),
        new_end_point=_point(source, new_end),
    )
    new_tree = parse(spec.name, source, tree)
    if new_tree.root_node.has_error:
        return None
    region = _region(tree, new_tree, start, new_end, source)
    if region is None:
        symbols = symbols_from_tree(new_tree, lines, spec)
    else:
        first_row, last_row, nodes = region
        delta = len(lines) - cached.line_count
        old_last_row = last_row - delta
        before = [s for s in cached.symbols if s.body_start_line < first_row]
        after = [
            _shift(s, delta) if delta else s
            for s in cached.symbols
            if s.body_start_line > old_last_row
        ]
        if (after and after[0].start_line <= last_row) or not _no_comment_across(
            spec, source, new_end
        ):
            # Comments reaching over the region's edge (see `_merge`).
            return _Snapshot(source, len(lines), new_tree, symbols_from_tree(new_tree, lines, spec))
        _rescan(after, lines, spec, last_row + 1)
        symbols = before + symbols_from_tree(new_tree, lines, spec, nodes) + after
    return _Snapshot(source, len(lines), new_tree, symbols)


def changed_bytes(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, old_end, new_end): the byte range that differs, from the longest
    common prefix and then the longest common suffix of what remains."""
    limit = min(len(old), len(new))
    start = _same_length(lambda a, b: old[a:b] == new[a:b], limit)
    old_end, new_end = len(old), len(new)
    suffix = _same_length(
        lambda a, b: old[old_end - b : old_end - a] == new[new_end - b : new_end - a],
        limit - start,
    )
    return start, old_end - suffix, new_end - suffix


def _same_length(same: Callable[[int, int], bool], limit: int) -> int:
    """The longest n (at most `limit`) for which `same(0, n)` holds, given that
    `same(a, b)` says whether the bytes from a to b are alike: compared in slices
    (C speed) that double while they match and halve where they do not, so a 600 kB
    file is a few dozen comparisons."""
    length, step = 0, _CHUNK
    while length < limit:
        step = min(step, limit - length)
        if same(length, length + step):
            length += step
            step *= 2
        elif step == 1:
            break
        else:
            step //= 2
    return length


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

    Taken: the nodes the change or a changed range touches, the node before
    them (the change may end right after it), and the nodes after them up to
    the first that is not a comment or attribute (whose leading comments may
    have changed). Extended so no other top-level node shares their first or
    last row, which lets symbols outside be told apart by line.
    """
    root = new_tree.root_node
    children = root.children
    if not children or root.type == "ERROR":
        return None
    low, high = start, new_end
    for changed in old_tree.changed_ranges(new_tree):
        low, high = min(low, changed.start_byte), max(high, changed.end_byte)
    ends = [child.end_byte for child in children]
    # The first node ending at or after `low`, then the one before it.
    first = max(bisect.bisect_left(ends, low) - 1, 0)
    last = first
    while last + 1 < len(children) and children[last + 1].start_byte <= high:
        last += 1
    while last + 1 < len(children):
        last += 1
        if not _is_leading(children[last]):
            break
    while first > 0 and _last_row(children[first - 1]) >= children[first].start_point.row:
        first -= 1
    while last + 1 < len(children) and children[last + 1].start_point.row <= _last_row(
        children[last]
    ):
        last += 1
    if first == 0 and last == len(children) - 1:
        return None
    nodes = children[first : last + 1]
    first_row = min(nodes[0].start_point.row, _point(source, start)[0])
    last_row = max(_last_row(nodes[-1]), _point(source, new_end)[0])
    return first_row, last_row, nodes


# Decorators and attributes standing alone at the top level in any language here.
_LEADING_TYPES = frozenset({"attribute_item", "decorator", "attribute_list", "annotation"})


def _shift_end(symbol: Symbol, delta: int) -> Symbol:
    return Symbol(
        symbol.path,
        symbol.kind,
        symbol.start_line,
        symbol.body_start_line,
        symbol.end_line + delta,
        symbol.indent,
    )


def _shift(symbol: Symbol, delta: int) -> Symbol:
    return Symbol(
        symbol.path,
        symbol.kind,
        symbol.start_line + delta,
        symbol.body_start_line + delta,
        symbol.end_line + delta,
        symbol.indent,
    )
