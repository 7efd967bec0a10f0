-- lsp-edit for Neovim 0.7 and later: review the edit blocks of an LLM reply as
-- pending changes, and accept or reject each one.
--
-- Copy this file to ~/.config/nvim/lua/lsp_edit.lua and lsp_edit/inline.lua (the
-- inline view) to ~/.config/nvim/lua/lsp_edit/inline.lua, or add the folder above
-- them, editors/neovim, to 'runtimepath'; then call, in init.lua:
--
--   require('lsp_edit').setup()
--
-- docs/neovim.md in the lsp-edit repository describes the options, the commands
-- and the keys. The files need nothing but Neovim and `lsp-edit serve`.

local M = {}

local api = vim.api
local NAME = 'lsp-edit'

local defaults = {
  -- The server. Put the full path of the virtualenv's lsp-edit here if it is not on PATH.
  cmd = { 'lsp-edit', 'serve' },
  -- The workspace of a file: the nearest folder above it that holds one of these,
  -- else the current directory when the file is inside it, else the file's folder.
  -- Replies may only touch files inside the workspace.
  root_markers = { '.git', '.hg', 'pyproject.toml', 'package.json', 'Cargo.toml', 'go.mod' },
  -- initializationOptions.lspEdit: mode, replyGlobs, pendingSeverity (docs/protocol.md).
  settings = {},
  -- Keys mapped in a buffer only while it shows changes or failures; false leaves one out.
  keys = {
    next = ']r',
    prev = '[r',
    accept = '<leader>ra',
    reject = '<leader>rr',
    accept_all = '<leader>rA',
    reject_all = '<leader>rR',
    diff = '<leader>rd',
  },
  -- Show the server's "Accept | Reject" code lenses in buffers with pending changes.
  code_lens = true,
  -- The inline view (lsp_edit/inline.lua): 'all' draws each pending change's new lines
  -- under the lines they replace, 'cursor' only the change on the cursor's line, false
  -- none.
  inline = 'all',
  -- How long a command waits for the server, in milliseconds.
  timeout_ms = 10000,
  -- Passed to the client as they are (debounce_text_changes, ...).
  flags = {},
  -- Called with (client, bufnr) when lsp-edit attaches to a buffer.
  on_attach = nil,
}

local config = vim.deepcopy(defaults)
local started = {} -- root folder -> client id, where vim.lsp.start is missing (0.7)
local recent = {} -- source buffers, the one focused last at the end
local mapped = {} -- bufnr -> the keys mapped there
local proposed_from = {} -- bufnr -> { session, first }: a reply proposed from its lines
local diagnostic_lines = {} -- URI -> { [change id] = the 0-based line of its diagnostic }
local inline = nil -- lsp_edit/inline.lua, once setup() has loaded it

-- A line shows at most this many of lsp-edit's problems (the last says how many more).
local PROBLEMS_PER_LINE = 3
-- Proposing a reply prints at most this many of its problems.
local PRINTED_PROBLEMS = 3

local function has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

local function notify(message, level)
  vim.notify('lsp-edit: ' .. message, level or vim.log.levels.INFO)
end

-- Client methods are called with `:` from 0.11 on; `.` is deprecated there.
local function call(client, method, ...)
  if has('0.11') then
    return client[method](client, ...)
  end
  return client[method](...)
end

-- ---------------------------------------------------------------------------
-- Buffers

local function is_file_buffer(bufnr)
  if not api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return false
  end
  local name = api.nvim_buf_get_name(bufnr)
  -- term://, fugitive://, lsp-edit-proposed:// ... are not files.
  return name ~= '' and not name:match('^%a[%w+.-]*://')
end

local function reply_globs()
  return config.settings.replyGlobs or { '**/*.llm.md' }
end

-- Whether a buffer holds an LLM reply (it matches the replyGlobs setting): the server
-- turns its blocks into pending changes as they are typed, no :LspEditApply needed.
local function is_reply(bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  for _, glob in ipairs(reply_globs()) do
    if vim.fn.match(name, vim.fn.glob2regpat(glob)) >= 0 then
      return true
    end
  end
  return false
end

local function is_source(bufnr)
  return is_file_buffer(bufnr) and not is_reply(bufnr)
end

local function remember(bufnr)
  for i = #recent, 1, -1 do
    if recent[i] == bufnr or not api.nvim_buf_is_valid(recent[i]) then
      table.remove(recent, i)
    end
  end
  table.insert(recent, bufnr)
end

-- The source buffer focused last, other than `except`.
local function last_source(except)
  for i = #recent, 1, -1 do
    local bufnr = recent[i]
    if bufnr ~= except and api.nvim_buf_is_valid(bufnr) and is_source(bufnr) then
      return bufnr
    end
  end
  return nil
end

local function exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

local function root_of(bufnr)
  local file = vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ':p')
  local dir = vim.fn.fnamemodify(file, ':h')
  local up = dir
  while true do
    for _, marker in ipairs(config.root_markers) do
      if exists(up .. '/' .. marker) then
        return up
      end
    end
    local parent = vim.fn.fnamemodify(up, ':h')
    if parent == up then
      break
    end
    up = parent
  end
  local cwd = vim.fn.getcwd()
  if file:sub(1, #cwd + 1) == cwd .. '/' then
    return cwd
  end
  return dir
end

-- ---------------------------------------------------------------------------
-- The client

local function clients()
  local found = {}
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, client in ipairs(all) do
    if client.name == NAME then
      table.insert(found, client)
    end
  end
  return found
end

local function attached_client(bufnr)
  for _, client in ipairs(clients()) do
    if vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
  return nil
end

-- Diagnostics with at most PROBLEMS_PER_LINE problems on a line: a reply of thousands
-- of failing blocks would put a wall of signs and virtual text on line 1.
local function fewer_problems(diagnostics)
  local on_line = {}
  for _, diagnostic in ipairs(diagnostics) do
    if diagnostic.code ~= 'pending-change' then
      local line = diagnostic.range.start.line
      on_line[line] = (on_line[line] or 0) + 1
    end
  end
  local kept, shown, worst = {}, {}, {}
  for _, diagnostic in ipairs(diagnostics) do
    local line = diagnostic.range.start.line
    if diagnostic.code == 'pending-change' or on_line[line] <= PROBLEMS_PER_LINE then
      table.insert(kept, diagnostic)
    else
      shown[line] = (shown[line] or 0) + 1
      if shown[line] < PROBLEMS_PER_LINE then
        table.insert(kept, diagnostic)
      else
        worst[line] = math.min(worst[line] or 4, diagnostic.severity or 1)
      end
    end
  end
  for line, severity in pairs(worst) do
    local more = on_line[line] - PROBLEMS_PER_LINE + 1
    table.insert(kept, {
      range = { start = { line = line, character = 0 }, ['end'] = { line = line, character = 0 } },
      severity = severity,
      source = NAME,
      code = 'more-problems',
      message = string.format('%d more blocks were not applied here: :LspEditList lists them.', more),
    })
  end
  return kept
end

-- lsp-edit's diagnostics: where each change's is noted (for :LspEditList and for the
-- key that dismisses a failure), then shown as Neovim shows any.
local function on_diagnostics(err, result, ctx, handler_config)
  local pending = false
  if result and result.uri and result.diagnostics then
    local lines = {}
    for _, diagnostic in ipairs(result.diagnostics) do
      if type(diagnostic.data) == 'table' and diagnostic.data.id then
        lines[diagnostic.data.id] = diagnostic.range.start.line
      end
      pending = pending or diagnostic.code == 'pending-change'
    end
    diagnostic_lines[result.uri] = lines
    result.diagnostics = fewer_problems(result.diagnostics)
  end
  local shown = vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, handler_config)
  -- The inline view asks for the new lines of the changes that came, moved or went.
  if inline and result and result.uri then
    for _, bufnr in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(bufnr) and vim.uri_from_bufnr(bufnr) == result.uri then
        inline.published(bufnr, pending)
      end
    end
  end
  return shown
end

local function client_config(root)
  local settings = next(config.settings) and { lspEdit = config.settings } or nil
  return {
    name = NAME,
    cmd = config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = settings,
    flags = config.flags,
    on_attach = config.on_attach,
    handlers = { ['textDocument/publishDiagnostics'] = on_diagnostics },
  }
end

local function attach(bufnr)
  if not is_file_buffer(bufnr) or attached_client(bufnr) then
    return
  end
  local root = root_of(bufnr)
  local id
  if vim.lsp.start then
    id = vim.lsp.start(client_config(root), { bufnr = bufnr })
  else
    id = started[root]
    if not id or not vim.lsp.get_client_by_id(id) then
      id = vim.lsp.start_client(client_config(root))
      started[root] = id
    end
  end
  if id and not vim.lsp.buf_is_attached(bufnr, id) then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

-- The client for a buffer: the one attached to it, else the one of the source buffer
-- focused last, else any running one.
local function client_for(bufnr)
  attach(bufnr)
  local client = attached_client(bufnr)
  if not client then
    local source = last_source(nil)
    client = source and attached_client(source) or clients()[1]
  end
  if not client then
    notify('no lsp-edit server is running: open a file first.', vim.log.levels.ERROR)
    return nil
  end
  vim.wait(config.timeout_ms, function()
    return client.initialized
  end, 10)
  return client
end

local DECIDING = { ['lspEdit.accept'] = 1, ['lspEdit.reject'] = 1, ['lspEdit.acceptAll'] = 1, ['lspEdit.rejectAll'] = 1 }

-- The changes an accept or a reject decided: the inline view drops them at once.
local function decided(command, result)
  local ids = {}
  for _, change in ipairs(DECIDING[command] and (result.changes or { result }) or {}) do
    if change.status == 'applied' or change.status == 'rejected' then
      table.insert(ids, change.id)
    end
  end
  if #ids > 0 then
    inline.decided(ids)
  end
end

-- Runs an lspEdit.* command and returns its result, or nil after telling the user why.
local function execute(client, bufnr, command, arguments)
  -- An empty Lua table would be sent as [], and the server wants an object.
  if arguments == nil or next(arguments) == nil then
    arguments = vim.empty_dict()
  end
  local params = { command = command, arguments = { arguments } }
  local response, err =
    call(client, 'request_sync', 'workspace/executeCommand', params, config.timeout_ms, bufnr)
  if not response then
    notify(command .. ': ' .. tostring(err or 'no answer'), vim.log.levels.ERROR)
    return nil
  end
  if response.err then
    notify(response.err.message or vim.inspect(response.err), vim.log.levels.ERROR)
    return nil
  end
  if inline and type(response.result) == 'table' then
    decided(command, response.result)
  end
  return response.result
end

local function uri_of(bufnr)
  return vim.uri_from_bufnr(bufnr)
end

-- ---------------------------------------------------------------------------
-- Finding changes

local function covers(range, line)
  local first, last = range.start.line, range['end'].line
  if first == last then
    return line == first
  end
  if range['end'].character == 0 then
    last = last - 1
  end
  return first <= line and line <= last
end

local function listed(client, bufnr, arguments)
  local result = execute(client, bufnr, 'lspEdit.list', arguments)
  return result and result.changes or nil
end

-- A change the server could not apply (a block already in the file is none).
local function not_applied(change)
  local open = change.status == 'failed' or change.status == 'stale' or change.status == 'skipped'
  return open and change.code ~= 'already-applied'
end

-- The change of the reply block under the cursor, in a buffer a reply was proposed from
-- (the server gives each change the lines of its block in the reply: replyLines).
local function change_in_proposed(client, bufnr, line, fits)
  local from = proposed_from[bufnr]
  for _, change in ipairs(from and listed(client, bufnr, { session = from.session }) or {}) do
    local lines = change.replyLines
    local at = line - from.first
    if fits(change) and lines and lines.start <= at and at < lines['end'] then
      return change
    end
  end
  return nil
end

-- The change on the cursor's line: in a source buffer, the change whose lines these
-- are; in a reply document or a buffer a reply was proposed from, the change of the
-- block the cursor is in. Pending changes only, unless `open`: then also a change
-- that was not applied (stale, failed), which can only be dismissed.
local function change_here(client, bufnr, open)
  local line = api.nvim_win_get_cursor(0)[1] - 1
  local function fits(change)
    return change.status == 'pending' or (open and not_applied(change))
  end
  if is_reply(bufnr) then
    for _, change in ipairs(listed(client, bufnr, {}) or {}) do
      if fits(change) and change.block and change.block.uri == uri_of(bufnr) and covers(change.block.range, line) then
        return change
      end
    end
    return nil
  end
  local from_reply = proposed_from[bufnr] and change_in_proposed(client, bufnr, line, fits)
  if from_reply or not is_file_buffer(bufnr) then
    return from_reply or nil
  end
  local found = nil
  for _, change in ipairs(listed(client, bufnr, { uri = uri_of(bufnr) }) or {}) do
    if fits(change) then
      for _, hunk in ipairs(change.hunks or { change }) do
        if hunk.range and covers(hunk.range, line) then
          if change.status == 'pending' then
            return change
          end
          found = found or change
        end
      end
      -- A failure sits where its diagnostic is.
      if change.status ~= 'pending' and (diagnostic_lines[change.uri] or {})[change.id] == line then
        found = found or change
      end
    end
  end
  return found
end

-- What acceptAll/rejectAll act on: everything with a bang; in a reply document or a
-- buffer a reply was proposed from, that reply's session; else the current file.
local function scope(client, bufnr, everything)
  if everything then
    return {}
  end
  if is_reply(bufnr) then
    for _, change in ipairs(listed(client, bufnr, {}) or {}) do
      if change.block and change.block.uri == uri_of(bufnr) then
        return { session = change.session }
      end
    end
    return nil
  end
  if not is_file_buffer(bufnr) then
    return proposed_from[bufnr] and { session = proposed_from[bufnr].session } or nil
  end
  return { uri = uri_of(bufnr) }
end

local function jump(uri, range)
  local bufnr = vim.uri_to_bufnr(uri)
  if bufnr ~= api.nvim_get_current_buf() then
    vim.cmd("normal! m'")
    vim.bo[bufnr].buflisted = true
    api.nvim_win_set_buf(0, bufnr)
  end
  local line = math.min(range.start.line + 1, api.nvim_buf_line_count(bufnr))
  api.nvim_win_set_cursor(0, { line, 0 })
  vim.cmd('normal! zv')
end

-- ---------------------------------------------------------------------------
-- What the commands do (also callable from Lua: require('lsp_edit').accept() ...)

-- What proposing prints: the server's summary, or when it is longer than a few lines
-- (it lists up to 10 blocks that were not applied), its first line, how many were not
-- applied and the first PRINTED_PROBLEMS of them: :LspEditList lists them all.
local function summary_message(result)
  local lines = vim.split(result.summary or '', '\n', { plain = true })
  if #lines <= PRINTED_PROBLEMS + 2 then
    return result.summary
  end
  local failed = 0
  for _, change in ipairs(result.changes) do
    failed = failed + (not_applied(change) and 1 or 0)
  end
  local out = { lines[1] }
  if failed > 0 then
    table.insert(out, string.format('%d blocks were not applied: :LspEditList lists them. The first:', failed))
  end
  for _, line in ipairs(lines) do
    if #out < PRINTED_PROBLEMS + 2 and line:find(' was not applied: ', 1, true) then
      table.insert(out, line)
    end
  end
  return table.concat(out, '\n')
end

-- Proposes a reply. `opts.text` is the reply; `opts.target` the buffer its blocks go
-- to when they name no file (nil: they must name their files); `opts.from` the buffer
-- the reply's lines are in and `opts.first` its first line there (0-based), so that
-- :LspEditAccept there acts on the block under the cursor.
function M.apply(opts)
  local target = opts.target
  local client = client_for(target or api.nvim_get_current_buf())
  if not client then
    return nil
  end
  local arguments = { response = opts.text }
  if target then
    arguments.uri = uri_of(target)
  end
  local result = execute(client, target, 'lspEdit.propose', arguments)
  if result then
    local failed = false
    for _, change in ipairs(result.changes) do
      failed = failed or change.status == 'failed' or change.status == 'stale'
    end
    if opts.from then
      proposed_from[opts.from] = { session = result.session, first = opts.first or 0 }
    end
    notify(summary_message(result), failed and vim.log.levels.WARN or vim.log.levels.INFO)
  end
  return result
end

-- :LspEditApply: the reply is the register given, else the range, else the whole
-- current buffer. The default target is the current buffer when the reply comes from a
-- register and this is a source file; otherwise the source buffer focused last.
local function apply_command(args)
  local bufnr = api.nvim_get_current_buf()
  local text, target, first
  if args.reg and args.reg ~= '' then
    text = vim.fn.getreg(args.reg)
    target = is_source(bufnr) and bufnr or last_source(bufnr)
  else
    if is_reply(bufnr) then
      notify('this buffer is a reply document: its blocks are pending already (:LspEditNext).')
      return
    end
    local last
    first, last = 0, -1
    if args.range > 0 then
      first, last = args.line1 - 1, args.line2
    end
    text = table.concat(api.nvim_buf_get_lines(bufnr, first, last, false), '\n') .. '\n'
    target = last_source(bufnr)
  end
  if vim.trim(text) == '' then
    notify('the reply is empty.', vim.log.levels.WARN)
    return
  end
  if first and vim.bo[bufnr].buftype == '' and api.nvim_buf_get_name(bufnr) == '' then
    -- A reply pasted in a new buffer (:new) is a scratch buffer now: :wa skips it
    -- rather than failing with E141 (no file name), and closing it asks nothing.
    vim.bo[bufnr].buftype = 'nofile'
    vim.bo[bufnr].bufhidden = 'hide'
    vim.bo[bufnr].swapfile = false
  end
  M.apply({ text = text, target = target, from = first and bufnr or nil, first = first })
end

-- Tells what deciding a change did: `done` ("accepted: ...") when the server did it,
-- else the server's reason.
local function report(command, done, result)
  local wanted = command == 'lspEdit.accept' and 'applied' or 'rejected'
  if result.message then
    notify(result.message, vim.log.levels.WARN)
  elseif result.status == wanted then
    notify(done)
  end
end

-- "accepted: <description>", "rejected: ...", "dismissed: ... (stale)".
local function decision(command, change)
  if command == 'lspEdit.accept' then
    return 'accepted: ' .. change.description
  elseif change.status == 'pending' then
    return 'rejected: ' .. change.description
  end
  return string.format('dismissed: %s (%s)', change.description, change.status)
end

local function key_of(action)
  local lhs = config.keys[action]
  return lhs and lhs:gsub('<leader>', vim.g.mapleader or '\\') or nil
end

-- What to say when nothing can be accepted on the cursor's line.
local function nothing_to_accept(client, bufnr)
  local failure = change_here(client, bufnr, true)
  if failure then
    local dismiss = key_of('reject') or ':LspEditReject'
    notify(
      string.format('%s was not applied: %s (%s dismisses it)', failure.description, failure.message or failure.status, dismiss),
      vim.log.levels.WARN
    )
  else
    notify('no pending change on this line (:LspEditNext goes to the next one).')
  end
end

local function decide(command, id)
  local bufnr = api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return nil
  end
  local done = string.format('%s: change %s', command == 'lspEdit.accept' and 'accepted' or 'rejected', tostring(id))
  if not id then
    local change = change_here(client, bufnr, command == 'lspEdit.reject')
    if not change then
      if command == 'lspEdit.accept' then
        nothing_to_accept(client, bufnr)
      else
        notify('no change on this line (:LspEditNext goes to the next one).')
      end
      return nil
    end
    id = change.id
    done = decision(command, change)
  end
  local result = execute(client, bufnr, command, { id = id })
  if result then
    report(command, done, result)
  end
  return result
end

function M.accept(id)
  return decide('lspEdit.accept', id)
end

function M.reject(id)
  return decide('lspEdit.reject', id)
end

local function decide_all(command, everything)
  local bufnr = api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return nil
  end
  local arguments = scope(client, bufnr, everything)
  if not arguments then
    notify('this buffer has no changes: run it in the file, or with ! for every file.')
    return nil
  end
  local result = execute(client, bufnr, command, arguments)
  if result and result.message then
    notify(result.message, vim.log.levels.WARN)
  elseif result then
    local accepting = command == 'lspEdit.acceptAll'
    local count = 0
    for _, change in ipairs(result.changes or {}) do
      count = count + (change.status == (accepting and 'applied' or 'rejected') and 1 or 0)
    end
    local verb = accepting and 'accepted' or 'rejected'
    notify(string.format('%s %d change%s.', verb, count, count == 1 and '' or 's'))
  end
  return result
end

function M.accept_all(everything)
  return decide_all('lspEdit.acceptAll', everything)
end

function M.reject_all(everything)
  return decide_all('lspEdit.rejectAll', everything)
end

-- Goes to the next (direction 1) or previous (-1) pending change, in any file. The
-- server also shows it where Neovim supports window/showDocument (0.8+); the jump here
-- makes 0.7 go there too, and lands on the same line otherwise.
function M.step(direction)
  local bufnr = api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return nil
  end
  local arguments = {}
  if is_file_buffer(bufnr) then
    local line = api.nvim_win_get_cursor(0)[1] - 1
    arguments = { uri = uri_of(bufnr), position = { line = line, character = 0 } }
  end
  local command = direction > 0 and 'lspEdit.next' or 'lspEdit.previous'
  local result = execute(client, bufnr, command, arguments)
  local change = result and result.change
  if result and change == nil then
    notify('no pending change.')
    return nil
  end
  if change then
    if change.range then
      jump(change.uri, change.range)
    elseif change.block then
      jump(change.block.uri, change.block.range)
    end
    notify(change.description)
  end
  return change
end

local LIST_TYPES = { pending = 'I', stale = 'W', skipped = 'W', failed = 'E' }

-- A change as a quickfix item: at its lines, else where its diagnostic is, else at its
-- block in the reply document, else on line 1 of its file; without a file when it
-- names none.
local function list_item(change)
  local text = change.status .. ': ' .. change.description
  if change.status ~= 'pending' and change.message then
    text = text .. ': ' .. vim.split(change.message, '\n', { plain = true })[1]
  end
  local item = { text = text, type = LIST_TYPES[change.status] }
  local uri = type(change.uri) == 'string' and change.uri or nil
  local line = change.range and change.range.start.line
  if uri and not line then
    line = (diagnostic_lines[uri] or {})[change.id]
  end
  if uri and line then
    item.filename, item.lnum = vim.uri_to_fname(uri), line + 1
  elseif change.block then
    item.filename, item.lnum = vim.uri_to_fname(change.block.uri), change.block.range.start.line + 1
  elseif uri then
    item.filename, item.lnum = vim.uri_to_fname(uri), 1
  end
  return item
end

-- Every pending change and every change that was not applied, of every reply, in the
-- quickfix list (by file and line), which opens. Returns the items.
function M.list()
  local bufnr = api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return nil
  end
  local changes = listed(client, bufnr, {})
  if not changes then
    return nil
  end
  local items, pending, failed = {}, 0, 0
  for _, change in ipairs(changes) do
    if change.status == 'pending' or not_applied(change) then
      table.insert(items, list_item(change))
      pending = pending + (change.status == 'pending' and 1 or 0)
      failed = failed + (change.status == 'pending' and 0 or 1)
    end
  end
  if #items == 0 then
    notify('no change is pending, and none failed.')
    return items
  end
  table.sort(items, function(a, b)
    if (a.filename or '~') ~= (b.filename or '~') then
      return (a.filename or '~') < (b.filename or '~')
    end
    if (a.lnum or 0) ~= (b.lnum or 0) then
      return (a.lnum or 0) < (b.lnum or 0)
    end
    return a.text < b.text
  end)
  local title = string.format('lsp-edit: %d pending, %d not applied', pending, failed)
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  vim.cmd('copen')
  return items
end

-- The standard code action request, made to lsp-edit alone: what Neovim 0.8+ does
-- with vim.lsp.buf.code_action({filter = ..., apply = true}), which 0.7 lacks. It
-- says what an accept or a reject did; `opts.none` is called when no action is left.
local function code_action_here(opts)
  local bufnr = api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return
  end
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  local line = params.range.start.line
  local context = { diagnostics = {} }
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr, { lnum = line })) do
    local lsp = diagnostic.user_data and diagnostic.user_data.lsp
    if lsp and diagnostic.source == NAME then
      table.insert(context.diagnostics, {
        range = {
          start = { line = diagnostic.lnum, character = diagnostic.col },
          ['end'] = { line = diagnostic.end_lnum, character = diagnostic.end_col },
        },
        message = diagnostic.message,
        severity = diagnostic.severity,
        source = diagnostic.source,
        code = diagnostic.code,
        data = lsp.data,
      })
    end
  end
  params.context = context
  local response = call(client, 'request_sync', 'textDocument/codeAction', params, config.timeout_ms, bufnr)
  local actions = {}
  for _, action in ipairs(response and response.result or {}) do
    if not opts.filter or opts.filter(action) then
      table.insert(actions, action)
    end
  end
  local function run(action)
    if not action then
      return
    end
    if action.edit then
      vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
    end
    local command = type(action.command) == 'table' and action.command or nil
    if command then
      local result = execute(client, bufnr, command.command, (command.arguments or {})[1])
      local title, what = action.title:match('^([^:]+): (.*)$')
      if result and what and (command.command == 'lspEdit.accept' or command.command == 'lspEdit.reject') then
        local done = { ['Accept change'] = 'accepted', ['Reject change'] = 'rejected', Dismiss = 'dismissed' }
        report(command.command, (done[title] or title) .. ': ' .. what, result)
      end
    end
  end
  if #actions == 0 then
    if opts.none then
      opts.none(client, bufnr)
    else
      notify('no change here (:LspEditNext goes to the next one).')
    end
  elseif #actions == 1 and opts.apply then
    run(actions[1])
  else
    vim.ui.select(actions, {
      prompt = 'lsp-edit:',
      format_item = function(action)
        return action.title
      end,
    }, run)
  end
end

-- vim.lsp.buf.code_action with `filter` and `apply` on every version.
function M.code_action(opts)
  if has('0.8') then
    vim.lsp.buf.code_action(opts)
  else
    code_action_here(opts or {})
  end
end

local function is_accept_action(action)
  return action.isPreferred == true and action.title:sub(1, #'Accept change') == 'Accept change'
end

-- One key accepts the change under the cursor: the preferred "Accept change" code
-- action applies its edit, then tells the server (lspEdit.accept). The same on every
-- version, so that it says what it did. Where the change has no lines in this buffer
-- (a buffer the reply was proposed from), :LspEditAccept does it.
function M.accept_here()
  local bufnr = api.nvim_get_current_buf()
  if not is_file_buffer(bufnr) then
    return M.accept()
  end
  code_action_here({ filter = is_accept_action, apply = true, none = nothing_to_accept })
end

local function scratch(lines, name, filetype)
  local existing = vim.fn.bufnr('^' .. vim.fn.escape(name, '\\[]*?.~') .. '$')
  if existing > 0 then
    api.nvim_buf_delete(existing, { force = true })
  end
  local bufnr = api.nvim_get_current_buf()
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'wipe'
  vim.bo[bufnr].swapfile = false
  api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  api.nvim_buf_set_name(bufnr, name)
  vim.bo[bufnr].filetype = filetype
  vim.bo[bufnr].modified = false
  return bufnr
end

local function text_lines(text)
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  for i, line in ipairs(lines) do
    lines[i] = line:gsub('\r$', '')
  end
  return lines
end

-- The file with every pending change applied (lspEdit.proposed), in a scratch window
-- beside it, the two in diff mode. Closing the scratch window ends the diff.
function M.diff()
  local bufnr = api.nvim_get_current_buf()
  if not is_source(bufnr) then
    bufnr = last_source(bufnr) or bufnr
  end
  if not is_file_buffer(bufnr) then
    notify('open the file to compare first.', vim.log.levels.WARN)
    return nil
  end
  local client = client_for(bufnr)
  if not client then
    return nil
  end
  local result = execute(client, bufnr, 'lspEdit.proposed', { uri = uri_of(bufnr) })
  if not result then
    return nil
  end
  local source_window = vim.fn.bufwinid(bufnr)
  if source_window == -1 then
    api.nvim_win_set_buf(0, bufnr)
    source_window = api.nvim_get_current_win()
  end
  api.nvim_set_current_win(source_window)
  local cursor = api.nvim_win_get_cursor(source_window)
  vim.cmd('vertical rightbelow new')
  local proposed_window = api.nvim_get_current_win()
  local name = 'lsp-edit-proposed://' .. api.nvim_buf_get_name(bufnr)
  local proposed = scratch(text_lines(result.text), name, vim.bo[bufnr].filetype)
  vim.bo[proposed].modifiable = false
  vim.cmd('diffthis')
  api.nvim_win_call(source_window, function()
    vim.cmd('diffthis')
  end)
  -- 'cursorbind' pulled the file's cursor to the new window's first line: put both
  -- on the line the cursor was on.
  api.nvim_win_set_cursor(source_window, cursor)
  api.nvim_win_set_cursor(proposed_window, { math.min(cursor[1], api.nvim_buf_line_count(proposed)), 0 })
  api.nvim_create_autocmd('BufWipeout', {
    buffer = proposed,
    once = true,
    callback = function()
      if api.nvim_win_is_valid(source_window) then
        api.nvim_win_call(source_window, function()
          vim.cmd('diffoff')
        end)
      end
    end,
  })
  return proposed
end

-- The instructions an LLM needs for a mode, in the unnamed register (and the clipboard
-- when Neovim has one); `show` also opens them in a scratch buffer.
function M.instructions(mode, show)
  local bufnr = api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return nil
  end
  local arguments = {}
  mode = mode or config.settings.mode
  if mode and mode ~= '' and mode ~= 'auto' then
    arguments.mode = mode
  end
  local result = execute(client, bufnr, 'lspEdit.instructions', arguments)
  if not result then
    return nil
  end
  vim.fn.setreg('"', result.text)
  local where = 'register "'
  if vim.fn.has('clipboard') == 1 and pcall(vim.fn.setreg, '+', result.text) then
    where = where .. ' and the clipboard'
  end
  notify(string.format('the %s instructions are in %s.', arguments.mode or 'ast_path', where))
  if show then
    vim.cmd('new')
    scratch(text_lines(result.text), 'lsp-edit-instructions://' .. (arguments.mode or 'ast_path'), 'markdown')
  end
  return result.text
end

-- ---------------------------------------------------------------------------
-- Asking the model (lspEdit.ask, docs/ask.md)

local function shown_in_a_window(bufnr)
  return vim.fn.bufwinid(bufnr) ~= -1
end

-- Shows a reply document in a split below, the cursor staying where it is.
local function show_beside(path)
  local bufnr = vim.fn.bufnr(path)
  if bufnr ~= -1 and shown_in_a_window(bufnr) then
    return bufnr
  end
  local window = api.nvim_get_current_win()
  vim.cmd('belowright split ' .. vim.fn.fnameescape(path))
  bufnr = api.nvim_get_current_buf()
  api.nvim_set_current_win(window)
  return bufnr
end

-- Saves a reply document the server wrote into (its buffer is the document while open).
local function save_reply(uri)
  local bufnr = vim.uri_to_bufnr(uri)
  if api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].modified then
    api.nvim_buf_call(bufnr, function()
      vim.cmd('silent write')
    end)
  end
end

-- Asks the model about the current buffer (and `opts.range`, {first, last} 1-based
-- lines): its reply streams into `<file>.llm.md`, shown below, where every block
-- becomes a pending change as it arrives. Returns at once; when the reply is complete
-- (or failed, or was cancelled) `opts.on_done(result)` is called, `M.last_answer`
-- holds the result and the `User LspEditAskDone` autocommand runs.
function M.ask(opts)
  local bufnr = opts.bufnr or api.nvim_get_current_buf()
  if not opts.prompt or vim.trim(opts.prompt) == '' then
    notify('ask what? :LspEditAsk {prompt}', vim.log.levels.WARN)
    return nil
  end
  local client = client_for(bufnr)
  if not client then
    return nil
  end
  local arguments = { prompt = opts.prompt }
  if is_file_buffer(bufnr) then
    arguments.uri = uri_of(bufnr)
    if is_source(bufnr) then
      -- The conversation about a file is the reply document beside it.
      show_beside(api.nvim_buf_get_name(bufnr) .. '.llm.md')
    end
  end
  if opts.range and is_source(bufnr) then
    arguments.range = {
      start = { line = opts.range[1] - 1, character = 0 },
      ['end'] = { line = opts.range[2], character = 0 },
    }
  end
  local params = { command = 'lspEdit.ask', arguments = { arguments } }
  local function done(err, result)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
    elseif result then
      save_reply(result.uri)
      if result.status == 'done' then
        notify(result.summary)
      elseif result.status == 'cancelled' then
        notify('the ask was cancelled; what arrived is kept.')
      end
      -- A failure was shown by the server (window/showMessage).
    end
    M.last_answer = result
    if opts.on_done then
      opts.on_done(result, err)
    end
    -- For a statusline or a mapping that waits for the reply.
    api.nvim_exec_autocmds('User', { pattern = 'LspEditAskDone', modeline = false })
  end
  -- Not request_sync: the reply streams for as long as the model writes.
  call(client, 'request', 'workspace/executeCommand', params, function(err, result)
    done(err, result)
  end, bufnr)
  return true
end

-- ---------------------------------------------------------------------------
-- Keys and lenses, while a buffer shows changes or failures

-- lsp-edit's diagnostics in a buffer: pending changes and those not applied.
local function shown_count(bufnr)
  local count = 0
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    if diagnostic.source == NAME then
      count = count + 1
    end
  end
  return count
end

local actions = {
  next = { function() M.step(1) end, 'lsp-edit: next pending change' },
  prev = { function() M.step(-1) end, 'lsp-edit: previous pending change' },
  accept = { function() M.accept_here() end, 'lsp-edit: accept the change here' },
  reject = { function() M.reject() end, 'lsp-edit: reject the change here' },
  accept_all = { function() M.accept_all(false) end, 'lsp-edit: accept all in this file' },
  reject_all = { function() M.reject_all(false) end, 'lsp-edit: reject all in this file' },
  diff = { function() M.diff() end, 'lsp-edit: show the proposed file in a diff' },
}

local function map_keys(bufnr)
  local keys = {}
  for name, lhs in pairs(config.keys) do
    local action = actions[name]
    -- A buffer-local mapping the user made stays.
    if lhs and action and vim.fn.maparg(lhs, 'n', false, true).buffer ~= 1 then
      vim.keymap.set('n', lhs, action[1], { buffer = bufnr, desc = action[2], silent = true })
      table.insert(keys, lhs)
    end
  end
  mapped[bufnr] = keys
end

local function unmap_keys(bufnr)
  for _, lhs in ipairs(mapped[bufnr] or {}) do
    pcall(vim.keymap.del, 'n', lhs, { buffer = bufnr })
  end
  mapped[bufnr] = nil
end

-- Neovim up to 0.7 keeps showing the old lenses when a server answers with none.
local function clear_lenses(client, bufnr)
  if vim.lsp.codelens.clear then
    vim.lsp.codelens.clear(client.id, bufnr)
  else
    vim.lsp.codelens.save({}, bufnr, client.id)
    local namespace = vim.lsp.codelens.__namespaces[client.id]
    if namespace then
      api.nvim_buf_clear_namespace(bufnr, namespace, 0, -1)
    end
  end
end

local asking = {} -- bufnr -> 'asked', or 'again' when asked again meanwhile

-- Asks lsp-edit for a buffer's lenses and shows them. Neovim (0.7 to 0.12 at least)
-- has no workspace/codeLens/refresh, and its own vim.lsp.codelens.refresh() asks only
-- for the current buffer, and drops a refresh asked for while one is under way: the
-- lenses would show what the server had before.
local function refresh_lenses(bufnr)
  local client = config.code_lens and api.nvim_buf_is_loaded(bufnr) and attached_client(bufnr)
  if not client then
    return
  end
  if asking[bufnr] then
    asking[bufnr] = 'again'
    return
  end
  asking[bufnr] = 'asked'
  local params = { textDocument = { uri = uri_of(bufnr) } }
  local sent = call(client, 'request', 'textDocument/codeLens', params, function(err, result, ctx)
    local again = asking[bufnr] == 'again'
    asking[bufnr] = nil
    if api.nvim_buf_is_loaded(bufnr) then
      if not err and (result == nil or next(result) == nil) then
        clear_lenses(client, bufnr)
      else
        vim.lsp.codelens.on_codelens(err, result, ctx)
      end
    end
    if again then
      refresh_lenses(bufnr)
    end
  end, bufnr)
  if not sent then
    asking[bufnr] = nil
  end
end

local function follow(bufnr)
  local client = api.nvim_buf_is_valid(bufnr) and attached_client(bufnr)
  if not client then
    return
  end
  -- The keys stay while a failure is shown too: the reject key dismisses it.
  local pending = shown_count(bufnr) > 0
  local had_keys = mapped[bufnr] ~= nil
  if pending and not had_keys then
    api.nvim_buf_call(bufnr, function()
      map_keys(bufnr)
    end)
  elseif not pending and had_keys then
    unmap_keys(bufnr)
  end
  -- A buffer not in a window gets its lenses when it is entered.
  if (pending or had_keys or is_reply(bufnr)) and vim.fn.bufwinid(bufnr) ~= -1 then
    refresh_lenses(bufnr)
  end
end

-- The server's diagnostics changed in `bufnr`: its keys and lenses follow, and so do
-- the lenses of the replies on screen (their blocks' states and lines are in them,
-- and a reply's own diagnostics change only when a block fails).
local function diagnostics_changed(bufnr)
  follow(bufnr)
  for _, window in ipairs(api.nvim_list_wins()) do
    local shown = api.nvim_win_get_buf(window)
    if shown ~= bufnr and is_reply(shown) then
      refresh_lenses(shown)
    end
  end
end

-- ---------------------------------------------------------------------------
-- The inline view (lsp_edit/inline.lua)

-- Loads the inline view and sets its mode. Without the file (lsp_edit.lua copied
-- alone), everything else works and the view is off, with a notice.
local function load_inline()
  if not config.inline then
    return inline and inline.setup({ mode = false })
  end
  local found, module = pcall(require, 'lsp_edit.inline')
  if not found then
    notify('the inline view needs lsp_edit/inline.lua beside lsp_edit.lua (or set inline = false).', vim.log.levels.WARN)
    return nil
  end
  module.setup({ mode = config.inline, client = attached_client })
  -- The buffers that show pending changes already get their new lines.
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    for _, diagnostic in ipairs(api.nvim_buf_is_loaded(bufnr) and vim.diagnostic.get(bufnr) or {}) do
      if diagnostic.source == NAME and diagnostic.code == 'pending-change' then
        module.published(bufnr, true)
        break
      end
    end
  end
  return module
end

-- Sets the inline view: 'all' (every pending change's new lines under the lines they
-- replace), 'cursor' (only the change on the cursor's line) or false (none).
function M.inline(mode)
  config.inline = mode
  inline = load_inline()
end

-- What the inline view shows: 'all', 'cursor' or false.
function M.inline_mode()
  return config.inline
end

-- ---------------------------------------------------------------------------
-- Setup

local function user_commands()
  local command = api.nvim_create_user_command
  command('LspEditApply', apply_command, {
    range = true,
    register = true,
    desc = 'lsp-edit: propose the reply in a register, the range or this buffer',
  })
  command('LspEditAccept', function(args)
    M.accept(args.args ~= '' and args.args or nil)
  end, { nargs = '?', desc = 'lsp-edit: accept the change on this line' })
  command('LspEditReject', function(args)
    M.reject(args.args ~= '' and args.args or nil)
  end, { nargs = '?', desc = 'lsp-edit: reject the change on this line' })
  command('LspEditNext', function()
    M.step(1)
  end, { desc = 'lsp-edit: next pending change' })
  command('LspEditPrev', function()
    M.step(-1)
  end, { desc = 'lsp-edit: previous pending change' })
  command('LspEditAcceptAll', function(args)
    M.accept_all(args.bang)
  end, { bang = true, desc = 'lsp-edit: accept every change in this file (! everywhere)' })
  command('LspEditRejectAll', function(args)
    M.reject_all(args.bang)
  end, { bang = true, desc = 'lsp-edit: reject every change in this file (! everywhere)' })
  command('LspEditList', function()
    M.list()
  end, { desc = 'lsp-edit: the pending changes and the failures in the quickfix list' })
  command('LspEditDiff', function()
    M.diff()
  end, { desc = 'lsp-edit: the proposed file beside this one, in diff mode' })
  command('LspEditInstructions', function(args)
    M.instructions(args.args ~= '' and args.args or nil, args.bang)
  end, {
    nargs = '?',
    bang = true,
    complete = function()
      return { 'ast_path', 'line_numbers', 'complete_file' }
    end,
    desc = 'lsp-edit: copy the instructions for the LLM (! shows them)',
  })
  command('LspEditAsk', function(args)
    M.ask({ prompt = args.args, range = args.range > 0 and { args.line1, args.line2 } or nil })
  end, { nargs = '+', range = true, desc = 'lsp-edit: ask the model (about the range)' })
end

function M.setup(opts)
  config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.keys == false then
    config.keys = {}
  end
  user_commands()
  inline = load_inline()
  local group = api.nvim_create_augroup('lsp_edit', { clear = true })
  api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufEnter' }, {
    group = group,
    callback = function(args)
      attach(args.buf)
      if is_source(args.buf) then
        remember(args.buf)
      end
      if args.event == 'BufEnter' then
        follow(args.buf)
        if inline then
          inline.entered(args.buf)
        end
      end
    end,
  })
  api.nvim_create_autocmd('CursorMoved', {
    group = group,
    callback = function(args)
      if inline then
        inline.cursor_moved(args.buf)
      end
    end,
  })
  api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(args)
      diagnostics_changed(args.buf)
    end,
  })
  api.nvim_create_autocmd('InsertLeave', {
    group = group,
    callback = function(args)
      follow(args.buf)
    end,
  })
  api.nvim_create_autocmd('BufWipeout', {
    group = group,
    callback = function(args)
      mapped[args.buf] = nil
      asking[args.buf] = nil
      if inline then
        inline.forget(args.buf)
      end
    end,
  })
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(bufnr) then
      attach(bufnr)
      if is_source(bufnr) then
        remember(bufnr)
      end
    end
  end
  return M
end

return M
