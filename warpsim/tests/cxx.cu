/*
 * cxx.cu - warpsim's unit test of the CUDA C++ device API and of
 * Cooperative Groups: each case runs a small kernel in ordinary CUDA C++
 * (templates, bool, references, auto, constexpr, overloads, a namespace)
 * and compares every lane's result with what the CUDA documentation says,
 * computed on the host. Cases: CUDA's min and max and the integer
 * intrinsics, the rounding and bit-cast intrinsics, atomics of every type,
 * shuffles and match of 64-bit and floating types, kernel parameters of
 * 336 bytes, 4 KiB and 32,764 bytes, the vector types, device malloc and
 * free, printf's return value, clock, and the Cooperative Groups the
 * lessons use: tiles of 1 to 32 threads (every collective), tiles of
 * tiles, thread_group from tiled_partition(g, n), coalesced_threads,
 * binary_partition, labeled_partition, cg::reduce with every operator, the
 * scans, group sync. Prints "ok N - case" or "not ok N - case", then a
 * result line; exit 0 when every case holds.
 *
 * Run:  build/tests/cxx            (under WARPSIM_MODEL=lockstep|its|random)
 */
#include "lesson.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

static int failures, cases;

static void check(bool good, const char *fmt, ...)
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

/* Device memory of n T, zeroed; copied back by fetch. */
template <class T>
static T *dev(size_t n)
{
    T *p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    CUDA_CHECK(cudaMemset(p, 0, n * sizeof(T)));
    return p;
}

template <class T>
static void fetch(T *host, const T *d, size_t n)
{
    CUDA_CHECK(cudaMemcpy(host, d, n * sizeof(T), cudaMemcpyDeviceToHost));
}

/* ---- CUDA's min and max, integer intrinsics ---------------------------- */

namespace api {

constexpr int kLanes = 32;

struct ints {
    int mn, mx, mixed_unsigned_is_unsigned, clz, ffs, ffsll, popc, popcll, mul24, mulhi, hadd,
        rhadd, dp4a;
    unsigned umn, umx, brev, fl, fr, flc, frc, perm, umulhi, sad, usad, umul24, fns;
    long long llmn, llmx, mul64hi;
    unsigned long long ullmn, brevll, umul64hi;
    float fmn, fmx;
    double dmn;
};

__global__ void intrinsics(ints *out)
{
    const int t = (int)threadIdx.x;
    ints &r = out[t];              /* a reference to this lane's slot */
    r.mn = min(t, 7);
    r.mx = max(-t, -7);
    r.mixed_unsigned_is_unsigned = min(-1, 5u) == 5u;   /* min(int, unsigned) is unsigned */
    r.umn = umin(0xffffffffu - (unsigned)t, 3u);
    r.umx = umax((unsigned)t, 9u);
    r.llmn = llmin(-(1LL << 40) * t, 5LL);
    r.llmx = max((long long)t << 33, 1LL << 34);
    r.ullmn = ullmin(~0ULL - (unsigned long long)t, 77ULL);
    r.fmn = min(0.5f * (float)t, 3.25f);
    r.fmx = max(-1.5f, (float)t);
    r.dmn = min(1.0 * t, 2.5f);  /* min(double, float) is double */
    r.clz = __clz(t << 10);
    r.ffs = __ffs(t << 3);
    r.ffsll = __ffsll((long long)t << 40);
    r.popc = __popc((unsigned)t * 0x01010101u);
    r.popcll = __popcll((unsigned long long)t * 0x0101010101010101ULL);
    r.brev = __brev((unsigned)t + 1u);
    r.brevll = __brevll((unsigned long long)t + 1u);
    r.fl = __funnelshift_l(0x80000001u, (unsigned)t, (unsigned)t + 3u);
    r.fr = __funnelshift_r(0x80000001u, (unsigned)t, (unsigned)t + 3u);
    r.flc = __funnelshift_lc(0x12345678u, 0x9abcdef0u, (unsigned)t * 2u);
    r.frc = __funnelshift_rc(0x12345678u, 0x9abcdef0u, (unsigned)t * 2u);
    r.perm = __byte_perm(0x33221100u, 0x77665544u, 0x1u * (unsigned)t * 0x1111u);
    r.mul24 = __mul24(t - 16, 0x7fffff);
    r.umul24 = __umul24((unsigned)t | 0xff000000u, 0x10u);
    r.mulhi = __mulhi((int)((unsigned)t * 0x10000000u), -0x30000000);
    r.umulhi = __umulhi((unsigned)t * 0x10000000u, 0xf0000000u);
    r.mul64hi = __mul64hi((long long)t << 40, -(1LL << 40));
    r.umul64hi = __umul64hi((unsigned long long)t << 40, 1ULL << 40);
    r.sad = __sad(t, 16, 100u);
    r.usad = __usad((unsigned)t, 16u, 1u);
    r.hadd = __hadd(0x7fffffff, t);
    r.rhadd = __rhadd(-t, 0);
    r.dp4a = __dp4a(0x01ff02fe, t, 10);
    r.fns = __fns(0xf0f0f0f0u, (unsigned)t, 2);
}

/* The same on the host, from CUDA's definitions. */
static ints expect_ints(int t)
{
    ints r;
    unsigned long long v;
    int i;
    memset(&r, 0, sizeof r);
    r.mn = t < 7 ? t : 7;
    r.mx = -t > -7 ? -t : -7;
    r.mixed_unsigned_is_unsigned = 1;
    r.umn = 3u;
    r.umx = (unsigned)t > 9u ? (unsigned)t : 9u;
    r.llmn = t ? -(1LL << 40) * t : 0;
    r.llmx = ((long long)t << 33) > (1LL << 34) ? (long long)t << 33 : 1LL << 34;
    r.ullmn = 77ULL;
    r.fmn = 0.5f * (float)t < 3.25f ? 0.5f * (float)t : 3.25f;
    r.fmx = (float)t > -1.5f ? (float)t : -1.5f;
    r.dmn = t < 2.5 ? (double)t : 2.5;
    r.clz = t ? __builtin_clz((unsigned)(t << 10)) : 32;
    r.ffs = __builtin_ffs(t << 3);
    r.ffsll = __builtin_ffsll((long long)t << 40);
    r.popc = __builtin_popcount((unsigned)t * 0x01010101u);
    r.popcll = __builtin_popcountll((unsigned long long)t * 0x0101010101010101ULL);
    for (i = 0, r.brev = 0; i < 32; i++)
        r.brev |= (((unsigned)t + 1u) >> i & 1u) << (31 - i);
    for (i = 0, r.brevll = 0; i < 64; i++)
        r.brevll |= (((unsigned long long)t + 1u) >> i & 1ULL) << (63 - i);
    v = ((unsigned long long)(unsigned)t << 32) | 0x80000001u;
    r.fl = (unsigned)((v << (((unsigned)t + 3u) & 31)) >> 32);
    r.fr = (unsigned)(v >> (((unsigned)t + 3u) & 31));
    v = (0x9abcdef0ULL << 32) | 0x12345678u;
    r.flc = (unsigned)((v << ((unsigned)t * 2u > 32 ? 32 : (unsigned)t * 2u)) >> 32);
    r.frc = (unsigned)(v >> ((unsigned)t * 2u > 32 ? 32 : (unsigned)t * 2u));
    v = (0x77665544ULL << 32) | 0x33221100u;
    for (i = 0, r.perm = 0; i < 4; i++)
        r.perm |= (unsigned)((v >> (8 * (((0x1111u * (unsigned)t) >> (4 * i)) & 7))) & 0xff)
                  << (8 * i);
    r.mul24 = (t - 16) * 0x7fffff;
    r.umul24 = (((unsigned)t | 0xff000000u) & 0xffffffu) * 0x10u;
    r.mulhi = (int)(((long long)(int)((unsigned)t * 0x10000000u) * -0x30000000LL) >> 32);
    r.umulhi = (unsigned)(((unsigned long long)((unsigned)t * 0x10000000u) * 0xf0000000ULL) >> 32);
    r.mul64hi = (long long)(((__int128)((long long)t << 40) * -(1LL << 40)) >> 64);
    r.umul64hi = (unsigned long long)(((unsigned __int128)((unsigned long long)t << 40) << 40) >> 64);
    r.sad = 100u + (unsigned)(t > 16 ? t - 16 : 16 - t);
    r.usad = 1u + (unsigned)(t > 16 ? t - 16 : 16 - t);
    r.hadd = (int)((0x7fffffffLL + t) >> 1);
    r.rhadd = (int)((-(long long)t + 1) >> 1);
    r.dp4a = 10 + 1 * (signed char)(t >> 24) + (-1) * (signed char)(t >> 16) +
             2 * (signed char)(t >> 8) + (-2) * (signed char)t;
    {
        int left = 2, pos;
        r.fns = 0xffffffffu;
        for (pos = t; pos < 32; pos++)
            if ((0xf0f0f0f0u >> pos & 1u) && --left == 0) {
                r.fns = (unsigned)pos;
                break;
            }
    }
    return r;
}

} /* namespace api */

static void case_intrinsics()
{
    api::ints *d = dev<api::ints>(api::kLanes), h[api::kLanes];
    int t, bad = 0;
    LAUNCH(api::intrinsics, 1, api::kLanes, 0, d);
    fetch(h, d, api::kLanes);
    for (t = 0; t < api::kLanes; t++) {
        api::ints e = api::expect_ints(t);
        if (memcmp(&e, &h[t], sizeof e) != 0) {
            if (!bad)
                printf("  lane %d: min %d/%d clz %d/%d brev %08x/%08x perm %08x/%08x fns %u/%u "
                       "dp4a %d/%d mul24 %d/%d\n", t, h[t].mn, e.mn, h[t].clz, e.clz, h[t].brev,
                       e.brev, h[t].perm, e.perm, h[t].fns, e.fns, h[t].dp4a, e.dp4a, h[t].mul24,
                       e.mul24);
            bad++;
        }
    }
    check(!bad, "min, max, umin ... ullmin, __clz, __ffs(ll), __popc(ll), __brev(ll), "
                "__funnelshift_*, __byte_perm, __mul24, __mulhi, __mul64hi, __sad, __hadd, "
                "__dp4a, __fns: %d lanes wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

/* ---- floating point --------------------------------------------------- */

__global__ void floats(float *f, int *i, double *d)
{
    f[0] = __fadd_rz(1.0f, 1e-8f);     /* rounds down to 1 */
    f[1] = __fadd_ru(1.0f, 1e-8f);     /* rounds up past 1 */
    f[2] = __fmul_rd(-1.0f / 3.0f, 3.0f);
    f[3] = __int_as_float(0x3f800000);
    f[4] = __saturatef(1.5f) + __saturatef(-2.0f);
    f[5] = rsqrtf(4.0f);
    f[6] = __fdividef(1.0f, 8.0f);
    f[7] = __expf(0.0f) + __sinf(0.0f) + __powf(2.0f, 3.0f);
    i[0] = __float2int_rd(-1.5f);
    i[1] = __float2int_ru(-1.5f);
    i[2] = __float2int_rn(2.5f);      /* to even */
    i[3] = __float2int_rz(-2.7f);
    i[4] = __float_as_int(1.0f);
    i[5] = __double2hiint(1.0);
    d[0] = __hiloint2double(0x3ff00000, 0);
    d[1] = __longlong_as_double(__double_as_longlong(2.5));
    d[2] = __dadd_rn(0.1, 0.2);
}

static void case_floats()
{
    float *df = dev<float>(8), f[8];
    int *di = dev<int>(6), i[6];
    double *dd = dev<double>(3), d[3];
    LAUNCH(floats, 1, 1, 0, df, di, dd);
    fetch(f, df, 8);
    fetch(i, di, 6);
    fetch(d, dd, 3);
    check(f[0] == 1.0f && f[1] > 1.0f && f[2] <= -1.0f && f[3] == 1.0f && f[4] == 1.0f &&
          f[5] == 0.5f && f[6] == 0.125f && f[7] == 9.0f,
          "__fadd_rz/ru, __fmul_rd, __int_as_float, __saturatef, rsqrtf, __fdividef, __expf, "
          "__sinf, __powf: %g %g %g %g %g %g %g %g", f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
    check(i[0] == -2 && i[1] == -1 && i[2] == 2 && i[3] == -2 && i[4] == 0x3f800000 &&
          i[5] == 0x3ff00000 && d[0] == 1.0 && d[1] == 2.5 && d[2] == 0.1 + 0.2,
          "__float2int_rd/ru/rn/rz, __float_as_int, __double2hiint, __hiloint2double, "
          "__longlong_as_double, __dadd_rn: %d %d %d %d", i[0], i[1], i[2], i[3]);
    CUDA_CHECK(cudaFree(df));
    CUDA_CHECK(cudaFree(di));
    CUDA_CHECK(cudaFree(dd));
}

/* ---- atomics of every type --------------------------------------------- */

struct atoms {
    int i, imin, imax, iand, ior, ixor, icas, isub;
    unsigned u, uinc, udec, uexch;
    long long llmin, llmax, lland;
    unsigned long long ull, ullcas, ullexch, ullor;
    float f, fexch;
    double d;
};

__global__ void atomics(atoms *a)
{
    const int t = (int)threadIdx.x;
    atomicAdd(&a->i, t);
    atomicSub(&a->isub, t);
    atomicMin(&a->imin, -t);
    atomicMax_block(&a->imax, t);
    atomicAnd(&a->iand, ~(1 << (t % 31)));
    atomicOr(&a->ior, 1 << (t % 31));
    atomicXor(&a->ixor, 1);
    atomicCAS(&a->icas, t, t + 1);   /* 0 -> 1 -> ... in whatever order lanes come */
    atomicAdd(&a->u, 2u);
    atomicInc(&a->uinc, 9u);         /* wraps to 0 after 9 */
    atomicDec(&a->udec, 100u);
    atomicExch(&a->uexch, 7u);
    atomicMin(&a->llmin, -(1LL << 40) - t);
    atomicMax(&a->llmax, (long long)t << 35);
    atomicAnd(&a->lland, ~(1LL << (t + 20)));
    atomicAdd_system(&a->ull, 1ULL << 33);
    atomicCAS(&a->ullcas, 0ULL, 1ULL << 50);
    atomicExch(&a->ullexch, 5ULL);
    atomicOr(&a->ullor, 1ULL << (t + 30));
    atomicAdd(&a->f, 0.5f);
    atomicExch(&a->fexch, 2.5f);
    atomicAdd(&a->d, 0.25);
}

static void case_atomics()
{
    atoms *d = dev<atoms>(1), h, init;
    memset(&init, 0, sizeof init);
    init.iand = -1;
    init.udec = 50;
    init.lland = -1;
    CUDA_CHECK(cudaMemcpy(d, &init, sizeof init, cudaMemcpyHostToDevice));
    LAUNCH(atomics, 1, 32, 0, d);
    fetch(&h, d, 1);
    check(h.i == 496 && h.isub == -496 && h.imin == -31 && h.imax == 31 &&
          h.iand == (int)0x80000000 && h.ior == 0x7fffffff && h.ixor == 0 && h.u == 64 &&
          h.uinc == 32 % 10 && h.udec == 18 && h.uexch == 7 &&
          h.llmin == -(1LL << 40) - 31 && h.llmax == 31LL << 35 &&
          h.lland == ~(((1LL << 32) - 1) << 20) && h.ull == 32ULL << 33 &&
          h.ullcas == 1ULL << 50 && h.ullexch == 5 && h.ullor == ((1ULL << 32) - 1) << 30 &&
          h.f == 16.0f && h.fexch == 2.5f && h.d == 8.0,
          "atomics of int, unsigned, long long, unsigned long long, float, double, _block and "
          "_system: add %d sub %d min %d max %d and %x or %x inc %u dec %u llmin %lld f %g d %g",
          h.i, h.isub, h.imin, h.imax, h.iand, h.ior, h.uinc, h.udec, h.llmin, h.f, h.d);
    CUDA_CHECK(cudaFree(d));
}

/* ---- shuffles and match of 64-bit and floating types ------------------- */

template <class T>
__global__ void shfl_types(T *out, unsigned *match)
{
    const int lane = (int)threadIdx.x;
    const T v = (T)(lane * 3) + (T)0.5 * (sizeof(T) == 8);
    out[lane] = __shfl_xor_sync(FULL_MASK, v, 1) + __shfl_up_sync(FULL_MASK, v, 2, 8);
    match[lane] = __match_any_sync(FULL_MASK, (T)(lane % 4));
}

template <class T>
static bool shfl_type_ok()
{
    T *d = dev<T>(32), h[32];
    unsigned *dm = dev<unsigned>(32), m[32];
    int lane;
    bool good = true;
    LAUNCH(shfl_types<T>, 1, 32, 0, d, dm);
    fetch(h, d, 32);
    fetch(m, dm, 32);
    for (lane = 0; lane < 32; lane++) {
        auto val = [](int l) { return (T)(l * 3) + (T)0.5 * (sizeof(T) == 8); };
        int up = lane % 8 >= 2 ? lane - 2 : lane;
        good = good && h[lane] == val(lane ^ 1) + val(up) && m[lane] == 0x11111111u << (lane % 4);
    }
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaFree(dm));
    return good;
}

static void case_shuffle_types()
{
    check(shfl_type_ok<long long>() && shfl_type_ok<unsigned long long>() &&
          shfl_type_ok<float>() && shfl_type_ok<double>() && shfl_type_ok<long>() &&
          shfl_type_ok<unsigned>(),
          "__shfl_xor_sync, __shfl_up_sync (width 8) and __match_any_sync of long long, "
          "unsigned long long, float, double, long, unsigned (a template kernel each)");
}

/* ---- kernel parameters: 336 bytes, 4 KiB, 32,764 bytes ------------------ */

template <int N>
struct params {
    int v[N];
};
static_assert(sizeof(params<84>) == 336, "336 bytes");

template <int N>
__global__ void big_params(params<N> p, int *sum, char tag, params<2> tail)
{
    int s = 0, i;
    for (i = 0; i < N; i++)
        s += p.v[i];
    sum[threadIdx.x + blockIdx.x * blockDim.x] = s + tag + tail.v[0] + tail.v[1];
}

template <int N>
static bool big_params_ok()
{
    static params<N> p;              /* up to 32 KB: not on the stack */
    params<2> tail = { { 1000, 2000 } };
    int *d = dev<int>(64), h[64], i, want = 3003, good = 1;
    for (i = 0; i < N; i++) {
        p.v[i] = i % 7 - 3;
        want += i % 7 - 3;
    }
    LAUNCH(big_params<N>, 2, 32, 0, p, d, (char)3, tail);
    fetch(h, d, 64);
    for (i = 0; i < 64; i++)
        good &= h[i] == want;
    CUDA_CHECK(cudaFree(d));
    return good;
}

static void case_big_params()
{
    check(big_params_ok<84>(), "a kernel parameter struct of 336 bytes reaches every thread");
    check(big_params_ok<1024>(), "a kernel parameter struct of 4 KiB reaches every thread");
    check(big_params_ok<(32764 - 8 - 8 - 8) / 4>(),
          "kernel parameters of 32,764 bytes (CUDA 12.1's limit) reach every thread");
}

/* ---- vector types, malloc and free, printf, clock ----------------------- */

__global__ void misc(int4 *v, int *ok, long long *clocks)
{
    int4 a = make_int4(1, 2, 3, 4);
    float2 f = make_float2(0.5f, 1.5f);
    int *p = static_cast<int *>(malloc(64 * sizeof(int)));
    int *q = static_cast<int *>(malloc(4));
    long long c0 = clock64();
    clock_t c1 = clock();
    int n, i;
    v[threadIdx.x] = make_int4(a.x + (int)threadIdx.x, a.y, a.z, a.w + (int)(f.x + f.y));
    ok[threadIdx.x] = p != nullptr && q != nullptr && ((uintptr_t)p % 16) == 0 && p != q;
    if (p) {
        for (i = 0; i < 64; i++)
            p[i] = i;
        for (i = 0, n = 0; i < 64; i++)
            n += p[i];
        ok[threadIdx.x] &= n == 2016;
    }
    free(p);
    free(q);
    free(nullptr);
    n = printf(threadIdx.x ? "%s" : "printf in a kernel: %s\n", threadIdx.x ? "" : "lane 0");
    ok[threadIdx.x] &= n == 1;
    clocks[threadIdx.x] = clock64() - c0 > 0 && (long long)clock() > (long long)c1;
}

static void case_misc()
{
    int4 *dv = dev<int4>(32), v[32];
    int *dok = dev<int>(32), ok[32], i, good = 1;
    long long *dc = dev<long long>(32), c[32];
    size_t heap = 0, fifo = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    CUDA_CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
    check(heap == 8u << 20 && fifo == 1u << 20, "cudaDeviceGetLimit: heap %zu, printf FIFO %zu",
          heap, fifo);
    LAUNCH(misc, 1, 32, 0, dv, dok, dc);
    fetch(v, dv, 32);
    fetch(ok, dok, 32);
    fetch(c, dc, 32);
    for (i = 0; i < 32; i++)
        good &= v[i].x == 1 + i && v[i].w == 6 && ok[i] == 1 && c[i] == 1;
    check(good && alignof(int4) == 16 && sizeof(float2) == 8 && alignof(double2) == 16,
          "make_int4, make_float2, malloc and free in a kernel, printf's count of arguments, "
          "clock64 and clock advance");
    check(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20) == cudaErrorInvalidValue &&
          cudaGetLastError() == cudaErrorInvalidValue,
          "cudaLimitMallocHeapSize cannot change once a kernel called malloc");
    CUDA_CHECK(cudaFree(dv));
    CUDA_CHECK(cudaFree(dok));
    CUDA_CHECK(cudaFree(dc));
}

/* ---- Cooperative Groups ------------------------------------------------- */

/* Every collective of a tile of W threads; r holds 12 results a thread. */
template <unsigned W>
__device__ void tile_ops(const cg::thread_block_tile<W> &t, int *r)
{
    const int rank = (int)t.thread_rank();
    int pred;
    r[0] = t.shfl(rank * 10, 1 % W);
    r[1] = t.shfl_up(rank, 1);
    r[2] = t.shfl_down(rank, 1);
    r[3] = t.shfl_xor(rank, W / 2 ? W / 2 : 0);
    r[4] = (int)t.ballot(rank % 2);
    r[5] = t.any(rank == (int)W - 1);
    r[6] = t.all(rank < (int)W);
    r[7] = (int)t.match_any(rank / 2);
    r[8] = (int)t.meta_group_rank();
    r[9] = (int)t.meta_group_size();
    r[10] = (int)t.size() * 1000 + (int)t.num_threads();
    r[11] = (int)t.match_all(7, pred) + pred;
    t.sync();
}

template <unsigned W>
__global__ void tiles(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<W>(block);
    tile_ops(tile, &out[block.thread_rank() * 12]);
}

template <unsigned W>
static bool tiles_ok(unsigned threads)
{
    int *d = dev<int>(threads * 12), *h = new int[threads * 12];
    unsigned t;
    bool good = true;
    LAUNCH(tiles<W>, 1, threads, 0, d);
    fetch(h, d, threads * 12);
    for (t = 0; t < threads && good; t++) {
        const int *r = &h[t * 12];
        int rank = (int)(t % W), j;
        unsigned ballot = 0, match = 0, full = W == 32 ? 0xffffffffu : (1u << W) - 1u;
        for (j = 0; j < (int)W; j++) {
            ballot |= (unsigned)(j % 2) << j;
            match |= (unsigned)(j / 2 == rank / 2) << j;
        }
        good = r[0] == (int)(1 % W) * 10 && r[1] == (rank >= 1 ? rank - 1 : rank) &&
               r[2] == (rank + 1 < (int)W ? rank + 1 : rank) &&
               r[3] == (W > 1 ? rank ^ (int)(W / 2) : rank) && (unsigned)r[4] == ballot &&
               r[5] == 1 && r[6] == 1 && (unsigned)r[7] == match &&
               r[8] == (int)(t / W) && r[9] == (int)((threads + W - 1) / W) &&
               r[10] == (int)W * 1001 && (unsigned)r[11] == full + 1u;
        if (!good)
            printf("  tile %u, thread %u: %d %d %d %d %x %d %d %x %d %d %d %x\n", W, t, r[0], r[1],
                   r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]);
    }
    CUDA_CHECK(cudaFree(d));
    delete[] h;
    return good;
}

static void case_tiles()
{
    check(tiles_ok<32>(96) && tiles_ok<16>(64) && tiles_ok<8>(64) && tiles_ok<4>(32) &&
          tiles_ok<2>(32) && tiles_ok<1>(32),
          "thread_block_tile<32, 16, 8, 4, 2, 1>: shfl, shfl_up, shfl_down, shfl_xor, ballot, "
          "any, all, match_any, match_all, meta_group_rank, meta_group_size, size, sync");
}

/* tiled_partition of a tile, the dynamic tiled_partition(g, n), cg::sync. */
__global__ void partitions(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> eight = cg::tiled_partition<8>(warp);
    cg::thread_group four = cg::tiled_partition(block, 4);
    cg::thread_group two = cg::tiled_partition(four, 2);
    int *r = &out[block.thread_rank() * 8];
    r[0] = (int)eight.meta_group_rank() * 100 + (int)eight.meta_group_size();
    r[1] = eight.shfl((int)warp.thread_rank(), 7);
    r[2] = (int)four.thread_rank() * 100 + (int)four.size();
    r[3] = (int)two.thread_rank() * 100 + (int)two.size();
    cg::sync(four);
    cg::sync(block);
    r[4] = (int)block.group_index().x * 100 + (int)block.thread_index().x;
    r[5] = (int)block.dim_threads().x + (int)block.group_dim().x;
    r[6] = (int)cg::thread_rank(two) + 10 * (int)cg::group_size(four);
    r[7] = (int)four.get_type();
}

static void case_partitions()
{
    int *d = dev<int>(64 * 8), h[64 * 8], t, bad = 0;
    LAUNCH(partitions, 1, 64, 0, d);
    fetch(h, d, 64 * 8);
    for (t = 0; t < 64; t++) {
        const int *r = &h[t * 8];
        int lane = t % 32;
        bad += r[0] != (lane / 8) * 100 + 4 || r[1] != (lane & ~7) + 7 ||
               r[2] != (t % 4) * 100 + 4 || r[3] != (t % 2) * 100 + 2 || r[4] != t ||
               r[5] != 128 || r[6] != t % 2 + 40 || r[7] != 1;
    }
    check(!bad, "tiled_partition<8> of a tile, tiled_partition(block, 4) and of that (g, 2), "
                "cg::sync, group_index, thread_index, dim_threads: %d threads wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

/* coalesced_threads in a branch, binary_partition, labeled_partition, and
 * their collectives (ranks go by lane). */
__global__ void coalesced(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(block);
    const int lane = (int)warp.thread_rank();
    int *r = &out[block.thread_rank() * 10];
    cg::coalesced_group odd = cg::binary_partition(warp, lane % 2 == 1);
    cg::coalesced_group third = cg::labeled_partition(warp, lane % 3);
    r[0] = (int)odd.size() * 100 + (int)odd.thread_rank();
    r[1] = odd.shfl(lane, 2);                         /* the rank-2 member's lane */
    r[2] = (int)odd.ballot(lane >= 16);               /* bits by rank */
    r[3] = (int)third.size() * 100 + (int)third.meta_group_rank() * 10 +
           (int)third.meta_group_size();
    r[4] = third.shfl_up(lane, 1);
    r[5] = third.shfl_down(lane, 2u);
    if (lane < 20) {
        /* the threads here together: under its and random perhaps fewer
         * than 20, as a GPU may find (CUDA does not promise a size) */
        cg::coalesced_group here = cg::coalesced_threads();
        r[6] = (int)here.size() * 100 + (int)here.thread_rank();
        r[7] = cg::reduce(here, 1, cg::plus<int>());
        r[8] = cg::exclusive_scan(here, 1);
        here.sync();
    } else {
        r[6] = r[7] = r[8] = -1;
    }
    r[9] = cg::reduce(third, lane, cg::greater<int>());
}

static void case_coalesced()
{
    int *d = dev<int>(32 * 10), h[32 * 10], t, bad = 0;
    LAUNCH(coalesced, 1, 32, 0, d);
    fetch(h, d, 32 * 10);
    for (t = 0; t < 32; t++) {
        const int *r = &h[t * 10];
        int third = t % 3, tsize = 0, trank = 0, tmax = 0, j, up = t, down = t;
        unsigned oddballot = 0;
        for (j = 0; j < 32; j++)
            if (j % 3 == third) {
                tsize++;
                trank += j < t;
                tmax = j;
            }
        for (j = 0; j < 16; j++)
            oddballot |= (unsigned)(t % 2 == 1 ? (2 * j + 1) >= 16 : (2 * j) >= 16) << j;
        if (t - 3 >= 0)
            up = t - 3;
        if (t + 6 < 32)
            down = t + 6;
        bad += r[0] != 1600 + t / 2 || r[1] != 4 + t % 2 || (unsigned)r[2] != oddballot ||
               r[3] != tsize * 100 + third * 10 + 3 || r[4] != up || r[5] != down ||
               (t < 20 && (r[6] / 100 > 20 || r[6] % 100 >= r[6] / 100 ||
                           r[7] != r[6] / 100 || r[8] != r[6] % 100)) ||
               (t >= 20 && r[6] != -1) || r[9] != tmax;
        (void)trank;
    }
    check(!bad, "binary_partition, labeled_partition, coalesced_threads in a branch: size, "
                "thread_rank, meta_group_rank, shfl, shfl_up, shfl_down, ballot by rank, "
                "reduce, exclusive_scan, sync: %d threads wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

/* cg::reduce with every operator over tiles of 16 and 8 (the one
 * __reduce_*_sync and the shfl_xor steps), and the scans. */
template <class Op>
__device__ int tile_reduce(const cg::thread_block_tile<16> &a, const cg::thread_block_tile<8> &b,
                           int v)
{
    return cg::reduce(a, v, Op()) * 1000 + cg::reduce(b, v, Op());
}

__global__ void reduces(int *out, unsigned *uout, double *dout)
{
    cg::thread_block block = cg::this_thread_block();
    auto sixteen = cg::tiled_partition<16>(block);
    auto eight = cg::tiled_partition<8>(block);
    const int rank = (int)block.thread_rank(), v = rank * 7 % 11 - 5;
    int *r = &out[rank * 6];
    r[0] = tile_reduce<cg::plus<int>>(sixteen, eight, v);
    r[1] = tile_reduce<cg::less<int>>(sixteen, eight, v);
    r[2] = tile_reduce<cg::greater<int>>(sixteen, eight, v);
    r[3] = cg::inclusive_scan(sixteen, v);
    r[4] = cg::exclusive_scan(eight, v);
    r[5] = cg::exclusive_scan(sixteen, v, cg::greater<int>());
    uout[rank * 3 + 0] = cg::reduce(sixteen, (unsigned)rank, cg::bit_and<unsigned>());
    uout[rank * 3 + 1] = cg::reduce(sixteen, 1u << (rank % 16), cg::bit_or<unsigned>());
    uout[rank * 3 + 2] = cg::reduce(eight, (unsigned)rank, cg::bit_xor<unsigned>());
    dout[rank] = cg::reduce(sixteen, 0.5 * v, cg::plus<double>());
}

static void case_reduce()
{
    int *d = dev<int>(32 * 6), h[32 * 6], t, bad = 0;
    unsigned *du = dev<unsigned>(32 * 3), hu[32 * 3];
    double *dd = dev<double>(32), hd[32];
    LAUNCH(reduces, 1, 32, 0, d, du, dd);
    fetch(h, d, 32 * 6);
    fetch(hu, du, 32 * 3);
    fetch(hd, dd, 32);
    for (t = 0; t < 32; t++) {
        int s16 = 0, s8 = 0, mn16 = 99, mn8 = 99, mx16 = -99, mx8 = -99, inc = 0, exc = 0, gx = 0;
        unsigned and16 = ~0u, or16 = 0, xor8 = 0;
        int j, b16 = t & ~15, b8 = t & ~7;
        for (j = b16; j < b16 + 16; j++) {
            int v = j * 7 % 11 - 5;
            s16 += v;
            mn16 = v < mn16 ? v : mn16;
            mx16 = v > mx16 ? v : mx16;
            and16 &= (unsigned)j;
            or16 |= 1u << (j % 16);
            if (j <= t)
                inc += v;
            if (j < t)
                gx = j == b16 ? v : (v > gx ? v : gx);
        }
        for (j = b8; j < b8 + 8; j++) {
            int v = j * 7 % 11 - 5;
            s8 += v;
            mn8 = v < mn8 ? v : mn8;
            mx8 = v > mx8 ? v : mx8;
            xor8 ^= (unsigned)j;
            if (j < t)
                exc += v;
        }
        if (t == b16)
            gx = 0;                   /* rank 0 of an exclusive scan gets T{} */
        bad += h[t * 6] != s16 * 1000 + s8 || h[t * 6 + 1] != mn16 * 1000 + mn8 ||
               h[t * 6 + 2] != mx16 * 1000 + mx8 || h[t * 6 + 3] != inc ||
               h[t * 6 + 4] != exc || h[t * 6 + 5] != gx || hu[t * 3] != and16 ||
               hu[t * 3 + 1] != or16 || hu[t * 3 + 2] != xor8 || hd[t] != 0.5 * s16;
    }
    check(!bad, "cg::reduce with plus, less, greater, bit_and, bit_or, bit_xor (int, unsigned, "
                "double) over tiles of 16 and 8; inclusive_scan, exclusive_scan (plus and "
                "greater): %d threads wrong", bad);
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaFree(du));
    CUDA_CHECK(cudaFree(dd));
}

/* A shared-memory handoff in a tile, ordered by tile.sync() (every model
 * must find no race) and the seeds' composition example: a sum that takes
 * its group and holds g.sync(). */
__device__ int group_sum(const cg::thread_group &g, int *x, int n)
{
    int rank = (int)g.thread_rank(), total = 0, i;
    for (i = rank; i < n; i += (int)g.size())
        total += x[i];
    x[rank] = total;
    g.sync();
    if (rank == 0)
        for (i = 1; i < (int)g.size(); i++)
            total += x[i];
    g.sync();
    return total;
}

__global__ void handoff(int *out)
{
    __shared__ int s[64];
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<16>(block);
    const int t = (int)block.thread_rank();
    s[t] = t;
    tile.sync();
    out[t] = s[(t & ~15) + (t + 1) % 16];   /* a neighbour's write, after the sync */
    block.sync();
    s[t] = 1;
    block.sync();
    out[64 + t] = group_sum(block, s, 64);
}

static void case_handoff()
{
    int *d = dev<int>(128), h[128], t, bad = 0;
    LAUNCH(handoff, 1, 64, 0, d);
    fetch(h, d, 128);
    for (t = 0; t < 64; t++)
        bad += h[t] != (t & ~15) + (t + 1) % 16 || (t == 0 && h[64] != 64);
    check(!bad, "tile.sync() and block.sync() order shared memory; a helper that takes "
                "its group and holds g.sync() (the composition example): %d wrong", bad);
    CUDA_CHECK(cudaFree(d));
}

int main()
{
    case_intrinsics();
    case_floats();
    case_atomics();
    case_shuffle_types();
    case_big_params();
    case_misc();
    case_tiles();
    case_partitions();
    case_coalesced();
    case_reduce();
    case_handoff();
    printf("result: %s (%d of %d cases wrong)\n", failures ? "WRONG" : "ok", failures, cases);
    return failures ? 1 : 0;
}
