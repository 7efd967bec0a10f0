"""lsp-edit: places the edit blocks a coding LLM writes, exactly or not at all."""

VERSION = "0.1.0"
