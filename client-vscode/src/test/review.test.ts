import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { type Change, type Range } from "../logic/changes";
import {
  changeInProposal,
  filesOfReply,
  languageOfReview,
  lineOfChange,
  nextLineInProposal,
  type Proposal,
  REVIEW_LANGUAGE,
  reviewLanguage,
} from "../logic/review";

function lines(start: number, end: number): Range {
  return { start: { line: start, character: 0 }, end: { line: end, character: 0 } };
}

// cart.py with three pending changes, as lspEdit.proposed answers: change 1 deletes
// the line before line 2, change 2 writes lines 4-5, change 3 line 8.
const PROPOSAL: Proposal = {
  text: "",
  changes: [
    { id: "1", ranges: [lines(2, 2)] },
    { id: "2", ranges: [lines(4, 6)] },
    { id: "3", ranges: [lines(8, 9)] },
  ],
};

test("the cursor on a line a change writes is on that change", () => {
  assert.equal(changeInProposal(PROPOSAL, 4), "2");
  assert.equal(changeInProposal(PROPOSAL, 5), "2");
  assert.equal(changeInProposal(PROPOSAL, 8), "3");
  assert.equal(changeInProposal(PROPOSAL, 6), undefined);
  assert.equal(changeInProposal(PROPOSAL, 3), undefined);
});

test("a change that only deletes is under the cursor on the line that followed it", () => {
  assert.equal(changeInProposal(PROPOSAL, 2), "1");
  assert.equal(changeInProposal(PROPOSAL, 1), undefined);
});

test("a line that a change writes wins over a deletion just before it", () => {
  const proposal: Proposal = {
    text: "",
    changes: [
      { id: "1", ranges: [lines(4, 4)] },
      { id: "2", ranges: [lines(4, 6)] },
    ],
  };
  assert.equal(changeInProposal(proposal, 4), "2");
});

test("a change with two hunks is under the cursor on either", () => {
  const proposal: Proposal = { text: "", changes: [{ id: "7", ranges: [lines(1, 2), lines(10, 12)] }] };
  assert.equal(changeInProposal(proposal, 1), "7");
  assert.equal(changeInProposal(proposal, 11), "7");
  assert.equal(changeInProposal(proposal, 5), undefined);
  assert.equal(lineOfChange(proposal, "7"), 1);
});

test("the review opens on the change's first line", () => {
  assert.equal(lineOfChange(PROPOSAL, "2"), 4);
  assert.equal(lineOfChange(PROPOSAL, "1"), 2);
  assert.equal(lineOfChange(PROPOSAL, "9"), undefined);
});

test("next and previous in the review go from change to change, around the ends", () => {
  assert.equal(nextLineInProposal(PROPOSAL, 0, true), 2);
  assert.equal(nextLineInProposal(PROPOSAL, 2, true), 4);
  // From inside a change, past its last line.
  assert.equal(nextLineInProposal(PROPOSAL, 4, true), 8);
  assert.equal(nextLineInProposal(PROPOSAL, 5, true), 8);
  assert.equal(nextLineInProposal(PROPOSAL, 8, true), 2);
  assert.equal(nextLineInProposal(PROPOSAL, 5, false), 2);
  assert.equal(nextLineInProposal(PROPOSAL, 8, false), 4);
  assert.equal(nextLineInProposal(PROPOSAL, 2, false), 8);
  assert.equal(nextLineInProposal({ text: "", changes: [] }, 3, true), undefined);
});

function change(id: string, session: string, uri: string | null, status: Change["status"] = "pending"): Change {
  return { id, session, uri, status, description: "", kind: "edit" };
}

test("the review of a reply shows each file where it has a pending change, the change's first", () => {
  const changes = [
    change("1", "s1", "file:///p/a.py"),
    change("2", "s1", "file:///p/b.py"),
    change("3", "s1", "file:///p/a.py"),
    change("4", "s2", "file:///p/c.py"),
    change("5", "s1", "file:///p/d.py", "applied"),
    change("6", "s1", null, "failed"),
  ];
  assert.deepEqual(filesOfReply(changes, changes[1]), ["file:///p/b.py", "file:///p/a.py"]);
  assert.deepEqual(filesOfReply(changes, changes[3]), ["file:///p/c.py"]);
});

test("the proposed side is shown in the review's version of the file's language", () => {
  const known = [REVIEW_LANGUAGE, "lsp-edit-proposed-python"];
  assert.equal(reviewLanguage("python", known), "lsp-edit-proposed-python");
  assert.equal(reviewLanguage("cobol", known), REVIEW_LANGUAGE);
  assert.equal(reviewLanguage("lsp-edit-proposed-python", known), "lsp-edit-proposed-python");
  assert.equal(reviewLanguage(REVIEW_LANGUAGE, known), REVIEW_LANGUAGE);
  assert.equal(languageOfReview("lsp-edit-proposed-python"), "python");
  assert.equal(languageOfReview(REVIEW_LANGUAGE), undefined);
});

// package.json declares the review languages, their grammars and their defaults:
// they must agree, or a language would be shown side by side, or without colours.
const root = join(__dirname, "..", "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

test("every review language has a grammar, which takes the colours of another one", () => {
  const languages: string[] = manifest.contributes.languages.map((language: { id: string }) => language.id);
  const grammars = manifest.contributes.grammars as { language: string; scopeName: string; path: string }[];
  const own = languages.filter((id) => id !== REVIEW_LANGUAGE);
  assert.ok(own.includes("lsp-edit-proposed-python") && own.includes("lsp-edit-proposed-typescript"));
  assert.deepEqual(grammars.map((grammar) => grammar.language).sort(), [...own].sort());
  for (const grammar of grammars) {
    assert.ok(languageOfReview(grammar.language), grammar.language);
    const written = JSON.parse(readFileSync(join(root, grammar.path), "utf8"));
    assert.equal(written.scopeName, grammar.scopeName);
    assert.equal(written.patterns.length, 1);
    assert.match(written.patterns[0].include, /^(source|text)\./);
  }
  // No grammar file is left over.
  assert.equal(readdirSync(join(root, "syntaxes")).length, grammars.length);
});

test("every review language shows its diff inline, with lenses and whitespace changes", () => {
  const languages: string[] = manifest.contributes.languages.map((language: { id: string }) => language.id);
  const defaults = manifest.contributes.configurationDefaults as Record<string, Record<string, unknown>>;
  const [key] = Object.keys(defaults);
  assert.deepEqual(Object.keys(defaults), [key]);
  assert.deepEqual(key.slice(1, -1).split("]["), languages);
  assert.deepEqual(defaults[key], {
    "diffEditor.renderSideBySide": false,
    "diffEditor.codeLens": true,
    "diffEditor.ignoreTrimWhitespace": false,
  });
});
