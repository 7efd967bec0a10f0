-- Times the inline view of editors/neovim/lua/lsp_edit/inline.lua in a headless Neovim
-- with the real `lsp-edit serve`: a file with many pending changes, then keystrokes
-- above them. Run by bench/nvim_inline.py, which passes (environment):
-- LSP_EDIT_REPO, LSP_EDIT_SERVER, LSP_EDIT_FILE (the file), LSP_EDIT_REPLY (the
-- reply's file), LSP_EDIT_CHANGES (how many it makes pending), LSP_EDIT_ROUNDS,
-- LSP_EDIT_OUT (where the timings go, as JSON, in milliseconds).

local api = vim.api
local env = vim.env
local WAIT = 60000
local out = {}
vim.notify = function() end

-- A screen the size of a laptop's terminal: what `redraw` draws.
vim.o.lines, vim.o.columns = 50, 160
vim.opt.runtimepath:append(env.LSP_EDIT_REPO .. '/editors/neovim')
local lsp_edit = require('lsp_edit').setup({ cmd = { env.LSP_EDIT_SERVER, 'serve' } })
local inline = require('lsp_edit.inline')
local changes = tonumber(env.LSP_EDIT_CHANGES)
local rounds = tonumber(env.LSP_EDIT_ROUNDS)

-- Wall-clock and CPU time (this process's, user and system), in milliseconds: the
-- machine may be busy with other work, which the wall clock counts and the CPU time not.
local function now()
  local usage = vim.loop.getrusage()
  local cpu = (usage.utime.sec + usage.stime.sec) * 1000 + (usage.utime.usec + usage.stime.usec) / 1000
  return { wall = vim.loop.hrtime() / 1e6, cpu = cpu }
end

local function note(what, start, stop)
  out[what] = out[what] or { wall = {}, cpu = {} }
  table.insert(out[what].wall, stop.wall - start.wall)
  table.insert(out[what].cpu, stop.cpu - start.cpu)
end

local function added(bufnr)
  local count = 0
  for _, mark in ipairs(api.nvim_buf_get_extmarks(bufnr, inline.namespace, 0, -1, { details = true })) do
    count = count + (mark[4].virt_lines and 1 or 0)
  end
  return count
end

local function client_of(bufnr)
  for _, client in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
    if client.name == 'lsp-edit' and vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
end

local function listed(client, bufnr)
  local params = { command = 'lspEdit.list', arguments = { { uri = vim.uri_from_bufnr(bufnr) } } }
  local response
  if vim.fn.has('nvim-0.11') == 1 then
    response = client:request_sync('workspace/executeCommand', params, WAIT, bufnr)
  else
    response = client.request_sync('workspace/executeCommand', params, WAIT, bufnr)
  end
  return response.result
end

local function main()
  vim.cmd('edit ' .. vim.fn.fnameescape(env.LSP_EDIT_FILE))
  local bufnr = api.nvim_get_current_buf()
  assert(vim.wait(WAIT, function()
    local client = client_of(bufnr)
    return client ~= nil and client.initialized
  end, 10), 'lsp-edit did not start')
  local client = client_of(bufnr)
  lsp_edit.apply({ text = table.concat(vim.fn.readfile(env.LSP_EDIT_REPLY), '\n') .. '\n', target = bufnr })
  assert(vim.wait(WAIT, function()
    return added(bufnr) == changes
  end, 10), 'the inline view did not show every change')
  api.nvim_win_set_cursor(0, { 1, 0 })
  for _ = 1, rounds do
    -- A keystroke above the changes (a new line): the marks move with the text.
    local start = now()
    api.nvim_buf_set_lines(bufnr, 0, 0, false, { '# typed' })
    vim.cmd('redraw')
    note('keystroke', start, now())
    -- The server's answer after it: decoding it, the view's update, the redraw.
    start = now()
    local result = listed(client, bufnr)
    note('round_trip', start, now())
    local encoded = vim.json.encode(result)
    out.answer_bytes = #encoded
    start = now()
    result = vim.json.decode(encoded)
    local decoded = now()
    inline.show(bufnr, result.changes)
    vim.cmd('redraw')
    local shown = now()
    note('decode', start, decoded)
    note('answer', start, shown)
    assert(added(bufnr) == changes, 'the view lost changes')
    -- The whole view drawn anew (every mark set), and redrawn.
    inline.forget(bufnr)
    start = now()
    inline.show(bufnr, result.changes)
    vim.cmd('redraw')
    note('first_draw', start, now())
  end
  out.version = tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  out.error = err
end
vim.fn.writefile({ vim.json.encode(out) }, env.LSP_EDIT_OUT)
vim.cmd('qall!')
