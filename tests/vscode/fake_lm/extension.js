// Test only: a language model for `vscode.lm` (VS Code 1.100's proposed
// `vscode.lm.registerChatModelProvider`, enabled with --enable-proposed-api), so the
// extension's llm.api "vscode" path runs in code-server, which has no model.
//
// Settings: lspEditTest.script, a JSON file of replies [{text, pauseAt?, pauseFor?}]
// given in turn (`pauseAt` characters in, it waits `pauseFor` seconds);
// lspEditTest.record, a file it appends each request to, one JSON line each.

const fs = require("node:fs");
const vscode = require("vscode");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function textOf(message) {
  const content = message.content;
  if (typeof content === "string") {
    return content;
  }
  return content.map((part) => (typeof part.value === "string" ? part.value : "")).join("");
}

function activate(context) {
  const config = vscode.workspace.getConfiguration("lspEditTest");
  let turn = 0;
  const provider = {
    async provideLanguageModelResponse(messages, options, extensionId, progress, token) {
      const role = (m) => (m.role === vscode.LanguageModelChatMessageRole.Assistant ? "assistant" : "user");
      const request = { extensionId, messages: messages.map((m) => ({ role: role(m), content: textOf(m) })) };
      fs.appendFileSync(config.get("record"), JSON.stringify(request) + "\n");
      const replies = JSON.parse(fs.readFileSync(config.get("script"), "utf8"));
      const reply = replies[turn++] ?? { text: "No more replies.\n" };
      for (let at = 0; at < reply.text.length && !token.isCancellationRequested; at += 4) {
        if (reply.pauseAt !== undefined && at <= reply.pauseAt && reply.pauseAt < at + 4) {
          await sleep(reply.pauseFor * 1000);
        }
        progress.report({ index: 0, part: new vscode.LanguageModelTextPart(reply.text.slice(at, at + 4)) });
        await sleep(5);
      }
    },
    async provideTokenCount(text) {
      return Math.ceil((typeof text === "string" ? text : textOf(text)).length / 4);
    },
  };
  const metadata = {
    vendor: "lsp-edit-tests",
    name: "Fake coder",
    family: "fake-coder",
    version: "1",
    maxInputTokens: 100000,
    maxOutputTokens: 10000,
  };
  context.subscriptions.push(vscode.lm.registerChatModelProvider("fake-coder", provider, metadata));
}

module.exports = { activate };
