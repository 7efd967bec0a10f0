"""Fenced blocks: the tag grammar (complete file, line range, AST path), where
their path comes from, their exact content, and fences that are not edits."""

import copy

from lsp_edit.blocks import TagError, parse_fence_tag, parse_reply
from lsp_edit.blocks.model import (
    AstTarget,
    FencedEdit,
    IgnoredBlock,
    LineRangeTarget,
    ParseProblem,
    ReplySpan,
    ShellSuggestion,
)
from lsp_edit.values import replace

F = "```"


def only(reply):
    items = parse_reply(reply)
    assert len(items) == 1, items
    return items[0]


# --- tag grammar ---------------------------------------------------------------


def test_bare_language_tag_is_a_complete_file():
    assert parse_fence_tag("python") == ("python", None)


def test_single_number_is_that_one_line():
    assert parse_fence_tag("python:12") == ("python", LineRangeTarget(12, 13))


def test_two_numbers_are_a_one_based_end_exclusive_range():
    assert parse_fence_tag("javascript:10:15") == ("javascript", LineRangeTarget(10, 15))


def test_equal_numbers_are_an_empty_insertion_range():
    assert parse_fence_tag("python:10:10") == ("python", LineRangeTarget(10, 10))


def test_inverted_range_is_invalid_line_range_naming_both_numbers():
    error = parse_fence_tag("python:7:3")
    assert isinstance(error, TagError) and error.code == "invalid_line_range"
    assert "start line 7 is after end line 3" in error.message
    assert "`python:start:end`" in error.message


def test_line_zero_is_invalid_line_range():
    error = parse_fence_tag("python:0:4")
    assert isinstance(error, TagError) and error.code == "invalid_line_range"
    assert "must be 1 or more, got 0" in error.message


def test_range_written_with_a_dash_is_invalid_line_range():
    error = parse_fence_tag("python:10-20")
    assert isinstance(error, TagError) and error.code == "invalid_line_range"
    assert "'10-20'" in error.message


def test_ast_path_is_split_on_dashes():
    assert parse_fence_tag("vala:OLLMchat-Client-chat") == (
        "vala",
        AstTarget("OLLMchat-Client-chat", ("OLLMchat", "Client", "chat"), "replace"),
    )


def test_ast_path_with_double_colons_and_an_action_suffix():
    assert parse_fence_tag("cpp:net::Client::chat:before") == (
        "cpp",
        AstTarget("net::Client::chat", ("net", "Client", "chat"), "before"),
    )


def test_ast_path_is_split_on_dots_and_slashes_too():
    assert parse_fence_tag("python:pkg.Client/chat:remove") == (
        "python",
        AstTarget("pkg.Client/chat", ("pkg", "Client", "chat"), "remove"),
    )


def test_after_action_suffix():
    assert parse_fence_tag("go:Server-Start:after")[1] == AstTarget(
        "Server-Start", ("Server", "Start"), "after"
    )


def test_unknown_action_suffix_is_invalid_ast_path():
    error = parse_fence_tag("python:Client-chat:middle")
    assert isinstance(error, TagError) and error.code == "invalid_ast_path"
    assert "`:middle` is not an action" in error.message


def test_ast_path_with_an_empty_part_is_invalid_ast_path():
    error = parse_fence_tag("python:Client--chat")
    assert isinstance(error, TagError) and error.code == "invalid_ast_path"
    assert "empty part" in error.message


def test_only_the_first_word_of_the_info_string_is_the_tag():
    assert parse_fence_tag('python title="x.py"') == ("python", None)


def test_tag_without_language_is_an_error():
    error = parse_fence_tag(":10:12")
    assert isinstance(error, TagError) and error.code == "invalid_line_range"


# --- fenced blocks in a reply ------------------------------------------------------


def test_line_range_block_with_its_path_on_the_line_before():
    reply = f"src/app.js\n{F}javascript:10:15\nconst a = 1;\n{F}\n"
    assert only(reply) == FencedEdit(
        ReplySpan(2, 4),
        "src/app.js",
        "javascript",
        "javascript:10:15",
        LineRangeTarget(10, 15),
        ("const a = 1;",),
    )


def test_content_keeps_indentation_and_internal_blank_lines_exactly():
    reply = f"a.py\n{F}python:Client-chat\n    def chat(self):\n\n        return 1  \n{F}\n"
    assert only(reply).content == ("    def chat(self):", "", "        return 1  ")


def test_remove_block_has_empty_content():
    edit = only(f"a.py\n{F}python:Client-chat:remove\n{F}\n")
    assert edit.content == () and edit.target.action == "remove"


def test_prose_before_a_fence_is_not_a_path():
    assert only(f"Here is the fix:\n{F}python:Client-chat\npass\n{F}\n").path is None


def test_bold_path_with_a_blank_line_before_the_fence():
    assert only(f"**src/x.py**\n\n{F}python\npass\n{F}\n").path == "src/x.py"


def test_code_path_with_a_trailing_colon():
    assert only(f"`src/my file.py`:\n{F}python\npass\n{F}\n").path == "src/my file.py"


def test_file_label_heading_path():
    assert only(f"# File: src/x.py\n{F}python\npass\n{F}\n").path == "src/x.py"


def test_reply_starting_with_a_fence_has_no_path():
    assert only(f"{F}python:3:4\nx\n{F}\n").path is None


def test_tilde_fence_closes_only_with_tildes():
    edit = only("a.py\n~~~python\n```\nx\n~~~\n")
    assert edit.content == ("```", "x")


def test_longer_fence_holds_shorter_fences_as_content():
    reply = f"README.md\n````markdown\n# Title\n{F}bash\nls\n{F}\n````\n"
    assert only(reply).content == ("# Title", f"{F}bash", "ls", F)


def test_closing_fence_may_be_longer_but_not_followed_by_text():
    edit = only(f"a.py\n{F}python\n{F} not a close\nx\n`````\n")
    assert edit.content == (f"{F} not a close", "x")


def test_indented_fence_content_loses_the_fence_indentation():
    edit = only(f"1. a.py\n   {F}python\n   def f():\n       pass\n   {F}\n")
    assert edit.content == ("def f():", "    pass")


def test_fence_without_a_tag_or_a_path_is_reported_as_ignored():
    assert parse_reply(f"Output:\n{F}\nsome output\n{F}\n") == [
        IgnoredBlock(ReplySpan(2, 4), f"{F} block", "it has no language tag and names no file")
    ]


def test_untagged_fence_after_a_path_line_is_a_whole_file_candidate():
    (edit,) = parse_reply(f"hello.py\n{F}\nprint(1)\n{F}\n")
    assert (edit.path, edit.language, edit.target, edit.content) == (
        "hello.py",
        "",
        None,
        ("print(1)",),
    )


def test_invalid_tag_skips_the_block_and_parsing_continues():
    reply = f"{F}python:9:2\nx\n{F}\n\na.py\n{F}python:2:3\ny\n{F}\n"
    problem, edit = parse_reply(reply)
    assert isinstance(problem, ParseProblem) and problem.code == "invalid_line_range"
    assert problem.span == ReplySpan(1, 3)
    assert isinstance(edit, FencedEdit) and edit.content == ("y",)


def test_unclosed_fence_is_reported_when_the_reply_ends():
    problem = only(f"a.py\n{F}python:Client-chat\npass\n")
    assert problem.code == "unclosed_block" and problem.span == ReplySpan(2, 3)
    assert "opened at reply line 2 was never closed" in problem.message


def test_unclosed_targeted_fence_followed_by_another_targeted_fence_reports_and_recovers():
    reply = f"a.py\n{F}python:A-f\nx\n\na.py\n{F}python:A-g\ny\n{F}\n"
    problem, edit = parse_reply(reply)
    assert problem.code == "unclosed_block" and problem.span == ReplySpan(2, 5)
    assert edit.target == AstTarget("A-g", ("A", "g")) and edit.content == ("y",)


def test_a_tagged_fence_inside_a_block_opens_a_level_the_next_bare_fence_closes():
    reply = f"README.md\n{F}markdown\n# App\n{F}bash\npip install app\n{F}\nThen run it.\n{F}\n"
    assert only(reply).content == ("# App", f"{F}bash", "pip install app", F, "Then run it.")


def test_a_block_whose_inner_fence_never_closes_is_refused_not_cut_short():
    reply = f"README.md\n{F}markdown\n# App\n{F}bash\npip install app\n{F}\nThen run it.\n"
    (problem,) = parse_reply(reply)
    assert problem.code == "unclosed_block" and problem.span == ReplySpan(2, 7)
    assert "where the block ends cannot be told" in problem.message


# --- shell and json fences ------------------------------------------------------------


def test_git_commands_in_a_bash_block_are_suggestions_one_per_line():
    reply = f"Then:\n{F}bash\n$ git add src/x.py\nls -la\ngit commit -m 'fix'\n{F}\n"
    assert parse_reply(reply) == [
        ShellSuggestion(ReplySpan(3, 3), "git add src/x.py"),
        ShellSuggestion(ReplySpan(5, 5), "git commit -m 'fix'"),
    ]


def test_shell_block_without_git_commands_is_reported_as_ignored():
    assert parse_reply(f"{F}sh\nmake test\n{F}\n") == [
        IgnoredBlock(ReplySpan(1, 3), f"{F}sh block", "shell commands are never run")
    ]


def test_json_block_that_is_not_operations_is_a_complete_json_file():
    edit = only(f'package.json\n{F}json\n{{"name": "x"}}\n{F}\n')
    assert isinstance(edit, FencedEdit) and edit.language == "json"
    assert edit.path == "package.json" and edit.content == ('{"name": "x"}',)


def test_invalid_json_that_mentions_op_is_invalid_json():
    problem = only(f'{F}json\n{{"op": "delete_lines", \n{F}\n')
    assert problem.code == "invalid_json" and "not valid JSON" in problem.message


def test_fences_naming_no_file_one_after_another_are_each_not_an_edit_until_one_names_a_file():
    reply = f"{F}\n1\n{F}\n{F}\n\n{F}\n~~~\n2\n~~~\n{F}\nsrc/a.py\n{F}\n{F}python\nx = 1\n{F}\n"
    items = parse_reply(reply)
    assert [(type(item).__name__, item.span.start_line) for item in items] == [
        ("IgnoredBlock", 1),
        ("IgnoredBlock", 4),
        ("IgnoredBlock", 7),
        ("FencedEdit", 13),
    ]
    assert [item.block for item in items[:3]] == [f"{F} block", f"{F} block", "~~~ block"]
    assert items[3].path == "src/a.py" and items[3].content == ("x = 1",)


def test_each_targeted_fence_left_open_ends_where_the_next_one_opens():
    reply = f"{F}python:A-run\nx = 1\n{F}python:B-run\ny = 2\n\n{F}python:C-run\nz\n{F}\n"
    items = parse_reply(reply)
    assert [(type(item).__name__, item.span.start_line, item.span.end_line) for item in items] == [
        ("ParseProblem", 1, 2),
        ("ParseProblem", 3, 5),
        ("FencedEdit", 6, 8),
    ]
    assert "a new fence `" + F + "python:B-run` opened at line 3" in items[0].message


def test_a_fence_left_open_keeps_its_message_when_copied_or_moved():
    first, _ = parse_reply(f"{F}python:A-run\nx = 1\n{F}python:B-run\ny = 2\n")
    message = (
        f"fenced block `{F}python:A-run` opened at reply line 1 was never closed (a new fence "
        f"`{F}python:B-run` opened at line 3); it was skipped. Close it with a line `{F}`."
    )
    moved = replace(first, span=ReplySpan(7, 8))
    assert moved.message == message and copy.deepcopy(first).message == message
    assert first == ParseProblem(ReplySpan(1, 2), "unclosed_block", message)
