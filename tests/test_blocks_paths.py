"""The path line before a block: decoration removed, prose told apart."""

from lsp_edit.blocks.paths import PathLine, clean_path_line, looks_like_path


def test_plain_bold_code_and_labelled_paths_clean_to_the_path():
    for written in (
        "src/x.py",
        "**src/x.py**",
        "`src/x.py`",
        "# File: src/x.py",
        "File: src/x.py",
        "src/x.py:",
        "**File:** src/x.py",
        "### `src/x.py`",
    ):
        assert clean_path_line(written).path == "src/x.py", written


def test_quoted_path_keeps_its_spaces_and_counts_as_a_path():
    cleaned = clean_path_line("`docs/read me.md`")
    assert cleaned == PathLine("docs/read me.md", True) and looks_like_path(cleaned)


def test_prose_with_a_colon_is_not_a_path():
    assert not looks_like_path(clean_path_line("Here is the fix:"))


def test_name_with_an_extension_and_no_slash_is_a_path():
    assert looks_like_path(clean_path_line("setup.py"))


def test_word_without_slash_or_extension_is_not_a_path():
    assert not looks_like_path(clean_path_line("Next:"))


def test_well_known_file_without_an_extension_is_a_path():
    assert looks_like_path(clean_path_line("Makefile"))
    assert looks_like_path(clean_path_line("**Dockerfile**"))


def test_url_is_not_a_path():
    assert not looks_like_path(clean_path_line("https://example.com/a.py"))


def test_a_bare_fence_line_cleans_to_nothing():
    assert clean_path_line("```").path == ""
