"""The server's settings: `initializationOptions.lspEdit` and the `lspEdit` section
of `workspace/didChangeConfiguration`, checked with messages a user can act on."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lsp_edit.changes import EDIT_MODES
from lsp_edit.values import replace, value

SEVERITIES = ("error", "warning", "information", "hint")
MODES = ("auto", *EDIT_MODES)


@value
class Settings:
    mode: str = "auto"
    reply_globs: tuple[str, ...] = ("**/*.llm.md",)
    pending_severity: str = "information"
    # Where blocks of a reply document that name no file go (a file URI, or a path in
    # the first workspace folder); None: the source document opened or edited last.
    uri: str | None = None


def _is_globs(raw: object) -> bool:
    return isinstance(raw, list | tuple) and all(isinstance(g, str) and g for g in raw)


# Per setting: its field, whether a value is valid, and what it must be.
_SETTINGS: dict[str, tuple[str, Callable[[object], bool], str]] = {
    "mode": ("mode", lambda raw: raw in MODES, f"one of {', '.join(MODES)}"),
    "replyGlobs": ("reply_globs", _is_globs, "a list of glob patterns"),
    "pendingSeverity": (
        "pending_severity",
        lambda raw: raw in SEVERITIES,
        f"one of {', '.join(SEVERITIES)}",
    ),
    "uri": (
        "uri",
        lambda raw: raw is None or (isinstance(raw, str) and bool(raw)),
        "a file URI or a path",
    ),
}


def setting_names() -> list[str]:
    """The names of the settings the server reads, as a client writes them."""
    return list(_SETTINGS)


def read_settings(value: object, current: Settings) -> tuple[Settings, list[str]]:
    """The settings `value` gives on top of `current`, and a message for each value
    that was not taken (the current one is kept for it)."""
    if value is None:
        return current, []
    if not isinstance(value, Mapping):
        return current, [f"lspEdit settings must be an object, got {_shown(value)}."]
    settings = current
    problems: list[str] = []
    for key, raw in value.items():
        known = _SETTINGS.get(key)
        if known is None:
            names = ", ".join(_SETTINGS)
            problems.append(f"Unknown setting lspEdit.{key}; the settings are {names}.")
            continue
        field, valid, must_be = known
        if not valid(raw):
            problems.append(f"lspEdit.{key} must be {must_be}; got {_shown(raw)}.")
            continue
        taken: Any = tuple(raw) if isinstance(raw, list) else raw
        settings = replace(settings, **{field: taken})
    return settings, problems


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
