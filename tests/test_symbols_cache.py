"""`SymbolIndex`: cached per (key, version), reparsed incrementally, always giving
the symbols a fresh parse gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_edit.symbols import SymbolIndex, index_symbols
from lsp_edit.text import LineEdit, Text

PY = Text.from_string(
    "import os\n\n\n# Helper.\ndef helper(x):\n    return x\n\n\n"
    "class Client:\n    def open(self):\n        return 1\n\n    @logged\n    def chat(self, m):\n"
    "        return m\n\n\ndef main():\n    pass\n"
)
JS = Text.from_string(
    "// Builds.\nfunction build() {\n  return 1;\n}\n\n"
    "class Client {\n  chat(m) {\n    return m;\n  }\n}\n"
    "\nconst f = () => 2;\n"
)
SNIPPETS = [
    "",
    "def added():",
    "    pass",
    "# note",
    "class X:",
    "    def m(self): pass",
    "@dec",
    "x = 1",
    "  y",
    "'''",
    "}",
    "function g() {}",
    "// c",
    "class Y {}",
]


def test_the_same_version_returns_the_cached_symbols() -> None:
    index = SymbolIndex()
    first = index.symbols("a.py", 1, PY, "python")
    assert index.symbols("a.py", 1, Text.from_string(""), "python") is first


def test_a_new_version_reflects_the_edit() -> None:
    index = SymbolIndex()
    index.symbols("a.py", 1, PY, "python")
    edited = PY.replace([LineEdit(17, 17, ("def added():", "    pass", "", ""))])
    paths = [s.dotted for s in index.symbols("a.py", 2, edited, "python")]
    assert paths == ["helper", "Client", "Client-open", "Client-chat", "added", "main"]


def test_forget_drops_a_document() -> None:
    index = SymbolIndex()
    index.symbols("a.py", 1, PY, "python")
    index.forget("a.py")
    assert "a.py" not in index


edits = st.lists(
    st.tuples(
        st.integers(0, 40), st.integers(0, 3), st.lists(st.sampled_from(SNIPPETS), max_size=3)
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(edits=edits, javascript=st.booleans())
def test_incremental_reparse_gives_the_symbols_of_a_fresh_parse(
    edits: list[tuple[int, int, list[str]]], javascript: bool
) -> None:
    language, text = ("javascript", JS) if javascript else ("python", PY)
    index = SymbolIndex()
    index.symbols("doc", 0, text, language)
    for version, (start, length, new_lines) in enumerate(edits, start=1):
        start = min(start, text.line_count)
        end = min(start + length, text.line_count)
        text = text.replace([LineEdit(start, end, tuple(new_lines))])
        assert index.symbols("doc", version, text, language) == index_symbols(text, language)
