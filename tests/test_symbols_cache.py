"""`SymbolIndex`: cached per (key, version), reparsed around each edit, giving
the symbols a fresh parse gives to a text without a syntax error; to one with
an error around the edit, the last clean version's symbols outside the edited
code and that code's own inside."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lsp_edit.symbols import SymbolIndex, index_symbols, regions
from lsp_edit.symbols.cache import changed_bytes
from lsp_edit.symbols.index import parse, source_bytes
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

# One document per language: top-level definitions, and a container holding
# most of the file (whose members are reparsed on their own when the outline
# nests, which the tests switch on for small containers).
DOCUMENTS = {
    "python": "import os\n\nLIMIT = 3\n\n\n"
    + "class Client:\n    '''A client.'''\n\n"
    + "".join(f"    def m{n}(self, x):\n        return x + {n}\n\n" for n in range(6))
    + "\n# Entry.\ndef main():\n    pass\n\n\ndef tail():\n    return 1\n",
    "javascript": "// Builds.\nfunction build() {\n  return 1;\n}\n\n"
    + "class Client {\n"
    + "".join(f"  m{n}(x) {{\n    return x + {n};\n  }}\n\n" for n in range(6))
    + "}\n\nconst f = () => 2;\nfunction last() {\n  return 3;\n}\n",
    "go": "package main\n\ntype Client struct {\n\tvalue int\n}\n\n"
    + "".join(
        f"// M{n} adds.\nfunc (c *Client) M{n}(x int) int {{\n\treturn x + {n}\n}}\n\n"
        for n in range(5)
    )
    + "const Limit = 3\n\nfunc main() {\n}\n",
    "rust": "use std::fmt;\n\n#[derive(Debug)]\npub struct Client {\n    value: i64,\n}\n\n"
    + "impl Client {\n"
    + "".join(
        f"    /// Adds {n}.\n    pub fn m{n}(&self, x: i64) -> i64 {{\n        x + {n}\n    }}\n\n"
        for n in range(5)
    )
    + "}\n\nfn main() {\n}\n",
    "java": "package app;\n\nimport java.util.List;\n\npublic class Client {\n"
    + "    private int value;\n\n"
    + "".join(
        f"    /** Adds {n}. */\n    int m{n}(int x) {{\n        return x + {n};\n    }}\n\n"
        for n in range(6)
    )
    + "    class Inner {\n        void run() {\n        }\n    }\n}\n",
    "c_sharp": "using System;\n\nnamespace App.Net\n{\n    public class Client\n    {\n"
    + "".join(
        f"        /// <summary>Adds {n}.</summary>\n        public int M{n}(int x)\n"
        f"        {{\n            return x + {n};\n        }}\n\n"
        for n in range(4)
    )
    + "    }\n\n    class Other\n    {\n        void Run() { }\n    }\n}\n",
    "cpp": "#include <vector>\n\nnamespace net {\n\n"
    + "class Client {\n public:\n  int run(int x);\n};\n\n"
    + "".join(
        f"// Adds {n}.\nint Client::m{n}(int x) {{\n  return x + {n};\n}}\n\n" for n in range(5)
    )
    + "}  // namespace net\n\nint main() {\n  return 0;\n}\n",
    "ruby": "require 'set'\n\nmodule App\n  class Client\n"
    + "".join(f"    # Adds {n}.\n    def m{n}(x)\n      x + {n}\n    end\n\n" for n in range(5))
    + "  end\nend\n\nLIMIT = 3\n\ndef main\nend\n",
    "typescript": "interface Shape {\n  size: number;\n}\n\nexport class Client {\n"
    + "".join(f"  m{n}(x: number): number {{\n    return x + {n};\n  }}\n\n" for n in range(5))
    + "}\n\nfunction main(): void {\n}\n",
}

# Lines an edit writes: valid ones, and ones that break the syntax around them
# (unclosed strings, brackets and comments, stray closers, dedents).
COMMON = ["", "x", "}", "{", "(", '"', "'", "/*", "*/", "  // note", "    return 1;", "end"]
SNIPPETS = {
    "python": [
        "def added():",
        "    pass",
        "# note",
        "class X:",
        "    def m(self): pass",
        "@dec",
        "x = 1",
        "  y",
        "'''",
        '"""',
        "else:",
        "        return 2",
        "LIMIT2 = 4",
    ],
    "javascript": ["function g() {}", "class Y {}", "  m(x) {", "  }", "const h = () => {", "`"],
    "go": ["func g() {}", "type T struct {", "\tv int", "// note", "func (c *Client) N() {", "`"],
    "rust": ["fn g() {}", "impl Client {", "#[test]", "/// doc", "    fn n(&self) {}", "mod m {"],
    "java": ["    void g() {}", "    @Override", "class Y {", "    /**", "     */", "    int f;"],
    "c_sharp": [
        "        void G() { }",
        "    [Test]",
        "namespace N {",
        "        /// doc",
        "class Y {",
    ],
    "cpp": ["int g() { return 1; }", "class Y {", "};", "namespace m {", "template <typename T>"],
    "ruby": ["  def g", "  end", "class Y", "    # note", "=begin", "=end", "  x = <<~EOS"],
    "typescript": ["  g(): void {}", "interface Z {", "export function k() {}", "  @dec"],
}
LANGUAGES = sorted(DOCUMENTS)


@contextmanager
def nesting_small_containers() -> Iterator[None]:
    """Outlines the members of containers of any size, so small documents
    exercise regions inside a class/namespace too."""
    with mock.patch.object(regions, "NEST_MIN_LINES", 2):
        yield


def test_the_same_version_returns_the_cached_symbols() -> None:
    index = SymbolIndex()
    first = index.symbols("a.py", 1, PY, "python")
    assert index.symbols("a.py", 1, Text.from_string(""), "python") is first
    assert index.last_update == "cached"


def test_a_new_version_with_the_same_text_is_cached() -> None:
    index = SymbolIndex()
    first = index.symbols("a.py", 1, PY, "python")
    assert index.symbols("a.py", 2, Text.from_string(PY.render()), "python") == first
    assert index.last_update == "cached"


def test_a_new_version_reflects_the_edit() -> None:
    index = SymbolIndex()
    index.symbols("a.py", 1, PY, "python")
    edited = PY.replace([LineEdit(17, 17, ("def added():", "    pass", "", ""))])
    paths = [s.dotted for s in index.symbols("a.py", 2, edited, "python")]
    assert paths == ["helper", "Client", "Client-open", "Client-chat", "added", "main"]


def test_an_edit_inside_one_function_reparses_only_the_code_around_it() -> None:
    index = SymbolIndex()
    index.symbols("a.py", 1, PY, "python")
    edited = PY.replace([LineEdit(10, 11, ("        return 2",))])
    assert index.symbols("a.py", 2, edited, "python") == index_symbols(edited, "python")
    assert index.last_update == "region"


def test_an_added_line_shifts_the_symbols_below_the_region() -> None:
    index = SymbolIndex()
    index.symbols("a.py", 1, PY, "python")
    edited = PY.replace([LineEdit(5, 5, ("    x += 1",))])
    symbols = index.symbols("a.py", 2, edited, "python")
    assert index.last_update == "region"
    assert [(s.dotted, s.start_line, s.end_line) for s in symbols] == [
        ("helper", 3, 7),
        ("Client", 9, 16),
        ("Client-open", 10, 12),
        ("Client-chat", 13, 16),
        ("main", 18, 20),
    ]


def test_an_edit_leaving_an_unclosed_string_reparses_only_the_code_around_it() -> None:
    index = SymbolIndex()
    index.symbols("a.py", 1, PY, "python")
    edited = PY.replace([LineEdit(10, 11, ('        return "1',))])
    symbols = index.symbols("a.py", 2, edited, "python")
    assert index.last_update == "region"
    assert [(s.dotted, s.start_line, s.end_line) for s in symbols] == [
        ("helper", 3, 6),
        ("Client", 8, 15),
        ("Client-open", 9, 11),
        ("Client-chat", 12, 15),
        ("main", 17, 19),
    ]


JAVA_CLASSES = Text.from_string(
    "".join(
        f"class S{n} {{\n    /** Runs {n}. */\n    int run(int x) {{\n"
        f"        return x * {n};\n    }}\n}}\n\n"
        for n in range(6)
    )
)
# Line 14 is `class S2 {`, line 31 `        return x * 4;`.
STRAY_PARENTHESIS = LineEdit(14, 15, ("class S2 { ( 2",))


def test_a_stray_parenthesis_in_a_class_header_keeps_the_classes_below_it() -> None:
    broken = JAVA_CLASSES.replace([STRAY_PARENTHESIS])
    # Parsed whole, tree-sitter's error recovery takes the rest of the file.
    assert [s.dotted for s in index_symbols(broken, "java")][-1] == "S2"
    index = SymbolIndex()
    index.symbols("A.java", 1, JAVA_CLASSES, "java")
    symbols = index.symbols("A.java", 2, broken, "java")
    assert index.last_update == "region"
    assert [(s.dotted, s.start_line) for s in symbols] == [
        ("S0", 0),
        ("S0-run", 1),
        ("S1", 7),
        ("S1-run", 8),
        ("S2", 14),
        ("S3", 21),
        ("S3-run", 22),
        ("S4", 28),
        ("S4-run", 29),
        ("S5", 35),
        ("S5-run", 36),
    ]


def test_an_edit_elsewhere_in_a_broken_text_keeps_the_symbols_between() -> None:
    index = SymbolIndex()
    index.symbols("A.java", 1, JAVA_CLASSES, "java")
    broken = JAVA_CLASSES.replace([STRAY_PARENTHESIS])
    index.symbols("A.java", 2, broken, "java")
    edited = broken.replace([LineEdit(31, 32, ("        return x * 40;", "        // more"))])
    symbols = index.symbols("A.java", 3, edited, "java")
    assert index.last_update == "region"
    assert [(s.dotted, s.start_line, s.end_line) for s in symbols][5:] == [
        ("S3", 21, 27),
        ("S3-run", 22, 26),
        ("S4", 28, 35),
        ("S4-run", 29, 34),
        ("S5", 36, 42),
        ("S5-run", 37, 41),
    ]


def test_fixing_the_error_gives_the_symbols_of_a_fresh_parse_again() -> None:
    index = SymbolIndex()
    index.symbols("A.java", 1, JAVA_CLASSES, "java")
    broken = JAVA_CLASSES.replace([STRAY_PARENTHESIS])
    index.symbols("A.java", 2, broken, "java")
    edited = broken.replace([LineEdit(31, 32, ("        return x * 40;",))])
    index.symbols("A.java", 3, edited, "java")
    fixed = edited.replace([LineEdit(14, 15, ("class S2 {",))])
    assert index.symbols("A.java", 4, fixed, "java") == index_symbols(fixed, "java")
    # Without a whole parse: the edit below was indexed as if made in the clean text.
    assert index.last_update == "cached"


def test_a_decorator_written_above_a_class_belongs_to_the_class() -> None:
    # Alone, the new line is an error; with the class below, it is not.
    index = SymbolIndex()
    index.symbols("a.js", 1, JS, "javascript")
    edited = JS.replace([LineEdit(4, 5, ("@logged",))])
    symbols = index.symbols("a.js", 2, edited, "javascript")
    assert symbols == index_symbols(edited, "javascript")
    assert [(s.dotted, s.start_line) for s in symbols][1] == ("Client", 4)


def test_a_comment_left_open_that_a_comment_below_closes_is_what_a_fresh_parse_sees() -> None:
    index = SymbolIndex()
    index.symbols("A.java", 1, JAVA_CLASSES, "java")
    # `class S1 {` becomes `/*`, which S1's own `/** Runs 1. */` closes: S1's
    # method is left without its class.
    edited = JAVA_CLASSES.replace([LineEdit(7, 8, ("/*",))])
    symbols = index.symbols("A.java", 2, edited, "java")
    assert symbols == index_symbols(edited, "java")
    assert [s.dotted for s in symbols][:4] == ["S0", "S0-run", "run", "S2"]


def test_a_ruby_def_left_open_above_a_lone_end_is_what_a_fresh_parse_sees() -> None:
    text = Text.from_string("def a\n  1\nend\n\ndef b\n  2\nend\n\ndef c\n  3\nend\nend\n")
    index = SymbolIndex()
    index.symbols("a.rb", 1, text, "ruby")
    # Without its `end`, `b` takes `c` and the lone `end` at the bottom.
    edited = text.replace([LineEdit(6, 7, ())])
    symbols = index.symbols("a.rb", 2, edited, "ruby")
    assert symbols == index_symbols(edited, "ruby")
    assert [s.dotted for s in symbols] == ["a", "b", "b-c"]


def test_a_stray_parenthesis_in_a_long_class_loses_only_the_member_it_is_in() -> None:
    text = Text.from_string(
        "class Big {\n"
        + "".join(
            f"    /** Runs {n}. */\n    int run{n}(int x) {{\n        return x * {n};\n    }}\n\n"
            for n in range(12)
        )
        + "}\n"
    )
    index = SymbolIndex()
    with nesting_small_containers():
        index.symbols("A.java", 1, text, "java")
        # Line 22 is the header of run4.
        broken = text.replace([LineEdit(22, 23, ("    int run4(int x) { (",))])
        symbols = index.symbols("A.java", 2, broken, "java")
    assert index.last_update == "region"
    paths = [s.dotted for s in symbols]
    assert paths == ["Big", *(f"Big-run{n}" for n in range(12))]


def test_an_edit_in_a_class_spanning_the_file_reparses_one_member() -> None:
    text = Text.from_string(DOCUMENTS["java"])
    index = SymbolIndex()
    with nesting_small_containers():
        index.symbols("A.java", 1, text, "java")
        edited = text.replace([LineEdit(9, 10, ("        return x * 2;",))])
        symbols = index.symbols("A.java", 2, edited, "java")
    assert index.last_update == "region"
    assert symbols == index_symbols(edited, "java")
    assert [s.dotted for s in symbols][:3] == ["Client", "Client-m0", "Client-m1"]


def test_a_line_added_in_a_class_spanning_the_file_moves_its_end() -> None:
    text = Text.from_string(DOCUMENTS["c_sharp"])
    index = SymbolIndex()
    with nesting_small_containers():
        index.symbols("a.cs", 1, text, "c_sharp")
        edited = text.replace([LineEdit(16, 16, ("            x += 1;",))])
        symbols = index.symbols("a.cs", 2, edited, "c_sharp")
    assert index.last_update == "region"
    assert symbols == index_symbols(edited, "c_sharp")
    assert (symbols[0].dotted, symbols[0].end_line) == ("App-Net", text.line_count + 1)


def test_an_edit_below_a_syntax_error_reparses_the_whole_document() -> None:
    broken = PY.replace([LineEdit(5, 6, ("    return (x",))])
    index = SymbolIndex()
    index.symbols("a.py", 1, broken, "python")
    edited = broken.replace([LineEdit(18, 19, ("    return 0",))])
    assert index.symbols("a.py", 2, edited, "python") == index_symbols(edited, "python")
    assert index.last_update == "full"


def test_an_edit_above_a_syntax_error_reparses_only_the_code_around_it() -> None:
    broken = PY.replace([LineEdit(18, 19, ("    return (x",))])
    index = SymbolIndex()
    index.symbols("a.py", 1, broken, "python")
    edited = broken.replace([LineEdit(5, 6, ("    return x + 1",))])
    assert index.symbols("a.py", 2, edited, "python") == index_symbols(edited, "python")
    assert index.last_update == "region"


def test_fixing_a_syntax_error_gives_the_symbols_of_the_fixed_text() -> None:
    index = SymbolIndex()
    index.symbols("a.py", 1, PY, "python")
    broken = PY.replace([LineEdit(10, 11, ("        return (1",))])
    index.symbols("a.py", 2, broken, "python")
    assert index.symbols("a.py", 3, PY, "python") == index_symbols(PY, "python")


def test_members_of_a_python_class_at_mixed_indentation_are_reparsed_whole() -> None:
    text = Text.from_string(DOCUMENTS["python"])
    index = SymbolIndex()
    with nesting_small_containers():
        index.symbols("a.py", 1, text, "python")
        stray = text.replace([LineEdit(6, 6, ("  y",))])
        index.symbols("a.py", 2, stray, "python")
        # `m3` loses its body: at these indentations `m4` and `m5` move into it.
        edited = stray.replace([LineEdit(19, 20, ())])
        symbols = index.symbols("a.py", 3, edited, "python")
    assert index.last_update == "full"
    assert symbols == index_symbols(edited, "python")
    assert "Client-m3-m4" in [s.dotted for s in symbols]


def test_a_comment_close_below_the_edit_makes_a_whole_reparse() -> None:
    text = Text.from_string(
        "int a() {\n  return 1;\n}\n\nint b() {\n  return 2;\n}\n\n"
        "int c() {\n  return 3;  // ends with */\n}\n\nint d() {\n  return 4;\n}\n"
    )
    index = SymbolIndex()
    index.symbols("a.c", 1, text, "c")
    # Looking for the `/*` of that `*/`, a comment scan could reach the edit.
    edited = text.replace([LineEdit(5, 6, ("  return 5;",))])
    assert index.symbols("a.c", 2, edited, "c") == index_symbols(edited, "c")
    assert index.last_update == "full"


def test_forget_drops_a_document() -> None:
    index = SymbolIndex()
    index.symbols("a.py", 1, PY, "python")
    index.forget("a.py")
    assert "a.py" not in index


@st.composite
def edit_sessions(draw: st.DrawFn) -> tuple[str, list[tuple[int, int, list[str]]]]:
    language = draw(st.sampled_from(LANGUAGES))
    lines = st.sampled_from(SNIPPETS[language] + COMMON)
    edits = draw(
        st.lists(
            st.tuples(st.integers(0, 70), st.integers(0, 3), st.lists(lines, max_size=3)),
            min_size=1,
            max_size=4,
        )
    )
    return language, edits


def _replay(language: str, text: Text, edits: list[tuple[int, int, list[str]]]) -> None:
    """A text without a syntax error gets the symbols of a fresh parse; one with
    an error, symbols in document order that each hold their name where they
    say they are."""
    index = SymbolIndex()
    index.symbols("doc", 0, text, language)
    for version, (start, length, new_lines) in enumerate(edits, start=1):
        start = min(start, text.line_count)
        end = min(start + length, text.line_count)
        text = text.replace([LineEdit(start, end, tuple(new_lines))])
        symbols = index.symbols("doc", version, text, language)
        if not parse(language, source_bytes(text)).root_node.has_error:
            assert symbols == index_symbols(text, language)
            continue
        assert symbols == sorted(symbols, key=lambda s: (s.start_line, -s.end_line))
        for symbol in symbols:
            assert 0 <= symbol.start_line <= symbol.body_start_line < symbol.end_line
            assert symbol.end_line <= text.line_count + 1
            lines = text.lines[symbol.body_start_line : symbol.end_line]
            assert any(symbol.path[-1] in line for line in lines)


@settings(max_examples=60, deadline=None)
@given(
    edits=st.lists(
        st.tuples(
            st.integers(0, 40),
            st.integers(0, 3),
            st.lists(
                st.sampled_from(SNIPPETS["python"] + SNIPPETS["javascript"] + COMMON), max_size=3
            ),
        ),
        min_size=1,
        max_size=4,
    ),
    javascript=st.booleans(),
)
def test_incremental_reparse_gives_the_symbols_of_a_fresh_parse(
    edits: list[tuple[int, int, list[str]]], javascript: bool
) -> None:
    language, text = ("javascript", JS) if javascript else ("python", PY)
    _replay(language, text, edits)


@settings(max_examples=400, deadline=None)
@given(session=edit_sessions())
def test_every_language_reindexes_edits_as_a_fresh_parse_does(
    session: tuple[str, list[tuple[int, int, list[str]]]],
) -> None:
    language, edits = session
    _replay(language, Text.from_string(DOCUMENTS[language]), edits)


@settings(max_examples=400, deadline=None)
@given(session=edit_sessions())
# A stray `*/` between two documented methods (found by this test).
@example(session=("java", [(11, 1, ["     */"])]))
@example(session=("java", [(34, 3, ["    void g() {}", "    void g() {}", "     */"])]))
def test_edits_inside_outlined_containers_reindex_as_a_fresh_parse_does(
    session: tuple[str, list[tuple[int, int, list[str]]]],
) -> None:
    language, edits = session
    with nesting_small_containers():
        _replay(language, Text.from_string(DOCUMENTS[language]), edits)


@given(
    st.binary(max_size=50),
    st.integers(1, 400),
    st.integers(0, 20_000),
    st.integers(0, 40),
    st.binary(max_size=40),
)
def test_the_changed_bytes_are_exactly_where_two_sources_differ(
    part: bytes, repeats: int, at: int, removed: int, inserted: bytes
) -> None:
    old = part * repeats  # (up to 20 kB, alike over long stretches)
    at = min(at, len(old))
    new = old[:at] + inserted + old[at + removed :]
    start, old_end, new_end = changed_bytes(old, new)
    # the longest common prefix, then the longest common suffix of what remains
    assert old[:start] == new[:start]
    assert start == min(len(old), len(new)) or old[start] != new[start]
    assert old[old_end:] == new[new_end:] and old_end >= start and new_end >= start
    assert old_end == start or new_end == start or old[old_end - 1] != new[new_end - 1]
