#!/usr/bin/env python3
"""trace_svg.py - the pictures that the site and the handouts show, made from
the SVG that warpsim drew of a real run (docs/pictures.sh):

  trace_svg.py focus PICTURE.svg OUT.svg [--run MODEL] [--caption TEXT]
                     [--lanes L,L,...] [--label TEXT]
      the focused view of one run (MODEL: lockstep or its, for a picture of
      both; default: the last run in the file): the few lanes and rows that
      matter, redrawn from what warpsim drew, large enough to read on a
      phone (400 px wide, text 14 px) and in print. What it shows: the
      first race warpsim marked (its two accesses, and the last sleep
      before each); where none is, the collective whose label the caption
      (TEXT) quotes, else the first whose label holds a mask or file:line
      the caption names, with the lanes that waited in it and where they
      arrived, and the collectives that follow it among the same lanes (up
      to two); else the places the caption names by file:line, where the
      lanes arrive or wait. The lanes are the ones taking part (--lanes
      chooses them), a gap between two columns stands for the lanes left
      out, a row of dots for the rows left out. No clock
      column: rows go down in the order warpsim ran the steps. Each row
      says at the right what happens in it. The root element's data-marks
      attribute lists the marks the picture uses, for the legend shown
      beside it (docs/build.sh).
  trace_svg.py full PICTURE.svg OUT.svg
      the full run as warpsim drew it, for the link under a focused view,
      with the clock column left out (the lanes' own virtual clocks, not a
      time that goes down with the rows) and warpsim's legend completed
      with the marks it lacks (an empty column, the sleep label, the
      dashed line between a race's marks, the grey rows).
  trace_svg.py check PICTURE.svg TEXT
      whether a focused view shows what its caption TEXT names: every
      FILE.cu:LINE and 0x........ mask must be in the picture's text, and
      every lane it names ("lane 3", "lanes 0-15", "lanes 16, 8 and 4") a
      column of the picture (a range also passes where the picture's text
      holds it, as in "lanes 0-15 met"). Prints one line per claim not
      shown.
  trace_svg.py marks PICTURE.svg
      the marks a focused view uses, one per line (its data-marks).
  trace_svg.py overlaps PICTURE.svg
      the texts of a focused view that overlap one another or run past its
      edge, one per line, measured with DejaVu Sans's advances (none: exit
      status 0).

Exit status: 0 written (check: everything shown), 1 the input is not a
warpsim picture (check: a claim not shown), 2 bad usage.
"""
import re
import sys
import xml.etree.ElementTree as ET

NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", NS)

# warpsim/src/trace.c's geometry
LEFT = 64          # the clock column's width; lane columns start here
COLW = 20          # a lane's column
ROWH = 13          # a row's height (a collective's row is 2 or 3 of them)
LABELX = LEFT + 32 * COLW + 8   # the labels at the right

# The focused view's geometry: 400 px wide, every text 14 px, so that at a
# phone's 356 px of width it shows at 12.5 px and in print at 7 pt or more
# when 86 mm wide.
WIDTH = 400
FONT = 14
LINEH = 17
MAXLANES = 6
MAXROWS = 9
MAXFOLLOW = 2

# DejaVu Sans advances (1/1000 em), characters 32-126, regular and bold:
# to wrap the text at the right of each row without a font library.
_ADV = [318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636,
        636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684,
        686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695,
        635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550,
        635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392,
        634, 592, 818, 592, 592, 525, 636, 337, 636, 838]
_ADVB = [348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696,
         696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774,
         762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770,
         720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593,
         716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478,
         712, 652, 924, 645, 652, 582, 712, 365, 712, 838]


class NotAPicture(Exception):
    pass


def tag(e):
    return e.tag.split("}")[-1]


def text_of(e):
    return "".join(e.itertext())


def text_width(s, size=FONT, bold=False):
    adv = _ADVB if bold else _ADV
    return sum(adv[ord(c) - 32] if 32 <= ord(c) < 127 else 1000 for c in s) * size / 1000.0


def wrap(s, width, size=FONT, bold=False):
    """s in lines no wider than width: broken at spaces, a word too long for
    a line after its '(' or ','."""
    words = []
    for w in s.split(" "):
        while text_width(w, size, bold) > width:
            cut = max(w.rfind("(", 0, len(w) - 1), w.rfind(",", 0, len(w) - 1))
            if cut <= 0:
                break
            words.append(w[:cut + 1])
            w = w[cut + 1:]
        words.append(w)
    lines, cur = [], ""
    for w in words:
        cand = (cur + " " + w) if cur and not cur.endswith("(") else cur + w
        if cur and text_width(cand, size, bold) > width:
            lines.append(cur)
            cur = w
        else:
            cur = cand
    if cur:
        lines.append(cur)
    return lines


def lane_at(x):
    """The lane whose column's centre is at x, or None."""
    f = (x - LEFT - COLW / 2) / COLW
    r = round(f)
    return r if abs(f - r) < 0.3 and 0 <= r < 32 else None


def ranges(lanes):
    """'0-15, 17' for a set of lanes."""
    lanes = sorted(lanes)
    out, i = [], 0
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        out.append(str(lanes[i]) if i == j else f"{lanes[i]}-{lanes[j]}")
        i = j + 1
    return ", ".join(out)


def parse_ranges(s):
    """The lanes of '0-15, 17' (as warpsim writes them)."""
    lanes = set()
    for part in s.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)-(\d+)", part)
        if m:
            lanes.update(range(int(m.group(1)), int(m.group(2)) + 1))
        elif part.isdigit():
            lanes.add(int(part))
    return lanes


def path_points(d):
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]


class Run:
    """One run of a warpsim picture, read back from what warpsim drew
    (warpsim/src/trace.c): every row's steps, sleeps, waits, collectives,
    shuffles, ballots and races, by lane and by the row's top (y)."""

    def __init__(self, svg):
        self.model = "its"
        self.kernel = ""
        self.steps = {}        # (lane, y) -> {"line": n or None, "sleep": ns}
        self.segs = {}         # lane -> [(y1, y2, style)], style: run, sleep, wait
        self.colls = []        # dicts: y, h, label, met, mask, where, lanes, last, ...
        self.races = []        # dicts: n, text, a, b: (lane, y)
        self.gaps = []         # (y, text): rows warpsim left out
        self.moves = {}        # y -> "file:line (lanes ...)"
        self.files = set()
        self.rows = set()
        self.end = 0
        legend = None
        labels = []
        arrows, tris, cells = [], [], []
        race_lines, racelist = [], []
        for e in svg:
            t = tag(e)
            if t == "g" and e.find(f"{{{NS}}}text") is not None and \
                    text_of(e.find(f"{{{NS}}}text")) == "Legend":
                legend = e
                continue
            if t == "title" or t == "defs" or t == "style":
                continue
            if t == "text":
                x, y, s = float(e.get("x", 0)), float(e.get("y", 0)), text_of(e)
                if y == 18:
                    m = re.match(r"model (\w+): warp \d+ of block \d+ in (\S+)", s)
                    if not m:
                        raise NotAPicture("no 'model NAME: warp ...' title")
                    self.model, self.kernel = m.group(1), m.group(2)
                elif y == 34 or e.get("class") == "c" or (e.get("font-weight") == "bold"
                                                         and s.isdigit()):
                    pass
                elif x == LABELX and e.get("fill") == "#333":
                    self.moves[y - 9] = s
                elif x == LABELX and re.match(r"rows? \d", s):
                    self.gaps.append((y - 10, s))
                elif x == LABELX:
                    labels.append((y, s))
                elif x == LEFT and re.match(r"(race \d+ |and \d+ more race|no race)", s):
                    racelist.append(s)
                else:
                    raise NotAPicture(f"a text warpsim does not draw: {s[:40]!r}")
            elif t == "g" and e.get("font-size") == "7":
                for x in e:
                    xx, yy, s = float(x.get("x")), float(x.get("y")), text_of(x)
                    if s.startswith("zz "):
                        st = self.steps.setdefault((lane_at(xx - 3), yy - 15), {"line": None})
                        st["sleep"] = int(s[3:])
                    else:
                        self.steps.setdefault((lane_at(xx), yy - 9), {"line": None})["line"] = int(s)
            elif t == "g":
                continue     # the lane numbers at the top
            elif t == "rect":
                fill = e.get("fill", "")
                if e.get("x") is None or fill == "#d8d8d8":
                    continue
                x, y = float(e.get("x")), float(e.get("y"))
                w, h = float(e.get("width")), float(e.get("height"))
                if fill == "#e4e4e4" or "hatch" in fill:
                    lo = lane_at(x - 1 + COLW / 2)
                    hi = lane_at(x - 1 + w + 2 - COLW / 2)
                    self.colls.append({"y": y - 1, "h": h + 2, "barrier": "hatch" in fill,
                                       "lo": lo, "hi": hi, "arrows": [], "ballot": {}})
                elif w == 10 and h == 8:
                    cells.append((lane_at(x + 5), y - 12, fill == "#000"))
            elif t == "path":
                d = e.get("d", "")
                if e.get("fill") == "none":
                    style = ("sleep" if e.get("stroke-dasharray") == "6,3" else
                             "wait" if e.get("stroke-dasharray") == "1,2" else "run")
                    for m in re.finditer(r"M(-?[\d.]+) (-?[\d.]+)V(-?[\d.]+)", d):
                        lane = lane_at(float(m.group(1)))
                        self.segs.setdefault(lane, []).append(
                            (float(m.group(2)) - ROWH // 2, float(m.group(3)) - ROWH // 2, style))
                elif e.get("fill") == "#000" and "l4,-7" in d:
                    p = path_points(d)
                    tris.append((lane_at(p[0] + 4), p[1] - 8))
                elif e.get("fill") in ("#000", "#fff"):
                    if e.get("fill") == "#000":
                        for m in re.finditer(r"M(-?[\d.]+) (-?[\d.]+)h3v3h-3z", d):
                            self.steps.setdefault((lane_at(float(m.group(1)) + 1),
                                                   float(m.group(2)) - 5), {"line": None})
                elif e.get("stroke-width") == "0.7":
                    p = path_points(d)
                    arrows.append([p[0], p[1], None, e.get("stroke-dasharray") is not None])
                elif d.endswith("z") and arrows and arrows[-1][2] is None:
                    arrows[-1][2] = path_points(d)[0]
                else:
                    raise NotAPicture(f"a path warpsim does not draw: {d[:40]!r}")
            elif t == "line":
                if e.get("stroke-dasharray") == "3,3":
                    race_lines.append(tuple(float(e.get(k)) for k in ("x1", "y1", "x2", "y2")))
            elif t == "use":
                continue
            else:
                raise NotAPicture(f"an element warpsim does not draw: <{t}>")
        if legend is None:
            raise NotAPicture("no legend in the picture (not drawn by warpsim --trace?)")
        # the collectives' labels, arrows, last arrivals and ballots, by row
        for c in self.colls:
            ls = [s for y, s in labels if c["y"] <= y <= c["y"] + c["h"] + 2]
            if len(ls) < 2:
                raise NotAPicture("a collective without its two labels")
            c["label"], c["met"] = ls[0], ls[1]
            m = re.search(r"\((0x[0-9a-f]{8})\)", c["label"])
            c["mask"] = m.group(1) if m else None
            m = re.search(r" at (\S+)$", c["label"])
            c["where"] = m.group(1) if m else ""
            m = re.match(r"lanes (.*) met; last in: lane (\d+)(?:; ballot (0x[0-9a-f]{8}))?", c["met"])
            if not m:
                raise NotAPicture(f"a collective label warpsim does not write: {c['met']!r}")
            c["lanes"] = parse_ranges(m.group(1))
            c["last"] = int(m.group(2))
            c["ballot_hex"] = m.group(3)
            c["name"] = re.sub(r"\(.*", "", c["label"])
            for a in arrows:
                if c["y"] <= a[1] <= c["y"] + c["h"]:
                    c["arrows"].append((lane_at(a[0]), lane_at(a[2]), a[3]))
            for lane, y, one in cells:
                if abs(y - c["y"]) < 1:
                    c["ballot"][lane] = one
        for c in self.colls:
            self.rows.add(c["y"])
        for (lane, y) in self.steps:
            self.rows.add(y)
        for _, s in list(self.moves.items()):
            m = re.match(r"(\S+\.cu):\d+", s)
            if m:
                self.files.add(m.group(1))
        for c in self.colls:
            m = re.match(r"(\S+\.cu):\d+", c["where"])
            if m:
                self.files.add(m.group(1))
        # races: the list, and each one's two marks, in the same order
        for i, s in enumerate(r for r in racelist if r.startswith("race ")):
            m = re.match(r"race (\d+) on (.*?): lane (\d+) (reads|writes) at (\S+), "
                         r"lane (\d+) (reads|writes) at (\S+)$", s)
            if not m or i >= len(race_lines):
                raise NotAPicture(f"a race warpsim does not list so: {s!r}")
            x1, y1, x2, y2 = race_lines[i]
            self.races.append({
                "n": int(m.group(1)), "on": m.group(2), "text": s,
                "a": (lane_at(x1), y1 - ROWH // 2, m.group(4), m.group(5)),
                "b": (lane_at(x2), y2 - ROWH // 2, m.group(7), m.group(8))})
        self.racelist = racelist
        self.end = max([y2 for segs in self.segs.values() for _, y2, _ in segs] +
                       [y for _, y in self.steps] + [c["y"] + c["h"] for c in self.colls] + [0])
        self.row_list = sorted(self.rows)

    # ---- what a lane does -------------------------------------------------
    def style_between(self, lane, y1, y2):
        """The style of lane's line from row y1 down to row y2 (None: no line)."""
        best = None
        for a, b, st in self.segs.get(lane, []):
            if a <= y1 + 0.5 and b >= y1 + 0.5 and a < y2:
                return st
            if a > y1 and a < y2 and best is None:
                best = st
        return best

    def waiting_at(self, lane, y):
        """The row where lane began to wait, if it is waiting at row y."""
        for a, b, st in self.segs.get(lane, []):
            if st == "wait" and a < y <= b + 0.5:
                return a
        return None

    def line_at(self, lane, y):
        """The source line lane is on at its step of row y (None: no step)."""
        line = None
        for t in self.lane_rows(lane):
            if t > y + 0.5:
                break
            line = self.steps[(lane, t)].get("line") or line
        return line if (lane, y) in self.steps else None

    def lane_rows(self, lane):
        return sorted(y for (l, y) in self.steps if l == lane)


# ---- what to show --------------------------------------------------------
def caption_keys(caption):
    masks = re.findall(r"0x[0-9a-f]{8}", caption or "")
    places = re.findall(r"[A-Za-z0-9_]+\.cu:\d+", caption or "")
    lanes = set()
    for m in re.finditer(r"\blanes? (\d+(?:\s*(?:-|,|and)\s*\d+)*)", caption or ""):
        for part in re.split(r"\s*(?:,|and)\s*", m.group(1)):
            r = re.fullmatch(r"(\d+)\s*-\s*(\d+)", part)
            if r:
                lanes.update((int(r.group(1)), int(r.group(2))))
            elif part.strip().isdigit():
                lanes.add(int(part))
    return masks, places, lanes


def choose(run, caption, forced_lanes=None):
    """(lanes, rows, focus): the lanes and rows the focused view shows."""
    masks, places, named = caption_keys(caption)
    named = {l for l in named if 0 <= l < 32}
    rows, lanes, focus = set(), [], {}
    if run.races:
        r = run.races[0]
        lanes = [r["a"][0], r["b"][0]]
        key = [r["a"][1], r["b"][1]]
        focus = {"race": r}
        rows.update(key)
        # what made a lane late: its last sleep before its access
        for lane, y in ((r["a"][0], r["a"][1]), (r["b"][0], r["b"][1])):
            slept = [t for t in run.lane_rows(lane) if t < y and run.steps[(lane, t)].get("sleep")]
            if slept:
                rows.add(slept[-1])
    else:
        # a collective whose whole label the caption quotes, the first quoted
        quoted = [(caption.find(c["label"]), i) for i, c in enumerate(run.colls)
                  if caption and c["label"] in caption]
        coll = run.colls[min(quoted)[1]] if quoted else None
        for k in ([] if coll else masks + places):   # else by a mask or place in its label
            coll = next((c for c in run.colls if k in c["label"]), None)
            if coll:
                break
        for k in masks:                   # else a ballot's result
            coll = coll or next((c for c in run.colls if k in c["met"]), None)
        if coll is None and not places and run.colls:
            coll = run.colls[0]
        if coll is not None:
            focus = {"coll": coll}
            group = sorted(coll["lanes"])
            arrivals = {}
            for lane in group:
                a = run.waiting_at(lane, coll["y"])
                if a is not None:
                    arrivals[lane] = a
            if len(group) <= MAXLANES:
                lanes = group[:]
            else:
                want = [coll["last"]]
                if arrivals:
                    want.append(min(arrivals, key=lambda l: (arrivals[l], l)))
                want += [l for l in sorted(named) if l in coll["lanes"]]
                for s, d, dashed in coll["arrows"]:
                    if dashed:
                        want += [d, s]
                want += [group[0], group[1], group[-1], group[len(group) // 2]]
                for l in want:
                    if l not in lanes and len(lanes) < MAXLANES - 1:
                        lanes.append(l)
            # the sources of the arrows into the lanes shown
            for s, d, dashed in coll["arrows"]:
                if d in lanes and s not in lanes and len(lanes) < MAXLANES:
                    lanes.append(s)
            if forced_lanes:
                lanes = list(forced_lanes)
            for l in lanes:
                if l in arrivals:
                    rows.add(arrivals[l])
            rows.add(coll["y"])
            # the collectives that follow it among the lanes shown (lane 0's
            # five shuffles alone, say), up to MAXFOLLOW more, and the
            # sources of their arrows
            after = [c for c in run.colls if c["y"] > coll["y"]]
            if len(coll["lanes"]) > MAXLANES:
                after = []
            for c in after[:MAXFOLLOW]:
                if not c["lanes"] <= set(lanes) | set(coll["lanes"]):
                    break
                rows.add(c["y"])
                focus.setdefault("follow", []).append(c)
                for s, d, dashed in c["arrows"]:
                    if d in lanes and s not in lanes and len(lanes) < MAXLANES:
                        lanes.append(s)
        else:
            # the places the caption names: the first rows where lanes move there
            lines = {}
            for p in places:
                f, n = p.split(":")
                if f in run.files or not run.files:
                    lines.setdefault(int(n), p)
            # each lane's first row at such a line: where it starts to wait
            # there, if it does, else where it gets there
            first, waits = {}, {}
            for (lane, y), st in sorted(run.steps.items(), key=lambda kv: (kv[0][1], kv[0][0])):
                line = run.line_at(lane, y)
                if line in lines:
                    first.setdefault((line, lane), y)
                    if run.waiting_at(lane, y + 1) == y:
                        waits.setdefault((line, lane), y)
            first.update(waits)
            byline = {}
            for (line, lane), y in sorted(first.items(), key=lambda kv: kv[1]):
                byline.setdefault(line, []).append((y, lane))
            for line in lines:
                for y, lane in byline.get(line, [])[:3]:
                    if lane not in lanes and len(lanes) < MAXLANES:
                        lanes.append(lane)
                        rows.add(y)
            for l in sorted(named):
                if l not in lanes and len(lanes) < MAXLANES and any(k[0] == l for k in run.steps):
                    lanes.append(l)
                    ys = [y for (ll, y), st in run.steps.items() if ll == l and st.get("line") in lines]
                    if ys:
                        rows.add(min(ys))
            # the lanes that go on stepping (a spin): their last row too
            for l in lanes:
                mine = [y for y in run.lane_rows(l) if run.line_at(l, y) in lines]
                if mine and run.waiting_at(l, mine[-1] + 1) is None and mine[-1] not in rows:
                    rows.add(mine[-1])
            focus = {"places": places}
            if not lanes:   # nothing named: the first rows of the run
                lanes = sorted({l for (l, y) in run.steps if y <= run.row_list[0]})[:MAXLANES]
                rows.update(run.row_list[:3])
    if forced_lanes:
        lanes = list(forced_lanes)
    lanes = sorted(set(l for l in lanes if l is not None))[:MAXLANES]
    return lanes, sorted(rows)[:MAXROWS], focus


# ---- drawing --------------------------------------------------------------
def E(parent, name, **attrs):
    e = ET.SubElement(parent, f"{{{NS}}}{name}")
    for k, v in attrs.items():
        e.set(k.rstrip("_").replace("_", "-"), str(v))
    return e


def T(parent, x, y, s, **attrs):
    e = E(parent, "text", x=f"{x:g}", y=f"{y:g}", **attrs)
    e.text = s
    return e


def row_notes(run, y, lanes, focus):
    """What happens in row y, in words, for the column at the right: the
    collective that completes there, or the race access, or the waits that
    start there, or the sleeps, or the lines the lanes shown move to."""
    notes = []
    shown = set(lanes)
    for c in run.colls:
        if abs(c["y"] - y) < 0.5:
            met = c["met"].replace("; last in:", ", last in")
            before = [b for b in focus.get("shown", []) if b["y"] < c["y"]]
            if before and before[-1]["label"] == c["label"] and before[-1]["met"] == c["met"]:
                notes.append("the same again")
            else:
                notes.append(f"{c['label']}: {met}")
    races = [focus["race"]] if focus.get("race") else []
    for r in races:
        for end in ("a", "b"):
            lane, ry, verb, where = r[end]
            if abs(ry - y) < 0.5 and lane in shown:
                notes.append(f"race {r['n']}: lane {lane} {verb} {r['on']} at {where}")
    if notes:
        return notes
    waits = {}
    for l in lanes:
        if run.waiting_at(l, y + 1) == y:
            ends = [c for c in run.colls if c["y"] > y and l in c["lanes"]]
            waits.setdefault(ends[0]["label"] if ends else "", []).append(l)
    for what, ls in waits.items():
        who = f"lane {ls[0]}" if len(ls) == 1 else f"lanes {ranges(ls)}"
        line = run.line_at(ls[0], y)
        if what:
            c = next(c for c in run.colls if c["label"] == what)
            notes.append(f"{who} {'arrives' if len(ls) == 1 else 'arrive'} at {c['where']} "
                         f"and {'waits' if len(ls) == 1 else 'wait'}")
        else:
            where = f" at {file_of(run, y)}:{line}" if line else ""
            notes.append(f"{who} {'arrives' if len(ls) == 1 else 'arrive'}{where} and "
                         f"{'waits' if len(ls) == 1 else 'wait'}")
    if notes:
        return notes
    for l in lanes:
        st = run.steps.get((l, y))
        if st and st.get("sleep"):
            notes.append(f"lane {l} sleeps {st['sleep']} ns")
    if notes:
        return notes
    movers = sorted(l for l in lanes if run.steps.get((l, y), {}).get("line"))
    if movers:
        lines = {run.steps[(l, y)]["line"] for l in movers}
        who = "lane" if len(movers) == 1 else "lanes"
        notes.append(f"{who} {ranges(movers)} at " +
                     ", ".join(f"{file_of(run, y)}:{n}" for n in sorted(lines)))
    return notes


def file_of(run, y):
    """The source file of the lines at row y (warpsim's label, else the run's)."""
    m = re.match(r"(\S+\.cu):", run.moves.get(y, ""))
    if m:
        return m.group(1)
    return sorted(run.files)[0] if run.files else "?"


def focus_view(run, caption="", forced_lanes=None, label=""):
    lanes, rows, focus = choose(run, caption, forced_lanes)
    if not lanes or not rows:
        raise NotAPicture("nothing to show")
    focus["shown"] = [c for c in run.colls if any(abs(c["y"] - y) < 0.5 for y in rows)]
    marks = {"lanes"}
    out = ET.Element(f"{{{NS}}}svg")
    # columns: a gap between two lanes that are not neighbours
    colw = 34 if len(lanes) <= 5 else 30
    x, cols = 10, {}
    for i, l in enumerate(lanes):
        if i and l != lanes[i - 1] + 1:
            x += 12
            marks.add("lanes-left-out")
        cols[l] = x + colw / 2
        x += colw
    notex = x + 12
    notew = WIDTH - notex - 6
    # rows, with a row of dots where rows of the run are left out
    layout = []          # (kind, y_run, top, height, notes)
    top = 44
    prev = None
    allrows = run.row_list
    for y in rows:
        if prev is not None:
            between = [r for r in allrows if prev < r < y]
            if between or any(prev < g < y for g, _ in run.gaps):
                n = len(between)
                layout.append(("dots", None, top, 22, [f"{n} rows left out" if n != 1 else
                                                        "1 row left out"]))
                marks.add("rows-left-out")
                top += 22
        notes = row_notes(run, y, lanes, focus)
        lines = [ln for n in notes for ln in wrap(n, notew)]
        coll = next((c for c in run.colls if abs(c["y"] - y) < 0.5), None)
        h = max(28, LINEH * len(lines) + 8)
        if coll and (coll["arrows"] or coll["ballot"]):
            h = max(h, 46)
        layout.append(("row", y, top, h, lines))
        top += h
        prev = y
    # still waiting at the end of the run (where no collective is shown)?
    tail = [] if not focus.get("places") else [
        l for l in lanes if any(st == "wait" and a <= rows[-1] + 0.5 and b >= run.end - 3
                                for a, b, st in run.segs.get(l, []))]
    if tail:
        layout.append(("end", None, top, 26,
                       wrap(f"lane{'s' if len(tail) > 1 else ''} {ranges(tail)} still "
                            "waiting where the run's picture ends", notew)))
        top += max(26, LINEH * len(layout[-1][4]) + 8)
    height = int(top + 8)
    out.set("width", str(WIDTH))
    out.set("height", str(height))
    out.set("viewBox", f"0 0 {WIDTH} {height}")
    out.set("font-family", "DejaVu Sans, Verdana, sans-serif")
    out.set("font-size", str(FONT))
    ttl = E(out, "title")
    ttl.text = (f"warpsim, {label or 'model ' + run.model}: lanes {ranges(lanes)} of warp 0 in "
                f"{run.kernel}, the rows that matter")
    defs = E(out, "defs")
    pat = E(defs, "pattern", id="hatch", width=6, height=6, patternUnits="userSpaceOnUse",
            patternTransform="rotate(45)")
    E(pat, "rect", width=6, height=6, fill="#f4f4f4")
    E(pat, "line", x1=0, y1=0, x2=0, y2=6, stroke="#999", stroke_width=2)
    E(out, "rect", width=WIDTH, height=height, fill="#fff")
    # the header: lane numbers, and what this run is
    head = E(out, "g", font_weight="bold", text_anchor="middle")
    for l in lanes:
        T(head, cols[l], 20, str(l))
    for i, ln in enumerate(wrap(label or f"{run.model} run", notew, bold=True)[:2]):
        T(out, notex, 20 + 16 * i, ln, font_weight="bold")
    E(out, "line", x1=f"{cols[lanes[0]] - colw / 2:g}", y1=27,
      x2=f"{cols[lanes[-1]] + colw / 2:g}", y2=27, stroke="#555b61")
    # where each row's events sit
    ymid = {}
    for kind, y, t0, h, lines in layout:
        if kind == "row":
            ymid[y] = t0 + 16
    # bands of the collectives shown (under everything else)
    for kind, y, t0, h, lines in layout:
        if kind != "row":
            continue
        for c in run.colls:
            if abs(c["y"] - y) > 0.5:
                continue
            inside = [l for l in lanes if l in c["lanes"]]
            if not inside:
                continue
            x0, x1 = cols[inside[0]] - colw / 2 + 2, cols[inside[-1]] + colw / 2 - 2
            E(out, "rect", x=f"{x0:g}", y=t0 + 3, width=f"{x1 - x0:g}", height=h - 6,
              fill="url(#hatch)" if c["barrier"] else "#e4e4e4", stroke="#000",
              **({"stroke_dasharray": "4,2"} if c["barrier"] else {}))
            marks.add("barrier" if c["barrier"] else "collective")
            if c["last"] in cols:
                cx = cols[c["last"]]
                E(out, "path", d=f"M{cx - 6:g},{t0 + 16} l6,-10 l6,10 z", fill="#000")
                marks.add("last-in")
            for s, d, dashed in c["arrows"]:
                if s in cols and d in cols and s != d:
                    ya, yb = t0 + 10, t0 + h - 8
                    xa, xb = cols[s], cols[d]
                    dx, dy = xb - xa, yb - ya
                    n = (dx * dx + dy * dy) ** 0.5
                    ux, uy = dx / n, dy / n
                    E(out, "path", d=f"M{xa:g} {ya:g}L{xb - 7 * ux:.1f} {yb - 7 * uy:.1f}",
                      stroke="#000", stroke_width=1.4,
                      **({"stroke_dasharray": "4,3"} if dashed else {}))
                    E(out, "path", d=f"M{xb:g} {yb:g}L{xb - 9 * ux - 4 * uy:.1f} {yb - 9 * uy + 4 * ux:.1f}"
                                      f"L{xb - 9 * ux + 4 * uy:.1f} {yb - 9 * uy - 4 * ux:.1f}z")
                    marks.add("arrow-dashed" if dashed else "arrow")
            for l in inside:
                if l in c["ballot"]:
                    E(out, "rect", x=f"{cols[l] - 6:g}", y=t0 + h - 19, width=12, height=12,
                      fill="#000" if c["ballot"][l] else "#fff", stroke="#000")
                    marks.add("ballot")
    # the lanes' lines between the rows shown (none across a row of dots)
    styles = {"run": {}, "sleep": {"stroke_dasharray": "7,4", "stroke_width": 3},
              "wait": {"stroke_dasharray": "1.5,3", "stroke_width": 1.6}}
    seq = [(y, ymid[y]) for kind, y, *_ in layout if kind == "row"]
    broken = set()
    for i, (kind, y, t0, h, _) in enumerate(layout):
        if kind == "dots":
            broken.add(i)
    idx = {y: i for i, (k, y, *_) in enumerate(layout) if k == "row"}
    for l in lanes:
        alive = run.lane_rows(l)
        if not alive:
            continue
        for (y1, m1), (y2, m2) in zip(seq, seq[1:]):
            st = run.style_between(l, y1, y2)
            if st is None or y1 < alive[0] - 0.5:
                continue
            gap = any(idx[y1] < j < idx[y2] for j in broken)
            if gap:
                # up to the dots and on from them
                j = next(j for j in sorted(broken) if idx[y1] < j < idx[y2])
                dt = layout[j][2]
                E(out, "path", d=f"M{cols[l]:g} {m1:g}V{dt + 2:g}M{cols[l]:g} {dt + 20:g}V{m2:g}",
                  fill="none", stroke="#000", **styles[st])
                E(out, "text", x=f"{cols[l]:g}", y=f"{dt + 17:g}", text_anchor="middle",
                  fill="#555b61").text = "⋮"
            else:
                E(out, "path", d=f"M{cols[l]:g} {m1:g}V{m2:g}", fill="none", stroke="#000",
                  **styles[st])
            marks.add({"run": "running", "sleep": "asleep", "wait": "waiting"}[st])
        # waiting to the end
        if l in tail and seq:
            E(out, "path", d=f"M{cols[l]:g} {seq[-1][1]:g}V{height - 8}", fill="none",
              stroke="#000", **styles["wait"])
            marks.add("waiting")
    # the steps: a line number where a lane moves to a line, a dot where it
    # stays on its line; a ring on an access in a race
    race_pts = {}
    for r in ([focus["race"]] if focus.get("race") else []):
        for end in ("a", "b"):
            lane, ry = r[end][0], r[end][1]
            if lane in cols and ry in ymid:
                race_pts.setdefault(r["n"], []).append((cols[lane], ymid[ry]))
    for r, pts in race_pts.items():
        if len(pts) == 2:
            (xa, ya), (xb, yb) = pts
            E(out, "line", x1=f"{xa:g}", y1=f"{ya:g}", x2=f"{xb:g}", y2=f"{yb:g}", stroke="#000",
              stroke_width=1.5, stroke_dasharray="5,4")
            marks.add("race-line")
    patches = E(out, "g", fill="#fff")
    nums = E(out, "g", text_anchor="middle")
    for (l, y), st in sorted(run.steps.items(), key=lambda kv: kv[0][1]):
        if l not in cols or y not in ymid:
            continue
        cx, cy = cols[l], ymid[y]
        if st.get("line"):
            w = text_width(str(st["line"])) + 4
            E(patches, "rect", x=f"{cx - w / 2:g}", y=cy - 9, width=f"{w:g}", height=17)
            T(nums, cx, cy + 5, str(st["line"]))
            marks.add("line")
        else:
            E(out, "rect", x=cx - 2.5, y=cy - 2.5, width=5, height=5, fill="#000")
            marks.add("dot")
    for r in ([focus["race"]] if focus.get("race") else []):
        for end in ("a", "b"):
            lane, ry = r[end][0], r[end][1]
            if lane in cols and ry in ymid:
                E(out, "circle", cx=f"{cols[lane]:g}", cy=ymid[ry], r=13, fill="none",
                  stroke="#000", stroke_width=2)
                marks.add("race")
    # the words at the right of each row, and the rows of dots
    for kind, y, t0, h, lines in layout:
        for i, ln in enumerate(lines):
            T(out, notex, t0 + 21 + LINEH * i, ln, **({"fill": "#555b61"} if kind != "row" else {}))
    out.set("data-marks", " ".join(sorted(marks)))
    out.set("data-lanes", ",".join(str(l) for l in lanes))
    return out


# ---- the full run ----------------------------------------------------------
SUPPLEMENT = [
    "an empty lane column: that lane took no step in the rows drawn",
    "zz N under a line number: the lane sleeps N ns (__nanosleep) after that step",
    "a dashed line between two crossed circles: the two accesses of one race",
    "a grey band across the lanes: rows left out, the lane steps they hide counted at the right",
]


def full_view(root):
    """The picture with its clock column left out and its legend completed."""
    runs = root.findall(f"{{{NS}}}svg") or [root]
    grow = 16 * len(SUPPLEMENT)
    for run in runs:
        legend = None
        for e in list(run):
            if tag(e) == "text" and e.get("class") == "c":
                run.remove(e)
            elif tag(e) == "text" and e.get("y") == "34":
                e.text = text_of(e).replace("; left: the lane's virtual clock (cycles)", "")
            elif tag(e) == "style":
                run.remove(e)
            elif tag(e) == "g" and e.find(f"{{{NS}}}text") is not None and \
                    text_of(e.find(f"{{{NS}}}text")) == "Legend":
                legend = e
        if legend is None:
            raise NotAPicture("no legend in the picture (not drawn by warpsim --trace?)")
        if any(text_of(t) == SUPPLEMENT[0] for t in legend.iter(f"{{{NS}}}text")):
            continue
        y = max(float(t.get("y")) for t in legend.iter(f"{{{NS}}}text"))
        for s in SUPPLEMENT:
            y += 16
            t = ET.SubElement(legend, f"{{{NS}}}text", {"x": str(LEFT), "y": f"{y:g}"})
            t.text = s
        h = float(run.get("height")) + grow
        run.set("height", f"{h:g}")
        vb = run.get("viewBox", "").split()
        if len(vb) == 4:
            vb[3] = f"{float(vb[3]) + grow:g}"
            run.set("viewBox", " ".join(vb))
        for r in run.findall(f"{{{NS}}}rect"):
            if r.get("fill") == "#fff" and r.get("x") is None and r.get("height"):
                r.set("height", f"{float(r.get('height')) + grow:g}")
    if runs != [root]:
        h = max(float(r.get("height")) for r in runs)
        root.set("height", f"{h:g}")
        vb = root.get("viewBox", "").split()
        if len(vb) == 4:
            vb[3] = f"{h:g}"
            root.set("viewBox", " ".join(vb))
    return root


# ---- checking a caption ----------------------------------------------------
def check(svg, caption):
    """The claims of caption that the focused view svg does not show."""
    text = " ".join(text_of(t) for t in svg.iter(f"{{{NS}}}text"))
    cols = {int(v) for v in (svg.get("data-lanes") or "").split(",") if v.strip()}
    missing = []
    for k in dict.fromkeys(re.findall(r"[A-Za-z0-9_]+\.cu:\d+|0x[0-9a-f]{8}", caption)):
        if k not in text:
            missing.append(k)
    for m in re.finditer(r"\blanes? (\d+(?:\s*(?:-|,|and)\s*\d+)*)", caption):
        claim = m.group(0)
        for part in re.split(r"\s*(?:,|and)\s*", m.group(1)):
            r = re.fullmatch(r"(\d+)\s*-\s*(\d+)", part)
            if r:
                a, b = int(r.group(1)), int(r.group(2))
                if f"{a}-{b}" not in text and not {a, b} <= cols:
                    missing.append(f"{claim} ({a}-{b})")
            elif part.strip().isdigit() and int(part) not in cols:
                missing.append(f"{claim} (lane {part})")
    return missing


def text_boxes(svg):
    """The box of every text of a focused view: (x0, y0, x1, y1, text)."""
    boxes = []

    def walk(e, anchor, size, bold):
        anchor = e.get("text-anchor", anchor)
        size = float(e.get("font-size", size))
        bold = e.get("font-weight", "bold" if bold else "") == "bold"
        if tag(e) == "text" and text_of(e).strip():
            s = text_of(e)
            w = text_width(s, size, bold)
            x, y = float(e.get("x")), float(e.get("y"))
            x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
            boxes.append((x0, y - 0.76 * size, x0 + w, y + 0.24 * size, s))
        for k in e:
            walk(k, anchor, size, bold)
    walk(svg, "start", FONT, False)
    return boxes


def overlaps(svg):
    """The pairs of texts of a focused view that overlap (none should), and
    the texts that run past its width."""
    boxes = text_boxes(svg)
    width = float(svg.get("width"))
    out = [f"{s!r} runs past the picture's right edge" for x0, y0, x1, y1, s in boxes
           if x1 > width + 0.5 or x0 < -0.5]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5:
                out.append(f"{a[4]!r} overlaps {b[4]!r}")
    return out


def load(path):
    try:
        return ET.parse(path).getroot()
    except (OSError, ET.ParseError) as err:
        raise NotAPicture(f"{path}: {err}")


def write(svg, path):
    data = ET.tostring(svg, encoding="unicode")
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n' + data + "\n")


def pick_run(root, model):
    runs = root.findall(f"{{{NS}}}svg") or [root]
    if not model:
        return runs[-1]
    for r in runs:
        t = r.find(f"{{{NS}}}text")
        for t in r.findall(f"{{{NS}}}text"):
            if t.get("y") == "18" and text_of(t).startswith(f"model {model}:"):
                return r
    raise NotAPicture(f"no run of model {model} in the picture")


USAGE = ("usage: trace_svg.py focus PICTURE.svg OUT.svg [--run MODEL] [--caption TEXT]"
         " [--lanes L,L] [--label TEXT] | full PICTURE.svg OUT.svg | check PICTURE.svg TEXT"
         " | marks PICTURE.svg | overlaps PICTURE.svg (try --help)")


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    try:
        if len(argv) >= 4 and argv[1] == "focus":
            opts, rest = {}, argv[4:]
            while rest:
                if rest[0] in ("--run", "--caption", "--lanes", "--label") and len(rest) > 1:
                    opts[rest[0][2:]] = rest[1]
                    rest = rest[2:]
                else:
                    print(USAGE, file=sys.stderr)
                    return 2
            lanes = None
            if opts.get("lanes"):
                if not re.fullmatch(r"\d+(,\d+)*", opts["lanes"]):
                    print("trace_svg.py: --lanes takes lane numbers, such as 0,2,16",
                          file=sys.stderr)
                    return 2
                lanes = [int(v) for v in opts["lanes"].split(",")]
            run = Run(pick_run(load(argv[2]), opts.get("run")))
            write(focus_view(run, opts.get("caption", ""), lanes, opts.get("label", "")), argv[3])
        elif len(argv) == 4 and argv[1] == "full":
            write(full_view(load(argv[2])), argv[3])
        elif len(argv) == 4 and argv[1] == "check":
            missing = check(load(argv[2]), argv[3])
            for m in missing:
                print(f"{argv[2]}: the caption names {m}, which the picture does not show")
            return 1 if missing else 0
        elif len(argv) == 3 and argv[1] == "overlaps":
            bad = overlaps(load(argv[2]))
            for b in bad:
                print(f"{argv[2]}: {b}")
            return 1 if bad else 0
        elif len(argv) == 3 and argv[1] == "marks":
            for m in (load(argv[2]).get("data-marks") or "").split():
                print(m)
        else:
            print(USAGE, file=sys.stderr)
            return 2
    except NotAPicture as err:
        print(f"trace_svg.py: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
