// LSP Edit: Ask…: the argument of `lspEdit.ask`, the settings the server reads for it,
// and what the user is told when the reply is complete. Nothing here imports
// `vscode`: the unit tests run it under plain Node.

import type { Change, Position } from "./changes";

export interface AskResult {
  session: string;
  uri: string;
  status: "done" | "cancelled" | "failed";
  changes: Change[];
  summary: string;
  message?: string;
  code?: string;
}

/** `{prompt, uri?, range?}`: the active file when it is one, and the selected lines
 * when there is a selection. */
export function askArgument(
  prompt: string,
  document: { scheme: string; toString(): string } | undefined,
  selection: { start: Position; end: Position } | undefined,
): Record<string, unknown> {
  const argument: Record<string, unknown> = { prompt: prompt.trim() };
  if (document?.scheme === "file") {
    argument.uri = document.toString();
    if (selection) {
      argument.range = {
        start: { line: selection.start.line, character: selection.start.character },
        end: { line: selection.end.line, character: selection.end.character },
      };
    }
  }
  return argument;
}

/** The `lspEdit.llm` settings as the server reads them: those left empty are left
 * out, so the server's defaults hold. */
export function llmSettings(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== null && value !== undefined && value !== "") {
      out[name] = value;
    }
  }
  return out;
}

/** What to say when the reply is complete; nothing for a failure, which the server
 * shows itself (window/showMessage), with the setting to change. */
export function askNotice(result: AskResult): string | undefined {
  if (result.status === "done") {
    return `LSP Edit: ${result.summary.split("\n")[0]}`;
  }
  if (result.status === "cancelled") {
    return "LSP Edit: the ask was cancelled; what arrived is kept.";
  }
  return undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
