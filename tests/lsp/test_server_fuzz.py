"""The stateful fuzz of the server (tests/lsp/fuzz.py): a fixed seed and a dozen
short runs of the real server over stdio (about 300 steps, well under a minute);
bench/fuzz_server.py runs it longer and prints what it finds, reduced."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.lsp.fuzz import ServerFuzz, real_replies

pytestmark = pytest.mark.timeout(600)

SEED = 20261127


def test_the_server_keeps_its_promises_whatever_the_editor_does() -> None:
    ServerFuzz.replies = real_replies(Path(__file__).resolve().parent)
    fuzz = seed(SEED)(type("SeededServerFuzz", (ServerFuzz,), {}))
    run_state_machine_as_test(
        fuzz,
        settings=settings(
            max_examples=12,
            stateful_step_count=25,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            # Reducing a failure takes minutes (a server per run): bench/fuzz_server.py does.
            phases=(Phase.explicit, Phase.generate),
        ),
    )
