#!/usr/bin/env bash
# gpu-slug.sh: a folder name for this machine's GPU, such as
# "nvidia-h100-80gb-hbm3", for benchmark results (docs/results/<slug>/).
# Prints nothing and exits 1 when no GPU answers.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
[ -n "$name" ] || exit 1
printf '%s\n' "$name" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//'
