// The server's change objects (docs/protocol.md) and what the extension shows of
// them. Nothing here imports `vscode`: the unit tests run it under plain Node.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Hunk {
  range: Range;
  newText: string;
}

export interface Change {
  id: string;
  uri: string | null;
  status: "pending" | "applied" | "rejected" | "failed" | "skipped" | "stale";
  description: string;
  kind: "edit" | "create" | "delete" | "move";
  session: string;
  range?: Range;
  hunks?: Hunk[];
  message?: string;
  code?: string;
}

export function pending(changes: readonly Change[]): Change[] {
  return changes.filter((change) => change.status === "pending");
}

/** The pending change whose lines hold `line` (a pure insertion holds the line it
 * inserts before), in the document `uri`. */
export function changeAt(changes: readonly Change[], uri: string, line: number): Change | undefined {
  return pending(changes).find(
    (change) =>
      change.uri === uri &&
      (change.hunks ?? []).some((hunk) => {
        const first = hunk.range.start.line;
        const end = hunk.range.end.line;
        return end === first ? line === first : first <= line && line < end;
      }),
  );
}

/** The status bar's text: how many changes wait for review. */
export function statusText(count: number): string {
  if (count === 0) {
    return "$(check) No pending changes";
  }
  return `$(git-pull-request) ${count} pending ${count === 1 ? "change" : "changes"}`;
}

export interface PickItem {
  label: string;
  description: string;
  detail: string;
  change: Change;
}

/** One quick pick line per pending change: where it is, and what it does. */
export function pickItems(changes: readonly Change[], relative: (uri: string) => string): PickItem[] {
  return pending(changes).map((change) => {
    const line = (change.range?.start.line ?? 0) + 1;
    const where = change.uri ? `${relative(change.uri)}:${line}` : "(no file)";
    return { label: where, description: change.kind, detail: change.description, change };
  });
}

export interface Addition {
  /** The 0-based line the note goes after (the last line the hunk replaces, or the
   * line before an insertion). */
  line: number;
  text: string;
}

/** What each pending hunk of a document writes, as one short note per hunk: the
 * lines themselves appear only when accepted, so the note says what comes. */
export function additions(changes: readonly Change[], uri: string): Addition[] {
  const notes: Addition[] = [];
  for (const change of pending(changes)) {
    if (change.uri !== uri) {
      continue;
    }
    for (const hunk of change.hunks ?? []) {
      const lines = hunk.newText.split(/\r\n|\n|\r/);
      if (lines[lines.length - 1] === "") {
        lines.pop();
      }
      const start = hunk.range.start.line;
      const end = hunk.range.end.line;
      const after = end > start ? end - 1 : Math.max(start - 1, 0);
      const first = lines.length > 0 ? lines[0].trim() : "";
      const what =
        lines.length === 0
          ? "- removes these lines"
          : `+ ${lines.length} ${lines.length === 1 ? "line" : "lines"}: ${first}`;
      notes.push({ line: after, text: what.length > 120 ? `${what.slice(0, 119)}…` : what });
    }
  }
  return notes;
}

export interface Notice {
  level: "information" | "warning";
  text: string;
}

/** What the user is told after a reply is proposed: the summary's first line, and for
 * blocks not applied either where to look (they are among the problems when they have
 * a file) or, for a block that names no file the server could find, its reason. */
export function proposeNotice(changes: readonly Change[], summary: string): Notice {
  const first = `LSP Edit: ${summary.split("\n")[0]}`;
  const failed = changes.filter((change) => change.status === "failed" || change.status === "stale");
  if (failed.length === 0) {
    return { level: "information", text: first };
  }
  const unseen = failed.find((change) => change.uri === null);
  const reason = unseen
    ? `${unseen.description}: ${unseen.message ?? "not applied"}`
    : "see the problems";
  return { level: "warning", text: `${first} ${failed.length} not applied: ${reason}` };
}
