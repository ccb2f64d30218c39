/*
 * legacy.cu - lesson 03, the legacy version: warp code that treats
 * __syncwarp() as a promise of lockstep, or leaves it out, the way the NVIDIA
 * blog "Using CUDA Warp-Level Primitives" (Yuan Lin and Vinod Grover) shows
 * it going wrong. Twin: sync.cu.
 *
 * Build:  make           (build/legacy: this file's kernels and harness.cu,
 *                        the host side: input, launch, CPU reference, verdict)
 * Run:    build/legacy -k tree -j 200 --sleepers even
 *                                     Listing 7: __syncwarp() between
 *                                     statements that read and write a slot
 *         build/legacy -k transpose -j 200   Listing 6 without __syncwarp()
 *         build/legacy -k around             Listing 13: __syncwarp() around a
 *                                     mask-less shuffle in a divergent branch
 *         build/legacy -k converged -j 200 --sleepers upper
 *                                     Listings 11 and 14: a warp assumed
 *                                     converged after __syncwarp()
 *         build/legacy -k hang        __syncwarp() in lanes 0-15 while
 *                                     lanes 16-31 spin: HANG detected, exit 3
 * Check:  make check
 *
 * Why it breaks: __syncwarp() is a barrier with a memory fence. It orders
 * what comes before it against what comes after it, and nothing else: two
 * lanes between the same pair of barriers run in any order, so a read and a
 * write of the same slot there race; once the lanes leave it they may part
 * again at once, so a primitive without a mask after it does not see the
 * whole warp; and every lane its mask names must reach it, so it deadlocks
 * against lanes that wait for the caller. On a current GPU the races usually
 * pass by luck. With -j NS the lanes of --sleepers sleep NS ns just before
 * and after every warp primitive and every read of threadIdx (lesson.h), an
 * order the hardware is allowed to pick, and the bugs show every time.
 *
 * The mask-less __shfl() and __ballot() of old code are LEGACY_SHFL and
 * LEGACY_BALLOT (include/lesson.h): the real ones where the kernels are
 * built for compute capability below 7.0 (make pascal); from 7.0 on, where
 * __shfl() no longer exists, __shfl_sync(__activemask(), v, src) and
 * __ballot_sync(__activemask(), p): a common port, and just as wrong, since
 * it trusts whoever happens to be active.
 */
#include "lesson.h"

/* Demonstration 5: lanes 0-15 hand values to lanes 16-31. */
#define HALF 16
/* Demonstration 2: what every slot holds before its lane writes it. No
 * input is this value, so a load that comes too early shows. */
#define NOT_YET_WRITTEN (-1000000)
/* Slots per warp in demonstration 1: its 32 elements, then 32 zeros, since
 * every lane of the tree reads s[lane + 16], up to s[47]. */
#define SLOTS 64

/*
 * 1. tree - the blog's Listing 7, "incorrect use of __syncwarp()". Each
 * step reads a partner's slot and writes the lane's own slot in one
 * statement, with the barrier only between statements. Within a step,
 * lane x reads s[x + d] while lane x + d writes it: if the writer goes
 * first, the reader adds a partial sum that already holds s[x + 2d], which
 * it counts again. With the even lanes late after each barrier
 * (--sleepers even), at the last step lane 1 writes s[1] before lane 0
 * reads it.
 */
__global__ void demo_tree(const int *in, long long n, int *sums)
{
    __shared__ int shmem[32 * SLOTS];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int *s = &shmem[WARP_IN_BLOCK() * SLOTS];
    s[lane] = i < n ? in[i] : 0;
    s[lane + 32] = 0;
    __syncwarp();
    s[lane] += s[lane + 16]; __syncwarp();  /* Listing 7: read and write, no barrier between */
    s[lane] += s[lane + 8];  __syncwarp();
    s[lane] += s[lane + 4];  __syncwarp();
    s[lane] += s[lane + 2];  __syncwarp();
    s[lane] += s[lane + 1];  __syncwarp();
    if (lane == 0 && i < n)
        sums[i / 32] = s[0];
}

/*
 * 2. transpose - the blog's Listing 6 with its __syncwarp() left out, as
 * implicit warp-synchronous code wrote it: "the warp stores, then the warp
 * loads". Lane L loads the slot that lane (L % 4) * 8 + L / 4 stores, with
 * nothing to make that store come first. Every slot holds NOT_YET_WRITTEN
 * until its lane stores (set up before, under __syncthreads). The lane
 * index is read after the __syncthreads(): with the odd lanes late there
 * (the default --sleepers), lanes 4, 6, 12, 14, ... load their slot too
 * early.
 */
__global__ void demo_transpose(const int *in, long long n, int *out)
{
    __shared__ int smem[32][4][8];          /* Listing 6's smem[4][8], one per warp */
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int warp = WARP_IN_BLOCK();
    int val = i < n ? in[i] : 0;            /* get_value() */
    int lane;
    smem[warp][LANE() / 8][LANE() % 8] = NOT_YET_WRITTEN;
    __syncthreads();
    lane = LANE();
    smem[warp][lane / 8][lane % 8] = val;   /* row-major: lane 1 owns [0][1] */
    val = smem[warp][lane % 4][lane / 4];   /* the bug: no __syncwarp() before the load */
    if (i < n)
        out[i] = val;
}

/*
 * 3. around - the blog's Listing 13: __syncwarp() before and after a
 * mask-less shuffle, in both sides of a divergent branch, as if that made
 * it a __shfl_sync(FULL_MASK, ...). The barriers do bring the whole warp
 * together, but the lanes leave them divergent: the odd lanes' shuffle runs
 * without the even lanes and the even lanes' without the odd ones, and a
 * shuffle from a lane that is not taking part returns an undefined value.
 * Every lane takes the value of the next lane up, (lane + 1) % 32, which is
 * always on the other side. Wrong with or without delays.
 */
__global__ void demo_around(const int *in, long long n, int *out)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int v = i < n ? in[i] : 0;              /* v = foo() */
    int src = (lane + 1) % 32;
    if (lane & 1) {
        __syncwarp();
        v = LEGACY_SHFL(v, src);            /* Listing 13: whoever is active, the odd lanes */
        __syncwarp();
    } else {
        __syncwarp();
        v = LEGACY_SHFL(v, src);            /* ... and here the even lanes */
        __syncwarp();
    }
    if (i < n)
        out[i] = v;
}

/*
 * 4. converged - the blog's Listings 11 and 14: a ballot without a mask
 * right after __syncwarp(), assuming that lanes that were synchronized stay
 * together until the next branch. They need not: with lanes 16-31 late
 * after the barrier (--sleepers upper), __activemask() (Listing 14's
 * assert) names lanes 0-15 only, and the ballot counts the positive
 * elements of half the warp. The kernel records how many lanes saw
 * __activemask() != FULL_MASK.
 */
__global__ void demo_converged(const int *in, long long n, int *counts,
                               unsigned long long *partial)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int positive = i < n && in[i] > 0;
    unsigned active, b;
    __syncwarp();                           /* Listing 11 */
    active = __activemask();                /* Listing 14: assumed to be FULL_MASK */
    b = LEGACY_BALLOT(positive);            /* __ballot(positive): whoever is active */
    if (active != FULL_MASK && lane == __ffs(active) - 1)
        atomicAdd(partial, (unsigned long long)__popc(active));
    if (lane == 0 && i < n)
        counts[i / 32] = __popc(b);
}

/*
 * 5. hang - __syncwarp() with the default full mask where half the warp
 * never arrives. The producers (lanes 0-15) store their values for lanes
 * 16-31, call __syncwarp() to make the stores visible, then raise a flag;
 * lanes 16-31 spin on the flag. The barrier names lanes 16-31, which wait
 * for the flag that comes after the barrier: a deadlock, every time.
 * The spinning lanes give up after `cycles` clock cycles, record it, and
 * reach __syncwarp() themselves, which lets the producers finish; the
 * harness reports the hang and exits 3.
 */
__global__ void demo_hang(const int *in, long long n, int *out, unsigned *spun,
                          unsigned *waited, unsigned long long *spun_cycles,
                          long long cycles)
{
    __shared__ int box[1024];
    __shared__ volatile int ready[32];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE(), warp = WARP_IN_BLOCK();
    int v = i < n ? in[i] : 0;
    if (lane == 0)
        ready[warp] = 0;
    __syncthreads();
    if (w * 32 >= n)
        return;                             /* a whole warp past the end */
    if (lane < HALF) {
        box[threadIdx.x] = v;               /* for lane + 16 */
        __syncwarp();                       /* the bug: names lanes 16-31, which spin below */
        if (atomicOr(&spun[w], 0u) != 0)    /* released by the watchdog */
            atomicOr(&waited[w], 1u << lane);
        if (lane == 0)
            ready[warp] = 1;
        if (i < n)
            out[i] = v;
    } else {
        long long start = clock64();
        int gave_up = 0;
        while (!ready[warp]) {
            if (watchdog_expired(start, cycles)) {
                gave_up = 1;
                break;
            }
        }
        if (gave_up) {
            atomicOr(&spun[w], 1u << lane);
            atomicMax(spun_cycles, (unsigned long long)(clock64() - start));
            __syncwarp();                   /* let the producers finish */
        }
        __threadfence();
        if (i < n)
            out[i] = box[threadIdx.x - HALF] + v;
    }
}
