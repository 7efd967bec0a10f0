// The server's `lspEdit/chat` answered with one of VS Code's language models
// (`lspEdit.llm.api: "vscode"`, docs/protocol.md): the model is picked, the server's
// messages become the model's, its text goes back as `lspEdit/chatChunk`, and the
// answer says how it ended. Nothing here imports `vscode` (src/models.ts binds
// `vscode.lm` to it): the unit tests run it under plain Node with a fake model.

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
}

/** `lspEdit/chat`'s params. */
export interface ChatParams {
  id: string;
  model?: string;
  messages: ChatMessage[];
}

/** `lspEdit/chat`'s answer: how the reply ended, or why it failed (`code`: one of
 * vscode.LanguageModelError's NoPermissions, Blocked, NotFound; `no-model` when
 * VS Code has none; else the error's name). */
export interface ChatAnswer {
  finish?: "stop" | "cancelled";
  error?: { code: string; message: string; models?: string[] };
}

export interface Cancellation {
  readonly isCancellationRequested: boolean;
}

/** What lsp-edit uses of a `vscode.LanguageModelChat`. */
export interface LanguageModel<Message> {
  readonly id: string;
  readonly family: string;
  sendRequest(messages: Message[], justification: string, token: Cancellation): PromiseLike<{ text: AsyncIterable<string> }>;
}

/** What lsp-edit uses of `vscode.lm`: its models, and its two roles. */
export interface LanguageModels<Message> {
  select(): PromiseLike<LanguageModel<Message>[]>;
  user(text: string): Message;
  assistant(text: string): Message;
}

export const JUSTIFICATION =
  "LSP Edit sends your request, the files you asked about and the conversation so far, and shows the reply's edits as changes for you to review.";

/** The model `lspEdit.llm.model` names, by its id or else its family; the first
 * one when it names none. */
export function pickModel<M>(models: LanguageModel<M>[], wanted: string | undefined): LanguageModel<M> | undefined {
  if (!wanted) {
    return models[0];
  }
  return models.find((m) => m.id === wanted) ?? models.find((m) => m.family === wanted);
}

/** The names a user may set `lspEdit.llm.model` to: each model's family (its id
 * when it has none), once each. */
export function modelNames<M>(models: LanguageModel<M>[]): string[] {
  return [...new Set(models.map((m) => m.family || m.id))];
}

/** The server's messages as VS Code's: it has only user and assistant messages
 * (VS Code 1.91 to 1.100), so the system message comes first as a user message of
 * its own; a tool's result (never sent while tools are not offered) as the user's. */
export function chatMessages<M>(messages: ChatMessage[], lm: LanguageModels<M>): M[] {
  const system = messages.filter((m) => m.role === "system").map((m) => m.content);
  const out: M[] = system.length ? [lm.user(system.join("\n\n"))] : [];
  for (const message of messages) {
    if (message.role === "assistant") {
      out.push(lm.assistant(message.content));
    } else if (message.role !== "system") {
      out.push(lm.user(message.content));
    }
  }
  return out;
}

/** Sends the request to the model and each piece of its text to `send` (in order:
 * the next waits for the one before), and says how it ended. */
export async function answerChat<M>(
  params: ChatParams,
  lm: LanguageModels<M>,
  send: (text: string) => PromiseLike<void>,
  token: Cancellation,
): Promise<ChatAnswer> {
  let models: LanguageModel<M>[] = [];
  try {
    models = await lm.select();
    if (models.length === 0) {
      return { error: { code: "no-model", message: "VS Code has no language model" } };
    }
    const model = pickModel(models, params.model);
    if (!model) {
      const message = `no model has the id or family ${JSON.stringify(params.model)}`;
      return { error: { code: "NotFound", message, models: modelNames(models) } };
    }
    const response = await model.sendRequest(chatMessages(params.messages, lm), JUSTIFICATION, token);
    for await (const text of response.text) {
      if (token.isCancellationRequested) {
        break;
      }
      await send(text);
    }
    return { finish: token.isCancellationRequested ? "cancelled" : "stop" };
  } catch (error) {
    if (token.isCancellationRequested) {
      return { finish: "cancelled" };
    }
    return { error: failure(error, models) };
  }
}

function failure<M>(error: unknown, models: LanguageModel<M>[]): NonNullable<ChatAnswer["error"]> {
  const found = error as { code?: unknown; name?: unknown; message?: unknown } | undefined;
  const code = typeof found?.code === "string" && found.code ? found.code : String(found?.name ?? "Error");
  const message = typeof found?.message === "string" ? found.message : String(error);
  return code === "NotFound" ? { code, message, models: modelNames(models) } : { code, message };
}
