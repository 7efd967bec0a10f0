// The inline review: a file's pending changes shown as VS Code's diff editor shows
// a diff inline, the file against its `lsp-edit-proposed:` document (the file with
// every pending change applied). What the cursor there is on, where each change is,
// and in which language the proposed side is shown. Nothing here imports `vscode`.

import { type Change, pending, type Range } from "./changes";

/** What `lspEdit.proposed` answers: the proposed text, and the lines of it each
 * pending change writes (docs/protocol.md). */
export interface Proposal {
  text: string;
  changes: { id: string; ranges: Range[] }[];
}

/** The change whose new lines hold `line` of the proposed text; a change that only
 * deletes holds the line that followed what it deletes. */
export function changeInProposal(proposal: Proposal, line: number): string | undefined {
  const holds = (range: Range): boolean =>
    range.end.line > range.start.line ? range.start.line <= line && line < range.end.line : line === range.start.line;
  // A line holds a deletion and the lines written after it: the lines win.
  const written = proposal.changes.find((change) => change.ranges.some((r) => r.end.line > r.start.line && holds(r)));
  return (written ?? proposal.changes.find((change) => change.ranges.some(holds)))?.id;
}

/** The first line of the proposed text a change writes (or where it deletes). */
export function lineOfChange(proposal: Proposal, id: string): number | undefined {
  return proposal.changes.find((change) => change.id === id)?.ranges[0]?.start.line;
}

/** The first line of the next (or previous) change in the proposed text after
 * `line`, around the end; undefined when no change is there. */
export function nextLineInProposal(proposal: Proposal, line: number, forward: boolean): number | undefined {
  const starts = [...new Set(proposal.changes.flatMap((change) => change.ranges.map((r) => r.start.line)))].sort(
    (a, b) => a - b,
  );
  if (starts.length === 0) {
    return undefined;
  }
  const here = changeInProposal(proposal, line);
  const mine = here === undefined ? [] : proposal.changes.find((c) => c.id === here)?.ranges ?? [];
  // From inside a change, the next one starts after its last line.
  const from = forward ? Math.max(line, ...mine.map((r) => r.end.line - 1)) : Math.min(line, ...mine.map((r) => r.start.line));
  return forward ? starts.find((start) => start > from) ?? starts[0] : [...starts].reverse().find((start) => start < from) ?? starts[starts.length - 1];
}

/** The files a review of a change's reply shows: each file where the reply has a
 * pending change, the change's own file first. */
export function filesOfReply(changes: readonly Change[], change: Change): string[] {
  const files = new Set<string>();
  if (change.uri) {
    files.add(change.uri);
  }
  for (const other of pending(changes)) {
    if (other.session === change.session && other.uri) {
      files.add(other.uri);
    }
  }
  return [...files];
}

/** The language id prefix of the languages the proposed side is shown in: VS Code
 * reads a diff editor's settings for the language of its modified side, so these
 * languages carry the review's own defaults (inline, lenses, whitespace changes
 * shown) without touching the user's settings of other diffs. */
export const REVIEW_LANGUAGE = "lsp-edit-proposed";

/** The review's language for a document of `languageId`: its own version of that
 * language (the same colours) when the extension has one, else the plain one. */
export function reviewLanguage(languageId: string, known: readonly string[]): string {
  if (languageId === REVIEW_LANGUAGE || languageId.startsWith(`${REVIEW_LANGUAGE}-`)) {
    return languageId;
  }
  const own = `${REVIEW_LANGUAGE}-${languageId}`;
  return known.includes(own) ? own : REVIEW_LANGUAGE;
}

/** The language a review language stands for (`lsp-edit-proposed-python`: python). */
export function languageOfReview(reviewId: string): string | undefined {
  return reviewId.startsWith(`${REVIEW_LANGUAGE}-`) ? reviewId.slice(REVIEW_LANGUAGE.length + 1) : undefined;
}
