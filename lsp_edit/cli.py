"""`lsp-edit`: the engine without an editor.

    lsp-edit apply RESPONSE|- --root DIR [--file TARGET] [--mode M] [--dry-run] [--diff] [--json]
    lsp-edit symbols FILE [--json]
    lsp-edit instructions [--mode M]
    lsp-edit serve [--tcp HOST:PORT] [--log-file FILE] [--log-level LEVEL]

`apply` exits 0 when every block applied (or was already in the file), 1 when
some did not (or the reply held no edit block), 2 for a usage or I/O error, which
is reported in one line without a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from lsp_edit import VERSION
from lsp_edit.blocks import parse_reply
from lsp_edit.changes import EDIT_MODES, Change, FileOutcome, Planner, Session, summary
from lsp_edit.instructions import instructions
from lsp_edit.resolve.model import Refused
from lsp_edit.symbols import index_symbols, language_for
from lsp_edit.workspace import Workspace, decode

EXIT_OK, EXIT_INCOMPLETE, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad argument or an unreadable input: one line on stderr, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lsp-edit", description="Place the edit blocks an LLM writes.")
    parser.add_argument("--version", action="version", version=f"lsp-edit {VERSION}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    apply = commands.add_parser("apply", help="apply a reply's edit blocks to files on disk")
    apply.add_argument("response", help="file holding the LLM's reply, or - for standard input")
    apply.add_argument("--root", default=".", help="workspace root; no file outside it is touched")
    apply.add_argument("--file", dest="target", help="default target for blocks that name no file")
    apply.add_argument("--mode", default="auto", help="auto (default), " + ", ".join(EDIT_MODES))
    apply.add_argument("--dry-run", action="store_true", help="place every block, write nothing")
    apply.add_argument("--diff", action="store_true", help="print a unified diff of each file")
    apply.add_argument("--json", action="store_true", help="print the changes as JSON")

    symbols = commands.add_parser("symbols", help="list a file's AST paths")
    symbols.add_argument("file")
    symbols.add_argument("--json", action="store_true")

    instr = commands.add_parser("instructions", help="print the instructions text for a mode")
    instr.add_argument("--mode", default="ast_path", help=", ".join(EDIT_MODES))

    serve = commands.add_parser(
        "serve", help="run the language server (stdio unless --tcp is given)"
    )
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on this address instead of stdio")
    serve.add_argument("--log-file", help="write the server's log to this file (default: stderr)")
    serve.add_argument(
        "--log-level",
        default="WARNING",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="how much to log (default WARNING)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "apply":
            return run_apply(args)
        if args.command == "symbols":
            return run_symbols(args)
        if args.command == "serve":
            return run_serve(args)
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


def run_apply(args: argparse.Namespace) -> int:
    if args.mode != "auto" and args.mode not in EDIT_MODES:
        raise UsageError("edit_mode must be one of: ast_path, line_numbers, complete_file")
    root = Path(args.root)
    if not root.is_dir():
        raise UsageError(f"--root {args.root}: not a folder")
    reply = _read_reply(args.response)
    workspace = Workspace(root)
    planner = Planner(workspace, Session(args.mode), default_target=args.target)
    planner.add(parse_reply(reply))
    plan = planner.plan
    if not args.dry_run:
        changed = [outcome for outcome in plan.files.values() if outcome.changed]
        # Writes before deletions: a move whose write fails must not lose its source.
        for outcome in changed:
            if outcome.after is not None:
                workspace.write(outcome.ref, outcome.after)
        for outcome in changed:
            if outcome.after is None:
                workspace.delete(outcome.ref)
    if args.diff:
        for outcome in plan.files.values():
            sys.stdout.write(_unified_diff(outcome))
    if args.json:
        print(json.dumps([_change_json(change) for change in plan.changes], indent=2))
    else:
        print(summary(plan, dry_run=args.dry_run))
        for suggestion in plan.suggestions:
            print(f"Suggested command (not run): {suggestion.command}")
    complete = bool(plan.changes) and all(change.succeeded for change in plan.changes)
    return EXIT_OK if complete else EXIT_INCOMPLETE


def _read_reply(source: str) -> str:
    data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UsageError(f"{source}: the reply is not UTF-8 (byte {error.start})") from None


def _unified_diff(outcome: FileOutcome) -> str:
    if not outcome.changed:
        return ""
    name = outcome.ref.relative
    before = list(outcome.before.raw_lines) if outcome.before else []
    after = list(outcome.after.raw_lines) if outcome.after else []
    for lines in (before, after):
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += "\n\\ No newline at end of file\n"
    return "".join(
        difflib.unified_diff(
            before,
            after,
            fromfile="/dev/null" if outcome.before is None else f"a/{name}",
            tofile="/dev/null" if outcome.after is None else f"b/{name}",
        )
    )


def _change_json(change: Change) -> dict[str, Any]:
    return {
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
        "notes": list(change.notes),
    }


def run_symbols(args: argparse.Namespace) -> int:
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
    width = max((len(s.dotted) for s in symbols), default=0)
    kinds = max((len(s.kind) for s in symbols), default=0)
    for s in symbols:
        print(f"{s.dotted:<{width}}  {s.kind:<{kinds}}  {s.start_line + 1}-{s.end_line}")
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

    serve(tcp=tcp, log_file=args.log_file, log_level=args.log_level)
    return EXIT_OK


def run_instructions(args: argparse.Namespace) -> int:
    try:
        print(instructions(args.mode))
    except ValueError as error:
        raise UsageError(str(error)) from None
    return EXIT_OK
