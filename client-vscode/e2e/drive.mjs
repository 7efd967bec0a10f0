// Plays a user of the extension in a real VS Code: code-server (VS Code in the
// browser) with the packaged lsp-edit.vsix installed, driven through headless
// Chromium by playwright-core. tests/vscode/test_vscode.py runs it and checks what it
// saw and the files on disk.
//
//   node e2e/drive.mjs <scenario> <given.json> <saw.json>
//
// given.json: { codeServer, vsix, workspace, serverCommand, work, screenshots?,
// settings? (more user settings), extensions? (more .vsix to install),
// proposedApi? (ids of extensions allowed VS Code's proposed API) }.
// saw.json gets what the user saw at each step (status bar, messages, the active tab).

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [scenarioName, givenPath, sawPath] = process.argv.slice(2);
const given = JSON.parse(readFileSync(givenPath, "utf8"));
const saw = { steps: [] };
const CHROMIUM = process.env.LSP_EDIT_CHROMIUM || "/usr/bin/chromium";
// Chromium as this machine kind runs it headless: the background-networking flags
// keep it from calling out to a closed network at every start.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function note(step, detail = {}) {
  saw.steps.push({ step, ...detail });
}

/** Installs the extension and starts code-server on a free port; returns its URL. */
async function startCodeServer() {
  const data = join(given.work, "data");
  const extensions = join(given.work, "extensions");
  mkdirSync(join(data, "User"), { recursive: true });
  // Laid out as VS Code writes it, as a user's own file is.
  writeFileSync(
    join(data, "User", "settings.json"),
    JSON.stringify({
      "lspEdit.server.command": given.serverCommand,
      "workbench.startupEditor": "none",
      "security.workspace.trust.enabled": false,
      "telemetry.telemetryLevel": "off",
      "extensions.autoCheckUpdates": false,
      "extensions.autoUpdate": false,
      "workbench.tips.enabled": false,
      "editor.codeLens": true,
      "files.autoSave": "off",
      ...(given.settings ?? {}),
    }, null, 4),
  );
  const env = { ...process.env, XDG_CONFIG_HOME: join(given.work, "config") };
  const common = ["--user-data-dir", data, "--extensions-dir", extensions];
  for (const vsix of [given.vsix, ...(given.extensions ?? [])]) {
    const installed = spawnSync(given.codeServer, [...common, "--install-extension", vsix], {
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    if (installed.status !== 0) {
      throw new Error(`installing ${vsix} failed: ${installed.stdout}${installed.stderr}`);
    }
  }
  const proposed = (given.proposedApi ?? []).flatMap((id) => ["--enable-proposed-api", id]);
  const server = spawn(
    given.codeServer,
    [
      ...common,
      ...proposed,
      "--auth",
      "none",
      "--bind-addr",
      "127.0.0.1:0",
      "--disable-update-check",
      "--disable-telemetry",
      given.workspace,
    ],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`code-server did not start:\n${out}`)), 60_000);
    const read = (chunk) => {
      out += chunk;
      const found = /HTTP server listening on (http:\/\/\S+?)\/?\s/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    server.stdout.on("data", read);
    server.stderr.on("data", read);
    server.on("exit", (code) => reject(new Error(`code-server exited (${code}):\n${out}`)));
  });
  return { server, url };
}

class User {
  constructor(page) {
    this.page = page;
  }

  async openFile(name) {
    await this.pick("Control+P", name);
    await this.waitForTab(name);
  }

  async runCommand(title) {
    await this.pick("F1", title);
  }

  /** Opens a quick input with `key` (Quick Open, the command palette), types `text`
   * and takes the row that names it. */
  async pick(key, text) {
    await this.page.keyboard.press(key);
    await this.page.waitForSelector(".quick-input-widget:not([style*='display: none']) input");
    await this.page.keyboard.type(text);
    // The focused row: a row of the list before it is filtered (recently used) may
    // hold the text while another one is on top.
    await this.page.waitForSelector(`.quick-input-list .monaco-list-row.focused[aria-label*='${text}']`);
    await this.page.keyboard.press("Enter");
  }

  /** Waits until the active tab is the one named `name`, exactly. */
  async waitForTab(name) {
    await this.page.waitForFunction(
      (wanted) => [...document.querySelectorAll(".tab.active .label-name")].some((label) => label.innerText.trim() === wanted),
      name,
      { timeout: 30_000 },
    );
  }

  async activeTab() {
    return (await this.page.locator(".tab.active .label-name").first().innerText()).trim();
  }

  async status() {
    const item = this.page.locator(".statusbar-item", { hasText: /pending change/ }).first();
    return (await item.innerText()).trim();
  }

  async waitForStatus(pattern) {
    await this.page
      .locator(".statusbar-item", { hasText: pattern })
      .first()
      .waitFor({ timeout: 30_000 });
    return this.status();
  }

  async cursorLine() {
    const text = await this.page.locator(".statusbar-item", { hasText: /^Ln \d+/ }).first().innerText();
    return Number(/Ln (\d+)/.exec(text)[1]);
  }

  async messages() {
    const toasts = this.page.locator(".notification-toast .notification-list-item-message");
    return (await toasts.allInnerTexts()).map((text) => text.trim());
  }

  async waitForMessage(pattern) {
    await this.page.locator(".notification-toast", { hasText: pattern }).first().waitFor({ timeout: 30_000 });
    return this.messages();
  }

  /** The problems VS Code lists (Problems panel), as `file: message` lines, once they
   * have stopped changing. */
  async problems() {
    await this.runCommand("Focus on Problems View");
    const rows = this.page.locator(".markers-panel .monaco-list-row");
    const read = async () => {
      const out = [];
      let file = "";
      for (const row of await rows.all()) {
        const label = (await row.getAttribute("aria-label")) ?? "";
        if ((await row.getAttribute("aria-level")) === "1") {
          file = (await row.locator(".label-name").first().innerText()).trim();
        } else {
          out.push(`${file}: ${label}`);
        }
      }
      return out;
    };
    let last = await read();
    for (let settled = 0; settled < 2; ) {
      await this.page.waitForTimeout(1000);
      const now = await read();
      settled = JSON.stringify(now) === JSON.stringify(last) ? settled + 1 : 0;
      last = now;
    }
    await this.runCommand("View: Focus Active Editor Group");
    return last;
  }

  /** Every notification still listed in the notification center. */
  async notificationCenter() {
    await this.runCommand("Notifications: Show Notifications");
    await this.page.waitForSelector(".notifications-center.visible", { timeout: 10_000 });
    const texts = await this.page.locator(".notifications-center .notification-list-item-message").allInnerTexts();
    await this.runCommand("Notifications: Hide Notifications");
    return texts.map((text) => text.trim());
  }

  /** What the hover over the cursor shows (Show or Focus Hover). */
  async hoverAtCursor() {
    await this.runCommand("Show or Focus Hover");
    const hover = this.page.locator(".monaco-hover:not(.hidden) .monaco-hover-content").first();
    await hover.locator(".rendered-markdown").first().waitFor({ timeout: 10_000 });
    const text = (await hover.innerText()).trim();
    await this.page.keyboard.press("Escape");
    return text;
  }

  /** The rows of the open quick pick. */
  async quickPickRows() {
    await this.page.waitForSelector(".quick-input-list .monaco-list-row");
    return (await this.page.locator(".quick-input-list .monaco-list-row").allInnerTexts()).map((t) => t.trim());
  }

  async codeLenses() {
    return (await this.page.locator(".contentWidgets .codelens-decoration").allInnerTexts()).map((t) => t.trim());
  }

  /** What each diff editor of the active editor shows, top to bottom: whether side
   * by side, its file (in the multi-file diff editor), each line of the view with
   * `+ ` when added, `- ` when deleted, `  ` when kept, and its lenses. */
  async diffViews() {
    await this.page.waitForSelector(".editor-group-container.active .editor-instance .monaco-diff-editor .editor.modified .view-line");
    // The diff is computed after the editor shows: wait until nothing moves.
    let last = "";
    for (let settled = 0; settled < 2; ) {
      await this.page.waitForTimeout(500);
      const now = JSON.stringify(await this.readDiffViews());
      settled = now === last ? settled + 1 : 0;
      last = now;
    }
    return JSON.parse(last);
  }

  /** Waits until the diff editor of the active editor shows `count` lenses. */
  async waitForDiffLenses(count) {
    await this.page.waitForFunction(
      (wanted) =>
        document.querySelectorAll(".editor-group-container.active .monaco-diff-editor .editor.modified .codelens-decoration a")
          .length >= wanted,
      count,
      { timeout: 30_000 },
    );
  }

  async readDiffViews() {
    return this.page.locator(".editor-group-container.active .editor-instance").first().evaluate((pane) =>
      [...pane.querySelectorAll(".monaco-diff-editor")].map((diff) => {
        const modified = diff.querySelector(".editor.modified");
        const text = (line) => line.textContent.replace(/\u00a0/g, " ").trimEnd();
        const top = (element) => parseFloat(element.style.top);
        const added = new Set(
          [...modified.querySelectorAll(".view-overlays .line-insert")].map((mark) => top(mark.parentElement)),
        );
        const rows = [];
        for (const line of modified.querySelectorAll(".lines-content > .view-lines > .view-line")) {
          rows.push({ top: top(line), text: (added.has(top(line)) ? "+ " : "  ") + text(line) });
        }
        for (const zone of modified.querySelectorAll(".view-zones .view-lines.line-delete")) {
          for (const line of zone.querySelectorAll(".view-line")) {
            rows.push({ top: top(zone) + top(line), text: "- " + text(line) });
          }
        }
        const entry = diff.closest(".multiDiffEntry");
        return {
          sideBySide: diff.classList.contains("side-by-side"),
          file: entry ? entry.querySelector(".header .label-name, .header .monaco-icon-name-container")?.textContent?.trim() : undefined,
          lines: rows.sort((a, b) => a.top - b.top).map((row) => row.text),
          lenses: [...modified.querySelectorAll(".codelens-decoration")].map((lens) => lens.textContent.replace(/\u00a0/g, " ").trim()),
        };
      }),
    );
  }

  async shot(name) {
    if (given.screenshots) {
      mkdirSync(given.screenshots, { recursive: true });
      await this.page.screenshot({ path: join(given.screenshots, `${name}.png`) });
    }
  }
}

const scenarios = {
  /** Open the source, then the reply; apply it; type above the first change; accept
   * it with Alt+Y, go to the next with Ctrl+Alt+], reject it with Alt+N; save. */
  async review(user) {
    await user.openFile("cart.py");
    await user.openFile("reply.md");
    await user.runCommand("LSP Edit: Apply Reply from Active Editor");
    note("proposed", { status: await user.waitForStatus(/2 pending changes/), messages: await user.waitForMessage(/LSP Edit/) });
    await user.waitForTab("cart.py");
    await user.page.waitForSelector(".contentWidgets .codelens-decoration a", { timeout: 30_000 });
    note("shown", { tab: await user.activeTab(), line: await user.cursorLine(), lenses: await user.codeLenses() });
    await user.shot("vscode-review");
    note("hover", { text: await user.hoverAtCursor() });

    // The user types two lines at the top while the changes wait.
    await user.page.keyboard.press("Control+Home");
    await user.page.keyboard.type("# Typed while the changes wait.\n");
    await user.page.keyboard.press("Home");
    await user.page.keyboard.type("\n");
    await user.page.keyboard.press("Control+Alt+BracketRight");
    await user.page.waitForTimeout(500);
    note("next", { line: await user.cursorLine() });
    await user.page.keyboard.press("Alt+Y");
    note("accepted", { status: await user.waitForStatus(/1 pending change/) });
    await user.page.keyboard.press("Control+Alt+BracketRight");
    await user.page.waitForTimeout(500);
    note("next", { line: await user.cursorLine() });
    await user.page.keyboard.press("Alt+N");
    note("rejected", { status: await user.waitForStatus(/No pending changes/) });
    note("decided", { notifications: await user.notificationCenter() });
    await user.page.keyboard.press("Control+S");
    await user.page.waitForSelector(".tab.active:not(.dirty)", { timeout: 30_000 });
    note("saved", { tab: await user.activeTab() });
  },

  /** A reply kept in a `*.llm.md` file: its blocks are pending changes as soon as it
   * is open, with lenses on each block; accept the first from its lens, reject the
   * rest with the command, save everything. */
  async "reply-document"(user) {
    await user.openFile("cart.py");
    await user.openFile("notes.llm.md");
    note("opened", { status: await user.waitForStatus(/2 pending changes/) });
    await user.page.waitForSelector(".contentWidgets .codelens-decoration a", { timeout: 30_000 });
    note("lenses", { lenses: await user.codeLenses() });
    await user.page.locator(".contentWidgets .codelens-decoration a", { hasText: /^Accept$/ }).first().click();
    note("accepted", { status: await user.waitForStatus(/1 pending change/) });
    await user.runCommand("LSP Edit: Reject All Changes");
    note("rejected", { status: await user.waitForStatus(/No pending changes/) });
    await user.runCommand("File: Save All Files");
    await user.page.waitForFunction(() => document.querySelectorAll(".tab.dirty").length === 0);
    note("saved");
  },

  /** Three blocks for one open file, accepted at once from the palette; saved and
   * reverted; then three more, accepted from the `Accept all (3)` lens. */
  async "accept-all"(user) {
    await user.openFile("cart.py");
    await user.openFile("three.md");
    await user.runCommand("LSP Edit: Apply Reply from Active Editor");
    note("proposed", { status: await user.waitForStatus(/3 pending changes/) });
    await user.waitForTab("cart.py");
    await user.runCommand("LSP Edit: Accept All Changes");
    note("accepted", {
      messages: await user.waitForMessage(/accepted/),
      status: await user.waitForStatus(/No pending changes/),
      problems: await user.problems(),
      notifications: await user.notificationCenter(),
    });
    await user.page.keyboard.press("Control+S");
    await user.page.waitForSelector(".tab.active:not(.dirty)", { timeout: 30_000 });
    note("saved", { problems: await user.problems() });
    await user.runCommand("File: Revert File");
    note("reverted", { problems: await user.problems() });

    await user.openFile("three-more.md");
    await user.runCommand("LSP Edit: Apply Reply from Active Editor");
    note("proposed again", { status: await user.waitForStatus(/3 pending changes/) });
    await user.waitForTab("cart.py");
    await user.runCommand("Notifications: Clear All Notifications");
    const lens = user.page.locator(".contentWidgets .codelens-decoration a", { hasText: /^Accept all \(3\)$/ });
    await lens.first().click();
    note("accepted from the lens", {
      messages: await user.waitForMessage(/accepted/),
      status: await user.waitForStatus(/No pending changes/),
      problems: await user.problems(),
    });
    await user.page.keyboard.press("Control+S");
    await user.page.waitForSelector(".tab.active:not(.dirty)", { timeout: 30_000 });
    note("saved again", { problems: await user.problems() });
  },

  /** A reply whose block names no file, applied by each command while a Markdown file
   * (not a reply) has the focus: it goes to the source file looked at before. */
  async "no-file-target"(user) {
    const reply = readFileSync(join(given.workspace, "nofile.md"), "utf8");
    await user.openFile("cart.py");
    await user.openFile("README.md");
    await user.page.evaluate((text) => navigator.clipboard.writeText(text), reply);
    await user.runCommand("LSP Edit: Apply Reply from Clipboard");
    note("clipboard", { status: await user.waitForStatus(/1 pending change/) });
    await user.waitForTab("cart.py");
    await user.runCommand("LSP Edit: Reject All Changes");
    await user.waitForStatus(/No pending changes/);

    await user.openFile("README.md");
    await user.openFile("nofile.md");
    await user.runCommand("LSP Edit: Apply Reply from Active Editor");
    note("active editor", { status: await user.waitForStatus(/1 pending change/) });
    await user.waitForTab("cart.py");
    await user.runCommand("LSP Edit: Reject All Changes");
    await user.waitForStatus(/No pending changes/);

    await user.openFile("README.md");
    await user.openFile("nofile.md");
    await user.page.keyboard.press("Control+A");
    await user.runCommand("LSP Edit: Apply Reply from Selection");
    note("selection", { status: await user.waitForStatus(/1 pending change/) });
    await user.waitForTab("cart.py");
    await user.runCommand("LSP Edit: Reject All Changes");
    await user.waitForStatus(/No pending changes/);

    await user.openFile("README.md");
    await user.openFile("notes.llm.md");
    note("reply document", { status: await user.waitForStatus(/1 pending change/) });
    await user.page.waitForSelector(".contentWidgets .codelens-decoration a", { timeout: 30_000 });
    note("reply lenses", { lenses: await user.codeLenses(), problems: await user.problems() });
  },

  /** A reply with a block that applies and one that fails in a file that is not
   * open: the list of changes names both, with the reason, and goes to the failure. */
  async "failures-list"(user) {
    await user.openFile("cart.py");
    await user.openFile("reply.md");
    await user.runCommand("LSP Edit: Apply Reply from Active Editor");
    note("proposed", { status: await user.waitForStatus(/1 pending change/), messages: await user.waitForMessage(/not applied/) });
    await user.runCommand("LSP Edit: List Changes");
    const rows = await user.quickPickRows();
    note("listed", { rows });
    await user.page.keyboard.type("other.py");
    await user.page.waitForTimeout(300);
    await user.page.keyboard.press("Enter");
    await user.waitForTab("other.py");
    note("went", { tab: await user.activeTab(), line: await user.cursorLine(), problems: await user.problems() });
  },

  /** A block that only adds a line, accepted with the quick fix (Ctrl+.): the line is
   * inserted once, also on disk. */
  async "quick-fix-insert"(user) {
    await user.openFile("cart.py");
    await user.openFile("reply.md");
    await user.runCommand("LSP Edit: Apply Reply from Active Editor");
    note("proposed", { status: await user.waitForStatus(/1 pending change/) });
    await user.waitForTab("cart.py");
    await user.page.waitForTimeout(500);
    await user.page.keyboard.press("Control+Period");
    const accept = user.page.locator(".action-widget .monaco-list-row", { hasText: /Accept change/ }).first();
    await accept.waitFor({ timeout: 30_000 });
    // The preferred action, "Accept change", has the focus: Enter takes it.
    note("actions", { rows: await user.page.locator(".action-widget .monaco-list-row").allInnerTexts() });
    await user.page.locator(".action-widget .monaco-list-row.focused", { hasText: /Accept change/ }).waitFor();
    await user.page.keyboard.press("Enter");
    note("accepted", { status: await user.waitForStatus(/No pending changes/) });
    await user.page.keyboard.press("Control+S");
    await user.page.waitForSelector(".tab.active:not(.dirty)", { timeout: 30_000 });
    note("saved", { problems: await user.problems() });
  },

  /** LSP Edit: Ask… on the open file: watch the changes appear while the reply
   * streams into cart.py.llm.md beside it, accept the first with Alt+Y, then ask again
   * about the selected lines. */
  async ask(user) {
    await user.openFile("cart.py");
    const statuses = [];
    const watch = async (until) => {
      while (!(await until())) {
        const status = await user.status().catch(() => "");
        if (statuses[statuses.length - 1] !== status) {
          statuses.push(status);
        }
        await user.page.waitForTimeout(50);
      }
    };
    const answered = (count) => async () =>
      (await user.page.locator(".notification-toast", { hasText: /pending review/ }).count()) >= count;
    await user.runCommand("LSP Edit: Ask…");
    await user.page.waitForSelector(".quick-input-widget:not([style*='display: none']) input");
    await user.page.keyboard.type("Skip duplicates and count quantities.");
    await user.page.keyboard.press("Enter");
    await watch(answered(1));
    // The status bar may show the last change a moment after the toast (a loaded host).
    const settled = Date.now() + 10_000;
    await watch(async () => statuses.includes("2 pending changes") || Date.now() > settled);
    note("answered", {
      statuses,
      messages: await user.messages(),
      tabs: (await user.page.locator(".tab .label-name").allInnerTexts()).map((t) => t.trim()),
      active: await user.activeTab(),
    });
    await user.page.waitForFunction(() => document.querySelectorAll(".tab.dirty").length === 0);
    await user.openFile("cart.py");
    await user.page.keyboard.press("Control+Home");
    await user.page.keyboard.press("Control+Alt+BracketRight");
    await user.page.waitForTimeout(500);
    await user.page.keyboard.press("Alt+Y");
    note("accepted", { status: await user.waitForStatus(/1 pending change/) });
    await user.page.keyboard.press("Control+S");
    await user.page.waitForSelector(".tab.active:not(.dirty)", { timeout: 30_000 });
    // Select the total's lines, then ask about them.
    await user.page.keyboard.press("Control+End");
    await user.page.keyboard.press("Shift+ArrowUp");
    await user.page.keyboard.press("Shift+ArrowUp");
    await user.runCommand("LSP Edit: Ask…");
    await user.page.waitForSelector(".quick-input-widget:not([style*='display: none']) input");
    await user.page.keyboard.type("Why not these lines?");
    await user.page.keyboard.press("Enter");
    // The answer holds no block: its summary says so.
    await user.waitForMessage(/No edit blocks were found/);
    await user.page.waitForFunction(() => document.querySelectorAll(".tab.dirty").length === 0);
    note("asked again", { status: await user.status(), messages: await user.messages() });
    await user.shot("vscode-ask");
  },

  /** A reply's two changes to one file: Alt+D from the first opens them inline (the
   * user's setting says side by side), Alt+D goes to the file and back, Alt+Y accepts
   * the change under the cursor there, Ctrl+Alt+] goes to the next, Alt+N rejects
   * it; the view follows each decision. Another diff stays side by side. */
  async "inline-review"(user) {
    await user.openFile("cart.py");
    await user.openFile("reply.md");
    await user.runCommand("LSP Edit: Apply Reply from Active Editor");
    await user.waitForStatus(/2 pending changes/);
    await user.waitForTab("cart.py");
    await user.page.waitForSelector(".contentWidgets .codelens-decoration a", { timeout: 30_000 });
    await user.page.keyboard.press("Alt+D");
    await user.waitForTab("cart.py: pending changes");
    // Accept | Reject above each of the two changes.
    await user.waitForDiffLenses(4);
    note("opened", { tab: await user.activeTab(), line: await user.cursorLine(), views: await user.diffViews() });
    await user.runCommand("Notifications: Clear All Notifications");
    await user.shot("vscode-inline-review");

    await user.page.keyboard.press("Alt+D");
    await user.waitForTab("cart.py");
    note("to the file", { tab: await user.activeTab(), line: await user.cursorLine() });
    await user.page.keyboard.press("Alt+D");
    await user.waitForTab("cart.py: pending changes");
    note("back", { tab: await user.activeTab(), line: await user.cursorLine() });

    await user.page.keyboard.press("Alt+Y");
    note("accepted", { status: await user.waitForStatus(/1 pending change/), views: await user.diffViews() });
    await user.page.keyboard.press("Control+Alt+BracketRight");
    await user.page.waitForTimeout(500);
    note("next", { line: await user.cursorLine() });
    await user.page.keyboard.press("Alt+N");
    note("rejected", { status: await user.waitForStatus(/No pending changes/), views: await user.diffViews() });

    await user.page.keyboard.press("Alt+D");
    await user.waitForTab("cart.py");
    await user.runCommand("File: Compare Active File with Saved");
    await user.page.waitForSelector(".editor-instance .monaco-diff-editor");
    note("other diff", { tab: await user.activeTab(), views: await user.diffViews() });
    await user.runCommand("File: Save All Files");
    await user.page.waitForFunction(() => document.querySelectorAll(".tab.dirty").length === 0);
    note("saved");
  },

  /** A reply that changes two files: Alt+D opens both, inline, in one view; a click
   * in a file's new lines and Alt+Y accepts that change, Alt+N in the other file's
   * rejects that one. */
  async "reply-review"(user) {
    await user.openFile("cart.py");
    await user.openFile("two.md");
    await user.runCommand("LSP Edit: Apply Reply from Active Editor");
    await user.waitForStatus(/2 pending changes/);
    await user.waitForTab("cart.py");
    await user.page.waitForSelector(".contentWidgets .codelens-decoration a", { timeout: 30_000 });
    await user.page.keyboard.press("Alt+D");
    await user.waitForTab("The reply's pending changes (2 files)");
    note("opened", { tab: await user.activeTab(), views: await user.diffViews() });
    const addedLine = (file, text) =>
      user.page.locator(".multiDiffEntry", { hasText: file }).locator(".editor.modified .view-line", { hasText: text }).first();
    // As after any move of the cursor, the keys follow once VS Code has told the
    // extension where the cursor is.
    await addedLine("other.py", "rate=0.1").click();
    await user.page.waitForTimeout(500);
    await user.page.keyboard.press("Alt+Y");
    note("accepted", { status: await user.waitForStatus(/1 pending change/), views: await user.diffViews() });
    await addedLine("cart.py", "round(").click();
    await user.page.waitForTimeout(500);
    await user.page.keyboard.press("Alt+N");
    note("rejected", { status: await user.waitForStatus(/No pending changes/), views: await user.diffViews() });
    await user.runCommand("File: Save All Files");
    await user.page.waitForFunction(() => document.querySelectorAll(".tab.dirty").length === 0);
    note("saved");
  },

  /** A reply document written while its file's review is open beside it: each block
   * that is complete shows in the review, a block half written does not. */
  async "streamed-review"(user) {
    const [half, rest] = given.stream;
    await user.openFile("cart.py");
    await user.openFile("notes.llm.md");
    await user.waitForStatus(/1 pending change/);
    await user.openFile("cart.py");
    await user.page.keyboard.press("Alt+D");
    await user.waitForTab("cart.py: pending changes");
    await user.runCommand("View: Move Editor into Right Group");
    note("opened", { views: await user.diffViews() });
    await user.page.keyboard.press("Control+1");
    await user.openFile("notes.llm.md");
    await user.page.keyboard.press("Control+End");
    for (const [step, piece] of [["half written", half], ["written", rest]]) {
      await user.page.evaluate((text) => navigator.clipboard.writeText(text), piece);
      await user.page.keyboard.press("Control+V");
      if (step === "written") {
        await user.waitForStatus(/2 pending changes/);
      } else {
        await user.page.waitForTimeout(1500);
      }
      await user.page.keyboard.press("Control+2");
      note(step, { status: await user.status(), views: await user.diffViews() });
      await user.page.keyboard.press("Control+1");
    }
    // The user types at the top of the file: the review moves with it.
    await user.page.locator(".editor-group-container").first().locator(".tab", { has: user.page.locator(".label-name", { hasText: /^cart\.py$/ }) }).click();
    await user.waitForTab("cart.py");
    await user.page.keyboard.press("Control+Home");
    await user.page.keyboard.type("# Typed while the review is open.\n");
    await user.page.keyboard.press("Control+2");
    note("typed", { views: await user.diffViews() });
  },

  /** A file with a real Git conflict, then a reply document with a SEARCH/REPLACE
   * block, then the block in plain Markdown, then the file again: what lenses and conflict colours each shows, and the
   * user settings file at the start (tests/vscode/test_merge_conflict.py). */
  async "merge-conflict-marks"(user) {
    note("settings before", { text: readFileSync(join(given.work, "data", "User", "settings.json"), "utf8") });
    const marks = async () => ({ lenses: await user.codeLenses(), decorations: await conflictDecorations(user.page) });
    await user.openFile("merged.py");
    note("conflict", await settled(marks, (now) => now.lenses.some((lens) => lens.includes("Accept Current Change"))));
    await user.openFile("notes.llm.md");
    await user.waitForStatus(/1 pending change/);
    note(
      "reply",
      await settled(marks, (now) => now.lenses.some((lens) => /\bAccept\b/.test(lens)) && !now.lenses.some((lens) => lens.includes("Current Change"))),
    );
    // The same block in a Markdown file that is no reply document, as pasted there.
    await user.openFile("pasted.md");
    await user.page.waitForSelector(".editor-group-container.active .view-line >> text=REPLACE");
    note("pasted", await settled(marks, () => false, 3000));
    await user.openFile("merged.py");
    note("conflict again", await settled(marks, (now) => now.lenses.some((lens) => lens.includes("Accept Current Change"))));
  },

  /** A server command that does not exist: the user is told what to set. */
  async "no-server"(user) {
    note("started", { messages: await user.waitForMessage(/could not start its server/) });
  },
};

/** What `read` gives once `done` holds for it and `quiet` milliseconds more have
 * passed (or after 20 seconds, whatever it gives then): lenses and decorations follow
 * a change of settings a moment later. */
async function settled(read, done, quiet = 1000) {
  const until = Date.now() + 20_000;
  while (!done(await read()) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await new Promise((resolve) => setTimeout(resolve, quiet));
  return read();
}

/** The texts decorations add to the lines of the active editor, such as Git's
 * "(Current Change)" on a conflict's first line. */
async function conflictDecorations(page) {
  return page.evaluate(() => {
    const editor = document.querySelector(".editor-group-container.active .editor-instance .monaco-editor");
    const texts = [];
    for (const element of editor?.querySelectorAll(".view-lines span") ?? []) {
      for (const pseudo of ["::before", "::after"]) {
        const content = getComputedStyle(element, pseudo).content;
        if (content && content !== "none" && content !== "normal") {
          texts.push(content.replace(/^"|"$/g, "").trim());
        }
      }
    }
    return texts;
  });
}

async function main() {
  const { server, url } = await startCodeServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  let user;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${url}/?folder=${encodeURIComponent(given.workspace)}`);
    await page.waitForSelector(".monaco-workbench .part.editor", { timeout: 60_000 });
    // The status bar item appears once the extension has started its server.
    if (scenarioName !== "no-server") {
      await page.locator(".statusbar-item", { hasText: /pending change/ }).first().waitFor({ timeout: 60_000 });
    }
    user = new User(page);
    await scenarios[scenarioName](user);
  } catch (error) {
    saw.error = String(error?.stack ?? error);
    await user?.shot("vscode-failed");
  } finally {
    writeFileSync(sawPath, JSON.stringify(saw, null, 2));
    await browser.close();
    server.kill();
  }
}

await main();
