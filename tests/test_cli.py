"""`lsp-edit apply | symbols | instructions` as a script or an agent sees it:
files written or not, output, exit codes."""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lsp_edit.cli import build_parser, main, plain_apply

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SEARCH_ONE = "notes.txt\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n"
SEARCH_MISSING = "notes.txt\n<<<<<<< SEARCH\nzzz\n=======\nZ\n>>>>>>> REPLACE\n"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_bytes(b"one\r\ntwo\r\nthree")
    return root


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_reply(tmp_path, text):
    path = tmp_path / "reply.md"
    path.write_text(text)
    return str(path)


def test_apply_writes_the_file_and_exits_zero(project, tmp_path, capsys):
    code, out, _ = run(capsys, "apply", write_reply(tmp_path, SEARCH_ONE), "--root", str(project))
    assert code == 0
    assert (project / "notes.txt").read_bytes() == b"1\r\ntwo\r\nthree"
    assert (
        out
        == "File 'notes.txt' has been updated. It now has 3 lines.\n\nAll changes were applied.\n"
    )


def test_apply_exits_one_when_a_block_did_not_apply(project, tmp_path, capsys):
    code, out, _ = run(
        capsys,
        "apply",
        write_reply(tmp_path, SEARCH_ONE + "\n" + SEARCH_MISSING),
        "--root",
        str(project),
    )
    assert code == 1
    assert "Some changes were applied." in out
    assert "was not applied" in out


def test_apply_exits_one_for_a_reply_without_blocks(project, tmp_path, capsys):
    code, out, _ = run(
        capsys, "apply", write_reply(tmp_path, "No edits here."), "--root", str(project)
    )
    assert code == 1
    assert out.strip() == "No edit blocks were found in the reply."


def test_dry_run_writes_nothing_but_reports_the_same(project, tmp_path, capsys):
    code, out, _ = run(
        capsys, "apply", write_reply(tmp_path, SEARCH_ONE), "--root", str(project), "--dry-run"
    )
    assert code == 0
    assert (project / "notes.txt").read_bytes() == b"one\r\ntwo\r\nthree"
    assert out == (
        "File 'notes.txt' would be updated. It would have 3 lines.\n\n"
        "All changes would be applied.\n\n(dry run: no file was written)\n"
    )


def test_diff_prints_a_unified_diff_of_the_change(project, tmp_path, capsys):
    _, out, _ = run(
        capsys,
        "apply",
        write_reply(tmp_path, SEARCH_ONE),
        "--root",
        str(project),
        "--diff",
        "--dry-run",
    )
    assert "--- a/notes.txt\n+++ b/notes.txt\n" in out
    assert "-one\r\n+1\r\n" in out


def test_json_lists_each_change_with_status_strategy_and_range(project, tmp_path, capsys):
    reply = write_reply(tmp_path, SEARCH_ONE + "\n" + SEARCH_MISSING)
    code, out, _ = run(capsys, "apply", reply, "--root", str(project), "--json")
    assert code == 1
    first, second = json.loads(out)
    assert first["status"] == "applied" and first["file"] == "notes.txt"
    assert first["strategy"] == "exact"
    assert first["range"] == {"start_line": 1, "end_line": 1}
    assert second["status"] == "failed" and second["code"] == "not_found"
    assert set(first) >= {"id", "file", "status", "description", "message", "strategy", "range"}


def test_reply_from_standard_input(project, monkeypatch, capsys):
    monkeypatch.setattr(
        sys, "stdin", type("S", (), {"buffer": __import__("io").BytesIO(SEARCH_ONE.encode())})()
    )
    code, _, _ = run(capsys, "apply", "-", "--root", str(project))
    assert code == 0
    assert (project / "notes.txt").read_bytes().startswith(b"1\r\n")


def test_invalid_mode_is_a_usage_error_with_one_line(project, tmp_path, capsys):
    code, _, err = run(
        capsys, "apply", write_reply(tmp_path, SEARCH_ONE), "--root", str(project), "--mode", "x"
    )
    assert code == 2
    assert err == (
        "lsp-edit: argument --mode: invalid choice: 'x' (choose from 'auto', 'ast_path', "
        "'line_numbers', 'complete_file') (see `lsp-edit apply --help`)\n"
    )


def test_missing_reply_file_is_an_io_error_without_traceback(project, capsys):
    code, _, err = run(capsys, "apply", "no/such/reply.md", "--root", str(project))
    assert code == 2
    assert err.startswith("lsp-edit: ") and "Traceback" not in err and len(err.splitlines()) == 1


def test_root_that_is_not_a_folder_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(
        capsys, "apply", write_reply(tmp_path, SEARCH_ONE), "--root", str(tmp_path / "nope")
    )
    assert code == 2 and "not a folder" in err


def test_unknown_option_is_a_usage_error(capsys):
    code, _, err = run(capsys, "apply")
    assert code == 2 and err.startswith("lsp-edit: ")


def test_block_reaching_outside_the_workspace_writes_nothing_there(project, tmp_path, capsys):
    reply = write_reply(tmp_path, "../escape.txt\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n")
    code, out, _ = run(capsys, "apply", reply, "--root", str(project))
    assert code == 1
    assert not (tmp_path / "escape.txt").exists()
    assert "outside the workspace" in out


def test_summary_lists_the_first_hundred_failures_and_counts_the_rest(project, tmp_path, capsys):
    reply = "".join(
        f"notes.txt\n<<<<<<< SEARCH\nmissing {n}\n=======\nx\n>>>>>>> REPLACE\n\n"
        for n in range(150)
    )
    code, out, _ = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(project))
    assert code == 1
    bullets = [line for line in out.splitlines() if line.startswith("  • ")]
    assert len(bullets) == 101
    assert bullets[-1] == (
        "  • … and 50 more, not listed here (`lsp-edit apply --json` lists every change)."
    )
    code, out, _ = run(
        capsys, "apply", write_reply(tmp_path, reply), "--root", str(project), "--json"
    )
    assert len(json.loads(out)) == 150


def test_a_reply_without_edits_lists_the_first_hundred_blocks_not_read(project, tmp_path, capsys):
    reply = "```\nexample\n```\n" * 120
    code, out, _ = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(project))
    assert code == 1
    assert out.startswith("No edit blocks were found in the reply.\n")
    assert out.count("was not read as an edit") == 100
    assert "  • … and 20 more, not listed here" in out


def test_a_reply_of_many_fences_naming_no_file_says_how_many_were_not_read(
    project, tmp_path, capsys
):
    reply = "".join(f"```\n{n:06d}\n```\n" for n in range(3000))
    code, out, _ = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(project))
    assert code == 1
    assert out.count("was not read as an edit") == 100
    assert "  • The ``` block at reply lines 298-300 was not read as an edit" in out
    assert "  • … and 2,900 more, not listed here.\n" in out


def test_each_unclosed_fence_with_an_ast_path_is_reported_and_json_lists_them_all(
    project, tmp_path, capsys
):
    reply = "```python:Service-run\nvalue = 1\n" * 150
    code, out, _ = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(project))
    assert code == 1
    bullets = [line for line in out.splitlines() if line.startswith("  • ")]
    assert len(bullets) == 101 and bullets[-1].startswith("  • … and 50 more, not listed here")
    assert bullets[1] == (
        "  • Block at reply lines 3-4 was not applied: fenced block ````python:Service-run` "
        "opened at reply line 3 was never closed (a new fence ````python:Service-run` opened at "
        "line 5); it was skipped. Close it with a line `````."
    )
    code, out, _ = run(
        capsys, "apply", write_reply(tmp_path, reply), "--root", str(project), "--json"
    )
    changes = json.loads(out)
    assert len(changes) == 150 and {change["code"] for change in changes} == {"unclosed_block"}
    assert "the reply ended at line 300" in changes[-1]["message"]


def test_blocks_not_read_after_a_hundred_changes_already_in_the_file_still_fail_the_reply(
    project, tmp_path, capsys
):
    already = "notes.txt\n<<<<<<< SEARCH\nuno\n=======\ntwo\n>>>>>>> REPLACE\n\n" * 100
    reply = already + "```python:Service-run\nvalue = 1\n" * 3
    code, out, _ = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(project))
    assert code == 1
    assert out.startswith("No changes were applied.\n")
    assert out.count("was already in the file") == 100
    assert out.rstrip().endswith(
        "  • … and 3 more, not listed here (`lsp-edit apply --json` lists every change)."
    )


def test_a_path_line_longer_than_any_path_is_prose(project, tmp_path, capsys):
    reply = "x" * 5000 + "\n" + SEARCH_ONE.split("\n", 1)[1]
    code, out, _ = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(project))
    assert code == 1
    assert "The block names no file" in out and len(out) < 1000


def test_instructions_print_the_ast_path_text_by_default(capsys):
    code, out, _ = run(capsys, "instructions")
    assert code == 0 and "type:Namespace-Class-Method" in out


def test_instructions_for_line_numbers(capsys):
    code, out, _ = run(capsys, "instructions", "--mode", "line_numbers")
    assert code == 0 and "type:startline:endline" in out


def test_symbols_lists_paths_kinds_and_lines(tmp_path, capsys):
    source = tmp_path / "client.py"
    source.write_text("class Client:\n    def chat(self):\n        pass\n")
    code, out, _ = run(capsys, "symbols", str(source))
    assert code == 0
    rows = [line.split() for line in out.splitlines()]
    assert ["Client-chat", "method", "2-3"] in rows
    assert rows[0][0] == "Client" and rows[0][2] == "1-3"


def test_symbols_of_an_unsupported_file_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("x\n")
    code, _, err = run(capsys, "symbols", str(tmp_path / "notes.txt"))
    assert code == 2 and "no supported language" in err


def test_bundled_example_applies_every_block(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES / "project", project)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "lsp_edit",
            "apply",
            str(EXAMPLES / "reply.md"),
            "--root",
            str(project),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All changes were applied." in result.stdout
    cart = (project / "shop" / "cart.py").read_text()
    assert "return sum(item.price * item.quantity for item in self.items)" in cart
    assert "    def remove(self, name: str) -> None:" in cart
    assert '"SPRING25": 0.25' in (project / "shop" / "pricing.py").read_text()
    assert (project / "shop" / "receipt.py").exists()


def test_apply_moves_a_file_on_disk(project, tmp_path, capsys):
    reply = write_reply(
        tmp_path,
        "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: kept/notes.txt\n@@\n"
        "-two\n+2\n*** End Patch\n",
    )
    code, _, _ = run(capsys, "apply", reply, "--root", str(project))
    assert code == 0
    assert not (project / "notes.txt").exists()
    assert (project / "kept" / "notes.txt").read_bytes() == b"one\r\n2\r\nthree"


def test_json_with_diff_keeps_standard_output_valid_json(project, tmp_path, capsys):
    reply = write_reply(tmp_path, SEARCH_ONE)
    _, out, _ = run(capsys, "apply", reply, "--root", str(project), "--json", "--diff")
    (change,) = json.loads(out)
    assert change["diff"].startswith("--- a/notes.txt\n+++ b/notes.txt\n")
    assert "-one\r\n+1\r\n" in change["diff"]


def test_json_with_diff_gives_each_change_its_files_whole_diff(project, tmp_path, capsys):
    second = "notes.txt\n<<<<<<< SEARCH\nthree\n=======\n3\n>>>>>>> REPLACE\n"
    reply = write_reply(tmp_path, SEARCH_ONE + "\n" + second + "\n" + SEARCH_MISSING)
    _, out, _ = run(capsys, "apply", reply, "--root", str(project), "--json", "--diff")
    first, last, missing = json.loads(out)
    assert first["diff"] == last["diff"] == missing["diff"]
    assert "-one\r\n+1\r\n" in first["diff"] and "+3\n" in first["diff"]
    assert missing["status"] == "failed" and first["file_status"] == missing["file_status"]


def test_json_says_what_became_of_each_file_and_lists_suggested_commands(project, tmp_path, capsys):
    (project / "old.txt").write_text("bye\n")
    reply = write_reply(
        tmp_path,
        "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Delete File: old.txt\n"
        "*** Update File: notes.txt\n*** Move to: kept/notes.txt\n@@\n-two\n+2\n*** End Patch\n\n"
        + SEARCH_ONE.replace("notes.txt", "other.txt")
        + "\n```bash\ngit add new.txt\n```\n",
    )
    (project / "other.txt").write_text("one\n")
    code, out, _ = run(capsys, "apply", reply, "--root", str(project), "--json")
    assert code == 0
    rows = json.loads(out)
    fates = {row["file"]: (row["file_status"], row["moved_to"]) for row in rows if row["file"]}
    assert fates == {
        "new.txt": ("created", None),
        "old.txt": ("deleted", None),
        "notes.txt": ("moved", "kept/notes.txt"),
        "other.txt": ("updated", None),
    }
    assert rows[-1]["status"] == "suggested" and rows[-1]["command"] == "git add new.txt"


def test_a_write_failing_part_way_changes_no_file_and_says_what_each_holds(
    project, tmp_path, capsys, monkeypatch
):
    (project / "other.txt").write_text("one\n")
    reply = write_reply(tmp_path, SEARCH_ONE + "\n" + SEARCH_ONE.replace("notes.txt", "other.txt"))
    real_replace = os.replace
    calls = []

    def second_rename_fails(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise PermissionError(13, "Permission denied", src)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", second_rename_fails)
    code, out, err = run(capsys, "apply", reply, "--root", str(project))
    assert code == 2
    assert (project / "notes.txt").read_bytes() == b"one\r\ntwo\r\nthree"
    assert (project / "other.txt").read_text() == "one\n"
    assert sorted(os.listdir(project)) == ["notes.txt", "other.txt"]
    report = (
        "Writing the files failed at `other.txt` (Permission denied), so none was changed: "
        "`notes.txt` restored; `other.txt` unchanged."
    )
    assert err == f"lsp-edit: {report}\n"
    assert out.startswith("File 'notes.txt' would be updated.")
    assert out.endswith(f"All changes would be applied.\n\n{report}\n")


def test_a_usage_error_names_the_choices_and_points_to_help(capsys):
    code, _, err = run(capsys, "instructions", "--mode", "fast")
    assert code == 2
    assert "(choose from 'auto', 'ast_path', 'line_numbers', 'complete_file')" in err
    assert err.endswith("(see `lsp-edit instructions --help`)\n")


def test_every_help_argument_has_a_description():
    def arguments(parser):
        for action in parser._actions:
            yield parser.prog, action
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from arguments(sub)

    for prog, action in arguments(build_parser()):
        assert action.help and action.help.strip(), (prog, action.dest)


_APPLY_WORDS = [
    "apply", "reply.md", "-", "", "--root", "src", "--file", "a.py", "--mode", "ast_path",
    "fast", "--dry-run", "--diff", "--json", "--dry", "--root=src", "-x", "--", "-5",
]  # fmt: skip


@given(st.lists(st.sampled_from(_APPLY_WORDS), max_size=7))
def test_apply_arguments_read_without_argparse_are_what_argparse_reads(words):
    """`apply` as agents write it is read without building the parser: to the same
    arguments, and anything else is left to argparse."""
    for argv in (words, ["apply", *words]):
        plain = plain_apply(argv)
        if plain is not None:
            assert vars(plain) == vars(build_parser().parse_args(argv))


def test_apply_as_agents_write_it_is_read_without_argparse():
    assert plain_apply(["apply", "-", "--root", "src", "--dry-run", "--json"]) is not None
    assert plain_apply(["apply", "reply.md", "--file", "a.py", "--mode", "ast_path"]) is not None
    for other in (["apply", "--help"], ["apply"], ["apply", "-", "--mode", "fast"], ["symbols"]):
        assert plain_apply(other) is None


def test_a_reply_with_a_byte_order_mark_applies_and_one_not_utf8_names_the_byte(
    project, tmp_path, capsys
):
    reply = tmp_path / "reply.md"
    reply.write_bytes(b"\xef\xbb\xbf" + SEARCH_ONE.encode())
    code, _, _ = run(capsys, "apply", str(reply), "--root", str(project))
    assert code == 0
    assert (project / "notes.txt").read_bytes() == b"1\r\ntwo\r\nthree"
    reply.write_bytes(b"\xef\xbb\xbfnotes.txt\n\xff")
    code, _, err = run(capsys, "apply", str(reply), "--root", str(project))
    assert code == 2
    assert "the reply is not UTF-8 (byte 10)" in err


def test_apply_help_states_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["apply", "--help"])
    out = capsys.readouterr().out
    assert "exit codes:\n  0  every block applied" in out
    assert "\n  1  some block did not apply" in out and "\n  2  a usage or I/O error" in out


# Imported by `lsp-edit apply` only when a reply needs them: the symbol index, the
# language server, and what only some formats or options use (the parsers of diffs,
# V4A patches, JSON operations and `««« EDIT` blocks among them). `dataclasses` (and
# with it `inspect`) never: the engine's values are `lsp_edit.values`; `typing` never
# (for the type checker only); argparse only for help, a mistake or another command;
# `pathlib` (and with it `urllib.parse` and `ipaddress`) only for a path naming no file.
NOT_FOR_A_PLAIN_REPLY = (
    "argparse",
    "pathlib",
    "urllib",
    "ipaddress",
    "contextlib",
    "dataclasses",
    "difflib",
    "inspect",
    "typing",
    "tree_sitter",
    "lsp_edit.symbols",
    "pygls",
    "lsprotocol",
    "lsp_edit.server",
    "json",
    "tempfile",
    "shutil",
    "lsp_edit.blocks.unified_diff",
    "lsp_edit.blocks.v4a",
    "lsp_edit.blocks.operations",
    "lsp_edit.blocks.common_prefix",
    "weakref",
    "encodings.utf_8_sig",
    "lsp_edit.resolve.complete_file",
    "lsp_edit.resolve.line_range",
)


def test_applying_search_replace_blocks_loads_no_symbol_index_server_or_json(tmp_path):
    """Agents start `lsp-edit apply` once per reply: a reply of SEARCH/REPLACE blocks,
    fenced or not, is placed and written without importing the rest."""
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\n")
    reply = write_reply(
        tmp_path,
        "notes.txt\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n\n"
        "Then:\n\nnotes.txt\n```\n<<<<<<< SEARCH\nthree\n=======\n3\n>>>>>>> REPLACE\n```\n",
    )
    script = (
        "import sys\n"
        "from lsp_edit.cli import main\n"
        f"code = main(['apply', {reply!r}, '--root', {str(tmp_path)!r}])\n"
        "print(code, *sorted(sys.modules), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    code, *modules = result.stderr.split()
    assert code == "0", result.stdout + result.stderr
    assert (tmp_path / "notes.txt").read_text() == "1\ntwo\n3\n"
    loaded = [
        name
        for name in modules
        if any(name == heavy or name.startswith(heavy + ".") for heavy in NOT_FOR_A_PLAIN_REPLY)
    ]
    assert loaded == []


# Patterns a reply of one plain SEARCH/REPLACE block never reads with: compiled only
# when a reply needs them (decorated path lines, fences, blocks read line by line).
NOT_COMPILED_FOR_ONE_BLOCK = (
    "lsp_edit.blocks.markers._SEARCH_OPENER",
    "lsp_edit.blocks.paths._HEADING",
    "lsp_edit.blocks.paths._LABEL",
    "lsp_edit.blocks.paths._EXTENSION",
    "lsp_edit.blocks.paths._SPACE",
    "lsp_edit.blocks.paths._NOT_IN_PATHS",
    "lsp_edit.blocks.paths._COMMENT",
    "lsp_edit.blocks.lookback._FENCE_INFO",
    "lsp_edit.blocks.search_replace._DIVIDE",
    "lsp_edit.blocks.search_replace._CLOSE",
    "lsp_edit.blocks.search_replace._NOT_OLD",
    "lsp_edit.blocks.search_replace._NOT_NEW",
    "lsp_edit.blocks.stream._NOT_PROSE",
)


def test_applying_one_search_replace_block_compiles_only_the_patterns_it_reads_with(tmp_path):
    """Agents start `lsp-edit apply` once per reply: compiling a pattern the reply
    never uses is start-up time spent for nothing."""
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    reply = write_reply(tmp_path, SEARCH_ONE)
    script = (
        "import re, sys\n"
        "compiled, compile = set(), re.compile\n"
        "re.compile = lambda pattern, flags=0: compiled.add(pattern) or compile(pattern, flags)\n"
        "from lsp_edit.cli import main\n"
        f"code = main(['apply', {reply!r}, '--root', {str(tmp_path)!r}])\n"
        f"for name in {NOT_COMPILED_FOR_ONE_BLOCK!r}:\n"
        "    module, attribute = name.rsplit('.', 1)\n"
        "    pattern = getattr(sys.modules[module], attribute)\n"
        "    if getattr(pattern, 'other', pattern).pattern in compiled:\n"
        "        print(name, file=sys.stderr)\n"
        "print(code, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    *compiled, code = result.stderr.split()
    assert code == "0", result.stdout + result.stderr
    assert (tmp_path / "notes.txt").read_text() == "1\ntwo\n"
    assert compiled == []


def test_the_program_exits_with_the_code_of_apply_and_prints_its_summary(tmp_path):
    """`python -m lsp_edit` (as the `lsp-edit` script) ends the process with apply's
    exit code once its output is written (buffered, as a pipe's is)."""
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    (tmp_path / "notes.txt").write_text("one\n")
    placed = tmp_path / "placed.md"
    placed.write_text("notes.txt\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n")
    empty = tmp_path / "empty.md"
    empty.write_text("Nothing to change.\n")
    finished = [
        subprocess.run(
            [sys.executable, "-m", "lsp_edit", "apply", str(reply), "--root", str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
            env=buffered,
        )
        for reply in (placed, empty)
    ]
    assert [process.returncode for process in finished] == [0, 1]
    assert "All changes were applied." in finished[0].stdout
    assert (tmp_path / "notes.txt").read_text() == "1\n"
    assert finished[1].stdout.strip() != ""


def test_the_server_collects_its_garbage_though_the_program_starts_with_collection_off(
    monkeypatch,
):
    # `run` turns garbage collection off for commands that end at once; `serve` runs
    # for hours and must not keep every cycle it ever made.
    import gc

    import lsp_edit.server

    collecting: list[bool] = []
    monkeypatch.setattr(lsp_edit.server, "serve", lambda **_: collecting.append(gc.isenabled()))
    gc.disable()
    try:
        assert main(["serve"]) == 0
    finally:
        gc.enable()
    assert collecting == [True]


def test_apply_finds_a_file_by_its_tail_when_a_gitignore_holds_a_pattern_git_cannot_read(
    tmp_path, capsys
):
    root = tmp_path / "project"
    (root / "src/pkg").mkdir(parents=True)
    (root / ".gitignore").write_text("!\n*.log\n")
    (root / "src/pkg/util.py").write_text("x = 1\n")
    reply = "pkg/util.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    code, out, err = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(root))
    assert (code, err) == (0, "")
    assert (root / "src/pkg/util.py").read_text() == "x = 2\n"
    assert "resolved to `src/pkg/util.py`" in out


def test_apply_a_v4a_patch_at_the_end_of_a_file_without_a_final_newline_adds_none(
    project, tmp_path, capsys
):
    patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n two\n-three\n+3\n*** End Patch\n"
    code, _, _ = run(capsys, "apply", write_reply(tmp_path, patch), "--root", str(project))
    assert code == 0
    assert (project / "notes.txt").read_bytes() == b"one\r\ntwo\r\n3"


def test_apply_json_gives_the_lines_an_ambiguous_block_matches(tmp_path, capsys):
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("x = 1\ny = 2\nx = 1\n")
    reply = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 3\n>>>>>>> REPLACE\n"
    code, out, _ = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(root), "--json")
    assert code == 1
    (change,) = json.loads(out)
    assert change["code"] == "ambiguous"
    assert change["lines"] == [
        {"start_line": 1, "end_line": 1},
        {"start_line": 3, "end_line": 3},
    ]


def test_apply_asks_did_you_mean_for_a_path_one_edit_away_from_a_file(project, tmp_path, capsys):
    reply = SEARCH_ONE.replace("notes.txt", "notes.tx")
    code, out, _ = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(project))
    assert code == 1
    assert "File not found: notes.tx. Did you mean `notes.txt`?" in out


def test_a_whole_file_in_a_longer_fence_keeps_a_definition_named_only_inside_it(tmp_path, capsys):
    # the ``` lines of the docstring open and close nothing in the ```` fence: the
    # reply never mentions `drop`, so leaving it out does not delete it
    root = tmp_path / "project"
    root.mkdir()
    source = "def keep():\n    return 1\n\n\ndef drop():\n    return 2\n"
    (root / "app.py").write_text(source)
    reply = (
        'app.py\n````python\ndef keep():\n    """Shows:\n```\ndrop\n```\n"""\n    return 3\n````\n'
    )
    code, _, _ = run(capsys, "apply", write_reply(tmp_path, reply), "--root", str(root))
    assert code == 0
    assert (root / "app.py").read_text() == (
        'def keep():\n    """Shows:\n```\ndrop\n```\n"""\n    return 3\n\n\n'
        "def drop():\n    return 2\n"
    )
