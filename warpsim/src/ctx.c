/*
 * ctx.c - what depends on the processor: coroutines (one stack and one
 * saved context per emulated lane), the switch the access stubs make
 * (stubs.c), and the launch's recorded call. Calls nothing of warpsim's.
 *
 * A context switch saves the callee-saved registers on the current stack
 * and swaps stack pointers (a few nanoseconds): six registers on x86-64,
 * twenty (x19-x30, d8-d15) on arm64 (AArch64: Linux, and macOS on Apple
 * silicon). Stacks are mmap'ed once, each in a slot aligned to its size
 * whose first page is a guard, and reused.
 *
 * The launch. WS_LAUNCH (warpsim.h) calls ws_call_capture through a
 * pointer of the kernel's own type, with the launch's arguments: the
 * compiler converts and places them exactly as for a call of the kernel,
 * and ws_call_capture records what such a call hands over (the argument
 * registers and the first WS_CALL_STACK bytes of arguments on the stack).
 * Then every lane's coroutine calls ws_launch_replay (tsan.c), whose
 * ws_call_replay rebuilds that call on the lane's own stack and calls the
 * kernel. No nested function,
 * no trampoline, no executable stack, and any compiler (gcc, clang) at any
 * optimization level: the calling convention does the work.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ws_internal.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "warpsim runs on x86-64 and arm64 (aarch64): ctx.c has no context switch for this processor"
#endif

#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif
#if defined(__linux__) && !defined(MADV_GUARD_INSTALL)
#define MADV_GUARD_INSTALL 102
#endif

/* The run's state, which every layer above reads and scheduling keeps
 * (sched.c), and the hooks through which a lower layer calls up
 * (ws_internal.h). */
ws_run ws;
ws_hooks_t ws_hooks;

/* "lane 3 of warp 1 (thread 35, block 2)": the running block's lane l. */
const char *ws_who(const ws_lane *l, char *buf, size_t len)
{
    snprintf(buf, len, "lane %d of warp %d (thread %d, block %u)", l->lane, l->warp,
             l->tid, ws.block_id);
    return buf;
}

/* Returns a stack slot of size bytes (a power of two), aligned to its size,
 * whose first page is inaccessible (the guard): the stack is the rest, and
 * an address whose bits above log2(size) are the stack pointer's lies in
 * the running lane's own stack (the access stubs below test that first).
 * The slots are cut from mappings of WS_STACKS_A_MAP each, not mapped one
 * by one, and the guard splits no mapping where the kernel has
 * MADV_GUARD_INSTALL (Linux 6.13 and later), else it is a PROT_NONE page: a
 * short program (a block of 256 lanes, a few milliseconds in all, most of
 * them in the kernel) then takes 1.6 to 2.0 ms of CPU instead of 2.4 to
 * 2.6. Exits when no memory is left. */
#define WS_STACKS_A_MAP 64
static uintptr_t slot_map[WS_MAX_THREADS / WS_STACKS_A_MAP + 1];   /* each mapping's first slot */
static int slot_maps, slots_made;

void *ws_stack_alloc(size_t size)
{
    static char *next;
    static size_t left;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *p;
    if (left < size) {
        char *m = mmap(NULL, (WS_STACKS_A_MAP + 1) * size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANON | MAP_NORESERVE, -1, 0);
        char *a;
        if (m == MAP_FAILED || slot_maps == (int)(sizeof slot_map / sizeof *slot_map)) {
            fprintf(stderr, "warpsim: cannot map %d lane stacks of %zu bytes\n",
                    WS_STACKS_A_MAP, size);
            exit(2);
        }
        a = (char *)(((uintptr_t)m + size - 1) & ~(uintptr_t)(size - 1));
        if (a > m)
            munmap(m, (size_t)(a - m));
        munmap(a + WS_STACKS_A_MAP * size, (size_t)(m + size - a));
        next = a;
        left = WS_STACKS_A_MAP * size;
        slot_map[slot_maps++] = (uintptr_t)a;
    }
    p = next;
    next += size;
    left -= size;
    slots_made++;
    if (madvise(p, page, MADV_GUARD_INSTALL) != 0)
        mprotect(p, page, PROT_NONE);
    return p;
}

/* The number (from 0, in the order ws_stack_alloc made them) of the stack
 * slot holding addr, or -1. */
int ws_stack_index(uintptr_t addr)
{
    int m;
    for (m = 0; m < slot_maps; m++) {
        uintptr_t off = addr - slot_map[m];
        if (off < (uintptr_t)WS_STACKS_A_MAP << WS_STACK_SHIFT) {
            int i = m * WS_STACKS_A_MAP + (int)(off >> WS_STACK_SHIFT);
            return i < slots_made ? i : -1;
        }
    }
    return -1;
}

/* ---- the recorded call ---------------------------------------------- */

/* Bytes of stack arguments a launch may pass (WS_LAUNCH checks it at
 * compile time as WS_LAUNCH_STACK_BYTES). */
#define WS_CALL_STACK 256

/*
 * What a call hands over, in the order the assembly below stores it:
 * x86-64: rdi rsi rdx rcx r8 r9, xmm0-7, the stack arguments;
 * arm64: x0-x7, x8, pad, q0-q7, the stack arguments.
 */
typedef struct ws_call_frame {
#if defined(__x86_64__)
    uint64_t gpr[6];
#else
    uint64_t gpr[10];
#endif
    unsigned char vec[8][16];
    unsigned char stack[WS_CALL_STACK];
} ws_call_frame_t;

_Static_assert(WS_CALL_STACK == WS_LAUNCH_STACK_BYTES,
               "warpsim.h and ctx.c disagree on the stack arguments a launch may pass");

__attribute__((visibility("hidden"))) ws_call_frame_t ws_call_frame;
static void (*launch_kernel)(void);

void ws_launch_kernel(void (*kernel)(void))
{
    launch_kernel = kernel;
}

uintptr_t ws_launched_kernel(void)
{
    return (uintptr_t)launch_kernel;
}

/* A word of what the last launch passed its kernel: integer argument
 * register i (stack 0) or the i-th 8-byte slot of its stack arguments
 * (stack 1). Returns 0 when there is no such word. */
int ws_launch_word(int stack, int i, uint64_t *v)
{
    if (i < 0 || (!stack && i >= WS_ARG_GPRS) || (stack && i >= WS_CALL_STACK / 8))
        return 0;
    if (stack)
        memcpy(v, ws_call_frame.stack + 8 * i, 8);
    else
        *v = ws_call_frame.gpr[i];
    return 1;
}

/* ws_call_capture(...): records its argument registers and stack in
 * ws_call_frame. ws_call_replay(fn): calls fn with them; returns when fn
 * returns. WS_LAUNCH reaches the capture through a pointer, which it casts
 * to the kernel's type. */
void ws_call_capture(void);
void ws_call_replay(void (*fn)(void));
void (*const ws_launch_capture)(void) = ws_call_capture;

#if defined(__x86_64__)

__asm__(
    ".text\n"
    FUNC_BEGIN(ws_call_capture)
    "    leaq " SYM(ws_call_frame) "(%rip), %rax\n"
    "    movq %rdi, 0(%rax)\n"
    "    movq %rsi, 8(%rax)\n"
    "    movq %rdx, 16(%rax)\n"
    "    movq %rcx, 24(%rax)\n"
    "    movq %r8, 32(%rax)\n"
    "    movq %r9, 40(%rax)\n"
    "    movdqu %xmm0, 48(%rax)\n"
    "    movdqu %xmm1, 64(%rax)\n"
    "    movdqu %xmm2, 80(%rax)\n"
    "    movdqu %xmm3, 96(%rax)\n"
    "    movdqu %xmm4, 112(%rax)\n"
    "    movdqu %xmm5, 128(%rax)\n"
    "    movdqu %xmm6, 144(%rax)\n"
    "    movdqu %xmm7, 160(%rax)\n"
    "    leaq 8(%rsp), %rsi\n"          /* the caller's stack arguments */
    "    leaq 176(%rax), %rdi\n"
    "    movl $32, %ecx\n"
    "    rep movsq\n"
    "    ret\n"
    FUNC_END(ws_call_capture)

    FUNC_BEGIN(ws_call_replay)
    "    pushq %rbp\n"
    "    movq %rsp, %rbp\n"
    "    pushq %rbx\n"
    "    subq $264, %rsp\n"             /* 256 bytes of arguments; rsp 16-aligned */
    "    movq %rdi, %rbx\n"
    "    leaq " SYM(ws_call_frame) "(%rip), %rax\n"
    "    leaq 176(%rax), %rsi\n"
    "    movq %rsp, %rdi\n"
    "    movl $32, %ecx\n"
    "    rep movsq\n"
    "    movdqu 48(%rax), %xmm0\n"
    "    movdqu 64(%rax), %xmm1\n"
    "    movdqu 80(%rax), %xmm2\n"
    "    movdqu 96(%rax), %xmm3\n"
    "    movdqu 112(%rax), %xmm4\n"
    "    movdqu 128(%rax), %xmm5\n"
    "    movdqu 144(%rax), %xmm6\n"
    "    movdqu 160(%rax), %xmm7\n"
    "    movq 0(%rax), %rdi\n"
    "    movq 8(%rax), %rsi\n"
    "    movq 16(%rax), %rdx\n"
    "    movq 24(%rax), %rcx\n"
    "    movq 32(%rax), %r8\n"
    "    movq 40(%rax), %r9\n"
    "    movl $8, %eax\n"               /* vector registers used, for a variadic callee */
    "    callq *%rbx\n"
    "    movq -8(%rbp), %rbx\n"
    "    leave\n"
    "    ret\n"
    FUNC_END(ws_call_replay));

_Static_assert(offsetof(ws_call_frame_t, vec) == 48 &&
               offsetof(ws_call_frame_t, stack) == 176, "ws_call_frame layout");

/*
 * ws_ctx_switch(from, to): saves the callee-saved registers on the stack,
 * stores the stack pointer in from, takes to's and restores what that
 * context saved. ws_hop_switch is the same for the access stubs below,
 * with rcx the place where this context goes on when switched back to, in
 * the slot of a return address: either switch resumes the other's
 * contexts. ws_ctx_switch returns with `ret`, ws_hop_switch with an
 * indirect jump.
 */
#define SWITCH_STACKS                                                       \
    "    pushq %rbp\n"                                                      \
    "    pushq %rbx\n"                                                      \
    "    pushq %r12\n"                                                      \
    "    pushq %r13\n"                                                      \
    "    pushq %r14\n"                                                      \
    "    pushq %r15\n"                                                      \
    "    movq %rsp, (%rdi)\n"                                               \
    "    movq (%rsi), %rsp\n"                                               \
    "    popq %r15\n"                                                       \
    "    popq %r14\n"                                                       \
    "    popq %r13\n"                                                       \
    "    popq %r12\n"                                                       \
    "    popq %rbx\n"                                                       \
    "    popq %rbp\n"

__asm__(
    ".text\n"
    FUNC_BEGIN(ws_ctx_switch)
    SWITCH_STACKS
    "    ret\n"
    FUNC_END(ws_ctx_switch)
    FUNC_BEGIN(ws_hop_switch)
    "    pushq %rcx\n"
    SWITCH_STACKS
    "    popq %rcx\n"
    "    jmp *%rcx\n"
    FUNC_END(ws_hop_switch)
    /* A new context returns here first; r12 holds the entry function. */
    FUNC_BEGIN(ws_ctx_start)
    "    callq *%r12\n"
    "    ud2\n"
    FUNC_END(ws_ctx_start));

void ws_ctx_start(void);

/* Prepares c so that switching to it calls entry() on the given stack;
 * entry must never return. */
void ws_ctx_prepare(ws_ctx *c, void *stack, size_t size, void (*entry)(void))
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    uintptr_t *sp = (uintptr_t *)top;
    *--sp = (uintptr_t)ws_ctx_start;    /* where the first switch returns: then
                                           rsp is 16-byte aligned for its call */
    *--sp = 0;                          /* rbp */
    *--sp = 0;                          /* rbx */
    *--sp = (uintptr_t)entry;           /* r12 */
    *--sp = 0;                          /* r13 */
    *--sp = 0;                          /* r14 */
    *--sp = 0;                          /* r15 */
    c->sp = sp;
}

#else /* __aarch64__ */

#if defined(__APPLE__)
#define FRAME_ADDR(reg) \
    "    adrp " reg ", " SYM(ws_call_frame) "@PAGE\n" \
    "    add " reg ", " reg ", " SYM(ws_call_frame) "@PAGEOFF\n"
#else
#define FRAME_ADDR(reg) \
    "    adrp " reg ", " SYM(ws_call_frame) "\n" \
    "    add " reg ", " reg ", :lo12:" SYM(ws_call_frame) "\n"
#endif

__asm__(
    ".text\n"
    FUNC_BEGIN(ws_call_capture)
    FRAME_ADDR("x9")
    "    stp x0, x1, [x9, #0]\n"
    "    stp x2, x3, [x9, #16]\n"
    "    stp x4, x5, [x9, #32]\n"
    "    stp x6, x7, [x9, #48]\n"
    "    str x8, [x9, #64]\n"
    "    stp q0, q1, [x9, #80]\n"
    "    stp q2, q3, [x9, #112]\n"
    "    stp q4, q5, [x9, #144]\n"
    "    stp q6, q7, [x9, #176]\n"
    "    mov x10, sp\n"                 /* the caller's stack arguments */
    "    add x11, x9, #208\n"
    "    mov x12, #32\n"
    "1:  ldr x13, [x10], #8\n"
    "    str x13, [x11], #8\n"
    "    subs x12, x12, #1\n"
    "    b.ne 1b\n"
    "    ret\n"
    FUNC_END(ws_call_capture)

    FUNC_BEGIN(ws_call_replay)
    "    stp x29, x30, [sp, #-32]!\n"
    "    mov x29, sp\n"
    "    str x19, [sp, #16]\n"
    "    mov x19, x0\n"
    "    sub sp, sp, #256\n"
    FRAME_ADDR("x9")
    "    add x10, x9, #208\n"
    "    mov x11, sp\n"
    "    mov x12, #32\n"
    "1:  ldr x13, [x10], #8\n"
    "    str x13, [x11], #8\n"
    "    subs x12, x12, #1\n"
    "    b.ne 1b\n"
    "    ldp q0, q1, [x9, #80]\n"
    "    ldp q2, q3, [x9, #112]\n"
    "    ldp q4, q5, [x9, #144]\n"
    "    ldp q6, q7, [x9, #176]\n"
    "    ldr x8, [x9, #64]\n"
    "    ldp x6, x7, [x9, #48]\n"
    "    ldp x4, x5, [x9, #32]\n"
    "    ldp x2, x3, [x9, #16]\n"
    "    ldp x0, x1, [x9, #0]\n"
    "    blr x19\n"
    "    mov sp, x29\n"
    "    ldr x19, [sp, #16]\n"
    "    ldp x29, x30, [sp], #32\n"
    "    ret\n"
    FUNC_END(ws_call_replay));

_Static_assert(offsetof(ws_call_frame_t, vec) == 80 &&
               offsetof(ws_call_frame_t, stack) == 208, "ws_call_frame layout");

/*
 * ws_ctx_switch(from, to): saves x19-x30 and d8-d15 on the stack, stores
 * the stack pointer in from, takes to's and restores what that context
 * saved. ws_hop_switch is the same for the access stubs below, with x9
 * the place where this context goes on when switched back to, in x30's
 * slot: either switch resumes the other's contexts. ws_ctx_switch returns
 * with `ret`, ws_hop_switch with an indirect branch.
 */
#define SWITCH_STACKS(lr)                                                   \
    "    sub sp, sp, #160\n"                                                \
    "    stp x19, x20, [sp, #0]\n"                                          \
    "    stp x21, x22, [sp, #16]\n"                                         \
    "    stp x23, x24, [sp, #32]\n"                                         \
    "    stp x25, x26, [sp, #48]\n"                                         \
    "    stp x27, x28, [sp, #64]\n"                                         \
    "    stp x29, " lr ", [sp, #80]\n"                                      \
    "    stp d8, d9, [sp, #96]\n"                                           \
    "    stp d10, d11, [sp, #112]\n"                                        \
    "    stp d12, d13, [sp, #128]\n"                                        \
    "    stp d14, d15, [sp, #144]\n"                                        \
    "    mov x9, sp\n"                                                      \
    "    str x9, [x0]\n"                                                    \
    "    ldr x9, [x1]\n"                                                    \
    "    mov sp, x9\n"                                                      \
    "    ldp x19, x20, [sp, #0]\n"                                          \
    "    ldp x21, x22, [sp, #16]\n"                                         \
    "    ldp x23, x24, [sp, #32]\n"                                         \
    "    ldp x25, x26, [sp, #48]\n"                                         \
    "    ldp x27, x28, [sp, #64]\n"                                         \
    "    ldp x29, x30, [sp, #80]\n"                                         \
    "    ldp d8, d9, [sp, #96]\n"                                           \
    "    ldp d10, d11, [sp, #112]\n"                                        \
    "    ldp d12, d13, [sp, #128]\n"                                        \
    "    ldp d14, d15, [sp, #144]\n"                                        \
    "    add sp, sp, #160\n"

__asm__(
    ".text\n"
    FUNC_BEGIN(ws_ctx_switch)
    SWITCH_STACKS("x30")
    "    ret\n"
    FUNC_END(ws_ctx_switch)
    FUNC_BEGIN(ws_hop_switch)
    SWITCH_STACKS("x9")
    "    br x30\n"
    FUNC_END(ws_hop_switch)
    /* A new context returns here first; x19 holds the entry function. */
    FUNC_BEGIN(ws_ctx_start)
    "    blr x19\n"
    "    brk #0\n"
    FUNC_END(ws_ctx_start));

void ws_ctx_start(void);

/* Prepares c so that switching to it calls entry() on the given stack;
 * entry must never return. */
void ws_ctx_prepare(ws_ctx *c, void *stack, size_t size, void (*entry)(void))
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    uintptr_t *sp = (uintptr_t *)(top - 160);
    memset(sp, 0, 160);                 /* x20-x29 (x29 = 0 ends the frame chain), d8-d15 */
    sp[0] = (uintptr_t)entry;           /* x19 */
    sp[11] = (uintptr_t)ws_ctx_start;   /* x30: where the first switch returns */
    c->sp = sp;
}

#endif
