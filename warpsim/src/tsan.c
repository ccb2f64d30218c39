/*
 * tsan.c - the hooks that gcc's -fsanitize=thread instrumentation calls.
 *
 * warpsim links its own implementation of these instead of libtsan, the way
 * the Linux kernel's KCSAN reuses the same compiler instrumentation with its
 * own runtime. Only the lesson file is instrumented. A hook returns at once
 * for addresses that are neither emulated shared memory nor emulated device
 * memory (the host's and the lanes' stacks, globals, the heap); for the
 * others it is a scheduling point and a race check (shadow.c).
 * __tsan_func_entry/exit keep each lane's call stack, which is half of its
 * position for the lockstep model.
 */
#include "ws_internal.h"

#define RET() ((uintptr_t)__builtin_return_address(0))

#define ACCESS(name, size, flags)                                   \
    void name(void *a);                                             \
    void name(void *a)                                              \
    {                                                               \
        uintptr_t p = (uintptr_t)a;                                 \
        if (__builtin_expect(ws_tracked(p), 0))                     \
            ws_access(p, size, flags, RET());                       \
    }

#define ACCESS_SIZES(prefix, flags)                                 \
    ACCESS(prefix##1, 1, flags)                                     \
    ACCESS(prefix##2, 2, flags)                                     \
    ACCESS(prefix##4, 4, flags)                                     \
    ACCESS(prefix##8, 8, flags)                                     \
    ACCESS(prefix##16, 16, flags)

ACCESS_SIZES(__tsan_read, 0)
ACCESS_SIZES(__tsan_write, WS_ACC_WRITE)
ACCESS_SIZES(__tsan_unaligned_read, 0)
ACCESS_SIZES(__tsan_unaligned_write, WS_ACC_WRITE)
ACCESS_SIZES(__tsan_volatile_read, WS_ACC_VOLATILE)
ACCESS_SIZES(__tsan_volatile_write, WS_ACC_WRITE | WS_ACC_VOLATILE)
ACCESS_SIZES(__tsan_unaligned_volatile_read, WS_ACC_VOLATILE)
ACCESS_SIZES(__tsan_unaligned_volatile_write, WS_ACC_WRITE | WS_ACC_VOLATILE)

void __tsan_read_range(void *a, unsigned long size);
void __tsan_read_range(void *a, unsigned long size)
{
    uintptr_t p = (uintptr_t)a;
    if (size && (ws_tracked(p) || ws_tracked(p + size - 1)))
        ws_access(p, size, WS_ACC_RANGE, RET());
}

void __tsan_write_range(void *a, unsigned long size);
void __tsan_write_range(void *a, unsigned long size)
{
    uintptr_t p = (uintptr_t)a;
    if (size && (ws_tracked(p) || ws_tracked(p + size - 1)))
        ws_access(p, size, WS_ACC_WRITE | WS_ACC_RANGE, RET());
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
    if (l->depth < l->pos_depth && l->depth >= 2) {
        l->pos_depth = l->depth;
        l->pc = l->frames[l->depth];
    }
}

void __tsan_init(void);
void __tsan_init(void)
{
    ws_init();
}
