"""Placeholders for unchanged code are filled from the original, never deleting it."""

from __future__ import annotations

import pytest

from lsp_edit.blocks.model import AnchoredEdit, Hunk, ReplySpan
from lsp_edit.resolve.anchored import resolve_anchored
from lsp_edit.resolve.complete_file import resolve_complete_file
from lsp_edit.resolve.elision import is_placeholder
from lsp_edit.resolve.model import Placed, Refused, Resolution
from lsp_edit.text import Text

FUNCTION = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n"


@pytest.mark.parametrize(
    "line",
    [
        "# ... rest unchanged ...",
        "    // ... existing code ...",
        "/* ... */",
        "<!-- ... -->",
        "...",
        "    …",
        "# rest of the code unchanged",
        "// existing code here",
        "{/* ... other fields ... */}",
        "-- ... remaining columns unchanged",
    ],
)
def test_placeholder_comments_are_recognised(line: str) -> None:
    assert is_placeholder(line)


@pytest.mark.parametrize(
    "line",
    [
        "# wait for the rest of the arguments",
        "x = ...  # todo",
        "// compute the remaining budget",
        "# TODO: handle errors",
        "print('...')",
        "# rest of the arguments",
    ],
)
def test_ordinary_comments_and_code_are_not_placeholders(line: str) -> None:
    assert not is_placeholder(line)


def place(source: str, old: str, new: str) -> tuple[Placed | Refused, str]:
    text = Text.from_string(source)
    edit = AnchoredEdit(
        ReplySpan(1, 1),
        "f.py",
        "search_replace",
        (Hunk(tuple(old.split("\n")), tuple(new.split("\n"))),),
    )
    result = resolve_anchored(edit, text)
    assert isinstance(result, Placed | Refused)
    if isinstance(result, Placed):
        return result, text.replace(result.edits).render()
    return result, source


def test_a_placeholder_in_the_replacement_is_filled_from_the_matched_lines() -> None:
    old = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a"
    new = "def f():\n    a = 1\n    # ... existing code ...\n    return a\n# end"
    result, after = place(FUNCTION, old, new)
    assert after == FUNCTION + "# end\n"
    assert isinstance(result, Placed)
    assert result.notes == (
        "Filled 2 elided lines at `# ... existing code ...` from the original (lines 3-4)",
    )


def test_a_placeholder_at_the_end_keeps_the_rest_of_the_matched_lines() -> None:
    old = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a"
    new = "def f(x):\n    a = 1\n    # ... rest unchanged ..."
    _, after = place(FUNCTION, old, new)
    assert after == FUNCTION.replace("def f():", "def f(x):")


def test_a_placeholder_also_in_the_search_text_is_literal() -> None:
    source = "x = 1\n# ... existing code ...\ny = 2\n"
    _, after = place(source, "x = 1\n# ... existing code ...", "x = 5\n# ... existing code ...")
    assert after == "x = 5\n# ... existing code ...\ny = 2\n"


def test_a_placeholder_next_to_a_line_not_in_the_original_is_refused() -> None:
    old = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a"
    new = "def f():\n    a = 10\n    # ... existing code ...\n    return a"
    result, after = place(FUNCTION, old, new)
    assert after == FUNCTION
    assert isinstance(result, Refused) and result.code == "elision_ambiguous"
    assert result.message.startswith(
        "Could not expand the placeholder `# ... existing code ...` (line 3 of the new text): "
        "the line next to it, `a = 10`, is not in the original lines it replaces"
    )


def test_a_placeholder_whose_neighbour_repeats_is_refused_with_its_lines() -> None:
    source = "f {\n  x\n  y\n  x\n  z\n}\n"
    result, _ = place(source, "f {\n  x\n  y\n  x\n  z\n}", "f {\n  // ...\n  x\n  w\n}")
    assert isinstance(result, Refused) and result.code == "elision_ambiguous"
    assert "`x`, occurs 2 times in the original (lines 2 and 4)" in result.message
    assert result.lines == ((2, 2), (4, 4))


def test_a_closing_brace_after_a_final_placeholder_lines_up_with_the_end() -> None:
    source = "function f() {\n  a();\n  if (x) {\n    b();\n  }\n}\n"
    old = "function f() {\n  a();\n  if (x) {\n    b();\n  }\n}"
    new = "function f() {\n  start();\n  a();\n  // ... existing code ...\n}"
    _, after = place(source, old, new)
    assert after == "function f() {\n  start();\n  a();\n  if (x) {\n    b();\n  }\n}\n"


def test_placeholder_set_off_by_blank_lines_anchors_on_the_nearest_line_with_text():
    original = Text.from_string(
        "import os\n\n\ndef a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    return 1\n"
    )
    content = ["import os", "", "# ... existing code ...", "", "", "def c():", "    return 2"]
    result = resolve_complete_file(content, original)
    assert isinstance(result, Placed)
    assert original.replace(result.edits).render() == (
        "import os\n\n\ndef a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    return 2\n"
    )


def whole(source: str, content: str) -> tuple[Resolution, str]:
    text = Text.from_string(source)
    result = resolve_complete_file(content.split("\n"), text)
    if isinstance(result, Placed):
        return result, text.replace(result.edits).render()
    return result, source


ROUTES = (
    "from web import App\n\napp = App()\n\n@app.get('/')\ndef root():\n    return 1\n\n"
    "@app.get('/about')\ndef about():\n    return 2\n"
)


def test_a_placeholder_after_a_changed_first_line_and_a_blank_line_keeps_what_follows() -> None:
    content = (
        "from web import App, abort\n\n# ... existing code ...\n\n"
        "@app.get('/about')\ndef about():\n    abort(404)"
    )
    result, after = whole(ROUTES, content)
    assert isinstance(result, Placed)
    assert after == ROUTES.replace("App\n\napp", "App, abort\n\napp").replace(
        "return 2", "abort(404)"
    )


def test_a_placeholder_before_a_blank_line_and_a_new_comment_anchors_on_the_next_known_line():
    source = "class A {\n  a() {}\n\n  b() {}\n}\n"
    content = "class A {\n  // ... existing code ...\n\n  // b does nothing\n  b() {}\n}"
    result, after = whole(source, content)
    assert isinstance(result, Placed)
    assert after == "class A {\n  a() {}\n\n  // b does nothing\n  b() {}\n}\n"


def test_lines_a_new_block_shares_with_the_file_are_no_anchor() -> None:
    source = "class A {\n  a() {\n    return this;\n  }\n}\n"
    content = (
        "class A {\n  // ... existing code ...\n\n  b() {\n    work();\n    return this;\n  }\n}"
    )
    result, after = whole(source, content)
    assert isinstance(result, Refused) and result.code == "elision_ambiguous"
    assert after == source


def test_a_new_line_that_reads_like_the_original_one_beside_the_anchor_is_refused() -> None:
    source = "x = 1\ny = 2\nz = 3\nw = 4\n"
    result, _ = whole(source, "x = 1\ny = 5\n\n# ... existing code ...")
    assert isinstance(result, Refused) and result.code == "elision_ambiguous"


# A line that reads like a placeholder is content when it stands for nothing: in
# Python `...` is a statement (a stub's body), in C a parameter list's varargs.

PROTOCOL = "class Shape(Protocol):\n    def name(self) -> str:\n        return 'x'\n"


def test_a_stub_body_added_after_a_kept_method_stays() -> None:
    old = "    def name(self) -> str:\n        return 'x'"
    new = old + "\n\n    def attribute(self) -> int:\n        ..."
    result, after = place(PROTOCOL, old, new)
    assert after == PROTOCOL + "\n    def attribute(self) -> int:\n        ...\n"
    assert isinstance(result, Placed) and result.notes == ()


def test_a_stub_body_added_before_a_kept_method_stays() -> None:
    old = "class Shape(Protocol):"
    new = "class Shape(Protocol):\n    def attribute(self) -> int:\n        ...\n"
    _, after = place(PROTOCOL, old, new)
    assert after == PROTOCOL.replace(
        "Protocol):\n", "Protocol):\n    def attribute(self) -> int:\n        ...\n\n"
    )


def test_a_stub_body_added_between_two_kept_methods_stays() -> None:
    source = "class A:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n"
    old = "        return 1\n\n    def b(self):"
    new = "        return 1\n\n    def c(self):\n        ...\n\n    def b(self):"
    _, after = place(source, old, new)
    assert after == source.replace("\n    def b", "\n    def c(self):\n        ...\n\n    def b")


def test_an_ellipsis_added_as_an_element_stays() -> None:
    _, after = place("A = [\n    1,\n]\n", "A = [\n    1,\n]", "A = [\n    1,\n    ...\n]")
    assert after == "A = [\n    1,\n    ...\n]\n"


def test_c_varargs_on_their_own_line_stay_when_nothing_is_left_out_there() -> None:
    source = "int g(void);\nint f(\n    int a\n);\n"
    result, after = place(source, "    int a", "    int a,\n    ...")
    assert after == "int g(void);\nint f(\n    int a,\n    ...\n);\n"
    assert isinstance(result, Placed) and result.notes == ()


@pytest.mark.parametrize("comment", ["# ...", "// ...", "/* ... */", "…"])
def test_a_comment_of_dots_alone_that_stands_for_nothing_stays(comment: str) -> None:
    _, after = place("x = 1\n", "x = 1", f"x = 1\n{comment}\ny = 2")
    assert after == f"x = 1\n{comment}\ny = 2\n"


def test_a_worded_placeholder_that_stands_for_nothing_is_removed_and_noted() -> None:
    result, after = place("x = 1\n", "x = 1", "x = 1\n# ... existing code ...\ny = 2")
    assert after == "x = 1\ny = 2\n"
    assert isinstance(result, Placed)
    assert result.notes == (
        "Removed the placeholder `# ... existing code ...`: no original lines were left out there",
    )


def test_a_stub_beside_a_real_placeholder_stays_while_the_placeholder_is_filled() -> None:
    source = "class A:\n    def a(self):\n        x = 1\n        return x\n"
    old = "class A:\n    def a(self):\n        x = 1\n        return x"
    new = (
        "class A:\n    def a(self):\n        ...\n        return x\n\n"
        "    def b(self) -> int:\n        ..."
    )
    result, after = place(source, old, new)
    assert after == source + "\n    def b(self) -> int:\n        ...\n"
    assert isinstance(result, Placed)
    assert result.notes == ("Filled 1 elided line at `...` from the original (line 3)",)


def test_a_whole_file_that_adds_a_stub_keeps_its_body() -> None:
    source = "class Shape(Protocol):\n    def name(self) -> str:\n        return 'x'\n"
    content = source + "\n    def attribute(self) -> int:\n        ...\n"
    result, after = whole(source, content.rstrip("\n"))
    assert isinstance(result, Placed)
    assert after == content


@pytest.mark.parametrize(
    "line",
    [
        "    b=...,",
        "y = x[..., 0]",
        "  ...args,",
        "  ...rest",
        "func f(args ...int) {",
        "int printf(const char *fmt, ...);",
        "           ...);",
        "    ...,",
    ],
)
def test_code_that_holds_dots_is_no_placeholder(line: str) -> None:
    assert not is_placeholder(line)


@pytest.mark.parametrize("fmt", ["v4a", "unified_diff", "common_prefix"])
def test_a_stub_body_in_a_patch_or_an_edit_block_is_written(fmt: str) -> None:
    old = ("    def name(self) -> str:", "        return 'x'")
    new = (*old, "", "    def attribute(self) -> int:", "        ...")
    ops = "  +++" if fmt != "common_prefix" else ""
    edit = AnchoredEdit(ReplySpan(1, 1), "p.py", fmt, (Hunk(old, new, ops=ops),))  # type: ignore[arg-type]
    result = resolve_anchored(edit, Text.from_string(PROTOCOL))
    assert isinstance(result, Placed)
    after = Text.from_string(PROTOCOL).replace(result.edits).render()
    assert after == PROTOCOL + "\n    def attribute(self) -> int:\n        ...\n"


def test_a_heading_underlined_with_dots_is_written_as_it_is() -> None:
    # colorama's README.rst: a section's underline became dots in the next version
    source = "Usage\n=====\n\nInitialisation\n--------------\n\nCall init().\n\nEnd\n...\n"
    _, after = place(
        source,
        "Initialisation\n--------------\n\nCall init().",
        "Initialisation\n..............\n\nCall init().",
    )
    assert after == source.replace("-" * 14, "." * 14)
    indented = "".join(f"        {line}\n" for line in source.splitlines())
    _, after = place(
        indented,
        "        Initialisation\n        --------------",
        "        Initialisation\n        ..............",
    )
    assert after == indented.replace("-" * 14, "." * 14)


def test_dots_under_a_line_of_code_still_stand_for_the_lines_left_out() -> None:
    _, after = place(FUNCTION, FUNCTION.rstrip("\n"), "def g():\n....\n    return a")
    assert after == FUNCTION.replace("def f", "def g")
