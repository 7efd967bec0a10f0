"""Re-indexing the part of a document around an edit without parsing the rest.

A document's *outline* is the sequence of line-aligned *units* of its top-level
nodes (nodes sharing a line form one unit), and, for a unit that is one big
class/namespace/impl/module, the same for that container's members. A region
of consecutive units can be parsed on its own, with the header and closing
lines of the containers around it (`class A {` ... `}`) kept at their real rows
through tree-sitter's included ranges, so rows in the small tree are the
document's rows and the symbols come out with their real lines and paths.

That is only taken as the symbols of the whole document when nothing outside
the region can see the difference. `reparse_region` checks it and answers None
(parse the whole document) otherwise:

- the document parsed without errors before, and the region parses without one;
- the region starts and ends with a unit the edit did not touch and that is
  code, not a comment (the margins), and the region's parse gives those units
  back exactly (same node types and positions): then the parser enters and
  leaves the region in the same state as in the whole document (the token
  before and after each boundary is unchanged), so the nodes outside are the
  ones it had, and the ones inside are these. Without a margin the region runs
  to the container's own header or closing lines, which are real text;
- the containers around the region come back with their real first and last
  rows.

`parse_edited_units` parses only the units an edit touched, with the same
containers around them, and keeps their syntax errors: for a text with an error
there, whose symbols outside those units are taken from its last version
without one (see `cache`). It only checks that the code below cannot mend the
error (which a whole parse would then not have).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence

import tree_sitter as ts

from lsp_edit.symbols.languages import LanguageSpec, grammar
from lsp_edit.values import record, value

# Below this many lines a container is reparsed whole rather than outlined.
NEST_MIN_LINES = 48
# A region longer than this is not worth it: the whole document is reparsed.
MAX_REGION_LINES = 3000

# Definitions whose `body` holds members that parse on their own inside the
# header and closing lines: the units an edit inside a long class reparses.
CONTAINER_TYPES: dict[str, frozenset[str]] = {
    "python": frozenset({"class_definition"}),
    "javascript": frozenset({"class_declaration"}),
    "typescript": frozenset({"class_declaration", "abstract_class_declaration"}),
    "tsx": frozenset({"class_declaration", "abstract_class_declaration"}),
    "rust": frozenset({"mod_item", "impl_item", "trait_item"}),
    "java": frozenset({"class_declaration", "interface_declaration", "record_declaration"}),
    "c_sharp": frozenset(
        {
            "namespace_declaration",
            "class_declaration",
            "struct_declaration",
            "interface_declaration",
            "record_declaration",
        }
    ),
    "cpp": frozenset({"namespace_definition", "class_specifier", "struct_specifier"}),
    "ruby": frozenset({"class", "module"}),
}

# Tokens that can span lines, as (opener, closer); "" as the closer: one whose
# end is not told apart from its start by text alone (any opener counts as left
# open). An edit that leaves one open may be closed by text far below it, and
# the whole document parse again (see `parse_edited_units`).
_C_BLOCK = ("/*", "*/")
_BACKTICK = ("`", "`")
SPANNING_TOKENS: dict[str, tuple[tuple[str, str], ...]] = {
    "python": (('"""', '"""'), ("'''", "'''")),
    "javascript": (_C_BLOCK, _BACKTICK),
    "typescript": (_C_BLOCK, _BACKTICK),
    "tsx": (_C_BLOCK, _BACKTICK),
    "go": (_C_BLOCK, _BACKTICK),
    "rust": (_C_BLOCK, ('"', '"'), ('r#"', "")),
    "java": (_C_BLOCK, ('"""', '"""')),
    "c": (_C_BLOCK,),
    "cpp": (_C_BLOCK, ('R"', "")),
    "c_sharp": (_C_BLOCK, ('"""', '"""'), ('@"', "")),
    "ruby": (("=begin", "=end"), ('"', '"'), ("'", "'"), ("<<", ""), ("%", "")),
}

_Signature = tuple[tuple[str, int, int, int, int], ...]


@record(slots=True)
class Unit:
    """Nodes sharing lines. `signature`: their types and positions, rows relative
    to the unit's first row. `solid`: holds code, not only comments/attributes.
    `attribute`: only attributes (and comments), which attach to the next unit.
    `error`: holds a syntax error. `container`: the outline of its members when
    it is one long container."""

    signature: _Signature
    solid: bool
    attribute: bool
    error: bool
    container: Container | None


@record(slots=True)
class Unread:
    """The nodes of a container's units not read yet (see `Container.unit`):
    units are read when an edit reaches them, not all when the outline is built.
    `firsts[i]`: the number in `nodes` of unit i's first node. `lines`: the text
    the nodes were parsed from. `error`: whether a node may hold a syntax error."""

    nodes: Sequence[ts.Node]
    firsts: list[int]
    lines: Sequence[str]
    spec: LanguageSpec
    error: bool


@record(slots=True)
class Container:
    """The units of a container's members (or of the document at the top).

    Rows are relative to the container's first row (absolute at the top):
    `starts[i]` is unit i's first row, its lines run to the next unit's;
    `header` rows `0..starts[0]` hold `class A {`, `end..closer_end` hold `}`.
    `node_type` is the container node's type ("" at the top). `column`: the
    column all its units of code start at, None when they differ (kept only
    where indentation carries the parser's state, see `_tracks_column`).
    `units` holds, for a unit not read yet, its number in `unread` (read
    through `unit`).
    """

    starts: list[int]
    units: list[Unit | int]
    end: int
    closer_end: int
    node_type: str
    column: int | None
    unread: Unread

    def unit(self, index: int) -> Unit:
        """Unit `index`, read from its nodes the first time."""
        unit = self.units[index]
        if isinstance(unit, int):
            unit = self.units[index] = _read_unit(self.unread, unit)
        return unit

    def has_error_above(self, stop: int) -> bool:
        """Whether a unit before unit `stop` holds a syntax error (the units put
        in by region updates never do)."""
        return self.unread.error and any(self.unit(index).error for index in range(stop))


def _last_row(node: ts.Node) -> int:
    end = node.end_point
    if end.column == 0 and end.row > node.start_point.row:
        return end.row - 1
    return end.row


@record(slots=True)
class _Node:
    """What the outline reads of a node, read once (each read crosses into C)."""

    node: ts.Node
    type: str
    row: int
    column: int
    end_row: int
    end_column: int
    last_row: int
    named: bool
    error: bool


def _read(node: ts.Node) -> _Node:
    start, end = node.start_point, node.end_point
    last = end.row - 1 if end.column == 0 and end.row > start.row else end.row
    return _Node(
        node,
        node.type,
        start.row,
        start.column,
        end.row,
        end.column,
        last,
        node.is_named,
        # (True for a MISSING node too.)
        node.has_error,
    )


def _group(nodes: Sequence[ts.Node]) -> list[list[_Node]]:
    groups: list[list[_Node]] = []
    last = -1
    for node in nodes:
        read = _read(node)
        if groups and read.row <= last:
            groups[-1].append(read)
        else:
            groups.append([read])
        last = max(last, read.last_row)
    return groups


def _members(body: ts.Node) -> list[ts.Node]:
    """A body's children without its opening and closing delimiters."""
    children = list(body.children)
    if children and not children[0].is_named:
        children = children[1:]
    if children and not children[-1].is_named:
        children = children[:-1]
    return children


def _unwrap(node: ts.Node, spec: LanguageSpec) -> ts.Node:
    while node.type in spec.wrapper_nodes and node.named_child_count:
        child = node.named_child(node.named_child_count - 1)
        if child is None:
            break
        node = child
    return node


def _body(node: ts.Node, spec: LanguageSpec, containers: frozenset[str]) -> ts.Node | None:
    inner = _unwrap(node, spec)
    if inner.type not in containers:
        return None
    return inner.child_by_field_name("body")


def build(
    nodes: Sequence[ts.Node],
    base: int,
    end: int,
    closer_end: int,
    node_type: str,
    lines: Sequence[str],
    spec: LanguageSpec,
    *,
    error: bool,
) -> Container:
    """The outline of sibling `nodes` (rows relative to `base`; `error`: whether
    one may hold a syntax error). Only the rows are read now: each unit is read
    when an edit reaches it."""
    starts, firsts = _unit_starts(nodes)
    unread = Unread(nodes, firsts, lines, spec, error)
    container = Container(
        [start - base for start in starts] if base else starts,
        list(range(len(starts))),
        end - base,
        closer_end - base,
        node_type,
        None,
        unread,
    )
    if _tracks_column(spec):
        container.column = _column([container.unit(index) for index in range(len(starts))])
    return container


def _tracks_column(spec: LanguageSpec) -> bool:
    """Whether the column units start at is state the parser carries into a
    region (Python's indentation)."""
    return spec.name == "python"


def _column(units: Sequence[Unit], column: int | None = -1) -> int | None:
    """The column the units of code start at (`column` when given, -1: any),
    None when they differ."""
    for unit in units:
        if unit.solid:
            if column == -1:
                column = unit.signature[0][2]
            elif unit.signature[0][2] != column:
                return None
    return column


def _unit_starts(nodes: Sequence[ts.Node]) -> tuple[list[int], list[int]]:
    """Where the units of sibling `nodes` start (nodes sharing a line form one):
    each one's first row, and the number of its first node."""
    # (Two reads per node and no object: this runs for every top-level node
    # at the first edit after a whole parse.)
    starts: list[int] = []
    firsts: list[int] = []
    last = -1
    for number, node in enumerate(nodes):
        start, end = node.start_point, node.end_point
        row, end_row = start.row, end.row
        if row > last:
            starts.append(row)
            firsts.append(number)
        node_last = end_row - 1 if end.column == 0 and end_row > row else end_row
        if node_last > last:
            last = node_last
    return starts, firsts


def _units(
    nodes: Sequence[ts.Node], lines: Sequence[str], spec: LanguageSpec
) -> tuple[list[int], list[Unit]]:
    """The units of sibling `nodes`, read: each one's first row, and the unit."""
    starts, firsts = _unit_starts(nodes)
    unread = Unread(nodes, firsts, lines, spec, error=True)
    return starts, [_read_unit(unread, number) for number in range(len(firsts))]


def _read_unit(unread: Unread, number: int) -> Unit:
    """Unit `number` of `unread`: its nodes' signature, whether they hold code,
    attributes and a syntax error; an outline of its members too when it is a
    long container."""
    firsts, nodes = unread.firsts, unread.nodes
    stop = firsts[number + 1] if number + 1 < len(firsts) else len(nodes)
    attributes = unread.spec.attribute_nodes
    signature: list[tuple[str, int, int, int, int]] = []
    named: list[tuple[ts.Node, int]] = []
    first = -1
    solid = attribute = error = False
    for node in nodes[firsts[number] : stop]:
        start, end = node.start_point, node.end_point
        row, end_row = start.row, end.row
        if first < 0:
            first = row
        node_type = node.type
        signature.append((node_type, row - first, start.column, end_row - first, end.column))
        # (True for a MISSING node too.)
        if node.has_error:
            error = True
        if node.is_named:
            named.append((node, end_row - 1 if end.column == 0 and end_row > row else end_row))
            if node_type in attributes:
                attribute = True
            elif "comment" not in node_type:
                solid = True
    container = None
    if not error and len(named) == 1 and named[0][1] - first >= NEST_MIN_LINES:
        container = _nested(named[0][0], first, unread.lines, unread.spec)
    return Unit(tuple(signature), solid, attribute and not solid, error, container)


def _nested(
    node: ts.Node, first: int, lines: Sequence[str], spec: LanguageSpec
) -> Container | None:
    body = _body(node, spec, CONTAINER_TYPES.get(spec.name, frozenset()))
    if body is None:
        return None
    members = _members(body)
    if not members:
        return None
    top, bottom = members[0], members[-1]
    top_row, bottom_row = top.start_point.row, _last_row(bottom)
    last_row = _last_row(node)
    # The header and closing lines must hold nothing of the members.
    # (Columns count UTF-8 bytes.)
    if top_row <= first or lines[top_row].encode()[: top.start_point.column].strip():
        return None
    if bottom_row > last_row or (
        bottom.end_point.column and lines[bottom_row].encode()[bottom.end_point.column :].strip()
    ):
        return None
    member_end = bottom_row + 1
    return build(
        members,
        first,
        member_end,
        last_row + 1,
        _unwrap(node, spec).type,
        lines,
        spec,
        error=False,
    )


@value
class _Level:
    container: Container
    base: int
    index: int


@value
class _Place:
    """Where some rows sit in an outline: units `first..last` (inclusive) of
    `container`, whose rows are relative to `base`, inside the containers of
    `levels` (outermost first)."""

    container: Container
    base: int
    levels: list[_Level]
    first: int
    last: int


def _locate(outline: Container, low: int, high: int) -> _Place:
    """The units holding rows `low..high`, in the innermost container holding
    them all."""
    container, base = outline, 0
    levels: list[_Level] = []
    while True:
        starts = container.starts
        first = max(bisect.bisect_right(starts, low - base) - 1, 0)
        last = max(bisect.bisect_right(starts, high - base) - 1, 0)
        child = container.unit(first).container if first == last else None
        if child is None:
            break
        child_base = base + starts[first]
        if not (child_base + child.starts[0] <= low and high < child_base + child.end):
            break
        levels.append(_Level(container, base, first))
        container, base = child, child_base
    return _Place(container, base, levels, first, last)


def _parseable(place: _Place, spec: LanguageSpec, stop: int) -> bool:
    """Whether units from the start of `place` up to `stop` can be parsed apart
    from the rest of the document."""
    container, levels = place.container, place.levels
    # Python's indentation is state carried from the members above the region
    # (the region is parsed after the header alone): they must all start where
    # the region does, at every level.
    if _tracks_column(spec) and any(
        outer.column is None for outer in [container, *(level.container for level in levels)]
    ):
        return False
    # A syntax error above the region may leave the parser in another state
    # where the region starts; one below it cannot reach back over the margin.
    return not (
        container.has_error_above(stop)
        or any(level.container.has_error_above(level.index) for level in levels)
    )


def _rows(place: _Place, begin: int, stop: int, delta: int) -> tuple[int, int, int] | None:
    """The region of units `begin..stop` (half-open): its first row, old and new
    end rows; None when it is too long to be worth it."""
    container, base = place.container, place.base
    starts = container.starts
    # At the top, a region from the first unit starts with the document.
    region_first = base + starts[begin] if place.levels or begin > 0 else 0
    old_end = base + (starts[stop] if stop < len(starts) else container.end)
    new_end = old_end + delta
    if new_end - region_first > MAX_REGION_LINES or new_end < region_first:
        return None
    return region_first, old_end, new_end


def _parse_region(
    place: _Place,
    spec: LanguageSpec,
    lines: Sequence[str],
    rows: tuple[int, int, int],
    delta: int,
) -> tuple[ts.Tree, list[ts.Node]] | None:
    """Parses the region's rows with the header and closing lines of the
    containers around it. Returns its tree and its top nodes inside the
    innermost container; None when a container does not come back whole."""
    container, base, levels = place.container, place.base, place.levels
    region_first, _, new_end = rows
    # The containers around the region (below the top): their header rows, the
    # region, then their closing rows, innermost first.
    around = [(level.container, level.base) for level in levels[1:]]
    if levels:
        around.append((container, base))
    segments = [(outer_base, outer_base + outer.starts[0]) for outer, outer_base in around]
    segments.append((region_first, new_end))
    segments += [
        (outer_base + outer.end + delta, outer_base + outer.closer_end + delta)
        for outer, outer_base in reversed(around)
    ]
    tree = _parse_rows(spec, lines, segments)
    # Walk down the containers around the region; each must come back whole.
    nodes = list(tree.root_node.children)
    for level, inner_base in _chain(levels, base):
        groups = _group(nodes)
        named = [read.node for read in groups[0] if read.named] if len(groups) == 1 else []
        if len(named) != 1:
            return None
        node = named[0]
        inner = level.container.unit(level.index).container
        body = _body(node, spec, CONTAINER_TYPES.get(spec.name, frozenset()))
        if (
            inner is None
            or body is None
            or _unwrap(node, spec).type != inner.node_type
            or node.start_point.row != inner_base
            or (
                # Without closing lines (Python) the container ends with the region.
                inner.closer_end > inner.end
                and _last_row(node) != inner_base + inner.closer_end + delta - 1
            )
        ):
            return None
        nodes = _members(body)
    return tree, nodes


def reparse_region(
    outline: Container,
    spec: LanguageSpec,
    lines: Sequence[str],
    changed_first: int,
    changed_last: int,
    delta: int,
) -> tuple[int, int, int, ts.Tree] | None:
    """Parses the region around old rows `changed_first..changed_last` (inclusive,
    the rows the edit touched) of a document whose new `lines` have `delta` more
    lines, and updates `outline` in place to the new text.

    Returns (first row, old end row, new end row, tree of the region), or None
    (outline untouched) when the region cannot stand for the document.
    """
    place = _locate(outline, max(changed_first - 1, 0), changed_last + 1)
    container, base, levels, first, last = (
        place.container,
        place.base,
        place.levels,
        place.first,
        place.last,
    )
    starts, units = container.starts, container.units
    if not units:
        return None
    # Margins: an untouched unit of code on each side (attributes before it go along).
    before = first - 1
    while before >= 0 and not container.unit(before).solid:
        before -= 1
    while before > 0 and container.unit(before - 1).attribute:
        before -= 1
    begin = max(before, 0)
    after = last + 1
    while after < len(units) and not container.unit(after).solid:
        after += 1
    stop = min(after + 1, len(units))
    if not _parseable(place, spec, stop):
        return None
    rows = _rows(place, begin, stop, delta)
    if rows is None:
        return None
    parsed = _parse_region(place, spec, lines, rows, delta)
    if parsed is None or parsed[0].root_node.has_error:
        return None
    tree, nodes = parsed
    new_starts, new_units = _units(nodes, lines, spec)
    if base:
        new_starts = [start - base for start in new_starts]
    # The untouched units at both ends come back as they were.
    head = first - begin if before >= 0 else 0
    tail = stop - after if after < len(units) else 0
    if head + tail > len(new_units):
        return None
    for offset in range(head):
        if (
            new_starts[offset] != starts[begin + offset]
            or new_units[offset].signature != container.unit(begin + offset).signature
        ):
            return None
    for offset in range(1, tail + 1):
        if (
            new_starts[-offset] != starts[stop - offset] + delta
            or new_units[-offset].signature != container.unit(stop - offset).signature
        ):
            return None
    if delta:
        starts[stop:] = [start + delta for start in starts[stop:]]
        container.end += delta
        container.closer_end += delta
        for level in levels:
            outer = level.container
            outer.starts[level.index + 1 :] = [
                start + delta for start in outer.starts[level.index + 1 :]
            ]
            outer.end += delta
            outer.closer_end += delta
    starts[begin:stop] = new_starts
    units[begin:stop] = new_units
    if container.column is not None:
        container.column = _column(new_units, container.column)
    return rows[0], rows[1], rows[2], tree


@value
class EditedUnits:
    """The units an edit touched, parsed on their own: their first row, old and
    new end rows, and their tree. `broken`: they have a syntax error that the
    code below them cannot mend (see `parse_edited_units`)."""

    first: int
    old_end: int
    new_end: int
    tree: ts.Tree
    broken: bool


def parse_edited_units(
    outline: Container,
    spec: LanguageSpec,
    lines: Sequence[str],
    changed_first: int,
    changed_last: int,
    delta: int,
) -> EditedUnits | None:
    """Parses the units holding old rows `changed_first..changed_last` on their
    own (no margins), with the header and closing lines of the containers around
    them, whether or not they now have a syntax error; `outline` is left as it is.

    None when the region is too long or a container around it does not come
    back whole. Otherwise nothing is checked about the code outside the region:
    a caller keeps its own symbols there when the region is `broken`. The
    region is not counted broken when the code below could mend its error,
    which a whole parse would then not have: the next unit of code completes it
    (a decorator or `template <...>` written above a definition), it leaves a
    comment or string open that text below could close, or (Ruby) a lone `end`
    below could close what it leaves open.
    """
    place = _locate(outline, changed_first, changed_last)
    container = place.container
    units = container.units
    if not units:
        return None
    # Attributes and comments go with the definition after them.
    begin, stop = place.first, place.last + 1
    while begin > 0 and container.unit(begin - 1).attribute:
        begin -= 1
    while stop < len(units) and not container.unit(stop - 1).solid:
        stop += 1
    if not _parseable(place, spec, stop):
        return None
    rows = _rows(place, begin, stop, delta)
    if rows is None:
        return None
    parsed = _parse_region(place, spec, lines, rows, delta)
    if parsed is None:
        return None
    tree = parsed[0]
    broken = tree.root_node.has_error and not _left_open(spec, lines[rows[0] : rows[2]])
    if broken and spec.name == "ruby":
        broken = not _lone_end_below(outline, place, lines, delta)
    after = stop
    while broken and after < len(units):
        after += 1
        if container.unit(after - 1).solid:
            with_next = _rows(place, begin, after, delta)
            parsed = _parse_region(place, spec, lines, with_next, delta) if with_next else None
            broken = parsed is not None and parsed[0].root_node.has_error
            break
    return EditedUnits(rows[0], rows[1], rows[2], tree, broken)


def _left_open(spec: LanguageSpec, lines: Sequence[str]) -> bool:
    """Whether `lines` may end inside a token that can span lines (counting
    delimiters in the text: a quote in a comment counts too, which only costs a
    whole parse)."""
    text = "\n".join(lines)
    for opener, closer in SPANNING_TOKENS.get(spec.name, ()):
        if opener not in text:
            continue
        if not closer:
            return True
        if opener == closer:
            if text.count(opener) % 2:
                return True
        elif text.rfind(opener) > text.rfind(closer):
            return True
    return False


def _lone_end_below(outline: Container, place: _Place, lines: Sequence[str], delta: int) -> bool:
    """Whether a Ruby `end` stands alone at the top level below the region: it
    parses as a name, and would close a `def` or `class` the edit left open."""
    index = place.levels[0].index if place.levels else place.last
    for number in range(index + 1, len(outline.units)):
        start = outline.starts[number]
        for node_type, row, column, end_row, end_column in outline.unit(number).signature:
            if (
                node_type == "identifier"
                and end_row == row
                and end_column == column + 3
                and lines[start + delta + row].encode()[column : column + 3] == b"end"
            ):
                return True
    return False


def _chain(levels: list[_Level], base: int) -> Iterator[tuple[_Level, int]]:
    """Each level with the first row of the container below it."""
    for position, level in enumerate(levels):
        below = levels[position + 1].base if position + 1 < len(levels) else base
        yield level, below


def _parse_rows(
    spec: LanguageSpec, lines: Sequence[str], segments: list[tuple[int, int]]
) -> ts.Tree:
    """Parses only the rows of `segments` (ascending, half-open), each at its own
    row: the rows are concatenated and included ranges give their real points."""
    count = len(lines)
    chunks: list[bytes] = []
    ranges: list[ts.Range] = []
    offset = 0
    for first, end in segments:
        if end <= first:
            continue
        text = "\n".join(lines[first:end])
        if end < count:
            chunk = (text + "\n").encode("utf-8")
            end_point = (end, 0)
        else:
            # The document's last line has no newline after it.
            chunk = text.encode("utf-8")
            end_point = (end - 1, len(lines[end - 1].encode("utf-8")))
        chunks.append(chunk)
        ranges.append(ts.Range((first, 0), end_point, offset, offset + len(chunk)))
        offset += len(chunk)
    parser = ts.Parser(grammar(spec.name))
    if ranges:
        parser.included_ranges = ranges
    return parser.parse(b"".join(chunks))
