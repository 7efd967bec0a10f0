"""The Neovim fixtures of test_neovim.py, for the other test modules here."""

from tests.nvim.test_neovim import nvim, project  # noqa: F401
