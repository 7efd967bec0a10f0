import assert from "node:assert/strict";
import { test } from "node:test";

import { fileUriOf, isReply, isSource, proposedUri, serverCommand, startFailure } from "../logic/server";

test("the configured command wins", () => {
  assert.deepEqual(serverCommand(["/opt/lsp-edit", "serve", "--log-file", "x"], () => true, "/usr/bin/python3"), {
    command: "/opt/lsp-edit",
    args: ["serve", "--log-file", "x"],
  });
});

test("lsp-edit on PATH comes next, then the selected Python", () => {
  assert.deepEqual(serverCommand([], () => true, "/venv/bin/python"), { command: "lsp-edit", args: ["serve"] });
  assert.deepEqual(serverCommand([], () => false, "/venv/bin/python"), {
    command: "/venv/bin/python",
    args: ["-m", "lsp_edit", "serve"],
  });
  assert.deepEqual(serverCommand([], () => false, undefined), { command: "python3", args: ["-m", "lsp_edit", "serve"] });
});

test("a server that does not start is reported with the fix", () => {
  const message = startFailure({ command: "lsp-edit", args: ["serve"] }, new Error("spawn lsp-edit ENOENT"));
  assert.match(message, /\(`lsp-edit serve`\): spawn lsp-edit ENOENT/);
  assert.match(message, /lspEdit\.server\.command/);
});

test("the proposed file is the file's URI in the lsp-edit-proposed scheme", () => {
  assert.equal(proposedUri("file:///p/x.py"), "lsp-edit-proposed:///p/x.py");
  assert.equal(fileUriOf("lsp-edit-proposed:///p/x.py"), "file:///p/x.py");
});

test("reply documents are told by the same globs as the server's", () => {
  assert.ok(isReply("/p/chat/answer.llm.md", ["**/*.llm.md"]));
  assert.ok(!isReply("/p/README.md", ["**/*.llm.md"]));
  assert.ok(isReply("/p/replies/a.txt", ["**/replies/*.txt"]));
});

test("a source file is a file on disk that is neither a reply nor Markdown or plain text", () => {
  const globs = ["**/*.llm.md"];
  assert.ok(isSource("file", "/p/src/cart.py", "python", globs));
  assert.ok(isSource("file", "/p/package.json", "json", globs));
  assert.ok(!isSource("file", "/p/README.md", "markdown", globs));
  assert.ok(!isSource("file", "/p/notes.txt", "plaintext", globs));
  assert.ok(!isSource("file", "/p/chat/answer.llm.md", "markdown", globs));
  assert.ok(!isSource("untitled", "Untitled-1", "python", globs));
  assert.ok(!isSource("file", "/p/replies/a.py", "python", ["**/replies/**"]));
});
