-- layout.lua - the page's shape:
--   - the first level-1 heading becomes the page title (metadata title) and
--     leaves the body, so that the sections stay level-2 headings, smaller
--     than the title;
--   - every table is wrapped in <div class="table-wrap">, so that on a
--     narrow screen a wide table scrolls inside its box (style.css) instead
--     of making the whole page scroll sideways; and each body cell carries
--     its column's heading (data-label), which narrow.css shows above the
--     cell when a phone stacks the table's cells one under the other, so
--     that no column is hidden off the screen.

function Pandoc(doc)
  local first = doc.blocks[1]
  if first and first.t == "Header" and first.level == 1 and not doc.meta.title then
    doc.meta.title = pandoc.MetaInlines(first.content)
    doc.blocks:remove(1)
  end
  return doc
end

function Table(tbl)
  local labels = {}
  local hrow = tbl.head and tbl.head.rows and tbl.head.rows[1]
  if hrow then
    for i, c in ipairs(hrow.cells) do labels[i] = pandoc.utils.stringify(c.contents) end
  end
  for _, body in ipairs(tbl.bodies or {}) do
    for _, row in ipairs(body.body) do
      for i, c in ipairs(row.cells) do
        if labels[i] and labels[i] ~= "" then c.attr.attributes["data-label"] = labels[i] end
      end
    end
  end
  return pandoc.Div({ tbl }, { class = "table-wrap" })
end
