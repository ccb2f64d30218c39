#!/usr/bin/env bash
# docs/build.sh - builds the site and the handouts into docs/_build/
# (`make docs`):
#   index.html, one page per lesson (NN-name.html, with links to the
#   previous and next lesson, its handout and its sources), one page per
#   docs/pages/*.md, lesson 05's investigation (05-aggregated-atomics-
#   investigation.html), search.html with its index (search-index.js);
#   src/NN-name/ (each lesson's sources, each beside a page that shows it,
#   FILE.html: a web host serves a .cu file as a download), results/ (the
#   transcripts);
#   pictures/ (docs/pictures.sh: every demonstration of docs/pictures.list
#   drawn by warpsim from real runs, appended to its lesson's page as a
#   section "Pictures of the runs": each run's focused view, captioned with
#   what to look at in it (the list's ITS, LOCKSTEP, FIX) and linked to the
#   full run, legacy.cu under its and under lockstep and the fix in a row
#   that wraps; the handout shows legacy.cu under its beside the fix for
#   every demonstration, the workbook all three; a handout that would pass
#   MAX_PAGES with them fails the build);
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
# links point and which they print under each title and at the foot of
# each page (a PDF cannot link to the machine that built it); default: the
# checkout's origin remote when it is a public https address (no user name
# in it), else none: the handouts then say in words where the files are
# and link to no repository file. REPO_BRANCH (default main); MAX_PAGES
# (default 6: three sheets printed on both sides).
# WeasyPrint's warnings are shown, and any warning stops the build: a
# stylesheet rule WeasyPrint ignores is a handout that looks wrong.
# docs/build.sh --print HTML PDF prints one page that way (and nothing else);
# docs/build.sh --address prints the repository address the handouts get
# (nothing when there is none).
# Exit status: 0 built, 1 a step failed (the message says which), 2 bad usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
docs=$root/docs
out=$docs/_build
max_pages=${MAX_PAGES:-6}
repo_branch=${REPO_BRANCH:-main}

# repo_address: the repository's web address: REPO_URL if set, else the
# checkout's origin remote when it is a public https address (no user name
# or password before the host), without a trailing .git; else nothing.
repo_address() {
    local url=${REPO_URL:-}
    if [ -z "$url" ]; then
        url=$(git -C "$root" remote get-url origin 2>/dev/null) || url=
        [[ $url =~ ^https://[^/@[:space:]]+/[^[:space:]]+$ ]] || url=
        url=${url%/}
        url=${url%.git}
    fi
    printf '%s' "${url%/}"
}
repo_url=$(repo_address)
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
        [ $# -eq 3 ] || { echo "usage: docs/build.sh [--print HTML PDF | --address]" >&2; exit 2; }
        weasy "$2" "$3"
        exit 0 ;;
    --address)
        [ -n "$repo_url" ] && echo "$repo_url"
        exit 0 ;;
    "") ;;
    *) echo "usage: docs/build.sh [--print HTML PDF | --address]" >&2; exit 2 ;;
esac

pics_site='' pics_print='' pics_book=''
rm -rf "$out"
mkdir -p "$out/handouts" "$out/src" "$out/results" "$out/.frag" "$out/.meta"
cp "$docs/style.css" "$docs/narrow.css" "$docs/templates/search.js" "$out/"
cp -r "$docs/results/." "$out/results/"

lessons=()
for dir in "$root"/lessons/[0-9][0-9]-*/; do
    [ -f "$dir/README.md" ] || continue
    lessons+=("$(basename "$dir")")
done
extra=()
shopt -s nullglob
for md in "$docs"/pages/*.md; do extra+=("$(basename "$md" .md)"); done
# a lesson's folder with a README of its own (lesson 05's investigation): a
# page NN-name-SUB.html, on the site and in the workbook after its lesson
subpages=()
for md in "$root"/lessons/[0-9][0-9]-*/*/README.md; do
    sub=$(basename "$(dirname "$md")") lesson=$(basename "$(dirname "$(dirname "$md")")")
    [ "$sub" = wrong ] || [ "$sub" = build ] || subpages+=("$lesson-$sub")
done

common=(--from markdown --syntax-definition "$docs/templates/cuda.xml"
        --lua-filter "$docs/filters/include.lua" --lua-filter "$docs/filters/links.lua"
        --lua-filter "$docs/filters/layout.lua"
        -M "root=$root" -M "lessons=${lessons[*]}" ${repo_url:+-M "repo-home=$repo_url"}
        -M "repo-branch=$repo_branch")
page_args=(--standalone --template "$docs/templates/page.html" -M lang=en
           -M "site-title=$site_title")
site_args=("${page_args[@]}" -M narrow-css=true --toc --toc-depth=3
           --include-before-body "$docs/nav.html"
           --include-after-body "$docs/footer.html")
# the index: its title is the site's, said once in the window title
index_args=(--standalone --template "$docs/templates/page.html" -M lang=en -M narrow-css=true --toc --toc-depth=3
            --include-before-body "$docs/nav.html" --include-after-body "$docs/footer.html")
# the handouts and the workbook: links to the repository's files, if its
# address is known (links.lua)
print_links=(-M print=true ${repo_url:+-M "repo-url=$repo_url"})
print_args=("${page_args[@]}" "${print_links[@]}")

# address_footer LESSON: what address_line says, short, for the foot of
# every page of a handout.
address_footer() {
    if [ -n "$repo_url" ]; then
        echo "Warp-level CUDA - the code: $repo_url - code MIT, text CC BY 4.0"
    else
        echo "Warp-level CUDA - the code: lessons/$1/ of the course's repository - code MIT, text CC BY 4.0"
    fi
}

# address_line LESSON: where the reader of a printed handout finds the code,
# in words (under the title and at the foot of every page).
address_line() {
    if [ -n "$repo_url" ]; then
        echo "The code: $repo_url, folder lessons/$1/ (branch $repo_branch); the transcripts of the runs in docs/results/."
    else
        echo "The code: the folder lessons/$1/ of this course's repository, whose web address was not given when this handout was made (ask whoever handed it out); the transcripts of the runs are in its docs/results/."
    fi
}

# source_of NAME: the Markdown source of page NAME.
source_of() {
    local sub
    for sub in "${subpages[@]}"; do
        if [ "$1" = "$sub" ]; then
            echo "$root/lessons/${1%-*}/${1##*-}/README.md"
            return
        fi
    done
    case "$1" in
        [0-9][0-9]-*) echo "$root/lessons/$1/README.md" ;;
        *) echo "$docs/pages/$1.md" ;;
    esac
}

# title NAME: a page's title as written in its source (Markdown).
title() {
    sed -n 's/^# //p' "$(source_of "$1")" | head -n 1
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
    if [[ "$rel" =~ ^lessons/[^/]+/README\.md$ ]]; then   # a lesson: a handout of its own
        local omit=() h lesson_dir
        lesson_dir=$(basename "$(dirname "$src")")
        while IFS= read -r h; do omit+=(-M "handout-omit=$h"); done < <(
            sed -n "s/^$lesson_dir *| *\(.*[^ ]\) *$/\1/p" "$docs/handout.list")
        pandoc "${common[@]}" "${print_args[@]}" -M "page=$rel" "$@" \
            -M "print-address=$(address_line "$lesson_dir")" \
            -M "print-footer=$(address_footer "$lesson_dir")" \
            --lua-filter "$docs/filters/handout.lua" "${omit[@]}" \
            "$src" ${pics_print:+"$pics_print"} -o "$out/.print-$name.html"
    fi
    pandoc "${common[@]}" -M "page=$rel" "${print_links[@]}" \
        -M "workbook=${lessons[*]} ${subpages[*]} ${extra[*]}" --id-prefix="$name-" "$@" \
        "$src" ${pics_book:+"$pics_book"} -o "$out/.frag/$name.html"
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

# legend_for LESSON: the legend of the lesson's pictures, as HTML: the items
# of templates/trace-legend.html for the marks its focused views use
# (docs/trace_svg.py marks), and no other.
legend_for() {
    local marks f m
    marks=" lanes "
    for f in "$out/pictures/$1"-*.{its,lockstep,fix}.svg; do
        [ -f "$f" ] || continue
        for m in $(python3 "$docs/trace_svg.py" marks "$f"); do
            [[ $marks == *" $m "* ]] || marks="$marks$m "
        done
    done
    sed '/^<!--/,/-->$/d' "$docs/templates/trace-legend.html" | while IFS= read -r line; do
        m=$(sed -n 's/^<li data-mark="\([^"]*\)".*/\1/p' <<<"$line")
        if [ -z "$m" ] || [[ $marks == *" $m "* ]]; then printf '%s\n' "$line"; fi
    done
}

# figure FILE ALT CAPTION FULL: one focused view, linked to its full run
# (FULL; none in print, where a link would lead to the machine that built
# the PDF).
figure() {
    if [ -n "$4" ]; then
        echo "<figure class=\"trace\"><a href=\"pictures/$4\"><img src=\"pictures/$1\" alt=\"$(html_esc "$2")\"></a><figcaption>$3 (<a href=\"pictures/$4\">the full run</a>)</figcaption></figure>"
    else
        echo "<figure class=\"trace\"><img src=\"pictures/$1\" alt=\"$(html_esc "$2")\"><figcaption>$3</figcaption></figure>"
    fi
}

# pictures_md LESSON SITE PRINT BOOK: the section "Pictures of the runs" for
# the lesson's page (SITE), its handout (PRINT) and the workbook (BOOK), one
# subsection per line of docs/pictures.list for the lesson: each run's
# focused view (docs/pictures.sh), captioned with what to look at in it (the
# list's ITS, LOCKSTEP and FIX) and linked to the full run. SITE and BOOK:
# legacy.cu under its and under lockstep, then the fix, sync.cu under its,
# in a row that wraps (one under the other on a phone); PRINT: legacy.cu
# under its beside the fix. Each opens with the legend as text, the items
# its pictures use. Nothing if docs/pictures.list has no line for the
# lesson.
pictures_md() {
    local lesson=$1 site=$2 print=$3 book=$4 l name args title steps its lock fix n=0 cmd legend
    local head short alt block
    rm -f "$site" "$print" "$book"
    while IFS='|' read -r l name args title steps its lock fix _ || [ -n "$l" ]; do
        case "$l" in ''|'#'*) continue ;; esac
        l=$(trim "$l") name=$(trim "$name") args=$(trim "$args") title=$(trim "$title")
        steps=$(trim "${steps-}") its=$(trim "${its-}") lock=$(trim "${lock-}") fix=$(trim "${fix-}")
        [ "$l" = "$lesson" ] || continue
        n=$((n + 1))
        short=${title#Lesson [0-9][0-9]: } short=${short^}
        cmd="make -C lessons/$l emu && warpsim/build/warpsim --trace mine.svg --trace-models lockstep,its${steps:+ --trace-steps $steps} lessons/$l/build/emu/legacy $args"
        if [ "$n" -eq 1 ]; then
            legend=$(legend_for "$lesson")
            head="Drawn by \`make docs\` from real runs of this lesson's programs on warpsim
(docs/pictures.sh, one line of docs/pictures.list each): warp 0 of block 0
in the program's first launch. Each picture shows the few lanes and rows of
its run that matter (the two accesses of a race, the lanes that waited and
where, the collective and its mask), one column per lane, the rows in the
order warpsim ran the steps, what happens in each row written at its right;
select a picture, or \"the full run\" under it, for the whole run as warpsim
drew it, all 32 lanes, with its legend."
            {
                echo; echo "## Pictures of the runs"; echo
                echo "$head"
                echo "Each demonstration: legacy.cu under warpsim's its model (independent thread"
                echo "scheduling, lanes apart, as Volta and later may run it) and under lockstep (the"
                echo "warp as pre-Volta GPUs ran it), then the fix, sync.cu, under its. To draw one"
                echo "yourself, run the command under it from the repository's root and open"
                echo "\`mine.svg\` in a browser; the same works for your own copy (\`build/emu/mine\`"
                echo "after \`make check SRC=mine.cu\`)."
                echo
                echo '```{=html}'
                echo "$legend"
                echo '```'
                echo
            } >"$site"
            {
                echo; echo "## Pictures of the runs"; echo
                echo "$head"
                echo "Here legacy.cu under its beside the fix, sync.cu under its; the lesson's page"
                echo "and the workbook show legacy.cu under lockstep too."
                echo
                echo '```{=html}'
                echo "$legend"
                echo '```'
                echo
            } >"$print"
            {
                echo; echo "## Pictures of the runs"; echo
                echo "$head"
                echo
                echo '```{=html}'
                echo "$legend"
                echo '```'
                echo
            } >"$book"
        fi
        alt="warpsim picture: $title"
        # runs FULL FULLSYNC: the three views of this line
        runs() {
            echo "### $short"
            echo
            echo '```{=html}'
            echo "<div class=\"trace-runs\">"
            figure "$l-$name.its.svg" "$alt, legacy.cu under its" \
                "<strong>legacy.cu under its.</strong> $(html_esc "$its")" "$1"
            figure "$l-$name.lockstep.svg" "$alt, legacy.cu under lockstep" \
                "<strong>legacy.cu under lockstep.</strong> $(html_esc "$lock")" "$1"
            figure "$l-$name.fix.svg" "$alt, the fix: sync.cu under its" \
                "<strong>The fix, sync.cu, under its.</strong> $(html_esc "$fix")" "$2"
            echo "</div>"
            echo '```'
        }
        block=$(runs "$l-$name.svg" "$l-$name.sync.svg")
        printf '%s\n\n' "$(runs "" "")" >>"$book"
        printf '%s\n\n%s\n\n' "$block" \
            "Draw it: \`$cmd\` (the fix: \`build/emu/sync\` and \`--model its\`)." >>"$site"
        {
            echo "### $short"
            echo
            echo '```{=html}'
            echo "<div class=\"trace-runs\">"
            figure "$l-$name.its.svg" "$alt, legacy.cu under its" \
                "<strong>legacy.cu under its</strong> (<code>legacy $(html_esc "$args")</code>). $(html_esc "$its")" ""
            figure "$l-$name.fix.svg" "$alt, the fix: sync.cu under its" \
                "<strong>The fix, sync.cu, under its.</strong> $(html_esc "$fix")" ""
            echo "</div>"
            echo '```'
            echo
        } >>"$print"
    done <"$docs/pictures.list"
}

# source_pages LESSON DIR BACK FILE...: DIR/FILE.html for each FILE (a copy
# of it is in DIR): the source shown as a page, highlighted, with links to
# the lesson, to the file itself and to the list of sources (BACK: the
# path from DIR to the site's root). A web host serves a .cu file as
# application/cu-seeme, a download; the page shows it.
source_pages() {
    local lesson=$1 dir=$2 back=$3 f lang rel
    shift 3
    for f in "$@"; do
        case "$f" in
            *.cu|*.cuh|*.h) lang='{.cuda .cpp}' ;;
            *.sh) lang='{.bash}' ;;
            *.py) lang='{.python}' ;;
            Makefile|*.mk) lang='{.makefile}' ;;
            *) lang='' ;;
        esac
        rel=lessons/${dir#"$out/src/"}/$f
        {
            printf -- '---\ntitle: %s\n---\n\n' "$(yaml_str "$rel")"
            echo '```{=html}'
            echo "<p class=\"lesson-files\">In <a href=\"$back$lesson.html\">$(title_html "$lesson")</a>. The file itself, to save it: <a href=\"$f\">$f</a>. <a href=\"${back}src/index.html\">Every source</a>.</p>"
            echo '```'
            echo
            echo "~~~~~~~~~~~~~~~~ $lang"
            cat "$dir/$f"
            echo "~~~~~~~~~~~~~~~~"
        } | pandoc --from markdown --syntax-definition "$docs/templates/cuda.xml" \
                "${page_args[@]}" | sed "s|href=\"style.css\"|href=\"${back}style.css\"|" \
            >"$dir/$f.html" || return 1
    done
}

echo "  PAGE    index.html"
pandoc "${common[@]}" "${index_args[@]}" -M page=docs/index.md \
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
            printf '%s[%s](src/%s/%s.html){.site}' "$sep" "$f" "$name" "$f"
            sep=", "
        done
        echo '."'
    } >"$out/.meta/$name.yaml"
    echo "  PAGE    $name.html"
    pics_site=$out/.meta/$name.pictures.md pics_print=$out/.meta/$name.pictures-print.md
    pics_book=$out/.meta/$name.pictures-book.md
    pictures_md "$name" "$pics_site" "$pics_print" "$pics_book"
    [ -f "$pics_site" ] || pics_site='' pics_print='' pics_book=''
    page "$root/lessons/$name/README.md" "$name" \
        -M "srcdir=$root/lessons/$name" -M "lesson=$name" &
    page_jobs+=("$!")
    pics_site='' pics_print='' pics_book=''
    mkdir -p "$out/src/$name"
    for f in "${files[@]}"; do cp "$root/lessons/$name/$f" "$out/src/$name/"; done
    source_pages "$name" "$out/src/$name" "../../" "${files[@]}" &
    page_jobs+=("$!")
done

for name in "${subpages[@]}"; do
    lesson=${name%-*} sub=${name##*-}
    echo "  PAGE    $name.html"
    echo "{}" >"$out/.meta/$name.yaml"
    page "$root/lessons/$lesson/$sub/README.md" "$name" \
        -M "srcdir=$root/lessons/$lesson/$sub" &
    page_jobs+=("$!")
    mkdir -p "$out/src/$lesson/$sub"
    files=()
    for f in "$root/lessons/$lesson/$sub"/*; do
        [ -f "$f" ] && [ "$(basename "$f")" != README.md ] && files+=("$(basename "$f")")
    done
    for f in "${files[@]}"; do cp "$root/lessons/$lesson/$sub/$f" "$out/src/$lesson/$sub/"; done
    source_pages "$lesson" "$out/src/$lesson/$sub" "../../../" "${files[@]}" &
    page_jobs+=("$!")
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
        # a source shown as a page (FILE.html) is listed once, as that page
        (cd "$dir" && find . -type f ! -name index.html | sed 's|^\./||' | LC_ALL=C sort) |
            while IFS= read -r f; do
                if [ -f "$dir/$f.html" ]; then
                    echo "- [$f]($f.html) (the file itself: [${f##*/}]($f))"
                elif [[ $f != *.html || ! -f "$dir/${f%.html}" ]]; then
                    echo "- [$f]($f)"
                fi
            done
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
for name in "${lessons[@]}" "${subpages[@]}" "${extra[@]}"; do indexed+=("$out/$name.html"); done
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
    if [ -n "$repo_url" ]; then
        echo "<p class=\"print-address\" data-footer=\"Warp-level CUDA, workbook - the code: $(html_esc "$repo_url") - code MIT, text CC BY 4.0\">The code: $(html_esc "$repo_url") (branch $repo_branch): each lesson in its folder lessons/NN-name/, the transcripts of the runs in docs/results/. Links point to those files.</p>"
    else
        echo "<p class=\"print-address\" data-footer=\"Warp-level CUDA, workbook - the code: lessons/NN-name/ of the course's repository - code MIT, text CC BY 4.0\">The code: each lesson is the folder lessons/NN-name/ of this course's repository, whose web address was not given when this workbook was made (ask whoever handed it out); the transcripts of the runs are in its docs/results/.</p>"
    fi
    echo "<p>Built from commit $commit on $(date -u '+%Y-%m-%d').</p>"
    echo '<nav class="toc"><h2>Contents</h2><ol>'
    for name in "${lessons[@]}" "${subpages[@]}" "${extra[@]}"; do
        t=$(title_html "$name")
        echo "<li><a href=\"#ch-$name\">$t</a></li>"
    done
    echo '</ol></nav></section>'
    for name in "${lessons[@]}" "${subpages[@]}" "${extra[@]}"; do
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

[ -n "$repo_url" ] ||
    echo "docs: no repository address (REPO_URL, or an https origin remote): the handouts say in words where the files are and link to none (make docs REPO_URL=https://...)"
echo "docs: $out/index.html, ${#lessons[@]} lesson pages, $(( ${#lessons[@]} + 1 )) PDFs in $out/handouts/"
