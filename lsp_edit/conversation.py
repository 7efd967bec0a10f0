"""The reply document of `lspEdit.ask` as a conversation: the text lsp-edit writes
into it for each turn, and the history read back from it. No LSP types here.

The document is Markdown. Each turn starts with a marker line, an HTML comment:

    <!-- lsp-edit: user -->
    ### You

    > Round the total to cents.

    <!-- lsp-edit: assistant qwen2.5-coder:7b -->
    ### qwen2.5-coder:7b

    The model's reply, as it streamed in, its edit blocks included.

    <!-- lsp-edit: note finished: 812 tokens in, 95 out -->

The user's words are quoted (`> `): the parser reads a quoted line as prose, so a
block pasted into a prompt is never taken for one the model wrote. Marker lines and
the heading under a turn's marker are not part of what the model is sent. The
document is the history: a turn deleted from it is a turn the model no longer sees.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from lsp_edit.values import value

_MARKER = re.compile(r"^<!-- lsp-edit: (?P<kind>[a-z]+)(?: (?P<detail>.*?))? -->$")


@value
class Turn:
    """One turn of the conversation, as the model is sent it."""

    role: Literal["user", "assistant"]
    text: str


def marker(kind: str, detail: str = "") -> str:
    """A marker line (with its newline): `detail` is kept on one line, and never ends
    the comment early."""
    detail = " ".join(detail.split()).replace("-->", "-- >")
    return f"<!-- lsp-edit: {kind}{' ' + detail if detail else ''} -->\n"


def user_turn(text: str, *, at_start: bool) -> str:
    """The user's turn: its marker, a heading, and the text quoted."""
    quoted = "".join(f"> {line}".rstrip() + "\n" for line in text.strip("\n").split("\n"))
    return ("" if at_start else "\n") + marker("user") + "### You\n\n" + quoted + "\n"


def assistant_turn(model: str) -> str:
    """The start of the model's turn: the reply's text follows it."""
    return marker("assistant", model) + f"### {model}\n\n"


def note(text: str) -> str:
    """A line for the user that the model is not sent (the turn's end, a failure)."""
    return marker("note", text)


def read_history(lines: Sequence[str]) -> list[Turn]:
    """The turns a document holds, in order (text outside any turn is not one)."""
    turns: list[Turn] = []
    role: Literal["user", "assistant"] | None = None
    body: list[str] = []
    heading = False

    def flush() -> None:
        text = "\n".join(body).strip("\n")
        if role is not None and text.strip():
            turns.append(Turn(role, text))

    for raw in lines:
        line = raw.rstrip("\r\n")
        found = _MARKER.match(line.strip())
        if found is not None:
            kind = found.group("kind")
            if kind in ("user", "assistant"):
                flush()
                role = "user" if kind == "user" else "assistant"
                body, heading = [], True
            continue
        if heading:
            heading = False
            if line.startswith("#"):
                continue
        if role == "user":
            if line.startswith(">"):
                body.append(line[2:] if line.startswith("> ") else line[1:])
        elif role == "assistant":
            body.append(line)
    flush()
    return turns
