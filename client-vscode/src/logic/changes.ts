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

/** A change's status as the server names it (docs/protocol.md). Every count the
 * extension shows compares with these names: a name the server never sends does not
 * compile. */
export type Status = "pending" | "applied" | "rejected" | "failed" | "skipped" | "stale";

export interface Change {
  id: string;
  uri: string | null;
  status: Status;
  description: string;
  kind: "edit" | "create" | "delete" | "move";
  session: string;
  range?: Range;
  hunks?: Hunk[];
  message?: string;
  code?: string;
  block?: { uri: string; range: Range };
}

/** What `lspEdit.accept`, `lspEdit.acceptAll`, `lspEdit.reject`... answer. */
export interface Decision {
  id?: string;
  status?: Status;
  message?: string;
  changes?: { id: string; status: Status }[];
}

export function pending(changes: readonly Change[]): Change[] {
  return changes.filter((change) => change.status === "pending");
}

/** The changes that were not applied and wait to be seen: failed blocks, stale
 * changes, and blocks skipped for a reason other than being in the file already. */
export function notApplied(changes: readonly Change[]): Change[] {
  return changes.filter(
    (change) =>
      change.status === "failed" ||
      change.status === "stale" ||
      (change.status === "skipped" && change.code !== "already-applied"),
  );
}

/** The server's messages use Markdown's `code` spans; VS Code shows diagnostics,
 * notifications and quick picks as plain text, where the backticks would show: they
 * become quotes there. Fences (```) are left alone. */
export function plainText(text: string): string {
  return text.replace(/(?<!`)`([^`\n]+)`(?!`)/g, "'$1'");
}

function count(number: number, one: string, many: string): string {
  return `${number} ${number === 1 ? one : many}`;
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

/** The status bar's text: how many changes wait for review, and how many blocks were
 * not applied (clicking it lists both). */
export function statusText(waiting: number, failures = 0): string {
  const review = waiting === 0 ? "$(check) No pending changes" : `$(git-pull-request) ${count(waiting, "pending change", "pending changes")}`;
  return failures === 0 ? review : `${review}, $(warning) ${failures} not applied`;
}

export interface PickItem {
  label: string;
  description: string;
  detail: string;
  change: Change;
}

export interface PickList {
  pending: PickItem[];
  notApplied: PickItem[];
}

/** The list of changes: one line per pending change (where it is, what it does), then
 * one per block not applied (where, and why). */
export function pickItems(changes: readonly Change[], relative: (uri: string) => string): PickList {
  const where = (change: Change, line?: number): string => {
    if (!change.uri) {
      return "(no file)";
    }
    return line === undefined ? relative(change.uri) : `${relative(change.uri)}:${line}`;
  };
  return {
    pending: pending(changes).map((change) => ({
      label: where(change, (change.range?.start.line ?? 0) + 1),
      description: change.kind,
      detail: plainText(change.description),
      change,
    })),
    notApplied: notApplied(changes).map((change) => ({
      label: `${change.status === "failed" ? "$(error)" : "$(warning)"} ${where(change)}`,
      description: change.code ?? change.status,
      detail: plainText(`${change.description}: ${firstLine(change.message) ?? change.status}`),
      change,
    })),
  };
}

function firstLine(text: string | undefined): string | undefined {
  return text?.split("\n").find((line) => line.trim() !== "");
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

/** What the user is told after a reply is proposed, when something must be said
 * besides the review notification (which tells what is pending, while it is): the
 * blocks not applied, with the reason when there is one, or the summary when nothing
 * is pending. */
export function proposeNotice(changes: readonly Change[], summary: string): Notice | undefined {
  const failed = notApplied(changes);
  if (failed.length === 0) {
    return pending(changes).length > 0 ? undefined : { level: "information", text: plainText(`LSP Edit: ${summary.split("\n")[0]}`) };
  }
  const what = count(failed.length, "block was not applied", "blocks were not applied");
  const reason =
    failed.length === 1
      ? `${failed[0].description}: ${firstLine(failed[0].message) ?? failed[0].status}`
      : "see LSP Edit: List Changes, or the problems";
  return { level: "warning", text: plainText(`LSP Edit: ${what}: ${reason}`) };
}

export interface ReviewState {
  /** How many changes of the reply wait. */
  waiting: number;
  text: string;
}

/** The review notification of a proposed reply while some of its changes wait:
 * how many, and in which files; undefined once none does. */
export function reviewState(changes: readonly Change[], session: string, relative: (uri: string) => string): ReviewState | undefined {
  const waiting = pending(changes).filter((change) => change.session === session);
  if (waiting.length === 0) {
    return undefined;
  }
  const files = new Map<string, number>();
  for (const change of waiting) {
    const file = change.uri ? relative(change.uri) : "(no file)";
    files.set(file, (files.get(file) ?? 0) + 1);
  }
  const where = [...files].map(([file, number]) => `${number} in ${file}`).join(", ");
  return { waiting: waiting.length, text: `${count(waiting.length, "change is", "changes are")} pending review: ${where}.` };
}

/** What the user is told after a decision, from the server's answer (`before`: the
 * changes as they were, to tell rejected changes from dismissed failures). Undefined
 * when the editor shows it all by itself (one change accepted or rejected). */
export function decisionNotice(command: string, result: Decision, before: readonly Change[]): Notice | undefined {
  const decided = result.changes ?? [];
  if (command === "lspEdit.acceptAll") {
    if (decided.length === 0) {
      return { level: "information", text: "LSP Edit: no pending change to accept." };
    }
    const accepted = decided.filter((change) => change.status === "applied").length;
    const waiting = decided.filter((change) => change.status === "pending").length;
    const others = decided.length - accepted - waiting;
    const parts = [`LSP Edit: ${count(accepted, "change", "changes")} accepted.`];
    if (result.message) {
      parts.push(result.message);
    } else if (waiting > 0) {
      parts.push(
        waiting === 1
          ? "1 change stays pending: it overlaps another change; accept it on its own."
          : `${waiting} changes stay pending: they overlap other changes; accept them one by one.`,
      );
    }
    if (others > 0) {
      parts.push(`${count(others, "change was", "changes were")} not applied: see LSP Edit: List Changes.`);
    }
    return { level: accepted === decided.length ? "information" : "warning", text: plainText(parts.join(" ")) };
  }
  if (command === "lspEdit.rejectAll") {
    const wasPending = new Set(pending(before).map((change) => change.id));
    const rejected = decided.filter((change) => change.status === "rejected");
    const changes = rejected.filter((change) => wasPending.has(change.id)).length;
    const dismissed = rejected.length - changes;
    if (rejected.length === 0) {
      return { level: "information", text: "LSP Edit: nothing to reject." };
    }
    const parts = [`${count(changes, "change", "changes")} rejected`];
    if (dismissed > 0) {
      parts.push(`${count(dismissed, "failure", "failures")} dismissed`);
    }
    return { level: "information", text: `LSP Edit: ${parts.join(", ")}.` };
  }
  if ((command === "lspEdit.accept" || command === "lspEdit.reject" || command === "lspEdit.restore") && result.message) {
    return { level: "warning", text: plainText(`LSP Edit: ${result.message}`) };
  }
  return undefined;
}
