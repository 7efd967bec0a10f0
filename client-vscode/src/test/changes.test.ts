import assert from "node:assert/strict";
import { test } from "node:test";

import {
  additions,
  type Change,
  changeAt,
  decisionNotice,
  notApplied,
  pickItems,
  plainText,
  proposeNotice,
  reviewState,
  statusText,
} from "../logic/changes";

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

test("the status bar counts the blocks not applied too", () => {
  assert.equal(statusText(2, 1), "$(git-pull-request) 2 pending changes, $(warning) 1 not applied");
  assert.equal(statusText(0, 3), "$(check) No pending changes, $(warning) 3 not applied");
});

function failure(id: string, status: Change["status"], message: string, code: string, uri: string | null = "file:///p/shop/other.py"): Change {
  return { id, uri, status, description: `Change to \`shop/other.py\` (block ${id})`, kind: "edit", session: "s1", message, code };
}

test("not applied: failed, stale, and skipped unless already in the file", () => {
  const changes = [
    change("1", 3, 5, "x\n"),
    failure("2", "failed", "not there", "not-found"),
    failure("3", "stale", "you edited it", "stale"),
    failure("4", "skipped", "is already in the file", "already-applied"),
    failure("5", "skipped", "an earlier block failed", "previous-edit-failed"),
    failure("6", "rejected", "dismissed", "not-found"),
  ];
  assert.deepEqual(notApplied(changes).map((c) => c.id), ["2", "3", "5"]);
});

test("the list names each pending change by file and line, then each failure with its reason", () => {
  const list = pickItems(
    [
      change("1", 3, 5, "x\n"),
      change("2", 9, 10, "y\n", "rejected"),
      failure("3", "failed", "The SEARCH text is not in the file.\nThe most similar lines are 4-5.", "not-found"),
      failure("4", "failed", "No file to edit.", "file-not-found", null),
    ],
    (uri) => uri.replace("file:///p/", ""),
  );
  assert.deepEqual(
    list.pending.map((item) => [item.label, item.detail]),
    [["shop/cart.py:4", "Change 1"]],
  );
  assert.deepEqual(
    list.notApplied.map((item) => [item.label, item.description, item.detail]),
    [
      ["$(error) shop/other.py", "not-found", "Change to 'shop/other.py' (block 3): The SEARCH text is not in the file."],
      ["$(error) (no file)", "file-not-found", "Change to 'shop/other.py' (block 4): No file to edit."],
    ],
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

test("after proposing, a block not applied is named with its reason", () => {
  const failed: Change = {
    id: "9", uri: null, status: "failed", description: "Cart-add", kind: "edit", session: "s1",
    message: "No file to edit: name the file on the line before the block.",
  };
  assert.deepEqual(proposeNotice([change("1", 3, 5, "x\n"), failed], "1 change pending, 1 failed.\nmore"), {
    level: "warning",
    text: "LSP Edit: 1 block was not applied: Cart-add: No file to edit: name the file on the line before the block.",
  });
});

test("after proposing, several failures point to the list; pending changes alone need no message", () => {
  const failed = [failure("2", "failed", "a", "not-found"), failure("3", "failed", "b", "not-found")];
  assert.deepEqual(proposeNotice([change("1", 3, 5, "x\n"), ...failed], "1 pending"), {
    level: "warning",
    text: "LSP Edit: 2 blocks were not applied: see LSP Edit: List Changes, or the problems",
  });
  // The review notification says what is pending, for as long as it is.
  assert.equal(proposeNotice([change("1", 3, 5, "x\n")], "1 change is pending review."), undefined);
  assert.deepEqual(proposeNotice([], "No edit blocks were found in the reply."), {
    level: "information",
    text: "LSP Edit: No edit blocks were found in the reply.",
  });
});

test("the review notification counts what of its reply still waits, and ends with it", () => {
  const other = { ...change("3", 1, 2, "z\n"), uri: "file:///p/shop/other.py" };
  const elsewhere = { ...change("4", 1, 2, "w\n"), session: "s2" };
  const relative = (uri: string) => uri.replace("file:///p/", "");
  assert.deepEqual(reviewState([change("1", 3, 5, "x\n"), change("2", 8, 9, "y\n"), other, elsewhere], "s1", relative), {
    waiting: 3,
    text: "3 changes are pending review: 2 in shop/cart.py, 1 in shop/other.py.",
  });
  assert.deepEqual(reviewState([change("1", 3, 5, "x\n"), change("2", 8, 9, "y\n", "applied")], "s1", relative), {
    waiting: 1,
    text: "1 change is pending review: 1 in shop/cart.py.",
  });
  assert.equal(reviewState([change("1", 3, 5, "x\n", "applied"), elsewhere], "s1", relative), undefined);
});

test("accept all counts the changes the server applied", () => {
  const result = { changes: [{ id: "1", status: "applied" as const }, { id: "2", status: "applied" as const }, { id: "3", status: "applied" as const }] };
  assert.deepEqual(decisionNotice("lspEdit.acceptAll", result, []), { level: "information", text: "LSP Edit: 3 changes accepted." });
  assert.deepEqual(decisionNotice("lspEdit.acceptAll", { changes: [{ id: "1", status: "applied" }] }, []), {
    level: "information",
    text: "LSP Edit: 1 change accepted.",
  });
});

test("accept all says which changes it left, and why", () => {
  const overlapping = { changes: [{ id: "1", status: "applied" as const }, { id: "2", status: "pending" as const }] };
  assert.deepEqual(decisionNotice("lspEdit.acceptAll", overlapping, []), {
    level: "warning",
    text: "LSP Edit: 1 change accepted. 1 change stays pending: it overlaps another change; accept it on its own.",
  });
  const refused = { changes: [{ id: "1", status: "pending" as const }], message: "The editor did not apply the edit: `x.py` moved." };
  assert.deepEqual(decisionNotice("lspEdit.acceptAll", refused, []), {
    level: "warning",
    text: "LSP Edit: 0 changes accepted. The editor did not apply the edit: 'x.py' moved.",
  });
  assert.deepEqual(decisionNotice("lspEdit.acceptAll", { changes: [] }, []), {
    level: "information",
    text: "LSP Edit: no pending change to accept.",
  });
});

test("reject all tells rejected changes from dismissed failures", () => {
  const before = [change("1", 3, 5, "x\n"), change("2", 8, 9, "y\n"), failure("3", "failed", "a", "not-found")];
  const result = { changes: before.map((c) => ({ id: c.id, status: "rejected" as const })) };
  assert.deepEqual(decisionNotice("lspEdit.rejectAll", result, before), {
    level: "information",
    text: "LSP Edit: 2 changes rejected, 1 failure dismissed.",
  });
});

test("one decision is told only when the server says why it did not happen", () => {
  assert.equal(decisionNotice("lspEdit.accept", { id: "1", status: "applied" }, []), undefined);
  assert.deepEqual(decisionNotice("lspEdit.accept", { id: "1", status: "stale", message: "You edited `its` lines." }, []), {
    level: "warning",
    text: "LSP Edit: You edited 'its' lines.",
  });
  assert.equal(decisionNotice("lspEdit.show", { message: "x" }, []), undefined);
});

test("code spans become quotes in plain text; fences stay", () => {
  assert.equal(plainText("Change to `src/cart.py` (SEARCH/REPLACE)"), "Change to 'src/cart.py' (SEARCH/REPLACE)");
  assert.equal(plainText("The ```markdown block at `x`"), "The ```markdown block at 'x'");
  assert.equal(plainText("no code"), "no code");
});
