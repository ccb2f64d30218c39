#!/usr/bin/env bats
# warpsim's detectors, case by case (warpsim/tests/detect.cu): each bug must
# be reported under every model, naming lane, mask and line; each correct
# variant must stay silent.

setup_file() {
    load helper
    make -s --no-print-directory -C "$REPO/warpsim" all tests >/dev/null
}

setup() {
    load helper
    D=$REPO/warpsim/build/tests/detect
}

# under MODEL K: runs case K under MODEL; output in $output.
under() {
    run env WARPSIM_MODEL="$1" WARPSIM_SPIN_LIMIT=100000 "$D" -k "$2"
    echo "--- model $1, case $2: $output"
}

# clean_everywhere K: case K runs to its end under every model, nothing reported.
clean_everywhere() {
    local m
    for m in lockstep its random; do
        under $m "$1"
        assert_success
        assert_line "warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model $m, seed 1)"
    done
}

@test "an intra-warp race on shared memory is reported under every model, with lanes and lines" {
    for m in lockstep its random; do
        under $m 1
        assert_line --regexp '^warpsim: race on shared s\[[0-9]+\]: thread [0-9]+ \(block 0, warp 0, lane [0-9]+\) writes it at detect\.cu:[0-9]+ and thread [0-9]+ \(block 0, warp 0, lane [0-9]+\) reads it at detect\.cu:[0-9]+; same warp, and no __syncwarp or __syncthreads between them'
    done
}

@test "__syncwarp between the write and the read orders them: no race" {
    clean_everywhere 2
}

@test "a race between warps is reported, and __syncthreads removes it" {
    for m in lockstep its random; do
        under $m 3
        assert_line --regexp '^warpsim: race on shared s\[[0-9]+\]: .*; different warps, and no __syncthreads between them$'
    done
    clean_everywhere 4
}

@test "a race between blocks on global memory is reported although blocks run one by one" {
    for m in lockstep its random; do
        under $m 5
        assert_line --regexp '^warpsim: race on global out\[0\]: thread 0 \(block 0, .* and thread 0 \(block 1, .*; different blocks of one launch, which nothing orders$'
    done
}

@test "atomics do not race with atomics, but a plain read of an atomic counter does" {
    clean_everywhere 6
    for m in lockstep its random; do
        under $m 7
        assert_line --regexp '^warpsim: race on global out\[0\]: .*updates it atomically.*reads it|^warpsim: race on global out\[0\]: .*reads it.*updates it atomically'
    done
}

@test "a shuffle synchronizes lanes but orders no memory: the race is still reported" {
    for m in lockstep its random; do
        under $m 8
        assert_line --regexp '^warpsim: race on shared s\['
    done
}

@test "an intra-warp race on global memory is reported" {
    for m in lockstep its random; do
        under $m 9
        assert_line --regexp '^warpsim: race on global out\[[0-9]+\]: .*same warp'
    done
}

@test "a read of shared memory no thread wrote is reported as uninitialized" {
    for m in lockstep its random; do
        under $m 10
        assert_line --regexp '^warpsim: uninitialized read: lane [0-9]+ of warp 0 \(thread [0-9]+, block 0\) reads shared s\[[0-9]+\] at detect\.cu:[0-9]+ before any thread of its block wrote it'
        assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 1 uninitialized read, 0 memory errors'
    done
}

@test "a lane absent from its own mask is reported with its lane and mask" {
    for m in lockstep its random; do
        under $m 11
        assert_line --regexp '^warpsim: bad mask: lane (1[6-9]|2[0-9]|3[01]) of warp 0 \(thread [0-9]+, block 0\) calls __ballot_sync\(0x0000ffff\) at detect\.cu:[0-9]+ with a mask that does not name itself'
    done
}

@test "a shuffle reading a lane outside the mask gets poison and is reported" {
    for m in lockstep its random; do
        under $m 12
        assert_line --regexp '^warpsim: bad shuffle: lane 8 of warp 0 .* reads lane 16 with __shfl_down_sync\(0x0000ffff\) at detect\.cu:[0-9]+, but lane 16 is outside the mask; it gets a poison value \(0xdeadbeef\)$'
    done
}

@test "a shuffle reading a lane that exited gets poison and is reported" {
    for m in lockstep its random; do
        under $m 13
        assert_line --regexp "^warpsim: bad shuffle: lane 0 of warp 0 .* reads lane 16 with __shfl_down_sync\(0xffffffff\) at detect\.cu:[0-9]+, but lane 16 has exited \(it returned early\)"
        assert_line --partial 'out: -559038737'
    done
}

@test "lanes that skip a full-mask shuffle and go on are reported as missing, under every model" {
    for m in lockstep its random; do
        under $m 14
        assert_line --regexp '^warpsim: missing lanes: lanes 16-31 of warp 0 \(block 0\) are named in the mask of __shfl_xor_sync\(0xffffffff\) that lanes 0-15 call at detect\.cu:[0-9]+, but went past it without calling it'
    done
}

@test "a full-mask __syncwarp after some lanes exited is legal: no error, a note with --verbose" {
    clean_everywhere 15
    run env WARPSIM_MODEL=its WARPSIM_VERBOSE=1 "$D" -k 15
    assert_success
    assert_line --regexp '^warpsim: note: lanes 16-31 of warp 0 had exited before __syncwarp\(0xffffffff\) at detect\.cu:[0-9]+; exited lanes need not arrive$'
    assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors'
}

@test "lanes of one call passing different masks are reported" {
    under lockstep 16
    assert_line --regexp '^warpsim: mask mismatch: in warp 0 \(block 0\) lane 0 calls __shfl_sync\(0x0000ffff\) and lane 16 calls it with 0xffffffff at detect\.cu:[0-9]+'
    for m in its random; do
        under $m 16
        assert_line --regexp '^warpsim: (mask mismatch|missing lanes): '
    done
}

@test "a shuffle width that is not a power of two is reported" {
    for m in lockstep its random; do
        under $m 17
        # (the first lane to arrive reports it: lane 0 in lane order, any
        # lane under random)
        assert_line --regexp '^warpsim: bad width: lane [0-9]+ of warp 0 .* passes width 12 at detect\.cu:[0-9]+'
    done
}

@test "masks with holes that each group passes consistently are clean" {
    clean_everywhere 18
}

@test "__syncthreads reached at different places, or gone past, is reported" {
    for m in lockstep its random; do
        under $m 19
        assert_line --regexp '^warpsim: divergent __syncthreads: in block 0 thread [0-9]+ waits in __syncthreads\(\) at detect\.cu:[0-9]+ and thread [0-9]+ at detect\.cu:[0-9]+'
        under $m 20
        assert_line --regexp '^warpsim: partial __syncthreads: 32 threads of block 0 \(thread [0-9]+ is one\) went past __syncthreads\(\) at detect\.cu:[0-9]+ without waiting'
    done
}

@test "threads that return before a __syncthreads are legal" {
    clean_everywhere 21
}

@test "a deadlock ends with HANG detected and exit 3, saying who waits where for whom" {
    for m in lockstep its random; do
        under $m 22
        assert_failure 3
        assert_line --regexp '^HANG detected: warp 0 of block 0: lanes 0-15 wait in __shfl_sync\(0xffffffff\) at detect\.cu:[0-9]+ for lanes 16-31, which wait in __syncthreads\(\) at detect\.cu:[0-9]+'
        assert_line --regexp "^warpsim: 0 races, 1 hang, 0 warp-primitive errors, .*\(model $m, seed 1\)$"
    done
}

@test "lanes spinning while others wait for them end with HANG detected and exit 3" {
    for m in lockstep its random; do
        under $m 23
        assert_failure 3
        assert_line --regexp '^HANG detected: warp 0 of block 0: lanes 0-15 wait in __syncwarp\(0xffffffff\) at detect\.cu:[0-9]+ for lanes 16-31.* spin.* at detect\.cu:[0-9]+.*\(no progress in 100000 steps\)$'
    done
}

@test "an intra-warp spin lock hangs under lockstep only, as on pre-Volta GPUs" {
    under lockstep 24
    assert_failure 3
    assert_line --regexp '^HANG detected: warp 0 of block 0: lane 0 is held at detect\.cu:[0-9]+ \(lockstep runs the lanes behind first\); lanes 1-31 spin at detect\.cu:[0-9]+'
    for m in its random; do
        under $m 24
        assert_success
        assert_line --partial 'out: 32 0'
        assert_line --partial 'warpsim: 0 races, 0 hangs'
    done
}

@test "global accesses outside an allocation, and host reads of device memory, are memory errors" {
    for m in lockstep its random; do
        under $m 25
        assert_failure 1
        assert_line --regexp '^warpsim: invalid write of 4 bytes on global memory: lane 0 of warp 0 \(thread 0, block 0\) at detect\.cu:[0-9]+ touches 16 bytes past the end of allocation 1 \(16384 bytes\)$'
        under $m 26
        assert_line --regexp '^warpsim: invalid read of 4 bytes: host code at detect\.cu:[0-9]+ touches device memory'
    done
}

@test "__activemask() names the lanes running together: the branch under lockstep, fewer otherwise" {
    under lockstep 27
    assert_line 'out: 255 255 255 255 255 255 255 255'
    under its 27
    assert_line 'out: 1 2 4 8 16 32 64 128'
}

@test "a sleeping writer runs after the reader under its and random, but not under lockstep" {
    under lockstep 28
    assert_line --partial 'out: 42 '
    for m in its random; do
        under $m 28
        assert_line --partial 'out: -1515870811 '
        assert_line --regexp '^warpsim: uninitialized read: lane 0 of warp 0'
    done
    for m in lockstep its random; do
        under $m 28
        assert_line --regexp '^warpsim: race on shared s\[1\]: thread 1 .* writes it .* thread 0 .* reads it'
    done
}

@test "each warp-primitive error is counted once per call site, not once per lane" {
    under lockstep 12
    assert_line --regexp '^warpsim: 0 races, 0 hangs, 1 warp-primitive error, '
    under lockstep 13
    assert_line --regexp '^warpsim: 0 races, 0 hangs, 1 warp-primitive error, '
}

@test "a write through a null pointer is never made: reported by lane and line, and the program stops with status 1" {
    for m in lockstep its random; do
        under $m 31
        assert_failure 1
        assert_line --regexp '^warpsim: invalid write of 4 bytes on global memory: lane 5 of warp 0 \(thread 5, block 0\) at detect\.cu:[0-9]+ touches address 0x14, a null pointer plus an offset$'
        assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 1 memory error'
    done
    run env WARPSIM_ERROR_EXITCODE=9 "$D" -k 31
    assert_failure 9
}

@test "long read-only loops and clock64() busy-waits are not hangs" {
    for m in lockstep its random; do
        for k in 32 33; do
            under $m $k
            assert_success
            assert_line "warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model $m, seed 1)"
        done
    done
}

@test "a read that an acquired release does not order stays recorded: the later write's race names that first read, under every model" {
    # thread 0 reads x; thread 32 releases f; thread 64 acquires f and
    # reads x; thread 96 writes x. Thread 32's release orders nothing of
    # thread 0, so thread 0's read must still be there to race with.
    cat >"$BATS_TEST_TMPDIR/acq.cu" <<'CU'
#include "warpsim.h"
__global__ void k(int *x, int *f, int *out)
{
    int t = threadIdx.x;
    if (t == 0) {
        out[0] = x[0];
    } else if (t == 32) {
        __threadfence();
        atomicExch(f, 1);
    } else if (t == 64) {
        while (atomicAdd(f, 0) == 0)
            ;
        out[1] = x[0];
    } else if (t == 96) {
        __nanosleep(100000);
        x[0] = 5;
    }
}
int main(void)
{
    int *x, *f, *out;
    cudaMalloc(&x, 4);
    cudaMalloc(&f, 4);
    cudaMalloc(&out, 8);
    cudaMemset(x, 0, 4);
    cudaMemset(f, 0, 4);
    WS_LAUNCH(k, 1, 128, 0, x, f, out);
    cudaDeviceSynchronize();
    return 0;
}
CU
    # shellcheck disable=SC2016
    printf 'TOP := %s\ninclude $(TOP)/mk/warpsim.mk\n%s: %s\n\t$(call ws_build,$<,$@)\n' \
        "$REPO" "$BATS_TEST_TMPDIR/acq" "$BATS_TEST_TMPDIR/acq.cu" >"$BATS_TEST_TMPDIR/acq.mk"
    make -s --no-print-directory -f "$BATS_TEST_TMPDIR/acq.mk" "$BATS_TEST_TMPDIR/acq"
    for model in lockstep its random; do
        run env WARPSIM_MODEL=$model "$BATS_TEST_TMPDIR/acq"
        echo "--- $model: $output"
        assert_success
        assert_line "warpsim: race on global x[0]: thread 96 (block 0, warp 3, lane 0) writes it at acq.cu:16 and thread 0 (block 0, warp 0, lane 0) reads it at acq.cu:6; different warps, and no __syncthreads between them"
        assert_line --partial "warpsim: 1 race, 0 hangs,"
    done
}

@test "device memory is named by the kernel parameter that points into it, whatever register or stack slot passed it" {
    cat >"$BATS_TEST_TMPDIR/names.cu" <<'CU'
#include "warpsim.h"
__global__ void many(int a0, float f0, int *first, long a2, double d0, unsigned a3,
                     const int *__restrict__ second, char a5, int *late, int n)
{
    int t = (int)threadIdx.x;
    (void)a0; (void)f0; (void)a2; (void)d0; (void)a3; (void)a5;
    if (t < n) {
        first[t + 1] = t;           /* lanes t and t + 1: a race on first[t + 1] */
        late[2 * t] = first[t] + second[t];
        late[2 * t + 1] = late[2 * t + 2];
    }
}
int main(void)
{
    int *a, *b, *c;
    cudaMalloc(&a, 256);
    cudaMalloc(&b, 256);
    cudaMalloc(&c, 1024);
    cudaMemset(a, 0, 256);
    cudaMemset(b, 0, 256);
    cudaMemset(c, 0, 1024);
    WS_LAUNCH(many, 1, 32, 0, 1, 2.0f, a, 3L, 4.0, 5u, b, 'x', c + 64, 32);
    cudaDeviceSynchronize();
    return 0;
}
CU
    # shellcheck disable=SC2016
    printf 'TOP := %s\ninclude $(TOP)/mk/warpsim.mk\n%s: %s\n\t$(call ws_build,$<,$@)\n' \
        "$REPO" "$BATS_TEST_TMPDIR/names" "$BATS_TEST_TMPDIR/names.cu" >"$BATS_TEST_TMPDIR/names.mk"
    make -s --no-print-directory -f "$BATS_TEST_TMPDIR/names.mk" "$BATS_TEST_TMPDIR/names"
    for model in lockstep its random; do
        run env WARPSIM_MODEL=$model "$BATS_TEST_TMPDIR/names"
        echo "--- $model: $output"
        assert_success
        # first: an integer register; late, the seventh pointer or integer:
        # the stack (x86-64; on arm64 the eighth register)
        assert_line --regexp '^warpsim: race on global first\[[0-9]+\]: '
        assert_line --regexp '^warpsim: race on global late\[[0-9]+\]: '
        refute_output --partial 'cudaMalloc#'
    done
}
