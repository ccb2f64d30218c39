#!/usr/bin/env python3
"""browser.py - opens the built site in headless Chromium and checks what a reader sees.

usage: docs/browser.py SITE_DIR [--shots DIR] [--search WORD:PAGE]...

(tests/browser.bats runs it on docs/_build; docs/results/site-browser.txt
is its record, made with scripts/transcript.sh.)

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
Prints the browser's version first, then one TAP line per check, with a
`#` line per page that holds pictures: how many, and the sizes their text
shows at (smallest and largest). Exit status 0 all passed, 1 one failed,
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
# pictures do not; the smallest and largest their text shows at (14 px in
# the file, scaled as the picture's drawing is, its border left out), with
# the picture
PICTURES = """
const vw = document.documentElement.clientWidth;
const imgs = Array.from(document.querySelectorAll('figure.trace img'));
const name = i => i.getAttribute('src');
const outside = imgs.filter(i => { const r = i.getBoundingClientRect();
  return r.left < -1 || r.right > vw + 1; }).map(name);
const inner = i => { const c = getComputedStyle(i);
  return i.getBoundingClientRect().width - parseFloat(c.borderLeftWidth) - parseFloat(c.borderRightWidth)
    - parseFloat(c.paddingLeft) - parseFloat(c.paddingRight); };
const text = imgs.map(i => [14 * inner(i) / i.naturalWidth, name(i)])
  .sort((a, b) => a[0] - b[0]);
const rows = Array.from(document.querySelectorAll('div.trace-runs'));
const tops = row => Array.from(row.querySelectorAll('figure.trace')).map(f => f.getBoundingClientRect().top);
const beside = rows.filter(row => { const t = tops(row); return t.some((a, k) => k > 0 && Math.abs(a - t[0]) < 1); })
  .map(row => name(row.querySelector('img')));
const apart = rows.filter(row => { const t = tops(row); return t.some(a => Math.abs(a - t[0]) >= 1); })
  .map(row => name(row.querySelector('img')));
return {n: imgs.length, vw: vw, outside: outside, smallest: text[0], largest: text[text.length - 1],
        beside: beside, apart: apart};
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
    caps = d.capabilities
    print(f"# {caps.get('browserName', 'browser')} {caps.get('browserVersion', '?')}, headless, "
          f"windows {' and '.join(str(w) for w in WIDTHS)} px wide, device scale 1")
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
                    print(f"# {page} at {width} px: {pics['n']} pictures, their text at "
                          f"{pics['smallest'][0]:.1f} to {pics['largest'][0]:.1f} px "
                          f"(smallest: {pics['smallest'][1]})")
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
