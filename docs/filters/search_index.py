#!/usr/bin/env python3
"""search_index.py - the site's search index, built with the docs.

usage: search_index.py OUT.js PAGE.html...

Reads the built pages and writes OUT.js, a script that sets
window.SEARCH_INDEX to one entry per section (the page's top, and each
h2/h3 with an id): the page file, the anchor, the page and section titles,
and the section's text, code and outputs included. search.js searches it in
the browser, so the site needs no server and no network: the index is a
plain script, loaded from the same folder (this works from file:// too,
where fetch() of a JSON file would not). Exit status 0, or 2 on bad usage.
"""
import html.parser
import json
import os
import re
import sys


class Sections(html.parser.HTMLParser):
    """Collects (anchor, heading, text) per section of <main>."""

    SKIP = {"script", "style", "nav"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.sections = [["", "", []]]
        self.in_main = 0
        self.in_title = False
        self.heading = None  # [id, parts] while inside h2/h3
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h1" and "title" in (a.get("class") or "").split():
            self.in_title = True
        if tag == "main":
            self.in_main += 1
        if not self.in_main:
            return
        if tag in self.SKIP:
            self.skip += 1
        elif tag in ("h2", "h3") and a.get("id"):
            self.heading = [a["id"], []]
        elif tag in ("p", "li", "pre", "tr", "br", "div", "figcaption"):
            self.add(" ")

    def handle_endtag(self, tag):
        if tag == "h1":
            self.in_title = False
        if tag == "main":
            self.in_main -= 1
        if not self.in_main:
            return
        if tag in self.SKIP:
            self.skip -= 1
        elif tag in ("h2", "h3") and self.heading:
            anchor, parts = self.heading
            self.heading = None
            self.sections.append([anchor, " ".join("".join(parts).split()), []])

    def handle_data(self, data):
        if self.in_title:
            self.title += data
        self.add(data)

    def add(self, data):
        if not self.in_main or self.skip:
            return
        if self.heading is not None:
            self.heading[1].append(data)
        else:
            self.sections[-1][2].append(data)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    entries = []
    for path in argv[2:]:
        parser = Sections()
        with open(path, encoding="utf-8") as f:
            parser.feed(f.read())
        page = os.path.basename(path)
        title = re.sub(r"\s+", " ", parser.title).strip()
        for anchor, heading, parts in parser.sections:
            text = " ".join("".join(parts).split())
            if not text and not heading:
                continue
            entries.append({"page": page, "anchor": anchor, "title": title,
                            "section": heading, "text": text})
    with open(argv[1], "w", encoding="utf-8") as out:
        out.write("// search-index.js - written by make docs (docs/filters/search_index.py)\n")
        out.write("window.SEARCH_INDEX = ")
        json.dump(entries, out, ensure_ascii=False, separators=(",", ":"))
        out.write(";\n")
    print(f"  INDEX   {os.path.basename(argv[1])}: {len(entries)} sections of {len(argv) - 2} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
