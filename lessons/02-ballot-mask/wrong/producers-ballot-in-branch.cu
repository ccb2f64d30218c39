/* wrong: the producers take their mask with a FULL_MASK ballot inside their branch, which names the spinning lanes too */
/*
 * sync.cu - lesson 02, the corrected version: every mask names exactly the
 * lanes that execute the primitive, computed from the program's logic before
 * the branch, as the NVIDIA blog "Using CUDA Warp-Level Primitives" (Yuan
 * Lin, Vinod Grover) advises. Twin: legacy.cu.
 *
 * Build:  make            (build/sync: these kernels and harness.cu, the
 *                         host side: input, launch, CPU reference, verdict)
 * Run:    build/sync -k activemask -c 32 -j 200   Listing 3: the mask from
 *                                       __ballot_sync before the branch
 *         build/sync -k partners        every lane takes part with FULL_MASK;
 *                                       non-members add 0
 *         build/sync -k reconverge -j 200   Listing 12: __ballot_sync(FULL_MASK)
 *         build/sync -k hang            the shuffle's mask names lanes 0-15
 *         build/sync -k exited          the same, for lanes that return
 *         build/sync -k detective       __match_all_sync as a detective
 * Check:  make check
 * -j NS makes the odd lanes (--sleepers) sleep NS ns before and after every
 * warp primitive and every read of threadIdx: an order the hardware may pick.
 *
 * Why it is right: a _sync primitive waits for the lanes named in its mask
 * and exchanges data among them only, so the mask must be worked out from
 * the program logic: __ballot_sync(FULL_MASK, predicate) executed by the
 * whole warp before the branch gives the lanes that will take it. Lanes
 * that sleep then make the others wait inside the primitive; they can no
 * longer drop out of it. A tree of __shfl_down_sync must also ignore
 * partners outside the mask, whose values are undefined (demonstration 1
 * guards them; demonstration 2 lets the whole warp take part instead).
 */
#include "lesson.h"
#include "demos.h"

/*
 * 1. activemask - the blog's Listing 3, the fix for Listing 5. The whole
 * warp computes the mask with __ballot_sync(FULL_MASK, takes_part) before
 * the branch, so it names every lane that will take the branch whether or
 * not they arrive together. The shuffles wait for all of them.
 * Listing 3 itself still reads partners at lane + offset outside the mask
 * when k < 32 (see 2). Here a lane whose partner is outside the mask (the
 * mask is lanes 0..k-1) shuffles from itself, with offset 0, and adds
 * nothing: every lane still executes every shuffle, and every value read
 * comes from a lane in the mask. Lane 0 ends with the sum of all k lanes,
 * for every k from 1 to 32.
 */
__global__ void demo_activemask(const int *in, long long n, int count, int *sums)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int k = COUNT_OF_WARP(count, w);
    int v = i < n ? in[i] : 0;
    int offset;
    int takes_part = lane < k && i < n;
    unsigned mask = __ballot_sync(FULL_MASK, takes_part);    /* Listing 3 */
    if (takes_part) {
        int members = __popc(mask);                  /* the mask is lanes 0..members-1 */
        for (offset = 16; offset > 0; offset /= 2) {
            int inside = lane + offset < members;    /* is the partner in the mask? */
            int partner = __shfl_down_sync(mask, v, inside ? offset : 0);
            if (inside)
                v += partner;
        }
        if (lane == 0)
            sums[w] = v;
    }
}

/*
 * 2. partners - the other way out of Listing 3's trap: let every lane take
 * part. The lanes that have nothing to add contribute 0 and the whole warp
 * runs the tree with FULL_MASK, so every partner is in the mask and no
 * branch is left to get wrong. Right for every k; usually the simplest fix.
 */
__global__ void demo_partners(const int *in, long long n, int count, int *sums)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int k = COUNT_OF_WARP(count, w);
    int v = lane < k && i < n ? in[i] : 0;           /* non-members add 0 */
    int offset;
    for (offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    if (lane == 0 && i < n)
        sums[w] = v;
}

/*
 * 3. reconverge - the blog's Listing 12: the votes name the whole warp,
 * __ballot_sync(FULL_MASK, result), so every lane waits for the others
 * inside the vote, wherever their paths took them. The if/else is the
 * same as in legacy.cu; only the masks differ.
 */
__global__ void demo_reconverge(const int *in, long long n, unsigned *ballots, int *votes)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    int t = THRESHOLD_OF_WARP(w);
    int result, any, all, uni;
    unsigned b;
    if (lane & 1)
        result = v > t;                              /* foo() */
    else
        result = v >= t;                             /* bar() */
    b = __ballot_sync(FULL_MASK, result);            /* Listing 12 */
    any = __any_sync(FULL_MASK, result);
    all = __all_sync(FULL_MASK, result);
    uni = __uni_sync(FULL_MASK, result);
    if (i < n) {
        ballots[i] = b;
        votes[i] = any | all << 1 | uni << 2;
    }
}

/*
 * 4. hang - the same hand-over with a mask that names only the lanes that
 * execute the shuffle: the producers, computed by the whole warp before it
 * splits. The producers no longer wait for lanes 16-31, lane 0 raises the
 * flag, and the spinning lanes see it. The hand-over itself, in both
 * versions, reads and writes the value and the flag only with atomics, and
 * __threadfence() orders the value before the flag. The watchdog stays as a
 * guard; it does not fire here (from compute capability 7.0 on: before it,
 * a warp cannot wait for its own lanes at all, see the README).
 */
__global__ void demo_hang(const int *in, long long n, int *out, int *box, int *flags,
                          hang_watch *watch, unsigned long long *spun_cycles,
                          long long cycles)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    unsigned producers;
    if (w * 32 >= n)
        return;                                      /* a whole warp past the end */
    if (lane < HALF) {
        int lead;
        producers = __ballot_sync(FULL_MASK, lane < HALF);
        atomicOr(&watch[w].reached, 1u << lane);     /* for the watchdog's report */
        lead = __shfl_sync(producers, v, 0);
        if (i < n)
            out[i] = lead;
        if (lane == 0) {                             /* hand lead over */
            atomicExch(&box[w], lead);
            __threadfence();
            atomicExch(&flags[w], 1);
        }
    } else {
        long long start = clock64();
        int gave_up = 0;
        while (atomicAdd(&flags[w], 0) == 0) {
            if (watchdog_expired(start, cycles)) {
                gave_up = 1;
                break;
            }
        }
        if (gave_up) {
            atomicOr(&watch[w].waited, atomicOr(&watch[w].reached, 0u));
            atomicOr(&watch[w].spun, 1u << lane);
            atomicMax(spun_cycles, (unsigned long long)(clock64() - start));
        } else {
            __threadfence();
            if (i < n)
                out[i] = atomicAdd(&box[w], 0);
        }
    }
}

/*
 * 5. exited - the mask names the lanes that stay, computed before the
 * others return. Nothing then depends on whether lanes 16-31 have exited
 * by the time lanes 0-15 reach the shuffle.
 */
__global__ void demo_exited(const int *in, long long n, int *out)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    int lead;
    unsigned stay = __ballot_sync(FULL_MASK, lane < HALF);   /* 0x0000ffff */
    if (lane >= HALF)
        return;                                      /* nothing to do here */
    lead = __shfl_sync(stay, v, 0);
    if (i < n)
        out[i] = lead;
}

/*
 * 6. detective - the blog's advice 4: __match_all_sync and __activemask()
 * may find out who is there, as long as the result does not depend on the
 * answer. The whole warp asks whether every lane has the same bin: if so,
 * it sums with a shuffle tree and lane 0 adds once; if not, each lane adds
 * its own element. Either way each bin gets every element once. This one
 * is right in both files (demonstration 6 of legacy.cu is the same code).
 */
__global__ void demo_detective(const int *in, long long n, int *bins)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    int bin = BIN_OF(i);
    int same, offset;
#if PRE_VOLTA   /* no __match_all_sync below 7.0: the same question in two steps */
    same = __all_sync(FULL_MASK, bin == __shfl_sync(FULL_MASK, bin, 0));
#else
    (void)__match_all_sync(FULL_MASK, bin, &same);   /* the detective */
#endif
    if (same) {                                      /* the same in every lane */
        for (offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(FULL_MASK, v, offset);
        if (lane == 0)
            atomicAdd(&bins[bin], v);
    } else if (i < n) {
        atomicAdd(&bins[bin], v);
    }
}
