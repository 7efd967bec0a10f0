"""The server's settings: `initializationOptions.lspEdit` and the `lspEdit` section
of `workspace/didChangeConfiguration`, checked with messages a user can act on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from lsp_edit.changes import EDIT_MODES

SEVERITIES = ("error", "warning", "information", "hint")
MODES = ("auto", *EDIT_MODES)


@dataclass(frozen=True)
class Settings:
    mode: str = "auto"
    reply_globs: tuple[str, ...] = ("**/*.llm.md",)
    pending_severity: str = "information"
    # Where blocks of a reply document that name no file go (a file URI, or a path in
    # the first workspace folder); None: the source document opened or edited last.
    uri: str | None = None


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
        if key == "mode":
            if raw in MODES:
                settings = replace(settings, mode=raw)
            else:
                problems.append(
                    f"lspEdit.mode must be one of {', '.join(MODES)}; got {_shown(raw)}."
                )
        elif key == "replyGlobs":
            if isinstance(raw, list | tuple) and all(isinstance(g, str) and g for g in raw):
                settings = replace(settings, reply_globs=tuple(raw))
            else:
                problems.append(
                    f"lspEdit.replyGlobs must be a list of glob patterns; got {_shown(raw)}."
                )
        elif key == "pendingSeverity":
            if raw in SEVERITIES:
                settings = replace(settings, pending_severity=raw)
            else:
                problems.append(
                    f"lspEdit.pendingSeverity must be one of {', '.join(SEVERITIES)}; "
                    f"got {_shown(raw)}."
                )
        elif key == "uri":
            if raw is None or (isinstance(raw, str) and raw):
                settings = replace(settings, uri=raw)
            else:
                problems.append(f"lspEdit.uri must be a file URI or a path; got {_shown(raw)}.")
        else:
            problems.append(
                f"Unknown setting lspEdit.{key}; the settings are mode, replyGlobs, "
                "pendingSeverity and uri."
            )
    return settings, problems


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
