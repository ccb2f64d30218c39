#!/usr/bin/env bats
# The lab kits: make classroom (a GitHub Classroom template repository) and
# make gradescope (a Gradescope autograder), each graded here as its runner
# would grade it: no GPU, no nvcc on PATH, a copy of the kit; the dev
# container and CI install with one script.

setup_file() {
    load helper
    # check-jsonschema (PyPI) validates the workflow; its YAML library
    # reads it
    "$REPO/scripts/install-tools.sh" schema >&2 || true
    K=$BATS_FILE_TMPDIR/kit
    make -s --no-print-directory -C "$REPO" classroom DEST="$K/template" LESSONS="01 06" >&2
    # a fresh copy of the template, as a runner checks it out, built as the
    # workflow's first steps build it (warpsim and each lesson's shared
    # files, from the copy's own sources, with no nvcc on PATH); the cases
    # below change its mine.cu files. (A build is bound to its folder:
    # one more copy would build warpsim again, 15 CPU-seconds.)
    cp -a "$K/template" "$K/runner"
    (cd "$K/runner" && env -i PATH="$(path_without_nvcc)" HOME="$HOME" python3 scripts/grade.py --prepare) >&2
}

setup() {
    load helper
    K=$BATS_FILE_TMPDIR/kit
    SCHEMA=$(command -v check-jsonschema || echo "$REPO/tests/build/venv/bin/check-jsonschema")
}

# path_without_nvcc: PATH with no nvcc in it (a hosted runner has no CUDA
# toolkit): a folder that holds nvcc is left out, or, where it holds the
# system's tools too (/usr/bin: Debian's nvidia-cuda-toolkit), stands in as
# a folder of links to all it holds but nvcc.
path_without_nvcc() {
    local d i=0 f shadow out=()
    IFS=: read -ra dirs <<<"$PATH"
    for d in "${dirs[@]}"; do
        i=$((i + 1))
        if [ ! -x "$d/nvcc" ]; then
            out+=("$d")
        elif [ -x "$d/bash" ] || [ -x "$d/make" ] || [ -x "$d/env" ]; then
            shadow=$BATS_FILE_TMPDIR/no-nvcc/$i
            if [ ! -d "$shadow" ]; then
                mkdir -p "$shadow.tmp"
                for f in "$d"/*; do
                    [ "${f##*/}" = nvcc ] || ln -s "$f" "$shadow.tmp/${f##*/}"
                done
                mv "$shadow.tmp" "$shadow"
            fi
            out+=("$shadow")
        fi
    done
    (IFS=:; echo "${out[*]}")
}

# steps FILE: each grader step of a workflow, "ID|POINTS|TIMEOUT|COMMAND",
# read with a YAML library (check-jsonschema's).
steps() {
    "$(dirname "$SCHEMA")/python" -c '
import sys
from ruamel.yaml import YAML
w = YAML(typ="safe").load(open(sys.argv[1]))
for s in w["jobs"]["run-autograding-tests"]["steps"]:
    if s.get("uses", "").startswith("classroom-resources/autograding-command-grader"):
        print("|".join(str(x) for x in (s["id"], s["with"]["max-score"], s["with"]["timeout"], s["with"]["command"])))
' "$1"
}

# grade_copy DIR: runs every grader step's command of the template copy in
# DIR as the runner does (its folder, PATH and HOME only, no nvcc, each
# within its timeout) and prints "ID POINTS" per step and "total N".
grade_copy() {
    local id pts mins cmd total=0 rc
    while IFS='|' read -r id pts mins cmd; do
        rc=0
        (cd "$1" && env -i PATH="$(path_without_nvcc)" HOME="$HOME" timeout "$((mins * 60))" bash -c "$cmd") \
            >"$1/$id.log" 2>&1 || rc=$?
        if [ "$rc" -eq 0 ]; then echo "$id $pts"; total=$((total + pts)); else echo "$id 0"; fi
    done < <(steps "$1/.github/workflows/classroom.yml")
    echo "total $total"
}

@test "make classroom writes a template with the chosen lessons' starters and no answer" {
    local t=$K/template L
    for L in 01-shfl-reduction 06-block-reduce; do
        [ -f "$t/lessons/$L/mine.cu" ] || fail "no $L/mine.cu"
        cmp "$t/lessons/$L/mine.cu" "$REPO/lessons/$L/legacy.cu"
        for f in Makefile check.sh exercise.mk harness.cu legacy.cu README.md; do
            [ -f "$t/lessons/$L/$f" ] || fail "no $L/$f"
        done
    done
    [ ! -e "$t/lessons/02-ballot-mask" ] || fail "lesson 02 was not chosen"
    run find "$t" \( -name sync.cu -o -name cg.cu -o -name wrong -o -name right -o -name build \
        -o -name .git \) -print
    assert_output ''
    run find "$t/lessons" \( -name 'cub_*' -o -name 'bench*' -o -name investigation \) -print
    assert_output ''
    # the READMEs without their answer sections: a line in place of each
    run grep -l 'include="sync.cu"\|include="cg.cu"\|<!-- answer -->' "$t"/lessons/*/README.md
    assert_output ''
    grep -q '^\*(“The fix” shows the answer: it is left out of this assignment.)\*$' \
        "$t/lessons/01-shfl-reduction/README.md"
    for f in README.md Makefile .gitignore LICENSE LICENSE-text.md scripts/grade.py scripts/checklib.sh \
             scripts/install-tools.sh .devcontainer/devcontainer.json warpsim/Makefile mk/lesson.mk include/lesson.h; do
        [ -f "$t/$f" ] || fail "no $f"
    done
    grep -q '"NEEDS": "grade"' "$t/.devcontainer/devcontainer.json"
    grep -q '| \[01-shfl-reduction\](lessons/01-shfl-reduction/README.md) | `lessons/01-shfl-reduction/mine.cu` (from `legacy.cu`) | `tree` 10 |' "$t/README.md"
    run make --no-print-directory -C "$REPO" classroom DEST="$t"
    assert_failure 2
    assert_output --partial "DEST=$t: exists and is not an empty folder"
    run make --no-print-directory -C "$REPO" classroom
    assert_failure 2
    assert_output --partial 'make classroom: DEST=... names the folder to write'
}

@test "a README that shows sync.cu's code outside its answer markers stops make classroom" {
    run python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import labkit
print(labkit.strip_answers("a\n<!-- answer -->\n## The fix\nsecret\n<!-- /answer -->\nb\n", "x"), end="")
try:
    labkit.strip_answers("a\n```{.cuda include=\"sync.cu\"}\n```\n", "x/README.md")
except labkit.Usage as e:
    print(e)' "$REPO/scripts"
    assert_output 'a
*(“The fix” shows the answer: it is left out of this assignment.)*
b
x/README.md:2: a block of sync.cu outside <!-- answer --> ... <!-- /answer -->: it would show the answer'
}

@test "the Classroom workflow validates against GitHub's schema and has a grader step per part with its points" {
    [ -x "$SCHEMA" ] || skip "check-jsonschema not installed (scripts/install-tools.sh schema)"
    local wf=$K/template/.github/workflows/classroom.yml
    run "$SCHEMA" --builtin-schema vendor.github-workflows "$wf"
    echo "$output"
    assert_success
    run steps "$wf"
    echo "$output"
    assert_success
    assert_line 'lesson01tree|10|3|python3 scripts/grade.py --part tree lessons/01-shfl-reduction'
    assert_line 'lesson06second|10|3|python3 scripts/grade.py --part second lessons/06-block-reduce'
    assert_equal "${#lines[@]}" 2
    # the reporter reads each step's result as ID_RESULTS
    grep -q '^name: Autograding Tests$' "$wf"
    grep -q '^  run-autograding-tests:$' "$wf"
    grep -q 'LESSON01TREE_RESULTS: "${{steps.lesson01tree.outputs.result}}"' "$wf"
    grep -q 'runners: lesson01tree,lesson06second$' "$wf"
    # a lesson of several parts: a step per part, its points summing to 10
    run python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import labkit, grade
print(labkit.workflow(grade.find_lessons(["02"])), end="")' "$REPO/scripts"
    assert_equal "$(grep -c 'autograding-command-grader@v1' <<<"$output")" \
        "$(sed -n 's/^EXERCISE_PARTS := //p' "$REPO/lessons/02-ballot-mask/exercise.mk" | wc -w)"
    assert_equal "$(awk '/^ *max-score:/ { s += $2 } END { print s }' <<<"$output")" 10
}

@test "the template's grading commands, run as the runner runs them, give a correct solution 20/20, a wrong one 10/20, a missing one 10/20" {
    local r=$K/runner
    exercise_solution 01-shfl-reduction "$r/lessons/01-shfl-reduction/mine.cu"
    exercise_solution 06-block-reduce "$r/lessons/06-block-reduce/mine.cu"
    run grade_copy "$r"
    echo "$output"; cat "$r/lesson01tree.log"
    assert_line 'lesson01tree 10'
    assert_line 'lesson06second 10'
    assert_line 'total 20'
    # the starter of 06 left as it is: that part's points only are lost
    cp "$r/lessons/06-block-reduce/legacy.cu" "$r/lessons/06-block-reduce/mine.cu"
    run grade_copy "$r"
    echo "$output"
    assert_line 'lesson01tree 10'
    assert_line 'lesson06second 0'
    assert_line 'total 10'
    run cat "$r/lesson06second.log"
    assert_line '06-block-reduce, part second: FAILED, 0/10 points'
    assert_line --regexp '^first problem: warpsim: race on shared .* at mine\.cu:[0-9]+'
    assert_line 'to see it all: make -C lessons/06-block-reduce check SRC=mine.cu DEMO=second'
    # lesson 01's file deleted, 06 right again
    rm "$r/lessons/01-shfl-reduction/mine.cu"
    exercise_solution 06-block-reduce "$r/lessons/06-block-reduce/mine.cu"
    run grade_copy "$r"
    echo "$output"
    assert_line 'lesson01tree 0'
    assert_line 'lesson06second 10'
    assert_line 'total 10'
    run cat "$r/lesson01tree.log"
    assert_output '01-shfl-reduction, part tree: 0/10 points: no lessons/01-shfl-reduction/mine.cu: copy legacy.cu to mine.cu in lessons/01-shfl-reduction and fix it'
    # the template's own make check says the same, lesson by lesson
    run env -i PATH="$(path_without_nvcc)" HOME="$HOME" make --no-print-directory -C "$r" check
    echo "$output"
    assert_failure
    assert_line --regexp '^01-shfl-reduction +0/10  \(no mine.cu: copy legacy.cu to mine.cu and fix it\)$'
    assert_line --regexp '^06-block-reduce +10/10 '
    assert_line 'Score 10/20'
}

# unpack ZIP DIR: the autograder as Gradescope lays it out: DIR/source
# holds the zip, DIR/submission the student's files.
unpack() {
    mkdir -p "$2/source" "$2/submission"
    (cd "$2/source" && unzip -q "$1")
}

@test "make gradescope writes a zip whose setup.sh and run_autograder grade right, wrong, missing, misnamed and cheating submissions" {
    local z=$BATS_TEST_TMPDIR/autograder.zip a=$BATS_TEST_TMPDIR/ag run_env
    run make --no-print-directory -C "$REPO" gradescope DEST="$z" LESSONS="01 06"
    echo "$output"
    assert_success
    run unzip -Z1 "$z"
    assert_line setup.sh
    assert_line run_autograder
    assert_line lessons/01-shfl-reduction/mine.cu
    refute_line --regexp 'sync\.cu$|/wrong/|\.github'
    unpack "$z" "$a"
    [ -x "$a/source/run_autograder" ] && [ -x "$a/source/setup.sh" ]
    run_env=(env -i PATH="$(path_without_nvcc)" HOME="$HOME" AUTOGRADER_ROOT="$a")
    run "${run_env[@]}" bash "$a/source/setup.sh"
    echo "$output"
    assert_success
    # right 01, the untouched starter as 06
    exercise_solution 01-shfl-reduction "$a/submission/01.cu"
    cp "$REPO/lessons/06-block-reduce/legacy.cu" "$a/submission/06-block-reduce.cu"
    run "${run_env[@]}" "$a/source/run_autograder"
    echo "$output"
    assert_success
    run python3 "$FIXTURES/lab/gradescope-results.py" "$a/results/results.json" 20
    echo "$output"
    assert_success
    assert_line '01-shfl-reduction: tree 10/10 passed'
    assert_line --regexp '^06-block-reduce: second 0/10 failed: first problem: warpsim: race on shared .* at 06-block-reduce\.cu:[0-9]+'
    assert_line 'score 10/20'
    # 01 with host code (main), 06 missing
    rm -rf "$a/submission" "$a/results"; mkdir "$a/submission"
    { exercise_solution 01-shfl-reduction -; printf '\nint main(void) { return 0; }\n'; } >"$a/submission/01.cu"
    run "${run_env[@]}" "$a/source/run_autograder"
    run python3 "$FIXTURES/lab/gradescope-results.py" "$a/results/results.json" 20
    echo "$output"
    assert_success
    assert_line --regexp '^01-shfl-reduction: tree 0/10 failed: first problem: .*01\.cu'
    assert_line "06-block-reduce: second 0/10 failed: first problem: no 06-block-reduce.cu or 06.cu (or lessons/06-block-reduce/mine.cu): start from the lesson's legacy.cu"
    assert_line 'score 0/20'
    # misnamed: nothing graded, and the summary says what to name the files
    rm -rf "$a/submission" "$a/results"; mkdir "$a/submission"
    exercise_solution 01-shfl-reduction "$a/submission/lesson1.cu"
    run "${run_env[@]}" "$a/source/run_autograder"
    run python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["output"])' "$a/results/results.json"
    assert_line --partial 'No lesson file found in the submission. Name each file by its lesson: 01.cu, 06.cu'
    assert_line --partial 'the submission holds lesson1.cu, which names no lesson'
    assert_line 'Score 0/20'
    # the template's tree, inside a folder of its own (an uploaded repository)
    rm -rf "$a/submission" "$a/results"; mkdir -p "$a/submission/repo/lessons/01-shfl-reduction"
    exercise_solution 01-shfl-reduction "$a/submission/repo/lessons/01-shfl-reduction/mine.cu"
    run "${run_env[@]}" "$a/source/run_autograder"
    run python3 "$FIXTURES/lab/gradescope-results.py" "$a/results/results.json" 20
    echo "$output"
    assert_line '01-shfl-reduction: tree 10/10 passed'
    assert_line 'score 10/20'
}

@test "run_autograder writes a results.json even when the grader itself fails" {
    local a=$BATS_TEST_TMPDIR/ag
    mkdir -p "$a/source/scripts" "$a/source/lessons/01-x" "$a/submission"
    cp "$REPO/scripts/labkit/run_autograder" "$a/source/"
    cp "$REPO/scripts/grade.py" "$a/source/scripts/"
    printf 'EXERCISE_STARTER := legacy.cu\nEXERCISE_PARTS := a:9\n' >"$a/source/lessons/01-x/exercise.mk"
    AUTOGRADER_ROOT=$a run "$a/source/run_autograder"
    echo "$output"
    assert_success
    run python3 "$FIXTURES/lab/gradescope-results.py" "$a/results/results.json"
    echo "$output"
    assert_success
    assert_output 'score 0/0'
    run python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["output"])' "$a/results/results.json"
    assert_output "The grader failed, not your submission: Usage: 01-x/exercise.mk: the parts' points add up to 9, not 10. Tell the course staff."
}

@test "the dev container and CI install with one script, which says what it would install" {
    grep -q '^RUN /tmp/tools/install-tools.sh \$NEEDS' "$REPO/.devcontainer/Dockerfile"
    grep -q '^COPY scripts/install-tools.sh ' "$REPO/.devcontainer/Dockerfile"
    grep -q '^FROM .*bookworm' "$REPO/.devcontainer/Dockerfile"
    run python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["build"]["dockerfile"], d["build"]["context"], d["build"]["args"]["NEEDS"])' \
        "$REPO/.devcontainer/devcontainer.json"
    assert_output 'Dockerfile .. dev'
    grep -q '^if ! scripts/install-tools.sh ci; then$' "$REPO/.ci/run"
    grep -q '^make test 2>&1 | tee "$log"$' "$REPO/.ci/run"
    # make test's and make docs' own installs go through it too
    grep -q 'install-tools.sh' "$REPO/scripts/need-tools.sh"
    # a machine without bats and pandoc: it names them and installs nothing
    local bin=$BATS_TEST_TMPDIR/bin t
    mkdir "$bin"
    for t in bash make python3 flock clang cc c++ gcc id dirname grep head sed; do
        ln -s "$(command -v "$t")" "$bin/$t"
    done
    PATH=$bin run "$bin/bash" "$REPO/scripts/install-tools.sh" --dry-run check test docs
    echo "$output"
    assert_success
    assert_output --regexp '^would install: bats shellcheck parallel gnuplot-nox .*pandoc weasyprint poppler-utils \(apt-get\)$'
    PATH=$bin run "$bin/bash" "$REPO/scripts/install-tools.sh" --dry-run check
    assert_output ''
    run "$REPO/scripts/install-tools.sh" nothing
    assert_failure 2
    assert_output --partial "install-tools.sh: unknown need 'nothing'"
}

@test "the kits' scripts pass shellcheck" {
    command -v shellcheck >/dev/null || skip "shellcheck not installed"
    run shellcheck "$REPO/scripts/labkit/setup.sh" "$REPO/scripts/labkit/run_autograder" \
        "$FIXTURES/lab/fake-check.sh"
    echo "$output"
    assert_success
}
