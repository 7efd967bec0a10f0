import assert from "node:assert/strict";
import { test } from "node:test";

import { additions, type Change, changeAt, pickItems, proposeNotice, statusText } from "../logic/changes";

const URI = "file:///p/shop/cart.py";

function change(id: string, first: number, end: number, newText: string, status: Change["status"] = "pending"): Change {
  const range = { start: { line: first, character: 0 }, end: { line: end, character: 0 } };
  return { id, uri: URI, status, description: `Change ${id}`, kind: "edit", session: "s1", range, hunks: [{ range, newText }] };
}

test("the change at the cursor is the one whose lines hold it", () => {
  const changes = [change("1", 3, 5, "x\n"), change("2", 8, 8, "inserted\n")];
  assert.equal(changeAt(changes, URI, 4)?.id, "1");
  assert.equal(changeAt(changes, URI, 5), undefined);
  assert.equal(changeAt(changes, URI, 8)?.id, "2", "an insertion holds the line it inserts before");
  assert.equal(changeAt(changes, "file:///p/other.py", 4), undefined);
});

test("a decided change is no longer at the cursor", () => {
  assert.equal(changeAt([change("1", 3, 5, "x\n", "applied")], URI, 4), undefined);
});

test("the status bar counts the pending changes", () => {
  assert.equal(statusText(0), "$(check) No pending changes");
  assert.equal(statusText(1), "$(git-pull-request) 1 pending change");
  assert.equal(statusText(3), "$(git-pull-request) 3 pending changes");
});

test("the quick pick names each pending change by file and line", () => {
  const items = pickItems([change("1", 3, 5, "x\n"), change("2", 9, 10, "y\n", "rejected")], () => "shop/cart.py");
  assert.deepEqual(
    items.map((item) => [item.label, item.detail]),
    [["shop/cart.py:4", "Change 1"]],
  );
});

test("each hunk gets a note of what it writes, after its lines", () => {
  const notes = additions([change("1", 3, 5, "a = 1\nb = 2\n"), change("2", 8, 8, "c = 3\n"), change("3", 10, 11, "")], URI);
  assert.deepEqual(notes, [
    { line: 4, text: "+ 2 lines: a = 1" },
    { line: 7, text: "+ 1 line: c = 3" },
    { line: 10, text: "- removes these lines" },
  ]);
});

test("after proposing, a block with no file says why it was not applied", () => {
  const failed: Change = {
    id: "9", uri: null, status: "failed", description: "Cart-add", kind: "edit", session: "s1",
    message: "No file to edit: name the file on the line before the block.",
  };
  assert.deepEqual(proposeNotice([change("1", 3, 5, "x\n"), failed], "1 change pending, 1 failed.\nmore"), {
    level: "warning",
    text: "LSP Edit: 1 change pending, 1 failed. 1 not applied: Cart-add: No file to edit: name the file on the line before the block.",
  });
});

test("after proposing, failures with a file point to the problems, and success is plain", () => {
  assert.deepEqual(proposeNotice([change("1", 3, 5, "x\n", "failed")], "0 pending"), {
    level: "warning",
    text: "LSP Edit: 0 pending 1 not applied: see the problems",
  });
  assert.deepEqual(proposeNotice([change("1", 3, 5, "x\n")], "1 change pending."), {
    level: "information",
    text: "LSP Edit: 1 change pending.",
  });
});
