#!/usr/bin/env bats
# warpsim on any laptop: built by clang as well as gcc, for arm64 (run under
# qemu-user, as on Apple silicon or an ARM Linux machine) as well as x86-64;
# the launch passes any argument types exactly; every access the source
# makes reaches the race detector. Needs clang, qemu-user and Debian's
# aarch64 cross compiler (scripts/need-tools.sh portable installs them
# when it can; the tests that need one skip with the reason otherwise).

setup_file() {
    load helper
    "$REPO/scripts/need-tools.sh" portable >&2 || true
    make -s --no-print-directory -C "$REPO/warpsim" all >/dev/null
}

setup() {
    load helper
}

need() {
    command -v "$1" >/dev/null 2>&1 ||
        skip "$1 not found and scripts/need-tools.sh portable could not install it"
}

# ws_prog CC SOURCE OUTPUT [MAKE VARIABLES...]: builds SOURCE for warpsim
# with compiler CC, as mk/warpsim.mk builds a lesson file.
ws_prog() {
    local cc=$1 src=$2 out=$3
    shift 3
    # shellcheck disable=SC2016
    printf 'TOP := %s\ninclude $(TOP)/mk/warpsim.mk\n%s: %s\n\t$(call ws_build,$<,$@)\n' \
        "$REPO" "$out" "$src" >"$BATS_TEST_TMPDIR/prog.mk"
    make -s --no-print-directory -f "$BATS_TEST_TMPDIR/prog.mk" WS_CC="$cc" "$@" "$out"
}

# A launch with 16 arguments of many types, some converted to their
# parameter's type: every thread checks every value it received.
write_args_kernel() {
    cat >"$BATS_TEST_TMPDIR/args.cu" <<'EOF'
#include "warpsim.h"
typedef struct { int a; float b; } pair;
__global__ void k16(int *bad, signed char c, short s, int i, unsigned u, long long ll,
                    float f, double d, pair p, const int *ptr, float f2, double d2,
                    unsigned char uc, long l, float f3, double d3)
{
    int n = (c != -3) + (s != -300) + (i != 123456) + (u != 0xdeadbeefu) +
            (ll != -1234567890123LL) + (f != 1.5f) + (d != -2.25) + (p.a != 7) +
            (p.b != 0.5f) + (ptr[0] != 99) + (f2 != 3.0f) + (d2 != 0.125) +
            (uc != 250) + (l != -77) + (f3 != -0.75f) + (d3 != 1e100);
    if (n)
        atomicAdd(bad, n);
}
void (*table[1])(int *, signed char, short, int, unsigned, long long, float, double, pair,
                 const int *, float, double, unsigned char, long, float, double) = { k16 };
int main(void)
{
    int *bad, *ptr, h = 99, nbad = -1;
    pair p = { 7, 0.5f };
    cudaMalloc(&bad, sizeof(int));
    cudaMalloc(&ptr, sizeof(int));
    cudaMemset(bad, 0, sizeof(int));
    cudaMemcpy(ptr, &h, sizeof h, cudaMemcpyHostToDevice);
    WS_LAUNCH(table[0], 2, 64, 0, bad, (signed char)-3, (short)-300, 123456, 0xdeadbeefu,
              -1234567890123LL, 1.5f, -2.25f, p, ptr, 3, 0.125, 250, -77, -0.75f, 1e100);
    cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost);
    printf("wrong arguments: %d\n", nbad);
    return nbad != 0;
}
EOF
}

# The clean copy's clang build is kept for the file's other tests
# (clang_tests).
@test "warpsim, its tests and lesson 01 build with clang; lockstep gives the legacy reduction the right answer" {
    need clang
    local L=$BATS_FILE_TMPDIR/clang/lessons/01-shfl-reduction
    rm -rf "$BATS_FILE_TMPDIR/clang"
    copy_repo "$BATS_FILE_TMPDIR/clang"
    run make --no-print-directory -C "$BATS_FILE_TMPDIR/clang/warpsim" all tests WS_CC=clang
    echo "$output"
    assert_success
    refute_output --regexp '(src|include)/[a-z_]+\.[ch]:[0-9]+:[0-9]+: warning'
    grep -q clang "$BATS_FILE_TMPDIR/clang/warpsim/build/.cc"
    run make --no-print-directory -C "$L" emu CC=clang
    echo "$output"
    assert_success
    refute_output --partial warning
    grep -q clang "$L/build/emu/.flags"
    run env WARPSIM_MODEL=lockstep "$L/build/emu/legacy" -n 2048 -j 200
    echo "$output"
    assert_line --regexp '^result: ok'
    assert_line --regexp '^warpsim: [1-9][0-9]* races?, 0 hangs'
    run env WARPSIM_MODEL=its "$L/build/emu/legacy" -n 2048 -j 200
    echo "$output"
    assert_line --regexp '^result: WRONG'
}

@test "a launch passes 16 arguments of mixed types, converted to the kernel's parameters, with gcc and clang" {
    need clang
    write_args_kernel
    for cc in gcc clang; do
        ws_prog "$cc" "$BATS_TEST_TMPDIR/args.cu" "$BATS_TEST_TMPDIR/args-$cc"
        for model in lockstep its random; do
            run env WARPSIM_MODEL=$model "$BATS_TEST_TMPDIR/args-$cc"
            echo "--- $cc, $model"; echo "$output"
            assert_success
            assert_line 'wrong arguments: 0'
            assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors'
        done
        run readelf -lW "$BATS_TEST_TMPDIR/args-$cc"
        assert_line --regexp 'GNU_STACK .* RW +0x'
    done
}

@test "a dead store and an unused load still race, and a read-modify-write still reads, with gcc and clang" {
    need clang
    cat >"$BATS_TEST_TMPDIR/dead.cu" <<'EOF'
#include "warpsim.h"
__global__ void dead_store(int *out)
{
    __shared__ int s[32];
    s[threadIdx.x % 32] = (int)threadIdx.x;     /* warps 0 and 1 write one slot; never read */
    (void)out;
}
__global__ void unused_load(int *out)
{
    __shared__ int t[64];
    if (threadIdx.x == 0)
        t[1] = 5;
    if (threadIdx.x == 1) {
        int v = t[1];                           /* read while thread 0 writes: value unused */
        (void)v;
    }
    (void)out;
}
__global__ void read_modify_write(int *out)
{
    __shared__ int u[64];
    u[threadIdx.x] += 1;                        /* reads a word no thread wrote */
    out[threadIdx.x] = u[threadIdx.x];
}
int main(void)
{
    int *d;
    cudaMalloc(&d, 256);
    WS_LAUNCH(dead_store, 1, 64, 0, d);
    WS_LAUNCH(unused_load, 1, 64, 0, d);
    WS_LAUNCH(read_modify_write, 1, 64, 0, d);
    cudaDeviceSynchronize();
    return 0;
}
EOF
    for cc in gcc clang; do
        ws_prog "$cc" "$BATS_TEST_TMPDIR/dead.cu" "$BATS_TEST_TMPDIR/dead-$cc"
        for model in lockstep its; do
            run env WARPSIM_MODEL=$model "$BATS_TEST_TMPDIR/dead-$cc"
            echo "--- $cc, $model"; echo "$output"
            assert_line --regexp '^warpsim: race on shared .*writes it at dead\.cu:5 and thread .* writes it at dead\.cu:5; different warps'
            assert_line --regexp '^warpsim: race on shared .*(writes it at dead\.cu:12 and .* reads it at dead\.cu:14|reads it at dead\.cu:14 and .* writes it at dead\.cu:12)'
            assert_line --regexp '^warpsim: uninitialized read: .* reads shared .* at dead\.cu:22 before any thread of its block wrote it'
        done
    done
}

# clang names a function's static s "function.s", gcc "s.N": the reports
# name both s, so the outputs match whole.
# clang_tests: the folder of warpsim's tests built with clang: the clean
# copy's (the test above), else built now in build/clang.
clang_tests() {
    if [ -x "$BATS_FILE_TMPDIR/clang/warpsim/build/tests/detect" ] &&
        [ -x "$BATS_FILE_TMPDIR/clang/warpsim/build/tests/prims" ]; then
        echo "$BATS_FILE_TMPDIR/clang/warpsim/build/tests"
        return
    fi
    make -s --no-print-directory -C "$REPO/warpsim" WS_CC=clang WS_B=build/clang all tests >&2
    echo "$REPO/warpsim/build/clang/tests"
}

@test "clang builds give the gcc builds' reports and results, case by case, under every model" {
    need clang
    local cc k model g c diffs=0 ct
    make -s --no-print-directory -C "$REPO/warpsim" tests
    ct=$(clang_tests)
    grep -q clang "$ct/../.cc"
    for model in lockstep its random; do
        for k in $(seq 1 33); do
            g=$(WARPSIM_MODEL=$model WARPSIM_SPIN_LIMIT=100000 "$REPO/warpsim/build/tests/detect" -k "$k" 2>&1; echo "exit $?")
            c=$(WARPSIM_MODEL=$model WARPSIM_SPIN_LIMIT=100000 "$ct/detect" -k "$k" 2>&1; echo "exit $?")
            if [ "$g" != "$c" ]; then
                echo "--- detect -k $k under $model: gcc and clang differ"
                diff <(echo "$g") <(echo "$c") || true
                diffs=$((diffs + 1))
            fi
        done
        run env WARPSIM_MODEL=$model "$ct/prims"
        assert_success
    done
    [ "$diffs" -eq 0 ]
}

@test "on arm64 under qemu-user, warpsim's tests give the native output and lesson 01's checker passes" {
    need qemu-aarch64
    need aarch64-linux-gnu-gcc
    need aarch64-linux-gnu-g++
    [ -f /usr/aarch64-linux-gnu/include/stdio.h ] ||
        skip "libc6-dev-arm64-cross not installed and scripts/need-tools.sh portable could not install it"
    run env LESSONS=01-shfl-reduction CORPUS=0 "$REPO/warpsim/cross-check.sh" aarch64
    echo "$output"
    assert_success
    assert_line --regexp '^ok: ([0-9]+) of \1 runs of prims, cxx, detect and device gave the same output on aarch64 as natively$'
    assert_line --regexp "^ok: lesson 01-shfl-reduction's checker on aarch64: [1-9][0-9]* passed, 0 failed$"
    assert_line 'cross-check: aarch64 as native'
}

@test "an integer division by zero is reported by lane and line with gcc, with clang and on arm64, where it does not trap" {
    need clang
    cat >"$BATS_TEST_TMPDIR/div.cu" <<'EOF'
#include "warpsim.h"
__global__ void divide(int *out, const int *in)
{
    out[threadIdx.x] = 1000 / in[threadIdx.x];
}
int main(void)
{
    int h[32], *in, *out, i;
    for (i = 0; i < 32; i++)
        h[i] = i == 5 ? 0 : i + 1;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    WS_LAUNCH(divide, 1, 32, 0, out, in);
    cudaDeviceSynchronize();
    printf("the launch returned\n");
    return 0;
}
EOF
    local runs=(gcc clang) cc
    if command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null &&
        command -v aarch64-linux-gnu-g++ >/dev/null &&
        [ -f /usr/aarch64-linux-gnu/include/stdio.h ]; then
        make -s --no-print-directory -C "$REPO/warpsim" WS_CC=aarch64-linux-gnu-gcc WS_B=build/aarch64 build/aarch64/libwarpsim.a
        ws_prog aarch64-linux-gnu-gcc "$BATS_TEST_TMPDIR/div.cu" "$BATS_TEST_TMPDIR/div-arm64" WS_B=build/aarch64
        runs+=(arm64)
    fi
    ws_prog gcc "$BATS_TEST_TMPDIR/div.cu" "$BATS_TEST_TMPDIR/div-gcc"
    ws_prog clang "$BATS_TEST_TMPDIR/div.cu" "$BATS_TEST_TMPDIR/div-clang"
    for cc in "${runs[@]}"; do
        if [ "$cc" = arm64 ]; then
            run env WARPSIM_MODEL=its qemu-aarch64 -L /usr/aarch64-linux-gnu "$BATS_TEST_TMPDIR/div-arm64"
        else
            run env WARPSIM_MODEL=its "$BATS_TEST_TMPDIR/div-$cc"
        fi
        echo "--- $cc"; echo "$output"
        assert_failure 1
        assert_line 'warpsim: integer division by zero in kernel divide: lane 5 of warp 0 (thread 5, block 0) at div.cu:4'
        refute_line 'the launch returned'
    done
    [ ${#runs[@]} -eq 3 ] || skip "arm64 not run: no qemu-aarch64 or aarch64 cross compiler"
}

@test "a launch passes its arguments exactly on arm64 too" {
    need qemu-aarch64
    need aarch64-linux-gnu-gcc
    need aarch64-linux-gnu-g++
    [ -f /usr/aarch64-linux-gnu/include/stdio.h ] || skip "libc6-dev-arm64-cross not installed"
    write_args_kernel
    make -s --no-print-directory -C "$REPO/warpsim" WS_CC=aarch64-linux-gnu-gcc WS_B=build/aarch64 build/aarch64/libwarpsim.a
    ws_prog aarch64-linux-gnu-gcc "$BATS_TEST_TMPDIR/args.cu" "$BATS_TEST_TMPDIR/args-arm64" WS_B=build/aarch64
    run readelf -h "$BATS_TEST_TMPDIR/args-arm64"
    assert_line --regexp 'Machine: +AArch64'
    run readelf -lW "$BATS_TEST_TMPDIR/args-arm64"
    assert_line --regexp 'GNU_STACK .* RW +0x'
    for model in lockstep its random; do
        run env WARPSIM_MODEL=$model qemu-aarch64 -L /usr/aarch64-linux-gnu "$BATS_TEST_TMPDIR/args-arm64"
        echo "--- $model"; echo "$output"
        assert_success
        assert_line 'wrong arguments: 0'
    done
}

# Each lane's stack has an inaccessible page below it (ctx.c: marked with
# MADV_GUARD_INSTALL where the kernel has it, mprotect elsewhere): a lane
# that runs off its stack faults there, and is reported, instead of writing
# over its neighbours' (lane 5's stack lies just above lane 4's, and 2,500
# calls of deep take about two of the 1 MiB slots and a half: without the
# guard, lane 5 would run on into the stacks of lanes 4 and 3, which have
# exited, and the launch return).
@test "a lane that runs off its stack is stopped at its guard page and reported by lane and line" {
    cat >"$BATS_TEST_TMPDIR/deep.cu" <<'EOF2'
#include "warpsim.h"
__device__ int deep(int n)
{
    volatile int pad[256];
    pad[n & 255] = n;
    if (n == 0) return pad[0];
    return deep(n - 1) + pad[n & 255];
}
__global__ void kernel(int *out, int n)
{
    out[threadIdx.x] = deep(threadIdx.x == 5 ? n : 1);
}
int main(void)
{
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    WS_LAUNCH(kernel, 1, 64, 0, out, 2500);
    cudaDeviceSynchronize();
    printf("the launch returned\n");
    return 0;
}
EOF2
    ws_prog gcc "$BATS_TEST_TMPDIR/deep.cu" "$BATS_TEST_TMPDIR/deep"
    run env WARPSIM_MODEL=its "$BATS_TEST_TMPDIR/deep"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^warpsim: segmentation fault in kernel kernel: lane 5 of warp 0 \(thread 5, block 0\) at deep\.cu:[3-7] touches address 0x[0-9a-f]+$'
    assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 1 memory error'
    refute_line 'the launch returned'
}

# warpsim's __shared__ is static storage of a fixed size: a file that asks
# for dynamic shared memory does not compile, and the last line of the
# failed build says why (with either compiler), naming the line.
@test "a file with extern __shared__ fails to build with one line that says warpsim has no dynamic shared memory" {
    cat >"$BATS_TEST_TMPDIR/dyn.cu" <<'EOF2'
#include "warpsim.h"
/* not this: extern __shared__ in a comment */
__global__ void kernel(int *out)
{
    extern __shared__ int s[];
    s[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
int main(void)
{
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    WS_LAUNCH(kernel, 1, 64, 64 * sizeof(int), out);
    return cudaDeviceSynchronize() != cudaSuccess;
}
EOF2
    local cc
    for cc in gcc clang; do
        run ws_prog "$cc" "$BATS_TEST_TMPDIR/dyn.cu" "$BATS_TEST_TMPDIR/dyn-$cc"
        echo "$output"
        assert_failure
        assert_line "$BATS_TEST_TMPDIR/dyn.cu:5: warpsim has no dynamic shared memory (extern __shared__): give the array a constant size, as __shared__ int s[256];"
        [ ! -e "$BATS_TEST_TMPDIR/dyn-$cc" ] || fail "a program was made"
    done
}
