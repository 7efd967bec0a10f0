"""The layouts real models write around their blocks: where the file path sits,
which fences wrap the blocks, and what is never taken for a path or a file."""

from lsp_edit.blocks import parse_reply
from lsp_edit.blocks.model import AnchoredEdit, FencedEdit, IgnoredBlock, ParseProblem, ReplySpan

F = "```"
BLOCK = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"


def paths(reply):
    return [item.path for item in parse_reply(reply) if isinstance(item, AnchoredEdit)]


def test_a_path_line_then_a_blank_line_then_the_block_names_the_file():
    assert paths("src/x.py\n\n" + BLOCK) == ["src/x.py"]


def test_prose_then_a_blank_line_then_the_block_names_no_file():
    assert paths("Here is the change:\n\n" + BLOCK) == [None]


def test_a_word_that_is_not_a_path_after_a_blank_line_names_no_file():
    assert paths("Next:\n\n" + BLOCK) == [None]


def test_the_file_carries_over_to_a_block_in_the_next_fence():
    reply = f"src/x.py\n{F}python\n{BLOCK}{F}\n{F}python\n{BLOCK}{F}\n"
    assert paths(reply) == ["src/x.py", "src/x.py"]


def test_the_file_carries_over_across_an_ellipsis_line():
    assert paths(f"src/x.py\n{BLOCK}...\n{BLOCK}") == ["src/x.py", "src/x.py"]


def test_the_file_does_not_carry_over_across_prose():
    assert paths(f"src/x.py\n{BLOCK}\nThen another file:\n\n{BLOCK}") == ["src/x.py", None]


def test_a_path_fenced_on_its_own_names_the_next_blocks_file():
    reply = f"{F}python\nword_count.py\n{F}\n{F}python\n{BLOCK}{F}\n"
    assert parse_reply(reply) == [
        AnchoredEdit(
            ReplySpan(5, 9), "word_count.py", "search_replace", parse_reply(BLOCK)[0].hunks
        )
    ]


def test_a_path_inside_a_fence_before_a_second_fence_names_the_file():
    reply = f"{F}solidity\nsc/src/Counter.sol\n{F}python\n{BLOCK}{F}\n"
    assert paths(reply) == ["sc/src/Counter.sol"]


def test_a_fence_line_is_never_taken_for_a_path():
    reply = f"{F}python\n{F}python\n{BLOCK}{F}\n"
    assert paths(reply) == [None]


def test_source_tags_around_a_block_are_fences_not_its_path():
    assert paths(f"app/models.py\n<source>python\n{BLOCK}</source>\n") == ["app/models.py"]


def test_a_path_in_a_comment_on_the_first_line_inside_the_fence_names_the_file():
    assert paths(f"{F}\n# app/utils.py\n{BLOCK}{F}\n") == ["app/utils.py"]
    assert paths(f"{F}\n// src/app.ts\n{BLOCK}{F}\n") == ["src/app.ts"]


def test_a_path_in_the_fence_tag_names_the_file_of_the_block_inside():
    assert paths(f"{F}python:app/utils.py\n{BLOCK}{F}\n") == ["app/utils.py"]


def test_a_path_in_the_fence_tag_makes_a_whole_file_block_not_an_ast_path():
    (edit,) = parse_reply(f"{F}python:app/utils.py\nprint(1)\n{F}\n")
    assert isinstance(edit, FencedEdit)
    assert (edit.path, edit.language, edit.target) == ("app/utils.py", "python", None)


def test_a_fence_tag_that_is_a_path_names_the_file():
    (edit,) = parse_reply(f"{F}src/main.rs\nfn main() {{}}\n{F}\n")
    assert (edit.path, edit.language, edit.target) == ("src/main.rs", "", None)


def test_a_title_word_in_the_fence_info_names_the_file():
    (edit,) = parse_reply(f'{F}python title="app/utils.py"\nprint(1)\n{F}\n')
    assert (edit.path, edit.language) == ("app/utils.py", "python")


def test_a_comment_naming_a_path_on_the_first_line_names_a_whole_file():
    (edit,) = parse_reply(f"{F}python\n# app/utils.py\nprint(1)\n{F}\n")
    assert edit.path == "app/utils.py" and edit.content == ("# app/utils.py", "print(1)")


def test_a_search_replace_block_inside_a_bash_fence_is_read():
    assert paths(f"deploy.sh\n{F}bash\n{BLOCK}{F}\n") == ["deploy.sh"]


def test_a_search_replace_block_inside_a_json_fence_is_read_not_written_as_the_file():
    assert paths(f"package.json\n{F}json\n{BLOCK}{F}\n") == ["package.json"]


def test_a_well_known_file_without_extension_is_named_by_its_line():
    (edit,) = parse_reply(f"Makefile\n{F}makefile\nall:\n\tcc main.c\n{F}\n")
    assert edit.path == "Makefile"


def test_a_bom_before_the_path_line_is_not_part_of_the_path():
    assert paths("\ufeffsrc/x.py\n" + BLOCK) == ["src/x.py"]


def test_a_fenced_block_missing_its_search_opener_is_refused_not_written():
    reply = f"src/x.py\n{F}python\nold\n=======\nnew\n>>>>>>> REPLACE\n{F}\n"
    (problem,) = parse_reply(reply)
    assert isinstance(problem, ParseProblem) and problem.code == "markers_in_content"
    assert problem.path == "src/x.py" and "`>>>>>>> REPLACE`" in problem.message


def test_a_merge_conflict_in_a_whole_file_block_is_refused_not_written():
    reply = f"src/x.py\n{F}python\n<<<<<<< HEAD\na = 1\n=======\na = 2\n>>>>>>> main\n{F}\n"
    (problem,) = parse_reply(reply)
    assert problem.code == "markers_in_content" and "`<<<<<<< HEAD`" in problem.message


def test_a_whole_markdown_file_showing_a_diff_is_the_file_not_a_wrapped_diff():
    # black's docs/usage_and_configuration/the_basics.md shows `black --diff` output
    doc = (
        "# The basics\n\nBlack shows what it would change:\n\n"
        f"{F}diff\n--- test.py\t2021-03-08 22:23:40+00:00\n+++ test.py\t2021-03-08\n"
        f"@@ -1 +1 @@\n-print ( 'hello' )\n+print('hello')\n{F}\n\nThat is all.\n"
    )
    (edit,) = parse_reply(f"docs/the_basics.md\n{F}`markdown\n{doc}{F}`\n")
    assert isinstance(edit, FencedEdit) and edit.path == "docs/the_basics.md"
    assert edit.content == tuple(doc.splitlines())


def test_a_whole_file_showing_search_replace_blocks_is_refused_not_read_as_them():
    doc = f"# Formats\n\nA block looks like this:\n\nsrc/x.py\n{BLOCK}\nThat is all.\n"
    (problem,) = parse_reply(f"docs/formats.md\n{F}markdown\n{doc}{F}\n")
    assert isinstance(problem, ParseProblem) and problem.code == "markers_in_content"
    assert problem.path == "docs/formats.md"


def test_a_path_and_blank_lines_before_the_blocks_still_make_the_fence_wrap_them():
    diff = "--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    (edit,) = parse_reply(f"{F}python\n# src/x.py\n\n{diff}{F}\n")
    assert isinstance(edit, AnchoredEdit) and edit.path == "src/x.py"
    assert paths(f"{F}python\n\nsrc/y.py\n{BLOCK}\nsrc/y.py\n{BLOCK}{F}\n") == ["src/y.py"] * 2


def test_a_shell_fence_wraps_a_block_after_its_commands():
    assert paths(f"{F}bash\ngit pull\ndeploy.sh\n{BLOCK}{F}\n") == ["deploy.sh"]


def test_a_heading_underline_is_not_an_edit_marker():
    (edit,) = parse_reply(f"README.md\n{F}markdown\nTitle\n=======\n{F}\n")
    assert edit.content == ("Title", "=======")


def test_a_fence_that_names_no_file_is_reported_as_ignored():
    assert parse_reply(f"Output:\n{F}\n42\n{F}\n") == [
        IgnoredBlock(ReplySpan(2, 4), f"{F} block", "it has no language tag and names no file")
    ]


def test_a_reply_starting_with_a_byte_order_mark_reads_its_first_block():
    assert parse_reply("\ufeff" + BLOCK)[0].hunks == parse_reply(BLOCK)[0].hunks


def test_a_fenced_path_closed_by_the_next_blocks_opener_names_that_blocks_file():
    reply = f"{F}\nclient/src/App.js\n{F}javascript\nimport x;\n{F}\n"
    (edit,) = parse_reply(reply)
    assert (edit.path, edit.language, edit.content) == (
        "client/src/App.js",
        "javascript",
        ("import x;",),
    )


def test_a_markup_line_before_a_fence_is_not_a_path():
    (ignored,) = parse_reply(f"</div>\n{F}\n42\n{F}\n")
    assert isinstance(ignored, IgnoredBlock)


def test_a_path_line_inside_a_shell_fence_names_the_block_after_it():
    assert paths(f"Here's a shell script:\n\n{F}sh\ntest_hello.sh\n{BLOCK}{F}\n") == [
        "test_hello.sh"
    ]


def test_the_one_file_named_in_backticks_in_the_line_before_a_fence_may_be_its_file():
    (edit,) = parse_reply(f"Here is a new version of `a.txt` for you:\n\n{F}\nafter a\n{F}\n")
    assert (edit.path, edit.path_if_exists) == ("a.txt", True)
