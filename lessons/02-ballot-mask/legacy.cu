/*
 * legacy.cu - lesson 02, the legacy version: warp code whose mask names the
 * wrong lanes, written the way the NVIDIA blog "Using CUDA Warp-Level
 * Primitives" (Yuan Lin, Vinod Grover) shows it going wrong. Twin: sync.cu.
 *
 * Build:  make            (build/legacy: these kernels and harness.cu, the
 *                         host side: input, launch, CPU reference, verdict)
 * Run:    build/legacy -k activemask -c 32 -j 200   Listing 5: partial sums
 *         build/legacy -k partners      Listing 3 as printed: lanes read
 *                                       partners outside the mask
 *         build/legacy -k reconverge -j 200   Listing 10: a ballot after a
 *                                       divergent branch misses lanes
 *         build/legacy -k hang          a full mask, half the warp spinning:
 *                                       HANG detected, exit 3
 *         build/legacy -k exited        a full mask, half the warp exited:
 *                                       no hang, still wrong code
 *         build/legacy -k detective     __match_all_sync as a detective: right
 * Check:  make check
 * -j NS makes the odd lanes (--sleepers) sleep NS ns before and after every
 * warp primitive and every read of threadIdx: an order the hardware may pick.
 *
 * Why it breaks: a mask must name exactly the lanes that will execute the
 * primitive. __activemask() inside a branch names the lanes that happen to be
 * there together, which since Volta need not be all that took the branch;
 * a ballot after an if/else assumes the warp has reconverged, which nothing
 * promises; a shuffle that reads a lane outside its mask gets an undefined
 * value; a full mask that names lanes busy waiting for the caller deadlocks.
 *
 * The mask-less __ballot(), __any() and __all() of old code are LEGACY_BALLOT,
 * LEGACY_ANY and LEGACY_ALL (include/lesson.h): the real ones where the
 * kernels are built for compute capability below 7.0 (make pascal). From 7.0
 * on the mask-less forms do not exist; lesson.h writes them there as
 * __ballot_sync(__activemask(), p), "whoever is active", which is the common
 * port of such code and a wrong one (demonstration 3 shows why).
 */
#include "lesson.h"
#include "demos.h"

/*
 * 1. activemask - the blog's Listing 5, "incorrect use of __activemask()".
 * Lanes 0..k-1 of each warp sum their elements; the mask is taken inside
 * the branch. __activemask() names the lanes that are executing it together
 * at that moment, not the lanes that took the branch: when the odd lanes
 * are late, the even lanes take a mask of their own and sum without them.
 * The shuffles also read partners at lane + offset >= k, outside any mask
 * that could be right (see 2).
 */
__global__ void demo_activemask(const int *in, long long n, int count, int *sums)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int k = COUNT_OF_WARP(count, w);
    int v = i < n ? in[i] : 0;
    int offset;
    if (lane < k && i < n) {
        unsigned mask = __activemask();              /* Listing 5: the bug */
        for (offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(mask, v, offset);
        if (lane == 0)
            sums[w] = v;
    }
}

/*
 * 2. partners - the blog's Listing 3 as printed: the mask comes from
 * __ballot_sync before the branch, which is right, but the tree still reads
 * lane + offset for every lane in it. When k is not 32, lane 4 of a warp
 * with k = 20 reads lane 20 at offset 16: a lane outside the mask, not
 * executing the shuffle, whose value is undefined (the CUDA Programming
 * Guide: "If the target thread is inactive, the retrieved value is
 * undefined"). The sum then holds whatever lane 20 gave. Every count but 32
 * does this; NVIDIA/cuda-samples issue 398 asks the same of reduce7.
 */
__global__ void demo_partners(const int *in, long long n, int count, int *sums)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int k = COUNT_OF_WARP(count, w);
    int v = i < n ? in[i] : 0;
    int offset;
    unsigned mask = __ballot_sync(FULL_MASK, lane < k && i < n);   /* Listing 3 */
    if (lane < k && i < n) {
        for (offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(mask, v, offset);     /* the bug: lane + offset may be >= k */
        if (lane == 0)
            sums[w] = v;
    }
}

/*
 * 3. reconverge - the blog's Listing 10: odd and even lanes take different
 * paths, then the warp votes with the mask-less primitives of old code
 * (LEGACY_BALLOT: __ballot(p) below 7.0, __ballot_sync(__activemask(), p)
 * from 7.0 on). The code assumes the warp reconverged after the if/else;
 * nothing promises that. When the odd lanes are late, the even lanes vote
 * alone, then the odd lanes alone: every lane sees a ballot of half the
 * warp, and any/all/uni of half the warp.
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
    b = LEGACY_BALLOT(result);                       /* Listing 10: __ballot(result) */
    any = LEGACY_ANY(result);
    all = LEGACY_ALL(result);
    uni = __uni_sync(__activemask(), result);
    if (i < n) {
        ballots[i] = b;
        votes[i] = any | all << 1 | uni << 2;
    }
}

/*
 * 4. hang - a full mask where half the warp never arrives. The producers
 * (lanes 0-15) agree on lane 0's value with a shuffle, then lane 0 hands it
 * to the other lanes through memory and raises a flag; lanes 16-31 wait for
 * the flag. FULL_MASK names lanes 16-31 too, so the shuffle waits for lanes
 * that are waiting for it: a deadlock, every time.
 * The spinning lanes give up after `cycles` clock cycles, record what they
 * saw in watch[w], and join the same shuffle, which lets the producers
 * finish; the harness reports the hang and exits 3.
 */
__global__ void demo_hang(const int *in, long long n, int *out, int *box, int *flags,
                          hang_watch *watch, unsigned long long *spun_cycles,
                          long long cycles)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = i / 32;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    if (w * 32 >= n)
        return;                                      /* a whole warp past the end */
    if (lane < HALF) {
        int lead;
        atomicOr(&watch[w].reached, 1u << lane);     /* for the watchdog's report */
        lead = __shfl_sync(FULL_MASK, v, 0);         /* the bug: names lanes 16-31 */
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
            __threadfence();
            (void)__shfl_sync(FULL_MASK, v, 0);      /* let the producers finish */
        } else {
            __threadfence();
            if (i < n)
                out[i] = atomicAdd(&box[w], 0);
        }
    }
}

/*
 * 5. exited - a full mask where half the warp has returned. Lanes 16-31
 * have no work and leave; lanes 0-15 take lane 0's value with
 * __shfl_sync(FULL_MASK, ...). This does not hang: the Programming Guide
 * asks only the non-exited lanes named in the mask to arrive. It is still
 * wrong code: the mask says 32 lanes take part when 16 do, it is right only
 * if the others have really exited by then, and a value read from an exited
 * lane would be undefined (see the README).
 */
__global__ void demo_exited(const int *in, long long n, int *out)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = LANE();
    int v = i < n ? in[i] : 0;
    int lead;
    if (lane >= HALF)
        return;                                      /* nothing to do here */
    lead = __shfl_sync(FULL_MASK, v, 0);             /* names 16 exited lanes */
    if (i < n)
        out[i] = lead;
}

/*
 * 6. detective - the blog's advice 4: __match_all_sync and __activemask()
 * may find out who is there, as long as the result does not depend on the
 * answer. The whole warp asks whether every lane has the same bin: if so,
 * it sums with a shuffle tree and lane 0 adds once; if not, each lane adds
 * its own element. Either way each bin gets every element once. This one
 * is right in both files (demonstration 6 of sync.cu is the same code).
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
