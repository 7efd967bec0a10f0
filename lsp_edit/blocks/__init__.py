"""Parsing LLM replies into edit blocks (see docs/formats.md for every format).

`parse_reply` reads a whole reply, `ReplyStream` the same reply as it streams
in (both give identical items), `parse_operations` JSON operations given
directly, and `parse_fence_tag` one fence info string.
"""

from lsp_edit.blocks.fence import TagError, parse_fence_tag
from lsp_edit.blocks.model import ReplyItem
from lsp_edit.blocks.stream import ReplyStream, parse_reply

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from lsp_edit.blocks.operations import parse_operations


def __getattr__(name: str) -> object:
    """`parse_operations`, imported when first asked for: `lsp-edit apply` reads a
    reply, and most replies hold no JSON operations."""
    if name == "parse_operations":
        from lsp_edit.blocks.operations import parse_operations

        return parse_operations
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ReplyItem",
    "ReplyStream",
    "TagError",
    "parse_fence_tag",
    "parse_operations",
    "parse_reply",
]
