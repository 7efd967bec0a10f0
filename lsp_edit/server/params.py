"""Reading command arguments: one JSON object each, checked field by field, with a
readable JSON-RPC error for anything wrong (the server never trusts a client)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams


def bad(message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message=message)


class Arguments:
    """The one object argument of a `lspEdit.*` command."""

    def __init__(self, command: str, raw: Sequence[Any], allowed: Sequence[str]) -> None:
        self.command = command
        if len(raw) == 0:
            self.values: Mapping[str, Any] = {}
        elif len(raw) == 1 and isinstance(raw[0], Mapping):
            self.values = raw[0]
        elif len(raw) == 1 and raw[0] == []:
            # Lua (Neovim) encodes an empty table as an empty array.
            self.values = {}
        else:
            raise bad(f"{command} takes one object argument, such as {{{_example(allowed)}}}.")
        unknown = sorted(set(self.values) - set(allowed))
        if unknown:
            raise bad(
                f"{command}: unknown argument {', '.join(unknown)}; it takes "
                f"{', '.join(allowed) or 'no arguments'}."
            )

    def text(self, name: str, *, required: bool = False) -> str | None:
        value = self.values.get(name)
        if value is None:
            if required:
                raise bad(f"{self.command} needs `{name}` (a string).")
            return None
        if not isinstance(value, str):
            raise bad(f"{self.command}: `{name}` must be a string, got {type(value).__name__}.")
        return value

    def required_text(self, name: str) -> str:
        value = self.text(name, required=True)
        assert value is not None
        return value

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.values.get(name, default)
        if not isinstance(value, bool):
            raise bad(f"{self.command}: `{name}` must be true or false.")
        return value

    def position(self, name: str) -> tuple[int, int] | None:
        value = self.values.get(name)
        if value is None:
            return None
        if (
            isinstance(value, Mapping)
            and _natural(value.get("line"))
            and _natural(value.get("character", 0))
        ):
            return int(value["line"]), int(value.get("character", 0))
        raise bad(f"{self.command}: `{name}` must be {{line, character}} with numbers >= 0.")

    def raw(self, name: str) -> Any:
        return self.values.get(name)


def _natural(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _example(allowed: Sequence[str]) -> str:
    return ", ".join(f'"{name}": ...' for name in allowed[:2])
