import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ConflictMarks,
  type Memory,
  replyInFront,
  type Saved,
  type SettingValues,
  shownAs,
  type UserSettings,
} from "../logic/mergeConflict";

/** The user's settings.json and the workspace's, as VS Code reads them: both
 * settings default to true. `log` lists what was written, in order. */
class FakeSettings implements UserSettings {
  constructor(
    readonly user: Record<string, unknown> = {},
    readonly workspace: Record<string, unknown> = {},
    readonly log: string[] = [],
  ) {}

  read(key: string): SettingValues {
    const globalValue = this.user[key];
    const workspaceValue = this.workspace[key];
    return { effective: workspaceValue ?? globalValue ?? true, globalValue, workspaceValue };
  }

  async writeGlobal(key: string, value: unknown): Promise<void> {
    this.log.push(`${key}=${String(value)}`);
    if (value === undefined) {
      delete this.user[key];
    } else {
      this.user[key] = value;
    }
  }
}

/** The global state, kept as JSON as VS Code keeps it (undefined values vanish). */
class FakeMemory implements Memory {
  stored: string | undefined;
  constructor(private readonly log: string[] = []) {}

  get(): Saved | undefined {
    return this.stored === undefined ? undefined : (JSON.parse(this.stored) as Saved);
  }

  async set(saved: Saved | undefined): Promise<void> {
    this.log.push(saved === undefined ? "forget" : `remember ${Object.keys(saved).join(",")}`);
    this.stored = saved === undefined ? undefined : JSON.stringify(saved);
  }
}

test("a reply in front switches both settings off, and leaving it leaves the user settings as they were", async () => {
  const settings = new FakeSettings();
  const marks = new ConflictMarks(settings, new FakeMemory());

  await marks.follow(true);
  assert.deepEqual(settings.user, { "codeLens.enabled": false, "decorators.enabled": false });
  await marks.follow(false);
  assert.deepEqual(settings.user, {});
});

test("the user's own true values are put back", async () => {
  const settings = new FakeSettings({ "codeLens.enabled": true, "decorators.enabled": true, other: 1 });
  const marks = new ConflictMarks(settings, new FakeMemory());

  await marks.follow(true);
  await marks.follow(true);
  assert.equal(settings.read("codeLens.enabled").effective, false);
  await marks.follow(false);
  assert.deepEqual(settings.user, { "codeLens.enabled": true, "decorators.enabled": true, other: 1 });
});

test("a setting the user turned off is never written, nor put back", async () => {
  const settings = new FakeSettings({ "decorators.enabled": false });
  const memory = new FakeMemory();
  const marks = new ConflictMarks(settings, memory);

  await marks.follow(true);
  assert.deepEqual(settings.log, ["codeLens.enabled=false"]);
  assert.deepEqual(Object.keys(memory.get() ?? {}), ["codeLens.enabled"]);
  await marks.follow(false);
  assert.deepEqual(settings.user, { "decorators.enabled": false });
  assert.deepEqual(settings.log, ["codeLens.enabled=false", "codeLens.enabled=undefined"]);
});

test("both off already: nothing is written and nothing remembered", async () => {
  const settings = new FakeSettings({ "codeLens.enabled": false, "decorators.enabled": false });
  const memory = new FakeMemory();
  const marks = new ConflictMarks(settings, memory);

  await marks.follow(true);
  await marks.follow(false);
  await marks.end();
  assert.deepEqual(settings.log, []);
  assert.equal(memory.stored, undefined);
});

test("a window that ended while hiding them has them put back when the extension starts again", async () => {
  const settings = new FakeSettings({ "decorators.enabled": true });
  const memory = new FakeMemory();
  await new ConflictMarks(settings, memory).follow(true);
  // VS Code died here: the next window starts with what was remembered.
  assert.deepEqual(settings.user, { "codeLens.enabled": false, "decorators.enabled": false });

  const next = new ConflictMarks(settings, memory);
  await next.recover();
  assert.deepEqual(settings.user, { "decorators.enabled": true });
  assert.equal(memory.stored, undefined);
  await next.recover();
  assert.deepEqual(settings.user, { "decorators.enabled": true });
});

test("what the user had is remembered before any setting is written", async () => {
  const log: string[] = [];
  const settings = new FakeSettings({}, {}, log);
  await new ConflictMarks(settings, new FakeMemory(log)).follow(true);
  assert.deepEqual(log, ["remember codeLens.enabled,decorators.enabled", "codeLens.enabled=false", "decorators.enabled=false"]);
});

test("a setting the user changed while a reply was in front keeps their change", async () => {
  const settings = new FakeSettings();
  const marks = new ConflictMarks(settings, new FakeMemory());

  await marks.follow(true);
  settings.user["codeLens.enabled"] = true;
  await marks.follow(false);
  assert.deepEqual(settings.user, { "codeLens.enabled": true });
});

test("a setting the workspace holds is left alone: the extension never writes the workspace's settings", async () => {
  const settings = new FakeSettings({}, { "codeLens.enabled": true });
  const marks = new ConflictMarks(settings, new FakeMemory());

  await marks.follow(true);
  assert.deepEqual(settings.log, ["decorators.enabled=false"]);
  await marks.follow(false);
  assert.deepEqual(settings.user, {});
});

test("the end of the extension puts back what it switched off", async () => {
  const settings = new FakeSettings();
  const memory = new FakeMemory();
  const marks = new ConflictMarks(settings, memory);

  await marks.follow(true);
  await marks.end();
  assert.deepEqual(settings.user, {});
  assert.equal(memory.stored, undefined);
});

test("a window that hid nothing leaves what another window hid", async () => {
  const settings = new FakeSettings();
  const memory = new FakeMemory();
  await new ConflictMarks(settings, memory).follow(true);

  const other = new ConflictMarks(settings, memory);
  await other.follow(false);
  await other.end();
  assert.deepEqual(settings.user, { "codeLens.enabled": false, "decorators.enabled": false });
});

test("steps asked at once run one after the other", async () => {
  const settings = new FakeSettings();
  const marks = new ConflictMarks(settings, new FakeMemory());

  await Promise.all([marks.follow(true), marks.follow(false), marks.follow(true), marks.follow(false)]);
  assert.deepEqual(settings.user, {});
  assert.equal(settings.log.length, 8);
});

test("a reply document with a block is a marked reply, a Markdown file with only SEARCH/REPLACE blocks too", () => {
  const block = "src/cart.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n";
  const conflict = "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\n";
  assert.deepEqual(shownAs(true, "markdown", block), { reply: true, marked: true });
  assert.deepEqual(shownAs(true, "markdown", "```python:Cart-add\ndef add(self):\n```\n"), { reply: true, marked: false });
  assert.deepEqual(shownAs(false, "markdown", block), { reply: true, marked: true });
  assert.deepEqual(shownAs(false, "plaintext", block + block), { reply: true, marked: true });
  // Git's conflicts: in Markdown, in a source file, or beside a block.
  assert.deepEqual(shownAs(false, "markdown", conflict), { reply: false, marked: true });
  assert.deepEqual(shownAs(false, "markdown", block + conflict), { reply: false, marked: true });
  assert.deepEqual(shownAs(false, "python", block), { reply: false, marked: true });
  assert.deepEqual(shownAs(false, "markdown", "text <<<<<<< inside a line\n"), { reply: false, marked: false });
});

test("the marks are hidden while a reply with a block is active, or on screen beside no conflict", () => {
  const reply = { reply: true, marked: true };
  const conflict = { reply: false, marked: true };
  const source = { reply: false, marked: false };
  const plainReply = { reply: true, marked: false };
  assert.ok(replyInFront(reply, [reply]));
  assert.ok(replyInFront(reply, [reply, conflict]));
  // An ask's reply opens beside the file asked about, which keeps the focus.
  assert.ok(replyInFront(source, [source, reply]));
  assert.ok(!replyInFront(conflict, [conflict, reply]));
  assert.ok(!replyInFront(source, [source, reply, conflict]));
  assert.ok(!replyInFront(plainReply, [plainReply]));
  assert.ok(!replyInFront(source, [source]));
  assert.ok(!replyInFront(undefined, []));
  assert.ok(replyInFront(undefined, [reply]));
});
