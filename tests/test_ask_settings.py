"""The lspEdit.llm settings and retryFailed: read as VS Code sends them (an `llm`
object) or dotted, each wrong value refused with a message the user can act on, and
an API key never taken, nor repeated in a message."""

from __future__ import annotations

from lsp_edit.server.settings import LlmSettings, Settings, read_settings, setting_names


def test_the_llm_settings_are_read_as_an_object_or_dotted() -> None:
    settings, problems = read_settings(
        {
            "llm": {"api": "ollama", "baseUrl": "http://127.0.0.1:11434", "timeout": 30},
            "llm.model": "qwen2.5-coder:7b",
            "llm.maxContextFiles": 3,
            "retryFailed": True,
        },
        Settings(),
    )
    assert problems == []
    assert settings.llm == LlmSettings(
        api="ollama",
        base_url="http://127.0.0.1:11434",
        model="qwen2.5-coder:7b",
        timeout=30,
        max_context_files=3,
    )
    assert settings.retry_failed is True


def test_a_wrong_value_is_refused_and_the_rest_taken() -> None:
    settings, problems = read_settings(
        {"llm": {"api": "anthropic", "baseUrl": "localhost:8080", "timeout": 0, "model": "m"}},
        Settings(),
    )
    assert problems == [
        "lspEdit.llm.api must be one of openai, ollama, vscode; got 'anthropic'.",
        "lspEdit.llm.baseUrl must be an http:// or https:// URL; got 'localhost:8080'.",
        "lspEdit.llm.timeout must be a number of seconds above 0; got 0.",
    ]
    assert settings.llm == LlmSettings(model="m")


def test_a_key_pasted_for_its_variables_name_is_refused_and_not_repeated() -> None:
    key = "sk-proj-4f9a8b7c6d5e"
    settings, problems = read_settings({"llm": {"apiKeyEnv": key}}, Settings())
    assert settings.llm.api_key_env is None
    assert problems == [
        "lspEdit.llm.apiKeyEnv must be the name of an environment variable (such as "
        "OPENAI_API_KEY), not the key itself."
    ]


def test_a_key_given_as_a_setting_is_never_taken() -> None:
    settings, problems = read_settings({"llm": {"apiKey": "sk-proj-4f9a8b7c6d5e"}}, Settings())
    assert settings == Settings()
    assert problems == [
        "lspEdit.llm.apiKey is not read: lsp-edit never takes a key in its settings. Put the "
        "key in an environment variable and name that variable in lspEdit.llm.apiKeyEnv."
    ]
    assert "sk-proj" not in " ".join(problems)


def test_every_llm_setting_is_named_for_the_docs() -> None:
    assert [n for n in setting_names() if n.startswith("llm.") or n == "retryFailed"] == [
        "retryFailed",
        "llm.api",
        "llm.baseUrl",
        "llm.model",
        "llm.apiKeyEnv",
        "llm.timeout",
        "llm.maxContextFiles",
    ]
