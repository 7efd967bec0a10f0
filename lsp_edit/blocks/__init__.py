"""Parsing LLM replies into edit blocks (see docs/formats.md for every format).

`parse_reply` reads a whole reply, `ReplyStream` the same reply as it streams
in (both give identical items), `parse_operations` JSON operations given
directly, and `parse_fence_tag` one fence info string.
"""

from lsp_edit.blocks.fence import TagError, parse_fence_tag
from lsp_edit.blocks.model import ReplyItem
from lsp_edit.blocks.operations import parse_operations
from lsp_edit.blocks.stream import ReplyStream, parse_reply

__all__ = [
    "ReplyItem",
    "ReplyStream",
    "TagError",
    "parse_fence_tag",
    "parse_operations",
    "parse_reply",
]
