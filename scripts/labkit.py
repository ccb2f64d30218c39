#!/usr/bin/env python3
"""labkit.py - the lab kits: a GitHub Classroom template repository and a
Gradescope autograder, made from this repository for some of its lessons.

  labkit.py classroom DEST [LESSON...]   (make classroom DEST=dir LESSONS="01 06")
  labkit.py gradescope ZIP [LESSON...]   (make gradescope DEST=file.zip LESSONS=...)

Both hold the same tree: each chosen lesson with what a student needs to
build and check a file on warpsim (the CPU emulator) and nothing that
answers its exercise, beside the shared files:

  lessons/NN-name/   Makefile check.sh exercise.mk harness.cu *.h *.cuh,
                     legacy.cu and the exercise's starter (exercise.mk's
                     EXERCISE_STARTER), README.md without its answer
                     sections (the lines from `<!-- answer -->` to
                     `<!-- /answer -->`), and mine.cu, a copy of the starter:
                     the file the student edits. Not there: sync.cu, cg.cu,
                     wrong/, right/, benchmarks.
  include/ mk/ warpsim/   as here, without build outputs
  scripts/           grade.py, install-tools.sh and the scripts the checkers
                     and makefiles name (checklib.sh, ...)
  Makefile README.md .gitignore LICENSE LICENSE-text.md .devcontainer/

A README that still shows a block of sync.cu or cg.cu outside its answer
markers stops the kit with one line naming it: no solution text leaves.

classroom adds .github/workflows/classroom.yml: the workflow GitHub
Classroom's autograding reads (named "Autograding Tests", one job named
run-autograding-tests), a grader step per part of each lesson's exercise
with the part's points (classroom-resources/autograding-command-grader: the
step passes when `python3 scripts/grade.py --part PART lessons/NN-name`
exits 0), each within PART_MINUTES minutes, and the reporter
(classroom-resources/autograding-grading-reporter) that adds the points up.

gradescope writes a zip whose root holds setup.sh (installs the tools with
scripts/install-tools.sh, then builds warpsim and each lesson's shared files
once), run_autograder (grade.py --gradescope) and the tree.

Exit status 0 made, 2 bad usage (one line).
"""

import json
import os
import re
import shutil
import stat
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import grade  # noqa: E402  (the lessons and their exercises)

TOP = grade.TOP
KIT = TOP / "scripts" / "labkit"
PART_MINUTES = 3
ANSWER_FILES = ("sync.cu", "cg.cu")
LESSON_FILES = ("Makefile", "check.sh", "exercise.mk", "harness.cu", "legacy.cu")
SKIP_DIRS = {"build", "_build", "__pycache__", ".git"}


class Usage(Exception):
    pass


def copy_tree(src, dst):
    """src to dst without build outputs."""
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        rel = Path(root).relative_to(src)
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for f in sorted(files):
            shutil.copy2(Path(root) / f, dst / rel / f)


def strip_answers(text, where):
    """The README without its answer sections; each becomes one line naming
    the section it was. A block from an answer file left outside the
    markers stops the kit."""
    out = []
    inside = False
    heading = None
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s == "<!-- answer -->":
            if inside:
                raise Usage(f"{where}:{n}: <!-- answer --> inside an answer section")
            inside, heading = True, None
            continue
        if s == "<!-- /answer -->":
            if not inside:
                raise Usage(f"{where}:{n}: <!-- /answer --> without <!-- answer -->")
            inside = False
            what = f"\u201c{heading}\u201d" if heading else "a section"
            out.append(f"*({what} shows the answer: it is left out of this assignment.)*")
            continue
        if inside:
            if heading is None and s.startswith("#"):
                heading = s.lstrip("#").strip().replace("`", "")
            continue
        m = re.search(r'include="([^"]+)"', line)
        if m and Path(m.group(1)).name in ANSWER_FILES:
            raise Usage(f"{where}:{n}: a block of {m.group(1)} outside <!-- answer --> ... "
                        f"<!-- /answer -->: it would show the answer")
        out.append(line)
    if inside:
        raise Usage(f"{where}: <!-- answer --> never closed")
    return "\n".join(out) + "\n"


def needed_scripts():
    """The scripts the tree needs: grade.py, install-tools.sh, and every
    script the makefiles, checkers and needed scripts name."""
    names = {p.name for p in (TOP / "scripts").iterdir() if p.is_file()}
    need = {"grade.py", "install-tools.sh", "need-tools.sh"}
    sources = list((TOP / "mk").glob("*.mk")) + list((TOP / "lessons").glob("*/check.sh")) \
        + list((TOP / "lessons").glob("*/Makefile"))
    seen = set()
    while True:
        texts = [p.read_text(errors="replace") for p in sources]
        texts += [(TOP / "scripts" / n).read_text(errors="replace") for n in need - seen]
        seen |= need
        more = {n for n in names for t in texts if re.search(r"(^|[^A-Za-z0-9_.-])" + re.escape(n) + r"\b", t)}
        if more <= need:
            return sorted(need)
        need |= more
        sources = []


def make_tree(dest, lessons, devcontainer_needs="grade"):
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise Usage(f"DEST={dest}: exists and is not an empty folder")
    dest.mkdir(parents=True, exist_ok=True)
    for d in ("include", "mk", "warpsim"):
        copy_tree(TOP / d, dest / d)
    (dest / "scripts").mkdir()
    for n in needed_scripts():
        shutil.copy2(TOP / "scripts" / n, dest / "scripts" / n)
    for n in ("LICENSE", "LICENSE-text.md"):
        if (TOP / n).is_file():
            shutil.copy2(TOP / n, dest / n)
    if (TOP / ".devcontainer").is_dir():
        copy_tree(TOP / ".devcontainer", dest / ".devcontainer")
        dc = dest / ".devcontainer" / "devcontainer.json"
        if dc.is_file():
            dc.write_text(dc.read_text().replace('"NEEDS": "dev"', f'"NEEDS": "{devcontainer_needs}"'))
    for lesson in lessons:
        src = lesson.path
        out = dest / "lessons" / lesson.name
        out.mkdir(parents=True)
        files = set(LESSON_FILES) | {lesson.starter}
        files |= {p.name for p in src.iterdir() if p.is_file() and p.suffix in (".h", ".cuh")}
        for f in sorted(files):
            if (src / f).is_file():
                shutil.copy2(src / f, out / f)
        if lesson.starter in ANSWER_FILES:
            raise Usage(f"{lesson.name}: the starter {lesson.starter} is an answer file")
        shutil.copy2(src / lesson.starter, out / "mine.cu")
        readme = src / "README.md"
        if readme.is_file():
            (out / "README.md").write_text(strip_answers(readme.read_text(), f"{lesson.name}/README.md"))
    shutil.copy2(KIT / "Makefile", dest / "Makefile")
    shutil.copy2(KIT / "gitignore", dest / ".gitignore")
    (dest / "README.md").write_text(student_readme(lessons))


def student_readme(lessons):
    rows = []
    for lesson in lessons:
        parts = ", ".join(f"`{n}` {p}" for n, p in lesson.parts)
        rows.append(f"| [{lesson.name}](lessons/{lesson.name}/README.md) | `lessons/{lesson.name}/mine.cu` "
                    f"(from `{lesson.starter}`) | {parts} |")
    first = lessons[0]
    text = (KIT / "README.md").read_text()
    return (text.replace("@LESSONS@", "\n".join(rows))
                .replace("@FIRST@", first.name)
                .replace("@FIRST_DEMO@", first.demo if len(first.parts) == 1 else f'"{first.demo}"')
                .replace("@TOTAL@", str(10 * len(lessons)))
                .replace("@MINUTES@", str(PART_MINUTES)))


def step_id(lesson, part):
    return "lesson" + lesson.number + re.sub(r"[^A-Za-z0-9]", "", part)


def q(text):
    """A YAML double-quoted scalar (JSON's string syntax is YAML's)."""
    return json.dumps(text)


def workflow(lessons):
    parts = [(lesson, n, p) for lesson in lessons for n, p in lesson.parts]
    lines = [
        "# Grades this assignment on each push, on GitHub's hosted runners (no GPU,",
        "# no CUDA toolkit): warpsim, the CPU emulator in warpsim/, runs each",
        "# lesson's checks. One grader step per part of each lesson's exercise,",
        "# with the part's points; the reporter adds them up for GitHub Classroom,",
        "# which reads this workflow by its name and its job's. Made by",
        "# `make classroom`; scripts/grade.py --part says what a step runs.",
        "name: Autograding Tests",
        "on: [push, workflow_dispatch, repository_dispatch]",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest",
        "    if: github.actor != 'github-classroom[bot]'",
        f"    timeout-minutes: {10 + PART_MINUTES * len(parts)}",
        "    steps:",
        "      - name: Checkout code",
        "        uses: actions/checkout@v4",
        "      - name: Install what the checks need (only what is missing)",
        "        run: scripts/install-tools.sh grade",
        "      - name: Build warpsim and each lesson's shared files",
        "        run: python3 scripts/grade.py --prepare",
    ]
    for lesson, n, p in parts:
        sid = step_id(lesson, n)
        lines += [
            f"      - name: {q(f'{lesson.name}: {n} ({p} points)')}",
            f"        id: {sid}",
            "        uses: classroom-resources/autograding-command-grader@v1",
            "        with:",
            f"          test-name: {q(f'{lesson.name}: {n}')}",
            f"          command: {q(f'python3 scripts/grade.py --part {n} lessons/{lesson.name}')}",
            f"          timeout: {PART_MINUTES}",
            f"          max-score: {p}",
        ]
    lines += [
        "      - name: Autograding Reporter",
        "        uses: classroom-resources/autograding-grading-reporter@v1",
        "        env:",
    ]
    for lesson, n, _ in parts:
        sid = step_id(lesson, n)
        lines.append(f"          {sid.upper()}_RESULTS: \"${{{{steps.{sid}.outputs.result}}}}\"")
    lines += [
        "        with:",
        f"          runners: {','.join(step_id(lesson, n) for lesson, n, _ in parts)}",
    ]
    return "\n".join(lines) + "\n"


def classroom(dest, items):
    lessons = grade.find_lessons(items)
    make_tree(dest, lessons)
    wf = Path(dest) / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "classroom.yml").write_text(workflow(lessons))
    n = sum(len(lesson.parts) for lesson in lessons)
    print(f"classroom: wrote {dest}: {len(lessons)} lessons ({' '.join(lesson.number for lesson in lessons)}), "
          f"{n} grader steps, {10 * len(lessons)} points; push it to a repository, mark it a template, "
          f"and make it the assignment's starter code (docs/pages/lab.md)")


def gradescope(zip_path, items):
    lessons = grade.find_lessons(items)
    zip_path = Path(zip_path)
    if zip_path.suffix != ".zip":
        raise Usage(f"DEST={zip_path}: give a file name ending in .zip")
    if zip_path.exists():
        raise Usage(f"DEST={zip_path}: exists (remove it first)")
    import tempfile
    with tempfile.TemporaryDirectory(prefix="gradescope-") as tmp:
        root = Path(tmp) / "kit"
        make_tree(root, lessons)
        for n in ("setup.sh", "run_autograder"):
            shutil.copy2(KIT / n, root / n)
        zip_path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
            for p in sorted(root.rglob("*")):
                if p.is_file():
                    info = zipfile.ZipInfo.from_file(p, p.relative_to(root).as_posix())
                    info.compress_type = zipfile.ZIP_DEFLATED
                    with open(p, "rb") as f:
                        z.writestr(info, f.read())
    size = zip_path.stat().st_size
    print(f"gradescope: wrote {zip_path} ({size // 1024} KiB): {len(lessons)} lessons "
          f"({' '.join(lesson.number for lesson in lessons)}); upload it as the assignment's "
          f"autograder (Ubuntu 22.04 base image; docs/pages/lab.md)")


def main(argv):
    try:
        if len(argv) < 2 or argv[0] not in ("classroom", "gradescope") or argv[1] in ("", "-h", "--help"):
            if argv and argv[0] in ("-h", "--help"):
                print(__doc__)
                return 0
            raise Usage("usage: labkit.py classroom DEST [LESSON...] | gradescope FILE.zip [LESSON...]")
        if argv[0] == "classroom":
            classroom(argv[1], argv[2:])
        else:
            gradescope(argv[1], argv[2:])
        return 0
    except (Usage, grade.Usage) as e:
        print(f"labkit: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
