-- End-to-end: a real headless Neovim (0.7 and later) drives `jitlint lsp`.
--
--   JITLINT_LSP_CMD='["python", "-m", "jitlint", "lsp"]' JITLINT_SETTINGS='{"ignore": ["JIT502"]}' \
--     nvim --headless --clean -u tests/nvim/e2e.lua model.py
--
-- Prints one JSON object per line on stdout: the diagnostics as Neovim shows them (0-based line, byte
-- column), the code actions offered for the last one, the diagnostics after applying the "Suppress"
-- action, then "done" once the file is written. Exits non-zero on any failure or after 40 s.

local function out(event)
  io.stdout:write(vim.json.encode(event) .. "\n")
  io.stdout:flush()
end

local function fail(message)
  out({ event = "error", message = tostring(message) })
  vim.cmd("cquit! 2")
end

vim.defer_fn(function() fail("timeout") end, 40000)

-- A JSON list, not a string to split: paths may contain spaces.
local cmd = vim.json.decode(vim.env.JITLINT_LSP_CMD)
local settings = vim.json.decode(vim.env.JITLINT_SETTINGS or "{}")
local client_id

vim.api.nvim_create_autocmd("FileType", {
  pattern = "python",
  callback = function(args)
    local config = {
      name = "jitlint",
      cmd = cmd,
      root_dir = vim.fn.getcwd(),
      settings = { jitlint = settings },
      -- Clients that cannot be asked for `workspace/configuration` (Neovim 0.7) get the settings pushed.
      on_init = function(client)
        client.notify("workspace/didChangeConfiguration", { settings = client.config.settings })
      end,
    }
    if vim.lsp.start then -- Neovim 0.8+
      client_id = vim.lsp.start(config, { bufnr = args.buf })
    else -- Neovim 0.7
      client_id = vim.lsp.start_client(config)
      vim.lsp.buf_attach_client(args.buf, client_id)
    end
  end,
})

local function diagnostics()
  local list = vim.diagnostic.get(0)
  table.sort(list, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
  return list
end

local function wait(predicate)
  return vim.wait(15000, predicate, 20)
end

local function run()
  if not wait(function() return #diagnostics() > 0 end) then
    return fail("no diagnostics")
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local version = vim.version()
  out({ event = "client", nvim = string.format("%d.%d.%d", version.major, version.minor, version.patch),
        offset_encoding = client.offset_encoding })
  local before = diagnostics()
  for _, d in ipairs(before) do
    out({ event = "diagnostic", line = d.lnum, col = d.col, end_line = d.end_lnum, end_col = d.end_col,
          code = d.code, severity = d.severity, source = d.source, message = d.message })
  end

  -- Ask for the code actions of the last diagnostic, in the client's position units (Neovim's
  -- diagnostics count bytes).
  local d = before[#before]
  local function position(line, byte_col)
    return { line = line, character = vim.lsp.util.character_offset(0, line, byte_col, client.offset_encoding) }
  end
  local lsp_diagnostic = {
    range = { start = position(d.lnum, d.col), ["end"] = position(d.end_lnum, d.end_col) },
    severity = d.severity, code = d.code, source = d.source, message = d.message,
  }
  local params = { textDocument = { uri = vim.uri_from_bufnr(0) }, range = lsp_diagnostic.range,
                   context = { diagnostics = { lsp_diagnostic } } }
  local responses = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 10000)
  local response = responses and responses[client_id]
  if not response or response.err or not response.result then
    return fail("no code actions: " .. vim.inspect(response))
  end
  local titles, suppress = {}, nil
  for _, action in ipairs(response.result) do
    table.insert(titles, action.title)
    if action.title:find("^Suppress") then suppress = action end
  end
  out({ event = "code_actions", line = d.lnum, titles = titles })
  if not suppress then return fail("no suppress action") end

  vim.lsp.util.apply_workspace_edit(suppress.edit, client.offset_encoding) -- sends didChange
  if not wait(function() return #diagnostics() == #before - 1 end) then
    return fail("diagnostics did not update after the edit")
  end
  out({ event = "after_change", count = #diagnostics(),
        line_text = vim.api.nvim_buf_get_lines(0, d.lnum, d.lnum + 1, false)[1] })

  vim.cmd("silent write") -- sends didSave
  out({ event = "done" })
  vim.cmd("qall!")
end

vim.defer_fn(function()
  local ok, err = pcall(run)
  if not ok then fail(err) end
end, 10)
