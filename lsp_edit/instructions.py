"""The instructions text an LLM's system prompt carries, one per edit mode.

`lsp-edit instructions --mode M` and the `lspEdit.instructions` command print
these. AST path mode is the default; line-number mode is only used when the
first block of a reply is a line-number block.
"""

from __future__ import annotations

MODES = ("ast_path", "line_numbers", "complete_file")

_FENCE = "```"

INSTRUCTIONS_AST = f"""Default mode: AST path.
Code blocks must include AST path in format type:Namespace-Class-Method e.g.
Any other format will be ignored.

{_FENCE}python:Client-chat
def chat(self, message):
    # new implementation
    return self.send(message)
{_FENCE}

The path is the names of the enclosing definitions joined by `-`, outermost first
(`Outer-Inner-method`, `module_function`; Go methods under their receiver type,
Rust methods under their impl type, C++ out-of-class definitions under their class).

AST path operations:
- Default (no suffix) = replace target
- `:before` = insert before target
- `:after` = insert after target
- `:remove` = remove target

Example (before):
{_FENCE}python:Client-chat:before
def connect(self):
    # inserted before chat()
    pass
{_FENCE}

Example (after):
{_FENCE}python:Client-chat:after
def close(self):
    # inserted after chat()
    pass
{_FENCE}

Example (remove):
{_FENCE}python:Client-chat:remove
{_FENCE}

A replacement that starts with its own comment or decorator replaces the old ones;
without them the old ones are kept. Line-number mode (type:startline:endline) is
only used if a line-number block is provided first; an editing session cannot mix
output formats.
"""

INSTRUCTIONS_LINE_RANGE = f"""Line-number mode.
Code blocks must include line range in format type:startline:endline e.g.,

{_FENCE}javascript:10:15
the output goes here
{_FENCE}

The range is inclusive of the start line and exclusive of the end line. Line numbers are 1-based.
`type:N` replaces the single line N; `type:N:N` inserts before line N.
An editing session cannot mix output formats: AST path blocks are refused in this mode.
"""

INSTRUCTIONS_COMPLETE_FILE = f"""Complete-file mode.
Code blocks must use a bare language tag and hold the complete new content of the
file, e.g.

{_FENCE}python
import sys


def main():
    print("hello")
{_FENCE}

Put the file's path on the line just before the block. The block replaces the whole
file, or creates it. Blocks with an AST path or a line range are refused in this mode.
"""

_TEXTS = {
    "ast_path": INSTRUCTIONS_AST,
    "line_numbers": INSTRUCTIONS_LINE_RANGE,
    "complete_file": INSTRUCTIONS_COMPLETE_FILE,
}


def instructions(mode: str = "ast_path") -> str:
    """The instructions text for `mode`; ValueError for an unknown mode."""
    text = _TEXTS.get(mode)
    if text is None:
        raise ValueError("edit_mode must be one of: ast_path, line_numbers, complete_file")
    return text
