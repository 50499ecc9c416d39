/* The roofline: attainable = min(peak(dtype), intensity x bandwidth(level)).
 *
 * A ceiling is one compute rate (a dtype on the matrix or vector path) and one
 * memory level's bandwidth; its ridge point is where the two meet. A kernel is
 * placed by its FLOPs and bytes (or its arithmetic intensity alone), and, when
 * its bytes at several levels are known, against each level: the binding
 * resource is the one that needs the most time (the hierarchical roofline).
 *
 * Pure functions; every error is returned with a message. Formulas and the
 * source of every number: docs/models/roofline.md. */
#ifndef RIDGE_ROOFLINE_H
#define RIDGE_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu.h"

enum ridge_level { RIDGE_LEVEL_HBM, RIDGE_LEVEL_L2, RIDGE_LEVEL_SMEM, RIDGE_LEVEL_COUNT };

/* NVIDIA's L1 moves data in 128-byte wavefronts (four 32-byte sectors of one
 * 128-byte line); a global load's bytes are counted in sectors. */
#define RIDGE_L1_WAVEFRONT_BYTES 128
#define RIDGE_SECTOR_BYTES 32

/* "hbm", "l2", "smem" (the --level spellings); NULL when out of range. */
const char *roofline_level_name(enum ridge_level level);
/* "HBM", "L2", "shared memory": for people. */
const char *roofline_level_label(enum ridge_level level);
/* Case-insensitive; false when unknown. */
bool roofline_level_parse(const char *text, enum ridge_level *out);
/* "hbm l2 smem". */
const char *roofline_level_list(void);

/* The whole-GPU bandwidth of a memory level: HBM is memory_bandwidth; L2 and
 * shared memory only where the entry has them (a calibration measures them;
 * spec sheets do not publish them). Returns false with a static reason when
 * unknown; never invents a value. */
bool roofline_bandwidth(const struct ridge_gpu *gpu, enum ridge_level level, double *bytes_per_s, const char **why);

/* The L1 / shared-memory data path of an NVIDIA GPU whose entry has no
 * measured smem_bandwidth: 128 bytes (one wavefront) per clock per SM x
 * sm_count x the vector clock. Since Volta the SM's L1 and shared memory are
 * one unit whose data stage returns one 128-byte wavefront a clock (32 banks
 * x 4 bytes: CUDA C++ Programming Guide, compute capabilities 7.x-12.x,
 * "Shared Memory"); global loads that hit L1 take the same stage. On the H200
 * ridge-probe measured 32.65 TB/s against the 33.45 derived. False (why set)
 * for other vendors (CDNA's vector L1 and LDS are separate units) and for an
 * entry without SMs or a vector clock. */
bool roofline_smem_bandwidth_derived(const struct ridge_gpu *gpu, double *bytes_per_s, const char **why);

/* The HBM bandwidth a kernel whose DRAM traffic is write_fraction writes
 * (writes / (reads + writes), 0..1) can reach: piecewise-linear between the
 * entry's measured mixes (reads only at 0, triad at 1/3, copy at 1/2, writes
 * only at 1; reads only defaults to memory_bandwidth), constant past the last
 * one. memory_bandwidth when the entry has no mix (spec sheets) or
 * write_fraction is outside 0..1 (unknown: pass -1). On the H200 the read
 * kernel streams at 4.50 TB/s and copy at 3.93 (probe/README.md). */
double roofline_hbm_bandwidth(const struct ridge_gpu *gpu, double write_fraction);

enum ridge_bound { RIDGE_BOUND_MEMORY, RIDGE_BOUND_COMPUTE };
/* "memory", "compute". */
const char *roofline_bound_name(enum ridge_bound bound);

struct ridge_roofline_ceiling {
	enum ridge_dtype dtype;
	bool matrix; /* the matrix (tensor-core) rate; false: vector */
	bool sparse; /* 2:4 structured sparse rate */
	enum ridge_level level;
	double peak_flops;  /* FLOP/s (OP/s for int8) */
	double bandwidth;   /* bytes/s */
	double ridge_point; /* FLOP/byte = peak_flops / bandwidth */
};

/* The ceiling for dtype on the path kind (RIDGE_PEAK_DEFAULT: the matrix rate
 * where the GPU has one) against level. Returns 0, or -1 with err when the GPU
 * has no such rate (fp8 on an A100) or the level's bandwidth is unknown. */
int roofline_ceiling(const struct ridge_gpu *gpu, enum ridge_dtype dtype, enum ridge_peak_kind kind, bool sparse,
		     enum ridge_level level, struct ridge_roofline_ceiling *out, char *err, size_t err_len);

/* A ceiling from explicit numbers (both finite and > 0). */
int roofline_ceiling_from(double peak_flops, double bandwidth, struct ridge_roofline_ceiling *out, char *err,
			  size_t err_len);

/* min(peak, intensity x bandwidth). */
double roofline_attainable(double peak_flops, double bandwidth, double intensity);
/* Memory-bound when intensity < ridge point; at or above it, compute-bound. */
enum ridge_bound roofline_bound(const struct ridge_roofline_ceiling *ceiling, double intensity);

struct ridge_roofline_point {
	double intensity;        /* FLOP/byte */
	double attainable_flops; /* FLOP/s */
	enum ridge_bound bound;
	double headroom; /* ridge_point / intensity: > 1 below the ridge */

	bool has_work; /* flops and bytes were given (not just an intensity) */
	double flops, bytes;
	double compute_time_s; /* flops / peak */
	double memory_time_s;  /* bytes / bandwidth */
	double time_floor_s;   /* max of the two */

	bool has_time; /* a measured time was given */
	double time_s;
	double achieved_flops;         /* flops / time */
	double achieved_bandwidth;     /* bytes / time */
	double fraction_of_attainable; /* achieved / attainable */
	double fraction_of_peak;       /* achieved / peak */
	double fraction_of_bandwidth;  /* achieved_bandwidth / bandwidth */
};

/* Places work of flops FLOPs moving bytes bytes. time_s <= 0 means "no
 * measurement"; a measured time must be finite. flops and bytes must be finite
 * and > 0. Returns 0, or -1 with err naming the bad value. */
int roofline_place(const struct ridge_roofline_ceiling *ceiling, double flops, double bytes, double time_s,
		   struct ridge_roofline_point *out, char *err, size_t err_len);

/* Places an arithmetic intensity alone (finite, > 0). */
int roofline_place_intensity(const struct ridge_roofline_ceiling *ceiling, double intensity,
			     struct ridge_roofline_point *out, char *err, size_t err_len);

/* The hierarchical roofline: one compute time and a time per memory level
 * whose bytes are known; the binding resource is the one with the largest
 * time. A level with bytes but no known bandwidth is reported, not placed. */
struct ridge_roofline_level {
	bool has_bytes;
	double bytes;
	bool has_bandwidth;
	double bandwidth;
	double write_fraction; /* HBM: the write share the bandwidth was read at; -1 when the
				  writes are unknown or the entry has no mix (spec sheets) */
	const char *why;       /* why the bandwidth is unknown; placed: where a derived one comes from */
	bool derived;          /* the bandwidth is roofline_smem_bandwidth_derived's, not the entry's */
	bool placed;           /* has_bytes && has_bandwidth */
	double intensity, ridge_point, time_s, attainable_flops;
	enum ridge_bound bound;
};

struct ridge_roofline_hierarchy {
	double peak_flops, flops;
	double compute_time_s;
	struct ridge_roofline_level levels[RIDGE_LEVEL_COUNT];
	int binding;             /* -1: compute; otherwise an enum ridge_level */
	double time_floor_s;     /* the largest time */
	double attainable_flops; /* flops / time_floor_s */
};

/* bytes[level] < 0 means unknown at that level. flops must be finite and > 0;
 * at least one level must have bytes. Shared memory without a measured
 * bandwidth is placed at roofline_smem_bandwidth_derived's (derived set). hbm_write_bytes, the writes among the
 * HBM bytes, picks the HBM bandwidth by roofline_hbm_bandwidth(); < 0 means
 * unknown (the plain memory bandwidth). */
int roofline_hierarchy(const struct ridge_gpu *gpu, double peak_flops, double flops,
		       const double bytes[RIDGE_LEVEL_COUNT], double hbm_write_bytes,
		       struct ridge_roofline_hierarchy *out, char *err, size_t err_len);

/* "compute", or the level's label: the binding resource of a hierarchy. */
const char *roofline_binding_name(const struct ridge_roofline_hierarchy *h);

#endif
