/*
 * tsan.c - the hooks that the compilers' -fsanitize=thread instrumentation
 * calls (gcc's and clang's: the same names, the ABI of libtsan).
 *
 * warpsim links its own implementation of these instead of libtsan, the way
 * the Linux kernel's KCSAN reuses the same compiler instrumentation with its
 * own runtime. Only the lesson file is instrumented. A hook on emulated
 * shared or device memory is a scheduling point and a race check
 * (shadow.c); on the running lane's own stack it returns at once; on any
 * other address, host code goes ahead and a lane's access is checked
 * (shadow.c: the program's image and globals, else an invalid access,
 * never made). The hooks
 * of plain, unaligned and volatile accesses of 1 to 16 bytes
 * (__tsan_read4 ...) are assembly stubs in ctx.c (WS_STUB_HOOKS), which
 * call shadow.c's ws_enter_* and ws_after_*.
 * __tsan_func_entry/exit keep each lane's call stack, which is half of its
 * position for the lockstep model.
 *
 * clang also turns memcpy, memmove and memset into __tsan_memcpy ... (gcc
 * leaves them to the C library, where no hook sees them), and both
 * compilers turn C11 and __atomic operations into __tsan_atomicN_*: those
 * do the operation and report it as an atomic access.
 *
 * And one hook of -fsanitize=integer-divide-by-zero: an integer division
 * by zero traps on x86-64 but gives 0 on arm64, so warpsim has the
 * compilers check the divisor and reports the division itself, the same
 * way on every processor, as a fault that stops the lane (sched.c).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ws_internal.h"

#define RET() ((uintptr_t)__builtin_return_address(0))

/* An access of size bytes at p that is not a stub's: a scheduling point
 * and its check where it touches shared or device memory; a lane's access
 * elsewhere is checked too (shadow.c: its own stack, the program's
 * variables, or an invalid access that stops it). */
static void range(const void *a, size_t size, int flags, uintptr_t pc)
{
    uintptr_t p = (uintptr_t)a;
    if (!size)
        return;
    if (ws_tracked(p) || ws_tracked(p + size - 1))
        ws_access(p, size, flags, pc);
    else if (ws.cur)
        ws_check_access(p, size, flags, pc);
}

void __tsan_read_range(void *a, unsigned long size);
void __tsan_read_range(void *a, unsigned long size)
{
    range(a, size, WS_ACC_RANGE, RET());
}

void __tsan_write_range(void *a, unsigned long size);
void __tsan_write_range(void *a, unsigned long size)
{
    range(a, size, WS_ACC_WRITE | WS_ACC_RANGE, RET());
}

void __tsan_func_entry(void *call_pc);
void __tsan_func_entry(void *call_pc)
{
    ws_lane *l = ws.cur;
    if (!l)
        return;
    if (l->depth < WS_MAX_FRAMES)
        l->frames[l->depth] = (uintptr_t)call_pc;
    l->depth++;
    ws.frames_moved = 1;
}

/* On return from the function holding the lane's last scheduling point, the
 * lane stands at the call's return address in the caller. The kernel's own
 * return (depth 1: only the launch wrapper left) keeps the last position,
 * which is where the lane exited. */
void __tsan_func_exit(void);
void __tsan_func_exit(void)
{
    ws_lane *l = ws.cur;
    if (!l || l->depth == 0)
        return;
    l->depth--;
    ws.frames_moved = 1;
    if (l->depth < l->pos_depth && l->depth >= 2) {
        l->pos_depth = l->depth;
        l->pc = l->frames[l->depth];
    }
}


/* ---- memory intrinsics (clang) ----------------------------------------- */

void *__tsan_memcpy(void *dst, const void *src, size_t size);
void *__tsan_memcpy(void *dst, const void *src, size_t size)
{
    range(src, size, WS_ACC_RANGE, RET());
    range(dst, size, WS_ACC_WRITE | WS_ACC_RANGE, RET());
    return memcpy(dst, src, size);
}

void *__tsan_memmove(void *dst, const void *src, size_t size);
void *__tsan_memmove(void *dst, const void *src, size_t size)
{
    range(src, size, WS_ACC_RANGE, RET());
    range(dst, size, WS_ACC_WRITE | WS_ACC_RANGE, RET());
    return memmove(dst, src, size);
}

void *__tsan_memset(void *dst, int c, size_t size);
void *__tsan_memset(void *dst, int c, size_t size)
{
    range(dst, size, WS_ACC_WRITE | WS_ACC_RANGE, RET());
    return memset(dst, c, size);
}

/* ---- C11 / __atomic operations ------------------------------------------ */

/*
 * __tsan_atomicN_OP(address, [value, [value,]] memory order...): the
 * operation, done at once (lanes are coroutines of one host thread, so
 * nothing runs between the check and the operation), reported as an atomic
 * access. The memory order is not modelled.
 */
static void atomic_access(const volatile void *a, size_t size, int write, uintptr_t pc)
{
    range((const void *)a, size, WS_ACC_ATOMIC | (write ? WS_ACC_WRITE : 0), pc);
}

#define ATOMIC_RMW(n, T, op, expr)                                          \
    T __tsan_atomic##n##_##op(volatile T *a, T v, int mo);                  \
    T __tsan_atomic##n##_##op(volatile T *a, T v, int mo)                   \
    {                                                                       \
        T old;                                                              \
        (void)mo;                                                           \
        atomic_access(a, sizeof(T), 1, RET());                              \
        old = *a;                                                           \
        *a = (T)(expr);                                                     \
        return old;                                                         \
    }

#define ATOMICS(n, T)                                                       \
    T __tsan_atomic##n##_load(const volatile T *a, int mo);                 \
    T __tsan_atomic##n##_load(const volatile T *a, int mo)                  \
    {                                                                       \
        (void)mo;                                                           \
        atomic_access(a, sizeof(T), 0, RET());                              \
        return *a;                                                          \
    }                                                                       \
    void __tsan_atomic##n##_store(volatile T *a, T v, int mo);              \
    void __tsan_atomic##n##_store(volatile T *a, T v, int mo)               \
    {                                                                       \
        (void)mo;                                                           \
        atomic_access(a, sizeof(T), 1, RET());                              \
        *a = v;                                                             \
    }                                                                       \
    ATOMIC_RMW(n, T, exchange, v)                                           \
    ATOMIC_RMW(n, T, fetch_add, old + v)                                    \
    ATOMIC_RMW(n, T, fetch_sub, old - v)                                    \
    ATOMIC_RMW(n, T, fetch_and, old & v)                                    \
    ATOMIC_RMW(n, T, fetch_or, old | v)                                     \
    ATOMIC_RMW(n, T, fetch_xor, old ^ v)                                    \
    ATOMIC_RMW(n, T, fetch_nand, ~(old & v))                                \
    T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v,      \
                                              int mo, int fmo);             \
    T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v,      \
                                              int mo, int fmo)              \
    {                                                                       \
        T old;                                                              \
        (void)mo, (void)fmo;                                                \
        atomic_access(a, sizeof(T), 1, RET());                              \
        old = *a;                                                           \
        if (old == c)                                                       \
            *a = v;                                                         \
        return old;                                                         \
    }                                                                       \
    static int cas##n(volatile T *a, T *c, T v, uintptr_t pc)               \
    {                                                                       \
        T old;                                                              \
        atomic_access(a, sizeof(T), 1, pc);                                 \
        old = *a;                                                           \
        if (old == *c) {                                                    \
            *a = v;                                                         \
            return 1;                                                       \
        }                                                                   \
        *c = old;                                                           \
        return 0;                                                           \
    }                                                                       \
    int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, \
                                                   int mo, int fmo);        \
    int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, \
                                                   int mo, int fmo)         \
    {                                                                       \
        (void)mo, (void)fmo;                                                \
        return cas##n(a, c, v, RET());                                      \
    }                                                                       \
    int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v,  \
                                                 int mo, int fmo);          \
    int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v,  \
                                                 int mo, int fmo)           \
    {                                                                       \
        (void)mo, (void)fmo;                                                \
        return cas##n(a, c, v, RET());                                      \
    }

ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)
#if defined(__SIZEOF_INT128__)
ATOMICS(128, unsigned __int128)
#endif

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
    (void)mo;
}

void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo)
{
    (void)mo;
}

/* ---- integer division by zero (-fsanitize=integer-divide-by-zero) --------- */

/* What gcc and clang pass: the division's place, its type, its operands. */
typedef struct ubsan_loc {
    const char *file;
    uint32_t line, column;
} ubsan_loc;
typedef struct ubsan_div {
    ubsan_loc loc;
    const void *type;
} ubsan_div;

/*
 * A lane divides by zero (or, with gcc, INT_MIN by -1): a fault, as it is
 * on x86-64, with the lane and the line. The lane stops before the
 * division; the launch goes on only to find a race that may have made the
 * divisor (sched.c's ws_lane_fault), then the report, the summary and the
 * status of a failed kernel end the program. In host code the division
 * goes ahead, as without the check.
 */
void __ubsan_handle_divrem_overflow(void *data, void *lhs, void *rhs);
void __ubsan_handle_divrem_overflow(void *data, void *lhs, void *rhs)
{
    const ubsan_div *d = data;
    const char *file = d->loc.file ? d->loc.file : "?", *slash = strrchr(file, '/');
    ws_lane *l = ws.cur;
    char who[160];
    (void)lhs;
    if (!l)
        return;
    if (ws_report_once(WR_OTHER, RET(), 0xd17, 0))
        ws_report_hold("%s in kernel %s: %s at %s:%u",
                       rhs ? "integer overflow in a division" : "integer division by zero",
                       ws.kernel, ws_who(l, who, sizeof who), slash ? slash + 1 : file,
                       (unsigned)d->loc.line);
    ws_lane_fault(l);
}

void __ubsan_handle_divrem_overflow_abort(void *data, void *lhs, void *rhs);
void __ubsan_handle_divrem_overflow_abort(void *data, void *lhs, void *rhs)
{
    __ubsan_handle_divrem_overflow(data, lhs, rhs);
    _exit(1);
}

/* The body every lane runs: the kernel, called as the launch called
 * ws_launch_capture (ctx.c). The hooks above give it the frame a launch
 * wrapper of the lesson's own would have, so that the kernel is at depth 2. */
void ws_launch_replay(void)
{
    __tsan_func_entry(__builtin_return_address(0));
    ws_call_replay((void (*)(void))ws_launched_kernel());
    __tsan_func_exit();
}
