/*
 * detect.cu - warpsim's unit test of its detectors: one small kernel per
 * case (-k N), each either a bug warpsim must report or correct code on
 * which it must stay silent. tests/warpsim-detect.bats runs every case and
 * checks warpsim's report. `detect --help` lists the cases.
 */
#include "lesson.h"

static int *d_out;        /* 4096 ints, zeroed before each case */
static unsigned *d_lock;

/* ---- races ---------------------------------------------------------- */

/* Lane l reads the slot lane l+1 wrote, with nothing in between. */
__global__ void race_warp(int *out, int sync)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane] = lane;
    if (sync)
        __syncwarp();
    out[lane] = s[(lane + 1) % 32];
}

/* Warp 0 reads what warp 1 wrote. */
__global__ void race_block(int *out, int sync)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    s[t] = t;
    if (sync)
        __syncthreads();
    out[t] = s[63 - t];
}

/* Every block writes out[0]. */
__global__ void race_grid(int *out)
{
    if (threadIdx.x == 0)
        out[0] = (int)blockIdx.x;
}

__global__ void atomics_only(int *out)
{
    atomicAdd(&out[0], 1);
    atomicMax(&out[1], (int)threadIdx.x);
}

__global__ void atomic_vs_plain(int *out)
{
    if (threadIdx.x == 0)
        out[1] = out[0];
    else
        atomicAdd(&out[0], 1);
}

/* A shuffle synchronizes the lanes but orders no memory access. */
__global__ void shfl_orders_nothing(int *out)
{
    __shared__ int s[32];
    int lane = LANE();
    s[lane] = lane;
    out[64] = __shfl_sync(FULL_MASK, lane, 0);
    out[lane] = s[lane ^ 1];
}

/* Lane l reads global memory lane l+1 wrote. */
__global__ void race_global_warp(int *out)
{
    int lane = LANE();
    out[lane] = lane;
    out[64 + lane] = out[(lane + 1) % 32];
}

/* ---- uninitialized shared memory ------------------------------------- */

__global__ void uninit_shared(int *out)
{
    __shared__ int s[64];
    int lane = LANE();
    if (lane < 16)
        s[lane] = 1;
    __syncwarp();
    out[lane] = s[lane + 8];        /* s[16..39] were never written */
}

/* ---- warp primitives ------------------------------------------------- */

/* Lanes 16-31 pass 0x0000ffff: a mask that does not name themselves. */
__global__ void mask_without_self(int *out)
{
    out[LANE()] = (int)__ballot_sync(0x0000ffffu, 1);
}

/* Lanes 8-15 read lanes 16-23, which are outside the mask. */
__global__ void shfl_outside_mask(int *out)
{
    int lane = LANE();
    if (lane < 16)
        out[lane] = __shfl_down_sync(0x0000ffffu, lane, 8);
}

/* Lanes 16-31 exit first; lanes 0-15 read them with a full mask. */
__global__ void shfl_exited_lane(int *out)
{
    int lane = LANE();
    if (lane >= 16)
        return;
    out[lane] = __shfl_down_sync(FULL_MASK, lane, 16);
}

/* Lanes 16-31 skip the branch and go on: they never make the call that
 * the full mask says they make. */
__global__ void skip_branch(int *out)
{
    int lane = LANE(), v = lane;
    if (lane < 16)
        v = __shfl_xor_sync(FULL_MASK, v, 1);
    out[lane] = v;
}

/* Legal: lanes 16-31 have exited before the full-mask __syncwarp. */
__global__ void syncwarp_after_exit(int *out)
{
    __shared__ int s[32];
    int lane = LANE();
    if (lane >= 16)
        return;
    s[lane] = lane;
    __syncwarp();
    out[lane] = s[lane ^ 1];
}

/* One call, two masks. */
__global__ void mask_mismatch(int *out)
{
    int lane = LANE();
    unsigned m = lane < 16 ? 0x0000ffffu : FULL_MASK;
    out[lane] = __shfl_sync(m, lane, 0);
}

__global__ void bad_width(int *out)
{
    out[LANE()] = __shfl_sync(FULL_MASK, LANE(), 0, 12);
}

/* Legal: each group syncs on its own mask with holes. */
__global__ void mask_with_holes(int *out)
{
    __shared__ int s[32];
    int lane = LANE();
    unsigned m = lane & 1 ? 0xaaaaaaaau : 0x55555555u;
    s[lane] = lane;
    __syncwarp(m);
    out[lane] = s[lane ^ 2];
}

/* ---- __syncthreads --------------------------------------------------- */

__global__ void divergent_syncthreads(int *out)
{
    int t = (int)threadIdx.x;
    if (t < 32)
        __syncthreads();
    else
        __syncthreads();
    out[t] = t;
}

/* Threads 32-63 skip the barrier and go on. */
__global__ void partial_syncthreads(int *out)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    s[t] = t;
    if (t < 32)
        __syncthreads();
    out[t] = s[t];
}

/* Legal: threads 40-63 return before the barrier. */
__global__ void early_return_syncthreads(int *out)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x;
    if (t >= 40)
        return;
    s[t] = t;
    __syncthreads();
    out[t] = s[39 - t];
}

/* ---- hangs ----------------------------------------------------------- */

/* Lanes 0-15 wait in a full-mask shuffle for lanes that wait at the barrier. */
__global__ void hang_deadlock(int *out)
{
    int lane = LANE(), v = lane;
    if (lane < 16)
        v = __shfl_sync(FULL_MASK, v, 0);
    __syncthreads();
    out[lane] = v;
}

/* Half the warp waits in __syncwarp for the other half, which spins on a
 * flag that the first half sets only after the __syncwarp. */
__global__ void hang_spin(int *out)
{
    __shared__ volatile int flag;
    int lane = LANE();
    if (lane == 0)
        flag = 0;
    __syncthreads();
    if (lane < 16) {
        __syncwarp();
        flag = 1;
    } else {
        while (flag == 0)
            ;
    }
    out[lane] = lane;
}

/* An intra-warp spin lock: fine with independent thread scheduling, the
 * classic deadlock of pre-Volta GPUs (lockstep). */
__global__ void spin_lock(int *out, unsigned *lock)
{
    while (atomicCAS(lock, 0u, 1u) != 0u)
        ;
    atomicAdd(&out[0], 1);
    __threadfence();
    atomicExch(lock, 0u);
}

/* ---- memory ---------------------------------------------------------- */

__global__ void out_of_bounds(int *out)
{
    if (threadIdx.x == 0)
        out[4096 + 3] = 1;
}

__global__ void nothing(int *out)
{
    (void)out;
}

__global__ void active_mask(int *out)
{
    int lane = LANE();
    if (lane < 8)
        out[lane] = (int)__activemask();
}

/* A sleeping writer: under its and random the reader runs first. */
__global__ void sleeping_writer(int *out)
{
    __shared__ int s[32];
    int lane = LANE();
    if (lane == 1) {
        __nanosleep(1000);
        s[1] = 42;
    }
    if (lane == 0)
        out[0] = s[1];
}

/* Lane 5 writes through a null pointer. */
__global__ void null_write(int *out)
{
    int *p = LANE() == 5 ? (int *)0 : out;
    p[LANE()] = 1;
}

/* Legal and long: each thread reads 4000 elements before it writes. */
__global__ void long_reads(int *out, const int *in)
{
    int t = (int)threadIdx.x, i, sum = 0;
    for (i = 0; i < 4000; i++)
        sum += in[(t * 4000 + i) % 2048];
    out[t] = sum;
}

/* Legal: a busy-wait of 10^9 cycles on clock64(), touching no memory. */
__global__ void busy_wait(int *out)
{
    long long start = clock64();
    while (clock64() - start < 1000000000LL)
        ;
    out[threadIdx.x] = 1;
}

static const char *cases[] = {
    "race-warp: lane l reads s[l+1] that lane l+1 wrote, no __syncwarp",
    "race-warp-fixed: the same with __syncwarp between write and read (clean)",
    "race-block: warp 0 reads what warp 1 wrote, no __syncthreads",
    "race-block-fixed: the same with __syncthreads (clean)",
    "race-grid: every block writes out[0]",
    "atomics-only: every thread updates out[0] atomically (clean)",
    "atomic-vs-plain: a plain read of what others update atomically",
    "shfl-orders-nothing: write, __shfl_sync, read a neighbour's slot",
    "race-global-warp: the race-warp pattern on global memory",
    "uninit-shared: read shared memory no thread wrote",
    "mask-without-self: lanes 16-31 pass mask 0x0000ffff",
    "shfl-outside-mask: __shfl_down_sync(0x0000ffff, v, 8) reads lanes 16-23",
    "shfl-exited-lane: lanes 0-15 read lanes 16-31, which exited",
    "skip-branch: full-mask shuffle in a branch that lanes 16-31 skip",
    "syncwarp-after-exit: full-mask __syncwarp after lanes 16-31 returned (clean)",
    "mask-mismatch: one __shfl_sync, masks 0x0000ffff and 0xffffffff",
    "bad-width: __shfl_sync width 12",
    "mask-with-holes: odd and even lanes __syncwarp on their own masks (clean)",
    "divergent-syncthreads: warp 0 and warp 1 wait at different __syncthreads",
    "partial-syncthreads: threads 32-63 go past the __syncthreads",
    "early-return-syncthreads: threads 40-63 return before the barrier (clean)",
    "hang-deadlock: lanes 0-15 in a full-mask shuffle, lanes 16-31 at __syncthreads",
    "hang-spin: lanes 0-15 in __syncwarp, lanes 16-31 spin on a flag set after it",
    "spin-lock: an intra-warp spin lock (hangs under lockstep only)",
    "out-of-bounds: a write past the end of an allocation",
    "host-access: host code reads device memory",
    "active-mask: __activemask() in a branch of lanes 0-7 (printed)",
    "sleeping-writer: lane 1 sleeps, then writes what lane 0 reads",
    "threads-2048: a launch with 2048 threads per block",
    "dynamic-shared: a launch with 1024 bytes of dynamic shared memory",
    "null-write: lane 5 writes through a null pointer",
    "long-reads: every thread reads 4000 elements, then writes (no hang)",
    "busy-wait: a 10^9-cycle busy-wait on clock64() (no hang)",
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

int main(int argc, char **argv)
{
    long long k = 1;
    int h[64], i;
    lesson_option options[] = {
        { 'k', "variant", "K", &k, 1, NCASES, "which case" },
    };
    lesson_program program = { "detect.cu",
        "warpsim's unit test of its detectors: runs one case (-k N) and prints what\n"
        "the kernel wrote; warpsim reports what it saw.", cases, NCASES, options, 1 };
    lesson_parse(argc, argv, &program);
    printf("case %lld: %s\n", k, cases[k - 1]);
    d_out = (int *)lesson_device_alloc(4096 * sizeof(int), "out");
    d_lock = (unsigned *)lesson_device_alloc(sizeof(unsigned), "lock");
    CUDA_CHECK(cudaMemset(d_out, 0, 4096 * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_lock, 0, sizeof(unsigned)));
    switch (k) {
    case 1: LAUNCH(race_warp, 1, 32, 0, d_out, 0); break;
    case 2: LAUNCH(race_warp, 1, 32, 0, d_out, 1); break;
    case 3: LAUNCH(race_block, 1, 64, 0, d_out, 0); break;
    case 4: LAUNCH(race_block, 1, 64, 0, d_out, 1); break;
    case 5: LAUNCH(race_grid, 4, 32, 0, d_out); break;
    case 6: LAUNCH(atomics_only, 4, 64, 0, d_out); break;
    case 7: LAUNCH(atomic_vs_plain, 1, 32, 0, d_out); break;
    case 8: LAUNCH(shfl_orders_nothing, 1, 32, 0, d_out); break;
    case 9: LAUNCH(race_global_warp, 1, 32, 0, d_out); break;
    case 10: LAUNCH(uninit_shared, 1, 32, 0, d_out); break;
    case 11: LAUNCH(mask_without_self, 1, 32, 0, d_out); break;
    case 12: LAUNCH(shfl_outside_mask, 1, 32, 0, d_out); break;
    case 13: LAUNCH(shfl_exited_lane, 1, 32, 0, d_out); break;
    case 14: LAUNCH(skip_branch, 1, 32, 0, d_out); break;
    case 15: LAUNCH(syncwarp_after_exit, 1, 32, 0, d_out); break;
    case 16: LAUNCH(mask_mismatch, 1, 32, 0, d_out); break;
    case 17: LAUNCH(bad_width, 1, 32, 0, d_out); break;
    case 18: LAUNCH(mask_with_holes, 1, 32, 0, d_out); break;
    case 19: LAUNCH(divergent_syncthreads, 1, 64, 0, d_out); break;
    case 20: LAUNCH(partial_syncthreads, 1, 64, 0, d_out); break;
    case 21: LAUNCH(early_return_syncthreads, 1, 64, 0, d_out); break;
    case 22: LAUNCH(hang_deadlock, 1, 64, 0, d_out); break;
    case 23: LAUNCH(hang_spin, 1, 32, 0, d_out); break;
    case 24: LAUNCH(spin_lock, 1, 32, 0, d_out, d_lock); break;
    case 25: LAUNCH(out_of_bounds, 1, 32, 0, d_out); break;
    case 26:
        LAUNCH(nothing, 1, 32, 0, d_out);
        printf("host reads %d\n", d_out[7]);
        break;
    case 27: LAUNCH(active_mask, 1, 32, 0, d_out); break;
    case 28: LAUNCH(sleeping_writer, 1, 32, 0, d_out); break;
    case 29: LAUNCH(nothing, 1, 2048, 0, d_out); break;
    case 30: LAUNCH(nothing, 1, 32, 1024, d_out); break;
    case 31: LAUNCH(null_write, 1, 32, 0, d_out); break;
    case 32: LAUNCH(long_reads, 1, 64, 0, d_out + 2048, d_out); break;
    default: LAUNCH(busy_wait, 1, 32, 0, d_out); break;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    printf("out:");
    for (i = 0; i < 8; i++)
        printf(" %d", h[i]);
    printf("\nactive mask of lane 0: 0x%08x\n", (unsigned)h[0]);
    return lesson_result(1, "case %lld ran", k);
}
