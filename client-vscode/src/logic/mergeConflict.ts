// Git's merge-conflict marks in reply documents: a SEARCH/REPLACE block looks like a
// conflict to VS Code's built-in merge-conflict feature, which then colours it and
// puts "Accept Current Change | Accept Incoming Change" beside lsp-edit's own lenses.
// That feature reads two window-wide settings and nothing else, so while a reply
// document with a block is in front, its two settings are switched off in the user's
// settings, and what the user had is put back after. Nothing here imports `vscode`.

import { PROSE_LANGUAGES } from "./server";

/** The section of the built-in feature's settings, and the two it is turned off by. */
export const MERGE_CONFLICT_SECTION = "merge-conflict";
export const MERGE_CONFLICT_SETTINGS: readonly string[] = ["codeLens.enabled", "decorators.enabled"];

/** Where the user's own values of those settings are kept while they are switched
 * off (the extension's global state), so that a window that ended then, closed or
 * crashed, has them put back when the extension starts again. */
export const SAVED_KEY = "lspEdit.mergeConflict.saved";

/** A document on screen: whether it is a reply, whether it has a line the feature
 * takes for the start of a conflict. */
export interface Shown {
  reply: boolean;
  marked: boolean;
}

/** A document as the feature would mark it. A reply is a reply document
 * (`replyGlobs`), or a Markdown or plain text document whose only conflict-like lines
 * start SEARCH/REPLACE blocks (a reply kept in `reply.md`): Git names a side
 * `HEAD` or a branch, never `SEARCH`. */
export function shownAs(replyDocument: boolean, languageId: string, text: string): Shown {
  const starts = text.match(/^<<<<<<<.*$/gm) ?? [];
  const blocksOnly = starts.length > 0 && starts.every((line) => /^<<<<<<< SEARCH\s*$/.test(line));
  return {
    reply: replyDocument || (PROSE_LANGUAGES.includes(languageId) && blocksOnly),
    marked: starts.length > 0,
  };
}

/** Whether the marks are hidden: while the active editor is a reply with a block;
 * else while a reply with a block is on screen (beside the file an ask is about)
 * and no other document on screen has a conflict, whose marks stay. */
export function replyInFront(active: Shown | undefined, visible: readonly Shown[]): boolean {
  if (active?.reply && active.marked) {
    return true;
  }
  const all = active ? [active, ...visible] : visible;
  return all.some((shown) => shown.reply && shown.marked) && !all.some((shown) => !shown.reply && shown.marked);
}

/** One of the settings as VS Code's `inspect` tells it (a value of each place). */
export interface SettingValues {
  /** What the feature reads: the value in force. */
  effective: unknown;
  /** The user's own value in their user settings, undefined when they set none. */
  globalValue: unknown;
  /** A value in the workspace's settings (which the extension never writes). */
  workspaceValue: unknown;
}

/** The user settings, as far as this needs them. */
export interface UserSettings {
  read(key: string): SettingValues;
  /** Writes `key` in the user settings; undefined removes it. */
  writeGlobal(key: string, value: unknown): Promise<void>;
}

/** What the user had in their user settings for each setting switched off: `value`
 * undefined when they had none there. */
export type Saved = Record<string, { value: unknown }>;

/** Somewhere that outlives the window (the extension's global state). */
export interface Memory {
  get(): Saved | undefined;
  set(saved: Saved | undefined): Promise<void>;
}

/** Switches the two settings off while a reply is in front, and back after. One
 * step at a time, in the order asked: a step never sees another half done. */
export class ConflictMarks {
  /** Whether this window switched them off (another window shares the settings). */
  private hiding = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly settings: UserSettings,
    private readonly memory: Memory,
  ) {}

  /** Hides the marks when `replyInFront`, else shows them as the user had them. */
  follow(replyInFront: boolean): Promise<void> {
    return this.then(() => (replyInFront ? this.hide() : this.hiding ? this.putBack() : undefined));
  }

  /** Puts back what a window that ended while hiding the marks had switched off. */
  recover(): Promise<void> {
    return this.then(() => this.putBack());
  }

  /** Puts back what this window switched off (when the extension stops). */
  end(): Promise<void> {
    return this.then(() => (this.hiding ? this.putBack() : undefined));
  }

  private then(step: () => Promise<void> | undefined): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private async hide(): Promise<void> {
    const saved: Saved = { ...(this.memory.get() ?? {}) };
    const switching = MERGE_CONFLICT_SETTINGS.filter((key) => !(key in saved) && this.shouldSwitchOff(key));
    this.hiding = true;
    if (switching.length === 0) {
      return;
    }
    for (const key of switching) {
      saved[key] = { value: this.settings.read(key).globalValue };
    }
    // Remembered before anything is written: a window that ends in between still
    // has them put back.
    await this.memory.set(saved);
    for (const key of switching) {
      await this.settings.writeGlobal(key, false);
    }
  }

  /** Off already (the user's own choice: nothing to do, nothing to put back later),
   * or held by the workspace's settings (which a user setting cannot change, and
   * which the extension never writes): left alone. */
  private shouldSwitchOff(key: string): boolean {
    const values = this.settings.read(key);
    return values.effective !== false && values.workspaceValue === undefined;
  }

  private async putBack(): Promise<void> {
    this.hiding = false;
    const saved = this.memory.get();
    if (!saved) {
      return;
    }
    for (const [key, { value }] of Object.entries(saved)) {
      // Changed by the user since it was switched off: theirs stays.
      if (this.settings.read(key).globalValue === false) {
        await this.settings.writeGlobal(key, value);
      }
    }
    await this.memory.set(undefined);
  }
}
