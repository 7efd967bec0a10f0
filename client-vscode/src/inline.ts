// The inline review: VS Code's diff editor, inline, between a file and its
// `lsp-edit-proposed:` document (the file with every pending change applied), or
// the multi-file diff editor for a reply that changes several files. VS Code lets
// no extension draw lines between a file's lines: this is the closest it allows
// (docs/vscode.md says what it rules out).

import * as vscode from "vscode";

import { type Change } from "./logic/changes";
import {
  changeInProposal,
  filesOfReply,
  lineOfChange,
  nextLineInProposal,
  type Proposal,
  reviewLanguage,
  REVIEW_LANGUAGE,
} from "./logic/review";
import { fileUriOf, PROPOSED_SCHEME, proposedUri } from "./logic/server";

export type Exec = (command: string, argument: object) => Promise<any>;

export class InlineReview implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider {
  private readonly proposals = new Map<string, Proposal>();
  /** The proposed documents being read now, and whether to read them once more. */
  private readonly reading = new Map<string, boolean>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  /** The languages the extension shows proposed documents in (package.json). */
  private readonly languages: string[];

  constructor(
    context: vscode.ExtensionContext,
    private readonly exec: Exec,
  ) {
    const contributed = (context.extension.packageJSON?.contributes?.languages ?? []) as { id: string }[];
    this.languages = contributed.map((language) => language.id).filter((id) => id.startsWith(REVIEW_LANGUAGE));
    context.subscriptions.push(
      this.changed,
      this.lensesChanged,
      vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this),
      vscode.languages.registerCodeLensProvider({ scheme: PROPOSED_SCHEME }, this),
      // Kept when a proposed document closes: setting its language closes and opens it.
      vscode.workspace.onDidOpenTextDocument((document) => void this.showInReviewLanguage(document)),
      // Typing in a file moves its changes: its review follows at once (VS Code
      // sends the keystroke to the server before asking), not when the diagnostics
      // do, so the diff editor, which compares 200 ms after a change, never shows
      // what was typed as deleted.
      vscode.workspace.onDidChangeTextDocument((event) => this.follow([event.document.uri])),
    );
    for (const document of vscode.workspace.textDocuments) {
      void this.showInReviewLanguage(document);
    }
  }

  // --- the proposed documents -------------------------------------------------------

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const key = uri.toString();
    this.reading.set(key, false);
    try {
      const proposal = (await this.exec("lspEdit.proposed", { uri: fileUriOf(key) })) as Proposal;
      this.proposals.set(key, { text: proposal.text, changes: proposal.changes ?? [] });
      this.lensesChanged.fire();
      return proposal.text;
    } finally {
      const again = this.reading.get(key);
      this.reading.delete(key);
      if (again) {
        this.changed.fire(uri);
      }
    }
  }

  /** The files whose changes changed (their diagnostics did): their open proposed
   * documents are read again, so an open review follows decisions, typing and a
   * streamed reply. */
  follow(files: readonly vscode.Uri[]): void {
    const open = new Set(
      vscode.workspace.textDocuments.filter((d) => d.uri.scheme === PROPOSED_SCHEME).map((d) => d.uri.toString()),
    );
    for (const file of files) {
      // Parsed again: VS Code writes `lsp-edit-proposed:/p/x.py`, with no `//`.
      const proposed = vscode.Uri.parse(proposedUri(file.toString()));
      if (file.scheme !== "file" || !open.has(proposed.toString())) {
        continue;
      }
      // One read at a time, and one more after it for all that happened meanwhile.
      if (this.reading.has(proposed.toString())) {
        this.reading.set(proposed.toString(), true);
      } else {
        this.changed.fire(proposed);
      }
    }
  }

  /** VS Code reads a diff editor's settings for the language of its modified side:
   * the proposed side's language is the review's own version of the file's
   * language, whose defaults (package.json) show the diff inline with lenses. */
  private async showInReviewLanguage(document: vscode.TextDocument): Promise<void> {
    if (document.uri.scheme !== PROPOSED_SCHEME) {
      return;
    }
    const language = reviewLanguage(document.languageId, this.languages);
    if (language !== document.languageId) {
      await vscode.languages.setTextDocumentLanguage(document, language);
    }
  }

  // --- the change under the cursor ----------------------------------------------------

  /** The id of the pending change under the cursor of a proposed document. */
  changeAt(document: vscode.TextDocument, line: number): string | undefined {
    const proposal = this.proposals.get(document.uri.toString());
    return proposal && changeInProposal(proposal, line);
  }

  /** Moves the cursor of a proposed document's editor to the next (or previous)
   * change; false when it holds none. */
  step(editor: vscode.TextEditor, forward: boolean): boolean {
    const proposal = this.proposals.get(editor.document.uri.toString());
    const line = proposal && nextLineInProposal(proposal, editor.selection.active.line, forward);
    if (line === undefined) {
      return false;
    }
    const at = new vscode.Position(line, 0);
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return true;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const proposal = this.proposals.get(document.uri.toString());
    if (!proposal) {
      return [];
    }
    return proposal.changes.flatMap((change) => {
      const line = Math.min(change.ranges[0]?.start.line ?? 0, Math.max(document.lineCount - 1, 0));
      const range = new vscode.Range(line, 0, line, 0);
      return [
        new vscode.CodeLens(range, { title: "Accept", command: "lsp-edit.acceptChange", arguments: [change.id] }),
        new vscode.CodeLens(range, { title: "Reject", command: "lsp-edit.rejectChange", arguments: [change.id] }),
      ];
    });
  }

  // --- opening the review -------------------------------------------------------------

  /** The review of `change`'s reply: the file inline with the cursor on the change,
   * or, when the reply changes several files, all of them in the multi-file diff
   * editor. */
  async openReply(change: Change, changes: readonly Change[]): Promise<void> {
    const files = filesOfReply(changes, change);
    if (files.length > 1) {
      await this.openFiles(files);
    } else if (change.uri) {
      await this.openFile(vscode.Uri.parse(change.uri), change.id);
    }
  }

  /** The review of a file, the cursor on the change `id` (else on its first one). */
  async openFile(file: vscode.Uri, id: string | undefined): Promise<void> {
    const proposed = vscode.Uri.parse(proposedUri(file.toString()));
    // Read first: the language is set and the cursor placed on the change.
    const document = await vscode.workspace.openTextDocument(proposed);
    await this.showInReviewLanguage(document);
    const proposal = this.proposals.get(proposed.toString());
    const line =
      (proposal && id !== undefined ? lineOfChange(proposal, id) : undefined) ?? proposal?.changes[0]?.ranges[0]?.start.line;
    const options: vscode.TextDocumentShowOptions = { preview: false };
    if (line !== undefined) {
      options.selection = new vscode.Range(line, 0, line, 0);
    }
    await vscode.commands.executeCommand("vscode.diff", file, proposed, `${baseName(file)}: pending changes`, options);
  }

  private async openFiles(files: readonly string[]): Promise<void> {
    const rows: [vscode.Uri, vscode.Uri, vscode.Uri][] = [];
    for (const file of files) {
      const uri = vscode.Uri.parse(file);
      const proposed = vscode.Uri.parse(proposedUri(file));
      await this.showInReviewLanguage(await vscode.workspace.openTextDocument(proposed));
      rows.push([uri, uri, proposed]);
    }
    await vscode.commands.executeCommand("vscode.changes", "The reply's pending changes", rows);
  }
}

function baseName(uri: vscode.Uri): string {
  return uri.path.split("/").pop() ?? uri.path;
}
