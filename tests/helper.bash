# helper.bash - loaded by every test file.
# shellcheck shell=bash
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

REPO=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
FIXTURES=$BATS_TEST_DIRNAME/fixtures

have_gpu() { nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }
have_nvcc() { command -v nvcc >/dev/null 2>&1; }

need_nvcc() { have_nvcc || skip "nvcc not found"; }
need_gpu() { have_gpu || skip "no GPU here (nvidia-smi lists none)"; }

# build_lesson NAME: builds a lesson's programs once per test file.
build_lesson() {
    need_nvcc
    make -s --no-print-directory -C "$REPO/lessons/$1" all >/dev/null
}

# copy_repo DIR: a clean copy of the working tree (no build outputs) in DIR.
copy_repo() {
    mkdir -p "$1"
    (cd "$REPO" && tar --exclude=build --exclude=.git --exclude=_build -cf - .) | tar -xf - -C "$1"
}
