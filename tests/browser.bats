#!/usr/bin/env bats
# The built site in a real browser: headless Chromium (Debian's chromium,
# driven through python3-selenium and chromium-driver) opens every page at
# 390 px (a phone) and 1280 px and checks what a reader would see;
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
    write_checker "$BATS_FILE_TMPDIR/browser.py"
    # The site's checks, the wide screen's and the searches in one browser
    # session (a browser's start is most of a check's time); each test
    # below reads what it checks from this one run (site_run).
    local rc=0
    timeout 300 /usr/bin/python3 "$BATS_FILE_TMPDIR/browser.py" "$REPO/docs/_build" \
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
    CHECK=(timeout 300 /usr/bin/python3 "$BATS_FILE_TMPDIR/browser.py")
}

# write_checker FILE: the Python that drives the browser.
write_checker() {
    cat >"$1" <<'PY'
"""Opens the built site in headless Chromium and checks what a reader sees.

usage: browser.py SITE_DIR [--shots DIR] [--search WORD:PAGE]...

For every top-level page of SITE_DIR, at 390 px (a phone) and 1280 px:
the page must not scroll sideways as a whole (the root's scrollWidth is at
most the viewport's width), every <img> must have loaded, the page title
must be larger than every section heading, and the window's title must
not say the same words twice. Nothing may hide off the edge of its box: no
table wider than its box, no transcript (pre.transcript) whose lines run
past its box. warpsim's pictures (figure.trace) must each fit the
viewport and be shown large enough that their text (14 px in the file) is
12 px or more as displayed; at 390 px the runs of a row (div.trace-runs)
must stand one under the other, at 1280 px the three runs of a row side
by side. For every --search WORD:PAGE, search.html?q=WORD must list a
result linking to PAGE.
--shots DIR saves a screenshot of each page at each width there, and of
each page's first row of pictures.
Prints one TAP line per check; exit status 0 all passed, 1 one failed,
2 bad usage or no browser.
"""
import glob
import os
import sys
import time
import urllib.parse

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:
    print("browser.py: python3-selenium is not installed", file=sys.stderr)
    sys.exit(2)

WIDTHS = (390, 1280)
# warpsim's pictures on a page: how many; those reaching out of the
# viewport; rows of runs whose pictures stand side by side, and rows whose
# pictures do not; the smallest their text shows at (14 px in the file,
# scaled as the picture is), with the picture
PICTURES = """
const vw = document.documentElement.clientWidth;
const imgs = Array.from(document.querySelectorAll('figure.trace img'));
const name = i => i.getAttribute('src');
const outside = imgs.filter(i => { const r = i.getBoundingClientRect();
  return r.left < -1 || r.right > vw + 1; }).map(name);
const text = imgs.map(i => [14 * i.getBoundingClientRect().width / i.naturalWidth, name(i)])
  .sort((a, b) => a[0] - b[0]);
const rows = Array.from(document.querySelectorAll('div.trace-runs'));
const tops = row => Array.from(row.querySelectorAll('figure.trace')).map(f => f.getBoundingClientRect().top);
const beside = rows.filter(row => { const t = tops(row); return t.some((a, k) => k > 0 && Math.abs(a - t[0]) < 1); })
  .map(row => name(row.querySelector('img')));
const apart = rows.filter(row => { const t = tops(row); return t.some(a => Math.abs(a - t[0]) >= 1); })
  .map(row => name(row.querySelector('img')));
return {n: imgs.length, vw: vw, outside: outside, smallest: text[0], beside: beside, apart: apart};
"""

# what hides off the edge of its box: tables wider than their box, and
# transcripts whose lines run past theirs
HIDDEN = """
const over = e => e.scrollWidth > e.clientWidth + 1;
return {tables: Array.from(document.querySelectorAll('div.table-wrap')).filter(over)
          .map(e => (e.textContent || '').trim().slice(0, 40)),
        outputs: Array.from(document.querySelectorAll('pre.transcript')).filter(over)
          .map(e => (e.textContent || '').trim().slice(0, 40))};
"""


def driver():
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--allow-file-access-from-files", "--hide-scrollbars"):
        opts.add_argument(a)
    opts.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def set_width(d, width):
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})


def main(argv):
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    site = os.path.abspath(args.pop(0))
    shots, searches = None, []
    while args:
        a = args.pop(0)
        if a == "--shots" and args:
            shots = args.pop(0)
            os.makedirs(shots, exist_ok=True)
        elif a == "--search" and args and ":" in args[0]:
            searches.append(args.pop(0).split(":", 1))
        else:
            print(f"browser.py: bad argument {a!r}", file=sys.stderr)
            return 2
    pages = sorted(os.path.basename(p) for p in glob.glob(os.path.join(site, "*.html")))
    if not pages:
        print(f"browser.py: no pages in {site}", file=sys.stderr)
        return 2
    d = driver()
    n = failed = 0

    def check(ok, what, detail=""):
        nonlocal n, failed
        n += 1
        if not ok:
            failed += 1
        print(f"{'ok' if ok else 'not ok'} {n} - {what}")
        if detail and not ok:
            print("# " + detail)

    try:
        for width in WIDTHS:
            set_width(d, width)
            for page in pages:
                d.get("file://" + os.path.join(site, page))
                d.execute_script("return document.fonts ? document.fonts.ready : null")
                # images: wait until each has finished, then ask whether it loaded
                for _ in range(50):
                    if d.execute_script("return Array.from(document.images).every(i => i.complete)"):
                        break
                    time.sleep(0.1)
                bad = d.execute_script(
                    "return Array.from(document.images)"
                    ".filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
                check(not bad, f"{page} at {width} px: every image loads", f"not loaded: {bad}")
                sw, vw, wide = d.execute_script(
                    "const r = document.documentElement;"
                    "const vw = r.clientWidth;"
                    "const wide = Array.from(document.querySelectorAll('body *'))"
                    "  .filter(e => e.getBoundingClientRect().right > vw + 1"
                    "    && !e.closest('pre, div.table-wrap, div.sourceCode'))"
                    "  .slice(0, 3).map(e => e.tagName + (e.id ? '#' + e.id : '')"
                    "    + ' ' + (e.textContent || '').slice(0, 40));"
                    "return [r.scrollWidth, vw, wide];")
                check(sw <= vw, f"{page} at {width} px: the page does not scroll sideways",
                      f"scrollWidth {sw} > viewport {vw}; too wide: {wide}")
                title, heads = d.execute_script(
                    "const px = e => parseFloat(getComputedStyle(e).fontSize);"
                    "const t = document.querySelector('h1.title');"
                    "return [t ? px(t) : 0,"
                    "  Array.from(document.querySelectorAll('main h1, main h2, main h3')).map(px)];")
                check(title > max(heads, default=0),
                      f"{page} at {width} px: the title is larger than every section heading",
                      f"title {title}px, headings up to {max(heads, default=0)}px")
                words = d.title.split(" - ")
                check(len(words) == len(set(words)), f"{page} at {width} px: the window's title says each thing once",
                      f"title: {d.title!r}")
                hidden = d.execute_script(HIDDEN)
                check(not hidden["tables"], f"{page} at {width} px: no table is wider than its box",
                      f"wider: {hidden['tables'][:3]}")
                check(not hidden["outputs"], f"{page} at {width} px: no transcript line runs out of its box",
                      f"running out: {hidden['outputs'][:3]}")
                pics = d.execute_script(PICTURES)
                if pics["n"]:
                    check(not pics["outside"], f"{page} at {width} px: every picture fits the viewport",
                          f"wider than {pics['vw']} px: {pics['outside'][:3]}")
                    print(f"# {page} at {width} px: pictures' text at {pics['smallest'][0]:.1f} px "
                          f"and more (smallest: {pics['smallest'][1]})")
                    check(pics["smallest"][0] >= 12, f"{page} at {width} px: the pictures' text shows at 12 px or more",
                          f"{pics['smallest'][0]:.1f} px in {pics['smallest'][1]}")
                    if width < 600:
                        check(not pics["beside"], f"{page} at {width} px: the runs stand one under the other",
                              f"side by side: {pics['beside'][:3]}")
                    else:
                        check(not pics["apart"], f"{page} at {width} px: a demonstration's runs stand side by side",
                              f"not side by side: {pics['apart'][:3]}")
                if shots:
                    d.save_screenshot(os.path.join(shots, f"{page[:-5]}-{width}.png"))
                    if pics["n"] and page[0].isdigit():
                        # the first row of runs, as the reader scrolls to it
                        d.execute_script("document.querySelector('div.trace-runs').scrollIntoView()")
                        d.save_screenshot(os.path.join(shots, f"{page[:-5]}-{width}-pictures.png"))
        set_width(d, 1280)
        for word, target in searches:
            url = "file://" + os.path.join(site, "search.html") + "?q=" + urllib.parse.quote(word)
            d.get(url)
            hrefs = []
            for _ in range(50):
                hrefs = d.execute_script(
                    "return Array.from(document.querySelectorAll('#search-results a'))"
                    ".map(a => a.getAttribute('href'))")
                if hrefs:
                    break
                time.sleep(0.1)
            hit = any(h.split("#")[0] == target for h in hrefs)
            check(hit, f"search for {word!r} finds {target}",
                  f"results: {hrefs[:8]}")
            if shots:
                d.save_screenshot(os.path.join(shots, f"search-{word}.png"))
    finally:
        d.quit()
    print(f"{n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
PY
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

@test "the checker fails on a page that scrolls sideways, a broken image or a failed search" {
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
    run "${CHECK[@]}" "$site" --search "warp:a.html" --search "nowhere:a.html"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^not ok [0-9]+ - a.html at 390 px: the page does not scroll sideways$'
    assert_line --regexp '^not ok [0-9]+ - a.html at 1280 px: every image loads$'
    assert_line --regexp '^not ok [0-9]+ - a.html at 1280 px: no transcript line runs out of its box$'
    assert_line --regexp "^ok [0-9]+ - search for 'warp' finds a.html$"
    assert_line --regexp "^not ok [0-9]+ - search for 'nowhere' finds a.html$"
}
