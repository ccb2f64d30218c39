/*
 * stubs.c - the access hooks of a fixed size (__tsan_read4 ...), in
 * assembly: the instrumentation's entry into shadow memory and scheduling.
 *
 * When a scheduling point hands over to another lane, the stub itself
 * switches (ctx.c's ws_hop_switch), right under the lesson's code, and
 * returns into that code with an indirect jump. A `ret` there would be
 * predicted from the return stack, which holds the calls of the lane that
 * ran before: under lockstep the returns of nearly every switch were
 * mispredicted that way.
 *
 * Above shadow.c (ws_enter_*, ws_after_*, ws_untracked_*: the access's
 * scheduling point and check) and ctx.c (the switch); nothing in
 * warpsim calls the stubs: the instrumented program does.
 */
#include "ws_internal.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "warpsim runs on x86-64 and arm64 (aarch64): stubs.c has no access stubs for this processor"
#endif

#define WS_STR_(x) #x
#define WS_STR(x) WS_STR_(x)

#if defined(__x86_64__)

/*
 * An access stub, __tsan_HOOK(addr) (WS_STUB_HOOKS): an address in the
 * running lane's own stack (the stack pointer's slot) returns at once, and
 * one that is neither shared nor device memory nor that goes on to
 * ws_untracked_HOOK(addr, pc), a tail call (shadow.c: host code, the
 * program's globals, or an invalid access). Otherwise it calls
 * ws_enter_HOOK_sh or ws_enter_HOOK_gl (shared or device memory) with
 * (addr, pc), pc being its return address, and keeps addr in its frame;
 * when that returns no switch (rax 0), the stub returns. Otherwise it
 * switches from rax's context to rdx's, and once switched back calls
 * ws_after_HOOK_sh or _gl with (addr, pc) and jumps back into the lesson's
 * code. Each kind of memory has its own place to go on at: the switch's
 * jump there is the only branch that depends on which kind the lane that
 * runs again was at.
 */
#define STUB_PART(hook, mem, in, hop, on)                                   \
    in ":  push %rdi\n"                  /* addr; pc is at 24(%rsp) */       \
    "    sub $16, %rsp\n"                /* 16-byte aligned for the calls */ \
    "    mov 24(%rsp), %rsi\n"                                              \
    "    call " SYM(ws_enter_##hook##_##mem) "\n"                           \
    "    test %rax, %rax\n"                                                 \
    "    jnz " hop "f\n"                                                    \
    "    add $24, %rsp\n"                                                   \
    "    ret\n"                                                             \
    hop ":  mov %rax, %rdi\n"                                               \
    "    mov %rdx, %rsi\n"                                                  \
    "    lea " on "f(%rip), %rcx\n"                                         \
    "    jmp " SYM(ws_hop_switch) "\n"                                      \
    on ":  mov 16(%rsp), %rdi\n"                                            \
    "    mov 24(%rsp), %rsi\n"                                              \
    "    call " SYM(ws_after_##hook##_##mem) "\n"                           \
    "    add $24, %rsp\n"                                                   \
    "    pop %rcx\n"                                                        \
    "    jmp *%rcx\n"
#define STUB(hook, bytes, flags, code)                                      \
    FUNC_BEGIN(__tsan_##hook)                                               \
    "    mov %rdi, %rax\n"                                                  \
    "    sub " SYM(ws_shared_lo) "(%rip), %rax\n"                           \
    "    cmp " SYM(ws_shared_len) "(%rip), %rax\n"                          \
    "    jb 1f\n"                                                           \
    "    mov %rdi, %rax\n"                                                  \
    "    sub " SYM(ws_arena_lo) "(%rip), %rax\n"                            \
    "    cmp " SYM(ws_arena_len) "(%rip), %rax\n"                           \
    "    jb 4f\n"                                                           \
    "    mov %rdi, %rax\n"                  /* in the stack pointer's slot */ \
    "    xor %rsp, %rax\n"                                                  \
    "    shr $" WS_STR(WS_STACK_SHIFT) ", %rax\n"                            \
    "    jnz 7f\n"                                                          \
    "    ret\n"                                                             \
    STUB_PART(hook, sh, "1", "2", "3")                                      \
    STUB_PART(hook, gl, "4", "5", "6")                                      \
    "7:  mov (%rsp), %rsi\n"                /* a tail call: (addr, pc) */   \
    "    jmp " SYM(ws_untracked_##hook) "\n"                                \
    FUNC_END(__tsan_##hook)

__asm__(
    ".text\n"
    WS_STUB_HOOKS(STUB));

#else /* __aarch64__ */

#if defined(__APPLE__)
#define LOAD_GLOBAL(reg, name) \
    "    adrp " reg ", " SYM(name) "@PAGE\n" \
    "    ldr " reg ", [" reg ", " SYM(name) "@PAGEOFF]\n"
#else
#define LOAD_GLOBAL(reg, name) \
    "    adrp " reg ", " SYM(name) "\n" \
    "    ldr " reg ", [" reg ", :lo12:" SYM(name) "]\n"
#endif

/*
 * An access stub, __tsan_HOOK(addr) (WS_STUB_HOOKS): an address in the
 * running lane's own stack returns at once, one that is neither shared nor
 * device memory nor that goes on to ws_untracked_HOOK(addr, pc), as on
 * x86-64. Otherwise it calls
 * ws_enter_HOOK_sh or ws_enter_HOOK_gl (shared or device memory) with
 * (addr, pc), pc being its return address (x30), and keeps addr in its
 * frame; when that returns no switch (x0 0), the stub returns. Otherwise
 * it switches from x0's context to x1's, and once switched back calls
 * ws_after_HOOK_sh or _gl with (addr, pc) and branches back into the
 * lesson's code (each kind of memory has its own place to go on at, as
 * on x86-64).
 */
#define STUB_PART(hook, mem, in, hop, on)                                   \
    in ":  stp x29, x30, [sp, #-32]!\n"  /* pc at 8, addr at 16 */          \
    "    mov x29, sp\n"                                                     \
    "    str x0, [sp, #16]\n"                                               \
    "    mov x1, x30\n"                                                     \
    "    bl " SYM(ws_enter_##hook##_##mem) "\n"                             \
    "    cbnz x0, " hop "f\n"                                               \
    "    ldp x29, x30, [sp], #32\n"                                         \
    "    ret\n"                                                             \
    hop ":  adr x9, " on "f\n"                                              \
    "    b " SYM(ws_hop_switch) "\n"                                        \
    on ":  ldr x0, [sp, #16]\n"                                             \
    "    ldr x1, [sp, #8]\n"                                                \
    "    bl " SYM(ws_after_##hook##_##mem) "\n"                             \
    "    ldp x29, x30, [sp], #32\n"                                         \
    "    br x30\n"
#define STUB(hook, bytes, flags, code)                                      \
    FUNC_BEGIN(__tsan_##hook)                                               \
    LOAD_GLOBAL("x9", ws_shared_lo)                                         \
    LOAD_GLOBAL("x10", ws_shared_len)                                       \
    "    sub x9, x0, x9\n"                                                  \
    "    cmp x9, x10\n"                                                     \
    "    b.lo 1f\n"                                                         \
    LOAD_GLOBAL("x9", ws_arena_lo)                                          \
    LOAD_GLOBAL("x10", ws_arena_len)                                        \
    "    sub x9, x0, x9\n"                                                  \
    "    cmp x9, x10\n"                                                     \
    "    b.lo 4f\n"                                                         \
    "    mov x9, sp\n"                      /* in the stack pointer's slot */ \
    "    eor x9, x9, x0\n"                                                  \
    "    lsr x9, x9, #" WS_STR(WS_STACK_SHIFT) "\n"                          \
    "    cbnz x9, 7f\n"                                                     \
    "    ret\n"                                                             \
    STUB_PART(hook, sh, "1", "2", "3")                                      \
    STUB_PART(hook, gl, "4", "5", "6")                                      \
    "7:  mov x1, x30\n"                     /* a tail call: (addr, pc) */   \
    "    b " SYM(ws_untracked_##hook) "\n"                                  \
    FUNC_END(__tsan_##hook)

__asm__(
    ".text\n"
    WS_STUB_HOOKS(STUB));

#endif
