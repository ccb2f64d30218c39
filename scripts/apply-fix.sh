#!/usr/bin/env bash
# apply-fix.sh PATCH ORIGINAL OUTPUT: makes a file kept as a patch into the
# file it stands for: a lesson's wrong fix or right alternative
# (wrong/NAME.patch, right/NAME.patch: patches of the lesson's sync.cu), or
# the reference solution of a lesson's exercise
# (tests/fixtures/exercises/NN-name.patch: a patch of the exercise's
# starter, EXERCISE_STARTER in the lesson's exercise.mk). A patch's first
# line is its reason, `/* wrong: ... */` or `/* right: ... */`; other lines
# may follow it (`/* demos: ... */`, comments), then a unified diff of
# ORIGINAL (`--- a/sync.cu`, `+++ b/sync.cu`; the file the `---` line
# names is ORIGINAL's name, whatever its folder).
# OUTPUT is the first line, then ORIGINAL with the patch applied: the lines
# of the file a learner would have written, one below ORIGINAL's. The patch
# applies with patch(1) where there is one, else with git apply, both
# without fuzz: each hunk's context must be in ORIGINAL as the patch has it
# (lines added above a hunk only move it), so that a patch of code that has
# changed since fails, naming the patch, rather than making another file
# than the one it was written as. OUTPUT is a regular file (or one to
# make), written whole or not at all, and left untouched when it holds that
# already; OUTPUT `-` is standard output, written once the patch applies.
# Exit status: 0 made; 1 the patch does not apply, or has no reason line
# (one line saying so); 2 bad usage (a patch of another file than
# ORIGINAL, an OUTPUT that is no regular file), a file missing, or neither
# patch nor git here.
set -u
usage() { echo "usage: apply-fix.sh PATCH ORIGINAL OUTPUT (OUTPUT - for standard output)" >&2; exit 2; }
[ $# -eq 3 ] || usage
patch_file=$1 original=$2 out=$3
name=${patch_file#./} base=${original##*/}
[ -f "$patch_file" ] || { echo "$name: no such file" >&2; exit 2; }
[ -f "$original" ] || { echo "$name: no $base to apply it to" >&2; exit 2; }
# a device, a pipe, a folder or a link (/dev/stdout is one) is refused: it
# cannot be compared and replaced whole, and reading it may never end
if [ "$out" != - ] && { [ -L "$out" ] || { [ -e "$out" ] && [ ! -f "$out" ]; }; }; then
    echo "$name: OUTPUT $out is not a regular file (- writes to standard output)" >&2
    exit 2
fi
IFS= read -r reason <"$patch_file" || true
case "$reason" in
    '/* wrong: '?*' */'|'/* right: '?*' */') ;;
    *) echo "$name: its first line is not its reason (/* wrong: ... */ or /* right: ... */)" >&2; exit 1 ;;
esac
# the file the diff is of: its first --- line's name, to the tab or the end
of=$(sed -n '/^--- /{s/^--- //;s/\t.*//;p;q;}' "$patch_file")
of=${of##*/}
if [ -n "$of" ] && [ "$of" != "$base" ]; then
    echo "$name is a patch of $of, not of $base: give it the $of it was made from" >&2
    exit 2
fi

if command -v patch >/dev/null 2>&1; then tool='patch'
elif command -v git >/dev/null 2>&1; then tool='git'
else
    echo "$name: needs patch or git to apply it (apt-get install patch)" >&2
    exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/apply-fix.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
case "$patch_file" in /*) abs=$patch_file ;; *) abs=$PWD/$patch_file ;; esac
mkdir "$tmp/tree"
if [ "$tool" = patch ]; then
    patch -s -f -F 0 -p1 --no-backup-if-mismatch -r - -o "$tmp/tree/$base" "$original" "$abs" >"$tmp/log" 2>&1
    rc=$?
else
    # outside any repository (the ceiling), where git apply is a patch(1)
    cp "$original" "$tmp/tree/$base"
    (cd "$tmp/tree" && GIT_CEILING_DIRECTORIES=$tmp git apply --whitespace=nowarn "$abs") >"$tmp/log" 2>&1
    rc=$?
fi
if [ "$rc" -ne 0 ]; then
    why=$(grep -m 1 -iE 'FAILED|error|malformed|garbage|only garbage' "$tmp/log" | sed 's/^error: //')
    echo "$name no longer applies to $base: ${why:-the patch or $base has changed}; make the patch again from the file it stands for (diff -u)" >&2
    exit 1
fi
{ printf '%s\n' "$reason"; cat "$tmp/tree/$base"; } >"$tmp/out"
if [ "$out" = - ]; then
    cat "$tmp/out" || exit 2
elif ! cmp -s "$tmp/out" "$out" 2>/dev/null; then
    mkdir -p "$(dirname "$out")" && mv -f "$tmp/out" "$out.$$" && mv -f "$out.$$" "$out" || exit 2
fi
exit 0
