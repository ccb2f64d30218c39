-- include.lua - pulls code and run outputs into the pages at build time, so
-- that nothing shown in the docs is pasted by hand.
--
-- A code block with one of these attributes has its content replaced:
--
--   ```{.cuda .cpp include="legacy.cu" function="warp_sum"}
--   ```
--     the definition of warp_sum in legacy.cu (path relative to the page's
--     source folder), from the comment just above it to its closing brace
--     in column 0.
--
--   ```{.cuda .cpp include="sync.cu" lines="/for (offset/,/return v;/"}
--   ```
--     the lines from the first line containing the first text to the next
--     line containing the second (plain text, not patterns).
--
--   ```{.output transcript="01-shfl-reduction.gpu.txt" match="legacy:|# 65"}
--   ```
--     the header of docs/results/<file> (GPU, CUDA, date) and its lines
--     that contain any of the |-separated texts.
--
-- Whatever the block held in the Markdown (a pointer for readers of the raw
-- file) is dropped. A missing file, function, text or match stops the build
-- with an error naming the page: that is the check that markers exist.
--
-- Metadata: srcdir (the page's source folder), root (the repository).

local srcdir = "."
local root = "."
local page = "?"

local function fail(msg)
  error("include.lua: " .. page .. ": " .. msg, 0)
end

local function read_lines(path)
  local f = io.open(path, "r")
  if not f then fail("cannot open " .. path) end
  local lines = {}
  for line in f:lines() do lines[#lines + 1] = line end
  f:close()
  return lines
end

local function find_plain(s, text)
  return s:find(text, 1, true) ~= nil
end

-- The lines of a C function: comment above, signature, body to "}".
local function function_lines(lines, name, path)
  local start
  for i, line in ipairs(lines) do
    if not line:match("^%s") and not line:match("^#") and not line:match("^/?%*")
       and line:find("[%s%*]" .. name .. "%(") then
      start = i
      break
    end
  end
  if not start then fail("no function " .. name .. " in " .. path) end
  local first = start
  -- take the comment block that ends right above the signature
  if first > 1 and lines[first - 1]:match("%*/%s*$") then
    local j = first - 1
    while j > 1 and not lines[j]:match("^%s*/%*") do j = j - 1 end
    first = j
  end
  local last
  for i = start, #lines do
    if lines[i] == "}" then last = i; break end
  end
  if not last then fail("function " .. name .. " in " .. path .. " has no closing brace in column 0") end
  return table.concat(lines, "\n", first, last)
end

local function range_lines(lines, spec, path)
  local a, b = spec:match("^/(.-)/,/(.-)/$")
  if not a then fail("lines=\"" .. spec .. "\" is not of the form /from/,/to/") end
  local first, last
  for i, line in ipairs(lines) do
    if not first and find_plain(line, a) then first = i end
    if first and i >= first and find_plain(line, b) then last = i; break end
  end
  if not first then fail("no line containing '" .. a .. "' in " .. path) end
  if not last then fail("no line containing '" .. b .. "' after '" .. a .. "' in " .. path) end
  return table.concat(lines, "\n", first, last)
end

local function transcript_lines(file, match)
  local path = root .. "/docs/results/" .. file
  local lines = read_lines(path)
  local out = {}
  local wanted = {}
  for part in (match or ""):gmatch("[^|]+") do wanted[#wanted + 1] = part end
  if #wanted == 0 then fail("transcript=" .. file .. " needs match=\"text|text\"") end
  local found = {}
  for _, line in ipairs(lines) do
    if line:match("^# GPU:") or line:match("^# CUDA:") or line:match("^# date:")
        or line:match("^# programs:") then
      out[#out + 1] = line
    else
      local hit = false
      for k, w in ipairs(wanted) do
        if find_plain(line, w) then
          found[k] = true
          hit = true
        end
      end
      if hit then out[#out + 1] = line end
    end
  end
  for k, w in ipairs(wanted) do
    if not found[k] then fail("no line containing '" .. w .. "' in " .. path) end
  end
  return table.concat(out, "\n")
end

function Meta(meta)
  if meta.srcdir then srcdir = pandoc.utils.stringify(meta.srcdir) end
  if meta.root then root = pandoc.utils.stringify(meta.root) end
  if meta.page then page = pandoc.utils.stringify(meta.page) end
end

function CodeBlock(block)
  local attr = block.attributes
  if attr.include then
    local path = srcdir .. "/" .. attr.include
    local lines = read_lines(path)
    if attr["function"] then
      block.text = function_lines(lines, attr["function"], attr.include)
    elseif attr.lines then
      block.text = range_lines(lines, attr.lines, attr.include)
    else
      block.text = table.concat(lines, "\n")
    end
    block.attributes.include = nil
    block.attributes["function"] = nil
    block.attributes.lines = nil
    return block
  elseif attr.transcript then
    block.text = transcript_lines(attr.transcript, attr.match)
    -- a transcript's long lines wrap on the page (style.css), none hidden
    if not block.classes:includes("transcript") then block.classes:insert("transcript") end
    block.attributes.transcript = nil
    block.attributes.match = nil
    return block
  end
end

-- Meta must run before CodeBlock.
return { { Meta = Meta }, { CodeBlock = CodeBlock } }
