#!/usr/bin/env python3
"""trace_svg.py - the site's and the handouts' forms of warpsim's pictures
(docs/pictures.sh), made from the SVG that warpsim wrote, nothing redrawn:

  trace_svg.py split PAIR.svg LEFT.svg RIGHT.svg
      the two runs of a --trace-models picture (lockstep | its), each a
      picture of its own, without its legend (the page shows one legend as
      text): the site places them in a row that wraps, so that a phone shows
      one under the other and a wide screen both side by side
  trace_svg.py panel IN.svg OUT.svg
      one run's picture without its legend
  trace_svg.py print PAIR.svg SHORT.svg OUT.svg [--look TEXT]
      a short picture for a four-page A4 handout, of the its run (the pair's
      right-hand run, or SHORT, the same run drawn with fewer rows, its rows
      around the races kept, when it marks one): the rows of its first race
      and one each side, or where it marks none, those around the first
      collective whose labels name a mask (else a file:line) that TEXT, the
      picture's caption, names, or else the first collective; cut at row
      boundaries, a grey bar for the rows not shown, the lane numbers above,
      the races shown listed below, no legend, and the text enlarged (7-10
      px to 10-12 px) so that at a handout's text width (about 190 mm) it
      prints at 5.3-6 pt, not warpsim's 3.7-5.3

Exit status: 0 written, 1 the input is not a warpsim picture, 2 bad usage.
"""
import copy
import re
import sys
import xml.etree.ElementTree as ET

NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", NS)
TOP = 64                 # trace.c: the first row's top
ROWH = 13                # trace.c: a row's height
# trace.c's font sizes, and what the handout's picture uses instead
PRINT_SIZE = {"7": "10", "8": "11", "9": "11", "10": "12", "14": "13"}


class NotAPicture(Exception):
    pass


def tag(e):
    return e.tag.split("}")[-1]


def text_of(e):
    return "".join(e.itertext())


def load(path):
    try:
        return ET.parse(path).getroot()
    except (OSError, ET.ParseError) as err:
        raise NotAPicture(f"{path}: {err}")


def legend_of(svg):
    """The legend group of a run's picture and the y where it starts."""
    for g in svg.findall(f"{{{NS}}}g"):
        first = g.find(f"{{{NS}}}text")
        if first is not None and text_of(first) == "Legend":
            return g, float(first.get("y")) - 12
    raise NotAPicture("no legend in the picture (not drawn by warpsim --trace?)")


def runs_of(root):
    """The runs' pictures: the nested <svg>s of a pair, or the root."""
    inner = root.findall(f"{{{NS}}}svg")
    return inner if inner else [root]


def without_legend(svg):
    """A copy of one run's picture, standalone, its legend cut off."""
    svg = ET.fromstring(ET.tostring(svg))
    legend, y = legend_of(svg)
    svg.remove(legend)
    w = svg.get("width")
    h = str(int(y))
    for k in ("x", "y"):
        svg.attrib.pop(k, None)
    svg.set("width", w)
    svg.set("height", h)
    svg.set("viewBox", f"0 0 {w} {h}")
    for r in svg.findall(f"{{{NS}}}rect"):
        if r.get("fill") == "#fff" and r.get("width") == w and r.get("x") is None:
            r.set("height", h)
    return svg


def write(svg, path):
    data = ET.tostring(svg, encoding="unicode")
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n' + data + "\n")


def enlarge(e):
    """Text sizes of a subtree raised to the handout's (PRINT_SIZE)."""
    for x in e.iter():
        fs = x.get("font-size")
        if fs in PRINT_SIZE:
            x.set("font-size", PRINT_SIZE[fs])
        if tag(x) == "style" and x.text:
            x.text = re.sub(r"font-size:(\d+)px",
                            lambda m: f"font-size:{PRINT_SIZE.get(m.group(1), m.group(1))}px",
                            x.text)
        if tag(x) == "text" and (x.text or "").startswith("lanes ") and " met" in x.text:
            x.set("y", str(int(float(x.get("y"))) + 2))   # a band's second label line
        if tag(x) == "path" and x.get("fill") == "#fff":
            # the white patches under the line numbers, wider for larger digits
            x.set("d", re.sub(r"M(-?\d+) (-?\d+)h14v8h-14z",
                              lambda m: f"M{int(m.group(1)) - 3} {int(m.group(2)) - 1}h20v10h-20z",
                              x.get("d", "")))


def text_width(e, size):
    return len(text_of(e)) * 0.6 * size


def has_race(run):
    """Whether a run's picture lists a race it marks."""
    return any(text_of(t).startswith("race 1 on") for t in run.iter(f"{{{NS}}}text"))


def print_form(src, look=""):
    """The short picture of one run for a handout (see the module's doc);
    look: what its caption names (masks, file:line), to choose the
    collective shown where no race is."""
    run = runs_of(src)[-1]
    legend, _ = legend_of(run)
    width = float(run.get("width"))
    kids = list(run)
    title = head = None
    listed, drawing, defs = [], [], []
    for e in kids:
        t = tag(e)
        if e is legend or t == "title" or (t == "rect" and e.get("fill") == "#fff"
                                           and e.get("x") is None):
            continue
        if t in ("defs", "style"):
            defs.append(e)
        elif t == "text" and e.get("y") == "18":
            title = e
        elif t == "text" and e.get("y") == "34":
            continue                         # rows and clock: said by the caption
        elif t == "g" and e.get("text-anchor") == "middle" and "lane" in text_of(e)[:4]:
            head = e
        elif t == "text" and e.get("x") == "64" and re.match(
                r"(race \d+ |and \d+ more race|no race reported)", text_of(e)):
            listed.append(e)
        else:
            drawing.append(e)
    if title is None or head is None or not listed:
        raise NotAPicture("not a warpsim run's picture (no title, lane numbers or race list)")
    rows_end = float(listed[0].get("y")) - 18
    # the windows: the rows of the first race's two accesses; where no race
    # is marked, the collectives whose labels name masks the caption names
    # (else a file:line it names, at a collective or where lanes move to
    # it), each with the row above, two where both are short, else the first
    # collective,
    # else the first rows; the race's rows with one more either side
    labels = [(float(x.get("y")), text_of(x)) for e in drawing
              for x in e.iter(f"{{{NS}}}text") if x.get("y") and x.get("x")
              and float(x.get("x")) >= TOP + 640]
    bands = sorted((float(r.get("y")), float(r.get("height"))) for r in drawing
                   if tag(r) == "rect" and (r.get("fill") == "#e4e4e4"
                                            or "hatch" in r.get("fill", "")))
    marks = [float(u.get("y")) for u in run.iter(f"{{{NS}}}use")
             if u.get("href", "").endswith("-race") and u not in legend.iter()]
    wins = []
    if marks:
        wins = [(y - 8, y + 8) for y in marks[:2]]
    else:
        for keys in (re.findall(r"0x[0-9a-f]{8}", look),
                     re.findall(r"[A-Za-z0-9_]+\.cu:\d+", look)):
            for k in dict.fromkeys(keys):
                hit = [(b[0] - 2 - ROWH, b[0] + b[1] + 1) for b in bands
                       if any(k in t for y, t in labels if b[0] <= y <= b[0] + b[1] + 2)]
                if not hit and ".cu:" in k:
                    hit = [(y - 9 - ROWH, y + 4) for y, t in labels
                           if t.startswith(k + " ")]
                # a second window only while both stay short (six rows)
                if hit and (not wins or sum(b - a for a, b in wins + hit[:1]) <= 6 * ROWH + 4):
                    wins.append(hit[0])
            if wins:
                break
        wins = sorted(wins)[:2]
        if not wins and bands:
            wins = [(bands[0][0] - 2 - ROWH, bands[0][0] + bands[0][1] + 1 + ROWH)]
        if not wins:
            wins = [(TOP, TOP + 4 * ROWH)]
    # on row boundaries, so that no row is cut through: each row's clock
    # label sits 9 px below its top, a grey band 2 px, a collective's band 1
    tops = {TOP, rows_end}
    for e in drawing:
        y = e.get("y")
        if y is None:
            continue
        if tag(e) == "text" and e.get("class") == "c":
            tops.add(float(y) - 9)
        elif tag(e) == "rect" and e.get("fill") == "#d8d8d8":
            tops.update((float(y) - 2, float(y) - 2 + ROWH))
        elif tag(e) == "rect":
            tops.update((float(y) - 1, float(y) + float(e.get("height")) + 1))
    snapped = []
    for lo, hi in sorted(wins):
        lo, hi = max(TOP, lo), min(rows_end, hi)
        if hi - lo < 2 * ROWH:               # two rows at least, as the run allows
            hi = min(rows_end, lo + 2 * ROWH)
            lo = max(TOP, hi - 2 * ROWH)
        lo = max(t for t in tops if t <= lo + 0.5)
        hi = min(t for t in tops if t >= hi - 0.5)
        if snapped and lo <= snapped[-1][1] + 2 * ROWH:   # close: one window
            snapped[-1] = (snapped[-1][0], max(hi, snapped[-1][1]))
        else:
            snapped.append((lo, hi))
    wins = snapped
    # which races the windows show: their number is drawn next to both marks
    shown = set()
    for e in drawing:
        if tag(e) == "text" and e.get("font-weight") == "bold" and text_of(e).isdigit():
            if any(lo <= float(e.get("y")) <= hi for lo, hi in wins):
                shown.add(text_of(e))
    out = ET.Element(f"{{{NS}}}svg")
    for d in defs:
        out.append(d)
    bg = ET.SubElement(out, f"{{{NS}}}rect", {"fill": "#fff"})
    enlarge_all = [title, head] + defs + drawing + listed
    for e in enlarge_all:
        enlarge(e)
    # the right-hand labels need more room at the larger size
    need = width
    for e in drawing:
        for x in e.iter(f"{{{NS}}}text"):
            if x.get("x") and float(x.get("x")) >= width - 300:
                size = float(x.get("font-size") or e.get("font-size") or 11)
                need = max(need, float(x.get("x")) + text_width(x, size) + 6)
    # one header line: the lane numbers, and at the right which run this is
    y = 14
    h = ET.SubElement(out, f"{{{NS}}}g", {"transform": f"translate(0,{y - (TOP - 8)})"})
    h.append(head)
    t = ET.SubElement(out, f"{{{NS}}}text", {"x": str(TOP + 648), "y": str(y),
                                            "font-size": "11", "font-weight": "bold"})
    t.text = re.sub(r"^model |\s*\(launch \d+\)$", "", text_of(title))
    need = max(need, TOP + 648 + text_width(t, 12) + 6)
    width = int(need + 0.5)
    y += 6

    def bar(y):
        """A grey bar: rows of the run not shown here."""
        ET.SubElement(out, f"{{{NS}}}rect", {"x": str(TOP), "y": str(y + 1), "width": "640",
                                            "height": "4", "fill": "#d8d8d8"})
        return y + 7

    # what lies outside a window is left out, not only hidden, so that the
    # PDF's text is what the reader sees
    def inside(e, lo, hi):
        t, y = tag(e), e.get("y")
        if y is None:
            return True
        if t == "text":
            return lo <= float(y) <= hi + 3
        return float(y) + float(e.get("height", 0)) + 8 >= lo and float(y) - 8 <= hi

    for i, (lo, hi) in enumerate(wins):
        if lo > (wins[i - 1][1] if i else TOP):
            y = bar(y)
        clip = ET.SubElement(out, f"{{{NS}}}clipPath", {"id": f"window{i + 1}"})
        ET.SubElement(clip, f"{{{NS}}}rect", {"x": "0", "y": f"{lo - 2:g}",
                                             "width": str(width), "height": f"{hi - lo + 1:g}"})
        g = ET.SubElement(out, f"{{{NS}}}g", {"clip-path": f"url(#window{i + 1})",
                                             "transform": f"translate(0,{y - lo:g})"})
        for e in drawing:
            if not inside(e, lo, hi):
                continue
            e = copy.deepcopy(e)
            if tag(e) == "g":
                for x in [x for x in e if not inside(x, lo, hi)]:
                    e.remove(x)
            g.append(e)
        y += hi - lo
    if wins[-1][1] < rows_end:
        y = bar(y)
    y += 1
    more, last = 0, None
    for e in listed:
        m = re.match(r"race (\d+) ", text_of(e))
        if m and m.group(1) not in shown:
            more += 1
            continue
        if not m and text_of(e).startswith("and "):
            more += int(text_of(e).split()[1])
            continue
        y += 14
        e.set("y", str(y))
        out.append(e)
        last = e
    if more and last is not None:
        last.text = text_of(last) + f"; {more} more in rows not shown here"
        need = max(need, 64 + text_width(last, 12) + 6)
    width = int(need + 0.5)
    height = int(y + 5)
    out.set("width", str(width))
    out.set("height", str(height))
    out.set("viewBox", f"0 0 {width} {height}")
    out.set("font-family", run.get("font-family", "DejaVu Sans, sans-serif"))
    bg.set("width", str(width))
    bg.set("height", str(height))
    tt = ET.Element(f"{{{NS}}}title")
    tt.text = (run.findtext(f"{{{NS}}}title") or "warpsim") + " (rows around the first race)"
    out.insert(0, tt)
    return out


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    try:
        if len(argv) == 5 and argv[1] == "split":
            runs = runs_of(load(argv[2]))
            if len(runs) != 2:
                raise NotAPicture(f"{argv[2]}: {len(runs)} runs, not a pair")
            write(without_legend(runs[0]), argv[3])
            write(without_legend(runs[1]), argv[4])
        elif len(argv) == 4 and argv[1] == "panel":
            write(without_legend(runs_of(load(argv[2]))[0]), argv[3])
        elif len(argv) in (5, 7) and argv[1] == "print" and (len(argv) == 5 or argv[5] == "--look"):
            # the short run where it marks a race (its rows kept around the
            # races), else the whole run, around a collective
            short, whole = load(argv[3]), load(argv[2])
            look = argv[6] if len(argv) == 7 else ""
            write(print_form(short if has_race(runs_of(short)[-1]) else whole, look), argv[4])
        else:
            print("usage: trace_svg.py split PAIR.svg LEFT.svg RIGHT.svg | panel IN.svg OUT.svg"
                  " | print PAIR.svg SHORT.svg OUT.svg [--look TEXT] (try --help)", file=sys.stderr)
            return 2
    except NotAPicture as err:
        print(f"trace_svg.py: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
