"""Placing SEARCH/REPLACE, common-prefix, V4A and unified-diff hunks."""

from __future__ import annotations

import itertools
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_edit.blocks.model import AnchoredEdit, AnchoredFormat, Hunk, ReplySpan
from lsp_edit.resolve import anchored
from lsp_edit.resolve.anchored import resolve_anchored
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.text import Text

SOURCE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"


def block(*hunks: Hunk, fmt: AnchoredFormat = "search_replace") -> AnchoredEdit:
    return AnchoredEdit(ReplySpan(1, 9), "src/x.py", fmt, hunks)


def apply(source: str, edit: AnchoredEdit) -> tuple[Resolution, str]:
    text = Text.from_string(source)
    result = resolve_anchored(edit, text)
    if isinstance(result, Placed):
        return result, text.replace(result.edits, final_newline=result.final_newline).render()
    return result, source


def hunk(old: str, new: str, hint: int | None = None, scope: tuple[str, ...] = ()) -> Hunk:
    return Hunk(
        tuple(old.split("\n")) if old else (), tuple(new.split("\n")) if new else (), hint, scope
    )


def test_valid_block_is_placed_with_a_minimal_edit() -> None:
    result, after = apply(SOURCE, block(hunk("def b():\n    return 2", "def b():\n    return 3")))
    assert isinstance(result, Placed)
    assert result.edits[0].start == 5 and result.edits[0].end == 6
    assert after == SOURCE.replace("return 2", "return 3")


def test_modification_keeps_untouched_lines_byte_identical_in_a_crlf_file() -> None:
    source = "a\r\nb\r\nc\r\n"
    result, after = apply(source, block(hunk("b", "B\nB2")))
    assert isinstance(result, Placed)
    assert after == "a\r\nB\r\nB2\r\nc\r\n"


def test_file_without_final_newline_keeps_lacking_it() -> None:
    _, after = apply("a\nb", block(hunk("b", "c")))
    assert after == "a\nc"


def test_tabs_in_kept_lines_stay_tabs() -> None:
    _, after = apply("f {\n\tx\n\ty\n}\n", block(hunk("f {\n\tx\n\ty", "f {\n\tx\n\tz")))
    assert after == "f {\n\tx\n\tz\n}\n"


def test_insertion_after_context_lines() -> None:
    _, after = apply(
        SOURCE, block(hunk("def a():\n    return 1", "def a():\n    return 1\n# end of a"))
    )
    assert after == "def a():\n    return 1\n# end of a\n\n\ndef b():\n    return 2\n"


def test_deletion_with_empty_replace() -> None:
    _, after = apply("a\nb\nc\n", block(hunk("b", "")))
    assert after == "a\nc\n"


def test_kept_lines_stay_as_the_file_has_them_when_found_by_a_looser_strategy() -> None:
    source = "if x:   \n    y = 1\n"
    _, after = apply(source, block(hunk("if x:\n    y = 1", "if x:\n    y = 2")))
    assert after == "if x:   \n    y = 2\n"


def test_not_found_quotes_the_most_similar_lines_with_their_numbers_and_points_at_them() -> None:
    result, _ = apply(SOURCE, block(hunk("def b():\n    return 20", "def b():\n    return 3")))
    assert result == Refused(
        "not_found",
        "SEARCH text not found in `src/x.py`. The most similar lines are 5-6:\n"
        "def b():\n    return 2",
        ((5, 6),),
    )


def test_not_found_with_no_shared_line_says_so() -> None:
    result, _ = apply(SOURCE, block(hunk("nothing like it", "x")))
    assert isinstance(result, Refused) and result.code == "not_found"
    assert "None of its lines occur in the file" in result.message


def test_already_applied_when_only_the_new_lines_are_found() -> None:
    result, _ = apply(SOURCE, block(hunk("def b():\n    return 9", "def b():\n    return 2")))
    assert result == AlreadyApplied("The replacement is already in `src/x.py` at lines 5-6.")


SHAPES = (
    "class Circle:\n    def area(self):\n        return 3.14 * self.r ** 2\n\n\n"
    "class Square:\n    def area(self):\n        return self.side ** 2\n"
)


def test_replacement_text_found_in_another_class_is_not_already_applied() -> None:
    result, _ = apply(
        SHAPES,
        block(
            hunk(
                "    def area(self):\n        return 3.14159 * self.r ** 2",
                "    def area(self):\n        return self.side ** 2",
            )
        ),
    )
    assert isinstance(result, Refused) and result.code == "not_found"
    assert "The most similar lines are 2-3:" in result.message
    assert result.message.endswith(
        "Its replacement text is in `src/x.py` at lines 7-8, but that is not where the "
        "SEARCH text points, so the block is not taken as already applied."
    )


def test_a_block_applied_before_is_already_applied_where_its_old_lines_were() -> None:
    applied_once = SHAPES.replace("3.14 *", "math.pi *")
    result, _ = apply(
        applied_once,
        block(
            hunk(
                "    def area(self):\n        return 3.14 * self.r ** 2",
                "    def area(self):\n        return math.pi * self.r ** 2",
            )
        ),
    )
    assert result == AlreadyApplied("The replacement is already in `src/x.py` at lines 2-3.")


def test_an_insertion_already_in_the_file_is_not_inserted_twice() -> None:
    source = "import os\nimport sys\nprint(1)\n"
    result, _ = apply(source, block(hunk("import os", "import os\nimport sys")))
    assert result == AlreadyApplied("The replacement is already in `src/x.py` at lines 1-2.")


def test_a_blank_line_added_at_the_end_of_the_file_is_added_not_taken_as_already_there() -> None:
    # colorama 0.4.3 -> 0.4.4: the README's last hunk only adds an empty last line
    source = "* Andy Neff.\n* Jonathan Hartley.\n"
    for fmt in ("unified_diff", "search_replace", "v4a"):
        edit = block(
            hunk("* Andy Neff.\n* Jonathan Hartley.", "* Andy Neff.\n* Jonathan Hartley.\n"),
            fmt=fmt,
        )
        result, after = apply(source, edit)
        assert isinstance(result, Placed), fmt
        assert after == source + "\n", fmt


def test_blank_lines_added_around_a_line_are_added_not_taken_as_already_there() -> None:
    source = "x = 1\ny = 2\nz = 3\n"
    _, after = apply(source, block(hunk("y = 2", "\ny = 2\n")))
    assert after == "x = 1\n\ny = 2\n\nz = 3\n"


def test_a_replacement_found_without_the_blank_line_it_adds_is_not_already_applied() -> None:
    source = "x = 2\nz = 3\n"
    result, after = apply(source, block(hunk("x = 1", "x = 2\n")))
    assert isinstance(result, Refused) and result.code == "not_found"
    assert after == source


def test_an_insertion_already_there_except_a_blank_line_it_keeps_is_already_applied() -> None:
    # the blank line at the edge is one of the old lines, not an addition
    source = "a = 1\nimport os\nimport sys\n"
    result, _ = apply(source, block(hunk("\nimport os", "\nimport os\nimport sys")))
    assert result == AlreadyApplied("The replacement is already in `src/x.py` at lines 2-3.")


def test_an_insertion_whose_context_is_elsewhere_is_still_made() -> None:
    source = "import os\nprint(1)\n"
    _, after = apply(source, block(hunk("import os", "import os\nimport sys")))
    assert after == "import os\nimport sys\nprint(1)\n"


def test_empty_search_fills_an_empty_file() -> None:
    result, after = apply("", block(hunk("", "x = 1\ny = 2")))
    assert isinstance(result, Placed)
    assert after == "x = 1\ny = 2\n"


def test_empty_search_on_a_non_empty_file_is_refused() -> None:
    result, _ = apply("a\n", block(hunk("", "x")))
    assert isinstance(result, Refused) and result.code == "not_found"
    assert result.message.startswith(
        "An empty SEARCH text only creates a new file or fills an empty one"
    )


def test_sequential_hunks_each_see_the_previous_result() -> None:
    _, after = apply("a\nc\nz\n", block(hunk("a", "b"), hunk("b\nc", "b\nC")))
    assert after == "b\nC\nz\n"


def test_a_later_hunk_made_ambiguous_by_an_earlier_one_is_refused() -> None:
    result, _ = apply("a\nc\nb\nc\n", block(hunk("a", "b"), hunk("b\nc", "b\nC")))
    assert result == Refused(
        "ambiguous",
        "Hunk 2 of 2: The SEARCH text matches 2 places (lines 1 and 3); "
        "add surrounding lines to make it unique.",
        ((1, 2), (3, 4)),
    )


def test_a_failing_hunk_refuses_the_whole_block_and_names_it() -> None:
    result, _ = apply("a\nb\nc\n", block(hunk("a", "A"), hunk("q", "Q"), hunk("c", "C")))
    assert isinstance(result, Refused) and result.code == "not_found"
    assert result.message.startswith("Hunk 2 of 3: SEARCH text not found")


def test_edits_of_several_hunks_are_given_against_the_original_text() -> None:
    text = Text.from_string("a\nb\nc\nd\ne\n")
    result = resolve_anchored(block(hunk("b", "B1\nB2"), hunk("d", "D")), text)
    assert isinstance(result, Placed)
    assert [(e.start, e.end, e.new_lines) for e in result.edits] == [
        (1, 2, ("B1", "B2")),
        (3, 4, ("D",)),
    ]
    assert text.replace(result.edits).render() == "a\nB1\nB2\nc\nD\ne\n"


def test_a_later_hunk_may_edit_lines_an_earlier_one_wrote() -> None:
    _, after = apply("a\nb\n", block(hunk("a", "a\nnew"), hunk("new\nb", "newer\nb")))
    assert after == "a\nnewer\nb\n"


def test_hint_line_of_a_later_hunk_refers_to_the_original_file() -> None:
    source = "x\nx\nx\nx\n"
    edit = block(hunk("x", "y\ny\ny", hint=1), hunk("x", "z", hint=4), fmt="unified_diff")
    _, after = apply(source, edit)
    assert after == "y\ny\ny\nx\nx\nz\n"


def test_common_prefix_new_file_is_created_in_an_empty_file() -> None:
    _, after = apply("", block(hunk("", "print(1)"), fmt="common_prefix"))
    assert after == "print(1)\n"


def test_common_prefix_anchor_not_found() -> None:
    edit = block(hunk("def c():\n    return 1", "def c():\n    return 5"), fmt="common_prefix")
    result, _ = apply(SOURCE, edit)
    assert isinstance(result, Refused) and result.code == "not_found"
    assert result.message.startswith("Anchor not found in `src/x.py`: `def c():` is not there.")


def test_common_prefix_anchor_matching_twice_is_ambiguous_with_both_lines() -> None:
    source = "def a():\n    return 1\ndef a():\n    return 1\n"
    edit = block(hunk("def a():\n    return 1", "def a():\n    return 2"), fmt="common_prefix")
    result, _ = apply(source, edit)
    assert result == Refused(
        "ambiguous",
        "Edit location is ambiguous (matches at lines 1 and 3); "
        "add surrounding lines to make it unique.",
        ((1, 2), (3, 4)),
    )


def test_common_prefix_old_lines_mismatch_names_the_line_and_both_texts() -> None:
    edit = block(hunk("def b():\n    return 7", "def b():\n    return 8"), fmt="common_prefix")
    result, _ = apply(SOURCE, edit)
    assert result == Refused(
        "old_lines_mismatch",
        "Old lines don't match content after anchor (anchor at line 5): line 6 is "
        "`    return 2` but the block expects `    return 7`.",
        ((6, 6), (5, 5)),
    )


def test_common_prefix_trailing_anchor_mismatch_is_reported_at_its_line() -> None:
    source = "a\nb\nc\nd\n"
    edit = block(hunk("a\nb\nX", "a\nB\nX"), fmt="common_prefix")
    result, _ = apply(source, edit)
    assert isinstance(result, Refused) and result.code == "old_lines_mismatch"
    assert "line 3 is `c` but the block expects `X`" in result.message


def test_common_prefix_anchor_found_in_several_places_but_never_followed_by_old_lines() -> None:
    source = "a\nb\na\nc\n"
    result, _ = apply(source, block(hunk("a\nq", "a\nr"), fmt="common_prefix"))
    assert isinstance(result, Refused) and result.code == "not_found"
    assert (
        "Content sequence not found in `src/x.py`: the anchor matches 2 places (lines 1 and 3)"
        in result.message
    )


def test_unified_diff_insertion_without_context_goes_after_its_line() -> None:
    _, after = apply("a\nb\nc\n", block(hunk("", "new", hint=2), fmt="unified_diff"))
    assert after == "a\nb\nnew\nc\n"


def test_unified_diff_insertion_at_line_zero_goes_to_the_top() -> None:
    _, after = apply("a\n", block(hunk("", "new", hint=0), fmt="unified_diff"))
    assert after == "new\na\n"


def test_unified_diff_insertion_past_the_end_is_out_of_range() -> None:
    result, _ = apply("a\n", block(hunk("", "new", hint=5), fmt="unified_diff"))
    assert isinstance(result, Refused) and result.code == "line_out_of_range"


def test_v4a_scope_narrows_the_search_to_the_scoped_block() -> None:
    source = "class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        pass\n"
    edit = block(
        hunk("        pass", "        return 1", scope=("class B:", "    def f(self):")), fmt="v4a"
    )
    _, after = apply(source, edit)
    assert after == source[: source.rindex("pass")] + "return 1\n"


def test_v4a_scope_line_may_name_a_definition_by_its_start() -> None:
    source = "class A(Base):\n    x = 1\nclass B:\n    x = 1\n"
    _, after = apply(source, block(hunk("    x = 1", "    x = 2", scope=("class A",)), fmt="v4a"))
    assert after == "class A(Base):\n    x = 2\nclass B:\n    x = 1\n"


def test_v4a_scope_with_a_signature_over_several_lines_holds_the_body_below_it() -> None:
    # attrs' `def attrs(` spreads its parameters over lines and closes with `):`;
    # `@@ def attrs(` then `@@ def wrap(cls):` names the function nested in its body
    source = (
        "def attrs(\n    maybe_cls=None,\n    these=None,\n):\n"
        "    def wrap(cls):\n        return cls\n\n    return wrap\n\n\n"
        "def wrap(cls):\n    return cls\n"
    )
    edit = block(
        hunk("        return cls", "        return cls()", scope=("def attrs(", "def wrap(cls):")),
        fmt="v4a",
    )
    result, after = apply(source, edit)
    assert isinstance(result, Placed)
    assert after == source.replace("        return cls\n", "        return cls()\n")


def test_v4a_scope_of_a_brace_language_signature_over_several_lines_holds_its_body() -> None:
    source = (
        "int count(\n    const char *s\n) {\n    return 0;\n}\n\nint other() {\n    return 0;\n}\n"
    )
    edit = block(hunk("    return 0;", "    return 1;", scope=("int count(",)), fmt="v4a")
    result, after = apply(source, edit)
    assert isinstance(result, Placed)
    assert after == source.replace("    return 0;", "    return 1;", 1)


def test_v4a_scope_block_goes_on_past_a_string_whose_lines_start_at_column_zero() -> None:
    # black's scripts/release.py: a method returns an f-string whose lines are not
    # indented; the class's block goes on below it
    source = (
        'class SourceFiles:\n    def __str__(self):\n        return f"""\n> Files:\n'
        '  current\n"""\n\n    def add(self) -> int:\n        return 1\n\n\n'
        "def add() -> int:\n    return 1\n"
    )
    edit = block(
        hunk(
            "        return 1",
            "        return 3",
            scope=("class SourceFiles:", "def add(self) -> int:"),
        ),
        fmt="v4a",
    )
    result, after = apply(source, edit)
    assert isinstance(result, Placed)
    assert after == source.replace("        return 1", "        return 3")


def test_v4a_scope_not_found_is_refused_naming_it() -> None:
    result, _ = apply(
        SOURCE, block(hunk("    return 1", "    return 5", scope=("def zzz():",)), fmt="v4a")
    )
    assert result == Refused(
        "not_found", "The scope line `def zzz():` was not found in `src/x.py`."
    )


def test_a_block_whose_hunks_change_nothing_is_already_applied() -> None:
    result, _ = apply("a\n", block(hunk("a", "a")))
    assert isinstance(result, AlreadyApplied)


def test_an_ellipsis_added_by_a_diff_is_a_line_of_the_result() -> None:
    source = "class Reader(Protocol):\n    def read(self) -> bytes:\n        return b''\n"
    for fmt in ("unified_diff", "v4a"):
        edit = block(
            hunk(
                "    def read(self) -> bytes:\n        return b''",
                "    def read(self) -> bytes:\n        ...",
            ),
            fmt=fmt,
        )
        result, after = apply(source, edit)
        assert isinstance(result, Placed) and result.notes == ()
        assert after == "class Reader(Protocol):\n    def read(self) -> bytes:\n        ...\n"


def test_a_bare_ellipsis_in_search_replace_still_stands_for_the_lines_it_elides() -> None:
    source = "def f():\n    a = 1\n    b = 2\n    return a + b\n"
    old = "def f():\n    a = 1\n    b = 2\n    return a + b"
    result, after = apply(
        source, block(hunk(old, "def f():\n    ...\n    b = 2\n    return a * b"))
    )
    assert isinstance(result, Placed)
    assert after == "def f():\n    a = 1\n    b = 2\n    return a * b\n"


def test_a_diff_marking_its_new_side_without_final_newline_removes_it() -> None:
    edit = block(Hunk(("a", "b"), ("a", "c"), 1, final_newline=False), fmt="unified_diff")
    result, after = apply("a\nb\n", edit)
    assert isinstance(result, Placed)
    assert after == "a\nc"


def test_a_diff_that_only_adds_the_final_newline_is_applied() -> None:
    edit = block(Hunk(("a", "b"), ("a", "b"), 1, final_newline=True), fmt="unified_diff")
    result, after = apply("a\nb", edit)
    assert isinstance(result, Placed) and result.edits == ()
    assert result.notes == ("The file now ends with a newline",)
    assert after == "a\nb\n"


def test_a_no_newline_marker_on_a_hunk_away_from_the_end_is_ignored() -> None:
    edit = block(Hunk(("a",), ("A",), 1, final_newline=False), fmt="unified_diff")
    _, after = apply("a\nb\n", edit)
    assert after == "A\nb\n"


def test_a_kept_line_that_repeats_keeps_its_own_line_ending() -> None:
    source = "same\r\nsame\n"
    for ops, kept in (("- ", "same\n"), (" -", "same\r\n")):
        edit = block(Hunk(("same", "same"), ("same",), ops=ops), fmt="v4a")
        _, after = apply(source, edit)
        assert after == kept


def test_a_patch_hunk_of_added_lines_only_goes_at_the_end_of_the_file() -> None:
    result, after = apply("line1\nline2\n", block(hunk("", "added 1\nadded 2"), fmt="v4a"))
    assert isinstance(result, Placed)
    assert result.notes == ("Added at the end of the file: the hunk has no context lines",)
    assert after == "line1\nline2\nadded 1\nadded 2\n"


@pytest.mark.parametrize("fmt", ["v4a", "unified_diff"])
def test_a_patch_that_writes_the_last_line_keeps_the_missing_final_newline(
    fmt: AnchoredFormat,
) -> None:
    result, after = apply("one\ntwo", block(hunk("two", "2\nthree"), fmt=fmt))
    assert after == "one\n2\nthree"
    assert isinstance(result, Placed) and result.notes == ()


def test_a_patch_that_leaves_the_last_line_alone_keeps_the_missing_final_newline() -> None:
    _, after = apply("one\r\ntwo", block(hunk("one", "ONE"), fmt="v4a"))
    assert after == "ONE\r\ntwo"


def test_search_lines_numbered_as_a_file_view_shows_them_are_read_without_the_numbers() -> None:
    source = "function one() {\n    return 1;\n}\n"
    edit = block(
        hunk(
            "1 | function one() {\n2 |     return 1;\n3 | }", "function one() {\n    return 10;\n}"
        )
    )
    result, after = apply(source, edit)
    assert isinstance(result, Placed)
    assert result.notes == (
        "Its SEARCH lines carried line numbers (`12 | `); they were read without them",
    )
    assert after == source.replace("return 1;", "return 10;")


def test_line_numbers_that_do_not_count_up_are_text() -> None:
    edit = block(hunk("1 | function one() {\n3 |     return 1;", "x"))
    result, _ = apply("function one() {\n    return 1;\n}\n", edit)
    assert isinstance(result, Refused) and result.code == "not_found"


def test_end_of_file_hunk_picks_the_match_that_ends_the_file() -> None:
    source = "x\nend\nx\nend\n"
    edit = block(Hunk(("x", "end"), ("x", "END"), at_end=True), fmt="v4a")
    result, after = apply(source, edit)
    assert isinstance(result, Placed) and after == "x\nend\nx\nEND\n"


def test_end_of_file_hunk_without_old_lines_appends_to_the_file() -> None:
    edit = block(Hunk((), ("added",), at_end=True), fmt="v4a")
    assert apply("one\ntwo\n", edit)[1] == "one\ntwo\nadded\n"


def test_patch_hunk_that_only_adds_lines_and_names_no_place_appends_them() -> None:
    assert apply("one\ntwo\n", block(hunk("", "three"), fmt="v4a"))[1] == "one\ntwo\nthree\n"


def test_a_shortened_signature_in_a_scope_line_finds_the_full_one() -> None:
    source = "class H {\n  async process(input: any) {\n    return send(input)\n  }\n}\n"
    edit = block(
        hunk("    return send(input)", "    return retry(input)", scope=("async process()",)),
        fmt="v4a",
    )
    assert apply(source, edit)[1] == source.replace("send(input)", "retry(input)")


def test_patch_context_indented_unevenly_is_kept_when_the_removed_lines_match() -> None:
    source = "class A {\n  method() {\n    oldCode()\n  }\n}\n"
    edit = block(hunk("method() {\n    oldCode()\n}", "method() {\n    newCode()\n}"), fmt="v4a")
    result, after = apply(source, edit)
    assert isinstance(result, Placed) and result.strategy == "context_indentation"
    assert after == source.replace("oldCode", "newCode")


def test_patch_whose_removed_lines_are_indented_unevenly_is_refused() -> None:
    source = "a\n  b\n    c\n"
    edit = block(hunk("a\n    b\n  c", "a\nB\nC"), fmt="v4a")
    result, after = apply(source, edit)
    assert isinstance(result, Refused) and after == source


def test_search_replace_context_is_never_matched_with_uneven_indentation() -> None:
    source = "class A {\n  method() {\n    oldCode()\n  }\n}\n"
    edit = block(hunk("method() {\n    oldCode()\n}", "method() {\n    newCode()\n}"))
    assert isinstance(apply(source, edit)[0], Refused)


@st.composite
def edits_in_any_order(draw: st.DrawFn) -> tuple[list[str], list[tuple[int, int, list[str]]]]:
    """A file of distinct lines and edits of it that do not overlap (they may touch),
    each replacing at least one line; new lines are new text or lines it keeps."""
    size = draw(st.integers(1, 30))
    lines = [f"line {n}" for n in range(size)]
    cuts = sorted(draw(st.sets(st.integers(0, size), min_size=2, max_size=12)))
    edits = []
    for number, (start, end) in enumerate(itertools.pairwise(cuts)):
        if not draw(st.booleans()):
            continue
        kept = draw(st.lists(st.sampled_from(lines[start:end]), unique=True, max_size=2))
        kept.sort(key=lines.index)
        added = [f"new {number}.{n}" for n in range(draw(st.integers(0, 3)))]
        edits.append((start, end, [*kept, *added] if draw(st.booleans()) else [*added, *kept]))
    return lines, draw(st.permutations(edits))


@settings(max_examples=300, deadline=None)
@given(case=edits_in_any_order())
def test_the_hunks_of_one_block_land_where_each_was_written_in_any_order(case) -> None:
    lines, edits = case
    hunks = [Hunk(tuple(lines[start:end]), tuple(new), start + 1) for start, end, new in edits]
    expected = list(lines)
    for start, end, new in sorted(edits, reverse=True):
        expected[start:end] = new
    source = "".join(f"{line}\n" for line in lines)
    result, after = apply(source, block(*hunks, fmt="unified_diff"))
    if not edits or expected == lines:
        assert isinstance(result, AlreadyApplied)
        return
    assert isinstance(result, Placed), result
    assert after == "".join(f"{line}\n" for line in expected)


@settings(max_examples=200, deadline=None)
@given(
    changes=st.permutations(range(12)).flatmap(
        lambda order: st.tuples(
            st.just(order[: len(order) // 2]), st.lists(st.integers(0, 3), min_size=12)
        )
    )
)
def test_a_diffs_line_numbers_pick_the_same_repeated_line_after_earlier_hunks_move_it(
    changes,
) -> None:
    chosen, grows = changes
    lines = [line for n in range(12) for line in (f"def f{n}():", "    pass")]
    hunks = [
        Hunk(("    pass",), tuple(f"    x = {n}.{k}" for k in range(grows[n] + 1)), 2 * n + 2)
        for n in chosen
    ]
    result, after = apply("".join(f"{line}\n" for line in lines), block(*hunks, fmt="unified_diff"))
    assert isinstance(result, Placed), result
    expected = []
    for n in range(12):
        body = [f"    x = {n}.{k}" for k in range(grows[n] + 1)] if n in chosen else ["    pass"]
        expected += [f"def f{n}():", *body]
    assert after == "".join(f"{line}\n" for line in expected)


_LINES = ("a = 1", "b = 2", "    a = 1", "", "# ... existing code ...", "a = 1  ")


@settings(max_examples=300)
@given(
    file=st.lists(st.sampled_from(_LINES), max_size=8),
    old=st.lists(st.sampled_from(_LINES), max_size=3),
    new=st.lists(st.sampled_from((*_LINES, "c = 3")), max_size=4),
    fmt=st.sampled_from(["search_replace", "unified_diff", "v4a", "common_prefix"]),
    ops=st.sampled_from(["", " -+", "-+ "]),
)
def test_a_one_hunk_block_is_placed_as_hunk_by_hunk_placing_places_it(
    file: list[str], old: list[str], new: list[str], fmt: AnchoredFormat, ops: str
) -> None:
    # the shortcut for blocks found once as written gives what the general path gives
    edit = block(Hunk(tuple(old), tuple(new), ops=ops), fmt=fmt)
    text = Text.from_lines(file)
    with mock.patch.object(anchored, "_placed_as_written", lambda *_: None):
        general = resolve_anchored(edit, text)
    assert resolve_anchored(edit, text) == general


def test_a_block_whose_replacement_is_elsewhere_points_at_the_similar_lines_and_at_it() -> None:
    source = (
        "class A:\n    def f(self):\n        return 1\n\n"
        "class B:\n    def f(self):\n        return 2\n"
    )
    edit = block(hunk("    def f(self):\n        return 9", "    def f(self):\n        return 2"))
    result, _ = apply(source, edit)
    assert isinstance(result, Refused) and result.code == "not_found"
    assert "Its replacement text is in `src/x.py` at lines 6-7" in result.message
    assert result.lines[-1] == (6, 7)
