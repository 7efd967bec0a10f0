// VS Code's language models (`vscode.lm`, such as Copilot's) as lsp-edit's model,
// when `lspEdit.llm.api` is `vscode`: the server asks `lspEdit/chat`, the reply's
// text goes back as `lspEdit/chatChunk` notifications, and `lspEdit/chatCancel`
// cancels the request (src/logic/models.ts maps one to the other).

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";

import { answerChat, type ChatParams, type LanguageModel, type LanguageModels } from "./logic/models";

type Message = vscode.LanguageModelChatMessage;

const lm: LanguageModels<Message> = {
  select: async () => (await vscode.lm.selectChatModels()).map(model),
  user: (text) => vscode.LanguageModelChatMessage.User(text),
  assistant: (text) => vscode.LanguageModelChatMessage.Assistant(text),
};

function model(chat: vscode.LanguageModelChat): LanguageModel<Message> {
  return {
    id: chat.id,
    family: chat.family,
    sendRequest: (messages, justification, token) =>
      chat.sendRequest(messages, { justification }, token as vscode.CancellationToken),
  };
}

/** Answers the server's `lspEdit/chat` with VS Code's models, while `client` runs. */
export function offerLanguageModels(client: LanguageClient): vscode.Disposable {
  const running = new Map<string, vscode.CancellationTokenSource>();
  const chat = client.onRequest("lspEdit/chat", async (params: ChatParams) => {
    const source = new vscode.CancellationTokenSource();
    running.set(params.id, source);
    try {
      const send = (text: string) => client.sendNotification("lspEdit/chatChunk", { id: params.id, text });
      return await answerChat(params, lm, send, source.token);
    } finally {
      running.delete(params.id);
      source.dispose();
    }
  });
  const cancel = client.onNotification("lspEdit/chatCancel", (params: { id: string }) => {
    running.get(params.id)?.cancel();
  });
  return vscode.Disposable.from(chat, cancel, {
    dispose: () => running.forEach((source) => source.cancel()),
  });
}
