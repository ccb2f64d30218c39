#!/usr/bin/env bash
# docs/build.sh - builds the site and the handouts into docs/_build/
# (`make docs`):
#   index.html, one page per lesson (NN-name.html, with links to the
#   previous and next lesson, its handout and its sources), one page per
#   docs/pages/*.md, search.html with its index (search-index.js);
#   src/NN-name/ (each lesson's sources), results/ (the transcripts);
#   pictures/ (docs/pictures.sh: every demonstration of docs/pictures.list
#   drawn by warpsim from real runs, appended to its lesson's page as a
#   section "Pictures of the runs", each captioned with the list's LOOK and
#   FIX, what to look at in it: lockstep and its as two pictures in a row
#   that wraps, then the fix; the handout shows every demonstration too,
#   legacy.cu under its cut to the rows around its first race; a handout
#   that would pass MAX_PAGES with them fails the build);
#   handouts/NN-name.pdf (A4, at most MAX_PAGES pages each) and
#   handouts/workbook.pdf (every lesson and page, with a table of contents).
# Pages come from the lesson READMEs and docs/pages/*.md through Pandoc with
# templates/page.html; code and run outputs are pulled in by
# filters/include.lua, links fixed and lessons linked by filters/links.lua,
# tables wrapped by filters/layout.lua, CUDA highlighted with
# templates/cuda.xml. One stylesheet (style.css) serves screen and print; no
# page needs the network. The pages are made side by side, and the PDFs
# printed side by side by one process that loads WeasyPrint once
# (docs/print_pdf.py).
#
# Environment: REPO_URL, the repository's web address, where the handouts'
# links point (a PDF cannot link to the machine that built it; default: a
# placeholder that says to set it); REPO_BRANCH (default main); MAX_PAGES
# (default 4).
# WeasyPrint's warnings are shown, and any warning stops the build: a
# stylesheet rule WeasyPrint ignores is a handout that looks wrong.
# docs/build.sh --print HTML PDF prints one page that way (and nothing else).
# Exit status: 0 built, 1 a step failed (the message says which), 2 bad usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
docs=$root/docs
out=$docs/_build
max_pages=${MAX_PAGES:-4}
placeholder=https://github.com/SET-REPO_URL/warp-level-cuda
repo_url=${REPO_URL:-$placeholder}
repo_branch=${REPO_BRANCH:-main}
site_title="Warp-level CUDA, lesson by lesson"

# weasy [-j JOBS] HTML PDF [HTML PDF...]: WeasyPrint prints each page, in one
# process that loads it once, JOBS at a time (docs/print_pdf.py), with its
# warnings shown; any warning fails (every page is printed first, so that
# all the failures are named).
weasy() {
    local py=python3 line
    # the Python that runs the weasyprint command, from its first line
    if IFS= read -r line <"$(command -v weasyprint)" 2>/dev/null && [[ $line == '#!'*python* ]]; then
        py=${line#'#!'}
    fi
    # shellcheck disable=SC2086   # py may be "/usr/bin/env python3"
    $py "$docs/print_pdf.py" -p "$out/" "$@" || exit 1
}

case "${1-}" in
    -h|--help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0 ;;
    --print)   # --print HTML PDF: one page through weasy, as the handouts are
        [ $# -eq 3 ] || { echo "usage: docs/build.sh [--print HTML PDF]" >&2; exit 2; }
        weasy "$2" "$3"
        exit 0 ;;
    "") ;;
    *) echo "usage: docs/build.sh [--print HTML PDF]" >&2; exit 2 ;;
esac

pics_site='' pics_print=''
rm -rf "$out"
mkdir -p "$out/handouts" "$out/src" "$out/results" "$out/.frag" "$out/.meta"
cp "$docs/style.css" "$docs/templates/search.js" "$out/"
cp -r "$docs/results/." "$out/results/"

lessons=()
for dir in "$root"/lessons/[0-9][0-9]-*/; do
    [ -f "$dir/README.md" ] || continue
    lessons+=("$(basename "$dir")")
done
extra=()
shopt -s nullglob
for md in "$docs"/pages/*.md; do extra+=("$(basename "$md" .md)"); done

common=(--from markdown --syntax-definition "$docs/templates/cuda.xml"
        --lua-filter "$docs/filters/include.lua" --lua-filter "$docs/filters/links.lua"
        --lua-filter "$docs/filters/layout.lua"
        -M "root=$root" -M "lessons=${lessons[*]}" -M "repo-home=$repo_url"
        -M "repo-branch=$repo_branch")
page_args=(--standalone --template "$docs/templates/page.html" -M lang=en
           -M "site-title=$site_title")
site_args=("${page_args[@]}" --toc --toc-depth=3
           --include-before-body "$docs/nav.html"
           --include-after-body "$docs/footer.html")
print_args=("${page_args[@]}" -M "repo-url=$repo_url")

# title NAME: a page's title as written in its source (Markdown).
title() {
    local src
    case "$1" in
        [0-9][0-9]-*) src=$root/lessons/$1/README.md ;;
        *) src=$docs/pages/$1.md ;;
    esac
    sed -n 's/^# //p' "$src" | head -n 1
}

# title_html NAME: the page's title as HTML.
title_html() {
    title "$1" | pandoc --from markdown --to html --wrap=none | sed 's|^<p>||; s|</p>$||'
}

# yaml_str TEXT: TEXT as a double-quoted YAML string.
yaml_str() {
    local s=${1//\\/\\\\}
    printf '"%s"' "${s//\"/\\\"}"
}

# page SRC.md NAME [pandoc args...]: the site page NAME.html, for a lesson the
# handout's page (.print-NAME.html), and its body for the workbook (with ids
# NAME-...).
page() {
    local src=$1 name=$2; shift 2
    local rel=${src#"$root"/} meta=$out/.meta/$name.yaml
    [ -f "$meta" ] || echo "{}" >"$meta"
    pandoc "${common[@]}" "${site_args[@]}" -M "page=$rel" --metadata-file "$meta" "$@" \
        "$src" ${pics_site:+"$pics_site"} -o "$out/$name.html"
    if [[ "$rel" == lessons/* ]]; then   # only lessons have a handout of their own
        local omit=() h
        while IFS= read -r h; do omit+=(-M "handout-omit=$h"); done < <(
            sed -n "s/^$(basename "$(dirname "$src")") *| *\(.*[^ ]\) *$/\1/p" "$docs/handout.list")
        pandoc "${common[@]}" "${print_args[@]}" -M "page=$rel" "$@" \
            --lua-filter "$docs/filters/handout.lua" "${omit[@]}" \
            "$src" ${pics_print:+"$pics_print"} -o "$out/.print-$name.html"
    fi
    pandoc "${common[@]}" -M "page=$rel" -M "repo-url=$repo_url" \
        -M "workbook=${lessons[*]} ${extra[*]}" --id-prefix="$name-" "$@" \
        "$src" ${pics_print:+"$pics_print"} -o "$out/.frag/$name.html"
}

# first_sentence README: the first sentence of the lesson's first paragraph.
first_sentence() {
    awk '/^# / { seen = 1; next }
         seen && /^$/ { if (p != "") exit; next }
         seen && !/^#/ { p = p (p == "" ? "" : " ") $0 }
         END { print p }' "$1" |
        sed -E 's/([.?!])( [A-Z`(]).*$/\1/'
}

# The lesson list on the index page: title, first sentence, handout.
list=$out/.frag/lesson-list.md
{
    echo "## The lessons"
    echo
    for name in "${lessons[@]}"; do
        echo "- **[$(title "$name")]($name.html){.site}**\\"
        echo "  $(first_sentence "$root/lessons/$name/README.md")"
        echo "  ([handout, PDF](handouts/$name.pdf){.site})"
    done
    echo
    echo "The [workbook](handouts/workbook.pdf){.site} (PDF, A4) holds every lesson and every"
    echo "page of this site, with a table of contents. The lessons' full sources are in"
    echo "[src/](src/index.html){.site}; the transcripts of the runs in"
    echo "[results/](results/index.html){.site}."
    echo
} >"$list"

# The pictures: real runs on warpsim, three per line of docs/pictures.list
# (legacy lockstep | its, sync, and a short its run), and the forms that the
# pages and the handouts show, cut from them (docs/trace_svg.py).
echo "  PICS    pictures/ (docs/pictures.sh)"
if ! "$docs/pictures.sh" -o "$out/pictures" >"$out/.meta/pictures.log" 2>&1; then
    cat "$out/.meta/pictures.log" >&2
    echo "docs/build.sh: docs/pictures.sh did not draw every picture (see above)" >&2
    exit 1
fi

# trim TEXT: TEXT without leading and trailing blanks.
trim() { local t=$1; t=${t#"${t%%[![:space:]]*}"}; printf '%s' "${t%"${t##*[![:space:]]}"}"; }

# html_esc TEXT: TEXT with &, < and " escaped for HTML.
html_esc() { sed 's/&/\&amp;/g; s/</\&lt;/g; s/"/\&quot;/g' <<<"$1"; }

# pictures_md LESSON SITE PRINT: the section "Pictures of the runs" for the
# lesson's page (SITE) and for its handout and the workbook (PRINT), one
# subsection per line of docs/pictures.list for the lesson, each captioned
# with what to look at in it (the list's LOOK, and FIX for the fix).
# SITE: legacy.cu under lockstep and under its as two pictures in a row that
# wraps (one under the other on a phone, side by side on a wide screen),
# then sync.cu under its, each linked to its full-size file; PRINT: legacy.cu
# under its cut to the rows around its first race, short enough that a
# lesson's demonstrations all fit its four A4 pages. Both open with the
# legend as text (templates/trace-legend.html): the pictures shown leave
# theirs out. Nothing if docs/pictures.list has no line for the lesson.
pictures_md() {
    local lesson=$1 site=$2 print=$3 l name args title steps look fix n=0 cmd legend
    legend=$(sed '/^<!--/,/-->$/d' "$docs/templates/trace-legend.html")
    rm -f "$site" "$print"
    while IFS='|' read -r l name args title steps look fix || [ -n "$l" ]; do
        case "$l" in ''|'#'*) continue ;; esac
        l=$(trim "$l") name=$(trim "$name") args=$(trim "$args") title=$(trim "$title")
        steps=$(trim "${steps-}") look=$(trim "${look-}") fix=$(trim "${fix-}")
        [ "$l" = "$lesson" ] || continue
        n=$((n + 1))
        cmd="make -C lessons/$l emu && warpsim/build/warpsim --trace mine.svg --trace-models lockstep,its${steps:+ --trace-steps $steps} lessons/$l/build/emu/legacy $args"
        if [ "$n" -eq 1 ]; then
            {
                echo; echo "## Pictures of the runs"; echo
                echo "Drawn by \`make docs\` from real runs of this lesson's programs on warpsim"
                echo "(docs/pictures.sh, one line of docs/pictures.list each): warp 0 of block 0"
                echo "in the program's first launch, a column per lane, time going down. Each"
                echo "demonstration shows legacy.cu under warpsim's lockstep model (the warp as"
                echo "pre-Volta GPUs ran it) and under its (independent thread scheduling, lanes"
                echo "apart, as Volta and later may run it), then the fix, sync.cu, under its."
                echo "Where a run is long, grey bands stand for the rows left out, and the rows"
                echo "around each race are kept. Select a picture to open it alone at full size (on a"
                echo "phone, to zoom in); \"full size\" under it opens both runs side by side, with"
                echo "warpsim's legend. To draw one yourself, run the command under"
                echo "it from the repository's root and open \`mine.svg\` in a browser; the same"
                echo "works for your own copy (\`build/emu/mine\` after \`make check SRC=mine.cu\`)."
                echo
                echo '```{=html}'
                echo "$legend"
                echo '```'
                echo
            } >"$site"
            {
                echo; echo "## Pictures of the runs"; echo
                echo "Real runs on warpsim (\`make docs\`): legacy.cu under its, warp 0 of block 0, a"
                echo "column per lane, time going down, cut to the rows around the first race (or"
                echo "the first collective; a grey bar: rows not shown). The lesson's page shows each"
                echo "run whole, lockstep beside its, and the fix. Draw one (after \`make -C lessons/$l emu\`):"
                echo "\`warpsim/build/warpsim --trace mine.svg --model its lessons/$l/build/emu/legacy\`"
                echo "and the arguments under its picture."
                echo
                echo '```{=html}'
                echo "$legend"
                echo '```'
                echo
            } >"$print"
        fi
        {
            echo "### ${title#Lesson [0-9][0-9]: }"
            echo
            echo '```{=html}'
            echo "<div class=\"trace-runs\">"
            echo "<figure class=\"trace run\"><a href=\"pictures/$l-$name.lockstep.svg\"><img src=\"pictures/$l-$name.lockstep.svg\" alt=\"warpsim picture: $(html_esc "$title"), legacy.cu under lockstep\"></a><figcaption>legacy.cu under lockstep</figcaption></figure>"
            echo "<figure class=\"trace run\"><a href=\"pictures/$l-$name.its.svg\"><img src=\"pictures/$l-$name.its.svg\" alt=\"warpsim picture: $(html_esc "$title"), legacy.cu under its\"></a><figcaption>legacy.cu under its</figcaption></figure>"
            echo "</div>"
            echo "<p class=\"trace-caption\"><strong>What to look at:</strong> $(html_esc "${look:-see the lesson above}") (<a href=\"pictures/$l-$name.svg\">full size, lockstep | its</a>)</p>"
            echo "<div class=\"trace-runs\">"
            echo "<figure class=\"trace run fix\"><a href=\"pictures/$l-$name.sync.svg\"><img src=\"pictures/$l-$name.fix.svg\" alt=\"warpsim picture: the same demonstration, sync.cu under its\"></a>"
            echo "<figcaption>The fix, sync.cu, under its with the same input. $(html_esc "$fix") (<a href=\"pictures/$l-$name.sync.svg\">full size</a>)</figcaption></figure>"
            echo "</div>"
            echo '```'
            echo
            echo "Draw it: \`$cmd\` (the fix: \`build/emu/sync\` and \`--model its\`)."
            echo
        } >>"$site"
        {
            echo '```{=html}'
            echo "<figure class=\"trace print\"><img src=\"pictures/$l-$name.print.svg\" alt=\"warpsim picture: $(html_esc "$title"), legacy.cu under its, the rows around the first race\">"
            echo "<figcaption><strong>$(html_esc "${title#Lesson [0-9][0-9]: }")</strong> (<code>legacy $(html_esc "$args")</code>). <strong>What to look at:</strong> $(html_esc "${look:-see the lesson above}")</figcaption></figure>"
            echo '```'
            echo
        } >>"$print"
    done <"$docs/pictures.list"
}

echo "  PAGE    index.html"
pandoc "${common[@]}" "${site_args[@]}" -M page=docs/index.md \
    "$docs/index.md" "$list" -o "$out/index.html"

# Each page is made in the background (Pandoc, three times for a lesson);
# all are waited for before the listings.
page_jobs=()
for i in "${!lessons[@]}"; do
    name=${lessons[$i]}
    files=()
    for f in "$root/lessons/$name"/*.cu "$root/lessons/$name"/*.sh \
             "$root/lessons/$name"/*.gp "$root/lessons/$name"/Makefile; do
        files+=("$(basename "$f")")
    done
    {
        echo "prevnext: true"
        if [ "$i" -gt 0 ]; then
            echo "prev-href: ${lessons[$((i - 1))]}.html"
            echo "prev-title: $(yaml_str "$(title "${lessons[$((i - 1))]}")")"
        else
            echo "prev-href: index.html#the-lessons"
            echo "prev-title: \"All lessons\""
        fi
        if [ $((i + 1)) -lt ${#lessons[@]} ]; then
            echo "next-href: ${lessons[$((i + 1))]}.html"
            echo "next-title: $(yaml_str "$(title "${lessons[$((i + 1))]}")")"
        fi
        printf 'lesson-files: "Handout: [%s.pdf](handouts/%s.pdf){.site} (A4). Sources:' "$name" "$name"
        sep=" "
        for f in "${files[@]}"; do
            printf '%s[%s](src/%s/%s){.site}' "$sep" "$f" "$name" "$f"
            sep=", "
        done
        echo '."'
    } >"$out/.meta/$name.yaml"
    echo "  PAGE    $name.html"
    pics_site=$out/.meta/$name.pictures.md pics_print=$out/.meta/$name.pictures-print.md
    pictures_md "$name" "$pics_site" "$pics_print"
    [ -f "$pics_site" ] || pics_site='' pics_print=''
    page "$root/lessons/$name/README.md" "$name" \
        -M "srcdir=$root/lessons/$name" -M "lesson=$name" &
    page_jobs+=("$!")
    pics_site='' pics_print=''
    mkdir -p "$out/src/$name"
    for f in "${files[@]}"; do cp "$root/lessons/$name/$f" "$out/src/$name/"; done
done

for name in "${extra[@]}"; do
    echo "  PAGE    $name.html"
    page "$docs/pages/$name.md" "$name" -M "srcdir=$root" &
    page_jobs+=("$!")
done
for pid in "${page_jobs[@]}"; do
    wait "$pid" || { echo "docs/build.sh: a page did not build (see above)" >&2; exit 1; }
done

# Listings of src/ and results/, for static hosts that list no folders.
# listing DIR TITLE: DIR/index.html, a link to every file under DIR.
listing() {
    local dir=$1 heading=$2
    {
        echo "# $heading"
        echo
        echo "[Back to the lessons](../index.html#the-lessons)"
        echo
        (cd "$dir" && find . -type f ! -name index.html | sed 's|^\./||' | LC_ALL=C sort) |
            while IFS= read -r f; do echo "- [$f]($f)"; done
    } | pandoc --from markdown --lua-filter "$docs/filters/layout.lua" "${page_args[@]}" |
        sed 's|href="style.css"|href="../style.css"|' >"$dir/index.html"
}
echo "  PAGE    src/index.html, results/index.html"
listing "$out/src" "The lessons' sources"
listing "$out/results" "Transcripts, tables and plots of real runs"

echo "  PAGE    search.html"
cat >"$out/.frag/search.md" <<'MD'
# Search

```{=html}
<form id="search-form" class="search-page" role="search" action="search.html">
<input id="search-q" type="search" name="q" aria-label="Words to search for" placeholder="e.g. __syncwarp race">
<button type="submit">Search</button>
</form>
<p id="search-status" role="status">Searching needs JavaScript; every page is also listed under Lessons.</p>
<ol id="search-results"></ol>
<script src="search-index.js"></script>
<script src="search.js"></script>
```
MD
pandoc --from markdown --lua-filter "$docs/filters/layout.lua" "${page_args[@]}" --include-before-body "$docs/nav.html" \
    --include-after-body "$docs/footer.html" \
    "$out/.frag/search.md" -o "$out/search.html"
indexed=("$out/index.html")
for name in "${lessons[@]}" "${extra[@]}"; do indexed+=("$out/$name.html"); done
python3 "$docs/filters/search_index.py" "$out/search-index.js" "${indexed[@]}"

# The workbook's page: every lesson and page, with a table of contents.
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
    echo '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
    echo "<title>$site_title: workbook</title>"
    echo '<link rel="stylesheet" href="style.css"></head><body class="workbook">'
    echo '<section class="cover">'
    echo "<h1 class=\"title\">$site_title</h1>"
    echo "<p class=\"subtitle\">Workbook: the ${#lessons[@]} lessons and the ${#extra[@]} reference pages of the site, in one PDF.</p>"
    echo "<p>Built from commit $commit on $(date -u '+%Y-%m-%d'). Links point to the files in the repository, $repo_url.</p>"
    echo '<nav class="toc"><h2>Contents</h2><ol>'
    for name in "${lessons[@]}" "${extra[@]}"; do
        t=$(title_html "$name")
        echo "<li><a href=\"#ch-$name\">$t</a></li>"
    done
    echo '</ol></nav></section>'
    for name in "${lessons[@]}" "${extra[@]}"; do
        t=$(title_html "$name")
        echo "<section class=\"chapter\" id=\"ch-$name\"><h1>$t</h1>"
        cat "$out/.frag/$name.html"
        echo '</section>'
    done
    echo '</body></html>'
} >"$out/.workbook.html"
# one anchor per id: the chapters' ids carry their page's prefix
dups=$(grep -o ' id="[^"]*"' "$out/.workbook.html" | LC_ALL=C sort | uniq -d | head -n 5)
if [ -n "$dups" ]; then
    echo "docs/build.sh: the workbook has duplicate ids: ${dups//$'\n'/ }" >&2
    exit 1
fi
# Handouts and workbook: the same pages, printed with the stylesheet's print
# rules, side by side, the workbook (the longest) first; every one is
# printed and counted before a failure or a long one stops the build, so
# that all are named.
prints=("$out/.workbook.html" "$out/handouts/workbook.pdf")
for name in "${lessons[@]}"; do
    echo "  PDF     handouts/$name.pdf"
    prints+=("$out/.print-$name.html" "$out/handouts/$name.pdf")
done
echo "  PDF     handouts/workbook.pdf"
weasy -j "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" "${prints[@]}"
long=0
for name in "${lessons[@]}"; do
    pages=$(pdfinfo "$out/handouts/$name.pdf" | sed -n 's/^Pages: *//p')
    if [ "$pages" -gt "$max_pages" ]; then
        echo "docs/build.sh: handouts/$name.pdf has $pages pages, more than $max_pages" \
             "(docs/handout.list names the sections a handout leaves out)" >&2
        long=1
    fi
done
[ "$long" -eq 0 ] || exit 1
rm -rf "$out/.frag" "$out/.meta" "$out"/.print-*.html "$out/.workbook.html"

[ "$repo_url" != "$placeholder" ] ||
    echo "docs: REPO_URL is not set: the handouts link to $placeholder (make docs REPO_URL=https://...)"
echo "docs: $out/index.html, ${#lessons[@]} lesson pages, $(( ${#lessons[@]} + 1 )) PDFs in $out/handouts/"
