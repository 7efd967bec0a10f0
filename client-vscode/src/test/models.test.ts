import assert from "node:assert/strict";
import { test } from "node:test";

import {
  answerChat,
  type Cancellation,
  type ChatParams,
  JUSTIFICATION,
  type LanguageModel,
  type LanguageModels,
} from "../logic/models";

interface Message {
  role: "User" | "Assistant";
  text: string;
}

interface Sent {
  messages: Message[];
  justification: string;
}

/** A language model that streams `pieces`, then throws `error` if given; `onPiece`
 * runs before each piece (a test cancels there). */
function fakeModel(
  id: string,
  family: string,
  pieces: string[],
  sent: Sent[],
  options: { error?: unknown; onPiece?: (index: number) => void; refuse?: unknown } = {},
): LanguageModel<Message> {
  return {
    id,
    family,
    sendRequest: async (messages, justification) => {
      if (options.refuse) {
        throw options.refuse;
      }
      sent.push({ messages, justification });
      async function* text(): AsyncIterable<string> {
        for (const [index, piece] of pieces.entries()) {
          options.onPiece?.(index);
          yield piece;
        }
        if (options.error) {
          throw options.error;
        }
      }
      return { text: text() };
    },
  };
}

function models(...list: LanguageModel<Message>[]): LanguageModels<Message> {
  return {
    select: async () => list,
    user: (text) => ({ role: "User", text }),
    assistant: (text) => ({ role: "Assistant", text }),
  };
}

const PARAMS: ChatParams = {
  id: "lsp-edit/chat/1",
  messages: [
    { role: "system", content: "You change the user's code by writing edit blocks." },
    { role: "user", content: "Fix the cart." },
    { role: "assistant", content: "Done." },
    { role: "user", content: "Why not the total?" },
  ],
};

function token(): Cancellation & { cancel(): void } {
  const state = { isCancellationRequested: false, cancel: () => (state.isCancellationRequested = true) };
  return state;
}

/** A `LanguageModelError` as VS Code throws it. */
function lmError(code: string, message: string): Error {
  return Object.assign(new Error(message), { name: `${code} (LanguageModelError)`, code });
}

test("the model's text goes to the server piece by piece and the answer says it stopped", async () => {
  const sent: Sent[] = [];
  const chunks: string[] = [];
  const answer = await answerChat(
    PARAMS,
    models(fakeModel("copilot-gpt-4o", "gpt-4o", ["Two ", "changes.\n", "<<<<<<< SEARCH\n"], sent)),
    async (text) => void chunks.push(text),
    token(),
  );
  assert.deepEqual(chunks, ["Two ", "changes.\n", "<<<<<<< SEARCH\n"]);
  assert.deepEqual(answer, { finish: "stop" });
  // VS Code has no system role: the system text is the first user message.
  assert.deepEqual(sent[0].messages, [
    { role: "User", text: "You change the user's code by writing edit blocks." },
    { role: "User", text: "Fix the cart." },
    { role: "Assistant", text: "Done." },
    { role: "User", text: "Why not the total?" },
  ]);
  assert.equal(sent[0].justification, JUSTIFICATION);
});

test("lspEdit.llm.model picks a model by its id, else its family; unset, the first", async () => {
  const sent: Sent[] = [];
  const first = fakeModel("copilot-gpt-4o", "gpt-4o", ["from gpt-4o"], sent);
  const second = fakeModel("copilot-claude-sonnet", "claude-3.5-sonnet", ["from claude"], sent);
  const asked = async (model?: string) => {
    const chunks: string[] = [];
    await answerChat({ ...PARAMS, model }, models(first, second), async (t) => void chunks.push(t), token());
    return chunks.join("");
  };
  assert.equal(await asked("copilot-claude-sonnet"), "from claude");
  assert.equal(await asked("claude-3.5-sonnet"), "from claude");
  assert.equal(await asked(undefined), "from gpt-4o");
  const missing = await answerChat({ ...PARAMS, model: "gpt-5" }, models(first, second), async () => {}, token());
  assert.deepEqual(missing, {
    error: {
      code: "NotFound",
      message: 'no model has the id or family "gpt-5"',
      models: ["gpt-4o", "claude-3.5-sonnet"],
    },
  });
});

test("no language model at all is said as such", async () => {
  const answer = await answerChat(PARAMS, models(), async () => {}, token());
  assert.deepEqual(answer, { error: { code: "no-model", message: "VS Code has no language model" } });
});

test("a LanguageModelError is passed on with its code, before or during the reply", async () => {
  const refused = fakeModel("m", "f", [], [], { refuse: lmError("NoPermissions", "Access denied.") });
  assert.deepEqual(await answerChat(PARAMS, models(refused), async () => {}, token()), {
    error: { code: "NoPermissions", message: "Access denied." },
  });
  const chunks: string[] = [];
  const blocked = fakeModel("m", "f", ["Let me "], [], { error: lmError("Blocked", "Quota exceeded.") });
  assert.deepEqual(await answerChat(PARAMS, models(blocked), async (t) => void chunks.push(t), token()), {
    error: { code: "Blocked", message: "Quota exceeded." },
  });
  assert.deepEqual(chunks, ["Let me "]);
  const other = fakeModel("m", "f", [], [], { refuse: new TypeError("fetch failed") });
  assert.deepEqual(await answerChat(PARAMS, models(other), async () => {}, token()), {
    error: { code: "TypeError", message: "fetch failed" },
  });
});

test("a cancelled request sends nothing more and says it was cancelled", async () => {
  const cancellation = token();
  const chunks: string[] = [];
  const model = fakeModel("m", "f", ["one ", "two ", "three"], [], {
    onPiece: (index) => index === 2 && cancellation.cancel(),
  });
  const answer = await answerChat(PARAMS, models(model), async (t) => void chunks.push(t), cancellation);
  assert.deepEqual(chunks, ["one ", "two "]);
  assert.deepEqual(answer, { finish: "cancelled" });
});
