"""Paths stay inside the workspace; files are read as UTF-8 or refused; writes are
atomic and keep permissions."""

import os
import stat

import pytest

from lsp_edit.resolve.model import Refused
from lsp_edit.text import Text
from lsp_edit.workspace import FileRef, FileWrite, Workspace, WriteFailure


@pytest.fixture
def root(tmp_path):
    project = tmp_path / "project"
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "pkg" / "client.py").write_text("x = 1\n")
    (project / "README.md").write_text("hi\n")
    return project


def test_relative_path_resolves_inside_the_root(root):
    ref = Workspace(root).locate("src/pkg/client.py")
    assert isinstance(ref, FileRef)
    assert ref.relative == "src/pkg/client.py" and ref.note is None


@pytest.mark.parametrize("escaping", ["../outside.py", "src/../../outside.py", "/etc/passwd"])
def test_paths_leading_out_of_the_workspace_are_refused(root, escaping):
    result = Workspace(root).locate(escaping)
    assert isinstance(result, Refused) and result.code == "outside_workspace"


def test_absolute_path_inside_the_workspace_is_accepted(root):
    ref = Workspace(root).locate(str(root / "README.md"))
    assert isinstance(ref, FileRef) and ref.relative == "README.md"


def test_symlink_leading_out_of_the_workspace_is_refused(root, tmp_path):
    (tmp_path / "secret.txt").write_text("secret\n")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    result = Workspace(root).locate("link.txt")
    assert isinstance(result, Refused) and result.code == "outside_workspace"


def test_symlinked_folder_leading_out_is_refused_even_for_new_files(root, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "out")
    result = Workspace(root).locate("out/new.py")
    assert isinstance(result, Refused) and result.code == "outside_workspace"


def test_path_naming_no_file_resolves_by_its_tail_to_the_one_matching_file(root):
    ref = Workspace(root).locate("pkg/client.py")
    assert isinstance(ref, FileRef)
    assert ref.relative == "src/pkg/client.py"
    assert ref.note is not None and "src/pkg/client.py" in ref.note


def test_tail_matching_two_files_is_not_resolved(root):
    (root / "tests").mkdir()
    (root / "tests" / "client.py").write_text("")
    ref = Workspace(root).locate("client.py")
    assert isinstance(ref, FileRef) and ref.relative == "client.py"
    # Neither is taken, and the note names both for the LLM to choose.
    assert ref.note == (
        "`client.py` does not exist; `src/pkg/client.py`, `tests/client.py` have the same "
        "name. If the block meant an existing file, name it by its path from the workspace root."
    )


def test_tail_matching_can_be_turned_off_for_new_files(root):
    ref = Workspace(root).locate("client.py", allow_tail_match=False)
    assert isinstance(ref, FileRef) and ref.relative == "client.py"


def test_folder_is_not_a_file(root):
    result = Workspace(root).locate("src")
    assert isinstance(result, Refused) and result.code == "file_not_found"


def test_a_path_longer_than_any_file_name_is_refused_with_its_length(root):
    result = Workspace(root).locate("src/" * 2000 + "client.py")
    assert isinstance(result, Refused) and result.code == "file_not_found"
    assert "8,009 characters long" in result.message and len(result.message) < 300


def test_a_folder_name_the_file_system_cannot_hold_is_refused_not_raised(root):
    result = Workspace(root).locate("x" * 300 + "/client.py")
    assert isinstance(result, Refused) and result.code == "file_not_found"
    assert "cannot name a file here" in result.message


def test_missing_file_reads_as_none(root):
    workspace = Workspace(root)
    ref = workspace.locate("new.py", allow_tail_match=False)
    assert isinstance(ref, FileRef) and workspace.read(ref) is None


def test_binary_file_is_refused(root):
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    workspace = Workspace(root)
    ref = workspace.locate("image.png")
    assert isinstance(ref, FileRef)
    result = workspace.read(ref)
    assert isinstance(result, Refused) and result.code == "binary_file"
    assert result.message == "Cannot edit binary file `image.png`."


def test_file_in_another_encoding_is_refused_not_rewritten(root):
    (root / "latin.txt").write_bytes("café\n".encode("latin-1"))
    workspace = Workspace(root)
    ref = workspace.locate("latin.txt")
    assert isinstance(ref, FileRef)
    result = workspace.read(ref)
    assert isinstance(result, Refused) and result.code == "not_utf8"
    assert "not UTF-8" in result.message


def test_utf8_bom_is_kept_through_read_and_write(root):
    (root / "bom.txt").write_bytes(b"\xef\xbb\xbfa\r\nb\r\n")
    workspace = Workspace(root)
    ref = workspace.locate("bom.txt")
    assert isinstance(ref, FileRef)
    text = workspace.read(ref)
    assert isinstance(text, Text) and text.lines == ["a", "b"]
    workspace.write(ref, text)
    assert (root / "bom.txt").read_bytes() == b"\xef\xbb\xbfa\r\nb\r\n"


def test_write_keeps_the_files_permissions(root):
    script = root / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o750)
    workspace = Workspace(root)
    ref = workspace.locate("run.sh")
    assert isinstance(ref, FileRef)
    workspace.write(ref, Text.from_string("echo bye\n"))
    assert script.read_text() == "echo bye\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


def test_write_leaves_no_temporary_file_behind(root):
    workspace = Workspace(root)
    ref = workspace.locate("src/pkg/client.py")
    assert isinstance(ref, FileRef)
    workspace.write(ref, Text.from_string("x = 2\n"))
    assert sorted(os.listdir(root / "src" / "pkg")) == ["client.py"]


def test_write_that_fails_midway_leaves_the_original_intact(root, monkeypatch):
    workspace = Workspace(root)
    ref = workspace.locate("README.md")
    assert isinstance(ref, FileRef)

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        workspace.write(ref, Text.from_string("new\n"))
    assert (root / "README.md").read_text() == "hi\n"
    assert sorted(os.listdir(root)) == ["README.md", "src"]


def test_new_file_in_a_new_folder_is_created(root):
    workspace = Workspace(root)
    ref = workspace.locate("docs/guide.md", allow_tail_match=False)
    assert isinstance(ref, FileRef)
    workspace.write(ref, Text.from_string("# Guide\n"))
    assert (root / "docs" / "guide.md").read_text() == "# Guide\n"


def test_writing_through_a_symlink_inside_the_workspace_updates_its_target(root):
    os.symlink(root / "README.md", root / "alias.md")
    workspace = Workspace(root)
    ref = workspace.locate("alias.md")
    assert isinstance(ref, FileRef) and ref.relative == "README.md"
    workspace.write(ref, Text.from_string("changed\n"))
    assert os.path.islink(root / "alias.md")
    assert (root / "README.md").read_text() == "changed\n"


def test_writing_a_reply_that_fails_restores_every_file_and_removes_new_ones(root, monkeypatch):
    workspace = Workspace(root)
    readme = workspace.locate("README.md")
    client = workspace.locate("src/pkg/client.py")
    fresh = workspace.locate("docs/new/guide.md", allow_tail_match=False)
    assert isinstance(readme, FileRef) and isinstance(client, FileRef)
    assert isinstance(fresh, FileRef)
    writes = [
        FileWrite(fresh, None, Text.from_string("# Guide\n")),
        FileWrite(readme, Text.from_string("hi\n"), None),
        FileWrite(client, Text.from_string("x = 1\n"), Text.from_string("x = 2\n")),
    ]
    real_replace = os.replace

    def third_step_fails(src, dst):
        if str(dst).endswith("client.py"):
            raise OSError(28, "No space left on device", src)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", third_step_fails)
    failure = workspace.write_all(writes)
    assert failure == WriteFailure(
        "src/pkg/client.py",
        "No space left on device",
        (
            ("docs/new/guide.md", "restored"),
            ("README.md", "unchanged"),
            ("src/pkg/client.py", "unchanged"),
        ),
    )
    assert sorted(os.listdir(root)) == ["README.md", "src"]
    assert (root / "README.md").read_text() == "hi\n"
    assert sorted(os.listdir(root / "src" / "pkg")) == ["client.py"]


def test_writing_a_reply_deletes_only_after_every_write_succeeded(root):
    workspace = Workspace(root)
    readme = workspace.locate("README.md")
    moved = workspace.locate("docs/README.md", allow_tail_match=False)
    assert isinstance(readme, FileRef) and isinstance(moved, FileRef)
    failure = workspace.write_all(
        [
            FileWrite(readme, Text.from_string("hi\n"), None),
            FileWrite(moved, None, Text.from_string("hi\n")),
        ]
    )
    assert failure is None
    assert not (root / "README.md").exists()
    assert (root / "docs" / "README.md").read_text() == "hi\n"


def test_a_file_located_before_and_deleted_since_is_located_as_a_new_file(root):
    workspace = Workspace(root)
    first = workspace.locate("src/pkg/client.py")
    assert isinstance(first, FileRef) and first.absolute.exists()
    (root / "src" / "pkg" / "client.py").unlink()
    (root / "tests").mkdir()
    (root / "tests" / "client.py").write_text("")
    again = workspace.locate("src/pkg/client.py")
    assert isinstance(again, FileRef) and not again.absolute.exists()
    assert again.note is not None and "`tests/client.py`" in again.note


def test_a_workspace_whose_files_stay_locates_a_file_it_deleted_as_a_new_file(root):
    workspace = Workspace(root, files_stay=True)
    first = workspace.locate("src/pkg/client.py")
    assert isinstance(first, FileRef)
    (root / "tests").mkdir()
    (root / "tests" / "client.py").write_text("")
    assert workspace.write_all([FileWrite(first, Text.from_string("x = 1\n"), None)]) is None
    again = workspace.locate("src/pkg/client.py")
    assert isinstance(again, FileRef) and not again.absolute.exists()
    assert again.note is not None and "`tests/client.py`" in again.note


def test_a_located_file_and_the_root_are_given_as_paths_whatever_the_root_was_given_as(root):
    """`lsp-edit apply` works on strings; the language server reads `Path`s all the same."""
    for given in (root, str(root)):
        workspace = Workspace(given)
        ref = workspace.locate("src/pkg/client.py")
        assert isinstance(ref, FileRef)
        assert workspace.root == root.resolve()
        assert ref.absolute == root.resolve() / "src" / "pkg" / "client.py"
        assert ref == FileRef("src/pkg/client.py", ref.absolute)  # a Path or a string alike
