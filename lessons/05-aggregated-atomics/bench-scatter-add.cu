/*
 * bench-scatter-add.cu - lesson 05, benchmark (c) (GPU only): scatter-add,
 * out[outInd(i)] += in[i] for every i, in doubles. The three methods of a
 * community answer measured on a Quadro P6000, and a fourth built from this
 * lesson's tools.
 *
 * Build:  make                          (build/bench-scatter-add)
 * Run:    make bench                    all three benchmarks, via bench.sh
 *         build/bench-scatter-add > c.csv
 *
 * outInd(i) takes log2(outLen) bits of i, as in the answer, in two patterns:
 *   low    the lowest bits: outInd = i mod outLen; neighbouring elements go
 *          to different outputs, a warp's 32 lanes to 32 outputs
 *   high   the highest bits: outInd = i * outLen / inLen; long runs of
 *          elements go to one output, a warp's 32 lanes to the same one
 * Methods:
 *   A  a copy of out per block in global memory (atomicAdd there, each block
 *      to its own copy), then a reduce kernel, one thread per output summing
 *      the copies; one element per thread, 128 threads per block
 *   B  atomicAdd(&out[outInd], in[i]) straight to global memory; one element
 *      per thread, 128 threads per block
 *   C  a copy of out per block in shared memory (shared atomicAdd), then one
 *      global atomicAdd per output and block; one element per thread, 128
 *      threads per block; outLen up to 4096
 *   D  this lesson's tools: the lanes of a warp grouped by output with
 *      __match_any_sync, each group's values summed with shuffles (pointer
 *      jumping along the group) so that one lane adds the group's sum; into
 *      a shared-memory copy per block when outLen <= 4096, else straight into
 *      global memory; a grid-stride loop over as many blocks as fit on the
 *      GPU at once, so the copies are few and flushed once (nonzero bins).
 * A and C follow the answer's description, with two slips of its sketch put
 * right: A's blocks add into their own copy (the sketch indexes the shared
 * one), and C's threads past the end skip the work instead of returning
 * before __syncthreads().
 *
 * The values are small integers, so every sum is exact in double and each
 * result is compared with the CPU's exactly, before anything is timed. A
 * timed run includes zeroing what the method needs zeroed (cudaMemset): the
 * median of 20 runs after 3 warm-ups (5 runs after 1 when one run takes more
 * than 50 ms), with CUDA events (include/bench.h).
 */
#include "bench.h"

#define SEED_THREADS 128          /* the answer's block size, for A, B and C */
#define D_THREADS 256
#define MAX_SHARED_OUT 4096       /* doubles: 32 KiB */

__device__ __forceinline__ unsigned out_index(long long i, int shift, unsigned omask)
{
    return (unsigned)(i >> shift) & omask;
}

__global__ void scatter_a_populate(const double *in, long long in_len, int shift,
                                   unsigned omask, double *copies)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < in_len)
        atomicAdd(&copies[(long long)blockIdx.x * (omask + 1) + out_index(i, shift, omask)],
                  in[i]);
}

__global__ void scatter_a_reduce(const double *copies, long long ncopies, int out_len,
                                 double *out)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    long long b;
    double total = 0;
    if (o >= out_len)
        return;
    for (b = 0; b < ncopies; b++)
        total += copies[b * out_len + o];
    out[o] = total;
}

__global__ void scatter_b(const double *in, long long in_len, int shift, unsigned omask,
                          double *out)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < in_len)
        atomicAdd(&out[out_index(i, shift, omask)], in[i]);
}

__global__ void scatter_c(const double *in, long long in_len, int shift, unsigned omask,
                          double *out)
{
    extern __shared__ double copy[];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int out_len = (int)omask + 1, o;
    for (o = threadIdx.x; o < out_len; o += blockDim.x)
        copy[o] = 0;
    __syncthreads();
    if (i < in_len)
        atomicAdd(&copy[out_index(i, shift, omask)], in[i]);
    __syncthreads();
    for (o = threadIdx.x; o < out_len; o += blockDim.x)
        atomicAdd(&out[o], copy[o]);
}

/*
 * The sum of v over the caller's group (the lanes of live with the same
 * output), left in the group's lowest lane. Pointer jumping: each lane starts
 * linked to the next lane of its group; in each step it adds the value of the
 * lane it is linked to and takes over that lane's link, so after k steps it
 * holds the sum of 2^k members. Every lane of live calls it.
 */
__device__ __forceinline__ double group_sum(unsigned live, unsigned group, double v)
{
    int lane = LANE();
    unsigned above = group & ~((2u << lane) - 1u);   /* lane 31: 2u << 31 is 0 */
    int next = above ? __ffs(above) - 1 : -1;
    while (__any_sync(live, next >= 0)) {
        int from = next >= 0 ? next : lane;
        double theirs = __shfl_sync(live, v, from);
        int their_next = __shfl_sync(live, next, from);
        if (next >= 0) {
            v += theirs;
            next = their_next;
        }
    }
    return v;
}

__global__ void scatter_d(const double *in, long long in_len, int shift, unsigned omask,
                          double *out, int shared_copy)
{
    extern __shared__ double copy[];
    long long base = (long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
    long long stride = (long long)gridDim.x * blockDim.x;
    int out_len = (int)omask + 1, lane = LANE(), o;
    if (shared_copy) {
        for (o = threadIdx.x; o < out_len; o += blockDim.x)
            copy[o] = 0;
        __syncthreads();
    }
    for (; base < in_len; base += stride) {        /* the same trips in the whole warp */
        long long i = base + lane;
        unsigned live = __ballot_sync(FULL_MASK, i < in_len);
        if (i < in_len) {
            unsigned oi = out_index(i, shift, omask);
            unsigned group = __match_any_sync(live, oi);
            double sum = group_sum(live, group, in[i]);
            if (lane == __ffs(group) - 1) {
                if (shared_copy)
                    atomicAdd(&copy[oi], sum);
                else
                    atomicAdd(&out[oi], sum);
            }
        }
    }
    if (shared_copy) {
        __syncthreads();
        for (o = threadIdx.x; o < out_len; o += blockDim.x)
            if (copy[o] != 0)
                atomicAdd(&out[o], copy[o]);
    }
}

#define METHODS 4
static const char *method_names[METHODS] = { "A", "B", "C", "D" };

typedef struct {
    long long in_len;
    int out_len, shift;
    unsigned blocks;           /* of the method being run */
    long long copies;          /* A: per-block copies */
    double *in, *out, *work;   /* device */
} scatter_job;

static void run(int method, const scatter_job *job)
{
    unsigned omask = (unsigned)job->out_len - 1;
    size_t out_bytes = (size_t)job->out_len * sizeof(double);
    switch (method) {
    case 0:
        CUDA_CHECK(cudaMemset(job->work, 0, (size_t)job->copies * out_bytes));
        LAUNCH(scatter_a_populate, job->blocks, SEED_THREADS, 0,
               job->in, job->in_len, job->shift, omask, job->work);
        LAUNCH(scatter_a_reduce, (unsigned)((job->out_len + SEED_THREADS - 1) / SEED_THREADS),
               SEED_THREADS, 0, job->work, job->copies, job->out_len, job->out);
        break;
    case 1:
        CUDA_CHECK(cudaMemset(job->out, 0, out_bytes));
        LAUNCH(scatter_b, job->blocks, SEED_THREADS, 0, job->in, job->in_len, job->shift,
               omask, job->out);
        break;
    case 2:
        CUDA_CHECK(cudaMemset(job->out, 0, out_bytes));
        LAUNCH(scatter_c, job->blocks, SEED_THREADS, out_bytes, job->in, job->in_len,
               job->shift, omask, job->out);
        break;
    case 3:
        CUDA_CHECK(cudaMemset(job->out, 0, out_bytes));
        LAUNCH(scatter_d, job->blocks, D_THREADS,
               job->out_len <= MAX_SHARED_OUT ? out_bytes : 0, job->in, job->in_len,
               job->shift, omask, job->out, job->out_len <= MAX_SHARED_OUT);
        break;
    default:
        lesson_fail(LESSON_USAGE, "no method %d", method);
    }
}

int main(int argc, char **argv)
{
    static const int in_logs[] = { 5, 10, 15, 20, 25 };
    static const int out_logs[] = { 5, 10, 15 };
    static const char *pattern_names[] = { "low", "high" };
    const int nin = (int)(sizeof in_logs / sizeof in_logs[0]);
    const int nout = (int)(sizeof out_logs / sizeof out_logs[0]);
    long long seed = 1, reps = 20, max_copies_mib = 8192, i;
    lesson_option options[] = {
        { 's', "seed", "S", &seed, 0, LLONG_MAX, "seed of the random input" },
        { 'r', "reps", "R", &reps, 1, BENCH_MAX_REPS, "timed runs per point (median)" },
        { 'm', "max-copies", "MIB", &max_copies_mib, 1, 1 << 20,
          "largest per-block copies method A may allocate, in MiB" },
    };
    lesson_program program = { "bench-scatter-add.cu",
        "Lesson 05 benchmark (c): scatter-add of doubles, methods A, B, C of a\n"
        "community answer and D (match_any + shuffles + shared memory), for\n"
        "inLen 2^5..2^25 and outLen 2^5, 2^10, 2^15. CSV on stdout, progress on\n"
        "stderr. Each result is checked against the CPU first.",
        method_names, METHODS, options, (int)(sizeof options / sizeof options[0]) };
    long long max_in = 1LL << in_logs[nin - 1];
    double *in, *want, *got, *d_in, *d_out, *d_work = NULL;
    size_t work_bytes = 0;
    cudaDeviceProp prop;
    uint64_t state;
    /* B first: every other method's time is given as a ratio to B's. */
    static const int order[METHODS] = { 1, 0, 2, 3 };
    int d_per_sm[2], p, a, c, m, mi, step = 0, total = 0;

    lesson_parse(argc, argv, &program);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&d_per_sm[0], scatter_d,
                                                             D_THREADS, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &d_per_sm[1], scatter_d, D_THREADS, MAX_SHARED_OUT * sizeof(double)));
    d_in = (double *)lesson_device_alloc((size_t)max_in * sizeof(double), "the input");
    d_out = (double *)lesson_device_alloc((size_t)(1 << 15) * sizeof(double), "the output");
    in = (double *)lesson_host_alloc((size_t)max_in * sizeof(double), "the input");
    want = (double *)lesson_host_alloc((size_t)(1 << 15) * sizeof(double), "the output");
    got = (double *)lesson_host_alloc((size_t)(1 << 15) * sizeof(double), "the output");
    state = (uint64_t)seed;
    for (i = 0; i < max_in; i++)        /* -8..8: every sum exact in double */
        in[i] = (double)((int)(lesson_next_random(&state) % 17u) - 8);
    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)max_in * sizeof(double), cudaMemcpyHostToDevice));
    for (a = 0; a < nin; a++)
        for (c = 0; c < nout; c++)
            total += out_logs[c] <= in_logs[a] ? 2 * METHODS : 0;

    printf("gpu,pattern,in_len,out_len,method,ms,vs_B,note\n");
    for (p = 0; p < 2; p++) {
        for (a = 0; a < nin; a++) {
            for (c = 0; c < nout; c++) {
                scatter_job job;
                float b_ms = 0;
                long long o;
                if (out_logs[c] > in_logs[a])
                    continue;
                job.in_len = 1LL << in_logs[a];
                job.out_len = 1 << out_logs[c];
                job.shift = p == 0 ? 0 : in_logs[a] - out_logs[c];
                job.in = d_in;
                job.out = d_out;
                memset(want, 0, (size_t)job.out_len * sizeof(double));
                for (i = 0; i < job.in_len; i++)
                    want[(i >> job.shift) & (job.out_len - 1)] += in[i];
                for (mi = 0; mi < METHODS; mi++) {
                    long long wrong = 0, need;
                    float ms, once;
                    const char *na = NULL;
                    char why[96];
                    m = order[mi];
                    bench_progress(++step, total, "%s bits, inLen 2^%d, outLen 2^%d, method %s",
                                   pattern_names[p], in_logs[a], out_logs[c], method_names[m]);
                    job.blocks = (unsigned)((job.in_len + SEED_THREADS - 1) / SEED_THREADS);
                    job.copies = job.blocks;
                    job.work = NULL;
                    if (m == 0) {
                        size_t bytes = (size_t)job.copies * (size_t)job.out_len * sizeof(double);
                        char size[32];
                        if (bytes > (size_t)max_copies_mib << 20) {
                            snprintf(why, sizeof why, "per-block copies would take %s",
                                     lesson_bytes((double)bytes, size, sizeof size));
                            na = why;
                        } else {
                            if (bytes > work_bytes) {
                                if (d_work)
                                    CUDA_CHECK(cudaFree(d_work));
                                d_work = (double *)lesson_device_alloc(bytes, "A's copies");
                                work_bytes = bytes;
                            }
                            job.work = d_work;
                        }
                    } else if (m == 2 && job.out_len > MAX_SHARED_OUT) {
                        snprintf(why, sizeof why, "outLen over %d doubles: no shared copy",
                                 MAX_SHARED_OUT);
                        na = why;
                    } else if (m == 3) {
                        int shared = job.out_len <= MAX_SHARED_OUT;
                        need = (job.in_len + D_THREADS - 1) / D_THREADS;
                        job.blocks = (unsigned)((long long)d_per_sm[shared] *
                                                prop.multiProcessorCount);
                        if ((long long)job.blocks > need)
                            job.blocks = (unsigned)need;
                    }
                    if (na) {
                        printf("%s,%s,%lld,%d,%s,,,%s\n", prop.name, pattern_names[p],
                               job.in_len, job.out_len, method_names[m], na);
                        continue;
                    }
                    /* Right first: every output against the CPU, exactly. */
                    BENCH_MEDIAN_MS(once, 0, 1, run(m, &job));
                    CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)job.out_len * sizeof(double),
                                          cudaMemcpyDeviceToHost));
                    for (o = 0; o < job.out_len; o++)
                        if (got[o] != want[o] && ++wrong <= 5)
                            fprintf(stderr, "  out[%lld]: expected %.0f got %.17g\n",
                                    o, want[o], got[o]);
                    if (wrong)
                        lesson_fail(LESSON_WRONG, "method %s, %s bits, inLen %lld, outLen %d: "
                                    "%lld outputs wrong; nothing timed", method_names[m],
                                    pattern_names[p], job.in_len, job.out_len, wrong);
                    if (once > 50.0f)
                        BENCH_MEDIAN_MS(ms, 1, 5, run(m, &job));
                    else
                        BENCH_MEDIAN_MS(ms, 3, (int)reps, run(m, &job));
                    if (m == 1)
                        b_ms = ms;
                    printf("%s,%s,%lld,%d,%s,%.4f,%.3f,\n", prop.name, pattern_names[p],
                           job.in_len, job.out_len, method_names[m], ms, ms / b_ms);
                    fflush(stdout);
                }
            }
        }
    }

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    if (d_work)
        CUDA_CHECK(cudaFree(d_work));
    free(in);
    free(want);
    free(got);
    return 0;
}
