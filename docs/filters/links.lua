-- links.lua - rewrites links written for browsing the repository (lesson
-- READMEs, the top README) into links that work where the page is read.
--
-- On the site (docs/_build/, every page in one folder), a relative link is
-- resolved against the page's folder in the repository, then:
--   lessons/NN-name/README.md        ->  NN-name.html
--   lessons/NN-name/SUB/README.md    ->  NN-name-SUB.html (lesson 05's
--                                        investigation)
--   lessons/NN-name/legacy.cu        ->  src/NN-name/legacy.cu.html, the
--                                        source shown as a page (a web host
--                                        serves .cu as a download); beside
--                                        it the file itself
--   docs/results/X                   ->  results/X
--   README.md, docs/index.md         ->  index.html
--   docs/pages/X.md, docs/X.md       ->  X.html
-- Links with a scheme (https:) and anchors are left alone.
--
-- It also links the lessons where the text names them: "lesson 03 shows",
-- "(lesson 02)", "lessons 04 to 06" (not on the lesson's own page, not in
-- headings, code or existing links), and makes an image that stands alone
-- in its paragraph a link to the full-size file.
--
-- In a handout (metadata print set) a PDF cannot link to the machine
-- that built it, so every link that is not an anchor of the page goes to
-- the file in the repository: REPO_URL/blob/BRANCH/lessons/NN-name/README.md
-- and so on (metadata repo-url); where the repository's address is not
-- known, such a link is left as its text (the handout says in words where
-- the files are). In the workbook (metadata workbook: the page names it holds,
-- space-separated; the page's ids carry the prefix NAME-) a link to a page
-- of the workbook becomes an anchor of its chapter (#ch-NAME, or
-- #NAME-anchor).
--
-- A link to a transcript under docs/results/ that is not there yet (a run
-- still to be recorded on a GPU) becomes its text followed by "(not yet
-- recorded)", never a dead link; it is a link again once the file exists.
--
-- A link to a repository file the site holds no copy of goes to it in the
-- repository (REPO_HOME/blob/BRANCH/path) everywhere, or, where the
-- address is not known, is left as its text. A link with class "site" is
-- already a path of the site and is not resolved.
--
-- Metadata: page (the page's repository path, which relative links are
-- resolved against), lesson (the page's lesson folder name, if it is a
-- lesson page), lessons (every lesson folder name, space-separated),
-- repo-home (the repository's address, if known), print (set for the
-- handouts and the workbook), repo-url (the address, for them, if known),
-- repo-branch, workbook (the workbook's page names).

local lesson = nil
local page = ""         -- the page's repository path (metadata page)
local lessons = {}      -- "03" -> "03-syncwarp-races"
local repo_url = nil
local print_mode = false  -- a handout or the workbook
local repo_home = nil   -- the repository's address, for files the site lacks
local repo_branch = "main"
local workbook = nil    -- set of page names, in workbook mode
local root = nil        -- the repository's folder (metadata root)

function Meta(meta)
  if meta.root then root = pandoc.utils.stringify(meta.root) end
  if meta.lesson then lesson = pandoc.utils.stringify(meta.lesson) end
  if meta.page then page = pandoc.utils.stringify(meta.page) end
  if meta.lessons then
    for name in pandoc.utils.stringify(meta.lessons):gmatch("%S+") do
      lessons[name:sub(1, 2)] = name
    end
  end
  if meta["repo-url"] then
    repo_url = pandoc.utils.stringify(meta["repo-url"]):gsub("/+$", "")
    if repo_url == "" then repo_url = nil end
  end
  if meta.print or repo_url then print_mode = true end
  if meta["repo-home"] then
    repo_home = pandoc.utils.stringify(meta["repo-home"]):gsub("/+$", "")
    if repo_home == "" then repo_home = nil end
  end
  if page == "" and lesson then page = "lessons/" .. lesson .. "/README.md" end
  if meta["repo-branch"] then repo_branch = pandoc.utils.stringify(meta["repo-branch"]) end
  if meta.workbook then
    workbook = {}
    for name in pandoc.utils.stringify(meta.workbook):gmatch("%S+") do workbook[name] = true end
  end
end

-- The repository path of a relative link, resolved against the page's
-- folder ("../results/x.txt" on docs/pages/gpus.md is docs/results/x.txt);
-- nil when it leaves the repository.
local function normalize(t)
  local dir = page:match("^(.*)/[^/]*$") or ""
  local parts = {}
  for part in ((dir ~= "" and dir .. "/" or "") .. t):gmatch("[^/]+") do
    if part == ".." then
      if #parts == 0 then return nil end
      table.remove(parts)
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return table.concat(parts, "/") .. (t:match("/$") and "/" or "")
end

-- The site path of a repository path (nil: the site has no copy of it).
local function site_of(path)
  local plain = path:gsub("/$", "")
  local name = plain:match("^lessons/(%d%d%-[%w-]+)/README%.md$")
            or plain:match("^lessons/(%d%d%-[%w-]+)$")
  if name then return name .. ".html" end
  local ln, sub = plain:match("^lessons/(%d%d%-[%w-]+)/([%w-]+)/README%.md$")
  if ln and sub ~= "wrong" then return ln .. "-" .. sub .. ".html" end
  local lf = plain:match("^lessons/(%d%d%-[%w-]+/[^/]+)$")
            or plain:match("^lessons/(%d%d%-[%w-]+/[%w-]+/[^/]+)$")
  if lf then return "src/" .. lf .. ".html" end
  if plain == "docs/results" then return "results/index.html" end
  local res = plain:match("^docs/results/(.*)$")
  if res then return "results/" .. res end
  if plain == "README.md" or plain == "docs/index.md" then return "index.html" end
  local doc = plain:match("^docs/pages/([%w-]+)%.md$") or plain:match("^docs/([%w-]+)%.md$")
  if doc then return doc .. ".html" end
  return nil
end

-- The site path of a link written for the repository (or the link itself:
-- a URL, an anchor, a file the site does not hold).
local function site_path(t)
  if t:match("^%a[%w+.-]*:") or t:match("^#") or t:match("^/") then return t end
  local anchor = t:match("(#.*)$") or ""
  local path = normalize((t:gsub("#.*$", "")))
  if not path then return t end
  local site = site_of(path)
  if site then return site .. anchor end
  if repo_home and path ~= "" then   -- a repository file the site does not copy
    return repo_home .. "/" .. (path:match("/$") and "tree" or "blob") .. "/"
           .. repo_branch .. "/" .. path .. anchor
  end
  return nil                         -- nowhere to link to: the text alone
end

-- The repository file behind a site path (nil if there is none).
local function repo_path(site)
  if site == "index.html" or site == "" then return "" end
  local ln, sub = site:match("^(%d%d%-[%w-]+)%-(investigation)%.html$")
  if ln then return "lessons/" .. ln .. "/" .. sub .. "/README.md" end
  local name = site:match("^(%d%d%-[%w-]+)%.html$")
  if name then return "lessons/" .. name .. "/README.md" end
  if site == "results/index.html" then return "docs/results/" end
  local res = site:match("^results/(.*)$")
  if res then return "docs/results/" .. res end
  local src = site:match("^src/(.*)$")
  if src then return "lessons/" .. src:gsub("%.html$", "") end
  local pg = site:match("^([%w-]+)%.html$")
  if pg then return "docs/pages/" .. pg .. ".md" end
  return nil
end

-- A site path as the output needs it: unchanged on the site; an anchor of
-- the workbook; a repository URL in a handout. Returns the target and
-- whether it is an anchor that must not get this page's id prefix.
local function finish(site)
  if site:match("^%a[%w+.-]*:") or site:match("^#") then return site, false end
  if not print_mode then return site, false end
  local anchor = site:match("#(.*)$")
  local path = site:gsub("#.*$", "")
  local page = path:match("^([%w-]+)%.html$")
  if workbook and page and workbook[page] then
    if anchor then return "#" .. page .. "-" .. anchor, true end
    return "#ch-" .. page, true
  end
  local file = repo_path(path)
  if not repo_url then return nil, false end   -- no address: the text alone
  if not file then return site, false end
  if file == "" then return repo_url, false end
  local kind = file:match("/$") and "tree" or "blob"
  return repo_url .. "/" .. kind .. "/" .. repo_branch .. "/" .. file
         .. (anchor and ("#" .. anchor) or ""), false
end

-- A Link to target; a cross-chapter anchor of the workbook is written as raw
-- HTML so that the writer's --id-prefix does not prefix it a second time.
local function make_link(content, site, attr)
  if not site then return pandoc.Span(content) end
  local target, raw = finish(site)
  if not target then return pandoc.Span(content) end
  if raw then
    local out = { pandoc.RawInline("html", '<a href="' .. target .. '">') }
    for _, el in ipairs(content) do out[#out + 1] = el end
    out[#out + 1] = pandoc.RawInline("html", "</a>")
    return pandoc.Span(out, { class = "xref" })
  end
  return pandoc.Link(content, target, "", attr)
end

function Link(link)
  if link.classes:includes("site") then   -- already a path of the site
    link.classes = link.classes:filter(function(c) return c ~= "site" end)
    return make_link(link.content, link.target, link.attr)
  end
  local t = link.target
  if root and not t:match("^%a[%w+.-]*:") and not t:match("^[#/]") then
    local path = normalize((t:gsub("#.*$", "")))
    if path and path:match("^docs/results/.") then
      local f = io.open(root .. "/" .. path, "r")
      if f then
        f:close()
      else
        local out = pandoc.List(link.content)
        out:insert(pandoc.Str(" (not yet recorded)"))
        return out
      end
    end
  end
  return make_link(link.content, site_path(t), link.attr)
end

function Image(img)
  img.src = site_path(img.src) or img.src
  return img
end

-- "lesson 03" in running text -> a link to 03-name.html.
local function link_mentions(inlines)
  local out = pandoc.List()
  local i, n = 1, #inlines
  local plural = false  -- after "lessons 04", a following "and 05" links too
  while i <= n do
    local el = inlines[i]
    local linked = false
    if el.t == "Str" then
      local pre, word = el.text:match("^(%p*)([Ll]essons?)$")
      local nxt, num = inlines[i + 1], inlines[i + 2]
      if word and nxt and nxt.t == "Space" and num and num.t == "Str" then
        local nn, post = num.text:match("^(%d%d)(.*)$")
        if nn and lessons[nn] and lessons[nn] ~= lesson and (post == "" or post:match("^[%p]")) then
          if pre ~= "" then out:insert(pandoc.Str(pre)) end
          out:insert(make_link({ pandoc.Str(word), pandoc.Space(), pandoc.Str(nn) },
                               lessons[nn] .. ".html"))
          if post ~= "" then out:insert(pandoc.Str(post)) end
          plural = word:match("s$") and (post == "" or post == ",")
          i = i + 3
          linked = true
        elseif nn and lessons[nn] then
          plural = word:match("s$") and (post == "" or post == ",")
        end
      elseif plural and el.text:match("^%d%d") then
        local nn, post = el.text:match("^(%d%d)(.*)$")
        if nn and lessons[nn] and lessons[nn] ~= lesson and (post == "" or post:match("^[%p]")) then
          out:insert(make_link({ pandoc.Str(nn) }, lessons[nn] .. ".html"))
          if post ~= "" then out:insert(pandoc.Str(post)) end
          plural = post == "" or post == ","
          i = i + 1
          linked = true
        end
      elseif plural and not (el.text == "and" or el.text == "to" or el.text == "or") then
        plural = false
      end
    elseif el.t ~= "Space" and el.t ~= "SoftBreak" then
      plural = false
    end
    if not linked then
      if el.t == "Emph" or el.t == "Strong" or el.t == "Quoted"
         or (el.t == "Span" and not el.classes:includes("xref")) then
        el.content = link_mentions(el.content)
      end
      out:insert(el)
      i = i + 1
    end
  end
  return out
end

local function mentions_block(block)
  block.content = link_mentions(block.content)
  return block
end

local function escape(s)
  return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

-- An image alone in its paragraph: a figure whose image and caption link to
-- the full-size file.
local function figure_link(para)
  if #para.content ~= 1 or para.content[1].t ~= "Image" then return nil end
  local img = para.content[1]
  local alt = escape(pandoc.utils.stringify(img.caption))
  local target = finish(img.src)
  if not target then
    return pandoc.RawBlock("html", '<figure class="plot"><img src="' .. escape(img.src)
      .. '" alt="' .. alt .. '">\n<figcaption>' .. alt .. '</figcaption></figure>')
  end
  target = escape(target)
  return pandoc.RawBlock("html",
    '<figure class="plot"><a href="' .. target .. '"><img src="' .. escape(img.src)
    .. '" alt="' .. alt .. '"></a>\n<figcaption>' .. alt .. ' (<a href="' .. target
    .. '">full size</a>)</figcaption></figure>')
end

function Pandoc(doc)
  local div = pandoc.Div(doc.blocks)
  div = pandoc.walk_block(div, { Para = mentions_block, Plain = mentions_block })
  div = pandoc.walk_block(div, { Para = figure_link })
  doc.blocks = div.content
  return doc
end

-- Meta before the rest; figure_link sees images already rewritten.
return { { Meta = Meta }, { Link = Link, Image = Image }, { Pandoc = Pandoc } }
