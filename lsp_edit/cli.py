"""`lsp-edit`: the engine without an editor.

    lsp-edit apply RESPONSE|- --root DIR [--file TARGET] [--mode M] [--dry-run] [--diff] [--json]
    lsp-edit symbols FILE [--json]
    lsp-edit instructions [--mode M]
    lsp-edit serve [--tcp HOST:PORT] [--log-file FILE] [--log-level LEVEL]
    lsp-edit mcp [--root DIR] [--mode M] [--wait] [--wait-timeout SECONDS] [--review-only]

`apply` exits 0 when every block applied (or was already in the file), 1 when
some did not (or the reply held no edit block), 2 for a usage or I/O error, which
is reported in one line without a traceback.
"""

from __future__ import annotations

import functools
import gc
import os
import sys
from collections.abc import Callable, Sequence
from types import SimpleNamespace

from lsp_edit import VERSION

# The engine is imported where it is used, and what only some runs need (argparse,
# json, the diff printer, the symbol index, the server) only by them: agents start
# `lsp-edit apply` once per reply, and `run` imports the engine with garbage
# collection off.
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    import argparse
    from typing import Any, NoReturn

    from lsp_edit.changes import Change, FileOutcome, Plan, Planner
    from lsp_edit.workspace import WriteFailure

EXIT_OK, EXIT_INCOMPLETE, EXIT_USAGE = 0, 1, 2
_PIECE = 1 << 20  # characters of the reply read at a time
_UTF8_BOM = b"\xef\xbb\xbf"


class UsageError(Exception):
    """A bad argument or an unreadable input: one line on stderr, exit 2."""


_APPLY_EXIT_CODES = """exit codes:
  0  every block applied, or was already in the file
  1  some block did not apply (failed, skipped or malformed), or the reply held no
     edit block
  2  a usage or I/O error (bad option, unreadable reply, --root not a folder, a
     write that failed: then no file is changed)"""


def _help_width() -> int:
    """The width argparse gives help text: the terminal's ($COLUMNS first, 80 when
    there is none) less 2, read as `shutil.get_terminal_size` reads it. Given to the
    formatters so argparse does not import shutil for it (and with it bz2 and lzma) at
    every start."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    stdout = sys.__stdout__
    if columns <= 0 and stdout is not None:
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns if columns > 0 else 80) - 2


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from lsp_edit.changes import EDIT_MODES

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise UsageError(f"{message} (see `{self.prog} --help`)")

    width = _help_width()
    plain = functools.partial(argparse.HelpFormatter, width=width)
    parser = _Parser(
        prog="lsp-edit", description="Place the edit blocks an LLM writes.", formatter_class=plain
    )
    parser.add_argument("--version", action="version", version=f"lsp-edit {VERSION}")
    commands = parser.add_subparsers(
        dest="command",
        required=True,
        parser_class=_Parser,
        metavar="COMMAND",
        help="one of the commands below; `lsp-edit COMMAND --help` describes it",
    )

    apply = commands.add_parser(
        "apply",
        help="apply a reply's edit blocks to files on disk",
        description="Place every edit block of an LLM's reply in the files under --root,\n"
        "write the files that changed (all or none) and print the summary for the LLM.",
        epilog=_APPLY_EXIT_CODES,
        formatter_class=functools.partial(argparse.RawDescriptionHelpFormatter, width=width),
    )
    apply.add_argument("response", help="file holding the LLM's reply, or - for standard input")
    apply.add_argument("--root", default=".", help="workspace root; no file outside it is touched")
    apply.add_argument("--file", dest="target", help="default target for blocks that name no file")
    apply.add_argument(
        "--mode",
        default="auto",
        choices=("auto", *EDIT_MODES),
        help="how fenced blocks are read: auto (default: AST paths, or line numbers when "
        "the first fenced edit is a line range), ast_path, line_numbers, complete_file",
    )
    apply.add_argument("--dry-run", action="store_true", help="place every block, write nothing")
    apply.add_argument(
        "--diff",
        action="store_true",
        help="print a unified diff of each file (with --json: in each change's `diff`)",
    )
    apply.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list: each change with its file's fate, then each suggested "
        "shell command",
    )

    symbols = commands.add_parser(
        "symbols",
        help="list a file's AST paths",
        description="List every AST path of a file with its kind and 1-based line range.",
        formatter_class=plain,
    )
    symbols.add_argument("file", help="the source file to read")
    symbols.add_argument("--json", action="store_true", help="print the list as JSON")

    instr = commands.add_parser(
        "instructions",
        help="print the instructions text for a mode",
        description="Print the instructions an LLM prompt carries for an edit mode.",
        formatter_class=plain,
    )
    instr.add_argument(
        "--mode",
        default="ast_path",
        choices=("auto", *EDIT_MODES),
        help="the edit mode (default ast_path; auto starts in AST path mode)",
    )

    serve = commands.add_parser(
        "serve",
        help="run the language server (stdio unless --tcp is given)",
        description="Run the language server, on standard input and output unless --tcp is given.",
        formatter_class=plain,
    )
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on this address instead of stdio")
    serve.add_argument("--log-file", help="write the server's log to this file (default: stderr)")
    serve.add_argument(
        "--log-level",
        default="WARNING",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="how much to log (default WARNING)",
    )
    _add_mcp(commands, plain)
    return parser


def _add_mcp(commands: Any, plain: Any) -> None:
    from lsp_edit.changes import EDIT_MODES

    mcp = commands.add_parser(
        "mcp",
        help="serve the symbol-editing tools to coding agents over MCP (stdio)",
        description="Serve the symbol-editing tools to a coding agent over the Model Context\n"
        "Protocol, on standard input and output. An edit goes to the review of the user's\n"
        "editor when it runs `lsp-edit serve` for the workspace, else to disk (docs/mcp.md).",
        formatter_class=plain,
    )
    mcp.add_argument(
        "--root", default=".", help="workspace root: tool paths are relative to it (default: .)"
    )
    mcp.add_argument(
        "--mode",
        default="auto",
        choices=("auto", *EDIT_MODES),
        help="how fenced blocks of `propose_reply` are read (default auto)",
    )
    mcp.add_argument(
        "--wait",
        action="store_true",
        help="an edit sent to the editor's review returns only once the user accepted or "
        "rejected each change (the tools' `wait` argument decides per call)",
    )
    mcp.add_argument(
        "--wait-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="how long a waiting call waits for the user's decision (default 600)",
    )
    mcp.add_argument(
        "--review-only",
        action="store_true",
        help="refuse an edit when no editor runs lsp-edit for the workspace, instead of "
        "writing it to disk",
    )


# `apply`'s options, by the name each has in the arguments: those that take a value,
# the flags, and what each argument is when not given.
_APPLY_VALUES = {"--root": "root", "--file": "target", "--mode": "mode"}
_APPLY_FLAGS = {"--dry-run": "dry_run", "--diff": "diff", "--json": "json"}
_APPLY_DEFAULTS = {
    "command": "apply",
    "response": None,
    "root": ".",
    "target": None,
    "mode": "auto",
    "dry_run": False,
    "diff": False,
    "json": False,
}


def plain_apply(argv: Sequence[str]) -> SimpleNamespace | None:
    """The arguments of `apply` as agents write it (the reply, and options each spelt
    in full with its value as the next word), read as argparse reads them without
    importing it and building the parser, which cost as much as placing a small
    reply; None for anything else (help, a mistake, an abbreviation, `--root=DIR`),
    which argparse reads."""
    if not argv or argv[0] != "apply":
        return None
    from lsp_edit.changes import EDIT_MODES

    args = dict(_APPLY_DEFAULTS)
    words = iter(argv[1:])
    for word in words:
        if word in _APPLY_FLAGS:
            args[_APPLY_FLAGS[word]] = True
        elif word in _APPLY_VALUES:
            given = next(words, None)
            if given is None or (given.startswith("-") and given != "-"):
                return None
            args[_APPLY_VALUES[word]] = given
        elif (word.startswith("-") and word != "-") or args["response"] is not None:
            return None
        else:
            args["response"] = word
    if args["response"] is None or args["mode"] not in ("auto", *EDIT_MODES):
        return None
    return SimpleNamespace(**args)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        plain = plain_apply(sys.argv[1:] if argv is None else argv)
        if plain is not None:
            return run_apply(plain)
        args = build_parser().parse_args(argv)
        if args.command == "apply":
            return run_apply(args)
        if args.command == "symbols":
            return run_symbols(args)
        if args.command == "serve":
            return run_serve(args)
        if args.command == "mcp":
            return run_mcp(args)
        return run_instructions(args)
    except UsageError as error:
        print(f"lsp-edit: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        print(
            f"lsp-edit: {error.strerror or error}: {error.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return EXIT_USAGE


def run() -> NoReturn:
    """`lsp-edit` as a program (its console script, `python -m lsp_edit`): `main`, then
    the process exits with its code. What the run made is first left out of garbage
    collection: Python's exit collects every object it tracks only to free them all,
    about a sixth of a one-block `lsp-edit apply`. Once its output is out, the process
    ends at once when nothing is left to finish: Python's exit would then only free
    every module and object one by one (3% of a one-block `lsp-edit apply`).

    Garbage collection is off from the start: importing the engine makes thousands of
    objects and no garbage, and the collector would go over them again and again (5%
    of a one-block `lsp-edit apply`); what a run makes is collected at its end, if
    ever, by the process ending."""
    gc.disable()
    code = main()
    gc.freeze()
    if _nothing_left_to_finish():
        os._exit(code)
    sys.exit(code)


def _nothing_left_to_finish() -> bool:
    """Whether ending the process now loses nothing: standard output and error are
    written out, no exit handler is registered and no other thread runs. (When writing
    the output fails, Python's exit reports it as it always does.)"""
    import atexit

    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return False
    threading = sys.modules.get("threading")
    others = threading is not None and threading.active_count() > 1
    # (a Python without CPython's count of exit handlers ends the usual way)
    handlers = getattr(atexit, "_ncallbacks", lambda: 1)()
    return handlers == 0 and not others


def run_apply(args: argparse.Namespace | SimpleNamespace) -> int:
    # What start-up made is never garbage: the collector leaves it alone (and see
    # `_read_and_place`), until a caller of `main` that goes on gets it back.
    gc.freeze()
    try:
        return _apply(args)
    finally:
        gc.unfreeze()


def _apply(args: argparse.Namespace | SimpleNamespace) -> int:
    from lsp_edit.changes import LISTED, Planner, Session, summary
    from lsp_edit.workspace import FileWrite, Workspace, is_folder

    if not is_folder(args.root):
        raise UsageError(f"--root {args.root}: not a folder")
    reply = _read_reply(args.response)
    workspace = Workspace(args.root, files_stay=True)
    planner = Planner(
        workspace,
        Session(args.mode),
        default_target=args.target,
        reply=reply,
        list_failures=None if args.json else LISTED,  # `--json` lists every change
    )
    _read_and_place(reply, planner)
    plan = planner.plan
    failure: WriteFailure | None = None
    if not args.dry_run:
        failure = workspace.write_all(
            [
                FileWrite(outcome.ref, outcome.before, outcome.after)
                for outcome in plan.files.values()
                if outcome.changed
            ]
        )
    not_written = None if failure is None else _not_written(failure)
    if args.json:
        import json

        print(json.dumps(_plan_json(plan, diff=args.diff, failure=failure), indent=2))
    else:
        if args.diff:
            for outcome in plan.files.values():
                sys.stdout.write(_unified_diff(outcome))
        print(summary(plan, dry_run=args.dry_run, not_written=not_written))
        for suggestion in plan.suggestions:
            print(f"Suggested command (not run): {suggestion.command}")
    if failure is not None:
        print(f"lsp-edit: {not_written}", file=sys.stderr)
        return EXIT_USAGE
    complete = (
        bool(plan.changes)
        and not plan.unlisted_failures
        and all(change.succeeded for change in plan.changes)
    )
    return EXIT_OK if complete else EXIT_INCOMPLETE


def _read_and_place(reply: str, planner: Planner) -> None:
    """Reads the reply in pieces, each piece's blocks placed before the next is read:
    a reply of a million blocks never holds them all at once (the items are the same).

    Garbage collection waits meanwhile: reading and placing make few reference
    cycles, while the collector would go over every change made so far again and
    again (a third of the time of a reply of a million blocks). What they made is
    kept to the end, so it is then left out of collection too."""
    from lsp_edit.blocks import ReplyStream
    from lsp_edit.changes import LISTED

    collecting = gc.isenabled()
    gc.disable()
    try:
        stream = ReplyStream(keep_ignored=LISTED)  # the summary lists no more
        for start in range(0, len(reply), _PIECE):
            planner.add(stream.feed(reply[start : start + _PIECE]))
        planner.add(stream.finish())
        planner.plan.count_ignored(stream.ignored_beyond)
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def _not_written(failure: WriteFailure) -> str:
    """Why no file holds the reply, and what each file holds now."""
    return failure.explained


def _read_reply(source: str) -> str:
    """The reply, UTF-8 with its byte order mark left out (as the `utf-8-sig` codec
    reads it, without looking that codec up at every start)."""
    if source == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(source, "rb") as stream:
            data = stream.read()
    try:
        return data.removeprefix(_UTF8_BOM).decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{source}: the reply is not UTF-8 (byte {error.start})") from None


def _unified_diff(outcome: FileOutcome) -> str:
    from lsp_edit.file_diff import unified_diff

    if not outcome.changed:
        return ""
    name = outcome.ref.relative
    before = list(outcome.before.raw_lines) if outcome.before else []
    after = list(outcome.after.raw_lines) if outcome.after else []
    for lines in (before, after):
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += "\n\\ No newline at end of file\n"
    return unified_diff(
        before,
        after,
        fromfile="/dev/null" if outcome.before is None else f"a/{name}",
        tofile="/dev/null" if outcome.after is None else f"b/{name}",
    )


def _plan_json(plan: Plan, *, diff: bool, failure: WriteFailure | None) -> list[dict[str, Any]]:
    """One object per change, each with what became of its file (`file_status`, and
    its unified diff with `--diff`), then one per suggested shell command."""
    from lsp_edit.changes import file_fate

    @functools.cache
    def file_told(name: str) -> tuple[str, str]:
        """What became of a file, and its diff with `--diff`: made once per file, however
        many changes it has."""
        outcome = plan.files[name]
        return file_fate(outcome), _unified_diff(outcome) if diff else ""

    rows = [
        _change_json(change, plan, file_told, diff=diff, failure=failure) for change in plan.changes
    ]
    rows += [
        {
            "id": None,
            "file": None,
            "status": "suggested",
            "description": f"Suggested command `{suggestion.command}` (not run)",
            "command": suggestion.command,
            "message": None,
            "detail": None,
            "code": None,
            "strategy": None,
            "range": None,
            "lines": [],
            "notes": [],
        }
        for suggestion in plan.suggestions
    ]
    return rows


def _change_json(
    change: Change,
    plan: Plan,
    file_told: Callable[[str], tuple[str, str]],
    *,
    diff: bool,
    failure: WriteFailure | None,
) -> dict[str, Any]:
    outcome = plan.files.get(change.file) if change.file is not None else None
    fate, file_diff = (
        file_told(change.file)
        if change.file is not None and outcome is not None
        else ("unchanged", "")
    )
    if failure is not None:
        fate = "unchanged"  # every file was put back (or the failure says otherwise)
    row: dict[str, Any] = {
        "id": change.id,
        "file": change.file,
        "status": change.status.value,
        "description": change.description,
        "message": change.message,
        "detail": change.detail,
        "code": change.code,
        "strategy": change.strategy,
        "range": None
        if change.range is None
        else {"start_line": change.range[0], "end_line": change.range[1]},
        "lines": [{"start_line": first, "end_line": last} for first, last in change.lines],
        "notes": list(change.notes),
        "file_status": fate,
        "moved_to": outcome.moved_to if outcome is not None else None,
    }
    if diff:
        row["diff"] = file_diff
    if failure is not None:
        row["write_error"] = _not_written(failure)
    return row


def run_symbols(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from lsp_edit.resolve.model import Refused
    from lsp_edit.symbols import index_symbols, language_for
    from lsp_edit.workspace import decode

    path = Path(args.file)
    language = language_for(path.name)
    if language is None:
        raise UsageError(f"{args.file}: no supported language for this file name")
    text = decode(path.read_bytes(), args.file)
    if isinstance(text, Refused):
        raise UsageError(text.message)
    symbols = index_symbols(text, language)
    if args.json:
        rows = [
            {
                "path": s.dotted,
                "kind": s.kind,
                "start_line": s.start_line + 1,
                "end_line": s.end_line,
            }
            for s in symbols
        ]
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    from lsp_edit.symbols.model import symbol_table

    for row in symbol_table(symbols):
        print(row)
    return EXIT_OK


def run_serve(args: argparse.Namespace) -> int:
    tcp: tuple[str, int] | None = None
    if args.tcp is not None:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            raise UsageError(f"--tcp {args.tcp}: expected HOST:PORT, such as 127.0.0.1:2087")
        tcp = (host, int(port))
    # The server (and pygls) load only when serving: `apply` stays quick to start.
    from lsp_edit.server import serve

    # `run` turned garbage collection off for a command that ends at once; a server
    # runs for hours, and collects its garbage.
    gc.enable()
    serve(tcp=tcp, log_file=args.log_file, log_level=args.log_level)
    return EXIT_OK


def run_mcp(args: argparse.Namespace) -> int:
    from lsp_edit.workspace import is_folder

    if not is_folder(args.root):
        raise UsageError(f"--root {args.root}: not a folder")
    if not args.wait_timeout >= 0:
        raise UsageError(f"--wait-timeout {args.wait_timeout:g}: must be 0 or more seconds")
    # The MCP SDK loads only here: `apply` and `serve` never import it.
    from lsp_edit.mcp.stdio import serve
    from lsp_edit.mcp.toolbox import Options

    gc.enable()  # a server runs for hours (see `run_serve`)
    serve(
        Options(
            root=args.root,
            mode=args.mode,
            wait=args.wait,
            wait_timeout=args.wait_timeout,
            review_only=args.review_only,
        )
    )
    return EXIT_OK


def run_instructions(args: argparse.Namespace) -> int:
    from lsp_edit.instructions import instructions

    try:
        print(instructions(args.mode))
    except ValueError as error:
        raise UsageError(str(error)) from None
    return EXIT_OK
