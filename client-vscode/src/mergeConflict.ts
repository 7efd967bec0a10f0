// While a reply document with a SEARCH/REPLACE block is in front (`replyInFront`),
// VS Code's built-in merge-conflict lenses and colours are switched off in the user
// settings, and put back as the user had them after (see logic/mergeConflict.ts, and
// docs/vscode.md for why the user settings).

import * as vscode from "vscode";

import {
  ConflictMarks,
  MERGE_CONFLICT_SECTION,
  replyInFront,
  SAVED_KEY,
  type Saved,
  type Shown,
  shownAs,
} from "./logic/mergeConflict";

/** Whether the document is a reply document (`isReply` with the user's globs). */
export type IsReply = (document: vscode.TextDocument) => boolean;

/** Starts following the editors on screen; what it switched off is put back by `end`,
 * or, if the window ends first, by the next start. */
export async function hideConflictMarksInReplies(
  context: vscode.ExtensionContext,
  isReply: IsReply,
): Promise<ConflictMarks> {
  const marks = new ConflictMarks(
    {
      read: (key) => {
        const config = vscode.workspace.getConfiguration(MERGE_CONFLICT_SECTION);
        const values = config.inspect(key);
        return {
          effective: config.get(key),
          globalValue: values?.globalValue,
          workspaceValue: values?.workspaceValue ?? values?.workspaceFolderValue,
        };
      },
      writeGlobal: async (key, value) => {
        await vscode.workspace
          .getConfiguration(MERGE_CONFLICT_SECTION)
          .update(key, value, vscode.ConfigurationTarget.Global);
      },
    },
    {
      get: () => context.globalState.get<Saved>(SAVED_KEY),
      set: async (saved) => {
        await context.globalState.update(SAVED_KEY, saved);
      },
    },
  );
  const follow = (): void => void marks.follow(hidden(isReply)).catch(() => undefined);
  await marks.recover().catch(() => undefined);
  context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor(follow),
    vscode.window.onDidChangeVisibleTextEditors(follow),
    // A block written (or deleted) in a document on screen.
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (vscode.window.visibleTextEditors.some((editor) => editor.document === event.document)) {
        follow();
      }
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("lspEdit") || event.affectsConfiguration(MERGE_CONFLICT_SECTION)) {
        follow();
      }
    }),
  );
  follow();
  return marks;
}

/** Whether the marks are hidden now (`replyInFront`), unless the user keeps them. */
function hidden(isReply: IsReply): boolean {
  if (!vscode.workspace.getConfiguration("lspEdit").get<boolean>("replyDocuments.hideMergeConflict", true)) {
    return false;
  }
  const shown = (document: vscode.TextDocument): Shown =>
    shownAs(isReply(document), document.languageId, document.getText());
  const active = vscode.window.activeTextEditor?.document;
  return replyInFront(
    active && shown(active),
    vscode.window.visibleTextEditors.map((editor) => shown(editor.document)),
  );
}
