"""Streaming: a reply fed in any pieces gives exactly the items of the whole
reply, each once, as soon as its block is complete; no input crashes the parser."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_edit.blocks import ReplyStream, parse_reply
from lsp_edit.blocks.model import AnchoredEdit, FencedEdit, IgnoredBlock, ParseProblem, ReplySpan

F = "```"

FRAGMENTS = [
    "Some prose explaining the change.\n",
    "\n",
    "src/x.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
    "src/x.py\n<<<<<<< SEARCH\nunclosed\n=======\n",
    "a.py\n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n",
    "a.py\n««« EDIT\nlead\n───────\nold\n═══════\nnew\n───────\ntrail\n»»»\n",
    "*** Begin Patch\n*** Update File: a.py\n@@ def f\n x\n-y\n+z\n"
    "*** Add File: n.py\n+n\n*** End Patch\n",
    "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
    f"{F}diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n{F}\n",
    f"src/x.py\n{F}python:Client-chat\n    def chat(self):\n        pass\n{F}\n",
    f"{F}python:3:5\nx\n{F}\n",
    f"{F}python:5:3\nx\n{F}\n",
    f"{F}bash\n$ git status\n{F}\n",
    f'{F}json\n{{"op": "delete_lines", "path": "a", "start_line": 1, "end_line": 2}}\n{F}\n',
    f"{F}python\n",
    f"{F}\n",
    "<<<<<<< SEARCH\n",
    "=======\n",
    ">>>>>>> REPLACE\n",
    "»»» EDIT END\n",
    "--- \n",
    "@@ -1 +1 @@\n",
    "-x\n",
    '[{"op": "delete_lines", "start_line": 1, "end_line": 1}]\n',
    "src/y.py\n\n",
    "...\n",
    "<source>python\n",
    "</source>\n",
    f"{F}markdown\n# T\n{F}bash\nx\n{F}\n{F}\n",
    f"{F}python\nword_count.py\n{F}\n",
    f"{F}bash\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n{F}\n",
    f"{F}python:app/x.py\nprint(1)\n{F}\n",
    f"{F}\n# app/x.py\n",
    f"x.py\n{F}python\nold\n=======\nnew\n>>>>>>> REPLACE\n{F}\n",
    "a.rst\n<<<<<<< SEARCH\nT\n=======\nx\n=======\nT\n=======\ny\n=======\n>>>>>>> REPLACE\n",
    f"{F}python\n<<<<<<< SEARCH\na\n=======\nb\n=======\n{F}\n",
    "b.py\n<<<<<<< SEARCH\na\n=======\nb\n=======\n\n",
    f"{F}\n000001\n{F}\n",
    f"{F}\n\nsrc/a.py\n\n{F}\n",
    f"{F}\n// src/a.ts\nx\n{F}\n",
    "~~~\nMakefile\n~~~\n",
    f"~~~\n{F}\n~~~\n",
    f"{F}\nx\n{F}`\n",
    f"{F}python:Service-run\nvalue = 1\n",
    f"{F}python:7\nvalue = 1\n",
    f"~~~\n{F}\n",
    f"~~~python:A-b\n{F}python:A-c\nx\n",
    f"{F}\n~~~python\nx\n~~~\n{F}\n",
]


@st.composite
def replies(draw):
    parts = draw(st.lists(st.sampled_from(FRAGMENTS), max_size=8))
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return "".join(parts).replace("\n", ending)


def fed_in_pieces(text, cuts):
    stream = ReplyStream()
    items = []
    points = sorted({min(len(text), cut) for cut in cuts})
    start = 0
    for point in [*points, len(text)]:
        items += stream.feed(text[start:point])
        start = point
    return items + stream.finish()


@settings(max_examples=300, deadline=None)
@given(replies(), st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_any_split_of_a_reply_gives_the_same_items_as_the_whole_reply(reply, cuts):
    assert fed_in_pieces(reply, cuts) == parse_reply(reply)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(exclude_categories=["Cs"])), st.lists(st.integers(0, 200), max_size=6))
def test_arbitrary_text_never_crashes_and_splits_agree(text, cuts):
    assert fed_in_pieces(text, cuts) == parse_reply(text)


@settings(max_examples=200, deadline=None)
@given(replies())
def test_crlf_and_cr_replies_parse_like_lf(reply):
    lf = reply.replace("\r\n", "\n").replace("\r", "\n")
    assert parse_reply(lf.replace("\n", "\r\n")) == parse_reply(lf)
    assert parse_reply(lf.replace("\n", "\r")) == parse_reply(lf)


def test_a_block_is_reported_by_the_delta_that_completes_it_and_only_once():
    stream = ReplyStream()
    assert stream.feed("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n") == []
    (edit,) = stream.feed(">>>>>>> REPLACE\nmore prose")
    assert isinstance(edit, AnchoredEdit) and edit.span == ReplySpan(2, 6)
    assert stream.feed(" and more\n") == []
    assert stream.finish() == []


def test_a_partial_last_line_waits_for_its_line_ending():
    stream = ReplyStream()
    assert stream.feed(f"a.py\n{F}python:1:2\nx\n{F}") == []
    (edit,) = stream.feed("\n")
    assert isinstance(edit, FencedEdit) and edit.content == ("x",)


def test_closing_line_without_a_final_newline_completes_at_finish():
    stream = ReplyStream()
    assert stream.feed(f"a.py\n{F}python:1:2\nx\n{F}") == []
    (edit,) = stream.finish()
    assert edit.content == ("x",)


def test_cr_at_the_end_of_a_delta_followed_by_lf_is_one_line_ending():
    stream = ReplyStream()
    items = stream.feed("a.py\r\n<<<<<<< SEARCH\r") + stream.feed(
        "\nx\r\n=======\r\ny\r\n>>>>>>> REPLACE\r"
    )
    items += stream.finish()
    assert [edit.span for edit in items] == [ReplySpan(2, 6)]


def test_unclosed_block_is_only_reported_at_finish():
    stream = ReplyStream()
    assert stream.feed("a.py\n<<<<<<< SEARCH\nx\n") == []
    (problem,) = stream.finish()
    assert problem.code == "unclosed_block"


def test_feeding_after_finish_is_a_usage_error():
    stream = ReplyStream()
    stream.finish()
    with pytest.raises(RuntimeError):
        stream.feed("x")


def test_large_search_replace_block_keeps_every_line():
    old = [f"line {i}" for i in range(20_000)]
    reply = "big.py\n<<<<<<< SEARCH\n" + "\n".join(old) + "\n=======\nnew\n>>>>>>> REPLACE\n"
    (edit,) = parse_reply(reply)
    assert edit.hunks[0].old_lines == tuple(old) and edit.span == ReplySpan(2, 20_005)


ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])


@settings(max_examples=200, deadline=None)
@given(replies(), st.data())
def test_a_reply_mixing_line_endings_line_by_line_parses_like_lf(reply, data):
    lf = reply.replace("\r\n", "\n").replace("\r", "\n")
    lines = lf.split("\n")
    mixed = ""
    for line in lines[:-1]:
        ending = data.draw(ENDINGS)
        if not line and mixed.endswith("\r") and ending == "\n":
            ending = "\r\n"  # `\r` then `\n` would be one line ending
        mixed += line + ending
    mixed += lines[-1]
    cuts = data.draw(st.lists(st.integers(0, len(mixed)), max_size=12))
    assert fed_in_pieces(mixed, cuts) == parse_reply(mixed) == parse_reply(lf)


@settings(max_examples=100, deadline=None)
@given(replies())
def test_feeding_one_character_at_a_time_gives_the_same_items(reply):
    assert fed_in_pieces(reply, range(len(reply))) == parse_reply(reply)


# Lines a block's content may hold that look like something else
CONTENT_LINES = [
    "",
    "   ",
    "\t",
    "\x0c",
    "x = 1",
    "    return value",
    "<<<<<<< HEAD",
    "x <<<<<<< SEARCH",
    "===",
    "==========",
    ">>>>",
    "« EDIT",
    "*** Update File: a.py",
    "--- a/x.py",
    "+++ b/x.py",
    "@@ -1 +1 @@",
    "diff --git a/x b/x",
    "`code`",
    "~~",
    '{"op": "delete_lines"}',
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(CONTENT_LINES), max_size=60),
    st.lists(st.sampled_from(CONTENT_LINES), max_size=60),
    st.lists(st.integers(0, 2000), max_size=8),
)
def test_search_replace_halves_come_back_line_for_line(old, new, cuts):
    reply = "\n".join(["a.py", "<<<<<<< SEARCH", *old, "=======", *new, ">>>>>>> REPLACE", ""])
    (edit,) = fed_in_pieces(reply, cuts)
    assert isinstance(edit, AnchoredEdit)
    assert edit.hunks[0].old_lines == tuple(old) and edit.hunks[0].new_lines == tuple(new)
    assert edit.span == ReplySpan(2, len(old) + len(new) + 4)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([*CONTENT_LINES, "<<<<<<< SEARCH", "=======", "»»»"]), max_size=80),
    st.lists(st.integers(0, 2000), max_size=8),
)
def test_fenced_block_content_comes_back_line_for_line_unless_it_holds_markers(content, cuts):
    reply = "\n".join(["a.py", f"{F}python:3:5", *content, F, ""])
    (edit,) = fed_in_pieces(reply, cuts)
    if {"<<<<<<< HEAD", "<<<<<<< SEARCH", "»»»"} & set(content):
        assert isinstance(edit, ParseProblem) and edit.code == "markers_in_content"
    else:
        assert isinstance(edit, FencedEdit) and edit.content == tuple(content)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(" -+"), st.sampled_from(["x", "", "-- y", "- z", "++ w"])),
        min_size=1,
        max_size=60,
    ),
    st.lists(st.integers(0, 2000), max_size=8),
)
def test_a_counted_hunk_takes_exactly_its_lines(lines, cuts):
    old = tuple(body for prefix, body in lines if prefix != "+")
    new = tuple(body for prefix, body in lines if prefix != "-")
    hunk_lines = [prefix + body for prefix, body in lines]
    reply = "\n".join(
        ["--- a/x.py", "+++ b/x.py", f"@@ -1,{len(old)} +1,{len(new)} @@", *hunk_lines, "", "done"]
    )
    (edit,) = fed_in_pieces(reply, cuts)
    assert isinstance(edit, AnchoredEdit)
    assert (edit.hunks[0].old_lines, edit.hunks[0].new_lines) == (old, new)
    assert edit.span == ReplySpan(1, len(lines) + 3)


def test_the_stream_says_whether_a_block_is_open_so_a_closing_line_can_complete_it():
    stream = ReplyStream()
    stream.feed("Some prose.\n")
    assert not stream.in_block
    stream.feed("f.txt\n<<<<<<< SEARCH\na\n=======\n")
    assert stream.in_block
    stream.feed("b\n>>>>>>> REPLACE\n")
    assert not stream.in_block


@pytest.mark.parametrize("line_by_line", [False, True])
def test_a_stream_keeping_a_few_blocks_not_read_as_edits_counts_the_rest(line_by_line):
    reply = (
        f"{F}\n1\n{F}\n" * 3
        + f"{F}bash\nls\n{F}\n"
        + "src/x.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
        + f"{F}\n2\n{F}\n" * 4
    )
    stream = ReplyStream(keep_ignored=2)
    pieces = reply.splitlines(keepends=True) if line_by_line else [reply]
    items = [item for piece in pieces for item in stream.feed(piece)] + stream.finish()
    every = parse_reply(reply)
    ignored = [item for item in every if isinstance(item, IgnoredBlock)]
    assert len(ignored) == 8 and stream.ignored_beyond == 6
    assert items == [item for item in every if item in ignored[:2] or item not in ignored]


def line_by_line(reply):
    """The items of a reply fed one line at a time: no block is ever whole when its
    first line arrives, so every block goes through its line-by-line parser."""
    return fed_in_pieces(reply, [i + 1 for i, char in enumerate(reply) if char == "\n"])


# Fence tags near the plain symbol tag a fence is read whole for (`python:A-b`), and
# lines before a fence that may name its file
SYMBOL_TAGS = [
    "python:A-b",
    "python:Service1-method_1",
    "py:_x",
    "c++:A-b-c",
    "python:A--b",
    "python:A-",
    "python:1A",
    "python:-1",
    "python:A.b",
    "python:A::b",
    "python:a/b.py",
    "python:A:before",
    "python:A:sideways",
    ":A-b",
    "python:A-b title=x.py",
    "python:A-b ",
    "python:Ä-ß",
    "python:A`b",
    "diff:A",
]
BEFORE_FENCE = [
    "",
    "src/x.py\n",
    "src/x.py\n\n",
    "Here is `a.py`:\n",
    "notes\n",
    "# a.py\n",
    "...\n",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(BEFORE_FENCE),
            st.sampled_from(["```", "~~~", "````", " ```"]),
            st.sampled_from(SYMBOL_TAGS),
            st.lists(st.sampled_from([*CONTENT_LINES, "```", "~~~", "\ufeffx", "»»»"]), max_size=4),
            st.sampled_from(["```", "~~~", "````", "``` ", "```python:C-d", ""]),
        ),
        max_size=6,
    )
)
def test_a_symbol_fence_read_whole_gives_what_reading_it_line_by_line_gives(fences):
    reply = "".join(
        f"{before}{fence}{tag}\n" + "".join(f"{line}\n" for line in content) + f"{closer}\n"
        for before, fence, tag, content, closer in fences
    )
    assert repr(parse_reply(reply)) == repr(line_by_line(reply))


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["--- a/x.py", "--- x.py\t2024", '--- "a/x y.py"', "--- /dev/null"]),
    st.sampled_from(["+++ b/x.py", "+++ /dev/null", "+++ ", "+++ b/y.py"]),
    st.sampled_from(
        ["@@ -1,3 +1,3 @@", "@@ -2 +2 @@ def f():", "@@ -0,0 +1,2 @@", "@@ -1,2 +1 @@", "@@"]
    ),
    st.lists(st.sampled_from([" a", "-b", "+c", "", " ", "-", "+"]), max_size=6),
    st.sampled_from(
        ["", "\n", "prose\n", "\nprose\n", " d\n", "@@ -9 +9 @@\n", "```\n", "--- a/z\n"]
    ),
)
def test_a_diff_read_whole_gives_what_reading_it_line_by_line_gives(
    minus, plus, header, body, after
):
    reply = "\n".join([minus, plus, header, *body]) + "\n" + after
    assert repr(parse_reply(reply)) == repr(line_by_line(reply))


# Lines whose first characters come near a marker, a fence line or a diff header
TRICKY_LINES = [
    "x",
    "  x",
    "\tx",
    "\x0c```",
    " ```",
    "```",
    "~~~",
    "  ~~~ x",
    "=====",
    "  =======",
    "==",
    ">>>>>",
    " >>",
    "<<<<<",
    "<<",
    "«««",
    "»»»",
    "═══",
    "───",
    "*** x",
    "  *** x",
    "**",
    "--- a",
    "-- a",
    "-",
    "+",
    "+x",
    "@@",
    "diff --git a b",
    " diff --git a b",
    "d",
    "",
    " ",
]
BLOCK_SHAPES = [
    "a.py\n<<<<<<< SEARCH\n{0}=======\n{1}>>>>>>> REPLACE\n",
    "a.py\n««« EDIT\n{0}═══════ REPL\n{1}»»» EDIT END\n",
    "```python:A-b\n{0}{1}```\n",
    "a.py\n```\n{0}{1}```\n",
    "~~~\n{0}{1}~~~\n",
    "*** Begin Patch\n*** Update File: a.py\n@@\n{0}{1}*** End Patch\n",
    "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n{0}{1}\n",
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(BLOCK_SHAPES),
            st.lists(st.sampled_from(TRICKY_LINES), max_size=4),
            st.lists(st.sampled_from(TRICKY_LINES), max_size=4),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_blocks_of_any_format_read_whole_give_what_reading_them_line_by_line_gives(blocks):
    reply = "".join(
        shape.format("".join(f"{line}\n" for line in old), "".join(f"{line}\n" for line in new))
        for shape, old, new in blocks
    )
    assert repr(parse_reply(reply)) == repr(line_by_line(reply))
