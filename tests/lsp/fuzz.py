"""A stateful fuzz of `lsp-edit serve`: hypothesis drives the real server over stdio
as an editor would (open, type, close, propose replies of every format, accept by
command or by code action, reject, restore, answer `workspace/applyEdit` yes or no,
send malformed messages) and checks after every step what must always hold.

Over stdio rather than in-process: the transport is part of what must hold (every
request answered, the process alive), and it drives the exact server editors run.
One server process per example, so nothing of one example leaks into the next.

The editor side is modelled here with code of its own: documents with versions,
edits applied as VS Code applies them (refused when their version is not the
document's), and, for each pending change, where it was placed and what it
writes, moved along by every edit that is clearly above or below it. That gives
the checks an answer key the server did not compute:

- every request is answered once, in time, and the process lives;
- every range the server sends is inside its document and on code-unit boundaries
  of the negotiated encoding (a range that ends at column 0 of the line after a last
  line without a newline is its own kind, `range-past-end`);
- every edit of an open document is versioned with its current version (when the
  client supports versions); none creates a file that exists;
- an accepted change writes what the server showed (its hunks, as listed just
  before), and, when the user only typed clearly above or below it, what it wrote
  when it was proposed, moved by that typing; nothing is written twice (a code
  action's edit and its command, in either order);
- a change whose accepting edit the editor applied is recorded applied (Accept All:
  each change that overlaps no other); no diagnostic is left for a change that is
  decided or gone; no reply proposed twice makes a change pending twice; a failed
  block rejected is not restored as pending.

Each failure names its kind (`Finding.kind`); bench/fuzz_server.py runs this
longer and prints each distinct failure as the message sequence that shows it.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from pygls.protocol import default_converter
from pytest_lsp import client_capabilities

from tests.lsp.wire import SERVE, Message, NoAnswer, Wire, frame

CLIENTS = ("visual-studio-code", "neovim", "emacs")
FILES = ("a.py", "b.py", "pkg/c.py")
REPLY = "answer.llm.md"
TIMEOUT = 20.0  # seconds for any answer: far above what any request takes


class Finding(AssertionError):
    """Something that must hold did not. `kind` groups findings of one cause."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"[{kind}] {message}")
        self.kind = kind


# --- text as the server and the editor count it ------------------------------------

_BREAK = re.compile(r"\r\n|\r|\n")
_RAW_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lsp_lines(text: str) -> list[str]:
    """The lines of `text` as LSP numbers them (without their endings)."""
    return _BREAK.split(text)


def raw_lines(text: str) -> list[str]:
    """The lines of `text` with their endings, as the server counts them (a text
    ending with a newline has no empty line after it)."""
    return _RAW_LINE.findall(text)


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def index_of(text: str, line: int, character: int, encoding: str) -> int | None:
    """The string index of an LSP position, None when it is not in `text` or falls
    inside a character."""
    lines = lsp_lines(text)
    if not 0 <= line < len(lines) or character < 0:
        return None
    start = sum(len(m.group()) for m in list(_RAW_LINE.finditer(text))[:line])
    counted = 0
    for offset, char in enumerate(lines[line]):
        if counted == character:
            return start + offset
        counted += units(char, encoding)
        if counted > character:
            return None
    return start + len(lines[line]) if counted == character else None


def position_at(text: str, index: int, encoding: str) -> dict[str, int]:
    before = text[:index]
    lines = lsp_lines(before)
    return {"line": len(lines) - 1, "character": units(lines[-1], encoding)}


def where_range_is(text: str, value: Any, encoding: str) -> str | None:
    """What is wrong with `value` as a range in `text`: None, "past-end" (it ends at
    column 0 of the line after the last line) or a description."""
    try:
        start, end = value["start"], value["end"]
        points = [(start["line"], start["character"]), (end["line"], end["character"])]
    except (KeyError, TypeError):
        return f"not a range: {value!r}"
    count = len(lsp_lines(text))
    indexes = []
    for line, character in points:
        found = index_of(text, line, character, encoding)
        if found is None:
            if (line, character) == (count, 0) and not text.endswith(("\n", "\r")):
                return "past-end"
            return f"{line}:{character} is not in the document ({count} lines)"
        indexes.append(found)
    if indexes[0] > indexes[1]:
        return "it ends before it starts"
    return None


# --- what the editor holds -------------------------------------------------------------


@dataclass
class Document:
    uri: str
    path: Path
    text: str
    eol: str
    version: int = 0
    open: bool = False


@dataclass
class Placed:
    """Where a pending change writes what, as the editor side follows it: hunks of
    (first line, end line, new text) in the document as it is, or `exact` False once
    an edit came too close to tell."""

    uri: str
    hunks: list[tuple[int, int, str]]
    exact: bool = True


@dataclass(frozen=True)
class Listed:
    """A change as `lspEdit.list` gave it."""

    id: str
    uri: str | None
    status: str
    kind: str
    hunks: tuple[tuple[int, int, str], ...]
    depends_on: tuple[str, ...]


def listed(change: dict[str, Any]) -> Listed:
    hunks = tuple(
        (h["range"]["start"]["line"], _end_line(h["range"]["end"]), h["newText"])
        for h in change.get("hunks") or []
    )
    return Listed(
        id=change["id"],
        uri=change.get("uri"),
        status=change["status"],
        kind=change.get("kind", "edit"),
        hunks=hunks,
        depends_on=tuple(change.get("dependsOn") or ()),
    )


def _end_line(end: dict[str, int]) -> int:
    """The line after a whole-line range: its end's line, or the one after it when the
    range ends at the end of a last line without a newline."""
    return int(end["line"]) + (1 if end["character"] > 0 else 0)


def with_hunks(text: str, hunks: Iterable[tuple[int, int, str]]) -> set[str]:
    """`text` with whole lines replaced by each hunk's new text: the texts a
    server could rightly write (with or without a final newline, when the text had
    none and a hunk reaches its end)."""
    hunks = list(hunks)
    lines = raw_lines(text)
    had_no_final = bool(lines) and not lines[-1].endswith(("\n", "\r"))
    if had_no_final:
        lines[-1] += _eol_of(text + "".join(new for _, _, new in hunks))
    reaches_end = False
    for start, end, new in sorted(hunks, reverse=True):
        reaches_end |= end >= len(lines)
        lines[start:end] = [new]
    out = "".join(lines)
    if not had_no_final:
        return {out}
    trimmed = _FINAL_BREAK.sub("", out)
    return {out, trimmed} if reaches_end else {trimmed}


_FINAL_BREAK = re.compile(r"(\r\n|\r|\n)\Z")


def _eol_of(text: str) -> str:
    """The line ending a text uses most (CRLF before LF before CR), LF for none."""
    counts = {"\r\n": text.count("\r\n")}
    counts["\n"] = text.count("\n") - counts["\r\n"]
    counts["\r"] = text.count("\r") - counts["\r\n"]
    best = max(counts.values())
    return next(eol for eol, count in counts.items() if count == best) if best else "\n"


def overlapping(hunks: Sequence[tuple[int, int, str]]) -> bool:
    ordered = sorted(hunks)
    return any(b[0] < a[1] or (a[0] == a[1] == b[0]) for a, b in itertools.pairwise(ordered))


# --- the machine -------------------------------------------------------------------------

# Lines of source: mostly distinct (so that blocks place), some alike (so that edits
# meet identical neighbours), some with characters outside the BMP.
LINES = st.one_of(
    st.integers(0, 60).map(lambda n: f"v{n} = {n}"),
    st.sampled_from(
        [
            "def f(x):",
            "    return x",
            "",
            "x = 1",
            "class A:",
            "    def m(self):",
            "        return '😀 ü'",
            "# 𝄞 note",
            "y = '🎉🎉'",
            "    ...",
        ]
    ),
)
TYPED = st.sampled_from(["x", "😀", "𝄞a", "ü", "", "\n", "\n\n", "    pass\n", "# é\n", "z = 2"])


def source(lines: list[str], eol: str, final: bool) -> str:
    return eol.join(lines) + (eol if final and lines else "")


# Malformed messages and the id of their answer ("?": the request's own id; None: a
# parse error or invalid request, answered with id null; False: none, a notification).
MALFORMED: list[tuple[Message | bytes, Any]] = [
    ({"jsonrpc": "2.0", "id": "?", "method": "textDocument/hover", "params": [1, 2]}, "?"),
    (
        {
            "jsonrpc": "2.0",
            "id": "?",
            "method": "textDocument/codeAction",
            "params": {"textDocument": {"uri": 5}},
        },
        "?",
    ),
    ({"jsonrpc": "2.0", "id": "?", "method": "lsp-edit/nothing"}, "?"),
    (
        {
            "jsonrpc": "2.0",
            "id": "?",
            "method": "workspace/executeCommand",
            "params": {"command": "lspEdit.accept", "arguments": [{"id": 7}]},
        },
        "?",
    ),
    (
        {
            "jsonrpc": "2.0",
            "id": "?",
            "method": "workspace/executeCommand",
            "params": {"command": "lspEdit.propose", "arguments": ["junk", 2]},
        },
        "?",
    ),
    (b"{not json", None),
    ({"jsonrpc": "2.0", "id": {"no": 1}, "method": "shutdown"}, None),
    ({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": 1}}, False),
]


@dataclass
class Session:
    """One server and the editor's side of it."""

    root: Path
    wire: Wire
    encoding: str
    versioned: bool  # the client takes versioned TextDocumentEdits
    documents: dict[str, Document] = field(default_factory=dict)
    placed: dict[str, Placed] = field(default_factory=dict)
    diagnostics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    apply_edits: bool = True  # how the next workspace/applyEdit is answered
    changes_in_flight: bool = False  # a didChange sent after the pending request
    status_before_reject: dict[str, str] = field(default_factory=dict)
    edits_applied: int = 0  # workspace/applyEdit answered applied
    reply_of: dict[str, str] = field(default_factory=dict)  # change id -> proposed reply

    def find(self, kind: str, message: str) -> None:
        if kind in ServerFuzz.allowed:
            ServerFuzz.allowed_seen[kind] = ServerFuzz.allowed_seen.get(kind, 0) + 1
        else:
            self.findings.append(Finding(kind, message))


class ServerFuzz(RuleBasedStateMachine):
    """The rules and checks; `transcript` holds the messages of the run."""

    # The messages of the latest run, for bench/fuzz_server.py to print.
    transcript: list[str] = []  # noqa: RUF012 (one run at a time, read after it)
    replies: list[Path] = []  # noqa: RUF012 (real replies: set by the caller when found)
    # Kinds of finding counted but not failed on (bench/fuzz_server.py --allow).
    allowed: frozenset[str] = frozenset()
    allowed_seen: dict[str, int] = {}  # noqa: RUF012
    steps = 0  # steps checked, over all runs
    argv: tuple[str, ...] = SERVE  # the server's command line

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        ServerFuzz.transcript = []

    # --- starting -------------------------------------------------------------------

    @initialize(
        client=st.sampled_from(CLIENTS),
        encodings=st.sampled_from([None, ["utf-8"], ["utf-32"], ["utf-16"]]),
        contents=st.lists(
            st.tuples(st.lists(LINES, max_size=16), st.booleans(), st.booleans(), st.booleans()),
            min_size=len(FILES),
            max_size=len(FILES),
        ),
        data=st.data(),
    )
    def start(
        self,
        client: str,
        encodings: list[str] | None,
        contents: list[tuple[list[str], bool, bool, bool]],
        data: st.DataObject,
    ) -> None:
        """Starts the server on a workspace of FILES (lines, CRLF?, final newline?,
        open in the editor?)."""
        root = Path(tempfile.mkdtemp(prefix="lsp-edit-fuzz-"))
        converter = default_converter()  # type: ignore[no-untyped-call]
        capabilities = converter.unstructure(client_capabilities(client))
        if encodings is not None:
            capabilities.setdefault("general", {})["positionEncodings"] = encodings
        versioned = bool(
            capabilities.get("workspace", {}).get("workspaceEdit", {}).get("documentChanges")
        )
        wire = Wire(argv=self.argv, cwd=str(root), record=self._record)
        self._note(f"client {client}, positionEncodings {encodings}")
        try:
            result = wire.initialize(root.as_uri(), capabilities)
        except NoAnswer as error:
            raise Finding("unanswered", str(error)) from None
        encoding = result["capabilities"].get("positionEncoding", "utf-16")
        session = Session(root, wire, encoding, versioned)
        wire.answer = self._answer
        self.session = session
        for name, (lines, crlf, final, opened) in zip(FILES, contents, strict=True):
            eol = "\r\n" if crlf else "\n"
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            text = source(lines, eol, final)
            path.write_bytes(text.encode("utf-8"))
            self._note(f"disk {name}: {text!r}")
            document = session.documents[path.as_uri()] = Document(path.as_uri(), path, text, eol)
            if opened:
                self._open(document)
        for document in self._sources():
            # Changes pending from the start: most rules need some.
            self._propose(data, document, twice=False)

    def teardown(self) -> None:
        if self.session is not None:
            self.session.wire.close()
            shutil.rmtree(self.session.root, ignore_errors=True)

    @property
    def s(self) -> Session:
        assert self.session is not None
        return self.session

    # --- the editor's answers to the server ------------------------------------------

    def _answer(self, method: str, params: Any) -> Any:
        if method == "workspace/applyEdit":
            return self._apply_edit(params)
        if method == "window/showDocument":
            return {"success": True}
        return None

    def _apply_edit(self, params: Any) -> dict[str, Any]:
        s = self.s
        edit = params.get("edit") or {}
        text_edits: list[tuple[Document, list[dict[str, Any]]]] = []
        resources: list[dict[str, Any]] = []
        for operation in edit.get("documentChanges") or []:
            if "kind" in operation:
                if operation["kind"] == "create" and not self._may_create(operation):
                    return {"applied": False, "failureReason": "the file exists"}
                resources.append(operation)
                continue
            uri = operation["textDocument"]["uri"]
            document = self._document(uri)
            version = operation["textDocument"].get("version")
            if document.open and version is None:
                s.find("unversioned-open", f"an edit without version for open {uri}")
            elif document.open and version != document.version:
                if not s.changes_in_flight:
                    s.find(
                        "old-version", f"edit of {uri} at v{version}, open at v{document.version}"
                    )
                return {"applied": False, "failureReason": "document version changed"}
            elif not document.open and version is not None:
                s.find("version-of-closed", f"edit of closed {uri} at version {version}")
            text_edits.append((document, operation["edits"]))
        for uri, edits in (edit.get("changes") or {}).items():
            text_edits.append((self._document(uri), edits))
        if not s.apply_edits:
            return {"applied": False, "failureReason": "the user said no"}
        s.edits_applied += 1
        for operation in resources:
            self._file_operation(operation)
        for document, edits in text_edits:
            self._check_ranges(document.uri, [e["range"] for e in edits], "workspace/applyEdit")
            if not document.open:
                self._open(document)  # an editor opens the file to edit it
            self._edit(document, edits)
        return {"applied": True}

    def _file_operation(self, operation: dict[str, Any]) -> None:
        """CreateFile, DeleteFile, RenameFile, done on disk at once, as VS Code does."""
        kind = operation["kind"]
        if kind == "create":
            path = path_of(operation["uri"])
            if path is not None and not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"")
            return
        uri = operation["uri"] if kind == "delete" else operation["oldUri"]
        document = self.s.documents.pop(uri, None)
        if document is not None and document.open:
            self.s.wire.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        path = path_of(uri)
        if kind == "delete" and path is not None and path.is_file():
            path.unlink()
        elif kind == "rename" and path is not None and path.is_file():
            target = path_of(operation["newUri"])
            if target is not None:
                target.parent.mkdir(parents=True, exist_ok=True)
                path.rename(target)

    def _may_create(self, operation: dict[str, Any]) -> bool:
        options = operation.get("options") or {}
        document = self.s.documents.get(operation["uri"])
        exists = document is not None and (document.open or document.path.exists())
        if exists and not (options.get("overwrite") or options.get("ignoreIfExists")):
            self.s.find("create-existing", f"CreateFile for {operation['uri']}, which exists")
            return False
        return True

    def _document(self, uri: str) -> Document:
        document = self.s.documents.get(uri)
        if document is None:
            path = path_of(uri) or Path("/nonexistent")
            text = self._text_of(uri) or ""
            document = self.s.documents[uri] = Document(uri, path, text, _eol_of(text))
        return document

    # --- sending what the editor does --------------------------------------------------

    def _open(self, document: Document) -> None:
        if document.path.is_file():
            document.text = document.path.read_bytes().decode("utf-8", "replace")
        document.version = 1
        document.open = True
        language = "markdown" if document.uri.endswith(".md") else "python"
        self.s.wire.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": document.uri,
                    "languageId": language,
                    "version": 1,
                    "text": document.text,
                }
            },
        )

    def _edit(
        self,
        document: Document,
        edits: Sequence[dict[str, Any]],
        *,
        whole: bool = False,
        send: bool = True,
    ) -> dict[str, Any]:
        """Applies edits given against the same text, last first, and reports them as
        incremental changes (or as the whole text); returns the didChange params."""
        s = self.s
        spans = []  # each edit's place in the text before any of them, as LSP says
        for order, edit in enumerate(edits):
            start = index_of(document.text, **edit["range"]["start"], encoding=s.encoding)
            end = index_of(document.text, **edit["range"]["end"], encoding=s.encoding)
            if start is None or end is None or start > end:
                continue  # reported by _check_ranges already
            spans.append((start, end, order, edit["newText"]))
        spans.sort()
        for (_, end, _, _), (start, _, _, _) in itertools.pairwise(spans):
            if start < end:
                raise Finding("overlapping-edits", f"edits of {document.uri}: {list(edits)}")
        changes = []
        # Last first, so that each place is still right; at one place, the replaced
        # text before what is inserted there, and inserts in their order.
        for start, end, _, new in reversed(spans):
            first = len(lsp_lines(document.text[:start])) - 1
            last = len(lsp_lines(document.text[:end])) - 1
            self._moved(document.uri, first, last, len(lsp_lines(new)) - 1)
            changes.append(
                {
                    "range": {
                        "start": position_at(document.text, start, s.encoding),
                        "end": position_at(document.text, end, s.encoding),
                    },
                    "text": new,
                }
            )
            document.text = document.text[:start] + new + document.text[end:]
        document.version += 1
        params = {
            "textDocument": {"uri": document.uri, "version": document.version},
            "contentChanges": [{"text": document.text}] if whole else changes,
        }
        if send:
            s.wire.notify("textDocument/didChange", params)
        return params

    def _moved(self, uri: str, first: int, last: int, breaks: int) -> None:
        """Follows an edit of lines `first`..`last` that holds `breaks` line breaks."""
        delta = breaks - (last - first)
        for placed in self.s.placed.values():
            if placed.uri != uri or not placed.exact:
                continue
            for index, (start, end, new) in enumerate(placed.hunks):
                if last < start - 1:
                    placed.hunks[index] = (start + delta, end + delta, new)
                elif first <= end:
                    placed.exact = False

    def _request(self, method: str, params: Any) -> Message:
        try:
            answer = self.s.wire.request(method, params, timeout=TIMEOUT)
        except NoAnswer as error:
            raise Finding("unanswered", f"{method}: {error}") from None
        self._take_notifications()
        failure = answer.get("error")
        if failure is not None and failure.get("code") == -32603:
            self.s.find("server-error", f"{method} answered InternalError: {failure['message']}")
        return answer

    def _command(self, name: str, argument: Any) -> Any:
        answer = self._request(
            "workspace/executeCommand", {"command": name, "arguments": [argument]}
        )
        return answer.get("result")

    def _take_notifications(self) -> None:
        s = self.s
        for message in s.wire.notifications:
            if message["method"] == "textDocument/publishDiagnostics":
                params = message["params"]
                s.diagnostics[params["uri"]] = params["diagnostics"]
            elif message["method"] == "window/showMessage":
                text = message["params"]["message"]
                if "Error in server" in text:
                    s.find("server-error", f"showMessage: {text}")
        s.wire.notifications.clear()

    # --- checks ------------------------------------------------------------------------

    def _text_of(self, uri: str) -> str | None:
        document = self.s.documents.get(uri)
        if document is not None and document.open:
            return document.text
        path = path_of(uri)
        if path is None or not path.is_file():
            return None
        return path.read_bytes().decode("utf-8", "replace")

    def _check_ranges(self, uri: str | None, ranges: Iterable[Any], where: str) -> None:
        text = self._text_of(uri) if uri else None
        if text is None:
            return
        for value in ranges:
            problem = where_range_is(text, value, self.s.encoding)
            if problem == "past-end":
                self.s.find("range-past-end", f"{where}: {value} in {uri} ({text!r})")
            elif problem is not None:
                self.s.find("range-outside", f"{where}: {value} in {uri}: {problem} ({text!r})")

    def _check_changes(self, changes: Iterable[dict[str, Any]], where: str) -> None:
        for change in changes:
            if change.get("kind", "edit") != "edit":
                continue
            ranges = [h["range"] for h in change.get("hunks") or []]
            if "range" in change:
                ranges.append(change["range"])
            self._check_ranges(change.get("uri"), ranges, where)
            block = change.get("block")
            if block and change["status"] not in ("applied", "rejected"):
                where_block = f"{where} block of {change['status']} change {change['id']}"
                self._check_ranges(block["uri"], [block["range"]], where_block)

    def _list(self) -> list[Listed]:
        result = self._command("lspEdit.list", {}) or {}
        changes = result.get("changes", [])
        self._check_changes(changes, "lspEdit.list")
        found = [listed(c) for c in changes]
        for change in found:
            if change.status != "pending" or not change.uri:
                continue
            placed = self.s.placed.get(change.id)
            new_texts = [new for _, _, new in change.hunks]
            if placed is None or [new for _, _, new in placed.hunks] != new_texts:
                # New, or proposed again in place (its block in a reply document was
                # edited): followed from where the server places it now.
                self.s.placed[change.id] = Placed(change.uri, list(change.hunks))
        return found

    @invariant()
    def holds(self) -> None:
        if self.session is None:
            return
        ServerFuzz.steps += 1
        s = self.s
        # What the server sent before its answer to this has been read by then.
        changes = self._list()
        status = {c.id: c.status for c in changes}
        for uri, diagnostics in s.diagnostics.items():
            self._check_ranges(uri, [d["range"] for d in diagnostics], "publishDiagnostics")
            for diagnostic in diagnostics:
                change_id = (diagnostic.get("data") or {}).get("id")
                if change_id is None:
                    continue
                if change_id not in status:
                    s.find("decided-diagnostic", f"a diagnostic for gone change {change_id}")
                elif status[change_id] in ("applied", "rejected"):
                    s.find(
                        "decided-diagnostic",
                        f"a diagnostic for {status[change_id]} change {change_id}: "
                        f"{diagnostic['message']}",
                    )
        seen: dict[tuple[Any, ...], str] = {}
        for change in changes:
            reply = s.reply_of.get(change.id)
            if change.status != "pending" or not change.hunks or reply is None:
                continue
            key = (change.uri, change.hunks, reply)
            if key in seen:
                s.find("duplicate-pending", f"changes {seen[key]} and {change.id} are the same")
            seen[key] = change.id
        if s.wire.take_answers():
            s.find("unanswered", "a request was answered twice, or a non-request answered")
        if not s.wire.alive():
            raise Finding("unanswered", f"the server stopped\n{s.wire.log()}")
        if s.findings:
            raise s.findings[0]

    # --- rules: documents ----------------------------------------------------------------

    def _sources(self) -> list[Document]:
        """The documents replies edit (not the reply document)."""
        return [d for d in self.s.documents.values() if not d.uri.endswith(".md")]

    def _closed_docs(self) -> list[Document]:
        return [d for d in self.s.documents.values() if not d.open and d.path.is_file()]

    def _open_docs(self, replies: bool = False) -> list[Document]:
        return [d for d in self.s.documents.values() if d.open and d.uri.endswith(".md") == replies]

    @precondition(lambda self: self.session is not None and self._closed_docs())
    @rule(data=st.data())
    def open_file(self, data: st.DataObject) -> None:
        candidates = [d for d in self._closed_docs() if not d.uri.endswith(".md")]
        if candidates:
            self._open(data.draw(st.sampled_from(candidates)))

    @precondition(lambda self: self.session is not None and self._open_docs())
    @rule(data=st.data(), save=st.booleans())
    def close_file(self, data: st.DataObject, save: bool) -> None:
        document = data.draw(st.sampled_from(self._open_docs()))
        if save:
            document.path.write_bytes(document.text.encode("utf-8"))
        self.s.wire.notify("textDocument/didClose", {"textDocument": {"uri": document.uri}})
        document.open = False
        on_disk = self._text_of(document.uri) or ""
        if on_disk != document.text:
            # The server goes back to the disk's text, by a diff of its own.
            for placed in self.s.placed.values():
                if placed.uri == document.uri:
                    placed.exact = False
        document.text = on_disk

    @precondition(lambda self: self.session is not None and self._open_docs())
    @rule(
        data=st.data(),
        text=TYPED,
        whole=st.booleans(),
        where=st.sampled_from(["anywhere", "at a change", "above a change", "below a change"]),
    )
    def type_text(self, data: st.DataObject, text: str, whole: bool, where: str) -> None:
        """Types (or deletes) at a place, reported as a ranged change or as the whole
        text; the place is often at, above or below a pending change."""
        document = data.draw(st.sampled_from(self._open_docs()))
        self._type(data, document, text, whole, where)

    def _type(
        self, data: st.DataObject, document: Document, text: str, whole: bool, where: str
    ) -> None:
        text = text.replace("\n", document.eol)
        lines = lsp_lines(document.text)
        pending = [p for p in self.s.placed.values() if p.uri == document.uri and p.hunks]
        line = data.draw(st.integers(0, len(lines) - 1))
        last_line = len(lines) - 1
        if where != "anywhere" and pending:
            start, end, _ = data.draw(st.sampled_from(data.draw(st.sampled_from(pending)).hunks))
            if where == "at a change":
                line = start + data.draw(st.integers(-1, 1))
            elif where == "above a change" and start > 1:
                line = data.draw(st.integers(0, start - 2))
                last_line = start - 2  # clear of it: the line above it stays
            elif where == "below a change" and end + 1 < len(lines):
                line = data.draw(st.integers(end + 1, len(lines) - 1))
            line = min(max(0, line), len(lines) - 1)
        # (a hunk the harness knows may lie past the end after typing: stay inside)
        last = min(line + data.draw(st.integers(0, 2)), max(line, last_line), len(lines) - 1)
        start_char = self._boundary(data, lines[line])
        end_char = self._boundary(data, lines[last])
        if last == line and end_char < start_char:
            start_char, end_char = end_char, start_char
        at = {
            "start": {"line": line, "character": start_char},
            "end": {"line": last, "character": end_char},
        }
        self._edit(document, [{"range": at, "newText": text}], whole=whole)

    @precondition(lambda self: self.session is not None and self._followed())
    @rule(
        data=st.data(),
        texts=st.lists(st.tuples(TYPED, st.booleans()), min_size=1, max_size=3),
        by_action=st.booleans(),
    )
    def type_then_accept(
        self, data: st.DataObject, texts: list[tuple[str, bool]], by_action: bool
    ) -> None:
        """Types clear above or below a pending change, then accepts it: it must be
        written where it went, not where it was."""
        placed = data.draw(st.sampled_from(self._followed()))
        document = self.s.documents[placed.uri]
        for text, whole in texts:
            where = data.draw(st.sampled_from(["above a change", "below a change"]))
            self._type(data, document, text, whole, where)
        change_id = next(k for k, v in self.s.placed.items() if v is placed)
        change = next((c for c in self._pending() if c.id == change_id), None)
        if change is None:
            return
        if by_action:
            self._accept_by_action(data, change, command_first=data.draw(st.booleans()))
        else:
            self._accept(data, change)

    def _followed(self) -> list[Placed]:
        """Pending changes in open documents whose place the editor side knows."""
        open_uris = {d.uri for d in self._open_docs()}
        return [p for p in self.s.placed.values() if p.exact and p.hunks and p.uri in open_uris]

    def _boundary(self, data: st.DataObject, line: str) -> int:
        """A position on `line` between two characters, in the negotiated units."""
        cut = data.draw(st.integers(0, len(line)))
        return units(line[:cut], self.s.encoding)

    # --- rules: replies ----------------------------------------------------------------

    @precondition(lambda self: self.session is not None)
    @rule(data=st.data(), twice=st.booleans())
    def propose(self, data: st.DataObject, twice: bool) -> None:
        """A reply for one of the files (twice: the same reply again, issue 19 9b)."""
        self._propose(data, data.draw(st.sampled_from(self._sources())), twice)

    def _propose(self, data: st.DataObject, document: Document, twice: bool) -> None:
        s = self.s
        reply = data.draw(self._reply(document))
        argument: dict[str, Any] = {"response": reply}
        if data.draw(st.booleans()):
            argument["uri"] = document.uri
        for _ in range(2 if twice else 1):
            result = self._command("lspEdit.propose", argument) or {}
            self._check_changes(result.get("changes", []), "lspEdit.propose")
            for change in result.get("changes", []):
                s.reply_of[change["id"]] = reply

    @precondition(lambda self: self.session is not None)
    @rule(data=st.data())
    def reply_document(self, data: st.DataObject) -> None:
        """Opens the reply document, types a reply into it, or empties it."""
        s = self.s
        path = s.root / REPLY
        document = s.documents.get(path.as_uri())
        if document is None or not document.open:
            target = data.draw(st.sampled_from(self._sources()))
            document = Document(path.as_uri(), path, data.draw(self._reply(target)), "\n")
            s.documents[document.uri] = document
            self._open(document)
            return
        action = data.draw(st.sampled_from(["append", "empty", "close"]))
        if action == "close":
            s.wire.notify("textDocument/didClose", {"textDocument": {"uri": document.uri}})
            document.open = False
            del s.documents[document.uri]
            return
        end = position_at(document.text, len(document.text), s.encoding)
        start = {"line": 0, "character": 0} if action == "empty" else end
        target = data.draw(st.sampled_from(self._sources()))
        new = "" if action == "empty" else "\n" + data.draw(self._reply(target))
        self._edit(document, [{"range": {"start": start, "end": end}, "newText": new}])

    def _reply(self, document: Document) -> st.SearchStrategy[str]:
        name = document.path.relative_to(self.s.root).as_posix()
        lines = [line for line in lsp_lines(document.text) if line.strip()] or ["x = 1"]
        strategies = [
            st.lists(self._search_replace(name, document.text), min_size=1, max_size=3).map(
                "\n".join
            ),
            st.builds(_whole_file, st.just(name), st.lists(LINES, max_size=6)),
            st.builds(_line_range, st.just(name), st.integers(1, 8), st.integers(0, 3), LINES),
            st.builds(_unified, st.just(name), st.sampled_from(lines), LINES),
            st.builds(_v4a, st.just(name), st.sampled_from(lines), LINES),
            st.builds(_garbage, st.text(max_size=80), st.sampled_from(lines)),
        ]
        if self.replies:
            strategies.append(_real_reply(self.replies))
        return st.one_of(strategies)

    def _search_replace(self, name: str, text: str) -> st.SearchStrategy[str]:
        lines = lsp_lines(text)

        @st.composite
        def block(draw: st.DrawFn) -> str:
            first = draw(st.integers(0, max(0, len(lines) - 1)))
            old = lines[first : first + draw(st.integers(1, 3))] or ["x = 1"]
            how = draw(st.sampled_from(["insert", "delete", "replace", "empty", "same"]))
            if how == "insert":
                new = [*old, draw(LINES)]
            elif how == "delete":
                new = old[1:] if len(old) > 1 else []
            elif how == "replace":
                new = [draw(LINES) for _ in old]
            elif how == "empty":
                new = []
            else:
                new = list(old)
            return _search_replace_block(name, old, new)

        return block()

    # --- rules: decisions ----------------------------------------------------------------

    def _pending(self) -> list[Listed]:
        return [c for c in self._list() if c.status == "pending"]

    def _snapshot(self) -> dict[str, str]:
        return {uri: d.text for uri, d in self.s.documents.items() if d.open} | {
            uri: text
            for uri in self.s.documents
            if not self.s.documents[uri].open and (text := self._text_of(uri) or "") is not None
        }

    def _check_written(
        self, before: dict[str, str], accepted: Sequence[Listed], label: str
    ) -> bool:
        """After the editor applied the acceptance of `accepted`: each file holds what
        the server showed, and what the change was placed to write (when followed).
        False when it does not."""
        s = self.s
        right = True
        by_uri: dict[str, list[Listed]] = {}
        for change in accepted:
            if change.uri is not None:
                by_uri.setdefault(change.uri, []).append(change)
        for uri, changes in by_uri.items():
            if any(c.kind != "edit" or c.depends_on for c in changes):
                continue
            hunks = [h for c in changes for h in c.hunks]
            if overlapping(hunks) or uri not in before:
                continue
            document = self._document(uri)
            now = document.text if document.open else (self._text_of(uri) or "")
            shown = with_hunks(before[uri], hunks)
            if now not in shown:
                s.find(
                    "shown-vs-written",
                    f"{label}: {uri} holds {now!r}, not what was shown: {sorted(shown)!r} "
                    f"(before: {before[uri]!r}; hunks {hunks})",
                )
                right = False
                continue
            placed = [s.placed.get(c.id) for c in changes]
            if all(p is not None and p.exact and p.uri == uri for p in placed):
                model = [h for p in placed if p is not None for h in p.hunks]
                expected = with_hunks(before[uri], model)
                if not expected & shown:
                    s.find(
                        "tracking",
                        f"{label}: the server showed and wrote {hunks} in {before[uri]!r}; "
                        f"the change was placed at {model}",
                    )
                    right = False
        return right

    def _decide(self, data: st.DataObject) -> int:
        """Draws the editor's answer to the next applyEdit; returns the count of edits
        applied so far."""
        self.s.apply_edits = data.draw(st.booleans())
        self.s.changes_in_flight = False
        return self.s.edits_applied

    @precondition(lambda self: self.session is not None and self.s.placed)
    @rule(data=st.data())
    def accept(self, data: st.DataObject) -> None:
        pending = self._pending()
        if not pending:
            return
        self._accept(data, data.draw(st.sampled_from(pending)))

    def _accept(self, data: st.DataObject, change: Listed) -> None:
        applied = self._decide(data)
        before = self._snapshot()
        result = self._command("lspEdit.accept", {"id": change.id}) or {}
        if self.s.edits_applied == applied:
            return
        if result.get("status") != "applied":
            self.s.find(
                "written-not-applied",
                f"the editor applied the edit accepting {change.id}, which is now: {result}",
            )
        elif (result.get("accepted") or [change.id]) == [change.id]:
            self._check_written(before, [change], "lspEdit.accept")

    @precondition(lambda self: self.session is not None and self.s.placed)
    @rule(data=st.data(), command_first=st.booleans())
    def accept_by_code_action(self, data: st.DataObject, command_first: bool) -> None:
        """The "Accept change" code action: its edit, then its command, as LSP says;
        or with the command before the editor reported the edit (a client that
        debounces didChange), for clients that version their edits."""
        s = self.s
        candidates = [c for c in self._pending() if c.uri in s.documents and c.hunks]
        candidates = [c for c in candidates if s.documents[c.uri or ""].open]
        if candidates:
            self._accept_by_action(data, data.draw(st.sampled_from(candidates)), command_first)

    def _accept_by_action(self, data: st.DataObject, change: Listed, command_first: bool) -> None:
        s = self.s
        document = s.documents[change.uri or ""]
        line = change.hunks[0][0]
        here = {"line": line, "character": 0}
        answer = self._request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": document.uri},
                "range": {"start": here, "end": here},
                "context": {"diagnostics": []},
            },
        )
        actions = answer.get("result") or []
        self._check_actions(document.uri, actions)
        action = next(
            (
                a
                for a in actions
                if a.get("title", "").startswith("Accept change")
                and (a.get("command") or {}).get("arguments") == [{"id": change.id}]
            ),
            None,
        )
        if action is None:
            return
        self._decide(data)
        before = self._snapshot()
        edit = action.get("edit")
        if edit is not None:
            command_first = command_first and s.versioned
            held = self._apply_action_edit(edit, hold=command_first)
            if held is None:
                return  # refused, as the editor refuses a stale edit: no command either
            label = "code action's edit"
            if not command_first and not self._check_written(before, [change], label):
                return
        else:
            command_first, held = False, None
        edited = document.text
        command = action["command"]
        params = {"command": command["command"], "arguments": command.get("arguments", [])}
        if command_first and held is not None:
            msg_id = s.wire.new_id()
            s.wire.send(
                {
                    "jsonrpc": "2.0",
                    "id": msg_id,
                    "method": "workspace/executeCommand",
                    "params": params,
                }
            )
            s.changes_in_flight = True
            s.wire.notify("textDocument/didChange", held)
            try:
                s.wire.answer_to(msg_id, TIMEOUT)
            except NoAnswer as error:
                raise Finding("unanswered", f"executeCommand: {error}") from None
            self._take_notifications()
        else:
            self._request("workspace/executeCommand", params)
        s.changes_in_flight = False
        if edit is not None and document.text != edited:
            order = "its command sent before the edit's didChange" if command_first else ""
            s.find(
                "double-apply",
                f"after the code action's edit of {change.id} {order}, its command wrote "
                f"again: {edited!r} became {document.text!r}",
            )
        elif edit is not None and command_first:
            self._check_written(before, [change], "code action's edit, command first")

    def _apply_action_edit(self, edit: dict[str, Any], hold: bool) -> dict[str, Any] | None:
        """Applies a code action's edit as the editor does; returns the didChange
        params (held back when `hold`), or None when the editor refuses the edit."""
        s = self.s
        operations = edit.get("documentChanges") or [
            {"textDocument": {"uri": uri, "version": None}, "edits": edits}
            for uri, edits in (edit.get("changes") or {}).items()
        ]
        if len(operations) != 1 or "kind" in operations[0]:
            return None
        operation = operations[0]
        document = s.documents.get(operation["textDocument"]["uri"])
        version = operation["textDocument"].get("version")
        if document is None or not document.open:
            return None
        if version is not None and version != document.version:
            return None
        self._check_ranges(document.uri, [e["range"] for e in operation["edits"]], "code action")
        return self._edit(document, operation["edits"], send=not hold)

    def _check_actions(self, uri: str, actions: Sequence[dict[str, Any]]) -> None:
        for action in actions:
            ranges = [d["range"] for d in action.get("diagnostics") or []]
            self._check_ranges(uri, ranges, "code action diagnostics")
            edit = action.get("edit") or {}
            for operation in edit.get("documentChanges") or []:
                if "edits" in operation:
                    target = operation["textDocument"]["uri"]
                    self._check_ranges(
                        target, [e["range"] for e in operation["edits"]], "code action edit"
                    )
                    version = operation["textDocument"].get("version")
                    document = self.s.documents.get(target)
                    if document is not None and document.open and version != document.version:
                        self.s.find(
                            "old-version",
                            f"a code action's edit of {target} at v{version}, open at "
                            f"v{document.version}",
                        )
            for target, edits in (edit.get("changes") or {}).items():
                self._check_ranges(target, [e["range"] for e in edits], "code action edit")

    @precondition(lambda self: self.session is not None and self.s.placed)
    @rule(data=st.data(), in_file=st.booleans())
    def accept_all(self, data: st.DataObject, in_file: bool) -> None:
        s = self.s
        pending = self._pending()
        if not pending:
            return
        argument: dict[str, Any] = {}
        if in_file:
            argument["uri"] = data.draw(st.sampled_from(pending)).uri
        chosen = [c for c in pending if not in_file or c.uri == argument["uri"]]
        applied_before = self._decide(data)
        before = self._snapshot()
        result = self._command("lspEdit.acceptAll", argument) or {}
        statuses = {c["id"]: c["status"] for c in result.get("changes", [])}
        if s.edits_applied > applied_before and "message" not in result:
            # A change that overlaps another one chosen may go stale when that one is
            # written (docs/protocol.md); the others are written, never stale.
            alone = [
                c.id
                for c in chosen
                if not any(overlapping([*c.hunks, *o.hunks]) for o in chosen if o is not c)
            ]
            stale = [i for i in alone if statuses.get(i) == "stale"]
            if stale:
                s.find("written-not-applied", f"the editor applied Accept All: {result}")
            applied = [c for c in chosen if statuses.get(c.id) == "applied"]
            if len(applied) == len(chosen):
                self._check_written(before, applied, "lspEdit.acceptAll")

    @precondition(lambda self: self.session is not None and self.s.placed)
    @rule(data=st.data())
    def reject(self, data: st.DataObject) -> None:
        changes = self._list()
        if changes:
            change = data.draw(st.sampled_from(changes))
            if change.status != "rejected":
                self.s.status_before_reject[change.id] = change.status
            self._command("lspEdit.reject", {"id": change.id})

    @precondition(lambda self: self.session is not None and self.s.placed)
    @rule(data=st.data())
    def reject_all(self, data: st.DataObject) -> None:
        changes = self._list()
        argument: dict[str, Any] = {}
        in_file = data.draw(st.booleans())
        if changes and in_file:
            argument["uri"] = data.draw(st.sampled_from(changes)).uri
        for change in changes:
            chosen = not argument or change.uri == argument["uri"]
            if chosen and change.status != "rejected":
                self.s.status_before_reject[change.id] = change.status
        self._command("lspEdit.rejectAll", argument)

    @precondition(lambda self: self.session is not None and self.s.status_before_reject)
    @rule(data=st.data(), by_id=st.booleans())
    def restore(self, data: st.DataObject, by_id: bool) -> None:
        s = self.s
        argument: dict[str, Any] = {}
        if by_id:
            argument["id"] = data.draw(st.sampled_from(sorted(s.status_before_reject)))
        result = self._command("lspEdit.restore", argument)
        if result and result.get("status") == "pending":
            before = s.status_before_reject.get(result["id"])
            if before in ("failed", "skipped"):
                s.find("restore-failure", f"restore made {before} change {result['id']} pending")

    # --- rules: what the editor asks ----------------------------------------------------

    @precondition(lambda self: self.session is not None and self._open_docs())
    @rule(data=st.data())
    def look(self, data: st.DataObject) -> None:
        """Code actions, lenses, hover and the commands that return ranges."""
        document = data.draw(st.sampled_from(self._open_docs() + self._open_docs(True)))
        line = data.draw(st.integers(0, len(lsp_lines(document.text)) - 1))
        here = {"line": line, "character": 0}
        identifier = {"uri": document.uri}
        what = data.draw(
            st.sampled_from(["action", "lens", "hover", "symbols", "next", "previous", "show"])
        )
        if what == "action":
            answer = self._request(
                "textDocument/codeAction",
                {
                    "textDocument": identifier,
                    "range": {"start": here, "end": here},
                    "context": {"diagnostics": []},
                },
            )
            self._check_actions(document.uri, answer.get("result") or [])
        elif what == "lens":
            answer = self._request("textDocument/codeLens", {"textDocument": identifier})
            self._check_ranges(
                document.uri, [lens["range"] for lens in answer.get("result") or []], "codeLens"
            )
        elif what == "hover":
            answer = self._request(
                "textDocument/hover", {"textDocument": identifier, "position": here}
            )
            hover = answer.get("result") or {}
            if "range" in hover:
                self._check_ranges(document.uri, [hover["range"]], "hover")
        elif what == "symbols" and document.uri.endswith(".py"):
            result = self._command("lspEdit.symbols", {"uri": document.uri}) or {}
            ranges = [symbol["range"] for symbol in result.get("symbols", [])]
            self._check_ranges(document.uri, ranges, "lspEdit.symbols")
        elif what in ("next", "previous"):
            result = self._command(f"lspEdit.{what}", {"uri": document.uri, "position": here})
            change = (result or {}).get("change")
            if change:
                self._check_changes([change], f"lspEdit.{what}")
        elif what == "show":
            changes = self._list()
            if changes:
                change = data.draw(st.sampled_from(changes))
                location = (self._command("lspEdit.show", {"id": change.id}) or {}).get("location")
                if location:
                    self._check_ranges(location["uri"], [location["range"]], "lspEdit.show")

    @precondition(lambda self: self.session is not None)
    @rule(which=st.integers(0, len(MALFORMED) - 1))
    def malformed(self, which: int) -> None:
        """A message no client should send: the server answers it with an error (a
        notification: drops it) and goes on."""
        s = self.s
        msg_id = s.wire.new_id()
        message, answered = MALFORMED[which]
        if isinstance(message, dict) and message.get("id") == "?":
            message = {**message, "id": msg_id}
            answered = msg_id
        s.wire.send_raw(frame(message))
        if answered is False:
            return
        try:
            answer = s.wire.answer_to(answered, TIMEOUT)
        except NoAnswer as error:
            raise Finding("unanswered", f"a malformed message: {error}") from None
        if "error" not in answer or answer["error"]["code"] == -32603:
            s.find("server-error", f"a malformed message got {answer}")

    # --- the transcript -------------------------------------------------------------------

    def _record(self, direction: str, message: Any) -> None:
        if direction == ">":
            body = (
                message.partition(b"\r\n\r\n")[2] if message.startswith(b"Content-Length") else b""
            )
            try:
                shown = json.dumps(json.loads(body), ensure_ascii=False) if body else repr(message)
            except ValueError:
                shown = repr(message)
            ServerFuzz.transcript.append(f"> {shown}")
        else:
            shown = json.dumps(message, ensure_ascii=False)
            ServerFuzz.transcript.append(f"< {shown[:400]}{'…' if len(shown) > 400 else ''}")

    def _note(self, text: str) -> None:
        ServerFuzz.transcript.append(f"# {text}")


# --- replies of every format ----------------------------------------------------------


def _search_replace_block(name: str, old: list[str], new: list[str]) -> str:
    body = "\n".join(["<<<<<<< SEARCH", *old, "=======", *new, ">>>>>>> REPLACE"])
    return f"{name}\n{body}\n"


def _whole_file(name: str, lines: list[str]) -> str:
    return f"{name}\n```python\n" + "".join(line + "\n" for line in lines) + "```\n"


def _line_range(name: str, start: int, length: int, line: str) -> str:
    return f"{name}\n```python:{start}:{start + length}\n{line}\n```\n"


def _unified(name: str, old: str, new: str) -> str:
    return f"--- a/{name}\n+++ b/{name}\n@@ -1,1 +1,1 @@\n-{old}\n+{new}\n"


def _v4a(name: str, old: str, new: str) -> str:
    return f"*** Begin Patch\n*** Update File: {name}\n@@\n-{old}\n+{new}\n*** End Patch\n"


def _garbage(noise: str, line: str) -> str:
    return f"{noise}\n<<<<<<< SEARCH\n{line}\n=======\n{noise}\n"


def _real_reply(files: Sequence[Path]) -> st.SearchStrategy[str]:
    """A stretch of a real transcript of model replies (read where it lies, at run
    time; never copied into the project)."""

    @st.composite
    def stretch(draw: st.DrawFn) -> str:
        path = draw(st.sampled_from(list(files)))
        text = path.read_bytes().decode("utf-8", "replace")
        start = draw(st.integers(0, max(0, len(text) - 1)))
        start = text.find("\n", start) + 1
        return text[start : start + draw(st.integers(200, 4000))]

    return stretch()


def path_of(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def real_replies(start: Path) -> list[Path]:
    """The transcripts of real replies in `shared/realworld/llm-replies` beside one of
    `start`'s folders, when there is such a folder."""
    for parent in [start, *start.parents]:
        folder = parent / "shared" / "realworld" / "llm-replies"
        if folder.is_dir():
            return sorted(folder.glob("*.md"))
    return []
