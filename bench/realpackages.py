"""`lsp-edit apply` on the released versions of real packages; writes docs/realpackages.md.

    .venv/bin/python bench/realpackages.py               # the default run (a few pairs each)
    .venv/bin/python bench/realpackages.py --all         # every consecutive version pair
    .venv/bin/python bench/realpackages.py --pairs 3 --package attrs --format v4a

Downloads the sdists of a few packages from PyPI (cached in bench/.data/, which git
ignores), takes consecutive released versions in pairs, and for each pair writes
the change from the old version to the new one as a reply in every format lsp-edit
reads (docs/formats.md). Each reply is applied by the real CLI
(`lsp-edit apply REPLY --root COPY --json`) to a fresh copy of the old version's
tree, and each file the reply edits is classified:

- `exact`: the file is now what the reply said, byte for byte (the new version, or
  for the formats that say only part of a change, the old file with that part);
- `partial`: some blocks of the file applied and the later ones were refused, and
  the file is exactly the old file with the applied blocks' effect;
- `refused`: no block of the file applied and the file is untouched;
- `wrong`: the file holds anything else (or a file the reply does not edit
  changed, or something was written outside the workspace);
- `crash`: the CLI exited 2, printed to standard error or printed no JSON list; a
  crash counts once per run.

A change a format cannot say (a final newline removed, in SEARCH/REPLACE; a deleted
file, in a line range) is left out of that format's reply and counted as `unsaid`.
The reply, the CLI's answer and the outcomes of each run where a file was not
written exactly are kept under bench/.data/realpackages/findings/ to be read. The
default run takes the latest few pairs of each package (about ten minutes here);
`--all` takes every pair.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bench.version_replies import (
    FORMATS,
    Doc,
    FileReply,
    Format,
    Reply,
    Tree,
    changes_between,
    content,
    reply_for,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / ".data" / "realpackages"
PAGE = ROOT / "docs" / "realpackages.md"
INDEX = "https://pypi.org/pypi/{name}/json"
TIMEOUT = 300


@dataclass(frozen=True)
class Package:
    name: str
    why: str
    pairs: int  # how many of the latest pairs the default run takes


PACKAGES = (
    Package("attrs", "pure Python with stubs (`.pyi`) and Protocols; Markdown docs", 12),
    Package(
        "typing-extensions",
        "one long module of Protocols, overloads and `...` bodies, changed a little each release",
        10,
    ),
    Package("markupsafe", "a C extension (`_speedups.c`) and reStructuredText docs", 12),
    Package("sphinx-copybutton", "JavaScript, CSS and a Sphinx template", 12),
    Package("colorama", "files with CRLF line endings, Windows batch files", 12),
    Package(
        "black",
        "an invalid `.gitignore` (a bare `!`) kept as test data, CRLF and no-final-newline "
        "test files, thousands of lines of odd Python",
        3,
    ),
)


# ---------------------------------------------------------------- downloads


@dataclass(frozen=True)
class Release:
    version: str
    filename: str
    url: str
    sha256: str


def releases(name: str, refresh: bool) -> list[Release]:
    """Every release of `name` with an sdist, oldest version first (the index is
    cached; `refresh` reads it again)."""
    from packaging.version import InvalidVersion, Version

    cached = DATA / f"{name}.json"
    if refresh or not cached.exists():
        cached.parent.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(INDEX.format(name=name), timeout=60) as answer:
            cached.write_bytes(answer.read())
    index = json.loads(cached.read_text())
    found: list[tuple[Version, Release]] = []
    for version, files in index["releases"].items():
        sdists = [f for f in files if f["packagetype"] == "sdist" and not f.get("yanked")]
        try:
            parsed = Version(version)
        except InvalidVersion:
            continue
        if sdists:
            sdist = sdists[0]
            url = urllib.parse.urljoin(INDEX.format(name=name), sdist["url"])
            found.append(
                (parsed, Release(version, sdist["filename"], url, sdist["digests"]["sha256"]))
            )
    return [release for _, release in sorted(found, key=lambda pair: pair[0])]


def download(name: str, release: Release) -> Path:
    path = DATA / name / release.filename
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(release.url, timeout=120) as answer:
            data = answer.read()
        if hashlib.sha256(data).hexdigest() != release.sha256:
            raise SystemExit(f"{release.filename}: the download does not match its sha256")
        path.write_bytes(data)
    return path


def unpack(archive: Path) -> Tree:
    """The regular files of an sdist, by path below its top folder."""
    members: list[tuple[str, bytes]] = []
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as opened:
            for info in opened.infolist():
                if not info.is_dir():
                    members.append((info.filename, opened.read(info)))
    else:
        with tarfile.open(archive) as opened:
            for member in opened.getmembers():
                stream = opened.extractfile(member) if member.isfile() else None
                if stream is not None:
                    members.append((member.name, stream.read()))
    tree: Tree = {}
    for name, data in members:
        parts = PurePosixPath(name).parts[1:]
        if parts and ".." not in parts and not PurePosixPath(name).is_absolute():
            tree["/".join(parts)] = data
    return tree


# ---------------------------------------------------------------- applying


@dataclass(frozen=True)
class Outcome:
    """What became of one file of a reply (or of a whole run, for a crash)."""

    kind: str  # exact | partial | refused | wrong | crash
    path: str
    code: str = ""  # the refusal code, or what is wrong
    detail: str = ""


@dataclass
class Run:
    files: int
    outcomes: list[Outcome]
    unsaid: tuple[tuple[str, str], ...]
    seconds: float
    reply: str
    answer: str


def write_tree(tree: Tree, root: Path) -> None:
    for path, data in tree.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def read_tree(root: Path) -> Tree:
    tree: Tree = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            tree[path.relative_to(root).as_posix()] = path.read_bytes()
    return tree


def apply_reply(reply: Reply, old: Tree, lsp_edit: Path, work: Path) -> Run:
    """Applies `reply` with the CLI to a copy of `old` in `work` and classifies each
    file it edits."""
    if work.exists():
        shutil.rmtree(work)
    root = work / "root"
    root.mkdir(parents=True)
    write_tree(old, root)
    reply_file = work / "reply.md"
    reply_file.write_text(reply.text, encoding="utf-8")
    began = time.perf_counter()
    try:
        done = subprocess.run(
            [str(lsp_edit), "apply", str(reply_file), "--root", str(root), "--json"],
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        crash = Outcome("crash", "", "timeout", f"no answer in {TIMEOUT} s")
        return Run(
            len(reply.files), [crash], reply.unsaid, time.perf_counter() - began, reply.text, ""
        )
    seconds = time.perf_counter() - began
    answer = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    try:
        rows = json.loads(answer)
    except json.JSONDecodeError:
        rows = None
    if done.returncode not in (0, 1) or stderr.strip() or not isinstance(rows, list):
        why = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {done.returncode}"
        crash = Outcome("crash", "", f"exit {done.returncode}", why + "\n" + stderr[-4000:])
        return Run(len(reply.files), [crash], reply.unsaid, seconds, reply.text, answer + stderr)
    changes = [row for row in rows if isinstance(row, dict) and "file" in row]
    outcomes = classify(reply, old, read_tree(root), changes)
    outside = sorted(p.name for p in work.iterdir() if p.name not in ("root", "reply.md"))
    if outside:
        outcomes.append(Outcome("wrong", outside[0], "written outside the root"))
    return Run(len(reply.files), outcomes, reply.unsaid, seconds, reply.text, answer)


def classify(
    reply: Reply, old: Tree, now: Tree, changes: Sequence[dict[str, object]]
) -> list[Outcome]:
    """Each edited file's outcome, then a `wrong` one for each other file that changed."""
    outcomes = [_file_outcome(f, now.get(f.path), changes) for f in reply.files]
    edited = {f.path for f in reply.files}
    for path in sorted(now.keys() | old.keys()):
        if path not in edited and now.get(path) != old.get(path):
            outcomes.append(Outcome("wrong", path, "a file the reply does not edit changed"))
    return outcomes


def _file_outcome(f: FileReply, got: bytes | None, changes: Sequence[dict[str, object]]) -> Outcome:
    mine = [row for row in changes if row.get("file") == f.path]
    applied = 0
    while applied < len(mine) and mine[applied].get("status") == "applied":
        applied += 1
    if applied == len(mine) == len(f.after) and got == f.after[-1]:
        return Outcome("exact", f.path)
    if len(mine) != len(f.after):
        # read as other blocks than written: only an untouched file is safe to judge
        code = "unread" if not mine else f"misread: {len(mine)} changes for {len(f.after)}"
        if got == f.old:
            return Outcome("refused", f.path, code)
        return Outcome("wrong", f.path, _what_differs(f.after[-1], got), code)
    code = str(mine[applied].get("code")) if applied < len(mine) else ""
    expected = f.after[applied - 1] if applied else f.old
    if got != expected:
        notes = [f"block {applied + 1} {code}"] if code else []
        if _holds_placeholder(f.text):
            notes.append("a line of the reply reads as an elision placeholder")
        return Outcome("wrong", f.path, _what_differs(expected, got), "; ".join(notes))
    return Outcome("partial" if applied else "refused", f.path, code)


def _holds_placeholder(text: str) -> bool:
    """Whether a line of a reply is one lsp-edit may read as an elision placeholder
    (`...`, `# ... existing code ...`): a wrong write there is the elision rules'."""
    from lsp_edit.resolve.elision import is_placeholder

    return any(is_placeholder(line) for line in text.splitlines())


def _what_differs(expected: bytes | None, got: bytes | None) -> str:
    if expected is None or got is None:
        return "deleted" if got is None else "not deleted"
    want, have = Doc.read(expected), Doc.read(got)
    if want is None or have is None:
        return "content"
    if want.bom != have.bom:
        return "byte order mark"
    if [content(x) for x in want.lines] == [content(x) for x in have.lines]:
        if want.lines[:-1] == have.lines[:-1] and want.final_newline != have.final_newline:
            return "final newline"
        return "line endings"
    return "content"


# ---------------------------------------------------------------- the run


@dataclass
class Tally:
    pairs: int = 0
    files: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    unsaid: Counter[str] = field(default_factory=Counter)
    crashes: int = 0
    seconds: float = 0.0
    bad: list[str] = field(default_factory=list)  # each crash and wrong write, described

    def add(self, run: Run, title: str) -> None:
        self.pairs += 1
        self.seconds += run.seconds
        self.files += run.files
        for outcome in run.outcomes:
            if outcome.kind in ("crash", "wrong"):
                self.bad.append(f"{title}: {_described(outcome)}")
            if outcome.kind == "crash":
                self.crashes += 1
                continue
            self.kinds[outcome.kind] += 1
            if outcome.kind in ("refused", "partial"):
                self.codes[outcome.code.split(":")[0] or "?"] += 1
        for _path, why in run.unsaid:
            self.unsaid[why] += 1


def _described(outcome: Outcome) -> str:
    """`crash: exit 1, GitIgnorePatternError: ...` or `wrong: `a.py` (final newline)`."""
    first = outcome.detail.splitlines()[0] if outcome.detail else ""
    if outcome.kind == "crash":
        return f"crash: {outcome.code}, {first}" if first else f"crash: {outcome.code}"
    return f"wrong: `{outcome.path}` ({outcome.code})" + (f"; {first}" if first else "")


def run_pairs(
    package: str,
    trees: Iterable[tuple[str, Tree]],
    formats: Sequence[Format],
    lsp_edit: Path,
    work: Path,
    tallies: dict[tuple[str, str], Tally],
    keep: Path | None,
    log: Callable[[str], None] = print,
) -> None:
    """Applies every format's reply for each consecutive pair of `trees` (version,
    files; read one after the other, two in memory at a time), adding to
    `tallies[(package, format)]`; findings go under `keep`."""
    for (old_version, old), (new_version, new) in itertools.pairwise(trees):
        pair = changes_between(old, new)
        title = f"{package} {old_version} -> {new_version}"
        for fmt in formats:
            reply = reply_for(fmt, pair, title)
            if not reply.files:
                continue
            run = apply_reply(reply, old, lsp_edit, work)
            tallies.setdefault((package, fmt.name), Tally()).add(run, f"{title} {fmt.name}")
            bad = [o for o in run.outcomes if o.kind in ("crash", "wrong")]
            for outcome in bad:
                log(f"  {title} {fmt.name}: {_described(outcome)}")
            if keep is not None:
                _keep(keep / package / f"{old_version}-{new_version}" / fmt.name, run)


def _keep(folder: Path, run: Run) -> None:
    """Keeps the reply, the CLI's answer and the outcome of each file that was not
    written exactly, to be read."""
    bad = [o for o in run.outcomes if o.kind in ("crash", "wrong", "refused", "partial")]
    if not bad:
        return
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reply.md").write_text(run.reply, encoding="utf-8")
    (folder / "answer.json").write_text(run.answer, encoding="utf-8")
    lines = [f"{o.kind}\t{o.path}\t{o.code}\t{o.detail}".replace("\n", " | ") for o in bad]
    (folder / "outcomes.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, help="the latest N pairs of each package")
    parser.add_argument("--all", action="store_true", help="every consecutive pair")
    parser.add_argument("--package", action="append", help="only these packages")
    parser.add_argument("--format", action="append", help="only these formats")
    parser.add_argument("--lsp-edit", type=Path, default=ROOT / ".venv" / "bin" / "lsp-edit")
    parser.add_argument("--refresh", action="store_true", help="read the package index again")
    parser.add_argument("--no-page", action="store_true", help="print only; keep docs as is")
    args = parser.parse_args(argv)
    packages = [p for p in PACKAGES if not args.package or p.name in args.package]
    formats = [f for f in FORMATS if not args.format or f.name in args.format]
    keep = DATA / "findings"
    if keep.exists():
        shutil.rmtree(keep)
    tallies: dict[tuple[str, str], Tally] = {}
    versions: dict[str, str] = {}
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="realpackages-") as scratch:
        for package in packages:
            found = releases(package.name, args.refresh)
            count = len(found) - 1 if args.all else (args.pairs or package.pairs)
            chosen = found[-(count + 1) :]
            versions[package.name] = f"{chosen[0].version} to {chosen[-1].version}"
            print(f"{package.name}: {len(chosen) - 1} pairs, {versions[package.name]}")
            trees = ((r.version, unpack(download(package.name, r))) for r in chosen)
            run_pairs(
                package.name, trees, formats, args.lsp_edit, Path(scratch) / "w", tallies, keep
            )
    elapsed = time.perf_counter() - began
    table = render_table(tallies, packages, formats)
    print(table)
    print(f"\n{elapsed:.0f} s in all")
    if not args.no_page:
        PAGE.write_text(render_page(table, tallies, packages, versions, elapsed, args))
    bad = sum(t.crashes + t.kinds["wrong"] for t in tallies.values())
    return 1 if bad else 0


COLUMNS = ("pairs", "files", "exact", "partial", "refused", "unsaid", "crash", "wrong", "s")


def _row(name: str, tally: Tally) -> str:
    cells = [
        tally.pairs,
        tally.files,
        tally.kinds["exact"],
        tally.kinds["partial"],
        tally.kinds["refused"],
        sum(tally.unsaid.values()),
        tally.crashes,
        tally.kinds["wrong"],
    ]
    return f"| {name} | " + " | ".join(str(c) for c in cells) + f" | {tally.seconds:.1f} |"


def _sum(tallies: Iterable[Tally], pairs: int | None = None) -> Tally:
    """The tallies added up; `pairs` when given (the pairs of a package, which each
    format ran on), else the sum of their pairs."""
    total = Tally()
    for t in tallies:
        total.pairs += t.pairs
        total.files += t.files
        total.kinds.update(t.kinds)
        total.codes.update(t.codes)
        total.unsaid.update(t.unsaid)
        total.crashes += t.crashes
        total.seconds += t.seconds
        total.bad += t.bad
    if pairs is not None:
        total.pairs = pairs
    return total


def _pairs_of(tallies: dict[tuple[str, str], Tally], package: str) -> int:
    return max((t.pairs for (p, _), t in tallies.items() if p == package), default=0)


def render_table(
    tallies: dict[tuple[str, str], Tally], packages: Sequence[Package], formats: Sequence[Format]
) -> str:
    head = ["| | " + " | ".join(COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
    lines = ["### By package", "", *head]
    for package in packages:
        mine = [t for (p, _), t in tallies.items() if p == package.name]
        lines.append(_row(package.name, _sum(mine, _pairs_of(tallies, package.name))))
    lines += ["", "### By format", "", *head]
    for fmt in formats:
        mine = [t for (_, f), t in tallies.items() if f == fmt.name]
        lines.append(_row(fmt.name, _sum(mine)))
    pairs = sum(_pairs_of(tallies, package.name) for package in packages)
    lines.append(_row("**all**", _sum(tallies.values(), pairs)))
    lines += ["", "### Refusals and what the formats cannot say", ""]
    lines += ["| format | refusal codes (files) | left out of the reply (files) |", "|---|---|---|"]
    for fmt in formats:
        total = _sum(t for (_, f), t in tallies.items() if f == fmt.name)
        codes = ", ".join(f"`{c}` {n}" for c, n in total.codes.most_common(4)) or "-"
        unsaid = ", ".join(f"{why} {n}" for why, n in total.unsaid.most_common(4)) or "-"
        lines.append(f"| {fmt.name} | {codes} | {unsaid} |")
    return "\n".join(lines)


def render_page(
    table: str,
    tallies: dict[tuple[str, str], Tally],
    packages: Sequence[Package],
    versions: dict[str, str],
    elapsed: float,
    args: argparse.Namespace,
) -> str:
    total = _sum(tallies.values(), sum(_pairs_of(tallies, p.name) for p in packages))
    command = "bench/realpackages.py" + (" --all" if args.all else "")
    if args.pairs:
        command += f" --pairs {args.pairs}"
    lines = [
        "# lsp-edit on the released versions of real packages",
        "",
        f"Written by `{command}` ({datetime.date.today().isoformat()}); no number here is "
        "typed by hand.",
        "",
        "Each consecutive pair of released versions of a package gives a workspace (the "
        "old sdist's files) and a reply (the change to the new version), written in every "
        "format lsp-edit reads. `lsp-edit apply --json` applies each reply to a fresh copy "
        "of the old tree, and each file the reply edits is checked byte for byte: `exact` "
        "(the file is what the reply says), `partial` (the blocks before a refused one "
        "applied, and nothing else changed), `refused` (untouched, with a reason), `wrong` "
        "(anything else, including a file the reply does not edit, line endings, a final "
        "newline or a byte order mark the reply did not change). `crash` counts runs "
        "that exited 2, wrote to standard error or printed no JSON. `unsaid` are changed "
        "files a format cannot express (a new file in a line range, a final newline "
        "removed in SEARCH/REPLACE), left out of its reply. `s` is the time `lsp-edit "
        "apply` took, summed over the runs.",
        "",
        f"**{total.crashes} crashes and {total.kinds['wrong']} wrong writes** in "
        f"{total.pairs} version pairs, over {total.files} file edits; "
        f"{total.kinds['exact']} exact, "
        f"{total.kinds['refused'] + total.kinds['partial']} refused in whole or in part.",
        "",
        "| package | versions | what it brings |",
        "|---|---|---|",
    ]
    for package in packages:
        if package.name in versions:
            lines.append(f"| {package.name} | {versions[package.name]} | {package.why} |")
    lines += ["", table, "", f"The whole run took {elapsed:.0f} s.", ""]
    if total.bad:
        lines += ["## Crashes and wrong writes", ""]
        lines += [f"- {line}" for line in total.bad[:100]]
        lines += [f"- and {len(total.bad) - 100} more" if len(total.bad) > 100 else "", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
