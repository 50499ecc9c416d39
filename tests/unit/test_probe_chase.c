/* kernels/chase.h: the pointer-chase chains of the latency kernels and their
 * verification. The chain the device writes is imitated here by the same
 * offsets (kern_chase_offset) in host memory, summed the way the device's
 * aux_chain_checksum sums it.
 *
 * Why the checks are what they are (2026-12-01, H200): latency_hops failed
 * its check twice in about six runs. The old check compared only where one
 * walk ended, and for every chase but latency_hops the walk was a whole
 * number of turns of the cycle, which ends at the start on any single cycle:
 * a chain built from the wrong next[] (the documented race of a pageable
 * cudaMemcpy against the probe's non-blocking stream, now closed in
 * kernels/common/latency.h) passed everywhere but there. Now every chase
 * checks every link and every run.
 */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "../../kernels/chase.h"

static uint32_t *cycle(size_t count, uint64_t seed)
{
	uint32_t *next = malloc(count * sizeof *next);
	assert_non_null(next);
	kern_chase_cycle(next, count, seed);
	return next;
}

/* Sattolo's algorithm gives one cycle through every element, for any seed. */
static void test_cycle_is_single(void **state)
{
	(void)state;
	static const size_t counts[] = { 2, 3, 16, 128, 1000, 32768 };
	char *seen = malloc(32768);
	assert_non_null(seen);
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
		for (uint64_t seed = 1; seed <= 5; seed++) {
			size_t count = counts[c];
			uint32_t *next = cycle(count, seed * 0x9E37u);
			memset(seen, 0, count);
			size_t at = 0, steps = 0;
			do {
				assert_true(next[at] < count);
				assert_int_equal(seen[at], 0);
				seen[at] = 1;
				at = next[at];
				steps++;
			} while (at != 0 && steps <= count);
			assert_int_equal(steps, count);
			free(next);
		}
	free(seen);
}

/* The verification run's hop count is never a whole number of turns, and is
 * the timed count where that is none already. */
static void test_verify_hops(void **state)
{
	(void)state;
	assert_int_equal(kern_chase_verify_hops(16384, 128), 16385);
	assert_int_equal(kern_chase_verify_hops(36864, 32768), 36864);
	assert_int_equal(kern_chase_verify_hops(65536, 16777216), 65536);
	for (size_t count = 2; count < 300; count++)
		for (long hops = 1; hops < 2000; hops += 7) {
			long v = kern_chase_verify_hops(hops, count);
			assert_true(v == hops || v == hops + 1);
			assert_true((size_t)v % count != 0);
		}
}

/* Two different cycles over the same elements: a whole number of turns ends
 * both at the start (what let a wrong chain pass), the verification run's
 * count tells them apart. */
static void test_walk_tells_cycles_apart(void **state)
{
	(void)state;
	static const size_t counts[] = { 16, 128, 1024, 32768 };
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		size_t count = counts[c];
		uint32_t *right = cycle(count, 11), *stale = cycle(count, 12);
		long hops = count >= 16384 ? (long)count : 16384;
		assert_int_equal(kern_chase_walk(right, 0, hops), 0);
		assert_int_equal(kern_chase_walk(stale, 0, hops), 0);
		long v = kern_chase_verify_hops(hops, count);
		assert_true(kern_chase_walk(right, 0, v) != kern_chase_walk(stale, 0, v));
		/* Going on from where a run ended is the walk of the sum. */
		size_t mid = kern_chase_walk(right, 0, 1000);
		assert_int_equal(kern_chase_walk(right, mid, 234), kern_chase_walk(right, 0, 1234));
		free(right);
		free(stale);
	}
}

/* The chain as the device's aux_chain writes it, and its checksum as
 * aux_chain_checksum computes it (offsets relative to the chain's start). */
static uint64_t device_style_checksum(const uint32_t *next, size_t count, uint64_t stride, uint64_t seed)
{
	size_t bytes = count * stride;
	uint64_t *chain = calloc(bytes / 8, 8);
	assert_non_null(chain);
	uintptr_t base = (uintptr_t)chain;
	for (size_t i = 0; i < count; i++)
		chain[kern_chase_offset(seed, i, stride) / 8] = base + kern_chase_offset(seed, next[i], stride);
	uint64_t sum = 0;
	for (size_t i = 0; i < count; i++)
		sum += kern_chase_weight(seed, i) * (chain[kern_chase_offset(seed, i, stride) / 8] - base);
	free(chain);
	return sum;
}

static void test_checksum_of_written_chain(void **state)
{
	(void)state;
	static const struct {
		size_t count;
		uint64_t stride;
	} cases[] = { { 128, 128 }, { 32768, 128 }, { 1024, 4 }, { 16, 2097152 }, { 64, 8 } };
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		uint64_t seed = 0x1234 + c;
		uint32_t *next = cycle(cases[c].count, seed);
		uint64_t want = kern_chase_checksum(next, cases[c].count, cases[c].stride, seed);
		if (cases[c].stride >= 8)
			assert_true(device_style_checksum(next, cases[c].count, cases[c].stride, seed) == want);
		/* A chain built from another cycle (the old contents of next[]). */
		uint32_t *stale = cycle(cases[c].count, seed + 1000);
		assert_true(kern_chase_checksum(stale, cases[c].count, cases[c].stride, seed) != want);
		free(stale);
		free(next);
	}
}

/* Every single wrong link changes the checksum (the weights are odd). */
static void test_checksum_every_link(void **state)
{
	(void)state;
	const size_t count = 64;
	const uint64_t stride = 2097152, seed = 77;
	uint32_t *next = cycle(count, seed);
	uint64_t want = kern_chase_checksum(next, count, stride, seed);
	for (size_t i = 0; i < count; i++) {
		uint32_t keep = next[i];
		for (uint32_t j = 0; j < count; j++) {
			if (j == keep)
				continue;
			next[i] = j;
			assert_true(kern_chase_checksum(next, count, stride, seed) != want);
		}
		next[i] = keep;
	}
	/* A half-arrived array: the first half right, the rest zeros. */
	memset(next + count / 2, 0, count / 2 * sizeof *next);
	assert_true(kern_chase_checksum(next, count, stride, seed) != want);
	free(next);
}

/* Elements sit in their own stride; at page strides on a line of it. */
static void test_offsets(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 1000; i++) {
		assert_true(kern_chase_offset(5, i, 128) == i * 128);
		assert_true(kern_chase_offset(5, i, 4) == i * 4);
		uint64_t o = kern_chase_offset(5, i, 2097152);
		assert_true(o >= i * 2097152 && o < (i + 1) * 2097152 && o % KERN_CHASE_LINE == 0);
		assert_true(kern_chase_weight(5, i) % 2 == 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycle_is_single),         cmocka_unit_test(test_verify_hops),
		cmocka_unit_test(test_walk_tells_cycles_apart), cmocka_unit_test(test_checksum_of_written_chain),
		cmocka_unit_test(test_checksum_every_link),     cmocka_unit_test(test_offsets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
