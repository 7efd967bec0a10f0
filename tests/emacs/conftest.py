"""The Emacs fixture of test_emacs.py, for the other test modules here."""

from tests.emacs.test_emacs import emacs  # noqa: F401
