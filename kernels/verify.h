/* Host side of verification, shared by the backends: decoding the random
 * inputs of kernels/rand.h to doubles, the reference results in double
 * precision, and the normwise relative error. Plain C, no GPU. */
#ifndef RIDGE_KERN_VERIFY_H
#define RIDGE_KERN_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

double kern_decode_f32(uint32_t bits);
double kern_decode_bf16(uint16_t bits);
double kern_decode_f16(uint16_t bits);
double kern_decode_e4m3(uint8_t bits);
double kern_decode_e5m2(uint8_t bits);
double kern_decode_f64(uint64_t bits);

/* Element i of an array filled by the device from seed, as a double. */
enum kern_elem {
	KERN_ELEM_F32,
	KERN_ELEM_F32_POSITIVE,
	KERN_ELEM_BF16,
	KERN_ELEM_F16,
	KERN_ELEM_E4M3,
	KERN_ELEM_F64,
	KERN_ELEM_E5M2,
	KERN_ELEM_TF32,
	KERN_ELEM_S8
};
double kern_value(enum kern_elem type, uint64_t seed, uint64_t i);

/* Normwise relative error sqrt(sum (out - ref)^2 / sum ref^2), accumulated
 * one element at a time; a NaN or infinite output makes it infinite. */
struct kern_error {
	double diff2, ref2;
	int bad; /* non-finite outputs seen */
};
void kern_error_add(struct kern_error *e, double out, double ref);
double kern_error_value(const struct kern_error *e);

/* x after n steps of x = x * b + c, from x0: b^n x0 + c (1 - b^n) / (1 - b). */
double kern_chain_reference(double x0, double b, double c, long n);

/* The bf16 m16n8k16 fragments of mma.sync (PTX ISA, "Matrix fragments for
 * mma.m16n8k16"): lane l's register r (a0..a3, b0, b1) holds two bf16 of A
 * (16x16, row-major) or B (16x8, K x N); element 0 is the low half. Fills the
 * (row, col) of each half. Used to build the reference of the mma kernel. */
void kern_mma_a_coords(int lane, int reg, int half, int *row, int *col);
void kern_mma_b_coords(int lane, int reg, int half, int *k, int *n);
/* Accumulator c0..c3 of lane l: (row, col) of the 16x8 result. */
void kern_mma_c_coords(int lane, int reg, int *row, int *col);

/* wgmma m64nNk16 fp32 accumulators: thread t (0..127) of the warpgroup, register
 * r (0..N/2-1): (row, col) of the 64xN result. */
void kern_wgmma_d_coords(int thread, int reg, int *row, int *col);

/* AMD v_mfma_f32_32x32x8bf16_1k (wave64): lane l holds A[l%32][4*(l/32)+j],
 * B[4*(l/32)+j][l%32] (j = 0..3) and 16 accumulators; accumulator r is
 * D[8*(r/4) + 4*(l/32) + r%4][l%32]. */
void kern_mfma_d_coords(int lane, int reg, int *row, int *col);

#ifdef __cplusplus
}
#endif

#endif
