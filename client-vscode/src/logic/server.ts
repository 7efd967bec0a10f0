// Which command starts the language server, and the URIs and globs the server
// uses. Nothing here imports `vscode`.

export const PROPOSED_SCHEME = "lsp-edit-proposed";

export interface ServerCommand {
  command: string;
  args: string[];
}

/** `lspEdit.server.command` when set; else `lsp-edit serve` when `lsp-edit` is on
 * PATH; else the selected Python's `-m lsp_edit serve`. */
export function serverCommand(
  configured: readonly string[],
  onPath: (program: string) => boolean,
  python: string | undefined,
): ServerCommand {
  if (configured.length > 0) {
    return { command: configured[0], args: configured.slice(1) };
  }
  if (onPath("lsp-edit")) {
    return { command: "lsp-edit", args: ["serve"] };
  }
  return { command: python ?? "python3", args: ["-m", "lsp_edit", "serve"] };
}

/** What to tell the user when the server does not start, with the fix. */
export function startFailure(used: ServerCommand, error: unknown): string {
  const shown = [used.command, ...used.args].join(" ");
  const reason = error instanceof Error ? error.message : String(error);
  return (
    `LSP Edit could not start its server (\`${shown}\`): ${reason}. ` +
    "Install lsp-edit (`pip install lsp-edit`, or `bash scripts/setup.sh` in a checkout), " +
    "or set `lspEdit.server.command` to its path, such as [\"/path/to/.venv/bin/lsp-edit\", \"serve\"]."
  );
}

/** `file:///p/x.py` -> `lsp-edit-proposed:///p/x.py`: the file with its changes. */
export function proposedUri(fileUri: string): string {
  return fileUri.replace(/^file:/, "lsp-edit-proposed:");
}

/** `lsp-edit-proposed:///p/x.py` -> `file:///p/x.py`. */
export function fileUriOf(proposed: string): string {
  return proposed.replace(/^lsp-edit-proposed:/, "file:");
}

/** Whether a path is a reply document for these globs (`**` any folders, `*` and `?`
 * within one), as the server decides it. */
export function isReply(path: string, globs: readonly string[]): boolean {
  const normal = path.replace(/\\/g, "/").replace(/^\/+/, "");
  return globs.some((glob) => globPattern(glob.replace(/^\/+/, "")).test(normal));
}

function globPattern(glob: string): RegExp {
  let out = "";
  for (let index = 0; index < glob.length; ) {
    if (glob.startsWith("**/", index)) {
      out += "(?:.*/)?";
      index += 3;
    } else if (glob.startsWith("**", index)) {
      out += ".*";
      index += 2;
    } else if (glob[index] === "*") {
      out += "[^/]*";
      index += 1;
    } else if (glob[index] === "?") {
      out += "[^/]";
      index += 1;
    } else {
      out += glob[index].replace(/[.+^${}()|[\]\\]/g, "\\$&");
      index += 1;
    }
  }
  return new RegExp(`^${out}$`);
}

/** Languages of the documents replies are kept in: never a reply's default target. */
export const PROSE_LANGUAGES: readonly string[] = ["markdown", "plaintext"];

/** Whether a document is a *source file*: where a reply whose blocks name no file
 * goes when it was the last one focused. A file on disk that is not a reply document
 * (`replyGlobs`) and not Markdown or plain text, the documents replies are kept in. */
export function isSource(scheme: string, path: string, languageId: string, globs: readonly string[]): boolean {
  return scheme === "file" && !PROSE_LANGUAGES.includes(languageId) && !isReply(path, globs);
}
