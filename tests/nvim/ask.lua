-- Drives a headless Neovim through :LspEditAsk with the repository's configuration
-- (editors/neovim/lua/lsp_edit.lua) and the real `lsp-edit serve`, asking the local
-- model server tests/nvim/test_ask.py runs; writes what it saw as JSON.
--
-- Environment: as tests/nvim/drive.lua (LSP_EDIT_REPO, LSP_EDIT_SERVER,
-- LSP_EDIT_INPUT, LSP_EDIT_OUT); the input holds the model's URL (`base_url`).

local api = vim.api
local env = vim.env
local input = vim.fn.json_decode(table.concat(vim.fn.readfile(env.LSP_EDIT_INPUT), '\n'))
local out = { notifications = {} }
local WAIT = 20000

vim.notify = function(message, level)
  table.insert(out.notifications, { message = message, level = level or vim.log.levels.INFO })
end

vim.opt.runtimepath:append(env.LSP_EDIT_REPO .. '/editors/neovim')
local lsp_edit = require('lsp_edit').setup({
  cmd = { env.LSP_EDIT_SERVER, 'serve' },
  settings = { llm = { baseUrl = input.base_url, model = 'coder', timeout = 10 } },
})

local function wait_for(what, condition)
  if not vim.wait(WAIT, condition, 10) then
    error('timed out waiting for ' .. what, 2)
  end
end

local function attached(bufnr)
  for _, client in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
    if client.name == 'lsp-edit' and vim.lsp.buf_is_attached(bufnr, client.id) then
      return client.initialized
    end
  end
  return false
end

local function lines(bufnr)
  return table.concat(api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') .. '\n'
end

local function pending(bufnr)
  local count = 0
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'lsp-edit' and d.code == 'pending-change' then
      count = count + 1
    end
  end
  return count
end

-- Asks with :LspEditAsk (ranged when `range` is given) and waits for the answer,
-- noting how many changes were pending in `bufnr` before it came.
local function ask(bufnr, prompt, range)
  local answered = false
  local group = api.nvim_create_augroup('ask_test', { clear = true })
  api.nvim_create_autocmd('User', {
    group = group,
    pattern = 'LspEditAskDone',
    callback = function()
      answered = true
    end,
  })
  local seen = { pending_before_the_end = 0 }
  vim.cmd((range and (range[1] .. ',' .. range[2]) or '') .. 'LspEditAsk ' .. prompt)
  wait_for('the answer to ' .. prompt, function()
    if not answered then
      seen.pending_before_the_end = math.max(seen.pending_before_the_end, pending(bufnr))
    end
    return answered
  end)
  seen.result = lsp_edit.last_answer
  return seen
end

local ok, err = xpcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(input.file))
  local cart = api.nvim_get_current_buf()
  wait_for('lsp-edit to attach', function()
    return attached(cart)
  end)

  local first = ask(cart, 'Skip duplicates and count quantities.')
  out.first = first
  out.windows = #api.nvim_list_wins()
  out.transcript_shown = vim.fn.bufwinid(input.file .. '.llm.md') ~= -1
  out.current = api.nvim_buf_get_name(api.nvim_get_current_buf())
  wait_for('2 pending changes', function()
    return pending(cart) == 2
  end)
  out.pending_after_first = pending(cart)

  lsp_edit.accept(first.result.changes[1].id)
  wait_for('the first change accepted', function()
    return pending(cart) == 1
  end)
  out.after_accept = lines(cart)

  out.second = ask(cart, 'Why', { 8, 9 })
  local transcript = vim.fn.bufnr(input.file .. '.llm.md')
  out.transcript = lines(transcript)
  out.transcript_modified = vim.bo[transcript].modified
end, debug.traceback)
if not ok then
  out.error = err
end
vim.fn.writefile({ vim.fn.json_encode(out) }, env.LSP_EDIT_OUT)
for _, client in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
  if vim.fn.has('nvim-0.11') == 1 then
    client:stop()
  else
    client.stop()
  end
end
vim.cmd(ok and 'qall!' or 'cquit! 1')
