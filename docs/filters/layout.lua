-- layout.lua - the page's shape:
--   - the first level-1 heading becomes the page title (metadata title) and
--     leaves the body, so that the sections stay level-2 headings, smaller
--     than the title;
--   - every table is wrapped in <div class="table-wrap">, so that on a
--     narrow screen a wide table scrolls inside its box (style.css) instead
--     of making the whole page scroll sideways.

function Pandoc(doc)
  local first = doc.blocks[1]
  if first and first.t == "Header" and first.level == 1 and not doc.meta.title then
    doc.meta.title = pandoc.MetaInlines(first.content)
    doc.blocks:remove(1)
  end
  return doc
end

function Table(tbl)
  return pandoc.Div({ tbl }, { class = "table-wrap" })
end
