-- Drives a headless Neovim through one review scenario with the repository's own
-- configuration (editors/neovim/lua/lsp_edit.lua, loaded as users load it) and the
-- real `lsp-edit serve`, and writes what it saw as JSON for tests/nvim/test_neovim.py.
--
-- Environment: LSP_EDIT_REPO (repository root), LSP_EDIT_SERVER (the lsp-edit
-- executable), LSP_EDIT_PROJECT (the project folder, the current directory),
-- LSP_EDIT_INPUT (JSON: scenario and replies), LSP_EDIT_OUT (where the JSON goes).

local api = vim.api
local env = vim.env
local input = vim.fn.json_decode(table.concat(vim.fn.readfile(env.LSP_EDIT_INPUT), '\n'))
local out = { notifications = {} }
local WAIT = 15000

vim.notify = function(message, level)
  table.insert(out.notifications, { message = message, level = level or vim.log.levels.INFO })
end

vim.opt.runtimepath:append(env.LSP_EDIT_REPO .. '/editors/neovim')
-- LSP_EDIT_RECORD: the server runs behind tests/nvim/recorder.py, which writes there
-- the messages in the order Neovim sent them.
local server = { env.LSP_EDIT_SERVER, 'serve' }
if env.LSP_EDIT_RECORD then
  server = { env.LSP_EDIT_PYTHON, env.LSP_EDIT_REPO .. '/tests/nvim/recorder.py', env.LSP_EDIT_RECORD, unpack(server) }
end
local lsp_edit = require('lsp_edit').setup({ cmd = server, inline = input.inline })

local function wait_for(what, condition)
  if not vim.wait(WAIT, condition, 20) then
    error('timed out waiting for ' .. what, 2)
  end
end

local function client_of(bufnr)
  for _, client in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
    if client.name == 'lsp-edit' and vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
end

local function newer(version)
  return vim.fn.has('nvim-' .. version) == 1
end

-- Client methods take `:` from 0.11 on.
local function request(client, method, params, bufnr)
  if newer('0.11') then
    return client:request_sync(method, params, WAIT, bufnr)
  end
  return client.request_sync(method, params, WAIT, bufnr)
end

local function open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local bufnr = api.nvim_get_current_buf()
  wait_for('lsp-edit to attach to ' .. path, function()
    local client = client_of(bufnr)
    return client ~= nil and client.initialized
  end)
  return bufnr
end

local function lines(bufnr)
  return table.concat(api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') .. '\n'
end

local function set_lines(bufnr, text)
  local split = vim.split(text, '\n', { plain = true })
  if split[#split] == '' then
    table.remove(split)
  end
  api.nvim_buf_set_lines(bufnr, 0, -1, false, split)
end

local function ours(bufnr)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'lsp-edit' then
      table.insert(found, { line = d.lnum, code = d.code, severity = d.severity, message = d.message })
    end
  end
  table.sort(found, function(a, b)
    return a.line < b.line
  end)
  return found
end

local function pending(bufnr)
  local count = 0
  for _, d in ipairs(ours(bufnr)) do
    if d.code == 'pending-change' then
      count = count + 1
    end
  end
  return count
end

local function wait_pending(bufnr, count)
  wait_for(count .. ' pending changes', function()
    return pending(bufnr) == count
  end)
end

local function has_key(bufnr, lhs)
  return api.nvim_buf_call(bufnr, function()
    return vim.fn.maparg(lhs, 'n', false, true).buffer == 1
  end)
end

local function line_of(bufnr, text)
  for i, line in ipairs(api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line == text then
      return i
    end
  end
  error('no line ' .. text)
end

local function cursor_line()
  return api.nvim_win_get_cursor(0)[1]
end

local function goto_line(bufnr, text)
  api.nvim_win_set_cursor(0, { line_of(bufnr, text), 0 })
end

local function code_action_titles(bufnr)
  local client = client_of(bufnr)
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.context = { diagnostics = {} }
  local response = request(client, 'textDocument/codeAction', params, bufnr)
  local titles = {}
  for _, action in ipairs(response.result or {}) do
    table.insert(titles, { title = action.title, preferred = action.isPreferred == true })
  end
  return titles
end

local function listed(bufnr)
  local client = client_of(bufnr)
  local params = { command = 'lspEdit.list', arguments = { vim.empty_dict() } }
  local response = request(client, 'workspace/executeCommand', params, bufnr)
  return response.result.changes
end

local function count_status(changes, status)
  local count = 0
  for _, change in ipairs(changes) do
    if change.status == status then
      count = count + 1
    end
  end
  return count
end

-- The code lenses a buffer shows: { line, text } for each line that has some.
local function lenses(bufnr)
  local client = client_of(bufnr)
  local namespace = vim.lsp.codelens.__namespaces[client.id]
  local found = {}
  for _, mark in ipairs(api.nvim_buf_get_extmarks(bufnr, namespace, 0, -1, { details = true })) do
    local text = {}
    for _, chunk in ipairs(mark[4].virt_text or {}) do
      table.insert(text, chunk[1])
    end
    table.insert(found, { line = mark[2], text = table.concat(text) })
  end
  table.sort(found, function(a, b)
    return a.line < b.line
  end)
  return found
end

-- Waits until a buffer shows `wanted` lenses (line -> the lenses' titles, in any
-- order), and returns what it shows then (or at the timeout).
local function wait_lenses(bufnr, wanted)
  local function parts(text)
    local found = vim.split(text, ' | ', { plain = true })
    table.sort(found)
    return found
  end
  local function shows()
    local seen = {}
    for _, lens in ipairs(lenses(bufnr)) do
      seen[tostring(lens.line)] = lens.text
    end
    return seen
  end
  local function same()
    local seen = shows()
    for line, text in pairs(wanted) do
      if not seen[line] or not vim.deep_equal(parts(seen[line]), parts(text)) then
        return false
      end
    end
    return vim.tbl_count(seen) == vim.tbl_count(wanted)
  end
  vim.wait(WAIT, same, 20)
  return shows()
end

local function scratch_reply(text)
  vim.cmd('new')
  local bufnr = api.nvim_get_current_buf()
  vim.bo[bufnr].buftype = 'nofile'
  set_lines(bufnr, text)
  return bufnr
end

local function save(bufnr, path)
  api.nvim_buf_call(bufnr, function()
    vim.cmd('write')
  end)
  out.disk = table.concat(vim.fn.readfile(path, 'b'), '\n')
end

-- ---------------------------------------------------------------------------

local scenarios = {}

-- The review a user does: a reply in a scratch buffer, applied to the file focused
-- before; typing while the changes are pending; one accepted with the one-key code
-- action, one rejected; written to disk.
function scenarios.review()
  local cart = open(input.file)
  local reply = scratch_reply(input.reply)
  vim.cmd('LspEditApply')
  vim.cmd('wincmd p')
  out.back_in = api.nvim_buf_get_name(api.nvim_get_current_buf())
  wait_pending(cart, 2)
  out.diagnostics = ours(cart)
  out.keys_while_pending = {}
  for _, lhs in ipairs({ ']r', '[r', '<leader>ra', '<leader>rr' }) do
    out.keys_while_pending[lhs] = has_key(cart, lhs)
  end
  out.operators_untouched = not has_key(cart, 'c') and not has_key(cart, 'd') and not has_key(cart, ']c')
  goto_line(cart, input.first_line)
  out.actions = code_action_titles(cart)

  -- Typing above the changes before deciding: the changes follow.
  api.nvim_buf_set_lines(cart, 0, 0, false, { input.typed })
  goto_line(cart, input.first_line)
  lsp_edit.accept_here()
  wait_pending(cart, 1)
  goto_line(cart, input.second_line)
  vim.cmd('LspEditReject')
  wait_pending(cart, 0)
  wait_for('the keys to go', function()
    return not has_key(cart, ']r')
  end)
  out.keys_after = has_key(cart, ']r') or has_key(cart, '<leader>ra')
  out.buffer = lines(cart)
  save(cart, input.file)
  out.reply_untouched = lines(reply) == input.reply
end

-- Every command: a reply from a register, next/previous, the diff, the instructions,
-- accept by command, accept all; then a reply from a range, rejected all.
function scenarios.commands()
  local cart = open(input.file)
  vim.fn.setreg('a', input.reply)
  vim.cmd('LspEditApply a')
  wait_pending(cart, 2)
  api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('LspEditNext')
  out.next_lines = { cursor_line() }
  vim.cmd('LspEditNext')
  table.insert(out.next_lines, cursor_line())
  vim.cmd('LspEditNext')
  table.insert(out.next_lines, cursor_line())
  vim.cmd('LspEditPrev')
  out.prev_line = cursor_line()

  vim.cmd('LspEditDiff')
  local proposed = api.nvim_get_current_buf()
  out.diff = {
    windows = #api.nvim_tabpage_list_wins(0),
    proposed = lines(proposed),
    proposed_diff = vim.wo.diff,
    source_diff = vim.wo[vim.fn.bufwinid(cart)].diff,
    source_unchanged = lines(cart) == input.original,
  }
  out.diff.proposed_cursor = cursor_line()
  vim.cmd('close')
  out.diff.source_diff_after_close = vim.wo[vim.fn.bufwinid(cart)].diff
  out.diff.source_cursor_after_close = api.nvim_win_get_cursor(vim.fn.bufwinid(cart))[1]
  api.nvim_set_current_win(vim.fn.bufwinid(cart))

  vim.cmd('LspEditInstructions line_numbers')
  out.instructions = vim.fn.getreg('"')

  goto_line(cart, input.first_line)
  vim.cmd('LspEditAccept')
  wait_pending(cart, 1)
  out.after_accept = lines(cart)
  vim.cmd('LspEditAcceptAll')
  wait_pending(cart, 0)
  out.buffer = lines(cart)
  save(cart, input.file)

  local reply = scratch_reply(input.range_reply)
  vim.cmd(input.range_first .. ',' .. input.range_last .. 'LspEditApply')
  wait_pending(cart, 1)
  out.range_pending = pending(cart)
  api.nvim_set_current_buf(reply)
  vim.cmd('LspEditRejectAll!')
  wait_pending(cart, 0)
  out.after_reject_all = lines(cart)
end

-- A reply whose block does not match: its diagnostic on the file, the summary warns.
function scenarios.failure()
  local cart = open(input.file)
  vim.fn.setreg('"', input.reply)
  vim.cmd('LspEditApply "')
  wait_for('the failure diagnostic', function()
    return #ours(cart) > 0
  end)
  out.diagnostics = ours(cart)
  out.buffer = lines(cart)
end

-- The standard code action menu: Neovim's own vim.lsp.buf.code_action(), with the
-- choice made through vim.ui.select.
function scenarios.menu()
  local cart = open(input.file)
  vim.fn.setreg('a', input.reply)
  vim.cmd('LspEditApply a')
  wait_pending(cart, 2)
  out.menus = {}
  local choose
  vim.ui.select = function(items, opts, on_choice)
    local titles = {}
    for _, item in ipairs(items) do
      local action = item.action or item[2]
      table.insert(titles, action.title)
    end
    table.insert(out.menus, titles)
    for index, title in ipairs(titles) do
      if title:sub(1, #choose) == choose then
        return on_choice(items[index], index)
      end
    end
    on_choice(nil, nil)
  end
  goto_line(cart, input.first_line)
  choose = 'Reject change'
  vim.lsp.buf.code_action()
  wait_pending(cart, 1)
  goto_line(cart, input.second_line)
  choose = 'Accept change'
  vim.lsp.buf.code_action()
  wait_pending(cart, 0)
  out.buffer = lines(cart)
end

-- A reply document: its blocks become pending while its lines are appended, as an
-- LLM's answer streams in; a change is then accepted from the reply.
function scenarios.reply_document()
  local cart = open(input.file)
  local answer = open(input.answer)
  out.pending_while_typing = {}
  local reply_lines = vim.split(input.reply, '\n', { plain = true })
  table.remove(reply_lines)
  for start = 1, #reply_lines, input.chunk do
    local chunk = {}
    for i = start, math.min(start + input.chunk - 1, #reply_lines) do
      table.insert(chunk, reply_lines[i])
    end
    local count = api.nvim_buf_line_count(answer)
    local empty = count == 1 and api.nvim_buf_get_lines(answer, 0, 1, false)[1] == ''
    api.nvim_buf_set_lines(answer, empty and 0 or count, -1, false, chunk)
    table.insert(out.pending_while_typing, count_status(listed(answer), 'pending'))
  end
  wait_pending(cart, 2)
  out.cart_diagnostics = ours(cart)
  out.cart_unchanged = lines(cart) == input.original
  goto_line(answer, input.block_line)
  vim.cmd('LspEditAccept')
  wait_pending(cart, 1)
  out.buffer = lines(cart)
end

-- One change accepted through its "Accept change" code action (`]r` then the accept
-- key, or Neovim's own code action menu) or with :LspEditAccept, then written.
function scenarios.accept_one()
  local cart = open(input.file)
  vim.fn.setreg('a', input.reply)
  vim.cmd('LspEditApply a')
  wait_pending(cart, 1)
  wait_for('the keys', function()
    return has_key(cart, ']r')
  end)
  api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('normal ]r')
  out.cursor = cursor_line()
  if input.how == 'key' then
    vim.cmd('normal \\ra')
  elseif input.how == 'menu' then
    vim.ui.select = function(items, _, on_choice)
      for index, item in ipairs(items) do
        local action = item.action or item[2]
        if action.title:sub(1, #'Accept change') == 'Accept change' then
          return on_choice(item, index)
        end
      end
      on_choice(nil, nil)
    end
    vim.lsp.buf.code_action()
  else
    vim.cmd('LspEditAccept')
  end
  -- Decided (or not) once nothing is pending; whatever else the server sends (an
  -- edit of its own) arrives within the half second after.
  vim.wait(WAIT, function()
    return count_status(listed(cart), 'pending') == 0
  end, 100)
  vim.wait(500)
  out.statuses = {}
  for _, change in ipairs(listed(cart)) do
    table.insert(out.statuses, change.status)
  end
  out.diagnostics = ours(cart)
  out.buffer = lines(cart)
  save(cart, input.file)
end

-- The lenses of a reply document and of its file follow the review with no manual
-- refresh: while the reply streams in, and after a block is accepted from the reply.
function scenarios.reply_lenses()
  local cart = open(input.file)
  local answer = open(input.answer)
  local reply_lines = vim.split(input.reply, '\n', { plain = true })
  table.remove(reply_lines)
  api.nvim_buf_set_lines(answer, 0, -1, false, { reply_lines[1] })
  for i = 2, #reply_lines do
    api.nvim_buf_set_lines(answer, -1, -1, false, { reply_lines[i] })
    vim.wait(10)
  end
  out.streamed = wait_lenses(answer, input.streamed)
  goto_line(answer, input.block_line)
  vim.cmd('LspEditAccept')
  wait_pending(cart, 1)
  out.after_accept = wait_lenses(answer, input.after_accept)
  api.nvim_win_set_buf(0, cart)
  out.file_after_accept = wait_lenses(cart, input.file_after_accept)
end

local function has_code(bufnr, code)
  for _, d in ipairs(ours(bufnr)) do
    if d.code == code then
      return d
    end
  end
  return nil
end

local function messages()
  local found = {}
  for _, n in ipairs(out.notifications) do
    table.insert(found, n.message)
  end
  return found
end

local function statuses(bufnr)
  local found = {}
  for _, change in ipairs(listed(bufnr)) do
    table.insert(found, change.status)
  end
  return found
end

-- A change gone stale and a block that failed are dismissed with the reject key on
-- their line; the accept key there says why it cannot; a pending one is rejected.
function scenarios.dismiss()
  local cart = open(input.file)
  vim.fn.setreg('a', input.reply)
  vim.cmd('LspEditApply a')
  wait_pending(cart, 2)
  local line = line_of(cart, input.stale_line)
  api.nvim_buf_set_lines(cart, line - 1, line, false, { input.typed })
  wait_for('the stale warning', function()
    return has_code(cart, 'stale') ~= nil
  end)
  out.before = ours(cart)
  out.notifications = {}
  api.nvim_win_set_cursor(0, { line, 0 })
  vim.cmd('normal \\rr')
  wait_for('the stale warning to go', function()
    return has_code(cart, 'stale') == nil
  end)
  api.nvim_win_set_cursor(0, { has_code(cart, 'not-found').line + 1, 0 })
  vim.cmd('normal \\ra')
  vim.cmd('normal \\rr')
  wait_for('the failure to go', function()
    return has_code(cart, 'not-found') == nil
  end)
  goto_line(cart, input.pending_line)
  vim.cmd('normal \\rr')
  wait_pending(cart, 0)
  out.after = ours(cart)
  out.statuses = statuses(cart)
  out.messages = messages()
end

-- The documented flow: in the file, :new, paste the reply, :LspEditApply; accept the
-- block under the cursor from the reply's buffer; :wa.
function scenarios.scratch()
  local cart = open(input.file)
  vim.cmd('new')
  local reply = api.nvim_get_current_buf()
  set_lines(reply, input.reply)
  vim.cmd('LspEditApply')
  wait_pending(cart, 2)
  out.buftype = vim.bo[reply].buftype
  goto_line(reply, input.outside_line)
  vim.cmd('LspEditAccept')
  goto_line(reply, input.block_line)
  vim.cmd('LspEditAccept')
  wait_pending(cart, 1)
  out.buffer = lines(cart)
  local written, problem = pcall(vim.cmd, 'wa')
  out.wa = written and 'written' or tostring(problem)
  out.disk = table.concat(vim.fn.readfile(input.file), '\n') .. '\n'
  out.messages = messages()
end

-- :LspEditList: every pending change and failure, of open files and others, in the
-- quickfix list.
function scenarios.list()
  local cart = open(input.file)
  vim.fn.setreg('a', input.reply)
  vim.cmd('LspEditApply a')
  wait_pending(cart, 1)
  vim.cmd('LspEditList')
  local list = vim.fn.getqflist({ title = 1, items = 1 })
  out.title = list.title
  out.items = {}
  for _, item in ipairs(list.items) do
    local name = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':.')
    table.insert(out.items, { file = name, line = item.lnum, type = item.type, text = item.text })
  end
  out.quickfix_open = vim.bo.buftype == 'quickfix'
end

-- A reply of many blocks that all fail: what is printed, and what line 1 shows.
function scenarios.many_failures()
  local cart = open(input.file)
  vim.fn.setreg('a', input.reply)
  vim.cmd('LspEditApply a')
  wait_for('the failures', function()
    return #ours(cart) > 0
  end)
  out.messages = messages()
  out.diagnostics = ours(cart)
  out.listed = #lsp_edit.list()
end

-- An agent's edit (lsp-edit mcp, run by the test meanwhile) pending in the file the
-- user has open: the user accepts it with the one-key code action and saves.
function scenarios.agent()
  local cart = open(input.file)
  vim.fn.writefile({}, env.LSP_EDIT_OUT .. '.ready')
  if not vim.wait(60000, function()
    return pending(cart) == 1
  end, 20) then
    error('timed out waiting for the agent\'s change')
  end
  out.diagnostics = ours(cart)
  out.unchanged_while_pending = lines(cart) == input.original
  goto_line(cart, input.first_line)
  lsp_edit.accept_here()
  wait_pending(cart, 0)
  out.buffer = lines(cart)
  save(cart, input.file)
end

-- ---------------------------------------------------------------------------
-- The inline view (lsp_edit/inline.lua)

local INLINE = api.nvim_create_namespace('lsp_edit_inline')

-- What the inline view drew in a buffer: the new lines (virtual lines, at the row they
-- hang from and whether above it) and the old lines highlighted (first row, end row).
local function inline_view(bufnr)
  local added, removed = {}, {}
  for _, mark in ipairs(api.nvim_buf_get_extmarks(bufnr, INLINE, 0, -1, { details = true })) do
    local details = mark[4]
    if details.virt_lines then
      local texts, groups = {}, {}
      for _, chunks in ipairs(details.virt_lines) do
        local text = {}
        for _, chunk in ipairs(chunks) do
          table.insert(text, chunk[1])
          groups[chunk[2]] = true
        end
        table.insert(texts, (table.concat(text):gsub('%s+$', '')))
      end
      table.insert(added, {
        id = mark[1],
        row = mark[2],
        above = details.virt_lines_above == true,
        lines = texts,
        groups = vim.tbl_keys(groups),
      })
    else
      table.insert(removed, { id = mark[1], row = mark[2], end_row = details.end_row, group = details.hl_group })
    end
  end
  table.sort(added, function(a, b)
    return a.row < b.row
  end)
  table.sort(removed, function(a, b)
    return a.row < b.row
  end)
  return { added = added, removed = removed }
end

local function wait_inline(bufnr, added, removed)
  wait_for(string.format('the inline view to show %d new and %d old', added, removed), function()
    local view = inline_view(bufnr)
    return #view.added == added and #view.removed == removed
  end)
  return inline_view(bufnr)
end

-- The text rows of the screen, from the top, without the sign column and trailing space.
local function screen(rows)
  vim.cmd('redraw')
  local found = {}
  local offset = vim.fn.getwininfo(api.nvim_get_current_win())[1].textoff or 0
  for row = 1, rows do
    local text = {}
    for column = offset + 1, vim.o.columns do
      table.insert(text, vim.fn.screenstring(row, column))
    end
    table.insert(found, (table.concat(text):gsub('%s+$', '')))
  end
  return found
end

-- Waits until the server has published where the changes are after typing, and the
-- view has had time to ask for them and draw the answer.
local function settle(bufnr, first_line)
  wait_for('the server to move the changes', function()
    local shown = ours(bufnr)
    return #shown > 0 and shown[1].line == first_line
  end)
  vim.wait(500)
end

-- A reply proposed; a line typed above its changes; one accepted, one rejected: what
-- the inline view draws at each step, and what the screen shows.
function scenarios.inline()
  local cart = open(input.file)
  vim.fn.setreg('a', input.reply)
  vim.cmd('LspEditApply a')
  wait_pending(cart, input.pending)
  out.proposed = wait_inline(cart, input.added, input.removed)
  api.nvim_win_set_cursor(0, { 1, 0 })
  out.screen = screen(input.rows)
  api.nvim_buf_set_lines(cart, 0, 0, false, { input.typed })
  out.typed_at_once = inline_view(cart)
  settle(cart, input.moved_to)
  out.typed_answered = inline_view(cart)
  goto_line(cart, input.first_line)
  lsp_edit.accept_here()
  out.accepted_at_once = inline_view(cart)
  wait_pending(cart, input.pending - 1)
  vim.wait(300)
  out.accepted = inline_view(cart)
  goto_line(cart, input.second_line)
  vim.cmd('LspEditReject')
  out.rejected_at_once = inline_view(cart)
  wait_pending(cart, input.pending - 2)
  vim.wait(300)
  out.rejected = inline_view(cart)
  out.buffer = lines(cart)
end

-- Insertions before the first line and past the last one, and a deletion: where the
-- new lines hang, and that the window scrolls to show those above line 1.
function scenarios.inline_edges()
  local cart = open(input.file)
  vim.fn.setreg('a', input.reply)
  vim.cmd('LspEditApply a')
  wait_pending(cart, input.pending)
  out.proposed = wait_inline(cart, input.added, input.removed)
  out.screen = screen(input.rows)
  out.topfill = vim.fn.winsaveview().topfill
end

-- A reply document streamed in line by line beside the file: the view of the file
-- after each part of the reply. The marks of a change drawn before keep their ids:
-- they are updated in place, never deleted and drawn again.
function scenarios.inline_stream()
  local cart = open(input.file)
  local answer = open(input.answer)
  vim.cmd('vsplit')
  api.nvim_win_set_buf(0, cart)
  out.views = {}
  for index, part in ipairs(input.parts) do
    local split = vim.split(part, '\n', { plain = true })
    table.remove(split)
    for _, line in ipairs(split) do
      local count = api.nvim_buf_line_count(answer)
      local empty = count == 1 and api.nvim_buf_get_lines(answer, 0, 1, false)[1] == ''
      api.nvim_buf_set_lines(answer, empty and 0 or count, -1, false, { line })
      vim.wait(10)
    end
    table.insert(out.views, wait_inline(cart, input.shown[index], input.shown[index]))
  end
end

-- The settings: off at setup, then the change on the cursor's line only, then all,
-- then off again.
function scenarios.inline_modes()
  local cart = open(input.file)
  vim.fn.setreg('a', input.reply)
  vim.cmd('LspEditApply a')
  wait_pending(cart, 2)
  vim.wait(300)
  out.off = inline_view(cart)
  lsp_edit.inline('cursor')
  goto_line(cart, input.first_line)
  vim.cmd('doautocmd CursorMoved')
  out.cursor_on_first = wait_inline(cart, 1, 1)
  goto_line(cart, input.second_line)
  vim.cmd('doautocmd CursorMoved')
  out.cursor_on_second = wait_inline(cart, 1, 1)
  api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('doautocmd CursorMoved')
  out.cursor_elsewhere = inline_view(cart)
  lsp_edit.inline('all')
  out.all = wait_inline(cart, 2, 2)
  lsp_edit.inline(false)
  out.off_again = inline_view(cart)
end

local ok, err = xpcall(function()
  scenarios[input.scenario]()
end, debug.traceback)
if not ok then
  out.error = err
end
vim.fn.writefile({ vim.fn.json_encode(out) }, env.LSP_EDIT_OUT)
for _, client in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
  if newer('0.11') then
    client:stop()
  else
    client.stop()
  end
end
vim.cmd(ok and 'qall!' or 'cquit! 1')
