"""The server fuzz (tests/lsp/fuzz.py) run long: prints each distinct kind of
failure it finds, reduced by hypothesis to a short run, as the message sequence
that shows it.

    .venv/bin/python bench/fuzz_server.py --steps 10000 --seed 1
    .venv/bin/python bench/fuzz_server.py --steps 2000 --allow duplicate-pending

Each round runs the state machine until it fails or has made its share of steps;
a failure is reduced, printed, and its kind is then counted but no longer failed
on, so that the next round looks for the others. `--allow` starts with kinds known
already. Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.lsp.fuzz import Finding, ServerFuzz, real_replies


@dataclass(frozen=True)
class Found:
    kind: str
    message: str
    steps: str  # hypothesis' reduced run, as rule calls
    transcript: list[str]  # the messages of that run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps in all (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="the first round's seed")
    parser.add_argument("--length", type=int, default=40, help="steps per run (default 40)")
    parser.add_argument("--allow", default="", help="kinds counted, not failed on (a,b)")
    parser.add_argument("--no-shrink", action="store_true", help="report runs unreduced")
    args = parser.parse_args(argv)

    ServerFuzz.replies = real_replies(Path(__file__).resolve().parent)
    ServerFuzz.allowed = frozenset(k for k in args.allow.split(",") if k)
    print(f"real replies: {len(ServerFuzz.replies)} transcripts", flush=True)
    found: list[Found] = []
    done, round_seed, started = 0, args.seed, time.monotonic()
    while done < args.steps:
        examples = max(1, (args.steps - done) // args.length)
        before = ServerFuzz.steps
        result = run_round(round_seed, examples, args.length, shrink=not args.no_shrink)
        done += max(ServerFuzz.steps - before, 1)
        round_seed += 1
        if result is None:
            continue  # a clean round may end short of its steps: the next seed goes on
        found.append(result)
        print(report(result), flush=True)
        ServerFuzz.allowed |= {result.kind}
    minutes = (time.monotonic() - started) / 60
    print(f"\n{done} steps in {minutes:.1f} min; {len(found)} kinds of failure found:")
    for item in found:
        print(f"  {item.kind}: {item.message.splitlines()[0][:160]}")
    for kind, count in sorted(ServerFuzz.allowed_seen.items()):
        print(f"  (allowed) {kind}: seen {count} times")
    return 1 if found else 0


def run_round(round_seed: int, examples: int, length: int, *, shrink: bool) -> Found | None:
    phases = (Phase.generate, Phase.shrink) if shrink else (Phase.generate,)

    fuzz = seed(round_seed)(type("ServerFuzzRound", (ServerFuzz,), {}))
    try:
        run_state_machine_as_test(
            fuzz,
            settings=settings(
                max_examples=examples,
                stateful_step_count=length,
                deadline=None,
                database=None,
                phases=phases,
                suppress_health_check=list(HealthCheck),
                print_blob=False,
            ),
        )
    except Finding as finding:
        notes = getattr(finding, "__notes__", [])
        return Found(finding.kind, str(finding), "\n".join(notes), list(ServerFuzz.transcript))
    except Exception as error:  # the harness itself: shown as it is
        notes = "\n".join(getattr(error, "__notes__", []))
        return Found("harness", traceback.format_exc(), notes, list(ServerFuzz.transcript))
    return None


def report(found: Found) -> str:
    lines = [
        "",
        "=" * 100,
        f"[{found.kind}] {found.message}",
        "-" * 40 + " the reduced run (hypothesis)",
        found.steps,
        "-" * 40 + " its messages (> editor to server, < server to editor, # setup)",
        *found.transcript,
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
