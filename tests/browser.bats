#!/usr/bin/env bats
# The built site in a real browser: headless Chromium (Debian's chromium,
# driven through python3-selenium and chromium-driver) opens every page at
# 390 px (a phone) and 1280 px and checks what a reader would see
# (docs/browser.py, which says what it checks);
# BROWSER_SHOTS=DIR keeps a screenshot of each page at each width there.
# scripts/need-tools.sh browser installs the three packages.

setup_file() {
    load helper
    if ! "$REPO/scripts/need-tools.sh" browser >&3 2>&3; then
        export BROWSER_MISSING=1
        return 0
    fi
    # the site, unless a build newer than every source of it is there
    build_docs
    # The site's checks, the wide screen's and the searches in one browser
    # session (a browser's start is most of a check's time); each test
    # below reads what it checks from this one run (site_run).
    local rc=0
    timeout 300 /usr/bin/python3 "$REPO/docs/browser.py" "$REPO/docs/_build" \
        --search "racecheck:01-shfl-reduction.html" \
        --search "__match_any_sync:04-match-any.html" --search "transpose:03-syncwarp-races.html" \
        ${BROWSER_SHOTS:+--shots "$BROWSER_SHOTS"} >"$BATS_FILE_TMPDIR/site.out" 2>&1 || rc=$?
    echo "$rc" >"$BATS_FILE_TMPDIR/site.rc"
}

# site_run: status, output and lines of setup_file's run of the checker on
# the built site, as `run` would set them.
site_run() {
    status=$(cat "$BATS_FILE_TMPDIR/site.rc")
    output=$(cat "$BATS_FILE_TMPDIR/site.out")
    mapfile -t lines <"$BATS_FILE_TMPDIR/site.out"
}

setup() {
    load helper
    [ -z "${BROWSER_MISSING:-}" ] || skip "chromium, chromium-driver or python3-selenium missing"
    B=$REPO/docs/_build
    CHECK=(timeout 300 /usr/bin/python3 "$REPO/docs/browser.py")
}

@test "no page scrolls sideways or hides what it holds, every image and picture loads, titles outrank headings, at 390 and 1280 px" {
    site_run
    echo "$output"
    assert_success
    assert_line --regexp '^ok [0-9]+ - index.html at 390 px: the page does not scroll sideways$'
    assert_line --regexp '^ok [0-9]+ - 04-match-any.html at 1280 px: every image loads$'
    # the lesson pages hold warpsim's pictures (docs/pictures.sh), SVG files
    grep -q '<img src="pictures/01-shfl-reduction-tree.its.svg"' "$B/01-shfl-reduction.html"
    assert_line --regexp '^ok [0-9]+ - 01-shfl-reduction.html at 390 px: every image loads$'
    assert_line --regexp '^ok [0-9]+ - 01-shfl-reduction.html at 390 px: the page does not scroll sideways$'
    # each run a picture of its own: on a phone within the screen, one under
    # the other; at 1280 px near their full size
    assert_line --regexp '^ok [0-9]+ - 01-shfl-reduction.html at 390 px: every picture fits the viewport$'
    assert_line --regexp '^ok [0-9]+ - 03-syncwarp-races.html at 390 px: the runs stand one under the other$'
    # the pictures' text as a reader sees it: 12 px or more on a phone and
    # on a wide screen, where a demonstration's three runs stand in a row
    assert_line --regexp '^ok [0-9]+ - 03-syncwarp-races.html at 390 px: the pictures. text shows at 12 px or more$'
    assert_line --regexp '^ok [0-9]+ - 03-syncwarp-races.html at 1280 px: the pictures. text shows at 12 px or more$'
    assert_line --regexp '^ok [0-9]+ - 02-ballot-mask.html at 1280 px: a demonstration.s runs stand side by side$'
    # nothing off the edge of its box: the porting table and lesson 03's on a
    # phone, the transcripts on a wide screen; the index's title said once
    assert_line --regexp '^ok [0-9]+ - porting.html at 390 px: no table is wider than its box$'
    assert_line --regexp '^ok [0-9]+ - 03-syncwarp-races.html at 390 px: no table is wider than its box$'
    assert_line --regexp '^ok [0-9]+ - 06-block-reduce.html at 1280 px: no transcript line runs out of its box$'
    assert_line --regexp '^ok [0-9]+ - index.html at 1280 px: the window.s title says each thing once$'
    refute_line --partial 'not ok'
}

@test "search finds a lesson by a word from its text" {
    # a word of lesson 03's text and a CUDA name of lesson 04's code
    site_run
    echo "$output"
    assert_success
    assert_line --regexp "^ok [0-9]+ - search for 'racecheck' finds 01-shfl-reduction.html$"
    assert_line --regexp "^ok [0-9]+ - search for '__match_any_sync' finds 04-match-any.html$"
    assert_line --regexp "^ok [0-9]+ - search for 'transpose' finds 03-syncwarp-races.html$"
}

@test "the checker fails on a page that scrolls sideways, a broken image, a picture too small or too wide, or a failed search" {
    site=$BATS_TEST_TMPDIR/site
    mkdir -p "$site"
    cp "$B/style.css" "$B/search.js" "$B/search.html" "$site/"
    printf '%s\n' 'window.SEARCH_INDEX = [{"page":"a.html","anchor":"","title":"A","section":"","text":"warp"}];' \
        >"$site/search-index.js"
    cat >"$site/a.html" <<'HTML'
<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><link rel="stylesheet" href="style.css">
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<header id="title-block-header"><h1 class="title">A</h1></header><main>
<p><span style="display:inline-block; width:2000px">too wide</span></p>
<pre class="transcript" style="white-space: pre; overflow-x: auto; max-width: 300px">a transcript line that runs far past the edge of its box and is cut there, unseen</pre>
<img src="missing.png" alt="gone"></main></body></html>
HTML
    # pictures as warpsim's focused views are made (400 px wide, text 14 px):
    # one shown at 100 px (its text at 3.5 px), one at 1500 px, side by side
    printf '%s\n' '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100" font-size="14"><text x="10" y="20">lane 1</text></svg>' \
        >"$site/p.svg"
    cat >"$site/b.html" <<'HTML'
<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><link rel="stylesheet" href="style.css">
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<header id="title-block-header"><h1 class="title">B</h1></header><main>
<div class="trace-runs" style="display: flex; flex-direction: row; flex-wrap: nowrap">
<figure class="trace" style="margin: 0"><img src="p.svg" alt="small" style="width: 100px; max-width: none"></figure>
<figure class="trace" style="margin: 0"><img src="p.svg" alt="wide" style="width: 1500px; max-width: none"></figure>
</div></main></body></html>
HTML
    run "${CHECK[@]}" "$site" --search "warp:a.html" --search "nowhere:a.html"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^not ok [0-9]+ - a.html at 390 px: the page does not scroll sideways$'
    assert_line --regexp '^not ok [0-9]+ - a.html at 1280 px: every image loads$'
    assert_line --regexp '^not ok [0-9]+ - a.html at 1280 px: no transcript line runs out of its box$'
    assert_line --regexp "^ok [0-9]+ - search for 'warp' finds a.html$"
    assert_line --regexp "^not ok [0-9]+ - search for 'nowhere' finds a.html$"
    assert_line --regexp '^not ok [0-9]+ - b.html at 390 px: the pictures. text shows at 12 px or more$'
    assert_line --regexp '^# b.html at 390 px: 2 pictures, their text at 3.5 to 52.5 px \(smallest: p.svg\)$'
    assert_line --regexp '^not ok [0-9]+ - b.html at 1280 px: every picture fits the viewport$'
    assert_line --regexp '^not ok [0-9]+ - b.html at 390 px: the runs stand one under the other$'
}
