/*
 * shared_head.c - a red zone in front of the program's __shared__ variables.
 *
 * ws_link (mk/warpsim.mk) links this object before the program's own, so
 * that its part of the section ws_shared comes first on every compiler and
 * architecture: s[-1] on the first __shared__ array then lands here, inside
 * the section, where shadow.c reports it as out of bounds. image.c skips
 * the symbol (it is no variable); shadow.c's ws_shared_tail is the red zone
 * at the other end.
 */
#include "warpsim.h"

/* Global, so that shadow.c can leave it out of the program's shared bytes. */
char ws_shared_head[256] __attribute__((section(WS_SHARED_SECTION), aligned(16), used));
