"""The server's settings: `initializationOptions.lspEdit` and the `lspEdit` section
of `workspace/didChangeConfiguration`, checked with messages a user can act on."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from lsp_edit.changes import EDIT_MODES
from lsp_edit.values import field, replace, value

SEVERITIES = ("error", "warning", "information", "hint")
MODES = ("auto", *EDIT_MODES)
APIS = ("openai", "ollama", "vscode")  # lsp_edit.providers.APIS, without loading the providers


@value
class LlmSettings:
    """The model `lspEdit.ask` asks (`lspEdit.llm`, docs/ask.md). The API key is
    never a setting: `api_key_env` names the environment variable that holds it."""

    api: str = "openai"
    base_url: str | None = None  # None: the api's default (lsp_edit.providers)
    model: str | None = None
    api_key_env: str | None = None
    timeout: float = 60.0
    max_context_files: int = 8


@value
class Settings:
    mode: str = "auto"
    reply_globs: tuple[str, ...] = ("**/*.llm.md",)
    pending_severity: str = "information"
    # Where blocks of a reply document that name no file go (a file URI, or a path in
    # the first workspace folder); None: the source document opened or edited last.
    uri: str | None = None
    llm: LlmSettings = field(default_factory=LlmSettings)
    # After a turn of lspEdit.ask whose blocks failed, send the summary back once.
    retry_failed: bool = False


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
    "retryFailed": ("retry_failed", lambda raw: isinstance(raw, bool), "true or false"),
}


def _is_number(raw: object) -> bool:
    return isinstance(raw, int | float) and not isinstance(raw, bool) and raw > 0


def _is_count(raw: object) -> bool:
    return isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0


_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# The `lspEdit.llm` settings, read as `llm: {...}` or as dotted names (`llm.model`).
_LLM_SETTINGS: dict[str, tuple[str, Callable[[object], bool], str]] = {
    "api": ("api", lambda raw: raw in APIS, f"one of {', '.join(APIS)}"),
    "baseUrl": (
        "base_url",
        lambda raw: (
            raw is None or (isinstance(raw, str) and raw.startswith(("http://", "https://")))
        ),
        "an http:// or https:// URL",
    ),
    "model": (
        "model",
        lambda raw: raw is None or (isinstance(raw, str) and bool(raw.strip())),
        "a model name",
    ),
    "apiKeyEnv": (
        "api_key_env",
        lambda raw: (
            raw is None
            or raw == ""
            or (isinstance(raw, str) and _VARIABLE.fullmatch(raw) is not None)
        ),
        "the name of an environment variable (such as OPENAI_API_KEY), not the key itself",
    ),
    "timeout": ("timeout", _is_number, "a number of seconds above 0"),
    "maxContextFiles": ("max_context_files", _is_count, "a whole number, 0 or more"),
}
# Values never repeated in a message: a key pasted where its variable's name goes.
_SECRET = {"apiKeyEnv"}


def setting_names() -> list[str]:
    """The names of the settings the server reads, as a client writes them."""
    return list(_SETTINGS) + [f"llm.{name}" for name in _LLM_SETTINGS]


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
        if key == "llm" or key.startswith("llm."):
            llm, found = _read_llm(key, raw, settings.llm)
            settings = replace(settings, llm=llm)
            problems += found
            continue
        known = _SETTINGS.get(key)
        if known is None:
            names = ", ".join(setting_names())
            problems.append(f"Unknown setting lspEdit.{key}; the settings are {names}.")
            continue
        field, valid, must_be = known
        if not valid(raw):
            problems.append(f"lspEdit.{key} must be {must_be}; got {_shown(raw)}.")
            continue
        taken: Any = tuple(raw) if isinstance(raw, list) else raw
        settings = replace(settings, **{field: taken})
    return settings, problems


def _read_llm(key: str, raw: object, current: LlmSettings) -> tuple[LlmSettings, list[str]]:
    """`llm: {...}`, or one `llm.name`, on top of `current`."""
    if key == "llm":
        if raw is None:
            return current, []
        if not isinstance(raw, Mapping):
            return current, [f"lspEdit.llm must be an object, got {_shown(raw)}."]
        given = list(raw.items())
    else:
        given = [(key.removeprefix("llm."), raw)]
    settings = current
    problems: list[str] = []
    for name, item in given:
        known = _LLM_SETTINGS.get(name)
        if known is None:
            if name.lower() in ("apikey", "api_key", "key", "token"):
                problems.append(
                    f"lspEdit.llm.{name} is not read: lsp-edit never takes a key in its "
                    "settings. Put the key in an environment variable and name that "
                    "variable in lspEdit.llm.apiKeyEnv."
                )
                continue
            names = ", ".join(f"llm.{n}" for n in _LLM_SETTINGS)
            problems.append(f"Unknown setting lspEdit.llm.{name}; the llm settings are {names}.")
            continue
        field_name, valid, must_be = known
        if not valid(item):
            shown = "" if name in _SECRET else f"; got {_shown(item)}"
            problems.append(f"lspEdit.llm.{name} must be {must_be}{shown}.")
            continue
        taken = item or None if field_name == "api_key_env" else item
        settings = replace(settings, **{field_name: taken})
    return settings, problems


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
