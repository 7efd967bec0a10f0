"""The tree-sitter symbol index: AST paths for a document, per language, driven by
the query files in `lsp_edit/grammars/`."""

from lsp_edit.symbols.cache import SymbolIndex
from lsp_edit.symbols.index import find_symbols, index_symbols, symbol_at
from lsp_edit.symbols.languages import language_for, supported_languages
from lsp_edit.symbols.model import Symbol

__all__ = [
    "Symbol",
    "SymbolIndex",
    "find_symbols",
    "index_symbols",
    "language_for",
    "supported_languages",
    "symbol_at",
]
