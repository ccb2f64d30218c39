/*
 * prims.cu - warpsim's unit test of the warp primitives' results.
 *
 * Each case runs a small kernel and compares every lane's result with what
 * the CUDA Programming Guide says it must be, computed on the host from the
 * Guide's wording. Cases: shuffles of every type, mode and width; masks
 * with holes; callers in divergent branches; exited lanes; a partial warp;
 * votes, match, reduce; atomics; __syncthreads_count/and/or; bit functions;
 * 2-D blocks and grids. Prints "ok N - case" or "not ok N - case", then a
 * result line; exit 0 when every case holds.
 *
 * Run:  build/tests/prims            (under WARPSIM_MODEL=lockstep|its|random)
 */
#include "lesson.h"

static int failures, cases;

static void check(int good, const char *fmt, ...)
{
    va_list ap;
    cases++;
    if (!good)
        failures++;
    printf("%s %d - ", good ? "ok" : "not ok", cases);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* ---- shuffles ------------------------------------------------------- */

#define SHFL_ALL(F)                                                            \
    do {                                                                       \
        oi[t] = F(FULL_MASK, vi, arg, width);                                  \
        ou[t] = F(FULL_MASK, vu, arg, width);                                  \
        oll[t] = F(FULL_MASK, vll, arg, width);                                \
        oull[t] = F(FULL_MASK, vull, arg, width);                              \
        of[t] = F(FULL_MASK, vf, arg, width);                                  \
        od[t] = F(FULL_MASK, vd, arg, width);                                  \
        ol[t] = F(FULL_MASK, vl, arg, width);                                  \
        oul[t] = F(FULL_MASK, vul, arg, width);                                \
    } while (0)

__device__ void values(int t, int *vi, unsigned *vu, long long *vll,
                       unsigned long long *vull, float *vf, double *vd, long *vl,
                       unsigned long *vul)
{
    *vi = t * 3 - 40;
    *vu = (unsigned)t * 0x01010101u;
    *vll = ((long long)t << 40) - t;
    *vull = 0xf000000000000000ULL + (unsigned long long)t;
    *vf = (float)t * 0.5f - 3.0f;
    *vd = (double)t * 1e10 + 0.25;
    *vl = -(long)t * 100000L;
    *vul = (unsigned long)t << 33;
}

__global__ void k_shfl(int *oi, unsigned *ou, long long *oll, unsigned long long *oull,
                       float *of, double *od, long *ol, unsigned long *oul, int mode,
                       int arg, int width)
{
    int t = (int)threadIdx.x;
    int vi;
    unsigned vu;
    long long vll;
    unsigned long long vull;
    float vf;
    double vd;
    long vl;
    unsigned long vul;
    values(t, &vi, &vu, &vll, &vull, &vf, &vd, &vl, &vul);
    switch (mode) {
    case 0: SHFL_ALL(__shfl_sync); break;
    case 1: SHFL_ALL(__shfl_up_sync); break;
    case 2: SHFL_ALL(__shfl_down_sync); break;
    default: SHFL_ALL(__shfl_xor_sync); break;
    }
}

/* The lane whose value lane t gets, from the Programming Guide's words. */
static int guide_source(int mode, int t, int arg, int width)
{
    int first = t / width * width;
    switch (mode) {
    case 0: return first + arg % width;
    case 1: return t % width >= arg ? t - arg : t;
    case 2: return t % width + arg < width ? t + arg : t;
    default: {
        int s = t ^ arg;
        return s / width > t / width ? t : s;   /* later groups: own value */
    }
    }
}

static void test_shuffles(void)
{
    static const char *names[] = { "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                   "__shfl_xor_sync" };
    static const int widths[] = { 32, 16, 8, 4, 2, 1 };
    int *oi;
    unsigned *ou;
    long long *oll;
    unsigned long long *oull;
    float *of;
    double *od;
    long *ol;
    unsigned long *oul;
    int mode, wi;
    oi = (int *)lesson_device_alloc(32 * sizeof(int), "oi");
    ou = (unsigned *)lesson_device_alloc(32 * sizeof(unsigned), "ou");
    oll = (long long *)lesson_device_alloc(32 * sizeof(long long), "oll");
    oull = (unsigned long long *)lesson_device_alloc(32 * sizeof(unsigned long long), "oull");
    of = (float *)lesson_device_alloc(32 * sizeof(float), "of");
    od = (double *)lesson_device_alloc(32 * sizeof(double), "od");
    ol = (long *)lesson_device_alloc(32 * sizeof(long), "ol");
    oul = (unsigned long *)lesson_device_alloc(32 * sizeof(unsigned long), "oul");
    for (mode = 0; mode < 4; mode++)
        for (wi = 0; wi < 6; wi++) {
            int width = widths[wi], args[3], ai;
            args[0] = 1;
            args[1] = width > 2 ? width / 2 + 1 : 1;
            args[2] = mode == 0 ? 37 : mode == 3 ? 17 : 5;
            for (ai = 0; ai < 3; ai++) {
                int arg = args[ai], t, bad = 0;
                int hi[32];
                unsigned hu[32];
                long long hll[32];
                unsigned long long hull[32];
                float hf[32];
                double hd[32];
                long hl[32];
                unsigned long hul[32];
                LAUNCH(k_shfl, 1, 32, 0, oi, ou, oll, oull, of, od, ol, oul, mode, arg, width);
                CUDA_CHECK(cudaMemcpy(hi, oi, sizeof hi, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(hu, ou, sizeof hu, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(hll, oll, sizeof hll, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(hull, oull, sizeof hull, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(hf, of, sizeof hf, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(hd, od, sizeof hd, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(hl, ol, sizeof hl, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(hul, oul, sizeof hul, cudaMemcpyDeviceToHost));
                for (t = 0; t < 32; t++) {
                    int s = guide_source(mode, t, arg, width);
                    int vi;
                    unsigned vu;
                    long long vll;
                    unsigned long long vull;
                    float vf;
                    double vd;
                    long vl;
                    unsigned long vul;
                    values(s, &vi, &vu, &vll, &vull, &vf, &vd, &vl, &vul);
                    bad += hi[t] != vi || hu[t] != vu || hll[t] != vll || hull[t] != vull ||
                           hf[t] != vf || hd[t] != vd || hl[t] != vl || hul[t] != vul;
                }
                check(!bad, "%s width %d arg %d, 8 value types: %d lanes wrong",
                      names[mode], width, arg, bad);
            }
        }
    CUDA_CHECK(cudaFree(oi));
    CUDA_CHECK(cudaFree(ou));
    CUDA_CHECK(cudaFree(oll));
    CUDA_CHECK(cudaFree(oull));
    CUDA_CHECK(cudaFree(of));
    CUDA_CHECK(cudaFree(od));
    CUDA_CHECK(cudaFree(ol));
    CUDA_CHECK(cudaFree(oul));
}

/* The default width is warpSize. */
__global__ void k_shfl_default(int *out)
{
    int t = (int)threadIdx.x;
    out[t] = __shfl_down_sync(FULL_MASK, t * 7, 3);
    out[32 + t] = __shfl_xor_sync(FULL_MASK, t * 7, 16);
    out[64 + t] = __shfl_up_sync(FULL_MASK, t * 7, 30);
    out[96 + t] = __shfl_sync(FULL_MASK, t * 7, 31);
}

static void test_default_width(void)
{
    int *d = (int *)lesson_device_alloc(128 * sizeof(int), "out"), h[128], t, bad = 0;
    LAUNCH(k_shfl_default, 1, 32, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (t = 0; t < 32; t++) {
        bad += h[t] != (t + 3 < 32 ? t + 3 : t) * 7;
        bad += h[32 + t] != (t ^ 16) * 7;
        bad += h[64 + t] != (t >= 30 ? t - 30 : t) * 7;
        bad += h[96 + t] != 31 * 7;
    }
    check(!bad, "shuffles without a width use warpSize: %d results wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

/* ---- masks with holes, divergent callers, exited lanes -------------- */

/* Lanes with t % 3 != 0 take part; the others do not call at all. */
__global__ void k_holes(unsigned *out)
{
    int t = (int)threadIdx.x;
    unsigned m = 0;
    int i;
    for (i = 0; i < 32; i++)
        if (i % 3 != 0)
            m |= 1u << i;
    out[t] = 0;
    out[32 + t] = 0;
    out[64 + t] = 0;
    out[96 + t] = 0;
    if (t % 3 != 0) {
        int next = (t + 1) % 3 == 0 ? t + 2 : t + 1;    /* the next member */
        out[t] = __ballot_sync(m, t & 1);
        out[32 + t] = (unsigned)__any_sync(m, t == 31);
        out[64 + t] = (unsigned)__all_sync(m, t % 3 != 0);
        out[96 + t] = __shfl_sync(m, (unsigned)t * 10u, next % 32 == 0 ? 1 : next % 32);
    }
}

static void test_holes(void)
{
    unsigned *d = (unsigned *)lesson_device_alloc(128 * sizeof(unsigned), "out"), h[128];
    unsigned odd = 0;
    int t, bad = 0;
    for (t = 0; t < 32; t++)
        if (t % 3 != 0 && (t & 1))
            odd |= 1u << t;
    LAUNCH(k_holes, 1, 32, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (t = 0; t < 32; t++) {
        int next = (t + 1) % 3 == 0 ? t + 2 : t + 1;
        if (t % 3 == 0) {
            bad += h[t] || h[32 + t] || h[64 + t] || h[96 + t];
            continue;
        }
        bad += h[t] != odd;
        bad += h[32 + t] != 1;          /* lane 31 is a member and votes 1 */
        bad += h[64 + t] != 1;
        bad += h[96 + t] != (unsigned)(next % 32 == 0 ? 1 : next % 32) * 10u;
    }
    check(!bad, "mask with holes (lanes t%%3 != 0): ballot, any, all, shfl: %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

/* Odd lanes call __shfl_sync in one branch, even lanes in the other: they
 * meet (Programming Guide; the blog's Listing 13). */
__global__ void k_divergent(int *out)
{
    int t = (int)threadIdx.x, v;
    if (t & 1)
        v = __shfl_sync(FULL_MASK, t + 100, 0);
    else
        v = __shfl_sync(FULL_MASK, t + 100, 0);
    out[t] = v;
    if (t < 16) {
        __syncwarp();
        out[32 + t] = 1;
    } else {
        out[32 + t] = 2;
        __syncwarp();
    }
}

static void test_divergent(void)
{
    int *d = (int *)lesson_device_alloc(64 * sizeof(int), "out"), h[64], t, bad = 0;
    LAUNCH(k_divergent, 1, 32, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (t = 0; t < 32; t++)
        bad += h[t] != 100 || h[32 + t] != (t < 16 ? 1 : 2);
    check(!bad, "divergent callers meet in __shfl_sync and __syncwarp: %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

/* Lanes 24-31 exit first; a full mask names them, which is legal. */
__global__ void k_exited(unsigned *out)
{
    int t = (int)threadIdx.x;
    unsigned b;
    if (t >= 24)
        return;
    b = __ballot_sync(FULL_MASK, 1);
    __syncwarp();
    out[t] = b;
    out[32 + t] = (unsigned)__shfl_xor_sync(FULL_MASK, t, 1);
    out[64 + t] = (unsigned)__all_sync(FULL_MASK, t < 24);
}

static void test_exited(void)
{
    unsigned *d = (unsigned *)lesson_device_alloc(96 * sizeof(unsigned), "out"), h[96];
    int t, bad = 0;
    CUDA_CHECK(cudaMemset(d, 0, sizeof h));
    LAUNCH(k_exited, 1, 32, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (t = 0; t < 24; t++)
        bad += h[t] != 0x00ffffffu || h[32 + t] != (unsigned)(t ^ 1) || h[64 + t] != 1;
    check(!bad, "lanes that exited before a full-mask ballot, __syncwarp, shfl: %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

/* A block of 40 threads: the second warp has 8 lanes; a full mask is fine. */
__global__ void k_partial(unsigned *out)
{
    int t = (int)threadIdx.x;
    out[t] = __ballot_sync(FULL_MASK, 1);
    out[64 + t] = (unsigned)__shfl_xor_sync(FULL_MASK, t, 4);
}

static void test_partial_warp(void)
{
    unsigned *d = (unsigned *)lesson_device_alloc(128 * sizeof(unsigned), "out"), h[128];
    int t, bad = 0;
    LAUNCH(k_partial, 1, 40, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (t = 0; t < 40; t++)
        bad += h[t] != (t < 32 ? 0xffffffffu : 0xffu) || h[64 + t] != (unsigned)(t ^ 4);
    check(!bad, "a partial warp (block of 40): full-mask ballot and shfl: %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

/* ---- match, votes, reduce ------------------------------------------- */

__global__ void k_match(unsigned *out, int *pred)
{
    int t = (int)threadIdx.x, p = -1;
    long long kll = (long long)(t / 8) << 40;
    float kf = (float)(t % 4);
    double kd = t < 16 ? 1.5 : 2.5;
    out[t] = __match_any_sync(FULL_MASK, t / 4);
    out[32 + t] = __match_any_sync(FULL_MASK, kll);
    out[64 + t] = __match_any_sync(FULL_MASK, kf);
    out[96 + t] = __match_all_sync(FULL_MASK, kd, &p);
    pred[t] = p;
    out[128 + t] = __match_all_sync(FULL_MASK, 7u, &p);
    pred[32 + t] = p;
}

static void test_match(void)
{
    unsigned *d = (unsigned *)lesson_device_alloc(160 * sizeof(unsigned), "out"), h[160];
    int *dp = (int *)lesson_device_alloc(64 * sizeof(int), "pred"), hp[64];
    int t, bad = 0;
    LAUNCH(k_match, 1, 32, 0, d, dp);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hp, dp, sizeof hp, cudaMemcpyDeviceToHost));
    for (t = 0; t < 32; t++) {
        unsigned a = 0, b = 0, c = 0;
        int i;
        for (i = 0; i < 32; i++) {
            a |= (unsigned)(i / 4 == t / 4) << i;
            b |= (unsigned)(i / 8 == t / 8) << i;
            c |= (unsigned)(i % 4 == t % 4) << i;
        }
        bad += h[t] != a || h[32 + t] != b || h[64 + t] != c;
        bad += h[96 + t] != 0 || hp[t] != 0;
        bad += h[128 + t] != 0xffffffffu || hp[32 + t] != 1;
    }
    check(!bad, "__match_any_sync (int, long long, float), __match_all_sync (double, "
          "unsigned): %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaFree(dp));
}

__global__ void k_votes(int *out)
{
    int t = (int)threadIdx.x;
    out[t] = __any_sync(FULL_MASK, t == 17);
    out[32 + t] = __all_sync(FULL_MASK, t != 17);
    out[64 + t] = __uni_sync(FULL_MASK, t < 32);
    out[96 + t] = __uni_sync(FULL_MASK, t < 5);
    out[128 + t] = (int)__ballot_sync(FULL_MASK, t >= 30);
}

static void test_votes(void)
{
    int *d = (int *)lesson_device_alloc(160 * sizeof(int), "out"), h[160], t, bad = 0;
    LAUNCH(k_votes, 1, 32, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (t = 0; t < 32; t++)
        bad += h[t] != 1 || h[32 + t] != 0 || h[64 + t] != 1 || h[96 + t] != 0 ||
               (unsigned)h[128 + t] != 0xc0000000u;
    check(!bad, "__any_sync, __all_sync, __uni_sync, __ballot_sync: %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

__global__ void k_reduce(unsigned *out)
{
    int t = (int)threadIdx.x;
    out[t] = __reduce_add_sync(FULL_MASK, (unsigned)t);
    out[32 + t] = (unsigned)__reduce_min_sync(FULL_MASK, 10 - t);
    out[64 + t] = (unsigned)__reduce_max_sync(FULL_MASK, 10 - t);
    out[96 + t] = __reduce_and_sync(FULL_MASK, 0xffu ^ (1u << (t % 8)));
    out[128 + t] = __reduce_or_sync(FULL_MASK, 1u << t);
    out[160 + t] = __reduce_xor_sync(FULL_MASK, (unsigned)t);
    out[192 + t] = __reduce_max_sync(FULL_MASK, (unsigned)t * 3u);
}

static void test_reduce(void)
{
    unsigned *d = (unsigned *)lesson_device_alloc(224 * sizeof(unsigned), "out"), h[224];
    int t, bad = 0;
    unsigned x = 0;
    for (t = 0; t < 32; t++)
        x ^= (unsigned)t;
    LAUNCH(k_reduce, 1, 32, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (t = 0; t < 32; t++)
        bad += h[t] != 496 || (int)h[32 + t] != -21 || (int)h[64 + t] != 10 ||
               h[96 + t] != 0 || h[128 + t] != 0xffffffffu || h[160 + t] != x ||
               h[192 + t] != 93;
    check(!bad, "__reduce_{add,min,max,and,or,xor}_sync, signed and unsigned: %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

/* ---- atomics -------------------------------------------------------- */

__global__ void k_atomics(int *i, unsigned *u, unsigned long long *ull, float *f,
                          double *d, long long *ll)
{
    int t = (int)threadIdx.x;
    int old;
    atomicAdd(&i[0], t);
    atomicSub(&i[1], t);
    atomicMax(&i[2], t - 30);
    atomicMin(&i[3], t - 30);
    atomicAnd(&i[4], ~(1 << (t % 31)));
    atomicOr(&i[5], 1 << (t % 31));
    atomicXor(&i[6], t);
    atomicExch(&i[7], 5);
    old = atomicCAS(&i[8], 0, t + 1);      /* exactly one thread wins */
    if (old == 0)
        atomicAdd(&i[9], 1);
    atomicInc(&u[0], 9u);                  /* 64 increments modulo 10 */
    atomicDec(&u[1], 9u);
    atomicMax(&u[2], (unsigned)t * 2u);
    atomicMin(&u[3], 1000u + (unsigned)t);
    atomicAdd(&ull[0], 1ULL << 33);
    atomicCAS(&ull[1], 0ULL, 77ULL);
    atomicAdd(&f[0], 0.5f);
    atomicAdd(&d[0], 0.25);
    atomicMax(&ll[0], -(long long)t);
    atomicMin(&ll[1], -(long long)t * 1000000000LL);
}

static void test_atomics(void)
{
    int hi[10] = { 0, 0, -1000, 1000, -1, 0, 0, 0, 0, 0 }, t, bad = 0, x = 0;
    unsigned hu[4] = { 0, 0, 0, 0xffffffffu };
    unsigned long long hull[2] = { 0, 0 };
    float hf = 0;
    double hd = 0;
    long long hll[2] = { -100, 0 };
    int *di = (int *)lesson_device_alloc(sizeof hi, "i");
    unsigned *du = (unsigned *)lesson_device_alloc(sizeof hu, "u");
    unsigned long long *dull = (unsigned long long *)lesson_device_alloc(sizeof hull, "ull");
    float *df = (float *)lesson_device_alloc(sizeof hf, "f");
    double *dd = (double *)lesson_device_alloc(sizeof hd, "d");
    long long *dll = (long long *)lesson_device_alloc(sizeof hll, "ll");
    CUDA_CHECK(cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(du, hu, sizeof hu, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dull, hull, sizeof hull, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(df, &hf, sizeof hf, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dd, &hd, sizeof hd, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dll, hll, sizeof hll, cudaMemcpyHostToDevice));
    LAUNCH(k_atomics, 1, 64, 0, di, du, dull, df, dd, dll);
    CUDA_CHECK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hu, du, sizeof hu, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hull, dull, sizeof hull, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&hf, df, sizeof hf, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&hd, dd, sizeof hd, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hll, dll, sizeof hll, cudaMemcpyDeviceToHost));
    for (t = 0; t < 64; t++)
        x ^= t;
    bad += hi[0] != 2016 || hi[1] != -2016 || hi[2] != 33 || hi[3] != -30;
    bad += hi[4] != (int)0x80000000 || hi[5] != 0x7fffffff || hi[6] != x || hi[7] != 5;
    bad += hi[8] < 1 || hi[8] > 64 || hi[9] != 1;
    bad += hu[0] != 64 % 10 || hu[1] != (unsigned)((10 - 64 % 10) % 10) || hu[2] != 126 ||
           hu[3] != 1000;
    bad += hull[0] != 64ULL << 33 || hull[1] != 77;
    bad += hf != 32.0f || hd != 16.0 || hll[0] != 0 || hll[1] != -63000000000LL;
    check(!bad, "atomics: Add Sub Max Min And Or Xor Exch CAS Inc Dec on int, unsigned, "
          "64-bit, float, double: %d wrong", bad);
    CUDA_CHECK(cudaFree(di));
    CUDA_CHECK(cudaFree(du));
    CUDA_CHECK(cudaFree(dull));
    CUDA_CHECK(cudaFree(df));
    CUDA_CHECK(cudaFree(dd));
    CUDA_CHECK(cudaFree(dll));
}

/* __activemask() in a branch, then the opportunistic warp-aggregated
 * increment (the blog's atomicAggInc): each lane's mask must name itself,
 * every lane it names must get the same mask (the masks partition the
 * lanes), and the tickets must be exactly 0..count-1. */
__global__ void k_activemask(unsigned *masks, int *tickets, int *counter)
{
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x), lane = LANE();
    if (lane % 3 != 1) {
        unsigned m = __activemask();
        unsigned g = __match_any_sync(m, (unsigned)(lane & 1));
        int leader = __ffs((int)g) - 1, base = 0;
        masks[t] = m;
        if (lane == leader)
            base = atomicAdd(counter, __popc(g));
        base = __shfl_sync(g, base, leader);
        tickets[t] = base + __popc(g & ((1u << lane) - 1));
    }
}

static void test_activemask(void)
{
    enum { N = 4 * 128 };
    unsigned *dm = (unsigned *)lesson_device_alloc(N * sizeof(unsigned), "masks"), hm[N];
    int *dt = (int *)lesson_device_alloc(N * sizeof(int), "tickets"), ht[N];
    int *dc = (int *)lesson_device_alloc(sizeof(int), "counter"), hc, t, bad = 0, members = 0;
    static char seen[N];
    CUDA_CHECK(cudaMemset(dm, 0, sizeof hm));
    CUDA_CHECK(cudaMemset(dt, 0xff, sizeof ht));
    CUDA_CHECK(cudaMemset(dc, 0, sizeof(int)));
    LAUNCH(k_activemask, 4, 128, 0, dm, dt, dc);
    CUDA_CHECK(cudaMemcpy(hm, dm, sizeof hm, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(ht, dt, sizeof ht, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&hc, dc, sizeof hc, cudaMemcpyDeviceToHost));
    memset(seen, 0, sizeof seen);
    for (t = 0; t < N; t++) {
        int lane = t % 32, j;
        if (lane % 3 == 1)
            continue;
        members++;
        bad += !(hm[t] >> lane & 1);
        for (j = 0; j < 32; j++)
            if (hm[t] >> j & 1)
                bad += j % 3 == 1 || hm[t - lane + j] != hm[t];
        if (ht[t] < 0 || ht[t] >= N || seen[ht[t]]++)
            bad++;
    }
    bad += hc != members;
    check(!bad, "__activemask() groups partition the lanes; aggregated increment gives "
          "%d unique tickets: %d wrong", members, bad);
    CUDA_CHECK(cudaFree(dm));
    CUDA_CHECK(cudaFree(dt));
    CUDA_CHECK(cudaFree(dc));
}

/* ---- block-level ---------------------------------------------------- */

__global__ void k_syncthreads_ops(int *out)
{
    int t = (int)threadIdx.x;
    int c = __syncthreads_count(t % 3 == 0);
    int a = __syncthreads_and(t < 1000);
    int o = __syncthreads_or(t == 77);
    int z = __syncthreads_or(0);
    out[t] = c * 1000 + a * 100 + o * 10 + z;
}

static void test_syncthreads_ops(void)
{
    int *d = (int *)lesson_device_alloc(96 * sizeof(int), "out"), h[96], t, bad = 0;
    LAUNCH(k_syncthreads_ops, 1, 96, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (t = 0; t < 96; t++)
        bad += h[t] != 32 * 1000 + 100 + 10;
    check(!bad, "__syncthreads_count, __syncthreads_and, __syncthreads_or: %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

__global__ void k_coords(int *out)
{
    int linear_block = (int)(blockIdx.y * gridDim.x + blockIdx.x);
    int t = (int)(threadIdx.y * blockDim.x + threadIdx.x);
    out[linear_block * 32 + t] = (int)(blockIdx.x * 1000000 + blockIdx.y * 10000 +
                                       threadIdx.x * 100 + threadIdx.y);
}

static void test_coords(void)
{
    int *d = (int *)lesson_device_alloc(6 * 32 * sizeof(int), "out"), h[6 * 32];
    int bx, by, tx, ty, bad = 0;
    dim3 grid = { 2, 3, 1 }, block = { 8, 4, 1 };
    LAUNCH(k_coords, grid, block, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (by = 0; by < 3; by++)
        for (bx = 0; bx < 2; bx++)
            for (ty = 0; ty < 4; ty++)
                for (tx = 0; tx < 8; tx++)
                    bad += h[(by * 2 + bx) * 32 + ty * 8 + tx] !=
                           bx * 1000000 + by * 10000 + tx * 100 + ty;
    check(!bad, "2-D grid (2x3) of 2-D blocks (8x4): threadIdx, blockIdx, blockDim, "
          "gridDim: %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

__global__ void k_bits(unsigned *out)
{
    int t = (int)threadIdx.x;
    unsigned x = 0x01020304u * (unsigned)(t + 1);
    out[t * 4] = (unsigned)__popc(x);
    out[t * 4 + 1] = (unsigned)__ffs((int)x);
    out[t * 4 + 2] = (unsigned)__clz((int)(x >> (t % 32)));
    out[t * 4 + 3] = __brev(x);
}

static void test_bits(void)
{
    unsigned *d = (unsigned *)lesson_device_alloc(128 * sizeof(unsigned), "out"), h[128];
    int t, bad = 0;
    LAUNCH(k_bits, 1, 32, 0, d);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (t = 0; t < 32; t++) {
        unsigned x = 0x01020304u * (unsigned)(t + 1), y = x >> (t % 32), r = 0;
        int i, pop = 0, ffs = 0, clz = 32;
        for (i = 0; i < 32; i++) {
            pop += (int)(x >> i & 1);
            if (!ffs && (x >> i & 1))
                ffs = i + 1;
            if (y >> (31 - i) & 1) {
                if (clz == 32)
                    clz = i;
            }
            r |= (x >> i & 1) << (31 - i);
        }
        bad += h[t * 4] != (unsigned)pop || h[t * 4 + 1] != (unsigned)ffs ||
               h[t * 4 + 2] != (unsigned)clz || h[t * 4 + 3] != r;
    }
    check(!bad, "__popc, __ffs, __clz, __brev: %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

int main(int argc, char **argv)
{
    lesson_option options[1];
    lesson_program program = { "prims.cu",
        "warpsim's unit test of the warp primitives' results (one line per case).",
        NULL, 0, options, 0 };
    lesson_parse(argc, argv, &program);
    test_shuffles();
    test_default_width();
    test_holes();
    test_divergent();
    test_exited();
    test_partial_warp();
    test_match();
    test_votes();
    test_reduce();
    test_atomics();
    test_activemask();
    test_syncthreads_ops();
    test_coords();
    test_bits();
    return lesson_result(failures == 0, "%d of %d cases wrong", failures, cases);
}
