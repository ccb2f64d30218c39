#!/usr/bin/env python3
"""readme-blocks.py - keeps the code and output blocks of the lesson READMEs
equal to what they show, so that a README read on GitHub holds the real code
and the real recorded output, not a pointer to them.

A fenced block whose opening line carries include="..." (with function= or
lines=) or transcript="..." (with match=) is filled with what
docs/filters/include.lua pulls for it when the site is built: the same
filter, run through Pandoc, decides the content, so the README, the site and
the handouts cannot disagree.

  scripts/readme-blocks.py [--check] [README.md ...]

With no file, every lessons/*/README.md. Without --check, rewrites the
blocks in place and says which files changed. With --check, changes nothing
and exits 1 naming each stale block (make test runs this). Exit status 2 on
usage errors or when Pandoc or the filter fails (a marker that no longer
matches the source, say).
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILTER = os.path.join(ROOT, "docs", "filters", "include.lua")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<info>\{.*\})\s*$")


def blocks(lines):
    """(start, end, indent, info) of each fenced block that pulls content:
    start is the opening fence's index, end the closing fence's."""
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m.group("fence"), m.group("indent")
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        if j == len(lines):
            raise SystemExit("readme-blocks: unclosed code block at line %d" % (i + 1))
        info = m.group("info")
        if "include=" in info or "transcript=" in info:
            found.append((i, j, indent, info))
        i = j + 1
    return found


def pulled(readme, infos):
    """What include.lua puts in each block, in order (one Pandoc run)."""
    doc = "\n\n".join("```%s\n```" % info for info in infos) + "\n"
    cmd = ["pandoc", "--from", "markdown", "--to", "json", "--lua-filter", FILTER,
           "-M", "srcdir=" + os.path.dirname(os.path.abspath(readme)),
           "-M", "root=" + ROOT, "-M", "page=" + os.path.relpath(readme, ROOT)]
    try:
        run = subprocess.run(cmd, input=doc, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise SystemExit("readme-blocks: pandoc not found (make test installs it)")
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        raise SystemExit(2)
    texts = [b["c"][1] for b in json.loads(run.stdout)["blocks"] if b["t"] == "CodeBlock"]
    if len(texts) != len(infos):
        raise SystemExit("readme-blocks: %s: expected %d blocks back, got %d"
                         % (readme, len(infos), len(texts)))
    return texts


def update(readme, check):
    """Returns the 1-based line numbers of the stale blocks."""
    with open(readme, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = blocks(lines)
    if not found:
        return []
    texts = pulled(readme, [info for _, _, _, info in found])
    stale, out, pos = [], [], 0
    for (start, end, indent, _), text in zip(found, texts):
        want = [(indent + t) if t else t for t in text.split("\n")] if text else []
        if lines[start + 1:end] != want:
            stale.append(start + 1)
        out += lines[pos:start + 1] + want
        pos = end
    out += lines[pos:]
    if stale and not check:
        with open(readme, "w", encoding="utf-8") as f:
            f.write("\n".join(out))
    return stale


def main(argv):
    check = False
    files = []
    for a in argv:
        if a == "--check":
            check = True
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("-"):
            sys.stderr.write("readme-blocks: unknown option %s\n" % a)
            return 2
        else:
            files.append(a)
    if not files:
        lessons = os.path.join(ROOT, "lessons")
        files = sorted(os.path.join(lessons, d, "README.md") for d in os.listdir(lessons)
                       if re.match(r"\d\d-", d) and
                       os.path.isfile(os.path.join(lessons, d, "README.md")))
    status = 0
    for readme in files:
        if not os.path.isfile(readme):
            sys.stderr.write("readme-blocks: %s: no such file\n" % readme)
            return 2
        stale = update(readme, check)
        name = os.path.relpath(readme, ROOT)
        if stale and check:
            status = 1
            for line in stale:
                print("%s:%d: block is stale (scripts/readme-blocks.py updates it)" % (name, line))
        elif stale:
            print("updated %s (%d blocks)" % (name, len(stale)))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
