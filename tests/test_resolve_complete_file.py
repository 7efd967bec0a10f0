"""Whole-file blocks: create, already applied, minimal edits, placeholders."""

from __future__ import annotations

from lsp_edit.resolve.complete_file import resolve_complete_file
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused
from lsp_edit.text import LineEdit, Text


def test_a_missing_file_is_created_with_one_insertion() -> None:
    result = resolve_complete_file(("a", "b"), None)
    assert result == Placed((LineEdit(0, 0, ("a", "b")),), "complete_file")
    assert Text(()).replace(result.edits).render() == "a\nb\n"


def test_the_same_content_is_already_applied() -> None:
    result = resolve_complete_file(("a", "b"), Text.from_string("a\r\nb"))
    assert result == AlreadyApplied("The file already has this content.")


def test_only_changed_lines_are_edited_and_kept_lines_keep_their_crlf() -> None:
    text = Text.from_string("a\r\nb\r\nc\r\n")
    result = resolve_complete_file(("a", "B", "c"), text)
    assert isinstance(result, Placed)
    assert result.edits == (LineEdit(1, 2, ("B",)),)
    assert text.replace(result.edits).render() == "a\r\nB\r\nc\r\n"


def test_an_existing_code_placeholder_does_not_delete_the_rest_of_the_file() -> None:
    text = Text.from_string("import os\n\ndef main():\n    run()\n\nmain()\n")
    result = resolve_complete_file(
        ("import os", "import sys", "", "// ... existing code ..."), text
    )
    assert isinstance(result, Placed)
    assert (
        text.replace(result.edits).render()
        == "import os\nimport sys\n\ndef main():\n    run()\n\nmain()\n"
    )
    result = resolve_complete_file(("import sys", "import os", "# ... existing code ..."), text)
    assert isinstance(result, Placed)
    assert (
        text.replace(result.edits).render()
        == "import sys\nimport os\n\ndef main():\n    run()\n\nmain()\n"
    )
    assert result.notes == (
        "Filled 5 elided lines at `# ... existing code ...` from the original (lines 2-6)",
    )


def test_a_placeholder_with_an_unfindable_neighbour_is_refused() -> None:
    text = Text.from_string("a\nb\nc\n")
    result = resolve_complete_file(("new", "# ... rest of the file unchanged"), text)
    assert isinstance(result, Refused) and result.code == "elision_ambiguous"
