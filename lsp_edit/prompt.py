"""The request `lspEdit.ask` sends a model: the mode's instructions, the history, and
the user's turn with what the model needs to write blocks that place. No LSP types.

The user's turn holds, in order: the summary of what became of the model's earlier
changes (`lspEdit.summary`: accepted, rejected, not applied and why), the target
files as the edit mode needs them (numbered lines for `line_numbers`, the whole
file with its outline of AST paths for `ast_path`, the whole file for
`complete_file`), the selection, and the prompt. Files are sent as they are now,
in the latest turn only: the history holds the words of earlier turns.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsp_edit.conversation import Turn
from lsp_edit.instructions import instructions
from lsp_edit.providers import ChatMessage, ChatRequest
from lsp_edit.symbols import index_symbols
from lsp_edit.text import Text
from lsp_edit.tools import Tool
from lsp_edit.values import value

_ROLE = (
    "You change the user's code by writing edit blocks in your reply. lsp-edit shows each "
    "block to the user as a pending change to accept or reject: write only the changes you "
    "mean, each as one block, and say briefly why."
)
_TOOLS = (
    "You may also make changes by calling the tools you are given. Each call becomes a "
    "pending change, as a block does; its result says whether it was placed."
)


@value
class ContextFile:
    """A file the model is shown: its path as the user sees it (relative to the
    workspace folder), its text now, and its language (None when unknown)."""

    path: str
    text: Text
    language: str | None = None
    pending: int = 0  # changes of the model's, pending review, that `text` holds


@value
class Selection:
    """Lines `first`..`last` (1-based, inclusive) of a file the user selected."""

    path: str
    first: int
    last: int
    text: Text


@value
class Ask:
    """Everything one request is built from."""

    prompt: str
    mode: str  # the session's mode now: ast_path, line_numbers or complete_file
    files: tuple[ContextFile, ...] = ()
    selection: Selection | None = None
    history: tuple[Turn, ...] = ()
    summary: str | None = None
    max_context_files: int = 8
    tools: tuple[Tool, ...] = ()


def user_words(prompt: str, summary: str | None) -> str:
    """The user's turn as the conversation records it: the summary first, then the
    prompt (files and selection are not recorded: they are sent fresh each time)."""
    parts = [part.strip("\n") for part in (summary, prompt) if part and part.strip()]
    return "\n\n".join(parts)


def build_request(model: str, ask: Ask) -> ChatRequest:
    system = [_ROLE, "", instructions(ask.mode).rstrip("\n")]
    if ask.tools:
        system += ["", _TOOLS]
    messages = [ChatMessage("system", "\n".join(system))]
    messages += [ChatMessage(turn.role, turn.text) for turn in ask.history]
    messages.append(ChatMessage("user", user_message(ask)))
    return ChatRequest(model, tuple(messages), ask.tools)


def user_message(ask: Ask) -> str:
    """The latest user turn: summary, files, selection, prompt."""
    parts: list[str] = []
    if ask.summary and ask.summary.strip():
        parts.append(ask.summary.strip("\n"))
    shown = ask.files[: max(0, ask.max_context_files)]
    for file in shown:
        parts.append(file_section(file, ask.mode))
    left_out = ask.files[len(shown) :]
    if left_out:
        names = ", ".join(f.path for f in left_out)
        parts.append(
            f"({len(left_out)} more file{'s' if len(left_out) > 1 else ''} not shown, as "
            f"lspEdit.llm.maxContextFiles is {ask.max_context_files}: {names}.)"
        )
    if ask.selection is not None:
        parts.append(selection_section(ask.selection, ask.mode))
    if ask.prompt.strip():
        parts.append(ask.prompt.strip("\n"))
    return "\n\n".join(parts)


def file_section(file: ContextFile, mode: str) -> str:
    """One file as `mode` needs it."""
    lines = file.text.lines
    language = file.language or ""
    if mode == "line_numbers":
        head = (
            f"{file.path} ({len(lines)} lines; each line below starts with its number and a "
            "tab, which are not part of the file):"
        )
        return head + "\n" + fenced(numbered(lines, 1), language)
    held = (
        f" (with your {file.pending} change{'s' if file.pending > 1 else ''} pending review "
        "applied)"
        if file.pending
        else ""
    )
    section = f"{file.path}{held}:\n" + fenced(lines, language)
    if mode == "ast_path" and file.language is not None:
        outline = symbol_outline(file.text, file.language)
        if outline:
            section += f"\n\nThe AST paths in {file.path} (kind, lines):\n" + "\n".join(outline)
    return section


def selection_section(selection: Selection, mode: str) -> str:
    head = (
        f"The user selected lines {selection.first}-{selection.last} of {selection.path}:"
        if selection.last > selection.first
        else f"The user selected line {selection.first} of {selection.path}:"
    )
    lines = selection.text.lines
    if mode == "line_numbers":
        lines = numbered(lines, selection.first)
    return head + "\n" + fenced(lines, "")


def symbol_outline(text: Text, language: str) -> list[str]:
    """`- Cart-add (function, 5-6)` for each definition, outer before inner."""
    return [
        f"- {s.dotted} ({s.kind}, {s.start_line + 1}-{s.end_line})"
        for s in index_symbols(text, language)
    ]


def numbered(lines: Sequence[str], first: int) -> list[str]:
    width = len(str(first + len(lines) - 1))
    return [f"{n:>{width}}\t{line}" for n, line in enumerate(lines, start=first)]


def fenced(lines: Sequence[str], language: str) -> str:
    """Lines in a fence longer than any fence inside them."""
    longest = 0
    for line in lines:
        stripped = line.lstrip()
        longest = max(longest, len(stripped) - len(stripped.lstrip("`")))
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n" + "".join(line + "\n" for line in lines) + fence
