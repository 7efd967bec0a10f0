"""`lsp-edit apply` as an agent runs it: a whole process per reply, against the
native tools that apply the same edits, run side by side in the same run.

Peers, each skipped with a note when this machine lacks it: GNU `patch` and
`git apply` (the edits as one unified diff), and codex's `apply_patch` (the edits
as one V4A patch). codex comes from the npm package `@openai/codex`, which the
bench installs into `.cache/bench-peers` the first time (`LSP_EDIT_BENCH_CODEX`
names another codex binary; `apply_patch` or `codex` on PATH are used too).

The package's bytecode is compiled first, as installing it leaves it.
"""

from __future__ import annotations

import compileall
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODEX_VERSION = "0.169.0"
PEERS = ROOT / ".cache" / "bench-peers"
# What `lsp-edit apply` imports to apply a reply (`lsp_edit.cli` imports it where it is
# used, after turning garbage collection off, as here), and the process then ends as
# `lsp-edit apply` ends, without freeing every module one by one.
IMPORT_ENGINE = (
    "import gc; gc.disable(); import lsp_edit.cli, lsp_edit.changes, lsp_edit.workspace, "
    "lsp_edit.blocks; import os; os._exit(0)"
)
ENGINE_ROW = "Python importing the engine (`lsp_edit.changes`, `.workspace`, `.blocks`)"


@dataclass(frozen=True)
class Row:
    name: str
    samples: list[float]
    peak_kb: int | None = None


@dataclass(frozen=True)
class Edit:
    """One line changed: its 0-based index, with the line above as context."""

    line: int
    before: str
    above: str
    after: str


def python_file(lines: int) -> list[str]:
    """A Python module of `lines` lines, every line distinct."""
    out: list[str] = []
    n = 0
    while len(out) < lines:
        n += 1
        out += [f"def function_{n}(value):", f"    total = value * {n}", "    return total", ""]
    return out[:lines]


def edits_for(lines: Sequence[str], count: int, seed: int = 11) -> list[Edit]:
    rng = random.Random(seed)
    targets = [i for i, line in enumerate(lines) if line.startswith("    total = ")]
    return [
        Edit(i, lines[i], lines[i - 1], lines[i] + " + 1")
        for i in sorted(rng.sample(targets, count))
    ]


def search_replace_reply(path: str, lines: Sequence[str], edits: Sequence[Edit]) -> str:
    """Each edit as a three-line SEARCH/REPLACE block (the lines above and below
    as context), with a sentence before it as LLMs write them."""
    parts = []
    for edit in edits:
        below = lines[edit.line + 1]
        parts.append(
            f"Now the total of line {edit.line + 1}.\n\n{path}\n<<<<<<< SEARCH\n"
            f"{edit.above}\n{edit.before}\n{below}\n=======\n"
            f"{edit.above}\n{edit.after}\n{below}\n>>>>>>> REPLACE\n\n"
        )
    return "".join(parts)


def unified_diff(path: str, lines: Sequence[str], edits: Sequence[Edit]) -> str:
    """The edits as one unified diff with one line of context each side."""
    out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
    for edit in edits:
        start = edit.line - 1
        below = lines[edit.line + 1]
        out.append(f"@@ -{start + 1},3 +{start + 1},3 @@\n")
        out += [f" {edit.above}\n", f"-{edit.before}\n", f"+{edit.after}\n", f" {below}\n"]
    return "".join(out)


def v4a_patch(path: str, lines: Sequence[str], edits: Sequence[Edit]) -> str:
    """The edits as one V4A patch (codex's apply_patch format)."""
    out = ["*** Begin Patch\n", f"*** Update File: {path}\n"]
    for edit in edits:
        below = lines[edit.line + 1]
        out += ["@@\n", f" {edit.above}\n", f"-{edit.before}\n", f"+{edit.after}\n", f" {below}\n"]
    out.append("*** End Patch\n")
    return "".join(out)


def run_once(
    command: Sequence[str], folder: Path, stdin: bytes, ok: tuple[int, ...] = (0,)
) -> tuple[float, int]:
    """Wall time (ms) of one process run in `folder` fed `stdin`, and its peak
    resident memory (KB) from the kernel's accounting (bench/launcher.py)."""
    from bench.launcher import launch

    fed = folder.parent / (folder.name + ".stdin")
    fed.write_bytes(stdin)
    try:
        result = launch(command, timeout_s=120, stdin=fed, cwd=folder)
    finally:
        fed.unlink()
    if result.code not in ok:
        raise RuntimeError(f"{command[0]} failed ({result.code}): {result.error}")
    return result.ms, result.kb


@dataclass(frozen=True)
class Process:
    """One row's process: what it runs, fed what, and the exit codes that mean it worked."""

    name: str
    command: Sequence[str]
    stdin: bytes = b""
    ok: tuple[int, ...] = (0,)


def measure(processes: Sequence[Process], prepare: Callable[[Path], None], runs: int) -> list[Row]:
    """`runs` runs of each process, each in a folder of its own that `prepare` fills
    afresh before every run. The runs are interleaved, a round of every process at a
    time, so that the machine's speed drifting (it does, by half, within minutes on a
    shared host) moves every row alike and the rows compare."""
    samples: list[list[float]] = [[] for _ in processes]
    peaks = [0 for _ in processes]
    with tempfile.TemporaryDirectory() as folder_name:
        folders = [
            Path(folder_name) / f"workspace-{n}" / "workspace" for n in range(len(processes))
        ]
        for folder in folders:
            folder.mkdir(parents=True)
        for _ in range(runs):
            for n, (process, folder) in enumerate(zip(processes, folders, strict=True)):
                prepare(folder)
                elapsed, memory = run_once(process.command, folder, process.stdin, process.ok)
                samples[n].append(elapsed)
                peaks[n] = max(peaks[n], memory)
    return [
        Row(process.name, taken, peak)
        for process, taken, peak in zip(processes, samples, peaks, strict=True)
    ]


def installed_codex() -> Path | None:
    """The codex binary the bench installed, installing it when npm can."""
    binaries = sorted(PEERS.glob("node_modules/@openai/codex-*/vendor/*/bin/codex"))
    if not binaries and shutil.which("npm"):
        subprocess.run(
            ["npm", "install", "--prefix", str(PEERS), f"@openai/codex@{CODEX_VERSION}"],
            capture_output=True,
            check=False,
            timeout=600,
        )
        binaries = sorted(PEERS.glob("node_modules/@openai/codex-*/vendor/*/bin/codex"))
    return binaries[0] if binaries else None


def codex_command() -> list[str] | None:
    """How to run codex's apply_patch here, or None."""
    named = os.environ.get("LSP_EDIT_BENCH_CODEX")
    if named:
        return [named, "--codex-run-as-apply-patch"]
    found = shutil.which("apply_patch")
    if found:
        return [found]
    codex = shutil.which("codex") or installed_codex()
    return [str(codex), "--codex-run-as-apply-patch"] if codex else None


def rows(runs: int = 15, lines: int = 20_000, count: int = 200) -> tuple[list[Row], list[str]]:
    """The measured rows, and a note per peer that could not run."""
    compileall.compile_dir(ROOT / "lsp_edit", quiet=1)
    source = python_file(lines)
    text = "\n".join(source) + "\n"
    edits = edits_for(source, count)
    one = edits[:1]
    path = "big.py"

    def prepare(folder: Path) -> None:
        (folder / path).write_text(text)

    python = sys.executable
    apply = [str(Path(python).parent / "lsp-edit"), "apply", "-", "--root", "."]
    diff = unified_diff(path, source, edits).encode()
    patch_text = v4a_patch(path, source, edits)
    processes = [
        Process("Python starting and exiting", [python, "-c", "pass"]),
        Process("Python starting and exiting, without `site` (`-S`)", [python, "-S", "-c", "pass"]),
        Process(ENGINE_ROW, [python, "-c", IMPORT_ENGINE]),
        Process(
            f"lsp-edit apply: {count} SEARCH/REPLACE blocks",
            apply,
            search_replace_reply(path, source, edits).encode(),
        ),
        Process(
            f"lsp-edit apply --dry-run --diff: the {count} SEARCH/REPLACE blocks, printed "
            "as a diff",
            [*apply, "--dry-run", "--diff"],
            search_replace_reply(path, source, edits).encode(),
        ),
        Process(f"lsp-edit apply: {count} hunks as one unified diff", apply, diff),
        Process(f"lsp-edit apply: {count} edits as one V4A patch", apply, patch_text.encode()),
        Process(
            "lsp-edit apply: one SEARCH/REPLACE block",
            apply,
            search_replace_reply(path, source, one).encode(),
        ),
        Process(
            "lsp-edit apply: a reply with no edit block",
            apply,
            b"Nothing to change here.\n",
            ok=(1,),
        ),
    ]
    notes = []
    if shutil.which("patch"):
        processes.append(Process(f"GNU patch: the {count}-hunk diff", ["patch", "-s", "-p1"], diff))
    else:
        notes.append("GNU patch is not installed here.")
    if shutil.which("git"):
        processes.append(Process(f"git apply: the {count}-hunk diff", ["git", "apply", "-"], diff))
    else:
        notes.append("git is not installed here.")
    codex = codex_command()
    if codex is None:
        notes.append(
            f"codex's apply_patch could not be installed here (npm package "
            f"`@openai/codex@{CODEX_VERSION}`; or name a codex binary in LSP_EDIT_BENCH_CODEX)."
        )
    else:
        processes.append(
            Process(f"codex apply_patch: the {count} edits as one V4A patch", [*codex, patch_text])
        )
    out = measure(processes, prepare, runs)
    return out, notes


def import_split(runs: int) -> tuple[float, float, list[str]]:
    """Where importing the engine spends its time, from `python -X importtime`
    (medians of `runs`): in the engine's own modules (ms), in the Python modules it
    imports that the start of Python had not (ms), and the largest of those, by name."""
    engine: list[float] = []
    python: list[float] = []
    by_package: dict[str, list[float]] = {}
    for _ in range(runs):
        report = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", IMPORT_ENGINE],
            capture_output=True,
            text=True,
            check=True,
        ).stderr.splitlines()
        # What Python imports to start is reported first, ending with `site`.
        start = max(i for i, line in enumerate(report) if line.endswith("| site"))
        own = others = 0.0
        packages: dict[str, float] = {}
        for line in report[start + 1 :]:
            _, self_us, _, name = (part.strip() for part in line.replace(":", "|", 1).split("|"))
            if name.split(".")[0] == "lsp_edit":
                own += int(self_us) / 1000
            else:
                others += int(self_us) / 1000
                package = name.split(".")[0].lstrip("_")
                packages[package] = packages.get(package, 0.0) + int(self_us) / 1000
        engine.append(own)
        python.append(others)
        for package, ms in packages.items():
            by_package.setdefault(package, []).append(ms)
    largest = sorted(by_package, key=lambda name: -statistics.median(by_package[name]))
    return statistics.median(engine), statistics.median(python), largest[:2]


def median(row: Row) -> float:
    return statistics.median(row.samples)


def p95(row: Row) -> float:
    ordered = sorted(row.samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def section(runs: int = 15, measured_by_name: dict[str, list[float]] | None = None) -> list[str]:
    """The rows as a Markdown table, and the targets met or missed (`measured_by_name`
    gets each row's median, keyed `process:<row>`)."""
    measured, notes = rows(runs)
    by_name = {row.name: row for row in measured}
    if measured_by_name is not None:
        for row in measured:
            measured_by_name["process:" + row.name] = [median(row)]
        engine, python, largest = import_split(runs)
        measured_by_name["process:import:engine"] = [engine]
        measured_by_name["process:import:python"] = [python]
        for name in largest:
            measured_by_name["process:import:python:" + name] = []
    lines = [
        "| process | median | p95 | peak memory |",
        "|---|---:|---:|---:|",
    ]
    for row in measured:
        lines.append(
            f"| {row.name} | {median(row):.1f} ms | {p95(row):.1f} ms | "
            f"{(row.peak_kb or 0) / 1024:.0f} MB |"
        )
    from bench.launcher import floor_kb

    floor = floor_kb() / 1024
    lines += [
        "",
        f"A process started by the launcher is counted {floor:.0f} MB when it needs less",
        "(`true` is).",
        "",
    ]
    many = by_name["lsp-edit apply: 200 SEARCH/REPLACE blocks"]
    single = by_name["lsp-edit apply: one SEARCH/REPLACE block"]
    codex = next((row for row in measured if row.name.startswith("codex")), None)
    patch = next((row for row in measured if row.name.startswith("GNU patch")), None)
    if codex is not None:
        ratio = median(many) / median(codex)
        verdict = "met" if ratio <= 2 else "**missed**"
        lines.append(
            f"- 200 blocks against codex's apply_patch: {ratio:.1f}x (target within 2x: {verdict})."
        )
    elif patch is not None:
        lines.append(
            f"- 200 blocks against GNU patch (codex absent): {median(many) / median(patch):.1f}x."
        )
    verdict = "met" if median(single) < 30 else "**missed**"
    lines.append(
        f"- One block, whole process: {median(single):.1f} ms (target under 30 ms: {verdict})."
    )
    lines += [f"- {note}" for note in notes]
    return lines


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print("\n".join(section(int(sys.argv[1]) if len(sys.argv) > 1 else 15)))
