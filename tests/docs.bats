#!/usr/bin/env bats
# make docs, make doctor, make grade and the lab tooling.

setup_file() {
    load helper
    "$REPO/scripts/need-tools.sh" docs >/dev/null
    make -s --no-print-directory -C "$REPO" docs >/dev/null
}

setup() {
    load helper
    B=$REPO/docs/_build
}

@test "make docs builds the index, a page and a handout per lesson, and the workbook" {
    [ -f "$B/index.html" ]
    [ -f "$B/handouts/workbook.pdf" ]
    [ -f "$B/style.css" ]
    for d in "$REPO"/lessons/[0-9][0-9]-*/; do
        name=$(basename "$d")
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
            if [ ! -e "$B/$file" ]; then
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
    # the legacy kernel's body appears on lesson 01's page as in legacy.cu
    run grep -c 'jitter_sleep' "$B/01-shfl-reduction.html"
    assert_success
    [ "$output" -ge 5 ]
    refute grep -q 'pulled from legacy.cu' "$B/01-shfl-reduction.html"
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

@test "each lesson handout is A4 and at most 4 pages" {
    for pdf in "$B"/handouts/[0-9][0-9]-*.pdf; do
        pages=$(pdfinfo "$pdf" | sed -n 's/^Pages: *//p')
        size=$(pdfinfo "$pdf" | sed -n 's/^Page size: *//p')
        echo "$(basename "$pdf"): $pages pages, $size"
        [ "$pages" -le 4 ]
        [[ "$size" == *"(A4)"* ]]
    done
}

@test "make doctor runs anywhere, says what each target will do, and exits 0" {
    run make --no-print-directory -C "$REPO" doctor
    assert_success
    assert_output --partial 'make check'
    assert_output --partial 'make docs'
    assert_line --regexp '^  nvcc '
    assert_line --regexp '^  GPU '
}

@test "make test JUNIT=dir asks bats for a JUnit report" {
    run make -n --no-print-directory -C "$REPO" test JUNIT=reports
    assert_success
    assert_output --partial '--report-formatter junit --output reports'
}
