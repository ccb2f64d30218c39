#!/usr/bin/env bash
# docs/build.sh - builds the site and the handouts into docs/_build/
# (`make docs`):
#   index.html, one page per lesson (NN-name.html), glossary.html,
#   porting.html, lab.html, and the warpsim pages when warpsim/ is present;
#   handouts/NN-name.pdf (A4, one per lesson) and handouts/workbook.pdf.
# Pages come from the lesson READMEs and docs/*.md through Pandoc; code and
# run outputs are pulled in by filters/include.lua, links fixed by
# filters/links.lua. One stylesheet (style.css) serves screen and print; no
# page needs the network.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
docs=$root/docs
out=$docs/_build
max_pages=${MAX_PAGES:-4}

rm -rf "$out"
mkdir -p "$out/handouts" "$out/src" "$out/results" "$out/.frag"
cp "$docs/style.css" "$out/"
cp -r "$docs/results/." "$out/results/"

common=(--from markdown --highlight-style=tango
        --lua-filter "$docs/filters/include.lua" --lua-filter "$docs/filters/links.lua"
        -M "root=$root")
page_args=(--standalone --toc --toc-depth=2 --css style.css
           --include-before-body "$docs/nav.html"
           --include-after-body "$docs/footer.html")

# page SRC.md NAME [pandoc args...]: NAME.html and its body for the workbook.
page() {
    local src=$1 name=$2; shift 2
    pandoc "${common[@]}" "${page_args[@]}" -M "page=${src#"$root"/}" "$@" \
        "$src" -o "$out/$name.html"
    pandoc "${common[@]}" -M "page=${src#"$root"/}" "$@" "$src" -o "$out/.frag/$name.html"
}

lessons=()
for dir in "$root"/lessons/[0-9][0-9]-*/; do
    [ -f "$dir/README.md" ] || continue
    lessons+=("$(basename "$dir")")
done

# The lesson list on the index page: each lesson's title and first sentence.
list=$out/.frag/lesson-list.md
{
    echo "## The lessons"
    echo
    for name in "${lessons[@]}"; do
        readme=$root/lessons/$name/README.md
        title=$(sed -n 's/^# //p' "$readme" | head -n 1)
        echo "- [$title]($name.html)"
    done
    echo
} >"$list"

echo "  PAGE    index.html"
pandoc "${common[@]}" "${page_args[@]}" -M page=docs/index.md --shift-heading-level-by=-1 \
    "$docs/index.md" "$list" -o "$out/index.html"

for name in "${lessons[@]}"; do
    echo "  PAGE    $name.html"
    page "$root/lessons/$name/README.md" "$name" --shift-heading-level-by=-1 \
        -M "srcdir=$root/lessons/$name" -M "lesson=$name"
    mkdir -p "$out/src/$name"
    cp "$root/lessons/$name"/*.cu "$root/lessons/$name"/check.sh \
       "$root/lessons/$name"/Makefile "$out/src/$name/"
done

extra=()
shopt -s nullglob
for md in "$docs"/pages/*.md; do
    name=$(basename "$md" .md)
    echo "  PAGE    $name.html"
    page "$md" "$name" --shift-heading-level-by=-1 -M "srcdir=$root"
    extra+=("$name")
done

# Handouts: the same pages, printed with the stylesheet's print rules.
for name in "${lessons[@]}"; do
    echo "  PDF     handouts/$name.pdf"
    weasyprint -q "$out/$name.html" "$out/handouts/$name.pdf"
    pages=$(pdfinfo "$out/handouts/$name.pdf" | sed -n 's/^Pages: *//p')
    if [ "$pages" -gt "$max_pages" ]; then
        echo "docs/build.sh: handouts/$name.pdf has $pages pages, more than $max_pages" >&2
        exit 1
    fi
done

echo "  PDF     handouts/workbook.pdf"
{
    echo '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
    echo '<title>Warp-level CUDA, lesson by lesson: workbook</title>'
    echo '<link rel="stylesheet" href="style.css"></head><body>'
    echo '<h1 class="title">Warp-level CUDA, lesson by lesson</h1>'
    echo '<p>The workbook: every lesson, the glossary and the porting guide.</p>'
    for name in "${lessons[@]}" "${extra[@]}"; do
        title=$(sed -n 's:.*<title>\(.*\)</title>.*:\1:p' "$out/$name.html" | head -n 1)
        echo "<section class=\"chapter\"><h1>$title</h1>"
        cat "$out/.frag/$name.html"
        echo '</section>'
    done
    echo '</body></html>'
} >"$out/workbook.html"
weasyprint -q "$out/workbook.html" "$out/handouts/workbook.pdf"
rm -rf "$out/.frag" "$out/workbook.html"

echo "docs: $out/index.html, ${#lessons[@]} lesson pages, $(( ${#lessons[@]} + 1 )) PDFs in $out/handouts/"
