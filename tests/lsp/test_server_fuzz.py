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


@pytest.mark.xfail(
    strict=False,
    reason=(
        "issue 19's known store and rendering bugs, fixed on branch i19-store: ranges that "
        "end at column 0 of the line after a last line without a newline (item 10), the "
        "same reply proposed twice pending twice (9b), a code action's edit and its "
        "command inserting twice (9a), an accepted edit judged stale by the edit that "
        "applies it (4), restore bringing a failure back as pending (10), a failure's "
        "diagnostic left on its reply document after it is dismissed (4, 9c). Remove "
        "this mark once those are merged."
    ),
)
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
