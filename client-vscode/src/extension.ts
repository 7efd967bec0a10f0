// The VS Code client of `lsp-edit serve`: starts the server, and gives its review
// one keyboard flow (next change, accept, reject), a status bar count, decorations
// for what pending changes write, and the proposed file as a diff.

import { execFileSync } from "node:child_process";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  CancellationToken,
  type ShowDocumentParams,
  type ShowDocumentRequest,
  type ShowDocumentResult,
} from "vscode-languageclient/node";

import { askArgument, askNotice, type AskResult, errorMessage, llmSettings } from "./logic/ask";
import {
  additions,
  type Change,
  changeAt,
  type Decision,
  decisionNotice,
  notApplied,
  type Notice,
  pending,
  pickItems,
  plainText,
  proposeNotice,
  reviewState,
  statusText,
} from "./logic/changes";
import { fileUriOf, isReply, isSource, PROPOSED_SCHEME, serverCommand, startFailure } from "./logic/server";
import { offerLanguageModels } from "./models";
import { InlineReview } from "./inline";
import { hideConflictMarksInReplies } from "./mergeConflict";
import { type ConflictMarks } from "./logic/mergeConflict";

let client: LanguageClient | undefined;
let conflictMarks: ConflictMarks | undefined;

/** How long a review notification stays at most: as long as VS Code shows an
 * information message. */
const REVIEW_NOTIFICATION_MS = 15_000;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  conflictMarks = await hideConflictMarksInReplies(context, (document) =>
    isReply(document.uri.path, replyGlobs()),
  );
  const review = new Review(context);
  await review.start();
}

export async function deactivate(): Promise<void> {
  await Promise.all([conflictMarks?.end(), client?.stop()]);
}

/** The notification of a proposed reply's review: it says what waits, its bar how
 * much is decided, and it closes once nothing of the reply waits, or after as long as
 * VS Code shows a message (the status bar keeps the count). VS Code cannot close a
 * plain message, which would stay in the notification center, saying what is no
 * longer true: a progress notification is closed by its extension. */
interface ReviewNotification {
  text: string;
  /** How many changes waited at first, and the share of them decided so far (%). */
  total: number;
  decided: number;
  progress: vscode.Progress<{ message?: string; increment?: number }>;
  end: () => void;
}

class Review {
  private changes: Change[] = [];
  private lastSource: vscode.Uri | undefined;
  private readonly reviews = new Map<string, ReviewNotification>();
  private refreshing: NodeJS.Timeout | undefined;
  /** The files whose diagnostics changed since the last refresh. */
  private readonly touched = new Map<string, vscode.Uri>();
  private inline: InlineReview | undefined;
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  private readonly output = vscode.window.createOutputChannel("LSP Edit");
  private readonly added = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    after: {
      color: new vscode.ThemeColor("editorGhostText.foreground"),
      fontStyle: "italic",
      margin: "0 0 0 2em",
    },
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });

  constructor(private readonly context: vscode.ExtensionContext) {
    context.subscriptions.push(this.status, this.output, this.added);
    this.status.command = "lsp-edit.listChanges";
    this.status.tooltip = "LSP Edit: the changes waiting for review";
  }

  async start(): Promise<void> {
    const configured = vscode.workspace.getConfiguration("lspEdit").get<string[]>("server.command", []);
    const used = serverCommand(configured, onPath, await selectedPython());
    const serverOptions: ServerOptions = { command: used.command, args: used.args };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }],
      initializationOptions: { lspEdit: settings() },
      outputChannel: this.output,
      middleware: {
        // The lenses and code actions run the server's commands directly: what they
        // decided is told here, as for the palette's commands.
        executeCommand: async (command, args, next) => {
          const before = this.changes;
          const result = await next(command, args);
          this.tell(decisionNotice(command, (result ?? {}) as Decision, before));
          return result;
        },
        // Diagnostics are plain text in VS Code.
        handleDiagnostics: (uri, diagnostics, next) => {
          for (const diagnostic of diagnostics) {
            diagnostic.message = plainText(diagnostic.message);
          }
          next(uri, diagnostics);
        },
        window: { showDocument: (params, next) => showReplyBeside(params, next) },
      },
    };
    client = new LanguageClient("lspEdit", "LSP Edit", serverOptions, clientOptions);
    this.context.subscriptions.push(offerLanguageModels(client));
    try {
      await client.start();
    } catch (error) {
      const open = "Open Settings";
      const chosen = await vscode.window.showErrorMessage(startFailure(used, error), open);
      if (chosen === open) {
        await vscode.commands.executeCommand("workbench.action.openSettings", "lspEdit.server.command");
      }
      return;
    }
    this.register();
    this.noteActive(vscode.window.activeTextEditor);
    this.status.show();
    await this.refresh();
  }

  private register(): void {
    const commands: [string, (...args: any[]) => Promise<unknown>][] = [
      ["lsp-edit.applyFromClipboard", () => this.applyFromClipboard()],
      ["lsp-edit.applyFromSelection", () => this.applyFromSelection()],
      ["lsp-edit.applyFromActiveEditor", () => this.applyFromActiveEditor()],
      ["lsp-edit.acceptChange", (id?: unknown) => this.decideAtCursor("lspEdit.accept", id)],
      ["lsp-edit.rejectChange", (id?: unknown) => this.decideAtCursor("lspEdit.reject", id)],
      ["lsp-edit.nextChange", () => this.step("lspEdit.next")],
      ["lsp-edit.previousChange", () => this.step("lspEdit.previous")],
      ["lsp-edit.acceptAll", () => this.all("lspEdit.acceptAll")],
      ["lsp-edit.rejectAll", () => this.all("lspEdit.rejectAll")],
      ["lsp-edit.showProposedDiff", () => this.showProposedDiff()],
      ["lsp-edit.review", () => this.review()],
      ["lsp-edit.copyInstructions", () => this.copyInstructions()],
      ["lsp-edit.listChanges", () => this.listChanges()],
      ["lsp-edit.ask", () => this.ask()],
    ];
    for (const [name, run] of commands) {
      this.context.subscriptions.push(vscode.commands.registerCommand(name, run));
    }
    this.inline = new InlineReview(this.context, (command, argument) => this.exec(command, argument));
    this.context.subscriptions.push(
      vscode.languages.onDidChangeDiagnostics((event) => {
        for (const uri of event.uris) {
          this.touched.set(uri.toString(), uri);
        }
        this.refreshSoon();
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        this.noteActive(editor);
        this.decorate();
        this.updateContext();
      }),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorate()),
      vscode.window.onDidChangeTextEditorSelection(() => this.updateContext()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration("lspEdit")) {
          void client?.sendNotification(DidChangeConfigurationNotification.type, {
            settings: { lspEdit: settings() },
          });
        }
      }),
    );
  }

  // --- what the server is asked -------------------------------------------------

  private async exec(command: string, argument: object): Promise<any> {
    if (!client) {
      throw new Error("the LSP Edit server is not running");
    }
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] });
  }

  private refreshSoon(): void {
    if (this.refreshing) {
      clearTimeout(this.refreshing);
    }
    this.refreshing = setTimeout(() => void this.refresh(), 100);
  }

  private async refresh(): Promise<void> {
    try {
      this.changes = (await this.exec("lspEdit.list", {})).changes as Change[];
    } catch (error) {
      this.output.appendLine(`lspEdit.list failed: ${String(error)}`);
      return;
    }
    const count = pending(this.changes).length;
    this.status.text = statusText(count, notApplied(this.changes).length);
    await vscode.commands.executeCommand("setContext", "lspEdit.hasPendingChanges", count > 0);
    this.decorate();
    this.updateContext();
    this.updateReviews();
    this.inline?.follow([...this.touched.values()]);
    this.touched.clear();
  }

  /** Each review notification says what of its reply waits now, its bar how much is
   * decided, and it ends with the review. */
  private updateReviews(): void {
    for (const [session, review] of this.reviews) {
      const state = reviewState(this.changes, session, relativePath);
      if (state === undefined) {
        this.endReview(session);
      } else if (state.text !== review.text) {
        review.total = Math.max(review.total, state.waiting);
        const decided = (100 * (review.total - state.waiting)) / review.total;
        review.progress.report({ message: state.text, increment: Math.max(decided - review.decided, 0) });
        review.text = state.text;
        review.decided = Math.max(decided, review.decided);
      }
    }
  }

  private followReview(session: string): void {
    if (this.reviews.has(session)) {
      return;
    }
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "LSP Edit" },
      (progress) =>
        new Promise<void>((end) => {
          this.reviews.set(session, { text: "", total: 0, decided: 0, progress, end });
          this.updateReviews();
        }),
    );
    setTimeout(() => this.endReview(session), REVIEW_NOTIFICATION_MS);
  }

  private endReview(session: string): void {
    this.reviews.get(session)?.end();
    this.reviews.delete(session);
  }

  private tell(notice: Notice | undefined): void {
    if (notice?.level === "warning") {
      void vscode.window.showWarningMessage(notice.text);
    } else if (notice) {
      void vscode.window.showInformationMessage(notice.text);
    }
  }

  private decorate(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const notes = additions(this.changes, editor.document.uri.toString());
      editor.setDecorations(
        this.added,
        notes
          .filter((note) => note.line < editor.document.lineCount)
          .map((note) => ({
            range: editor.document.lineAt(note.line).range,
            renderOptions: { after: { contentText: note.text } },
          })),
      );
    }
  }

  private updateContext(): void {
    void vscode.commands.executeCommand("setContext", "lspEdit.changeAtCursor", Boolean(this.changeAtCursor()));
  }

  /** The pending change under the cursor: in a file, or in the proposed side of its
   * review (the diff editor's original side is the file). */
  private changeAtCursor(): Change | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      return undefined;
    }
    const line = editor.selection.active.line;
    if (editor.document.uri.scheme === PROPOSED_SCHEME) {
      const id = this.inline?.changeAt(editor.document, line);
      return pending(this.changes).find((change) => change.id === id);
    }
    return changeAt(this.changes, editor.document.uri.toString(), line);
  }

  /** The source file the user looks at: where a reply that names no file goes (see
   * `isSource`: Markdown and plain text, where replies are kept, are none). */
  private noteActive(editor: vscode.TextEditor | undefined): void {
    const document = editor?.document;
    if (!document || !isSource(document.uri.scheme, document.uri.path, document.languageId, replyGlobs())) {
      return;
    }
    const uri = document.uri;
    this.lastSource = uri;
    void client?.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { lspEdit: { uri: uri.toString() } },
    });
  }

  // --- applying a reply ---------------------------------------------------------------

  private async applyFromClipboard(): Promise<void> {
    await this.propose(await vscode.env.clipboard.readText(), this.targetBeside(undefined));
  }

  private async applyFromSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty) {
      void vscode.window.showWarningMessage("LSP Edit: select the reply's text first.");
      return;
    }
    await this.propose(editor.document.getText(editor.selection), this.targetBeside(editor.document.uri));
  }

  private async applyFromActiveEditor(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showWarningMessage("LSP Edit: open the reply in an editor first.");
      return;
    }
    await this.propose(editor.document.getText(), this.targetBeside(editor.document.uri));
  }

  /** The default target for a reply held in `holder`: the source file looked at
   * last, unless that is the reply itself. */
  private targetBeside(holder: vscode.Uri | undefined): vscode.Uri | undefined {
    return this.lastSource && this.lastSource.toString() !== holder?.toString() ? this.lastSource : undefined;
  }

  private async propose(reply: string, target: vscode.Uri | undefined): Promise<void> {
    if (!reply.trim()) {
      void vscode.window.showWarningMessage("LSP Edit: the reply is empty.");
      return;
    }
    const argument: Record<string, string> = { response: reply };
    if (target) {
      argument.uri = target.toString();
    }
    const result = await this.exec("lspEdit.propose", argument);
    const made = result.changes as Change[];
    await this.refresh();
    if (pending(made).length > 0) {
      this.followReview(result.session as string);
    }
    const notice = proposeNotice(made, result.summary as string);
    if (notice?.level === "warning") {
      const copy = "Copy Summary for the LLM";
      const list = "List Changes";
      void vscode.window.showWarningMessage(notice.text, copy, list).then(async (chosen) => {
        if (chosen === copy) {
          await vscode.env.clipboard.writeText(result.summary as string);
        } else if (chosen === list) {
          await this.listChanges();
        }
      });
    } else {
      this.tell(notice);
    }
    // The reply's first pending change is shown at once: the review starts there.
    const first = pending(made)[0];
    if (first) {
      await this.exec("lspEdit.show", { id: first.id });
    }
  }

  // --- deciding ---------------------------------------------------------------------------

  /** Decides the change `id` (a lens of the review names it), else the change under
   * the cursor. */
  private async decideAtCursor(command: "lspEdit.accept" | "lspEdit.reject", id?: unknown): Promise<void> {
    await this.refresh();
    const change =
      typeof id === "string" ? pending(this.changes).find((c) => c.id === id) : this.changeAtCursor();
    if (!change) {
      void vscode.window.showInformationMessage("LSP Edit: no pending change at the cursor.");
      return;
    }
    const result = await this.exec(command, { id: change.id });
    this.tell(decisionNotice(command, result as Decision, this.changes));
    if (change.uri) {
      this.inline?.follow([vscode.Uri.parse(change.uri)]);
    }
    await this.refresh();
  }

  private async step(command: "lspEdit.next" | "lspEdit.previous"): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    // In a review, on to the next change there.
    if (editor?.document.uri.scheme === PROPOSED_SCHEME && this.inline?.step(editor, command === "lspEdit.next")) {
      return;
    }
    const argument: Record<string, unknown> = {};
    if (editor?.document.uri.scheme === "file") {
      argument.uri = editor.document.uri.toString();
      argument.position = { line: editor.selection.active.line, character: 0 };
    }
    const result = await this.exec(command, argument);
    if (!result.change) {
      void vscode.window.showInformationMessage("LSP Edit: no pending change.");
    }
  }

  private async all(command: "lspEdit.acceptAll" | "lspEdit.rejectAll"): Promise<void> {
    await this.refresh();
    const before = this.changes;
    const result = await this.exec(command, {});
    this.tell(decisionNotice(command, result as Decision, before));
    await this.refresh();
  }

  // --- looking ------------------------------------------------------------------------------

  /** The active file's review: all its pending changes, inline. */
  private async showProposedDiff(): Promise<void> {
    const uri = vscode.window.activeTextEditor?.document.uri ?? this.lastSource;
    if (!uri || uri.scheme !== "file") {
      void vscode.window.showWarningMessage("LSP Edit: open the file to compare first.");
      return;
    }
    await this.inline?.openFile(uri, undefined);
  }

  /** One key from a pending change: the review of its reply, inline, with the cursor
   * on it; from a review, back to the file, on the change under the cursor. */
  private async review(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      return;
    }
    await this.refresh();
    const uri = editor.document.uri;
    const change = this.changeAtCursor();
    if (uri.scheme === PROPOSED_SCHEME) {
      const file = vscode.Uri.parse(fileUriOf(uri.toString()));
      if (change) {
        await this.reveal(file, change.range?.start.line ?? 0);
      } else {
        await vscode.window.showTextDocument(file);
      }
      return;
    }
    if (uri.scheme !== "file") {
      return;
    }
    if (change) {
      await this.inline?.openReply(change, this.changes);
      return;
    }
    const next = this.nextInFile(uri.toString(), editor.selection.active.line);
    if (!next) {
      void vscode.window.showInformationMessage("LSP Edit: no pending change in this file.");
      return;
    }
    await this.inline?.openFile(uri, next.id);
  }

  /** The file's first pending change at or after `line`, else its first. */
  private nextInFile(uri: string, line: number): Change | undefined {
    const inFile = pending(this.changes)
      .filter((change) => change.uri === uri)
      .sort((a, b) => (a.range?.start.line ?? 0) - (b.range?.start.line ?? 0));
    return inFile.find((change) => (change.range?.start.line ?? 0) >= line) ?? inFile[0];
  }

  private async copyInstructions(): Promise<void> {
    const configured = vscode.workspace.getConfiguration("lspEdit").get<string>("mode", "auto");
    const mode = configured === "auto" ? "ast_path" : configured;
    const result = await this.exec("lspEdit.instructions", { mode });
    await vscode.env.clipboard.writeText(result.text as string);
    void vscode.window.showInformationMessage(`LSP Edit: the ${mode} instructions are on the clipboard.`);
  }

  // --- asking the model ------------------------------------------------------------------

  /** LSP Edit: Ask…: the prompt from an input box, about the active file and its
   * selection. The reply streams into `<file>.llm.md` beside it (the server shows it),
   * each block a pending change as it closes; the server's progress shows it writing
   * and cancels it. */
  private async ask(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const selected = editor && !editor.selection.isEmpty ? editor.selection : undefined;
    const prompt = await vscode.window.showInputBox({
      title: "LSP Edit: Ask the model",
      prompt: selected ? `About lines ${selected.start.line + 1}-${selected.end.line + 1}` : undefined,
      placeHolder: "What should change?",
      ignoreFocusOut: true,
    });
    if (!prompt?.trim()) {
      return;
    }
    const argument = askArgument(prompt, editor?.document.uri, selected);
    let result: AskResult;
    try {
      result = (await this.exec("lspEdit.ask", argument)) as AskResult;
    } catch (error) {
      void vscode.window.showErrorMessage(`LSP Edit: ${errorMessage(error)}`);
      return;
    }
    // The server wrote the reply into the document: keep it, as a chat keeps its log.
    const reply = vscode.workspace.textDocuments.find((document) => document.uri.toString() === result.uri);
    if (reply?.isDirty) {
      await reply.save();
    }
    await this.refresh();
    const notice = askNotice(result);
    if (notice) {
      void vscode.window.showInformationMessage(notice);
    }
  }

  /** Every pending change, then every block not applied with its reason: picking one
   * goes to it (a failure: to its problem, in a file open or not). */
  private async listChanges(): Promise<void> {
    await this.refresh();
    const list = pickItems(this.changes, relativePath);
    if (list.pending.length === 0 && list.notApplied.length === 0) {
      void vscode.window.showInformationMessage("LSP Edit: no pending change, and no block that failed.");
      return;
    }
    type Item = vscode.QuickPickItem & { change?: Change };
    const separator = (label: string): Item => ({ label, kind: vscode.QuickPickItemKind.Separator });
    const items: Item[] = [
      ...(list.pending.length > 0 ? [separator("Pending"), ...list.pending] : []),
      ...(list.notApplied.length > 0 ? [separator("Not applied"), ...list.notApplied] : []),
    ];
    const chosen = await vscode.window.showQuickPick(items, {
      placeHolder: "Pending changes and blocks not applied: pick one to go to it",
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (chosen?.change) {
      await this.goTo(chosen.change);
    }
  }

  private async goTo(change: Change): Promise<void> {
    const where = change.status === "pending" ? undefined : problemOf(change.id);
    if (where) {
      await this.reveal(where.uri, where.range.start.line);
    } else if (change.uri) {
      await this.reveal(vscode.Uri.parse(change.uri), change.range?.start.line ?? 0);
    } else if (change.block) {
      await this.reveal(vscode.Uri.parse(change.block.uri), change.block.range.start.line);
    } else {
      void vscode.window.showWarningMessage(plainText(`LSP Edit: ${change.description}: ${change.message ?? change.status}`));
    }
  }

  private async reveal(uri: vscode.Uri, line: number): Promise<void> {
    const position = new vscode.Position(line, 0);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position) });
  }
}

/** Where the server shows a change's problem: the diagnostic that carries its id. */
function problemOf(id: string): { uri: vscode.Uri; range: vscode.Range } | undefined {
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    for (const diagnostic of diagnostics) {
      const data = (diagnostic as { data?: { id?: unknown } }).data;
      if (diagnostic.source === "lsp-edit" && data?.id === id) {
        return { uri, range: diagnostic.range };
      }
    }
  }
  return undefined;
}

function relativePath(uri: string): string {
  return vscode.workspace.asRelativePath(vscode.Uri.parse(uri));
}

function settings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration("lspEdit");
  return {
    mode: config.get("mode", "auto"),
    replyGlobs: replyGlobs(),
    pendingSeverity: config.get("pendingSeverity", "information"),
    llm: llmSettings(config.get<Record<string, unknown>>("llm", {})),
    retryFailed: config.get("retryFailed", false),
  };
}

/** A reply document the server shows (`lspEdit.ask`) opens beside the active editor,
 * the cursor staying where it is; other documents as the client opens them. */
async function showReplyBeside(
  params: ShowDocumentParams,
  next: ShowDocumentRequest.HandlerSignature,
): Promise<ShowDocumentResult> {
  if (!isReply(vscode.Uri.parse(params.uri).path, replyGlobs()) || params.selection) {
    return (await next(params, CancellationToken.None)) as ShowDocumentResult;
  }
  try {
    await vscode.window.showTextDocument(vscode.Uri.parse(params.uri), {
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: !params.takeFocus,
      preview: false,
    });
    return { success: true };
  } catch {
    return { success: false };
  }
}

function replyGlobs(): string[] {
  return vscode.workspace.getConfiguration("lspEdit").get<string[]>("replyGlobs", ["**/*.llm.md"]);
}

function onPath(program: string): boolean {
  try {
    execFileSync(process.platform === "win32" ? "where" : "which", [program], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The Python interpreter the Python extension has selected, when it is there. */
async function selectedPython(): Promise<string | undefined> {
  const python = vscode.extensions.getExtension("ms-python.python");
  if (!python) {
    return undefined;
  }
  try {
    const api = python.isActive ? python.exports : await python.activate();
    const path = api?.environments?.getActiveEnvironmentPath?.()?.path;
    return typeof path === "string" && path ? path : undefined;
  } catch {
    return undefined;
  }
}
