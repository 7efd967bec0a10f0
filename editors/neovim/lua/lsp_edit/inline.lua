-- The inline view of lsp-edit for Neovim 0.7 and later: each pending change's new
-- lines drawn where they would land, as virtual lines under the lines they replace
-- (highlight LspEditAdded, linked to DiffAdd), and the lines they replace highlighted
-- (LspEditRemoved, linked to DiffDelete). lsp_edit.lua loads it; keep it beside that
-- file, as lsp_edit/inline.lua.
--
-- The new lines come from the server (lspEdit.list: each change's hunks, docs/protocol.md).
-- The view asks for them when the server publishes a buffer's diagnostics, which it
-- does whenever a pending change of that buffer comes, goes or moves. Between an
-- answer and the next, the marks follow the user's typing by themselves (extmarks);
-- an answer only moves, changes, adds or deletes the marks that differ from it, so a
-- streamed reply adds its changes without redrawing the others.

local M = {}

local api = vim.api
local NAMESPACE = api.nvim_create_namespace('lsp_edit_inline')
-- How long the view waits after the server published diagnostics before it asks for
-- the changes, so that a burst of publications costs one request.
local DELAY_MS = 20
-- After an answer the buffer had already moved past, how long it waits to ask again.
local RETRY_MS = 150

local options = {
  -- 'all' draws every pending change, 'cursor' only the change on the cursor's line,
  -- false nothing.
  mode = 'all',
  -- function(bufnr) -> the lsp-edit client attached to the buffer, or nil.
  client = function()
    return nil
  end,
}

-- bufnr -> {
--   hunks = the pending hunks of the last answer (see hunks_of),
--   tick = the buffer's changedtick that answer is for,
--   drawn = { [key] = { removed = mark id, added = mark id, shape = string } },
--   asking = whether a request is under way, again = asked again meanwhile,
--   stale = the buffer was not on screen when it changed, timer = a request is due,
--   current = the change drawn in 'cursor' mode,
-- }
local buffers = {}

local function state_of(bufnr)
  local state = buffers[bufnr]
  if not state then
    state = { hunks = {}, drawn = {} }
    buffers[bufnr] = state
  end
  return state
end

local function has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

-- Client methods are called with `:` from 0.11 on; `.` is deprecated there.
local function call(client, method, ...)
  if has('0.11') then
    return client[method](client, ...)
  end
  return client[method](...)
end

-- ---------------------------------------------------------------------------
-- What to draw

local function text_lines(text)
  local lines = vim.split(text or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  for i, line in ipairs(lines) do
    lines[i] = line:gsub('\r$', '')
  end
  return lines
end

-- Virtual text shows a tab as ^I: spaces to the next tab stop instead.
local function expand_tabs(line, tabstop)
  if not line:find('\t', 1, true) then
    return line
  end
  local out = {}
  local width = 0
  for part, tab in line:gmatch('([^\t]*)(\t?)') do
    table.insert(out, part)
    width = width + api.nvim_strwidth(part)
    if tab ~= '' then
      local spaces = tabstop - width % tabstop
      table.insert(out, string.rep(' ', spaces))
      width = width + spaces
    end
  end
  return table.concat(out)
end

-- The pending hunks of a buffer, from lspEdit.list's changes: for each, the change it
-- belongs to, the lines it replaces (first, last: 0-based, last excluded; first ==
-- last for an insertion before `first`) and its new lines.
local function hunks_of(changes)
  local found = {}
  for _, change in ipairs(changes or {}) do
    if change.status == 'pending' then
      for index, hunk in ipairs(change.hunks or {}) do
        local first, last = hunk.range.start.line, hunk.range['end'].line
        -- The end of a range that reaches a last line without a newline is on that line.
        if hunk.range['end'].character > 0 then
          last = last + 1
        end
        table.insert(found, {
          key = change.id .. '#' .. index,
          change = change.id,
          first = first,
          last = last,
          lines = text_lines(hunk.newText),
        })
      end
    end
  end
  return found
end

-- Whether a hunk is the one on `line` (0-based): one of the lines it replaces, or for
-- an insertion, the line it goes above (the last line, for one past the end).
local function on_line(hunk, line, count)
  if hunk.first == hunk.last then
    return line == math.min(hunk.first, count - 1)
  end
  return hunk.first <= line and line < hunk.last
end

-- The hunks to draw in a buffer, by the mode.
local function wanted(bufnr, state)
  if options.mode == 'all' then
    return state.hunks
  end
  state.current = nil
  if options.mode ~= 'cursor' or api.nvim_get_current_buf() ~= bufnr then
    return {}
  end
  local line = api.nvim_win_get_cursor(0)[1] - 1
  local count = api.nvim_buf_line_count(bufnr)
  for _, hunk in ipairs(state.hunks) do
    if on_line(hunk, line, count) then
      state.current = hunk.change
      break
    end
  end
  local found = {}
  for _, hunk in ipairs(state.hunks) do
    if hunk.change == state.current then
      table.insert(found, hunk)
    end
  end
  return found
end

-- Where a hunk's new lines go: under its last old line; for an insertion, above the
-- line it goes before, or under the last line when it goes past the end.
local function anchor(hunk, count)
  if hunk.last > hunk.first then
    return math.min(hunk.last, count) - 1, false
  end
  if hunk.first < count then
    return hunk.first, true
  end
  return count - 1, false
end

local function virtual_lines(hunk, tabstop, width)
  local out = {}
  for _, line in ipairs(hunk.lines) do
    local text = expand_tabs(line, tabstop)
    -- Padded to the screen's width, so that the highlight fills the line as a diff's does.
    local pad = width - api.nvim_strwidth(text)
    if pad > 0 then
      text = text .. string.rep(' ', pad)
    end
    table.insert(out, { { text, 'LspEditAdded' } })
  end
  return out
end

-- ---------------------------------------------------------------------------
-- Drawing: only what differs from what is drawn

local function marks_at(bufnr)
  local at = {}
  for _, mark in ipairs(api.nvim_buf_get_extmarks(bufnr, NAMESPACE, 0, -1, { details = true })) do
    at[mark[1]] = { row = mark[2], end_row = mark[4].end_row }
  end
  return at
end

local function drop(bufnr, drawing)
  for _, id in ipairs({ drawing.removed, drawing.added }) do
    if id then
      api.nvim_buf_del_extmark(bufnr, NAMESPACE, id)
    end
  end
end

-- A window that shows the first line of a buffer from its top does not show what is
-- above that line (topfill): an insertion before line 1 is scrolled into view there.
local function show_above_first(bufnr, count)
  for _, window in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(window) == bufnr then
      api.nvim_win_call(window, function()
        local view = vim.fn.winsaveview()
        if view.topline == 1 and view.topfill < count then
          vim.fn.winrestview({ topfill = count })
        end
      end)
    end
  end
end

-- Draws one hunk: sets the marks that differ from `drawing` (the marks drawn for it
-- before, or a new table), in place: an existing mark keeps its id.
local function draw_hunk(bufnr, hunk, drawing, at, count, tabstop, width)
  local row, above = anchor(hunk, count)
  local shape = table.concat(hunk.lines, '\n') .. (above and '^' or 'v') .. (hunk.last - hunk.first)
  local changed = drawing.shape ~= shape
  drawing.shape = shape
  if hunk.last > hunk.first then
    local last = math.min(hunk.last, count)
    local mark = drawing.removed and at[drawing.removed]
    if changed or not mark or mark.row ~= hunk.first or mark.end_row ~= last then
      drawing.removed = api.nvim_buf_set_extmark(bufnr, NAMESPACE, hunk.first, 0, {
        id = drawing.removed,
        end_row = last,
        end_col = 0,
        hl_group = 'LspEditRemoved',
        hl_eol = true,
        priority = 50,
      })
    end
  elseif drawing.removed then
    api.nvim_buf_del_extmark(bufnr, NAMESPACE, drawing.removed)
    drawing.removed = nil
  end
  if #hunk.lines > 0 then
    local mark = drawing.added and at[drawing.added]
    if changed or not mark or mark.row ~= row then
      drawing.added = api.nvim_buf_set_extmark(bufnr, NAMESPACE, row, 0, {
        id = drawing.added,
        virt_lines = virtual_lines(hunk, tabstop, width),
        virt_lines_above = above,
      })
      if above and row == 0 then
        show_above_first(bufnr, #hunk.lines)
      end
    end
  elseif drawing.added then
    api.nvim_buf_del_extmark(bufnr, NAMESPACE, drawing.added)
    drawing.added = nil
  end
  return drawing
end

local later -- asks the server after a delay (below)

-- Brings a buffer's marks to what the mode wants of its last answer. The rows of an
-- answer are those of the buffer when it was asked: once the buffer has changed, the
-- marks drawn stay where the typing moved them, none is drawn anew, and the view asks
-- again for those that are missing.
local function draw(bufnr)
  local state = buffers[bufnr]
  if not state or not api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local fresh = state.tick == api.nvim_buf_get_changedtick(bufnr)
  local count = api.nvim_buf_line_count(bufnr)
  local tabstop = vim.bo[bufnr].tabstop
  local width = vim.o.columns
  local at = fresh and marks_at(bufnr)
  local drawn, missing = {}, false
  for _, hunk in ipairs(wanted(bufnr, state)) do
    local drawing = state.drawn[hunk.key]
    if fresh and hunk.first <= count then
      drawn[hunk.key] = draw_hunk(bufnr, hunk, drawing or {}, at, count, tabstop, width)
    elseif drawing then
      drawn[hunk.key] = drawing
    elseif not fresh then
      missing = true
    end
    state.drawn[hunk.key] = nil
  end
  for _, drawing in pairs(state.drawn) do
    drop(bufnr, drawing)
  end
  state.drawn = drawn
  if missing then
    later(bufnr, RETRY_MS)
  end
end

-- ---------------------------------------------------------------------------
-- Asking the server

local ask

local function on_screen(bufnr)
  return vim.fn.bufwinid(bufnr) ~= -1
end

later = function(bufnr, delay)
  local state = state_of(bufnr)
  if state.timer then
    return
  end
  state.timer = true
  vim.defer_fn(function()
    state.timer = nil
    if buffers[bufnr] == state then
      ask(bufnr)
    end
  end, delay)
end

-- Asks the server for a buffer's changes (one request at a time) and draws them. An
-- answer the buffer has changed since is not drawn: the marks have moved with the
-- typing already, and the view asks again.
ask = function(bufnr)
  local state = buffers[bufnr]
  local client = state and api.nvim_buf_is_loaded(bufnr) and options.client(bufnr)
  if not client or not options.mode then
    return
  end
  if not on_screen(bufnr) then
    state.stale = true
    return
  end
  if state.asking then
    state.again = true
    return
  end
  state.asking, state.again, state.stale = true, false, false
  local tick = api.nvim_buf_get_changedtick(bufnr)
  local arguments = { uri = vim.uri_from_bufnr(bufnr) }
  local params = { command = 'lspEdit.list', arguments = { arguments } }
  local sent = call(client, 'request', 'workspace/executeCommand', params, function(err, result)
    state.asking = false
    if buffers[bufnr] ~= state or not api.nvim_buf_is_loaded(bufnr) then
      return
    end
    if err or not result then
      return
    end
    if api.nvim_buf_get_changedtick(bufnr) ~= tick then
      later(bufnr, RETRY_MS)
      return
    end
    M.show(bufnr, result.changes)
    if state.again then
      later(bufnr, DELAY_MS)
    end
  end, bufnr)
  if not sent then
    state.asking = false
  end
end

-- ---------------------------------------------------------------------------
-- What lsp_edit.lua calls

-- Draws `changes` (lspEdit.list's, for the buffer as it is now) in a buffer.
function M.show(bufnr, changes)
  local state = state_of(bufnr)
  state.hunks, state.tick = hunks_of(changes), api.nvim_buf_get_changedtick(bufnr)
  draw(bufnr)
end

-- The server published a buffer's diagnostics; `pending` tells whether any is a
-- pending change. Without one, the view clears the buffer at once, with no request.
function M.published(bufnr, pending)
  local state = state_of(bufnr)
  if not pending then
    state.hunks, state.stale = {}, false
    draw(bufnr)
  elseif options.mode then
    later(bufnr, DELAY_MS)
  else
    state.stale = true
  end
end

-- Changes were accepted or rejected (`ids`): their marks go at once, before the
-- server publishes the diagnostics that say so.
function M.decided(ids)
  local gone = {}
  for _, id in ipairs(ids) do
    gone[id] = true
  end
  for bufnr, state in pairs(buffers) do
    local kept = {}
    for _, hunk in ipairs(state.hunks) do
      if not gone[hunk.change] then
        table.insert(kept, hunk)
      end
    end
    if #kept < #state.hunks then
      state.hunks = kept
      draw(bufnr)
    end
  end
end

-- A buffer was entered: it asks for the changes it missed while it was not on screen,
-- and in 'cursor' mode shows the change on the cursor's line.
function M.entered(bufnr)
  local state = buffers[bufnr]
  if state and state.stale then
    later(bufnr, DELAY_MS)
  elseif state and options.mode == 'cursor' then
    draw(bufnr)
  end
end

-- The cursor moved: in 'cursor' mode, the change on its line is drawn when it is not
-- the one drawn already.
function M.cursor_moved(bufnr)
  local state = buffers[bufnr]
  if options.mode ~= 'cursor' or not state or #state.hunks == 0 then
    return
  end
  local line = api.nvim_win_get_cursor(0)[1] - 1
  local count = api.nvim_buf_line_count(bufnr)
  local here = nil
  for _, hunk in ipairs(state.hunks) do
    if on_line(hunk, line, count) then
      here = hunk.change
      break
    end
  end
  if here ~= state.current then
    draw(bufnr)
  end
end

-- A buffer was wiped out or lsp-edit left it.
function M.forget(bufnr)
  local state = buffers[bufnr]
  buffers[bufnr] = nil
  if state and api.nvim_buf_is_valid(bufnr) then
    api.nvim_buf_clear_namespace(bufnr, NAMESPACE, 0, -1)
  end
end

-- Sets the mode ('all', 'cursor' or false) and redraws every buffer; a buffer the view
-- was off for asks for its changes.
function M.set_mode(mode)
  options.mode = mode
  for bufnr, state in pairs(buffers) do
    if not mode and #state.hunks > 0 then
      state.hunks, state.stale = {}, true
    end
    draw(bufnr)
    if mode and state.stale then
      later(bufnr, DELAY_MS)
    end
  end
end

-- The namespace of the view's marks, for tests and for users who read them.
M.namespace = NAMESPACE

-- `opts.mode`: 'all', 'cursor' or false; `opts.client`: function(bufnr) -> the client.
function M.setup(opts)
  options.client = opts.client or options.client
  vim.cmd('highlight default link LspEditAdded DiffAdd')
  vim.cmd('highlight default link LspEditRemoved DiffDelete')
  M.set_mode(opts.mode)
  return M
end

return M
