#!/usr/bin/env bash
# apply-fix.sh PATCH ORIGINAL OUTPUT: makes a lesson's wrong fix or right
# alternative kept as a patch (wrong/NAME.patch, right/NAME.patch) into the
# file it stands for. A patch's first line is its reason, `/* wrong: ... */`
# or `/* right: ... */`; other lines may follow it (`/* demos: ... */`),
# then a unified diff of sync.cu (`--- a/sync.cu`, `+++ b/sync.cu`).
# OUTPUT is the first line, then ORIGINAL (the lesson's sync.cu) with the
# patch applied: the lines of the file a learner would have written, one
# below sync.cu's. The patch applies with patch(1) where there is one, else
# with git apply, both without fuzz: each hunk's context must be in
# ORIGINAL as the patch has it (lines added above a hunk only move it), so
# that a patch of code that has changed since fails, naming the patch,
# rather than making another file than the one it was written as. OUTPUT
# is written whole or not at all, and left untouched when it holds that
# already.
# Exit status: 0 made; 1 the patch does not apply, or has no reason line
# (one line saying so); 2 bad usage, a file missing, or neither patch nor
# git here.
set -u
usage() { echo "usage: apply-fix.sh PATCH ORIGINAL OUTPUT" >&2; exit 2; }
[ $# -eq 3 ] || usage
patch_file=$1 original=$2 out=$3
name=${patch_file#./}
[ -f "$patch_file" ] || { echo "$name: no such file" >&2; exit 2; }
[ -f "$original" ] || { echo "$name: no ${original##*/} to apply it to" >&2; exit 2; }
IFS= read -r reason <"$patch_file" || true
case "$reason" in
    '/* wrong: '?*' */'|'/* right: '?*' */') ;;
    *) echo "$name: its first line is not its reason (/* wrong: ... */ or /* right: ... */)" >&2; exit 1 ;;
esac

if command -v patch >/dev/null 2>&1; then tool='patch'
elif command -v git >/dev/null 2>&1; then tool='git'
else
    echo "$name: needs patch or git to apply it (apt-get install patch)" >&2
    exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/apply-fix.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
case "$patch_file" in /*) abs=$patch_file ;; *) abs=$PWD/$patch_file ;; esac
if [ "$tool" = patch ]; then
    patch -s -f -F 0 -p1 --no-backup-if-mismatch -r - -o "$tmp/sync.cu" "$original" "$abs" >"$tmp/log" 2>&1
    rc=$?
else
    # outside any repository (the ceiling), where git apply is a patch(1)
    cp "$original" "$tmp/sync.cu"
    (cd "$tmp" && GIT_CEILING_DIRECTORIES=${tmp%/*} git apply --whitespace=nowarn "$abs") >"$tmp/log" 2>&1
    rc=$?
fi
if [ "$rc" -ne 0 ]; then
    why=$(grep -m 1 -iE 'FAILED|error|malformed|garbage|only garbage' "$tmp/log" | sed 's/^error: //')
    echo "$name no longer applies to ${original##*/}: ${why:-the patch or sync.cu has changed}; make the patch again from the file it stands for (diff -u)" >&2
    exit 1
fi
{ printf '%s\n' "$reason"; cat "$tmp/sync.cu"; } >"$tmp/out"
if ! cmp -s "$tmp/out" "$out" 2>/dev/null; then
    mkdir -p "$(dirname "$out")" && mv -f "$tmp/out" "$out.$$" && mv -f "$out.$$" "$out" || exit 2
fi
exit 0
