/* wrong: each side of the branch shuffles with a mask of its own lanes (0xaaaaaaaa, 0x55555555), so every source lane is outside the mask */
/*
 * sync.cu - lesson 03, the corrected version: __syncwarp() used as what it
 * is, a barrier between the writes and the reads of a warp, and _sync
 * primitives wherever lanes exchange values, as the NVIDIA blog "Using CUDA
 * Warp-Level Primitives" (Yuan Lin and Vinod Grover) corrects them.
 * Twin: legacy.cu.
 *
 * Build:  make           (build/sync: this file's kernels and harness.cu,
 *                        the host side: input, launch, CPU reference, verdict)
 * Run:    build/sync -k tree -j 200 --sleepers even
 *                                     Listing 8: reads into registers,
 *                                     __syncwarp() between every read and write
 *         build/sync -k transpose -j 200   Listing 6: one __syncwarp()
 *         build/sync -k around             Listing 4: __shfl_sync(FULL_MASK)
 *                                     in both sides of the branch
 *         build/sync -k converged -j 200 --sleepers upper
 *                                     Listing 12: __ballot_sync(FULL_MASK)
 *         build/sync -k hang          __syncwarp() in both sides of the
 *                                     branch instead of a flag
 * Check:  make check
 *
 * Why it is right: every shared slot that one lane writes and another reads
 * has a __syncwarp() between the write and the read, and between the read
 * and the next write (__syncwarp() orders memory among the lanes it
 * synchronizes); no slot has two writers between the same two barriers;
 * every exchange of values goes through a _sync primitive whose mask names
 * the lanes that execute it. Lanes that sleep (-j NS, --sleepers) then make
 * the others wait; they cannot make them read too early or too late.
 * Since Volta, the lanes a _sync primitive names meet in it even from the
 * two sides of a branch (around, hang); before Volta (compute capability
 * below 7.0) that is undefined: the lanes had to call it in convergence.
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
 * 1. tree - the blog's Listing 8, the fix for Listing 7: each lane reads
 * its partner's slot into a register, all lanes meet at __syncwarp(), then
 * each writes its own slot, and all meet again before the next read. No
 * slot is read by one lane and written by another between the same two
 * barriers, and none is written twice.
 * Listing 8 as printed starts from v = 0, which drops each lane's own
 * element; v starts from s[lane] here.
 */
__global__ void demo_tree(const int *in, long long n, int *sums)
{
    __shared__ int shmem[32 * SLOTS];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int *s = &shmem[WARP_IN_BLOCK() * SLOTS];
    int v;
    s[lane] = i < n ? in[i] : 0;
    s[lane + 32] = 0;
    __syncwarp();
    v = s[lane];
    v += s[lane + 16]; __syncwarp();        /* Listing 8 */
    s[lane] = v;       __syncwarp();
    v += s[lane + 8];  __syncwarp();
    s[lane] = v;       __syncwarp();
    v += s[lane + 4];  __syncwarp();
    s[lane] = v;       __syncwarp();
    v += s[lane + 2];  __syncwarp();
    s[lane] = v;       __syncwarp();
    v += s[lane + 1];  __syncwarp();
    s[lane] = v;
    if (lane == 0 && i < n)
        sums[i / 32] = v;
}

/*
 * 2. transpose - the blog's Listing 6: every lane stores its element, one
 * __syncwarp(), then every lane loads its element of the transpose. The
 * barrier makes each store come before every load, whoever is late.
 * One barrier is enough because the tile is used once; a loop that reused
 * it would need a second __syncwarp() before the next stores.
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
    __syncwarp();                           /* Listing 6 */
    val = smem[warp][lane % 4][lane / 4];
    if (i < n)
        out[i] = val;
}

/*
 * 3. around - the blog's Listing 4: a _sync shuffle may stand in both sides
 * of a divergent branch. Since Volta, the lanes named in FULL_MASK meet
 * inside __shfl_sync() wherever they call it from, and each gets the value
 * its source lane passed: no barrier around it is needed, and none would
 * have been enough. (Before Volta this is undefined: the lanes had to make
 * the call in convergence.)
 */
__global__ void demo_around(const int *in, long long n, int *out)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int v = i < n ? in[i] : 0;              /* v = foo() */
    int src = (lane + 1) % 32;
    if (lane & 1) {
        v = __shfl_sync(0xaaaaaaaau, v, src); /* Listing 4 */
    } else {
        v = __shfl_sync(0x55555555u, v, src);
    }
    if (i < n)
        out[i] = v;
}

/*
 * 4. converged - the blog's Listing 12: __ballot_sync(FULL_MASK, ...) names
 * the whole warp and waits for it, converged or not. The __syncwarp() and
 * the __activemask() record stay only so that the numbers printed compare
 * with legacy.cu's: the lanes are no more together here than there.
 */
__global__ void demo_converged(const int *in, long long n, int *counts,
                               unsigned long long *partial)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int positive = i < n && in[i] > 0;
    unsigned active, b;
    __syncwarp();                           /* not needed; see above */
    active = __activemask();                /* recorded, not used as a mask */
    b = __ballot_sync(FULL_MASK, positive); /* Listing 12 */
    if (active != FULL_MASK && lane == __ffs(active) - 1)
        atomicAdd(partial, (unsigned long long)__popc(active));
    if (lane == 0 && i < n)
        counts[i / 32] = __popc(b);
}

/*
 * 5. hang - the producers and the consumers meet at __syncwarp() from both
 * sides of the branch. Since Volta, a __syncwarp() in one branch and one in
 * the other are the same barrier for the lanes they name, and the barrier
 * orders the producers' stores before the consumers' loads: the flag, the
 * spinning and the watchdog are no longer needed. (Before Volta this is
 * undefined: the lanes had to reach __syncwarp() in convergence.)
 */
__global__ void demo_hang(const int *in, long long n, int *out, unsigned *spun,
                          unsigned *waited, unsigned long long *spun_cycles,
                          long long cycles)
{
    __shared__ int box[1024];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    (void)spun;                             /* no spinning, nothing to record */
    (void)waited;
    (void)spun_cycles;
    (void)cycles;
    if (w * 32 >= n)
        return;                             /* a whole warp past the end */
    if (lane < HALF) {
        box[threadIdx.x] = v;               /* for lane + 16 */
        __syncwarp();                       /* the producers' side of the barrier */
        if (i < n)
            out[i] = v;
    } else {
        __syncwarp();                       /* the consumers' side of the same barrier */
        if (i < n)
            out[i] = box[threadIdx.x - HALF] + v;
    }
}
