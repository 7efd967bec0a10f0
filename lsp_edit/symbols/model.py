"""A document's symbols: each definition with its AST path, kind and exact lines."""

from __future__ import annotations

from functools import partial

from lsp_edit.values import NamedTuple

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from collections.abc import Sequence


class Symbol(NamedTuple):
    """One definition in a document.

    `path` is the names of the enclosing definitions and this one, outermost first
    (`("net", "Client", "chat")`, shown as `net-Client-chat`). Lines are 0-based
    indices into the document's lines, `end_line` exclusive. `start_line` includes
    what belongs to the symbol above it (decorators, attributes, the doc comment or
    comments directly above); `body_start_line` is where the definition itself
    starts (the `def`/`class`/`fn` line), after those. `indent` is the leading
    whitespace of the definition line.

    A tuple: an index of a large file makes thousands (see `symbol_from_row`).
    """

    path: tuple[str, ...]
    kind: str
    start_line: int
    body_start_line: int
    end_line: int
    indent: str

    @property
    def dotted(self) -> str:
        return "-".join(self.path)


# A symbol from its fields in order, built without a call into Python: about a
# tenth of what `Symbol(...)` costs.
symbol_from_row = partial(tuple.__new__, Symbol)


def symbol_table(symbols: Sequence[Symbol]) -> list[str]:
    """One row per symbol, as `lsp-edit symbols` prints them: its AST path, kind and
    1-based line range (first and last line), in aligned columns."""
    width = max((len(s.dotted) for s in symbols), default=0)
    kinds = max((len(s.kind) for s in symbols), default=0)
    return [
        f"{s.dotted:<{width}}  {s.kind:<{kinds}}  {s.start_line + 1}-{s.end_line}" for s in symbols
    ]
