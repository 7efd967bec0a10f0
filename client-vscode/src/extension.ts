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
import { additions, type Change, changeAt, pending, pickItems, proposeNotice, statusText } from "./logic/changes";
import {
  fileUriOf,
  isReply,
  PROPOSED_SCHEME,
  proposedUri,
  serverCommand,
  startFailure,
} from "./logic/server";

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const review = new Review(context);
  await review.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

class Review {
  private changes: Change[] = [];
  private lastSource: vscode.Uri | undefined;
  private refreshing: NodeJS.Timeout | undefined;
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
      middleware: { window: { showDocument: (params, next) => showReplyBeside(params, next) } },
    };
    client = new LanguageClient("lspEdit", "LSP Edit", serverOptions, clientOptions);
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
    const commands: [string, () => Promise<unknown>][] = [
      ["lsp-edit.applyFromClipboard", () => this.applyFromClipboard()],
      ["lsp-edit.applyFromSelection", () => this.applyFromSelection()],
      ["lsp-edit.applyFromActiveEditor", () => this.applyFromActiveEditor()],
      ["lsp-edit.acceptChange", () => this.decideAtCursor("lspEdit.accept")],
      ["lsp-edit.rejectChange", () => this.decideAtCursor("lspEdit.reject")],
      ["lsp-edit.nextChange", () => this.step("lspEdit.next")],
      ["lsp-edit.previousChange", () => this.step("lspEdit.previous")],
      ["lsp-edit.acceptAll", () => this.all("lspEdit.acceptAll", "accepted")],
      ["lsp-edit.rejectAll", () => this.all("lspEdit.rejectAll", "rejected")],
      ["lsp-edit.showProposedDiff", () => this.showProposedDiff()],
      ["lsp-edit.copyInstructions", () => this.copyInstructions()],
      ["lsp-edit.listChanges", () => this.listChanges()],
      ["lsp-edit.ask", () => this.ask()],
    ];
    for (const [name, run] of commands) {
      this.context.subscriptions.push(vscode.commands.registerCommand(name, run));
    }
    this.context.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, {
        provideTextDocumentContent: async (uri) => {
          const result = await this.exec("lspEdit.proposed", { uri: fileUriOf(uri.toString()) });
          return result.text as string;
        },
      }),
      vscode.languages.onDidChangeDiagnostics(() => this.refreshSoon()),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        this.noteActive(editor);
        this.decorate();
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
    this.status.text = statusText(count);
    await vscode.commands.executeCommand("setContext", "lspEdit.hasPendingChanges", count > 0);
    this.decorate();
    this.updateContext();
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
    const editor = vscode.window.activeTextEditor;
    const here = editor && changeAt(this.changes, editor.document.uri.toString(), editor.selection.active.line);
    void vscode.commands.executeCommand("setContext", "lspEdit.changeAtCursor", Boolean(here));
  }

  /** The source file the user looks at: where a reply that names no file goes. */
  private noteActive(editor: vscode.TextEditor | undefined): void {
    const uri = editor?.document.uri;
    if (!uri || uri.scheme !== "file" || isReply(uri.path, replyGlobs())) {
      return;
    }
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
    const active = vscode.window.activeTextEditor?.document.uri;
    if (holder === undefined && active?.scheme === "file" && !isReply(active.path, replyGlobs())) {
      return active;
    }
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
    await this.refresh();
    const made = result.changes as Change[];
    const notice = proposeNotice(made, result.summary as string);
    const copy = "Copy Summary for the LLM";
    const shown =
      notice.level === "warning"
        ? vscode.window.showWarningMessage(notice.text, copy)
        : vscode.window.showInformationMessage(notice.text);
    void shown.then(async (chosen) => {
      if (chosen === copy) {
        await vscode.env.clipboard.writeText(result.summary as string);
      }
    });
    // The reply's first pending change is shown at once: the review starts there.
    const first = pending(made)[0];
    if (first) {
      await this.exec("lspEdit.show", { id: first.id });
    }
  }

  // --- deciding ---------------------------------------------------------------------------

  private async decideAtCursor(command: "lspEdit.accept" | "lspEdit.reject"): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      return;
    }
    await this.refresh();
    const change = changeAt(this.changes, editor.document.uri.toString(), editor.selection.active.line);
    if (!change) {
      void vscode.window.showInformationMessage("LSP Edit: no pending change at the cursor.");
      return;
    }
    const result = await this.exec(command, { id: change.id });
    if (result.message) {
      void vscode.window.showWarningMessage(`LSP Edit: ${result.message as string}`);
    }
    await this.refresh();
  }

  private async step(command: "lspEdit.next" | "lspEdit.previous"): Promise<void> {
    const editor = vscode.window.activeTextEditor;
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

  private async all(command: string, done: string): Promise<void> {
    const result = await this.exec(command, {});
    const count = (result.changes as Change[]).filter((change) => change.status === done).length;
    void vscode.window.showInformationMessage(`LSP Edit: ${count} ${count === 1 ? "change" : "changes"} ${done}.`);
    await this.refresh();
  }

  // --- looking ------------------------------------------------------------------------------

  private async showProposedDiff(): Promise<void> {
    const uri = vscode.window.activeTextEditor?.document.uri ?? this.lastSource;
    if (!uri || uri.scheme !== "file") {
      void vscode.window.showWarningMessage("LSP Edit: open the file to compare first.");
      return;
    }
    const proposed = vscode.Uri.parse(proposedUri(uri.toString()));
    const name = uri.path.split("/").pop() ?? "file";
    await vscode.commands.executeCommand("vscode.diff", uri, proposed, `${name} ↔ with the pending changes`);
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

  private async listChanges(): Promise<void> {
    await this.refresh();
    const items = pickItems(this.changes, (uri) => vscode.workspace.asRelativePath(vscode.Uri.parse(uri)));
    if (items.length === 0) {
      void vscode.window.showInformationMessage("LSP Edit: no pending change.");
      return;
    }
    const chosen = await vscode.window.showQuickPick(items, { placeHolder: "Pending changes: pick one to go to it" });
    if (chosen?.change.uri) {
      const start = chosen.change.range?.start ?? { line: 0, character: 0 };
      const position = new vscode.Position(start.line, 0);
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(chosen.change.uri));
      await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position) });
    }
  }
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
