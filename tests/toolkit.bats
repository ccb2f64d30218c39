#!/usr/bin/env bats
# Which CUDA toolkit builds the lessons, for which GPUs (mk/toolkit.mk), and
# `make pascal`. Fake nvcc scripts stand in for CUDA 11.0, 11.8, 12.4 and
# 13.0, so that every version is tested without installing it; `make -n`
# shows the commands without running them. Make runs in a copy of the
# repository, so that the working tree's build/ folders are left alone
# (warpsim aside: the copy links to the working tree's, built beforehand).
# The tests that need the real CUDA 11.8 skip where it is not installed.
# Each test runs in its own subshell: what it sets in PATH stays there.
# shellcheck disable=SC2030,SC2031

OLD_NVCC=/usr/lib/nvidia-cuda-toolkit/bin/nvcc
SOURCES=/etc/apt/sources.list.d/cuda-11.8-non-free.sources

# fake_nvcc VERSION ARCH...: an nvcc that answers --version and
# --list-gpu-arch like the real one, and refuses to compile.
fake_nvcc() {
    local version=$1 f=$FAKE/nvcc-$1; shift
    cat >"$f" <<EOF
#!/usr/bin/env bash
case "\$1" in
--version) echo 'nvcc: NVIDIA (R) Cuda compiler driver'
           echo 'Cuda compilation tools, release $version, V$version.99' ;;
--list-gpu-arch) printf 'compute_%s\\n' $* ;;
*) echo "fake nvcc: cannot compile" >&2; exit 1 ;;
esac
EOF
    chmod +x "$f"
}

setup_file() {
    load helper
    copy_repo "$BATS_FILE_TMPDIR/repo"
    # warpsim as built for the other tests (scripts/test-prep.sh), not
    # built again in the copy: what is tested here is the lessons' make
    make -s --no-print-directory -C "$REPO/warpsim" >/dev/null
    rm -rf "$BATS_FILE_TMPDIR/repo/warpsim"
    ln -s "$REPO/warpsim" "$BATS_FILE_TMPDIR/repo/warpsim"
    FAKE=$BATS_FILE_TMPDIR/fake
    mkdir -p "$FAKE/nogpu" "$FAKE/nvcc13"
    fake_nvcc 11.0 35 37 50 52 53 60 61 62 70 72 75 80
    fake_nvcc 11.8 35 37 50 52 53 60 61 62 70 72 75 80 86 87 89 90
    fake_nvcc 12.4 50 52 53 60 61 62 70 72 75 80 86 87 89 90
    fake_nvcc 13.0 75 80 86 87 88 89 90 100 103 110 120 121
    # No GPU, whatever the machine: nvidia-smi answers nothing.
    printf '#!/bin/sh\nexit 9\n' >"$FAKE/nogpu/nvidia-smi"
    chmod +x "$FAKE/nogpu/nvidia-smi"
    # CUDA 13 as the nvcc in PATH, as on a machine with only the newest toolkit.
    cp "$FAKE/nvcc-13.0" "$FAKE/nvcc13/nvcc"
}

setup() {
    load helper
    # Nothing from the caller's environment chooses for the tests.
    unset SM PASCAL NVCC GENCODE CCBIN EMU SRC NVCCFLAGS MAKEFLAGS MFLAGS MAKELEVEL
    FAKE=$BATS_FILE_TMPDIR/fake
    R=$BATS_FILE_TMPDIR/repo
    L1=$R/lessons/01-shfl-reduction
    L4=$R/lessons/04-match-any
    PATH=$FAKE/nogpu:$PATH
}

# lmake DIR ARGS...: make in a lesson of the copy.
lmake() {
    local dir=$1; shift
    make --no-print-directory -C "$dir" "$@"
}

# assert_arch_error TEXT: make stopped with status 2, printed nothing on
# stdout and one line on stderr that holds "*** LESSON: TEXT".
# (stderr and stderr_lines are set by bats' run --separate-stderr.)
# shellcheck disable=SC2154
assert_arch_error() {
    assert_failure 2
    assert_equal "$output" ""
    assert_equal "${#stderr_lines[@]}" 1
    [[ $stderr == *"*** 01-shfl-reduction: $1"* ]] || fail "expected '$1' in: $stderr"
}

# fake_gcc VERSION: a gcc that says it is VERSION, first in PATH.
fake_gcc() {
    mkdir -p "$BATS_TEST_TMPDIR/gcc"
    printf '#!/bin/sh\necho %s\n' "$1" >"$BATS_TEST_TMPDIR/gcc/gcc"
    chmod +x "$BATS_TEST_TMPDIR/gcc/gcc"
    PATH=$BATS_TEST_TMPDIR/gcc:$PATH
}

# path_without NAME...: a folder of links to every program in /usr/bin but
# the ones named; make it PATH to hide those programs.
path_without() {
    local d=$BATS_TEST_TMPDIR/usrbin name
    mkdir -p "$d"
    ln -s /usr/bin/* "$d"/
    for name in "$@"; do rm -f "$d/$name"; done
    echo "$d"
}

have_old_nvcc() {
    [ -x "$OLD_NVCC" ] && "$OLD_NVCC" --version 2>/dev/null | grep -q 'release 11\.8,'
}

@test "CUDA 13 and SM=60: one line, pointing to CUDA 11.8-12.x and make pascal" {
    run --separate-stderr lmake "$L1" NVCC="$FAKE/nvcc-13.0" SM=60 all
    assert_arch_error "CUDA 13.0 cannot build for compute capability 6.0; use CUDA 11.8-12.x, or 'make pascal'"
    [ ! -e "$L1/build/sync" ] || fail "something was built"
}

@test "CUDA 11.8 and SM=100: one line asking for a newer toolkit" {
    fake_gcc 11.4.0 # CUDA 11.8 takes gcc 11: no question of host compiler
    run --separate-stderr lmake "$L1" NVCC="$FAKE/nvcc-11.8" SM=100
    assert_arch_error "CUDA 11.8 cannot build for compute capability 10.0; use a newer CUDA toolkit"
}

@test "SM=abc, SM=-5 and SM=50 are refused with one line each" {
    run --separate-stderr lmake "$L1" NVCC="$FAKE/nvcc-12.4" SM=abc
    assert_arch_error "SM=abc: give a compute capability as digits, e.g. SM=90 for 9.0"
    run --separate-stderr lmake "$L1" NVCC="$FAKE/nvcc-12.4" SM=-5
    assert_arch_error "SM=-5: give a compute capability as digits, e.g. SM=90 for 9.0"
    run --separate-stderr lmake "$L1" NVCC="$FAKE/nvcc-12.4" SM=50
    assert_arch_error "the lessons need compute capability 6.0 or newer (asked for 5.0)"
}

@test "CUDA 11.0 is refused as older than 11.8" {
    fake_gcc 11.4.0 # no question of host compiler
    run --separate-stderr lmake "$L1" NVCC="$FAKE/nvcc-11.0"
    assert_arch_error "CUDA 11.0 is older than 11.8, the oldest toolkit these lessons support"
}

@test "CUDA 12.4 and SM=60: -arch=sm_60, with gcc as host compiler" {
    run lmake "$L1" -n NVCC="$FAKE/nvcc-12.4" SM=60
    assert_success
    assert_line --partial '(CUDA 12.4, compute capability 6.0)'
    run grep -c -- "nvcc-12.4 .* -arch=sm_60 .* -o build/\(legacy\|sync\)$" <<<"$output"
    assert_output 2
    run lmake "$L1" -n NVCC="$FAKE/nvcc-12.4" SM=60
    refute_output --partial '-ccbin'
}

@test "CUDA 11.8 with gcc 12 takes clang++-14 as host compiler, or says to install it" {
    fake_gcc 12.2.0
    run --separate-stderr lmake "$L1" -n NVCC="$FAKE/nvcc-11.8" SM=60
    if command -v clang++-14 >/dev/null; then
        assert_success
        assert_output --partial '-arch=sm_60'
        assert_output --partial '-ccbin clang++-14'
    else
        assert_arch_error "CUDA 11.8 refuses gcc 12; install clang-14 (apt-get install clang-14)"
    fi
}

@test "CUDA 11.8 with gcc 12 and no clang++-14: one line saying to install clang-14" {
    fake_gcc 12.2.0
    PATH=$BATS_TEST_TMPDIR/gcc:$FAKE/nogpu:$(path_without clang++-14)
    run --separate-stderr lmake "$L1" -n NVCC="$FAKE/nvcc-11.8" SM=60
    assert_arch_error "CUDA 11.8 refuses gcc 12; install clang-14 (apt-get install clang-14) or give CCBIN=g++-11"
    # A host compiler given by hand is taken as it is.
    run lmake "$L1" -n NVCC="$FAKE/nvcc-11.8" SM=60 CCBIN=g++-11
    assert_success
    assert_output --partial '-ccbin g++-11'
}

# Installing clang-14 would not help with these: what the toolkit cannot do
# is the line to show.
@test "with gcc 12 and no clang++-14, a toolkit or SM that cannot work is still the error shown" {
    fake_gcc 12.2.0
    PATH=$BATS_TEST_TMPDIR/gcc:$FAKE/nogpu:$(path_without clang++-14)
    run --separate-stderr lmake "$L1" NVCC="$FAKE/nvcc-11.0"
    assert_arch_error "CUDA 11.0 is older than 11.8, the oldest toolkit these lessons support"
    run --separate-stderr lmake "$L1" NVCC="$FAKE/nvcc-11.8" SM=100
    assert_arch_error "CUDA 11.8 cannot build for compute capability 10.0; use a newer CUDA toolkit"
    run --separate-stderr lmake "$L1" NVCC="$FAKE/nvcc-11.8" SM=abc
    assert_arch_error "SM=abc: give a compute capability as digits, e.g. SM=90 for 9.0"
}

@test "CUDA 11.8 with gcc 11 keeps gcc" {
    fake_gcc 11.4.0
    run lmake "$L1" -n NVCC="$FAKE/nvcc-11.8" SM=60
    assert_success
    assert_output --partial '-arch=sm_60'
    refute_output --partial '-ccbin'
}

@test "no SM, no GPU: CUDA 11.8 and 12.x build for 6.0 7.0 8.0 9.0 and 9.0 PTX; CUDA 13 for all-major" {
    local majors='-gencode arch=compute_60,code=sm_60 -gencode arch=compute_70,code=sm_70 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 '
    run lmake "$L1" -n NVCC="$FAKE/nvcc-12.4"
    assert_success
    assert_output --partial "$majors"
    assert_output --partial '-lineinfo'
    refute_output --partial 'all-major'
    refute_output --regexp 'compute_(50|52|53|61|62|72|75|86|87|89)'
    run lmake "$L1" help NVCC="$FAKE/nvcc-12.4"
    assert_success
    assert_line '          with CUDA 12.4 for compute capability 6.0 7.0 8.0 9.0'

    # CUDA 11.8 crashes on lesson 06 for sm_90 with -lineinfo: left out.
    run lmake "$L1" -n NVCC="$FAKE/nvcc-11.8" CCBIN=clang++-14
    assert_success
    assert_output --partial "$majors"
    refute_output --partial '-lineinfo'

    run lmake "$L1" -n NVCC="$FAKE/nvcc-13.0"
    assert_success
    assert_output --partial ' -arch=all-major '
    refute_output --partial '-gencode'
    run lmake "$L1" help NVCC="$FAKE/nvcc-13.0"
    assert_line '          with CUDA 13.0 for every major architecture'
}

@test "programs that need 7.0 (lesson 04's bench) leave the 6.0 code out, or are not built" {
    run lmake "$L4" -n NVCC="$FAKE/nvcc-12.4"
    assert_success
    run grep -- '-o build/bench$' <<<"$output"
    assert_success
    assert_output --partial 'arch=compute_70,code=sm_70'
    refute_output --partial 'compute_60'
    run lmake "$L4" -n NVCC="$FAKE/nvcc-12.4" SM=60
    assert_success
    assert_output --partial '-o build/sync-fallback'
    refute_output --partial 'bench'
    # a program built from parts (lesson 07's bench: bench.cu and CUB's scan
    # in cub_scan.cu, bench_PARTS): every part gets the program's 7.0 flags
    # (CUDA 12.4 with no GPU and no SM: 6.0 7.0 8.0 9.0, bench 7.0 and up)
    run lmake "$R/lessons/07-warp-scan" -n NVCC="$FAKE/nvcc-12.4"
    assert_success
    assert_line --regexp 'arch=compute_60,code=sm_60 .*-o build/harness.o$'
    for f in build/70/bench.o build/70/cub_scan.o build/bench; do
        assert_line --regexp "arch=compute_70,code=sm_70 .*-o $f\$"
        refute_line --regexp "compute_60.*-o $f\$"
    done
    # lesson 06's cub_sum.cu, a part of cub_ref (6.0 too) and of bench (7.0):
    # one build for each there, bench's in build/70/
    run lmake "$R/lessons/06-block-reduce" -n NVCC="$FAKE/nvcc-12.4"
    assert_success
    assert_line --regexp "arch=compute_60,code=sm_60 .*-o build/cub_sum.o\$"
    assert_line --regexp "arch=compute_60,code=sm_60 .* build/cub_ref.o build/cub_sum.o -o build/cub_ref\$"
    assert_line --regexp " build/70/bench.o build/70/cub_sum.o -o build/bench\$"
    for f in build/70/bench.o build/70/cub_sum.o build/bench; do
        assert_line --regexp "arch=compute_70,code=sm_70 .*-o $f\$"
        refute_line --regexp "compute_60.*-o $f\$"
    done
    # with one architecture, one cub_sum.o for both
    run lmake "$R/lessons/06-block-reduce" -n NVCC="$FAKE/nvcc-12.4" SM=90
    assert_line --regexp " build/bench.o build/cub_sum.o -o build/bench\$"
    refute_output --partial build/70/
}

@test "GENCODE naming only GPUs older than 7.0 leaves out the programs that need 7.0" {
    run lmake "$L4" -n NVCC="$FAKE/nvcc-12.4" \
        GENCODE="-gencode arch=compute_60,code=sm_60 -gencode arch=compute_60,code=compute_60"
    assert_success
    assert_output --partial '-o build/sync-fallback'
    refute_output --partial 'bench'
    run lmake "$L4" -n NVCC="$FAKE/nvcc-12.4" GENCODE="-gencode arch=compute_70,code=sm_70"
    assert_success
    assert_line --regexp ' -gencode arch=compute_70,code=sm_70 .*-o build/bench$'
    run lmake "$L4" -n NVCC="$FAKE/nvcc-13.0" GENCODE=-arch=all-major
    assert_success
    assert_line --regexp ' -arch=all-major .*-o build/bench$'
}

@test "PASCAL=1 with CUDA 12.4: compute_60 PTX only, into build/pascal/" {
    run lmake "$L1" -n PASCAL=1 NVCC="$FAKE/nvcc-12.4"
    assert_success
    assert_output --partial '(CUDA 12.4, compute_60 PTX)'
    run grep -c -- "nvcc-12.4 .* -gencode arch=compute_60,code=compute_60 .* -o build/pascal/\(legacy\|sync\)$" <<<"$output"
    assert_output 2
    run lmake "$L1" -n PASCAL=1 NVCC="$FAKE/nvcc-12.4"
    refute_output --partial 'code=sm_'
    refute_line --regexp '-o build/(legacy|sync)$'
    # Lesson 04: the fallback build too, and no bench (it needs 7.0).
    run lmake "$L4" -n PASCAL=1 NVCC="$FAKE/nvcc-12.4"
    assert_success
    assert_output --partial '-o build/pascal/sync-fallback'
    refute_output --partial 'bench'
}

@test "PASCAL=1 keeps an NVCC given on the command line, even one that cannot build compute_60" {
    run --separate-stderr lmake "$L1" PASCAL=1 NVCC="$FAKE/nvcc-13.0"
    assert_arch_error "CUDA 13.0 cannot build for compute capability 6.0"
}

@test "emu, clean and help go on when the toolkit cannot build what was asked" {
    local bad=(NVCC="$FAKE/nvcc-13.0" SM=60)
    run lmake "$L1" help "${bad[@]}"
    assert_success
    assert_line '          with CUDA 13.0 for compute capability 6.0: CUDA 13.0 cannot build for compute capability 6.0; use CUDA 11.8-12.x, or '"'make pascal'"' (scripts/get-cuda-11.8.sh installs CUDA 11.8)'
    run lmake "$L1" emu "${bad[@]}"
    assert_success
    [ -x "$L1/build/emu/sync" ] || fail "make emu built no build/emu/sync"
    run lmake "$L1" clean "${bad[@]}"
    assert_success
    [ ! -e "$L1/build" ] || fail "make clean left build/"
}

@test "make check EMU=1 runs on warpsim when the toolkit cannot build what was asked; without EMU=1 it stops" {
    run lmake "$L1" check EMU=1 NVCC="$FAKE/nvcc-13.0" SM=60
    echo "$output"
    assert_success
    assert_line '# checking on the CPU emulator (warpsim)'
    assert_regex "${lines[${#lines[@]}-1]}" '^[1-9][0-9]* passed, 0 failed$'
    run lmake "$L1" -n run EMU=1 NVCC="$FAKE/nvcc-13.0" SM=60
    assert_success
    run --separate-stderr lmake "$L1" check NVCC="$FAKE/nvcc-13.0" SM=60
    assert_arch_error "CUDA 13.0 cannot build for compute capability 6.0"
}

@test "PASCAL=1 with only CUDA 13: nothing built, one line saying so; check is skipped" {
    local p
    for p in "$OLD_NVCC" /usr/local/cuda-11.8/bin/nvcc /usr/local/cuda-12.*/bin/nvcc; do
        [ ! -e "$p" ] || skip "$p is installed"
    done
    PATH=$FAKE/nvcc13:$PATH
    run lmake "$L1" PASCAL=1
    assert_success
    assert_output '01-shfl-reduction: no CUDA 11.8 or 12.x found for compute_60 PTX, nothing built (scripts/get-cuda-11.8.sh installs CUDA 11.8; or NVCC=/path/to/nvcc)'
    [ ! -e "$L1/build/pascal/sync" ] || fail "build/pascal/sync was built"
    run lmake "$L1" check PASCAL=1
    assert_success
    assert_line --regexp '^skipped: '
}

@test "PASCAL=1 with only CUDA 13 and the search list empty: the same" {
    PATH=$FAKE/nvcc13:$PATH
    run lmake "$L1" PASCAL=1 OLD_NVCCS=/nonexistent/nvcc
    assert_success
    assert_output '01-shfl-reduction: no CUDA 11.8 or 12.x found for compute_60 PTX, nothing built (scripts/get-cuda-11.8.sh installs CUDA 11.8; or NVCC=/path/to/nvcc)'
    [ ! -e "$L1/build/pascal/sync" ] || fail "build/pascal/sync was built"
    run lmake "$L1" check PASCAL=1 OLD_NVCCS=/nonexistent/nvcc
    assert_success
    assert_line --regexp '^skipped: '
    run lmake "$L1" help PASCAL=1 OLD_NVCCS=/nonexistent/nvcc
    assert_success
    assert_line '          (no nvcc found)'
}

@test "make pascal with no CUDA 11.8 or 12.x and no GPU: the one line, exit status 2" {
    PATH=$FAKE/nvcc13:$PATH
    run --separate-stderr lmake "$L1" pascal OLD_NVCCS=/nonexistent/nvcc
    assert_equal "$status" 2
    assert_output '01-shfl-reduction: no CUDA 11.8 or 12.x found for compute_60 PTX, nothing built (scripts/get-cuda-11.8.sh installs CUDA 11.8; or NVCC=/path/to/nvcc)'
    refute_output --partial 'compute_60 programs in build/pascal/'
}

@test "PASCAL=1 with CUDA 13 in PATH finds CUDA 11.8 in /usr/lib/nvidia-cuda-toolkit" {
    have_old_nvcc || skip "CUDA 11.8 not installed in $OLD_NVCC (scripts/get-cuda-11.8.sh)"
    PATH=$FAKE/nvcc13:$PATH
    run lmake "$L1" -n PASCAL=1
    assert_success
    assert_output --partial '(CUDA 11.8, compute_60 PTX)'
    assert_output --partial "$OLD_NVCC -O3"
}

@test "CUDA 11.8 builds lesson 01 and 04 as compute_60 PTX, no cubin, into build/pascal/" {
    have_old_nvcc || skip "CUDA 11.8 not installed in $OLD_NVCC (scripts/get-cuda-11.8.sh)"
    local cuobjdump=/usr/local/cuda/bin/cuobjdump prog
    [ -x "$cuobjdump" ] || cuobjdump=$(command -v cuobjdump) || skip "no cuobjdump"
    PATH=$FAKE/nvcc13:$PATH
    run lmake "$L1" PASCAL=1
    echo "$output"
    assert_success
    refute_output --partial warning
    for prog in legacy sync; do
        [ -x "$L1/build/pascal/$prog" ] || fail "no build/pascal/$prog"
        run "$cuobjdump" --list-ptx "$L1/build/pascal/$prog"
        assert_success
        assert_line --regexp "^PTX file +1: .*sm_60\.ptx$"
        run "$cuobjdump" --list-elf "$L1/build/pascal/$prog"
        refute_line --regexp '^ELF file'
        run "$cuobjdump" --dump-ptx "$L1/build/pascal/$prog"
        assert_success
        assert_line '.target sm_60'
    done
    # lesson 04's fallback alone: legacy and sync build as lesson 01's do, and
    # that bench is left out of compute_60 is tested above with make -n
    run lmake "$L4" PASCAL=1 build/pascal/sync-fallback
    echo "$output"
    assert_success
    [ -x "$L4/build/pascal/sync-fallback" ] || fail "no build/pascal/sync-fallback"
}

@test "get-cuda-11.8.sh: --help gives the download size; a bad option one line and exit 2" {
    run "$REPO/scripts/get-cuda-11.8.sh" --help
    assert_success
    assert_output --partial '1.6 GB'
    assert_output --partial '--yes'
    run --separate-stderr "$REPO/scripts/get-cuda-11.8.sh" --bogus
    assert_failure 2
    assert_equal "$output" ""
    assert_equal "${#stderr_lines[@]}" 1
    assert_equal "$stderr" "get-cuda-11.8.sh: unknown option '--bogus' (try --yes or --help)"
}

# sources_state: the APT source the script would write, as a checksum.
sources_state() {
    if [ -e "$SOURCES" ]; then sha256sum "$SOURCES"; else echo absent; fi
}

@test "get-cuda-11.8.sh without --yes and not on a terminal downloads nothing" {
    local before
    before=$(sources_state)
    run --separate-stderr "$REPO/scripts/get-cuda-11.8.sh" </dev/null
    if have_old_nvcc && command -v clang++-14 >/dev/null; then
        assert_success
        assert_output --partial 'CUDA 11.8 is installed'
    else
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        if [ "$(id -u)" -eq 0 ] && grep -qs '^VERSION_CODENAME=bookworm' /etc/os-release; then
            assert_regex "$stderr" 'run again with --yes'
        fi
    fi
    assert_equal "$(sources_state)" "$before"
}

@test "get-cuda-11.8.sh, CUDA 11.8 missing, without --yes: exit 2 before any download" {
    local before
    before=$(sources_state)
    # No clang++-14 (so CUDA 11.8 counts as missing) and no apt-get.
    run --separate-stderr env PATH="$(path_without clang++-14 apt-get apt)" \
        /bin/bash "$REPO/scripts/get-cuda-11.8.sh" </dev/null
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    if ! grep -qs '^VERSION_CODENAME=bookworm' /etc/os-release; then
        assert_regex "$stderr" 'bookworm'
    elif [ "$(id -u)" -ne 0 ]; then
        assert_regex "$stderr" 'needs root'
    else
        assert_equal "$stderr" "get-cuda-11.8.sh: not asked on a terminal; run again with --yes to download"
        assert_output --partial '1.6 GB'
    fi
    assert_equal "$(sources_state)" "$before"
}

@test "on warpsim, --path says Volta and newer, and --help lists --path" {
    run lmake "$L1" emu
    assert_success
    for prog in legacy sync; do
        run "$L1/build/emu/$prog" --path
        assert_success
        assert_line --regexp '^path: Volta and newer, on warpsim'
    done
    # The line docs/pages/gpus.md shows is the program's, word for word.
    grep -qxF -- "$output" "$R/docs/pages/gpus.md" || fail "docs/pages/gpus.md does not show: $output"
    run "$L1/build/emu/sync" --help
    assert_success
    assert_line --regexp '^ +--path +print which code path'
}

@test "compat.sh: --help lists its settings; no CUDA 11.8 or no CUDA 13 is one line and exit 2" {
    run "$R/scripts/compat.sh" --help
    assert_success
    assert_output --partial 'CUDA11=/path/to/nvcc'
    run --separate-stderr env CUDA11=/nonexistent/nvcc "$R/scripts/compat.sh" "$L1"
    assert_equal "$status" 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_equal "${stderr_lines[0]}" "compat.sh: CUDA 11.8 not found (/nonexistent/nvcc is not a CUDA nvcc); scripts/get-cuda-11.8.sh installs it (1.6 GB), or CUDA11=/path/to/nvcc"
    run --separate-stderr env CUDA11="$FAKE/nvcc-11.8" CUDA13="$FAKE/nvcc-12.4" "$R/scripts/compat.sh" "$L1"
    assert_equal "$status" 2
    assert_equal "${stderr_lines[0]}" "compat.sh: CUDA 13 not found (nvcc in PATH is 12.4); give CUDA13=/path/to/nvcc"
}

# compiling_nvcc VERSION [WARNING]: an nvcc of VERSION that "builds": it
# writes an executable at -o, and prints WARNING on stderr when given.
compiling_nvcc() {
    local f=$BATS_TEST_TMPDIR/nvcc-$1/nvcc
    mkdir -p "${f%/*}"
    {
        echo '#!/usr/bin/env bash'
        echo 'case "$1" in'
        echo "--version) echo 'Cuda compilation tools, release $1, V$1.99'; exit 0 ;;"
        echo "--list-gpu-arch) printf 'compute_%s\\n' 60 70 75 80 90 100 120; exit 0 ;;"
        echo 'esac'
        [ -z "${2:-}" ] || printf 'echo %q >&2\n' "$2"
        echo 'while [ $# -gt 0 ]; do'
        echo '    if [ "$1" = -o ]; then printf "#!/bin/sh\\n" >"$2"; chmod +x "$2"; fi'
        echo '    shift'
        echo 'done'
    } >"$f"
    chmod +x "$f"
    echo "$f"
}

@test "compat.sh fails a build that prints a warning, with the warning in its line" {
    local n11 n13
    fake_gcc "gcc (Debian 11.3.0-1) 11.3.0"
    # ptxas deprecating legacy.cu's pre-Volta shfl is counted, not failed
    n11=$(compiling_nvcc 11.8 "ptxas /tmp/tmpxft_1-6_legacy.ptx, line 9; warning : Instruction 'shfl' without '.sync' is deprecated since PTX ISA version 6.0")
    n13=$(compiling_nvcc 13.0 'sync.cu(12): warning #177-D: variable "x" was declared but never referenced')
    run env CUDA11="$n11" CUDA13="$n13" OUT="$BATS_TEST_TMPDIR/compat.txt" "$R/scripts/compat.sh" "$L1"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^01-shfl-reduction +CUDA 11\.8 +sm_60 \+ compute_60 PTX +ok .* \(ptxas: [0-9]+ warnings? of shfl/vote without \.sync, the legacy code the lesson shows\)$'
    assert_line --regexp '^01-shfl-reduction +CUDA 13\.0 +every major architecture +FAILED: sync\.cu\(12\): warning #177-D'
}

@test "make compat builds a lesson with CUDA 11.8 and CUDA 13 and records a line for each" {
    have_old_nvcc || skip "CUDA 11.8 not installed in $OLD_NVCC (scripts/get-cuda-11.8.sh)"
    [[ $(nvcc --version 2>/dev/null) == *"release 13."* ]] || skip "no CUDA 13 nvcc in PATH"
    run env OUT="$BATS_TEST_TMPDIR/compat.txt" "$R/scripts/compat.sh" "$L4"
    echo "$output"
    assert_success
    assert_line --regexp '^04-match-any +CUDA 11\.8 +sm_60 \+ compute_60 PTX +ok .* legacy sync sync-fallback +\['
    assert_line --regexp '^04-match-any +CUDA 13\.[0-9]+ +every major architecture +ok .* bench legacy sync sync-fallback +\['
    run cat "$BATS_TEST_TMPDIR/compat.txt"
    assert_line --regexp '^# CUDA 11\.8: release 11\.8'
    assert_line '# all 2 builds ok'
}

# What `make` does where no GPU answers: every lesson for every major
# architecture. The full build of every lesson that way takes most of an
# hour on two cores; it is `make compat`'s job, recorded in
# docs/results/compat.txt. Here: the commands make would run for every
# lesson (make -n), and one real program built that way, with no warning.
# The lesson tests build for one architecture (scripts/test-prep.sh --alone).
@test "with no GPU and no SM, make all builds every lesson for every major architecture, with no warning" {
    local d n
    command -v nvcc >/dev/null || skip "nvcc not found"
    [[ $(nvcc --version 2>/dev/null) == *"release 13."* ]] || skip "the nvcc in PATH is not CUDA 13"
    copy_repo "$BATS_TEST_TMPDIR/all"
    n=0
    for d in "$BATS_TEST_TMPDIR"/all/lessons/[0-9][0-9]-*; do
        n=$((n + 1))
        # each program of the lesson is built with -arch=all-major
        run make --no-print-directory -C "$d" -n all
        assert_success
        grep -q ' -arch=all-major ' <<<"$output" || fail "$(basename "$d"): no -arch=all-major in: $output"
        refute_output --regexp 'nvcc .*-arch=sm_|nvcc .*-gencode'
        grep -q 'build/sync' <<<"$output" || fail "$(basename "$d"): make all would not build build/sync"
    done
    [ "$n" -ge 7 ] || fail "only $n lessons"
    # one real program, built the same way, with no warning
    run make --no-print-directory -C "$BATS_TEST_TMPDIR/all/lessons/01-shfl-reduction" build/sync
    echo "$output"
    assert_success
    refute_output --partial warning
    [ -x "$BATS_TEST_TMPDIR/all/lessons/01-shfl-reduction/build/sync" ] || fail "no build/sync"
    run cat "$BATS_TEST_TMPDIR/all/lessons/01-shfl-reduction/build/.nvccflags"
    assert_output --regexp ' -arch=all-major '
}
