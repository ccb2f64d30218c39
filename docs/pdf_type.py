#!/usr/bin/env python3
"""pdf_type.py - the type of printed handouts, read back from the PDF.

usage: docs/pdf_type.py [--pictures DIR] [--pages N] [--body PT] [--min PT]
                        [--picture-min PT] PDF...

For each PDF, every character's size as PyMuPDF reads it from the page:
the number of pages and the page size, the size most characters have
(the body), the smallest size of all (pictures, code and page footers
included) and how many characters have it, and the program that made it. With --pictures DIR (the built
site's pictures/, docs/_build/pictures), also the sizes of the text of
warpsim's focused views (the 400 px wide SVG files there) as printed: the
spans on each white rectangle the PDF draws (a picture's background) that
holds one of those pictures' texts (four characters or more, a letter
among them), with how many pictures and spans there are.

Each limit given is a check, one TAP line per PDF and limit: at most N
pages, body PT or more, nothing under --min PT, picture text --picture-min
PT or more, and some picture text found. A size is read to 0.01 pt; a limit is met within
0.01 pt.

tests/docs.bats runs it on the handouts; docs/results/handouts-type.txt is
its record, made with scripts/transcript.sh. Exit status 0 every check
passed (or none asked), 1 one failed, 2 bad usage or a file that is not a
PDF.
"""
import collections
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

try:
    import fitz
except ImportError:
    print("pdf_type.py: PyMuPDF is not installed (apt-get install python3-fitz)", file=sys.stderr)
    sys.exit(2)

SVG = "{http://www.w3.org/2000/svg}"


def usage(why):
    print(f"pdf_type.py: {why} (usage: pdf_type.py [--pictures DIR] [--pages N] [--body PT] "
          "[--min PT] [--picture-min PT] PDF...)", file=sys.stderr)
    sys.exit(2)


def picture_texts(folder):
    """The texts of the focused views in FOLDER (SVG files 400 px wide):
    each <text>'s whole string, kept where it has four characters or more
    and a letter."""
    texts = set()
    for path in glob.glob(os.path.join(folder, "*.svg")):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            continue
        if root.get("width") != "400":
            continue
        for t in root.iter(SVG + "text"):
            s = "".join(t.itertext()).strip()
            if len(s) >= 4 and re.search(r"[A-Za-z]", s):
                texts.add(s)
    return texts


def measure(path, texts):
    """pages, page size, Counter of characters by size, list of picture
    text sizes, number of pictures and the PDF's producer, for the PDF at
    PATH. A picture is drawn on a white
    rectangle of its own (the SVG's background): its text is every span
    inside such a rectangle that holds one of TEXTS."""
    doc = fitz.open(path)
    chars = collections.Counter()
    pics = []
    npics = 0
    for page in doc:
        spans = []
        for block in page.get_text("dict")["blocks"]:
            for line in block.get("lines", []):
                for span in line["spans"]:
                    s = span["text"].strip()
                    if s:
                        size = round(span["size"], 2)
                        chars[size] += len(s)
                        spans.append((s, size, fitz.Rect(span["bbox"])))
        if not texts:
            continue
        grounds = [d["rect"] for d in page.get_drawings()
                   if d.get("fill") and all(c > 0.99 for c in d["fill"]) and d["rect"].width > 50]
        for r in grounds:
            inside = [(s, size) for s, size, b in spans
                      if r.contains(fitz.Point((b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2))]
            if any(s in texts for s, _ in inside):
                npics += 1
                pics.extend(size for _, size in inside)
    w, h = (doc[0].rect.width, doc[0].rect.height) if len(doc) else (0, 0)
    return len(doc), (w, h), chars, pics, npics, (doc.metadata or {}).get("producer") or "?"


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    limits = {}
    folder = None
    pdfs = []
    while args:
        a = args.pop(0)
        if a == "--pictures" and args:
            folder = args.pop(0)
            if not os.path.isdir(folder):
                usage(f"{folder}: no such folder")
        elif a in ("--pages", "--body", "--min", "--picture-min") and args:
            try:
                limits[a] = float(args.pop(0))
            except ValueError:
                usage(f"{a} needs a number")
        elif a.startswith("-"):
            usage(f"unknown option {a}")
        else:
            pdfs.append(a)
    if not pdfs:
        usage("no PDF given")
    texts = picture_texts(folder) if folder else set()
    n = failed = 0

    def check(ok, what, detail=""):
        nonlocal n, failed
        n += 1
        failed += not ok
        print(f"{'ok' if ok else 'not ok'} {n} - {what}")
        if detail and not ok:
            print("# " + detail)

    for path in pdfs:
        name = os.path.basename(path)
        try:
            with open(path, "rb") as f:
                if f.read(5) != b"%PDF-":
                    raise ValueError("it does not start with %PDF-")
            pages, (w, h), chars, pics, npics, producer = measure(path, texts)
        except Exception as e:  # PyMuPDF's errors have no common class
            print(f"pdf_type.py: {path}: not a PDF that can be read ({e})", file=sys.stderr)
            return 2
        if not chars:
            print(f"pdf_type.py: {path}: no text in it", file=sys.stderr)
            return 2
        body = chars.most_common(1)[0][0]
        small = min(chars)
        mm = f"{w * 25.4 / 72:.0f} x {h * 25.4 / 72:.0f} mm"
        print(f"# {name}: {pages} pages, {mm}; body {body:.2f} pt, smallest {small:.2f} pt "
              f"({chars[small]} characters)"
              + (f"; {npics} pictures, their text {min(pics):.2f} to {max(pics):.2f} pt ({len(pics)} spans)"
                 if pics else ("; no picture text" if folder else ""))
              + f"; made by {producer}")
        if "--pages" in limits:
            check(pages <= limits["--pages"], f"{name}: at most {limits['--pages']:g} pages",
                  f"{pages} pages")
        if "--body" in limits:
            check(body >= limits["--body"] - 0.01, f"{name}: body text {limits['--body']:g} pt or more",
                  f"body {body:.2f} pt")
        if "--min" in limits:
            check(small >= limits["--min"] - 0.01, f"{name}: nothing under {limits['--min']:g} pt",
                  f"{chars[small]} characters at {small:.2f} pt")
        if "--picture-min" in limits and folder:
            check(bool(pics) and min(pics) >= limits["--picture-min"] - 0.01,
                  f"{name}: picture text {limits['--picture-min']:g} pt or more",
                  f"picture text at {min(pics):.2f} pt" if pics else "no picture text found")
    if n:
        print(f"{n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
