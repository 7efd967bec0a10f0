"""Replies built to break a parser, about 15 MB each: read by `parse_reply` alone and
by a whole `lsp-edit apply --dry-run` process against a one-file workspace.

Each run is a process of its own, started by a small launcher that reads the
kernel's count of the process's peak memory (a process started straight from the
bench would be charged with the bench's own memory). The parse time is measured
inside the process (reading the file and starting Python left out); the apply time
is the whole process. Targets: under 2 s and under 200 MB each.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SIZE = 15_000_000
TARGET_MS = 2000
TARGET_MB = 200
TIMEOUT_S = 120

_PARSE = """
import sys, time
from lsp_edit.blocks import parse_reply
text = open(sys.argv[1], encoding="utf-8").read()
start = time.perf_counter()
parse_reply(text)
print((time.perf_counter() - start) * 1000)
"""


@dataclass(frozen=True)
class Measure:
    """Runs of one command: times (ms), peak memory (KB), and whether one failed or
    ran out of time."""

    samples: list[float]
    peak_kb: int
    failure: str | None = None

    def cell(self) -> str:
        if self.failure is not None:
            return self.failure
        median = statistics.median(self.samples)
        return f"{median / 1000:.2f} s / {max(self.samples) / 1000:.2f} s / {self.mb:.0f} MB"

    @property
    def mb(self) -> float:
        return self.peak_kb / 1024

    @property
    def met(self) -> bool:
        return self.failure is None and max(self.samples) < TARGET_MS and self.mb < TARGET_MB


def _repeat(unit: str, size: int) -> str:
    return unit * (size // len(unit))


def replies(size: int = SIZE) -> dict[str, str]:
    """The replies by what they hold, each about `size` bytes."""
    block = "f.txt\n<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>> REPLACE\n"
    tiny = size // 15
    return {
        "unclosed fences, each opened inside the one before": _repeat(
            "```python\nvalue = 1\n", size
        ),
        "unclosed fences, each with an AST path (each one reported)": _repeat(
            "```python:Service-run\nvalue = 1\n", size
        ),
        f"{tiny:,} tiny blocks (fences that name no file)": "".join(
            f"```\n{n % 1_000_000:06d}\n```\n" for n in range(tiny)
        ),
        "one line of the whole size, then a SEARCH/REPLACE block": "x" * size + "\n" + block,
        "a SEARCH/REPLACE block whose SEARCH half is one line of the whole size": (
            f"f.txt\n<<<<<<< SEARCH\n{'y' * size}\n=======\nB\n>>>>>>> REPLACE\n"
        ),
    }


def _run(command: list[str], runs: int, *, parse: bool) -> Measure:
    from bench.launcher import launch

    samples: list[float] = []
    peak = 0
    for _ in range(runs):
        result = launch(command, timeout_s=TIMEOUT_S)
        if result.ms >= TIMEOUT_S * 1000:
            return Measure(samples, peak, f"over {TIMEOUT_S} s")
        if result.code not in (0, 1):
            return Measure(samples, peak, f"exit status {result.code}")
        samples.append(float(result.last) if parse else result.ms)
        peak = max(peak, result.kb)
    return Measure(samples, peak)


def rows(runs: int, size: int = SIZE) -> list[tuple[str, int, Measure, Measure]]:
    """Per reply: its name, its size in bytes, parsing it, applying it."""
    program = str(Path(sys.executable).parent / "lsp-edit")
    measured = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "workspace"
        root.mkdir()
        (root / "f.txt").write_text("a\nb\nc\n")
        path = Path(folder) / "reply.md"
        for name, reply in replies(size).items():
            path.write_text(reply, encoding="utf-8")
            parse = _run([sys.executable, "-c", _PARSE, str(path)], runs, parse=True)
            apply = _run(
                [program, "apply", str(path), "--root", str(root), "--dry-run"], runs, parse=False
            )
            measured.append((name, len(reply.encode()), parse, apply))
    return measured


def section(runs: int = 3, size: int = SIZE, missed: list[str] | None = None) -> list[str]:
    """The table; `missed` gets a line per reply that misses a target."""
    lines = [
        "| reply | size | parse: median / p95 / peak | `apply --dry-run`: median / p95 / peak |",
        "|---|---:|---:|---:|",
    ]
    for name, size_bytes, parse, apply in rows(runs, size):
        lines.append(f"| {name} | {size_bytes / 1e6:.1f} MB | {parse.cell()} | {apply.cell()} |")
        for what, measure in (("parsing", parse), ("`apply --dry-run`", apply)):
            if missed is not None and not measure.met:
                missed.append(f"{name}: {what} takes {measure.cell()}")
    return lines


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    print("\n".join(section(1, int(float(sys.argv[1]) * 1e6) if len(sys.argv) > 1 else SIZE)))
