/*
 * demos.h - what lesson 02's demonstrations agree on: which lanes take
 * part, what they vote on, which bin an element goes to. harness.cu (the
 * CPU reference) and the lesson files (the kernels) both include it, so
 * that the two can never disagree. You never edit it.
 */
#ifndef DEMOS_H
#define DEMOS_H

/* Demonstrations 1-2: lanes 0..k-1 of warp w take part; count 0 (the
 * default, -c 0) gives warp w the count (w % 32) + 1, so one run tries
 * every count from 1 to 32. */
#define COUNT_OF_WARP(count, w) ((count) != 0 ? (int)(count) : (int)((w) % 32) + 1)

/* Demonstration 3: the threshold of warp w's vote. Warps cycle through "all
 * lanes vote yes" (-1000), "all vote no" (1000), "mixed" (0) and "most vote
 * yes" (-90); the inputs lie in -100..100. Odd lanes test v > t, even lanes
 * v >= t: two different paths through an if/else. */
#define THRESHOLD_OF_WARP(w) ((w) % 4 == 0 ? -1000 : (w) % 4 == 1 ? 1000 : (w) % 4 == 2 ? 0 : -90)
#define VOTE_OF_LANE(lane, v, t) ((lane) & 1 ? (v) > (t) : (v) >= (t))

/* Demonstrations 4-5: lanes 0-15 are the producers, lanes 16-31 the others. */
#define HALF 16

/* Demonstration 4: what the watchdog saw in warp w. spun: the lanes that
 * gave up spinning; waited: the lanes that had reached their shuffle when
 * the first spinner gave up (0: they had not run at all); reached: set by
 * each producer just before its shuffle. */
typedef struct {
    unsigned spun, waited, reached, unused;
} hang_watch;

/* Demonstration 6: element i goes to bin BIN_OF(i): in even warps every lane
 * has the same bin, in odd warps the lanes spread over all NBINS bins. */
#define NBINS 8
#define BIN_OF(i) ((int)(((i) / 32) % 2 == 0 ? ((i) / 32 / 2) % NBINS : (i) % NBINS))

#endif
