"""Runs a command in a process of its own and reports what the kernel counted of it.

A command started straight from the bench would be charged with the bench's own
memory: Python starts a child with vfork, and Linux keeps the larger resident
size across exec, so every row would show the bench's size. Each command is
started instead by a small launcher, a Python without `site`: its report counts
what the command takes, or the few megabytes a command is charged for being
started by it where the command needs less (`floor_kb` measures them, by starting
`true`), and the wall time from starting the command to its exit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# argv: timeout (s), the file fed as stdin ("" for none), the command. Prints its
# exit status, wall time (ms), peak memory (KB), the last line of its output and of
# its errors, as JSON; kills it after the timeout.
_LAUNCHER = """
import json, os, subprocess, sys, threading, time
stdin = open(sys.argv[2], "rb") if sys.argv[2] else subprocess.DEVNULL
start = time.perf_counter()
child = subprocess.Popen(sys.argv[3:], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
timer = threading.Timer(float(sys.argv[1]), child.kill)
timer.start()
last = b""
for line in child.stdout:
    last = line
error = child.stderr.read()
_, status, usage = os.wait4(child.pid, 0)
elapsed = (time.perf_counter() - start) * 1000
timer.cancel()
print(json.dumps({
    "code": os.waitstatus_to_exitcode(status),
    "ms": elapsed,
    "kb": usage.ru_maxrss,
    "last": last.decode(errors="replace").strip(),
    "error": error.decode(errors="replace")[-300:],
}))
"""


@dataclass(frozen=True)
class Launched:
    """One run: exit status, wall time (ms), peak memory (KB), the last line of
    output and the end of the errors."""

    code: int
    ms: float
    kb: int
    last: str
    error: str


def launch(
    command: Sequence[str], *, timeout_s: float, stdin: Path | None = None, cwd: Path | None = None
) -> Launched:
    """Runs `command` (in `cwd`, fed the file `stdin`) through the launcher."""
    launched = subprocess.run(
        [sys.executable, "-S", "-c", _LAUNCHER, str(timeout_s), str(stdin or ""), *command],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    )
    return Launched(**json.loads(launched.stdout))


def floor_kb() -> int:
    """The peak memory counted for a command that needs next to none: what being
    started by the launcher costs."""
    return launch(["true"], timeout_s=10).kb
