-- links.lua - rewrites links written for browsing the repository (lesson
-- READMEs, the top README) into links that work in docs/_build/, where
-- every page sits in one folder:
--   ../NN-name/README.md, lessons/NN-name/README.md  ->  NN-name.html
--   ../../docs/results/X, docs/results/X             ->  results/X
--   ../../README.md                                  ->  index.html
--   a file of the lesson folder (legacy.cu)          ->  src/NN-name/legacy.cu
--   docs/X.md                                        ->  X.html
-- Links with a scheme (https:) and anchors are left alone.
-- Metadata: lesson (the page's lesson folder name, if it is a lesson page).

local lesson = nil

function Meta(meta)
  if meta.lesson then lesson = pandoc.utils.stringify(meta.lesson) end
end

local function rewrite(t)
  if t:match("^%a[%w+.-]*:") or t:match("^#") then return t end
  local anchor = t:match("(#.*)$") or ""
  local path = t:gsub("#.*$", "")
  local name = path:match("lessons/(%d%d%-[%w-]+)/README%.md$")
            or path:match("^%.%./(%d%d%-[%w-]+)/README%.md$")
  if name then return name .. ".html" .. anchor end
  local res = path:match("docs/results/(.*)$")
  if res then return "results/" .. res .. anchor end
  if path == "../../README.md" or path == "README.md" and not lesson then
    return "index.html" .. anchor
  end
  local doc = path:match("^docs/([%w-]+)%.md$") or path:match("^%.%./%.%./docs/([%w-]+)%.md$")
           or path:match("^docs/pages/([%w-]+)%.md$")
           or path:match("^%.%./%.%./docs/pages/([%w-]+)%.md$")
           or path:match("^([%w-]+)%.md$")
  if doc and doc ~= "README" then return doc .. ".html" .. anchor end
  if lesson and not path:find("/") and path ~= "" then
    return "src/" .. lesson .. "/" .. path .. anchor
  end
  return t
end

function Link(link)
  link.target = rewrite(link.target)
  return link
end

function Image(img)
  img.src = rewrite(img.src)
  return img
end

return { { Meta = Meta }, { Link = Link, Image = Image } }
