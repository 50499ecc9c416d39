/* The pointer-chase chains of the latency kernels (kernels/common/latency.h),
 * in plain C for the host and the device, so the unit tests check exactly
 * what the backends use: the random single cycle, where each element sits,
 * the host's walk, the hop count of the verification run and the checksum
 * that verifies every link of a chain the device wrote.
 *
 * How a chase is verified (both checks exact):
 * 1. the chain: the device sums weight(i) x (byte offset element i points to)
 *    over all elements, modulo 2^64, and the host sums the same over its own
 *    cycle (kern_chase_checksum). Every weight is odd, so one wrong link
 *    always changes the sum; several wrong links cancel with probability
 *    about 2^-64.
 * 2. the walk: every run's end element is compared with the host's walk of
 *    the cycle over the same loads, and the first run makes a number of loads
 *    that is not a multiple of the cycle's length (kern_chase_verify_hops),
 *    since any single cycle walked a multiple of its length ends where it
 *    started, whatever the links say.
 *
 * Included by C (host) and by CUDA/HIP sources. */
#ifndef RIDGE_KERN_CHASE_H
#define RIDGE_KERN_CHASE_H

#include <stddef.h>
#include <stdint.h>

#include "rand.h"

#define KERN_CHASE_LINE 128

/* Byte offset of element i of a chain of one element per stride bytes: at
 * strides of several lines (pages) each element sits at a random line of its
 * stride, so the L2 sets stay spread. */
KERN_HD uint64_t kern_chase_offset(uint64_t seed, uint64_t i, uint64_t stride)
{
	uint64_t lines = stride / KERN_CHASE_LINE;
	return i * stride + (lines > 1 ? (kern_hash(seed, i) % lines) * KERN_CHASE_LINE : 0);
}

/* The weight of element i in the chain checksum: 64 random bits, odd. */
KERN_HD uint64_t kern_chase_weight(uint64_t seed, uint64_t i)
{
	return ((uint64_t)kern_hash(seed ^ 0x6C8E9CF570932BD5ull, i) << 32 |
		kern_hash(seed ^ 0x2545F4914F6CDD1Dull, i)) |
	       1u;
}

/* Host only from here. A random single cycle over count elements (Sattolo's
 * algorithm over the kern_hash stream): next[i] is the element after i. */
static inline void kern_chase_cycle(uint32_t *next, size_t count, uint64_t seed)
{
	for (size_t i = 0; i < count; i++)
		next[i] = (uint32_t)i;
	if (count < 2)
		return;
	for (size_t i = count - 1; i > 0; i--) {
		uint64_t r = ((uint64_t)kern_hash(seed, 2 * i) << 32) | kern_hash(seed, 2 * i + 1);
		size_t j = (size_t)(r % i);
		uint32_t t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
}

/* The element reached from `from` after hops steps. */
static inline size_t kern_chase_walk(const uint32_t *next, size_t from, long hops)
{
	size_t at = from;
	for (long i = 0; i < hops; i++)
		at = next[at];
	return at;
}

/* The hop count of the verification run: hops, or one more where hops is a
 * multiple of the cycle's length (count >= 2). */
static inline long kern_chase_verify_hops(long hops, size_t count)
{
	return count >= 2 && (size_t)hops % count == 0 ? hops + 1 : hops;
}

/* The checksum a correct chain has: the sum over i of
 * kern_chase_weight(seed, i) x kern_chase_offset(seed, next[i], stride),
 * modulo 2^64 (the device sums the byte offsets its chain holds). */
static inline uint64_t kern_chase_checksum(const uint32_t *next, size_t count, uint64_t stride, uint64_t seed)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < count; i++)
		sum += kern_chase_weight(seed, i) * kern_chase_offset(seed, next[i], stride);
	return sum;
}

#endif
