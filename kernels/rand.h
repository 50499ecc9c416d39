/* Random inputs that the device generates and the host can recompute exactly.
 *
 * A counter-based hash (SplitMix64's finaliser) of (seed, index) gives 32
 * random bits; each encoder turns them into the bit pattern of a number of
 * known value: sign random, exponent in -3..0, mantissa random, so every value
 * is normal, nonzero and in +-[1/8, 2). The device stores the bits; the host
 * decodes the same bits to a double, exactly, with no rounding to imitate.
 * The FMA-chain helpers build their multipliers with operations that are exact
 * in the target type, so host and device agree bit for bit.
 *
 * Included by C (host) and by CUDA/HIP sources (host and device). */
#ifndef RIDGE_KERN_RAND_H
#define RIDGE_KERN_RAND_H

#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define KERN_HD static __host__ __device__ __forceinline__
#else
#define KERN_HD static inline
#endif

KERN_HD uint32_t kern_hash(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* fp32 bits: +-[1/8, 2), or [1/8, 2) when positive. */
KERN_HD uint32_t kern_bits_f32(uint64_t seed, uint64_t i, int positive)
{
	uint32_t h = kern_hash(seed, i);
	uint32_t sign = positive ? 0u : (h >> 31);
	return (sign << 31) | ((124u + ((h >> 29) & 3u)) << 23) | (h & 0x7FFFFFu);
}

/* bf16 bits (s, e8, m7): +-[1/8, 2). */
KERN_HD uint16_t kern_bits_bf16(uint64_t seed, uint64_t i)
{
	uint32_t h = kern_hash(seed, i);
	return (uint16_t)((((h >> 15) & 1u) << 15) | ((124u + ((h >> 13) & 3u)) << 7) | (h & 0x7Fu));
}

/* fp16 bits (s, e5, m10): +-[1/8, 2). */
KERN_HD uint16_t kern_bits_f16(uint64_t seed, uint64_t i)
{
	uint32_t h = kern_hash(seed, i);
	return (uint16_t)((((h >> 15) & 1u) << 15) | ((12u + ((h >> 13) & 3u)) << 10) | (h & 0x3FFu));
}

/* fp8 e4m3 bits (s, e4, m3, bias 7): +-[1/8, 2); never the NaN pattern. */
KERN_HD uint8_t kern_bits_e4m3(uint64_t seed, uint64_t i)
{
	uint32_t h = kern_hash(seed, i);
	return (uint8_t)((((h >> 7) & 1u) << 7) | ((4u + ((h >> 3) & 3u)) << 3) | (h & 7u));
}

/* fp8 e5m2 bits (s, e5, m2, bias 15): +-[1/8, 2); never inf or NaN. */
KERN_HD uint8_t kern_bits_e5m2(uint64_t seed, uint64_t i)
{
	uint32_t h = kern_hash(seed, i);
	return (uint8_t)((((h >> 7) & 1u) << 7) | ((12u + ((h >> 2) & 3u)) << 2) | (h & 3u));
}

/* tf32 values stored as fp32 bits: +-[1/8, 2) with the 13 low mantissa bits
 * zero, so the tensor cores' tf32 rounding changes nothing. */
KERN_HD uint32_t kern_bits_tf32(uint64_t seed, uint64_t i)
{
	return kern_bits_f32(seed, i, 0) & ~0x1FFFu;
}

/* int8: odd values in -15..15 (never zero; s32 sums of the wgmma test stay
 * far from overflow). */
KERN_HD uint8_t kern_bits_s8(uint64_t seed, uint64_t i)
{
	return (uint8_t)(int8_t)(2 * (int)(kern_hash(seed, i) & 15u) - 15);
}

/* fp64 bits: +-[1/8, 2) with 52 random mantissa bits. */
KERN_HD uint64_t kern_bits_f64(uint64_t seed, uint64_t i)
{
	uint64_t hi = kern_hash(seed, 2 * i), lo = kern_hash(seed, 2 * i + 1);
	return ((hi >> 31) << 63) | ((uint64_t)(1020u + ((hi >> 29) & 3u)) << 52) | ((hi & 0xFFFFFull) << 32) | lo;
}

/* FMA-chain multiplier b in [1 - 2^-11, 1 - 2^-12), exact in fp32:
 * 1 - (1 + j/4096) / 4096 needs 24 significant bits. */
KERN_HD float kern_chain_b_f32(uint64_t seed, uint64_t i)
{
	float j = (float)(kern_hash(seed, i) >> 20);
	return 1.0f - (1.0f + j * 0x1p-12f) * 0x1p-12f;
}

KERN_HD double kern_chain_b_f64(uint64_t seed, uint64_t i)
{
	double j = (double)(kern_hash(seed, i) >> 20);
	return 1.0 - (1.0 + j * 0x1p-12) * 0x1p-12;
}

/* For half: b in [1 - 2^-5 * 15/8, 1 - 2^-5], 11 significant bits (exact in fp16). */
KERN_HD float kern_chain_b_f16(uint64_t seed, uint64_t i)
{
	float j = (float)(kern_hash(seed, i) >> 29);
	return 1.0f - (1.0f + j * 0x1p-3f) * 0x1p-5f;
}

#endif
