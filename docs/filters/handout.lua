-- handout.lua - a lesson's four-page handout leaves out the sections that
-- docs/handout.list names for it (metadata handout-omit: the headings, or
-- the start of them), level-2 sections with all they hold, and says at the
-- end which ones it left out: they stay on the lesson's page on the site and
-- in the workbook. A name that matches no section stops the build, so that
-- the list cannot go stale unnoticed when a heading changes.
--
-- Used only for the handouts (docs/build.sh).

local omit = {}

function Meta(meta)
  local v = meta["handout-omit"]
  if v == nil then return end
  if v.t ~= "MetaList" and type(v) ~= "table" or v.t == "MetaInlines" then v = { v } end
  for _, x in ipairs(v) do omit[#omit + 1] = pandoc.utils.stringify(x) end
end

local function starts(s, p) return s:sub(1, #p) == p end

function Pandoc(doc)
  if #omit == 0 then return doc end
  local out, left, used, skipping = {}, {}, {}, false
  for _, b in ipairs(doc.blocks) do
    if b.t == "Header" and b.level <= 2 then
      skipping = false
      local text = pandoc.utils.stringify(b.content)
      for i, p in ipairs(omit) do
        if starts(text, p) then
          skipping, used[i] = true, true
          left[#left + 1] = b.content
        end
      end
    end
    if not skipping then out[#out + 1] = b end
  end
  for i, p in ipairs(omit) do
    if not used[i] then
      error("handout.lua: no section of this lesson starts with '" .. p .. "' (docs/handout.list)", 0)
    end
  end
  local note = pandoc.read("Not in this handout, for room, but on the lesson's page on "
                           .. "the site and in the workbook: ", "markdown").blocks[1].content
  note[#note + 1] = pandoc.Space()
  for i, h in ipairs(left) do
    if i > 1 then note[#note + 1] = pandoc.Str(i == #left and " and " or ", ") end
    note[#note + 1] = pandoc.Emph(h)
  end
  note[#note + 1] = pandoc.Str(".")
  out[#out + 1] = pandoc.Div({ pandoc.Para(note) }, { class = "left-out" })
  doc.blocks = out
  return doc
end
