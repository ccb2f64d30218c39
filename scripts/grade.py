#!/usr/bin/env python3
"""grade.py - lab grading: a student's lesson files through the lessons' own
checkers (`make check SRC=FILE DEMO=PARTS`), scored on what each lesson's
exercise asks (lessons/NN-name/exercise.mk).

  grade.py [LESSON...]                   one student, in this tree: each
                                         lesson's GRADE_FILE (default mine.cu)
  grade.py --submissions DIR [LESSON...] a class: one folder per student
  grade.py --part PART LESSON            one part of one lesson's exercise
                                         (a GitHub Classroom grader step)
  grade.py --prepare [LESSON...]         only build what the checks share
  grade.py --gradescope                  a Gradescope run: the submission in
                                         $AUTOGRADER_ROOT/submission (default
                                         /autograder), results.json in
                                         $AUTOGRADER_ROOT/results

A LESSON is a folder (lessons/01-shfl-reduction), a lesson's name
(01-shfl-reduction) or its number (01); none: every lesson with an
exercise.mk. A lesson's points are the sum of the points of the parts of its
exercise that pass (EXERCISE_PARTS := tree:10 or activemask:2 partners:2 ...;
10 in all); a part passes when its demonstration (DEMO=NAME) meets every
expectation the lesson's sync.cu meets, on warpsim (every scheduling model)
and, where there is a GPU, on the GPU too. A missing file scores 0 with the
line that says which starter to copy; a file the checker refuses or that
does not build scores 0 with the line that says why.

A student's file is untrusted: it is copied (a regular file of at most
GRADE_MAX_BYTES, default 1 MiB; a link is refused) into a folder of the
grader's, built under a name of its own (MINE=grade-mine, or grade/NNN-NAME
for each student of a class, so that students graded side by side never
share a program, nor a student's own make check), and each check is bounded in
time (GRADE_TIMEOUT seconds, default 300, for build and check together; the
checker bounds its own runs well within that) and in what is kept of its
output (its first and last lines).

One student (make grade): a line per lesson with its points, for a lesson
that lost points the line that locates its first problem, and "Score X/Y";
exit status 0 at full marks, 1 otherwise, 2 on bad usage, 77 when nothing can
run here. --report DIR (make grade JUNIT=DIR) also writes DIR/results.json
(Gradescope's format: a test per part) and DIR/grade.xml (JUnit), both
written by Python's json and xml.etree.

A class (make grade SUBMISSIONS=DIR): each folder of DIR is a student,
holding a file per lesson named 01-shfl-reduction.cu or 01.cu, or a tree with
lessons/01-shfl-reduction/mine.cu (also inside one folder of its own, as an
unpacked archive has it). Students are graded side by side (GRADE_JOBS at a
time, default one per core); a submission that does not build, crashes or
never ends costs its own student the points, never the others. Writes a CSV
(--csv, default grades.csv): student, points per lesson, total, maximum,
first problem; prints the same as a table; each check's output kept in
--logs DIR when given. Exit status 0 once all are graded.
"""

import argparse
import concurrent.futures
import csv
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections import deque
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
MAKE = os.environ.get("MAKE", "make")
TIMEOUT = 300
MAX_BYTES = 1 << 20
KEEP_LINES = 400          # of a check's output: the first and the last so many
LINE_CHARS = 2000         # a longer line is cut
OUTPUT_CHARS = 16000      # of a check's output in a report: the first quarter and the end


class Usage(Exception):
    """Bad usage or bad input: one line, exit status 2."""


def env_number(name, default):
    text = os.environ.get(name, "")
    if text == "":
        return default
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise Usage(f"{name}={text}: a whole number from 1")
    return int(text)


# ---- lessons and their exercises ------------------------------------------

class Lesson:
    """A lesson folder and its exercise (exercise.mk)."""

    def __init__(self, path):
        self.path = Path(os.path.abspath(path))
        self.name = self.path.name
        self.number = self.name.split("-", 1)[0]
        mk = self.path / "exercise.mk"
        if not mk.is_file():
            raise Usage(f"{self.name}: no exercise.mk (EXERCISE_STARTER and EXERCISE_PARTS)")
        values = {}
        for line in mk.read_text().splitlines():
            m = re.match(r"\s*(EXERCISE_\w+)\s*:?=\s*(.*?)\s*$", line)
            if m:
                values[m.group(1)] = m.group(2)
        self.starter = values.get("EXERCISE_STARTER", "")
        self.parts = []
        for item in values.get("EXERCISE_PARTS", "").split():
            m = re.fullmatch(r"([A-Za-z0-9_-]+):([0-9]+)", item)
            if not m:
                raise Usage(f"{self.name}/exercise.mk: EXERCISE_PARTS: '{item}' is not NAME:POINTS")
            self.parts.append((m.group(1), int(m.group(2))))
        if not self.starter or not self.parts:
            raise Usage(f"{self.name}/exercise.mk: EXERCISE_STARTER and EXERCISE_PARTS must both be set")
        if self.max_points != 10:
            raise Usage(f"{self.name}/exercise.mk: the parts' points add up to {self.max_points}, not 10")

    @property
    def max_points(self):
        return sum(p for _, p in self.parts)

    @property
    def demo(self):
        return " ".join(n for n, _ in self.parts)

    def rel(self):
        """The lesson folder as a student writes it (lessons/NN-name)."""
        try:
            return str(self.path.relative_to(Path.cwd()))
        except ValueError:
            return str(self.path)


def find_lessons(items, root=TOP):
    """The lessons named by items (folders, names or numbers), in order;
    every lesson under root/lessons with an exercise.mk when none."""
    every = sorted(p for p in (root / "lessons").glob("[0-9][0-9]-*") if (p / "exercise.mk").is_file())
    if not items:
        if not every:
            raise Usage(f"no lessons with an exercise.mk under {root / 'lessons'}")
        return [Lesson(p) for p in every]
    found = []
    for item in items:
        for word in item.split():
            path = Path(word)
            if path.is_dir():
                found.append(Lesson(path))
                continue
            match = [p for p in every if p.name == word or p.name.split("-", 1)[0] == word
                     or p.name == Path(word).name]
            if not match:
                names = " ".join(p.name.split("-", 1)[0] for p in every)
                raise Usage(f"LESSONS: no lesson {word} (lessons here: {names})")
            found.append(Lesson(match[0]))
    return found


# ---- one run of a lesson's checker ----------------------------------------

class CheckRun:
    """What one `make check SRC=...` printed, read as it comes: its first and
    last lines, and the lines that the grading reads."""

    DEMO = re.compile(r"^# demo (\S+): (passed|FAILED)\b")
    SUMMARY = re.compile(r"^([0-9]+) passed, ([0-9]+) failed$")

    def __init__(self):
        self.head = []
        self.tail = deque(maxlen=KEEP_LINES)
        self.lines = 0
        self.locate = None
        self.demos = {}
        self.summary = None
        self.skipped = None
        self.notable = []       # lines that may say why a build or check stopped
        self.rc = None
        self.timed_out = False
        self.seconds = 0.0

    def add(self, line):
        line = line.rstrip("\n")
        if len(line) > LINE_CHARS:
            line = line[:LINE_CHARS] + " [cut]"
        self.lines += 1
        if len(self.head) < KEEP_LINES:
            self.head.append(line)
        else:
            self.tail.append(line)
        if self.locate is None and line.startswith("# locate: "):
            self.locate = line[len("# locate: "):]
        m = self.DEMO.match(line)
        if m:
            ok = m.group(2) == "passed"
            self.demos[m.group(1)] = self.demos.get(m.group(1), True) and ok
        m = self.SUMMARY.match(line)
        if m:
            self.summary = (int(m.group(1)), int(m.group(2)))
        if line.startswith("skipped: "):
            self.skipped = line[len("skipped: "):]
        if len(self.notable) < 50 and not line.startswith(("ok ", "#   ")) \
                and not re.match(r"^make(\[[0-9]+\])?: \*\*\*", line) \
                and not re.match(r"^\s+(CC|CC-EMU|NVCC|AR)\s", line):
            self.notable.append(line)

    def text(self):
        left = self.lines - len(self.head) - len(self.tail)
        middle = [f"[... {left} lines left out ...]"] if left > 0 else []
        return "\n".join(self.head + middle + list(self.tail))


def run_check(lesson, src, mine, demo, timeout, env):
    """Runs `make check SRC=src MINE=mine DEMO=demo` in lesson's folder, at
    most timeout seconds (then its whole process group is stopped)."""
    cmd = [MAKE, "--no-print-directory", "-s", "-C", str(lesson.path), "check",
           f"SRC={src}", f"MINE={mine}", f"DEMO={demo}"]
    run = CheckRun()
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, start_new_session=True,
                            text=True, errors="replace")

    def read():
        for line in proc.stdout:
            run.add(line)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        run.timed_out = True
        for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, None)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
    reader.join(timeout=10)
    # what the program left running in its group ends with it
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    run.rc = proc.returncode
    run.seconds = time.monotonic() - start
    return run


def check_env():
    """The environment of the checks: no jobserver of a make above (its
    descriptors do not reach the lessons' makes), no DEMO or SRC of the
    caller's."""
    env = dict(os.environ)
    env["MAKEFLAGS"] = re.sub(r"(^| )--jobserver-(auth|fds)=\S*", "", env.get("MAKEFLAGS", ""))
    for name in ("DEMO", "SRC", "MINE", "CHECK_FIRST_FAIL", "MAKELEVEL", "MFLAGS"):
        env.pop(name, None)
    return env


def first_problem(run, names, strip):
    """The line that locates a failed check's first problem: the checker's
    locating line; else a compiler's, linker's or the device-code check's
    line naming the file; else the checker's one-line reason."""
    def clean(line):
        for s in strip:
            line = line.replace(s, "")
        return line.strip()
    if run.timed_out:
        return f"the check did not end within {int(run.seconds)} s (build and check together); stopped"
    if run.locate:
        return clean(run.locate)
    named = [ln for ln in run.notable if any(re.search(re.escape(n) + r":[0-9]+", ln) for n in names)]
    for ln in named:
        if re.search(r"\berror\b|not allowed|refused|rejected", ln, re.I):
            return clean(ln)
    if named:
        return clean(named[0])
    for ln in run.notable:
        if re.search(r"multiple definition|undefined reference|\berror\b|no such file|not allowed|refused",
                     ln, re.I):
            return clean(ln)
    for ln in run.notable:
        if ln.startswith("not ok "):
            return clean(ln)
    rest = [ln for ln in run.notable if ln.strip()]
    if rest:
        return clean(rest[-1])
    return f"the check stopped with exit status {run.rc} and said nothing"


# ---- grading one lesson file ----------------------------------------------

class PartResult:
    def __init__(self, name, max_points, passed, problem="", output=None):
        self.name, self.max_points, self.passed, self.problem = name, max_points, passed, problem
        self.output = output       # the output of this part's own check, if it had one

    @property
    def points(self):
        return self.max_points if self.passed else 0


class LessonResult:
    """One lesson of one student: its parts, points, first problem and the
    output a student reads."""

    def __init__(self, lesson):
        self.lesson = lesson
        self.parts = []
        self.problem = ""         # the first problem's line, '' when none
        self.note = ""            # why nothing was checked (missing, refused)
        self.missing = False      # no file for this lesson
        self.skipped = None       # why the check could not run here
        self.summary = ""
        self.output = ""          # the check's output (capped)
        self.command = ""         # the command a student runs to see it all
        self.seconds = 0.0

    @property
    def points(self):
        return sum(p.points for p in self.parts)

    def zero(self, why):
        self.note = why
        self.problem = why
        self.parts = [PartResult(n, p, False, why) for n, p in self.lesson.parts]
        return self


def safe_name(name):
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    if not re.match(r"[A-Za-z0-9_]", name):
        name = "_" + name
    return name


def admit(path, shown):
    """The reason a student's file is refused, or None."""
    if path.is_symlink():
        return f"{shown} is a symbolic link; submit the file itself"
    if not path.is_file():
        return f"{shown} is not a regular file"
    size = path.stat().st_size
    limit = env_number("GRADE_MAX_BYTES", MAX_BYTES)
    if size > limit:
        return f"{shown} holds {size} bytes, more than a lesson file may ({limit})"
    return None


def grade_file(lesson, path, shown, mine, work, timeout, keep_build=False):
    """Grades one student file (path; shown: how the student names it) of
    lesson: a copy of it in work, built as MINE=mine."""
    res = LessonResult(lesson)
    why = admit(path, shown)
    if why:
        return res.zero(why)
    folder = work / lesson.name
    folder.mkdir(parents=True, exist_ok=True)
    base = safe_name(Path(shown).name)
    if not base.endswith(".cu"):
        base += ".cu"
    copy = folder / base
    shutil.copyfile(path, copy)
    env = check_env()
    strip = [str(folder) + "/", str(lesson.path) + "/",
             str(Path(os.path.realpath(lesson.path)).parent.parent) + "/"]
    demo = f'"{lesson.demo}"' if len(lesson.parts) > 1 else lesson.demo
    # SRC= as make check takes it: relative to the lesson folder when the
    # file is the lesson's own (GRADE_FILE=mine.cu), else its path
    src = shown if not os.path.isabs(shown) and (lesson.path / shown).resolve() == Path(path).resolve() \
        else str(Path(path).resolve())
    res.command = f"make -C {lesson.rel()} check SRC={shlex.quote(src)} DEMO={demo}"
    start = time.monotonic()
    try:
        runs = grade_parts(lesson, copy, mine, timeout, env, res, [base, shown], strip)
    finally:
        if not keep_build:
            for d in ("build", "build/emu"):
                for p in (lesson.path / d / mine, lesson.path / d / (mine + ".unit.o")):
                    if p.is_file():
                        p.unlink()
    res.seconds = time.monotonic() - start
    res.output = runs[0].text()
    for part in res.parts:
        for s in strip:
            part.output = part.output.replace(s, "") if part.output else part.output
    for s in strip:
        res.output = res.output.replace(s, "")
    return res


def grade_parts(lesson, src, mine, timeout, env, res, names, strip):
    """Checks src on the exercise's parts: once for all of them, then, where
    the checker does not say part by part (no `# demo NAME:` lines) and it
    failed, once for each part. Returns the runs made."""
    run = run_check(lesson, src, mine, lesson.demo, timeout, env)
    runs = [run]
    if run.skipped is not None and not run.timed_out and run.rc in (0, 77):
        res.skipped = run.skipped
        return runs
    if run.summary:
        res.summary = f"{run.summary[0]} passed, {run.summary[1]} failed"
    problem = first_problem(run, names, strip) if run.rc != 0 else ""
    if all(n in run.demos for n, _ in lesson.parts):
        # the checker said, part by part; a failure outside every part fails
        # them all (a check that failed is never full marks)
        outside = run.rc != 0 and all(run.demos[n] for n, _ in lesson.parts)
        for n, p in lesson.parts:
            ok = run.demos[n] and not outside
            res.parts.append(PartResult(n, p, ok, "" if ok else problem))
    elif run.rc == 0 and run.summary and run.summary[1] == 0:
        res.parts = [PartResult(n, p, True) for n, p in lesson.parts]
    elif len(lesson.parts) == 1 or run.summary is None or run.timed_out:
        # one part, or nothing was checked (no build, no summary): all fail
        res.parts = [PartResult(n, p, False, problem) for n, p in lesson.parts]
    else:
        for n, p in lesson.parts:
            one = run_check(lesson, src, mine, n, timeout, env)
            runs.append(one)
            ok = one.rc == 0 and not one.timed_out and one.summary is not None and one.summary[1] == 0
            res.parts.append(PartResult(n, p, ok, "" if ok else first_problem(one, names, strip),
                                        one.text()))
    failed = [p for p in res.parts if not p.passed]
    res.problem = failed[0].problem if failed else ""
    return runs


def prepare(lessons, env=None):
    """Builds, once per lesson, what every student's check shares (warpsim,
    build/verify, the harness objects), so that checks side by side never
    build one file at once. Returns {lesson name: the line why it failed}."""
    env = env or check_env()
    failed = {}
    have_gpu = shutil.which("nvidia-smi") and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True, text=True).stdout.startswith("GPU")
    for lesson in lessons:
        targets = ["build/verify"] if (lesson.path / "harness.cu").is_file() else []
        if (lesson.path / "harness.cu").is_file():
            targets.append("build/emu/harness.o")
            if have_gpu and shutil.which(os.environ.get("NVCC", "nvcc")):
                targets.append("build/harness.o")
        # as mk/lesson.mk names it: the lesson's real folder, two up, then
        # warpsim/build/warpsim (warpsim itself may be a link)
        top = Path(os.path.realpath(lesson.path)).parent.parent
        targets.append(str(top / "warpsim" / "build" / "warpsim"))
        p = subprocess.run([MAKE, "--no-print-directory", "-s", "-C", str(lesson.path)] + targets,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
            failed[lesson.name] = lines[-1] if lines else f"make exited {p.returncode}"
    return failed


# ---- where a student's file for a lesson is --------------------------------

def submission_roots(folder):
    """The folder, and the one folder inside it where it holds nothing else
    (an unpacked archive)."""
    roots = [folder]
    inside = [p for p in folder.iterdir() if not p.name.startswith(".")] if folder.is_dir() else []
    if len(inside) == 1 and inside[0].is_dir() and not inside[0].is_symlink():
        roots.append(inside[0])
    return roots


def find_file(folder, lesson):
    """The student's file for lesson in folder, as (path, how it is named),
    or (None, None): lessons/NN-name/mine.cu, NN-name.cu, NN.cu."""
    for root in submission_roots(folder):
        for rel in (f"lessons/{lesson.name}/mine.cu", f"{lesson.name}.cu", f"{lesson.number}.cu"):
            p = root / rel
            if p.exists() or p.is_symlink():
                return p, rel
    return None, None


def stray_files(folder, lessons):
    """The .cu files of a submission that name no lesson (misnamed): no
    lesson graded, nor any other lesson beside them."""
    known = set()
    for lesson in lessons:
        for p in list(lesson.path.parent.glob("[0-9][0-9]-*")) + [lesson.path]:
            known |= {f"{p.name}.cu", f"{p.name.split('-', 1)[0]}.cu"}
    stray = []
    for root in submission_roots(folder):
        for p in sorted(root.glob("*.cu")):
            if p.name not in known:
                stray.append(p.name)
    return stray


def missing_line(lesson, folder, lessons, tree):
    if tree:
        return (f"no {lesson.rel()}/mine.cu: copy {lesson.starter} to mine.cu in "
                f"{lesson.rel()} and fix it")
    stray = stray_files(folder, lessons)
    line = (f"no {lesson.name}.cu or {lesson.number}.cu (or lessons/{lesson.name}/mine.cu): "
            f"start from the lesson's {lesson.starter}")
    if stray:
        line += f"; found {', '.join(stray[:5])}, which names no lesson"
    return line


# ---- reports ---------------------------------------------------------------

def part_output(res, part):
    if res.skipped:
        return f"not graded here: {res.skipped}"
    lines = [f"{res.lesson.name}, part {part.name}: {'passed' if part.passed else 'FAILED'}, "
             f"{part.points}/{part.max_points} points"]
    if not part.passed:
        lines.append(f"first problem: {part.problem}")
    if res.command and not res.note:
        lines.append(f"to see it all: {res.command}")
    out = part.output or res.output
    if out and not part.passed:
        if len(out) > OUTPUT_CHARS:
            cut = out[:OUTPUT_CHARS // 4].rsplit("\n", 1)[0]
            end = out[-(OUTPUT_CHARS - len(cut)):].split("\n", 1)[-1]
            out = f"{cut}\n[... {len(out) - len(cut) - len(end)} characters left out ...]\n{end}"
        lines += ["", "the check's output:", out]
    return "\n".join(lines)


def results_json(results, seconds, extra_output=""):
    """Gradescope's results.json: a test per part of each lesson."""
    tests = []
    for i, res in enumerate(results, 1):
        for j, part in enumerate(res.parts, 1):
            test = {
                "name": f"{res.lesson.name}: {part.name}",
                "number": f"{i}.{j}",
                "score": part.points if not res.skipped else 0,
                "max_score": part.max_points,
                "status": "passed" if part.passed and not res.skipped else "failed",
                "visibility": "visible",
                "output": part_output(res, part),
            }
            tests.append(test)
    score = sum(t["score"] for t in tests)
    top = sum(t["max_score"] for t in tests)
    lines = [f"{r.lesson.name}: {r.points}/{r.lesson.max_points}" for r in results]
    return {
        "score": score,
        "execution_time": int(round(seconds)),
        "output": "\n".join(([extra_output] if extra_output else []) + lines + [f"Score {score}/{top}"]),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def junit_xml(results):
    suites = ET.Element("testsuites")
    for res in results:
        failures = sum(1 for p in res.parts if not p.passed)
        suite = ET.SubElement(suites, "testsuite", name=res.lesson.name, tests=str(len(res.parts)),
                              failures=str(failures), time=f"{res.seconds:.1f}")
        for part in res.parts:
            case = ET.SubElement(suite, "testcase", classname=res.lesson.name, name=part.name)
            if res.skipped:
                ET.SubElement(case, "skipped", message=res.skipped)
            elif not part.passed:
                f = ET.SubElement(case, "failure", message=f"0/{part.max_points}: {part.problem}")
                f.text = part_output(res, part)
    return ET.ElementTree(suites)


def write_reports(folder, results, seconds):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "results.json", "w") as f:
        json.dump(results_json(results, seconds), f, indent=2)
        f.write("\n")
    tree = junit_xml(results)
    ET.indent(tree)
    tree.write(folder / "grade.xml", encoding="UTF-8", xml_declaration=True)
    print(f"grade: wrote {folder}/results.json and {folder}/grade.xml")


def lesson_line(res):
    name = res.lesson.name
    if res.skipped:
        return f"{name:<24}  -     (not graded: {res.skipped})"
    if res.note:
        return f"{name:<24}  0/10  ({res.note})"
    if len(res.parts) == 1:
        p = res.parts[0]
        what = f"{p.name} {'passed' if p.passed else 'FAILED'}"
    else:
        what = ", ".join(f"{p.name} {p.points}/{p.max_points}" for p in res.parts)
    if res.summary:
        what += f"; {res.summary}"
    return f"{name:<24} {res.points:2d}/{res.lesson.max_points}  ({what})"


# ---- the modes -------------------------------------------------------------

def mode_tree(args, lessons):
    """One student in this tree: lessons/*/GRADE_FILE."""
    file = os.environ.get("GRADE_FILE", "") or "mine.cu"
    timeout = env_number("GRADE_TIMEOUT", TIMEOUT)
    if os.path.isabs(file) and len(lessons) > 1:
        raise Usage(f"GRADE_FILE={file} is one file, for one lesson, and {len(lessons)} lessons are "
                    f"to be graded: name one (LESSONS=01), or give a name each lesson folder holds "
                    f"(GRADE_FILE=mine.cu), or grade a folder of files (SUBMISSIONS=dir)")
    start = time.monotonic()
    broken = prepare(lessons)
    results = []
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        for lesson in lessons:
            path = Path(file) if os.path.isabs(file) else lesson.path / file
            if lesson.name in broken:
                res = LessonResult(lesson).zero(f"the lesson's shared files did not build: {broken[lesson.name]}")
            elif not (path.exists() or path.is_symlink()):
                res = LessonResult(lesson).zero(f"no {file}: copy {lesson.starter} to {file} and fix it"
                                                if not os.path.isabs(file) else f"no {file}")
            else:
                shown = file if not os.path.isabs(file) else path.name
                res = grade_file(lesson, path, shown, "grade-mine", Path(tmp), timeout, keep_build=True)
            results.append(res)
            print(lesson_line(res), flush=True)
            if not res.skipped and res.points < res.lesson.max_points and not res.note:
                print(f"    first problem: {res.problem}")
                print(f"    to see it all: {res.command}", flush=True)
    graded = [r for r in results if not r.skipped]
    if results and not graded:
        print("grade: nothing could run here (no GPU and no C compiler for warpsim); see make doctor")
        return 77
    score = sum(r.points for r in graded)
    top = sum(r.lesson.max_points for r in graded)
    print(f"Score {score}/{top}")
    report = args.report or os.environ.get("GRADE_REPORT", "") or os.environ.get("JUNIT", "")
    if report:
        write_reports(report, results, time.monotonic() - start)
    return 0 if score == top else 1


def mode_part(args, lessons):
    """One part of one lesson (a Classroom grader step): exit 0 when it
    passes."""
    if len(lessons) != 1:
        raise Usage("--part PART takes one lesson")
    lesson = lessons[0]
    names = [n for n, _ in lesson.parts]
    if args.part not in names:
        raise Usage(f"{lesson.name}: no part {args.part} in its exercise ({' '.join(names)})")
    points = dict(lesson.parts)[args.part]
    file = os.environ.get("GRADE_FILE", "") or "mine.cu"
    path = lesson.path / file
    if not (path.exists() or path.is_symlink()):
        print(f"{lesson.name}, part {args.part}: 0/{points} points: no {lesson.rel()}/{file}: "
              f"copy {lesson.starter} to {file} in {lesson.rel()} and fix it")
        return 1
    timeout = env_number("GRADE_TIMEOUT", TIMEOUT)
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        sub = Lesson(lesson.path)
        sub.parts = [(args.part, points)]
        res = grade_file(sub, path, file, f"grade-part-{safe_name(args.part)}", Path(tmp), timeout)
    if res.output:
        print(res.output)
    if res.skipped:
        print(f"{lesson.name}, part {args.part}: not graded here: {res.skipped}")
        return 1
    p = res.parts[0]
    if p.passed:
        print(f"{lesson.name}, part {args.part}: passed, {points}/{points} points")
        return 0
    print(f"{lesson.name}, part {args.part}: FAILED, 0/{points} points")
    print(f"first problem: {p.problem}")
    if not res.note:
        print(f"to see it all: make -C {lesson.rel()} check SRC={file} DEMO={args.part}")
    return 1


def grade_student(folder, lessons, mine, work, timeout, broken, tree=False):
    """Every lesson of one student's submission folder."""
    results = []
    for lesson in lessons:
        path, shown = find_file(folder, lesson)
        if lesson.name in broken:
            res = LessonResult(lesson).zero(f"the lesson's shared files did not build: {broken[lesson.name]}")
        elif path is None:
            res = LessonResult(lesson).zero(missing_line(lesson, folder, lessons, tree))
            res.missing = True
        else:
            res = grade_file(lesson, path, shown, mine, work / lesson.name, timeout)
        results.append(res)
    return results


def mode_class(args, lessons):
    root = Path(args.submissions)
    if not root.is_dir():
        raise Usage(f"SUBMISSIONS={args.submissions}: no such folder")
    students = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not students:
        raise Usage(f"SUBMISSIONS={args.submissions}: no student folders in it (one folder per student)")
    jobs = args.jobs or env_number("GRADE_JOBS", os.cpu_count() or 1)
    timeout = env_number("GRADE_TIMEOUT", TIMEOUT)
    start = time.monotonic()
    print(f"# grading {len(students)} students, {len(lessons)} lessons each, {jobs} at a time",
          file=sys.stderr, flush=True)
    broken = prepare(lessons)
    tasks = []
    names = {}
    for i, s in enumerate(students):
        names[s] = f"grade/{i + 1:03d}-{safe_name(s.name)[:40]}"
        for lesson in lessons:
            tasks.append((s, lesson))
    done = [0]
    lock = threading.Lock()
    by = {}
    logs = Path(args.logs) if args.logs else None

    def one(task):
        s, lesson = task
        with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
            res = grade_student(s, [lesson], names[s], Path(tmp), timeout, broken)[0]
        if logs:
            d = logs / safe_name(s.name)
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{lesson.name}.log").write_text(
                f"{lesson_line(res)}\nfirst problem: {res.problem or 'none'}\n\n{res.output}\n")
        with lock:
            done[0] += 1
            print(f"[{done[0]}/{len(tasks)}] {s.name} {lesson.name}: "
                  f"{'-' if res.skipped else res.points}/{lesson.max_points} ({res.seconds:.0f} s)",
                  file=sys.stderr, flush=True)
        return task, res

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for (s, lesson), res in pool.map(one, tasks):
            by[(s, lesson.name)] = res
    rows = []
    for s in students:
        results = [by[(s, lesson.name)] for lesson in lessons]
        graded = [r for r in results if not r.skipped]
        total = sum(r.points for r in graded)
        top = sum(r.lesson.max_points for r in graded)
        first = next((f"{r.lesson.number}: {r.problem}" for r in results if r.problem), "")
        rows.append((s.name, results, total, top, first))
    out = Path(args.csv or "grades.csv")
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student"] + [lesson.name for lesson in lessons] + ["total", "max", "first problem"])
        for name, results, total, top, first in rows:
            w.writerow([name] + [("" if r.skipped else r.points) for r in results] + [total, top, first])
    width = max(7, max(len(r[0]) for r in rows))
    head = f"{'student':<{width}}  " + "  ".join(f"{lesson.number:>2}" for lesson in lessons) + "  total  first problem"
    print(head)
    for name, results, total, top, first in rows:
        cells = "  ".join(f"{'-' if r.skipped else r.points:>2}" for r in results)
        line = f"{name:<{width}}  {cells}  {total:>2}/{top:<3} {first}"
        print(line[:200].rstrip())
    secs = time.monotonic() - start
    print(f"grade: {len(students)} students graded in {secs:.0f} s; wrote {out}")
    return 0


def mode_gradescope(args):
    """A Gradescope run: writes results.json whatever happens."""
    root = Path(os.environ.get("AUTOGRADER_ROOT", "") or "/autograder")
    sub = root / "submission"
    out = root / "results"
    out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    try:
        lessons = find_lessons(args.lessons)
        timeout = env_number("GRADE_TIMEOUT", TIMEOUT)
        broken = prepare(lessons)
        with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
            results = grade_student(sub, lessons, "grade/submission", Path(tmp), timeout, broken)
        note = ""
        found = [r for r in results if not r.missing]
        if not found:
            stray = stray_files(sub, lessons) if sub.is_dir() else []
            names = ", ".join(f"{lesson.number}.cu" for lesson in lessons)
            note = (f"No lesson file found in the submission. Name each file by its lesson: {names} "
                    f"(or {lessons[0].name}.cu, or the template's lessons/{lessons[0].name}/mine.cu)")
            if stray:
                note += f"; the submission holds {', '.join(stray[:5])}, which names no lesson"
            note += "."
        doc = results_json(results, time.monotonic() - start, note)
        for res in results:
            print(lesson_line(res))
            if res.problem:
                print(f"    first problem: {res.problem}")
        print(f"Score {doc['score']}/{sum(t['max_score'] for t in doc['tests'])}")
    except (Exception, Usage) as e:   # noqa: BLE001 - Gradescope needs a results.json whatever failed
        doc = {"score": 0, "execution_time": int(time.monotonic() - start),
               "output": f"The grader failed, not your submission: {type(e).__name__}: {e}. "
                         "Tell the course staff.", "visibility": "visible", "tests": []}
        print(doc["output"], file=sys.stderr)
    with open(out / "results.json", "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(f"grade: wrote {out / 'results.json'}")
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="grade.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("lessons", nargs="*", metavar="LESSON")
    p.add_argument("--submissions", metavar="DIR", help="grade a class: one folder per student")
    p.add_argument("--csv", metavar="FILE", help="with --submissions: the CSV to write (grades.csv)")
    p.add_argument("--logs", metavar="DIR", help="with --submissions: keep each check's output here")
    p.add_argument("--jobs", type=int, metavar="N", help="with --submissions: students side by side")
    p.add_argument("--part", metavar="PART", help="grade one part of one lesson's exercise")
    p.add_argument("--gradescope", action="store_true", help="a Gradescope run")
    p.add_argument("--report", metavar="DIR", help="also write DIR/results.json and DIR/grade.xml")
    p.add_argument("--prepare", action="store_true",
                   help="only build what the lessons' checks share (warpsim, build/verify)")
    args = p.parse_args(argv)
    try:
        if args.jobs is not None and args.jobs < 1:
            raise Usage(f"--jobs {args.jobs}: a count from 1")
        if sum(bool(x) for x in (args.submissions, args.part, args.gradescope)) > 1:
            raise Usage("--submissions, --part and --gradescope are one each")
        if args.gradescope:
            return mode_gradescope(args)
        lessons = find_lessons(args.lessons)
        if args.prepare:
            broken = prepare(lessons)
            for name, why in broken.items():
                print(f"grade: {name}: its shared files did not build: {why}", file=sys.stderr)
            return 1 if broken else 0
        if args.submissions:
            return mode_class(args, lessons)
        if args.part:
            return mode_part(args, lessons)
        return mode_tree(args, lessons)
    except Usage as e:
        print(f"grade: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
