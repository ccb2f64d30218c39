#!/usr/bin/env bats
# make docs, make doctor, make grade and the lab tooling.

setup_file() {
    load helper
    build_docs
}

setup() {
    load helper
    B=$REPO/docs/_build
}

# page_text FILE.html: the text a reader sees, tags dropped, entities decoded.
page_text() {
    python3 -c 'import html, re, sys
print(html.unescape(re.sub(r"<[^>]*>", "", open(sys.argv[1], encoding="utf-8").read())))' "$1"
}

# lessons_built: the lessons that have a page.
lessons_built() {
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        name=$(basename "$d")
        [ -f "$B/$name.html" ] && echo "$name"
    done
}

@test "make docs builds the index, a page and a handout per lesson, and the workbook" {
    [ -f "$B/index.html" ]
    [ -f "$B/handouts/workbook.pdf" ]
    [ -f "$B/style.css" ]
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        name=$(basename "$d")
        [ -f "$d/README.md" ] || continue   # a lesson without its text yet
        [ -f "$B/$name.html" ] || fail "no page for $name"
        [ -f "$B/handouts/$name.pdf" ] || fail "no handout for $name"
    done
    for p in glossary porting lab; do [ -f "$B/$p.html" ] || fail "no $p.html"; done
}

@test "every internal link and image in the site resolves" {
    local bad=0
    for page in "$B"/*.html; do
        while IFS= read -r target; do
            case "$target" in
                http:*|https:*|mailto:*|'#'*) continue ;;
            esac
            file=${target%%#*}
            if [[ "$file" == /* || "$file" == ../* || "$file" == */../* ]] || [ ! -e "$B/$file" ]; then
                echo "$(basename "$page"): broken link $target"
                bad=$((bad + 1))
            fi
        done < <(grep -oE '(href|src)="[^"]*"' "$page" | sed -E 's/^(href|src)="//; s/"$//')
    done
    [ "$bad" -eq 0 ]
}

@test "pages need no network: no remote stylesheet, script or image" {
    run grep -lE '(src|href)="https?://[^"]*\.(css|js|png|svg|woff2?)' "$B"/*.html
    assert_failure
}

@test "code shown in the pages is pulled from the sources, not pasted" {
    # every function a lesson page pulls in shows its signature line as in the source
    local n=0
    for readme in "$REPO"/lessons/[0-9][0-9]-*/README.md; do
        dir=$(dirname "$readme"); name=$(basename "$dir")
        [ -f "$B/$name.html" ] || continue
        text=$(page_text "$B/$name.html")
        while read -r file func; do
            sig=$(grep -m 1 -E "^[^ #/*].*[ *]$func\(" "$dir/$file")
            [ -n "$sig" ] || fail "$name: no $func in $file"
            [[ "$text" == *"$sig"* ]] || fail "$name.html lacks '$sig' from $file"
            n=$((n + 1))
        done < <(sed -nE 's/.*include="([^"]+)" function="([^"]+)".*/\1 \2/p' "$readme")
    done
    echo "$n functions checked"
    [ "$n" -ge 6 ]
    # and the run output carries its GPU and date
    run grep -E '# (GPU|date): ' "$B/01-shfl-reduction.html"
    assert_success
}

@test "an include marker that names nothing stops the build and names the page" {
    cat >"$BATS_TEST_TMPDIR/page.md" <<'MD'
```{.c include="legacy.cu" function="no_such_function"}
```
MD
    run pandoc --lua-filter "$REPO/docs/filters/include.lua" \
        -M "srcdir=$REPO/lessons/01-shfl-reduction" -M page=page.md "$BATS_TEST_TMPDIR/page.md"
    assert_failure
    assert_output --partial 'page.md: no function no_such_function in legacy.cu'
    cat >"$BATS_TEST_TMPDIR/page.md" <<'MD'
```{.output transcript="01-shfl-reduction.gpu.txt" match="no such line in any run"}
```
MD
    run pandoc --lua-filter "$REPO/docs/filters/include.lua" -M "root=$REPO" \
        -M page=page.md "$BATS_TEST_TMPDIR/page.md"
    assert_failure
    assert_output --partial "no line containing 'no such line in any run'"
}

@test "each lesson handout is A4, at most 6 pages, its body text 9 pt or more and nothing under 6.5 pt" {
    for pdf in "$B"/handouts/[0-9][0-9]-*.pdf; do
        pages=$(pdfinfo "$pdf" | sed -n 's/^Pages: *//p')
        size=$(pdfinfo "$pdf" | sed -n 's/^Page size: *//p')
        echo "$(basename "$pdf"): $pages pages, $size"
        [ "$pages" -le 6 ]
        [[ "$size" == *"(A4)"* ]]
    done
    # the type as printed, every character's size read back with PyMuPDF:
    # the size most characters have (the body) and the smallest of all,
    # pictures and page footers included
    run /usr/bin/python3 - "$B"/handouts/*.pdf <<'PY'
import collections, os, sys
import fitz
ok = True
for path in sys.argv[1:]:
    chars = collections.Counter()
    for page in fitz.open(path):
        for block in page.get_text("dict")["blocks"]:
            for line in block.get("lines", []):
                for span in line["spans"]:
                    n = len(span["text"].strip())
                    if n:
                        chars[round(span["size"], 2)] += n
    body = chars.most_common(1)[0][0]
    small = min(chars)
    print(f"{os.path.basename(path)}: body {body:.2f} pt, smallest {small:.2f} pt "
          f"({chars[small]} characters)")
    ok = ok and body >= 8.99 and small >= 6.49
sys.exit(0 if ok else 1)
PY
    echo "$output"
    assert_success
}

@test "every page says its language and has one title, larger than its section headings" {
    for page in "$B"/*.html "$B"/src/index.html "$B"/results/index.html; do
        grep -q '<html lang="en">' "$page" || fail "$page: no lang"
        [ "$(grep -c '<h1' "$page")" -eq 1 ] || fail "$page: not exactly one h1"
    done
    # the title's size is larger than h2's and h3's, on screen and in print
    run python3 - "$REPO/docs/style.css" <<'PY'
import re, sys
css = open(sys.argv[1]).read()
screen, _, printed = css.partition("@media print")
def size(part, sel):
    m = re.search(re.escape(sel) + r"[^{]*\{[^}]*font-size:\s*([\d.]+)rem", part)
    return float(m.group(1)) if m else None
for name, part in (("screen", screen), ("print", printed)):
    t, h2, h3 = size(part, "h1.title"), size(part, "\nh2") or size(part, " h2"), size(part, "\nh3") or size(part, " h3")
    print(name, t, h2, h3)
    assert t and h2 and h3 and t > h2 > h3, name
PY
    assert_success
}

@test "code colours have at least 4.5:1 contrast on the code backgrounds" {
    run python3 - "$REPO/docs/style.css" <<'PY'
import re, sys
css = open(sys.argv[1]).read()
def lum(h):
    c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
rules = re.findall(r"((?:code span\.\w+,?\s*)+)\{[^}]*?color:\s*(#[0-9a-fA-F]{6})", css)
assert len(rules) >= 10, rules
worst = 99
for sels, colour in rules:
    for bg in ("#f6f7f8", "#fbfbf4"):
        hi, lo = sorted((lum(colour), lum(bg)), reverse=True)
        ratio = (hi + 0.05) / (lo + 0.05)
        worst = min(worst, ratio)
        print(f"{sels.strip()} {colour} on {bg}: {ratio:.2f}")
        assert ratio >= 4.5, sels
print(f"worst {worst:.2f}")
PY
    assert_success
    # and the stylesheet holds no var(): WeasyPrint drops shorthands that use it
    run grep -n 'var(' "$REPO/docs/style.css"
    assert_failure
}

@test "CUDA qualifiers and warp intrinsics are highlighted in the lesson pages" {
    printf '%s\n' '```{.cuda .cpp}' '__global__ void k(int *x) {' '    __shared__ int s[32];' \
        '    s[threadIdx.x] = __shfl_down_sync(0xffffffffu, *x, 1);' '}' '```' >"$BATS_TEST_TMPDIR/k.md"
    run pandoc --syntax-definition "$REPO/docs/templates/cuda.xml" "$BATS_TEST_TMPDIR/k.md"
    assert_success
    assert_output --partial '<span class="kw">__global__</span>'
    assert_output --partial '<span class="kw">__shared__</span>'
    assert_output --partial '<span class="bu">threadIdx</span>'
    assert_output --partial '<span class="fu">__shfl_down_sync</span>'
    # and the lesson pages use it
    run grep -ho '<span class="kw">__device__</span>' "$B"/[0-9][0-9]-*.html
    assert_success
}

@test "lessons link to the previous and next lesson, their handout and their sources" {
    mapfile -t names < <(lessons_built)
    [ "${#names[@]}" -ge 3 ]
    for i in "${!names[@]}"; do
        page=$B/${names[$i]}.html
        grep -q "href=\"handouts/${names[$i]}.pdf\"" "$page" || fail "${names[$i]}: no handout link"
        grep -q "href=\"src/${names[$i]}/sync.cu.html\"" "$page" || fail "${names[$i]}: no sources link"
        [ -f "$B/src/${names[$i]}/sync.cu" ] || fail "no src/${names[$i]}/sync.cu"
        # a page that shows the source (a host serves .cu as a download),
        # its code highlighted, beside the file itself
        grep -q '<span class="kw">__global__</span>\|<span class="kw">__device__</span>' \
            "$B/src/${names[$i]}/sync.cu.html" || fail "src/${names[$i]}/sync.cu.html shows no code"
        grep -q 'href="sync.cu"' "$B/src/${names[$i]}/sync.cu.html" || fail "sync.cu.html: no link to the file"
        if [ "$i" -gt 0 ]; then
            grep -q "rel=\"prev\" href=\"${names[$((i - 1))]}.html\"" "$page" || fail "${names[$i]}: no prev"
        fi
        if [ $((i + 1)) -lt "${#names[@]}" ]; then
            grep -q "rel=\"next\" href=\"${names[$((i + 1))]}.html\"" "$page" || fail "${names[$i]}: no next"
        fi
    done
}

@test "the index shows each lesson's first sentence and links its handout" {
    text=$(page_text "$B/index.html")
    for name in $(lessons_built); do
        readme=$REPO/lessons/$name/README.md
        # the first six words of the lesson's first paragraph, Markdown dropped
        words=$(awk '/^# / { s = 1; next } s && NF { print; exit }' "$readme" |
                tr -d '`*' | awk '{ print $1, $2, $3, $4, $5, $6 }')
        [[ "$text" == *"$words"* ]] || fail "index lacks '$words' of $name"
        grep -q "href=\"handouts/$name.pdf\"" "$B/index.html" || fail "index: no handout of $name"
    done
    grep -q 'href="handouts/workbook.pdf"' "$B/index.html"
}

@test "the text's mentions of a lesson become links, except in code and on its own page" {
    printf '%s\n' 'As lesson 03 shows (lesson 02), lessons 04 to 06; `lesson 01`; here lesson 05.' \
        >"$BATS_TEST_TMPDIR/page.md"
    run pandoc --wrap=none --lua-filter "$REPO/docs/filters/links.lua" -M lesson=05-aggregated-atomics \
        -M "lessons=01-a 02-b 03-c 04-d 05-aggregated-atomics 06-f" "$BATS_TEST_TMPDIR/page.md"
    assert_success
    echo "$output"
    assert_output --partial '<a href="03-c.html">lesson 03</a>'
    assert_output --partial '(<a href="02-b.html">lesson 02</a>)'
    assert_output --partial '<a href="04-d.html">lessons 04</a>'
    assert_output --partial '<a href="06-f.html">06</a>'
    assert_output --partial '<code>lesson 01</code>'
    assert_output --partial 'here lesson 05.'
}

@test "handouts link to the repository, never to the machine that built them, and print no placeholder" {
    for pdf in "$B"/handouts/*.pdf; do
        run grep -a -c 'file://' "$pdf"
        [ "$output" = 0 ] || fail "$(basename "$pdf"): $output file:// links"
        run bash -c "pdftotext '$pdf' - | grep -c 'SET-REPO_URL'"
        [ "$output" = 0 ] || fail "$(basename "$pdf") prints a placeholder address"
        grep -a -q 'SET-REPO_URL' "$pdf" && fail "$(basename "$pdf") links to a placeholder"
    done
    run grep -l 'SET-REPO_URL' "$B"/*.html
    assert_failure
    # the address, or where the code is in words, under the title and at the
    # foot of every page of a handout
    want=$("$REPO/docs/build.sh" --address)
    run bash -c "pdftotext -f 1 -l 1 '$B/handouts/04-match-any.pdf' - | tr '\n' ' '"
    if [ -n "$want" ]; then
        assert_output --partial "The code: $want, folder lessons/04-match-any/"
    else
        assert_output --partial "The code: the folder lessons/04-match-any/ of this course's repository"
        assert_output --partial "ask whoever handed it out"
    fi
    pages=$(pdfinfo "$B/handouts/04-match-any.pdf" | sed -n 's/^Pages: *//p')
    run bash -c "pdftotext -f $pages -l $pages '$B/handouts/04-match-any.pdf' - | tr '\n' ' '"
    where="lessons/04-match-any/ of the course's repository"
    assert_output --partial "the code: ${want:-$where}"
    # REPO_URL sets where they point
    printf '%s\n' '[x](legacy.cu) [y](../02-b/README.md) [z](#here) [r](../../docs/results/a.txt)' \
        >"$BATS_TEST_TMPDIR/page.md"
    run pandoc --wrap=none --lua-filter "$REPO/docs/filters/links.lua" -M lesson=01-a \
        -M page=lessons/01-a/README.md -M repo-url=https://example.org/r "$BATS_TEST_TMPDIR/page.md"
    assert_output --partial 'href="https://example.org/r/blob/main/lessons/01-a/legacy.cu"'
    assert_output --partial 'href="https://example.org/r/blob/main/lessons/02-b/README.md"'
    assert_output --partial 'href="https://example.org/r/blob/main/docs/results/a.txt"'
    assert_output --partial 'href="#here"'
    # with no address known, a handout's link to a repository file is its text
    run pandoc --wrap=none --lua-filter "$REPO/docs/filters/links.lua" -M lesson=01-a \
        -M page=lessons/01-a/README.md -M print=true "$BATS_TEST_TMPDIR/page.md"
    assert_output --partial '<span>x</span>'
    assert_output --partial '<span>r</span>'
    assert_output --partial 'href="#here"'
    refute_output --partial 'legacy.cu"'
    # and on the site, the same links resolve against the page's folder
    printf '%s\n' '[r](../results/a.txt) [p](gpus.md) [l](../../lessons/02-b/README.md)' \
        >"$BATS_TEST_TMPDIR/page.md"
    run pandoc --wrap=none --lua-filter "$REPO/docs/filters/links.lua" -M page=docs/pages/lab.md \
        "$BATS_TEST_TMPDIR/page.md"
    assert_output --partial 'href="results/a.txt"'
    assert_output --partial 'href="gpus.html"'
    assert_output --partial 'href="02-b.html"'
}

@test "the workbook opens with a cover that lists what it holds and a table of contents" {
    run pdftotext -f 1 -l 2 "$B/handouts/workbook.pdf" -
    assert_success
    assert_output --partial 'Contents'
    n=$(lessons_built | wc -l)
    assert_output --partial "the $n lessons and the"
    for name in $(lessons_built); do
        title=$(sed -n 's/^# //p' "$REPO/lessons/$name/README.md" | head -n 1 | tr -d '`' | cut -c 1-30)
        [[ "$output" == *"$title"* ]] || fail "contents lack '$title'"
    done
}

@test "search finds a lesson by a word of its text, from an index built with the docs" {
    [ -f "$B/search.html" ]
    grep -q 'src="search-index.js"' "$B/search.html"
    run grep -c '"page":"03-syncwarp-races.html"' "$B/search-index.js"
    assert_success
    grep -q 'action="search.html"' "$B/index.html"
}

@test "a stylesheet rule WeasyPrint ignores stops the handouts, with its warning shown" {
    t=$BATS_TEST_TMPDIR
    printf '%s\n' ':root { --rule: #888; }' 'table { border: 1px solid var(--rule); }' >"$t/bad.css"
    printf '%s\n' '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' \
        '<link rel="stylesheet" href="bad.css"></head><body><table><tr><td>x</td></tr></table></body></html>' \
        >"$t/bad.html"
    run "$REPO/docs/build.sh" --print "$t/bad.html" "$t/bad.pdf"
    assert_failure 1
    assert_output --partial 'WARNING: Ignored `border: 1px solid var(--rule)`'
    assert_output --partial 'weasyprint warned while printing'
    # the site's own stylesheet prints without a warning
    cp "$REPO/docs/style.css" "$t/bad.css"
    run "$REPO/docs/build.sh" --print "$t/bad.html" "$t/bad.pdf"
    assert_success
    [ -z "$output" ]
}

@test "a web-only block is left out of a lesson's handout and kept in the workbook" {
    t=$BATS_TEST_TMPDIR
    cp "$REPO/docs/style.css" "$t/"
    printf '%s\n' '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' \
        '<link rel="stylesheet" href="style.css"></head><body><p>always here</p>' \
        '<div class="web-only"><p>appendix text</p></div></body></html>' >"$t/a.html"
    sed 's/<body>/<body class="workbook">/' "$t/a.html" >"$t/b.html"
    "$REPO/docs/build.sh" --print "$t/a.html" "$t/a.pdf"
    "$REPO/docs/build.sh" --print "$t/b.html" "$t/b.pdf"
    run pdftotext "$t/a.pdf" -
    assert_output --partial 'always here'
    refute_output --partial 'appendix text'
    run pdftotext "$t/b.pdf" -
    assert_output --partial 'appendix text'
}

@test "make doctor runs anywhere, says what each target will do, and exits 0" {
    run make --no-print-directory -C "$REPO" doctor
    assert_success
    assert_output --partial 'make check'
    assert_output --partial 'make docs'
    assert_line --regexp '^  nvcc '
    assert_line --regexp '^  GPU '
    assert_line --regexp '^  make pascal '
    assert_line --regexp '^  make compat '
    assert_line --regexp '^  make grade '
}

@test "make test JUNIT=dir asks bats for a JUnit report" {
    run make -n --no-print-directory -C "$REPO" test JUNIT=reports
    assert_success
    assert_output --partial '--report-formatter junit --output reports'
}

# list_lines: docs/pictures.list's lines, fields trimmed and separated by
# the unit separator (\037: a tab would run empty fields together in read):
# LESSON NAME ARGS TITLE STEPS ITS LOCKSTEP FIX LANES.
list_lines() {
    awk -F' [|] ' '!/^#/ && NF { for (i = 1; i <= NF; i++) { gsub(/^ +| +$/, "", $i); printf "%s%s", $i, (i < NF ? "\037" : "\n") } }' \
        "$REPO/docs/pictures.list"
}

@test "every demonstration in docs/pictures.list has its pictures on its lesson page: each run's focused view, captioned and linked to the full run" {
    local n=0 lesson name title its lock fix
    while IFS=$'\037' read -r lesson name _ title _ its lock fix _; do
        [ -f "$REPO/lessons/$lesson/README.md" ] || continue
        for svg in "$lesson-$name".{svg,sync.svg,its.svg,lockstep.svg,fix.svg}; do
            [ -s "$B/pictures/$svg" ] || fail "no picture $svg"
            grep -q '</svg>' "$B/pictures/$svg" || fail "$svg is not a whole SVG"
        done
        # the full runs: both models side by side, and the fix, with warpsim's
        # legend completed and no clock column
        grep -q 'model lockstep' "$B/pictures/$lesson-$name.svg" || fail "$lesson-$name.svg has no lockstep run"
        grep -q 'model its' "$B/pictures/$lesson-$name.svg" || fail "$lesson-$name.svg has no its run"
        for svg in "$lesson-$name".{svg,sync.svg}; do
            grep -q '>Legend<' "$B/pictures/$svg" || fail "$svg has no legend"
            grep -q 'a dashed line between two crossed circles' "$B/pictures/$svg" || fail "$svg: legend not completed"
            grep -q 'zz N under a line number' "$B/pictures/$svg" || fail "$svg: no sleep label in the legend"
            grep -q 'class="c"' "$B/pictures/$svg" && fail "$svg still has its clock column"
        done
        # the page: each focused view, linked to its full run, with its caption
        for v in its lockstep; do
            grep -q "<a href=\"pictures/$lesson-$name.svg\"><img src=\"pictures/$lesson-$name.$v.svg\"" "$B/$lesson.html" ||
                fail "$lesson.html: the $v view does not link to $lesson-$name.svg"
        done
        grep -q "<a href=\"pictures/$lesson-$name.sync.svg\"><img src=\"pictures/$lesson-$name.fix.svg\"" "$B/$lesson.html" ||
            fail "$lesson.html: the fix view does not link to $lesson-$name.sync.svg"
        run page_text "$B/$lesson.html"
        assert_output --partial "legacy.cu under its. $its (the full run)"
        assert_output --partial "legacy.cu under lockstep. $lock (the full run)"
        assert_output --partial "The fix, sync.cu, under its. $fix (the full run)"
        n=$((n + 1))
    done < <(list_lines)
    echo "$n demonstrations"
    [ "$n" -ge 7 ]
    run page_text "$B/01-shfl-reduction.html"
    assert_output --partial "Pictures of the runs"
    assert_output --partial "warpsim/build/warpsim --trace mine.svg --trace-models lockstep,its lessons/01-shfl-reduction/build/emu/legacy -k 1"
    # the legend is text, once per page
    [ "$(grep -c '<ul class="trace-legend">' "$B/01-shfl-reduction.html")" -eq 1 ]
    assert_output --partial "a dashed line joins the race's two accesses"
}

@test "every caption's file:line, mask and lane claims are in its picture's own text, and the legend explains every mark the pictures use" {
    local n=0 lesson name its lock fix caption v marks m
    while IFS=$'\037' read -r lesson name _ _ _ its lock fix _; do
        [ -f "$REPO/lessons/$lesson/README.md" ] || continue
        for v in its lockstep fix; do
            case $v in its) caption=$its ;; lockstep) caption=$lock ;; fix) caption=$fix ;; esac
            run python3 "$REPO/docs/trace_svg.py" check "$B/pictures/$lesson-$name.$v.svg" "$caption"
            [ "$status" -eq 0 ] || fail "$output"
            n=$((n + 1))
        done
        # each mark a picture uses has its item in the legend of its page
        marks=$(cat "$B/pictures/$lesson-$name".{its,lockstep,fix}.svg | grep -o 'data-marks="[^"]*"' |
                sed 's/data-marks="//; s/"//' | tr ' ' '\n' | sort -u)
        for m in $marks; do
            grep -q "<li data-mark=\"$m\">" "$B/$lesson.html" || fail "$lesson.html's legend lacks the mark $m"
        done
    done < <(list_lines)
    echo "$n captions checked"
    [ "$n" -ge 21 ]
    # a caption that names what its picture lacks is caught
    f=$B/pictures/01-shfl-reduction-tree.its.svg
    run python3 "$REPO/docs/trace_svg.py" check "$f" "lane 0 reads r[2] at legacy.cu:46, as lanes 5 and 9 do at legacy.cu:999 with 0xfffffff0"
    assert_failure 1
    assert_output --partial "names legacy.cu:999, which the picture does not show"
    assert_output --partial "names 0xfffffff0, which the picture does not show"
    assert_output --partial "(lane 5)"
    assert_output --partial "(lane 9)"
    run python3 "$REPO/docs/trace_svg.py" check "$f" "lane 0 reads r[2] at legacy.cu:46"
    assert_success
}

@test "every lesson's handout shows every demonstration: legacy.cu under its beside the fix, with what to look at" {
    local lesson name title count=0 lessons=" " want got
    while IFS=$'\037' read -r lesson name _ title _; do
        [ -f "$REPO/lessons/$lesson/README.md" ] || continue
        title=${title#Lesson [0-9][0-9]: } title=${title^}
        text=$(pdftotext "$B/handouts/$lesson.pdf" - | tr '\n' ' ' | tr -s ' ')
        [[ "$text" == *"$title"* ]] || fail "$lesson's handout lacks the demonstration '$title'"
        [ "${lessons#* "$lesson" }" = "$lessons" ] && lessons="$lessons$lesson "
        count=$((count + 1))
    done < <(list_lines)
    for lesson in $lessons; do
        want=$(grep -c "^$lesson |" "$REPO/docs/pictures.list")
        run bash -c "pdftotext '$B/handouts/$lesson.pdf' - | tr '\n' ' '"   # lines joined
        assert_output --partial "Pictures of the runs"
        assert_output --partial "a lane's number heads its column"   # the legend
        # each picture is in the PDF as drawn, text and all, with its caption
        got=$(grep -oE 'legacy.cu under its \( ?legacy ' <<<"$output" | wc -l)
        [ "$got" -eq "$want" ] || fail "$lesson's handout shows $got pictures of legacy.cu for its $want demonstrations"
        got=$(grep -o 'The fix, sync.cu, under its\.' <<<"$output" | wc -l)
        [ "$got" -eq "$want" ] || fail "$lesson's handout has $got pictures of the fix for $want demonstrations"
    done
    echo "$count demonstrations in the handouts of:$lessons"
    [ "$(wc -w <<<"$lessons")" -ge 7 ]
}

@test "a caption that names a line, a mask or a lane its picture does not show fails docs/pictures.sh" {
    local list=$BATS_TEST_TMPDIR/stale.list
    grep '^01-shfl-reduction | tree ' "$REPO/docs/pictures.list" |
        sed 's/legacy\.cu:46/legacy.cu:999/; s/0xffffffff) at sync/0xfffffff0) at sync/' >"$list"
    run "$REPO/docs/pictures.sh" -l "$list" -o "$BATS_TEST_TMPDIR/p"
    echo "$output"
    assert_failure 1
    assert_line --partial "01-shfl-reduction-tree.its.svg: the caption names legacy.cu:999, which the picture does not show"
    assert_line --partial "01-shfl-reduction-tree.fix.svg: the caption names 0xfffffff0, which the picture does not show"
    assert_line "pictures.sh: 01-shfl-reduction tree: the its view is not drawn as captioned (above)"
    # the lines are drawn side by side, PICTURE_JOBS at a time: a number
    PICTURE_JOBS=abc run --separate-stderr "$REPO/docs/pictures.sh" -l "$list" -o "$BATS_TEST_TMPDIR/p"
    assert_failure 2
    assert_equal "$stderr" "pictures.sh: PICTURE_JOBS=abc: how many lines are drawn at once, a number from 1"
}

@test "focused views are 400 px wide with every text 14 px, no two texts overlapping, few lanes and rows" {
    local f n=0
    for f in "$B"/pictures/*.{its,lockstep,fix}.svg; do
        run python3 - "$f" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
head = re.search(r"<svg[^>]*>", svg).group(0)
width = float(re.search(r' width="([\d.]+)"', head).group(1))
height = float(re.search(r' height="([\d.]+)"', head).group(1))
sizes = {float(v) for v in re.findall(r'font-size="([\d.]+)"', svg)}
lanes = re.search(r'data-lanes="([^"]*)"', head).group(1).split(",")
print(f"{sys.argv[1]}: {width:g} x {height:g} px, text {sorted(sizes)} px, lanes {','.join(lanes)}")
assert width == 400 and sizes == {14.0}, "not 400 px wide with 14 px text"
assert 1 <= len(lanes) <= 6 and height <= 760, "too many lanes or rows"
PY
        [ "$status" -eq 0 ] || fail "$output"
        run python3 "$REPO/docs/trace_svg.py" overlaps "$f"
        [ "$status" -eq 0 ] || fail "$output"
        n=$((n + 1))
    done
    echo "$n focused views"
    [ "$n" -ge 21 ]
}

@test "docs/trace_svg.py reads warpsim's pictures, and says so when a file is not one" {
    t=$BATS_TEST_TMPDIR
    run python3 "$REPO/docs/trace_svg.py" --help
    assert_success
    assert_output --partial 'trace_svg.py focus PICTURE.svg'
    run python3 "$REPO/docs/trace_svg.py" focus
    assert_failure 2
    run python3 "$REPO/docs/trace_svg.py" focus "$B/pictures/01-shfl-reduction-tree.svg" "$t/x.svg" --lanes two
    assert_failure 2
    assert_output 'trace_svg.py: --lanes takes lane numbers, such as 0,2,16'
    printf '%s\n' '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>' >"$t/x.svg"
    run python3 "$REPO/docs/trace_svg.py" full "$t/x.svg" "$t/y.svg"
    assert_failure 1
    assert_output 'trace_svg.py: no legend in the picture (not drawn by warpsim --trace?)'
    run python3 "$REPO/docs/trace_svg.py" focus "$B/pictures/01-shfl-reduction-tree.sync.svg" "$t/y.svg" --run lockstep
    assert_failure 1
    assert_output 'trace_svg.py: no run of model lockstep in the picture'
    # a focused view of a race: its two lanes, each access ringed, the race
    # said in words at the right
    python3 "$REPO/docs/trace_svg.py" focus "$B/pictures/03-syncwarp-races-tree.svg" "$t/r.svg" --run its
    grep -q 'data-lanes="1,17"' "$t/r.svg"
    [ "$(grep -o '<circle' "$t/r.svg" | wc -l)" -eq 2 ]
    grep -q 'race 1: lane 1 reads shmem\[17\] at' "$t/r.svg"
    # --lanes chooses the columns
    python3 "$REPO/docs/trace_svg.py" focus "$B/pictures/01-shfl-reduction-tree.sync.svg" "$t/f.svg" --lanes 0,31
    grep -q 'data-lanes="0,31"' "$t/f.svg"
}

@test "docs/build.sh --address: REPO_URL, else an https origin, else nothing" {
    t=$BATS_TEST_TMPDIR/tree
    mkdir -p "$t/docs"
    cp "$REPO/docs/build.sh" "$t/docs/"
    git -C "$t" init -q
    run "$t/docs/build.sh" --address
    assert_success
    assert_output ''
    git -C "$t" remote add origin https://github.com/someone/warp-lessons.git
    run "$t/docs/build.sh" --address
    assert_output 'https://github.com/someone/warp-lessons'
    git -C "$t" remote set-url origin git@github.com:someone/warp-lessons.git
    run "$t/docs/build.sh" --address
    assert_output ''
    git -C "$t" remote set-url origin https://user:secret@example.org/r.git
    run "$t/docs/build.sh" --address
    assert_output ''
    REPO_URL=https://example.org/lessons run "$t/docs/build.sh" --address
    assert_output 'https://example.org/lessons'
}

@test "docs/handout.list leaves a section out of a lesson's handout and says so; a heading that matches nothing stops the build" {
    local md=$BATS_TEST_TMPDIR/lesson.md
    printf '%s\n' '# Lesson' '' '## The fix' '' 'kept' '' '## Appendix: timings' '' 'dropped text' \
        '' '### A table' '' 'dropped too' '' '## What to remember' '' 'kept too' >"$md"
    run pandoc --from markdown --to plain --lua-filter "$REPO/docs/filters/handout.lua" \
        -M "handout-omit=Appendix:" "$md"
    echo "$output"
    assert_success
    assert_output --partial "kept too"
    refute_output --partial "dropped"
    assert_output --partial "Not in this handout, for room"
    assert_output --partial "Appendix: timings"
    run pandoc --from markdown --to plain --lua-filter "$REPO/docs/filters/handout.lua" \
        -M "handout-omit=No such heading" "$md"
    assert_failure
    assert_output --partial "handout.lua: no section of this lesson starts with 'No such heading' (docs/handout.list)"
    # every line of the real list names a section of its lesson, and its handout leaves it out
    while IFS='|' read -r lesson heading; do
        case "$lesson" in ''|'#'*) continue ;; esac
        lesson=${lesson// /} heading=$(sed 's/^ *//; s/ *$//' <<<"$heading")
        grep -q "^## $heading" "$REPO/lessons/$lesson/README.md" || fail "$lesson has no section '$heading'"
        pdftotext "$B/handouts/$lesson.pdf" - | grep -q "Not in this handout, for room" ||
            fail "$lesson's handout does not say what it left out"
    done <"$REPO/docs/handout.list"
}

@test "a link to a transcript not recorded yet is its text, not a dead link" {
    md=$BATS_TEST_TMPDIR/page.md
    printf '%s\n' '[there](../../docs/results/compat.txt) and [later](../../docs/results/no-such-run.gpu.txt)' >"$md"
    run pandoc --from markdown --to html --wrap=none --lua-filter "$REPO/docs/filters/links.lua" \
        -M "root=$REPO" -M page=docs/pages/x.md "$md"
    echo "$output"
    assert_success
    assert_output --partial '<a href="results/compat.txt">there</a>'
    assert_output --partial 'later (not yet recorded)'
    refute_output --partial 'no-such-run.gpu.txt'
}
