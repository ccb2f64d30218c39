/*
 * ctx.c - coroutines: one stack and one saved context per emulated lane.
 *
 * On x86-64 a context switch saves the six callee-saved registers on the
 * current stack and swaps stack pointers (a few nanoseconds). Elsewhere it
 * falls back to ucontext (swapcontext), which is correct but slower.
 * Stacks are mmap'ed with a guard page below them, once, and reused.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ws_internal.h"

/* Returns a stack of size bytes (its lowest address) with an inaccessible
 * page below it, or exits. */
void *ws_stack_alloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "warpsim: cannot map a lane stack of %zu bytes\n", size);
        exit(2);
    }
    mprotect(p, page, PROT_NONE);
    return p + page;
}

#if defined(__x86_64__)

/* ws_ctx_switch(from, to): save callee-saved registers, switch stacks. */
__asm__(
    ".text\n"
    ".globl ws_ctx_switch\n"
    ".type ws_ctx_switch, @function\n"
    "ws_ctx_switch:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    movq %rsp, (%rdi)\n"
    "    movq (%rsi), %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size ws_ctx_switch, .-ws_ctx_switch\n"
    /* A new context returns here first; r12 holds the entry function. */
    ".globl ws_ctx_start\n"
    ".type ws_ctx_start, @function\n"
    "ws_ctx_start:\n"
    "    callq *%r12\n"
    "    ud2\n"
    ".size ws_ctx_start, .-ws_ctx_start\n");

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

#else /* ucontext fallback */

#include <ucontext.h>

void ws_ctx_prepare(ws_ctx *c, void *stack, size_t size, void (*entry)(void))
{
    ucontext_t *uc = c->uc;
    if (!uc) {
        uc = calloc(1, sizeof *uc);
        if (!uc) {
            fprintf(stderr, "warpsim: out of host memory\n");
            exit(2);
        }
        c->uc = uc;
    }
    getcontext(uc);
    uc->uc_stack.ss_sp = stack;
    uc->uc_stack.ss_size = size;
    uc->uc_link = NULL;
    makecontext(uc, entry, 0);
}

void ws_ctx_switch(ws_ctx *from, ws_ctx *to)
{
    if (!from->uc) {
        from->uc = calloc(1, sizeof(ucontext_t));
        if (!from->uc) {
            fprintf(stderr, "warpsim: out of host memory\n");
            exit(2);
        }
    }
    swapcontext(from->uc, to->uc);
}

#endif
