#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, when it builds the
# autograder's image (Ubuntu 22.04): it installs what the checks need
# (make, gcc 12 as cc, since 22.04's gcc 11 is too old for warpsim; clang
# for the device-code check; python3), then builds warpsim and each lesson's
# shared files once, so that each submission builds only its own file.
# AUTOGRADER_ROOT names another root (for a trial run).
set -eu
root=${AUTOGRADER_ROOT:-/autograder}
cd "$root/source"
# (in case the archive's modes were lost on the way)
chmod +x run_autograder setup.sh scripts/*.sh scripts/*.py lessons/*/check.sh
bash scripts/install-tools.sh grade
python3 scripts/grade.py --prepare
