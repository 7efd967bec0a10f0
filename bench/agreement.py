"""How often lsp-edit ends where the peers' own test suites say it should; writes
docs/agreement.md.

    .venv/bin/python bench/agreement.py PEER_RUNNER [--transcripts REPORT]

PEER_RUNNER is `run_peer_suites.py` of the real-world checks (cases taken from the
test suites of codex apply-patch, aider, cline, Roo-Code, continue and zed; they
are not part of this repository). It runs them against `.venv/bin/lsp-edit` and
copies its per-suite table. REPORT, optionally, is the folder the aider transcript
runner (`run_llm_replies.py --out REPORT`) wrote: its summary is copied too.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "agreement.md"
COLUMNS = ("cases", "agree", "refused", "applied", "differs", "crash", "skipped")


def peer_table(runner: Path) -> list[tuple[str, list[int]]]:
    """The runner's rows: suite name and its counts (TOTAL last)."""
    done = subprocess.run(
        [sys.executable, str(runner), "--lsp-edit", str(ROOT / ".venv" / "bin" / "lsp-edit")],
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    rows: list[tuple[str, list[int]]] = []
    for line in done.stdout.splitlines():
        if line.startswith("variant-"):
            break
        words = line.split()
        if len(words) == 1 + len(COLUMNS) and all(word.isdigit() for word in words[1:]):
            rows.append((words[0], [int(word) for word in words[1:]]))
    if not rows or rows[-1][0] != "TOTAL":
        raise SystemExit(f"no TOTAL row in the runner's output:\n{done.stdout}\n{done.stderr}")
    return rows


def transcript_summary(report: Path) -> str:
    """The block counts table and the crash line of the transcript runner's report."""
    lines = (report / "report.md").read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("| blocks |"))
    last = next(i for i in range(first, len(lines)) if not lines[i].startswith("|"))
    runs = next(line for line in lines if line.startswith("CLI runs:"))
    header = next(line for line in lines if line.startswith("lsp-edit ") and "aider" in line)
    return "\n".join([header, "", *lines[first:last], "", runs])


def page(rows: list[tuple[str, list[int]]], transcripts: str | None) -> str:
    total = rows[-1][1]
    share = 100 * total[1] / total[0]
    lines = [
        "# Agreement with the peers' own test suites",
        "",
        "Written by `bench/agreement.py` from a run of the real-world peer cases "
        f"({datetime.date.today().isoformat()}); no number here is typed by hand.",
        "",
        f"lsp-edit ends as the peer's test expects in **{total[1]} of {total[0]} cases "
        f"({share:.1f} %)**. `refused` are edits a peer applies and lsp-edit refuses with a "
        "reason, `applied` the reverse, `differs` both applied with other results; "
        "[matching.md](matching.md#where-other-tools-guess-and-lsp-edit-refuses) says "
        "why each kind is deliberate. `skipped` are peer tests with no file-level meaning.",
        "",
        "| suite | " + " | ".join(COLUMNS) + " |",
        "|---|" + "---:|" * len(COLUMNS),
    ]
    for name, counts in rows:
        shown = f"**{name}**" if name == "TOTAL" else name
        lines.append(f"| {shown} | " + " | ".join(str(count) for count in counts) + " |")
    if transcripts:
        lines += [
            "",
            "## Real aider transcripts",
            "",
            "Every reply of the committed aider chat transcripts, read by aider's own parser "
            "and by lsp-edit (`run_llm_replies.py`); where they read a block differently, "
            "[matching.md](matching.md#where-aider-reads-a-reply-differently) says why.",
            "",
            transcripts,
        ]
    lines += [
        "",
        "## Real packages",
        "",
        "Inputs nobody on this project wrote in another way: the change between each pair "
        "of released versions of a few packages, written in every format and applied to "
        "the old version's files. [realpackages.md](realpackages.md) has the counts "
        "(`bench/realpackages.py`).",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("runner", type=Path, help="run_peer_suites.py of the real-world checks")
    options.add_argument("--transcripts", type=Path, help="the transcript runner's --out folder")
    args = options.parse_args()
    rows = peer_table(args.runner)
    transcripts = transcript_summary(args.transcripts) if args.transcripts else None
    PAGE.write_text(page(rows, transcripts))
    print(f"wrote {PAGE.relative_to(ROOT)}: {rows[-1][1][1]} of {rows[-1][1][0]} agree")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
