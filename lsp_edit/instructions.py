"""The instructions text an LLM's system prompt carries, one per edit mode.

`lsp-edit instructions --mode M` and the `lspEdit.instructions` command print
these. AST path mode is the default; line-number mode is only used when the
first block of a reply is a line-number block.
"""

from __future__ import annotations

MODES = ("ast_path", "line_numbers", "complete_file")

_FENCE = "```"

INSTRUCTIONS_AST = f"""Default mode: AST path.
Put the file's path on its own line just before each code block. Code blocks must
include the AST path in the format type:Namespace-Class-Method, e.g.

src/client.py
{_FENCE}python:Client-chat
def chat(self, message):
    # new implementation
    return self.send(message)
{_FENCE}

A code block whose tag is only a language is not an edit (unless the path line
before it names a file: then it is taken as that file's complete new content).

The path is the names of the enclosing definitions joined by `-`, outermost first
(`Outer-Inner-method`, `module_function`; Go methods under their receiver type,
Rust methods under their impl type, C++ out-of-class definitions under their class).

AST path operations:
- Default (no suffix) = replace target
- `:before` = insert before target
- `:after` = insert after target
- `:remove` = remove target

Example (before):
src/client.py
{_FENCE}python:Client-chat:before
def connect(self):
    # inserted before chat()
    pass
{_FENCE}

Example (after):
src/client.py
{_FENCE}python:Client-chat:after
def close(self):
    # inserted after chat()
    pass
{_FENCE}

Example (remove):
src/client.py
{_FENCE}python:Client-chat:remove
{_FENCE}

A replacement that starts with its own comment or decorator replaces the old ones;
without them the old ones are kept. Line-number mode (type:startline:endline) is
only used if a line-number block is provided first; an editing session cannot mix
output formats.
"""

INSTRUCTIONS_LINE_RANGE = f"""Line-number mode.
Put the file's path on its own line just before each code block. Code blocks must
include the line range in the format type:startline:endline, e.g.

src/app.js
{_FENCE}javascript:10:15
the output goes here
{_FENCE}

The range is inclusive of the start line and exclusive of the end line. Line numbers are 1-based.
`type:N` replaces the single line N; `type:N:N` inserts before line N. All line
numbers refer to the file as it was before your reply.
An editing session cannot mix output formats: AST path blocks are refused in this mode.
"""

INSTRUCTIONS_COMPLETE_FILE = f"""Complete-file mode.
Put the file's path on its own line just before each code block. Code blocks must
use a bare language tag and hold the complete new content of the file, e.g.

src/main.py
{_FENCE}python
import sys


def main():
    print("hello")
{_FENCE}

The block replaces the whole file, or creates it. Write every line of the file: a
block that leaves parts of the file out is not taken as the whole file. Blocks with
an AST path or a line range are refused in this mode.
"""

_TEXTS = {
    "ast_path": INSTRUCTIONS_AST,
    "line_numbers": INSTRUCTIONS_LINE_RANGE,
    "complete_file": INSTRUCTIONS_COMPLETE_FILE,
}


def instructions(mode: str = "ast_path") -> str:
    """The instructions text for `mode` (`auto` starts in AST path mode); ValueError
    for an unknown mode."""
    text = _TEXTS.get("ast_path" if mode == "auto" else mode)
    if text is None:
        raise ValueError("edit_mode must be one of: auto, ast_path, line_numbers, complete_file")
    return text
