"""Test settings shared by the whole suite."""

import os

from hypothesis import settings

# CI must not fail by chance: the same examples every run, and no per-example
# deadline on a loaded two-core machine. Local runs keep exploring new examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
