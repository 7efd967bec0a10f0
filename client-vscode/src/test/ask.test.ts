import assert from "node:assert/strict";
import { test } from "node:test";

import { askArgument, askNotice, type AskResult, llmSettings } from "../logic/ask";

const FILE = { scheme: "file", toString: () => "file:///p/shop/cart.py" };

test("an ask is about the active file and its selection", () => {
  const selection = { start: { line: 4, character: 0 }, end: { line: 6, character: 0 } };
  assert.deepEqual(askArgument("  Skip duplicates ", FILE, selection), {
    prompt: "Skip duplicates",
    uri: "file:///p/shop/cart.py",
    range: selection,
  });
  assert.deepEqual(askArgument("Why?", FILE, undefined), { prompt: "Why?", uri: "file:///p/shop/cart.py" });
});

test("an ask from a document that is no file names none", () => {
  const untitled = { scheme: "untitled", toString: () => "untitled:Untitled-1" };
  assert.deepEqual(askArgument("Hello", untitled, undefined), { prompt: "Hello" });
});

test("llm settings left empty are not sent, so the server's defaults hold", () => {
  assert.deepEqual(llmSettings({ api: "ollama", baseUrl: null, model: "qwen2.5-coder:7b", apiKeyEnv: "" }), {
    api: "ollama",
    model: "qwen2.5-coder:7b",
  });
});

test("the user is told the summary when the reply is complete, nothing more on a failure", () => {
  const result: AskResult = {
    session: "s1",
    uri: "file:///p/shop/cart.py.llm.md",
    status: "done",
    changes: [],
    summary: "2 changes are pending review: 2 in 'shop/cart.py'.\n\nmore",
  };
  assert.equal(askNotice(result), "LSP Edit: 2 changes are pending review: 2 in 'shop/cart.py'.");
  assert.equal(askNotice({ ...result, status: "cancelled" }), "LSP Edit: the ask was cancelled; what arrived is kept.");
  assert.equal(askNotice({ ...result, status: "failed", message: "Cannot connect" }), undefined);
});
