#include "roofline.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <strings.h>

static const char *const level_names[RIDGE_LEVEL_COUNT] = { "hbm", "l2", "smem" };
static const char *const level_labels[RIDGE_LEVEL_COUNT] = { "HBM", "L2", "shared memory" };

const char *roofline_level_label(enum ridge_level level)
{
	return model_name_of(level_labels, 0, RIDGE_LEVEL_COUNT, (int)level);
}

MODEL_NAMED_ENUM(roofline_level_name, roofline_level_parse, enum ridge_level, level_names, 0, RIDGE_LEVEL_COUNT)

const char *roofline_level_list(void)
{
	return "hbm l2 smem";
}

bool roofline_bandwidth(const struct ridge_gpu *gpu, enum ridge_level level, double *bytes_per_s, const char **why)
{
	static const char no_l2[] = "its entry has no L2 bandwidth (spec sheets do not publish one; "
				    "a ridge-probe calibration measures it)";
	static const char no_smem[] = "its entry has no shared-memory bandwidth (spec sheets do not publish one; "
				      "a ridge-probe calibration measures it)";
	static const char no_hbm[] = "its entry has no memory bandwidth";
	static const char bad_level[] = "unknown memory level";

	switch (level) {
	case RIDGE_LEVEL_HBM:
		if (!(gpu->memory_bandwidth > 0)) {
			if (why)
				*why = no_hbm;
			return false;
		}
		*bytes_per_s = gpu->memory_bandwidth;
		return true;
	case RIDGE_LEVEL_L2:
		if (!gpu->has_l2_bandwidth || !(gpu->l2_bandwidth > 0)) {
			if (why)
				*why = no_l2;
			return false;
		}
		*bytes_per_s = gpu->l2_bandwidth;
		return true;
	case RIDGE_LEVEL_SMEM:
		if (!gpu->has_smem_bandwidth || !(gpu->smem_bandwidth > 0)) {
			if (why)
				*why = no_smem;
			return false;
		}
		*bytes_per_s = gpu->smem_bandwidth;
		return true;
	default:
		if (why)
			*why = bad_level;
		return false;
	}
}

bool roofline_smem_bandwidth_derived(const struct ridge_gpu *gpu, double *bytes_per_s, const char **why)
{
	static const char derived[] = "derived: 128 B per clock per SM (the L1 / shared-memory data path) x SMs x "
				      "the vector clock; no calibration measured it";
	static const char not_nvidia[] = "its entry has no shared-memory bandwidth (spec sheets do not publish "
					 "one; a ridge-probe calibration measures it)";
	if (gpu->vendor != RIDGE_VENDOR_NVIDIA || gpu->sm_count <= 0 || !(gpu->vector_clock_hz > 0)) {
		if (why)
			*why = not_nvidia;
		return false;
	}
	*bytes_per_s = RIDGE_L1_WAVEFRONT_BYTES * gpu->sm_count * gpu->vector_clock_hz;
	if (why)
		*why = derived;
	return true;
}

const char *roofline_bound_name(enum ridge_bound bound)
{
	return bound == RIDGE_BOUND_MEMORY ? "memory" : "compute";
}

static bool positive_finite(double v)
{
	return isfinite(v) && v > 0;
}

/* 0, or -1 with "WHAT V is not a positive finite number" in err. */
static int require_positive(double v, const char *what, char *err, size_t err_len)
{
	if (positive_finite(v))
		return 0;
	snprintf(err, err_len, "%s %g is not a positive finite number", what, v);
	return -1;
}

int roofline_ceiling_from(double peak_flops, double bandwidth, struct ridge_roofline_ceiling *out, char *err,
			  size_t err_len)
{
	if (require_positive(peak_flops, "peak rate", err, err_len) ||
	    require_positive(bandwidth, "bandwidth", err, err_len))
		return -1;
	out->peak_flops = peak_flops;
	out->bandwidth = bandwidth;
	out->ridge_point = peak_flops / bandwidth;
	return 0;
}

int roofline_ceiling(const struct ridge_gpu *gpu, enum ridge_dtype dtype, enum ridge_peak_kind kind, bool sparse,
		     enum ridge_level level, struct ridge_roofline_ceiling *out, char *err, size_t err_len)
{
	const char *why = NULL;
	double peak, bandwidth;
	const char *name = ridge_dtype_name(dtype);
	if (!name) {
		snprintf(err, err_len, "unknown dtype");
		return -1;
	}
	if (!ridge_gpu_peak(gpu, dtype, kind, sparse, &peak, &why)) {
		snprintf(err, err_len, "%s has no %s%s%s rate: %s", gpu->id, sparse ? "sparse " : "",
			 kind == RIDGE_PEAK_VECTOR   ? "vector "
			 : kind == RIDGE_PEAK_MATRIX ? "matrix "
						     : "",
			 name, why);
		return -1;
	}
	if (!roofline_bandwidth(gpu, level, &bandwidth, &why)) {
		snprintf(err, err_len, "%s has no %s bandwidth: %s", gpu->id, level_labels[level], why);
		return -1;
	}
	if (roofline_ceiling_from(peak, bandwidth, out, err, err_len) != 0)
		return -1;
	const struct ridge_peak *p = &gpu->peak[dtype];
	out->dtype = dtype;
	out->sparse = sparse;
	/* ridge_gpu_peak picks the matrix rate whenever one exists, unless asked for the vector one. */
	out->matrix = sparse || (kind != RIDGE_PEAK_VECTOR && p->has_matrix);
	out->level = level;
	return 0;
}

double roofline_attainable(double peak_flops, double bandwidth, double intensity)
{
	double memory_roof = intensity * bandwidth;
	return memory_roof < peak_flops ? memory_roof : peak_flops;
}

enum ridge_bound roofline_bound(const struct ridge_roofline_ceiling *ceiling, double intensity)
{
	return intensity < ceiling->ridge_point ? RIDGE_BOUND_MEMORY : RIDGE_BOUND_COMPUTE;
}

static void place_intensity(const struct ridge_roofline_ceiling *c, double intensity, struct ridge_roofline_point *out)
{
	*out = (struct ridge_roofline_point){ 0 };
	out->intensity = intensity;
	out->attainable_flops = roofline_attainable(c->peak_flops, c->bandwidth, intensity);
	out->bound = roofline_bound(c, intensity);
	out->headroom = c->ridge_point / intensity;
}

int roofline_place_intensity(const struct ridge_roofline_ceiling *ceiling, double intensity,
			     struct ridge_roofline_point *out, char *err, size_t err_len)
{
	if (require_positive(intensity, "intensity", err, err_len) != 0)
		return -1;
	place_intensity(ceiling, intensity, out);
	return 0;
}

int roofline_place(const struct ridge_roofline_ceiling *ceiling, double flops, double bytes, double time_s,
		   struct ridge_roofline_point *out, char *err, size_t err_len)
{
	if (require_positive(flops, "FLOP count", err, err_len) || require_positive(bytes, "byte count", err, err_len))
		return -1;
	if (!isfinite(time_s)) {
		snprintf(err, err_len, "time %g is not finite", time_s);
		return -1;
	}
	double intensity = flops / bytes;
	if (!isfinite(intensity)) {
		snprintf(err, err_len, "overflow: %g FLOP / %g bytes is too large an intensity to represent", flops,
			 bytes);
		return -1;
	}
	if (!positive_finite(intensity)) {
		snprintf(err, err_len, "intensity %g FLOP/byte (%g FLOP / %g bytes) is out of range", intensity, flops,
			 bytes);
		return -1;
	}
	place_intensity(ceiling, intensity, out);
	out->has_work = true;
	out->flops = flops;
	out->bytes = bytes;
	out->compute_time_s = flops / ceiling->peak_flops;
	out->memory_time_s = bytes / ceiling->bandwidth;
	out->time_floor_s = out->compute_time_s > out->memory_time_s ? out->compute_time_s : out->memory_time_s;
	if (time_s > 0) {
		out->has_time = true;
		out->time_s = time_s;
		out->achieved_flops = flops / time_s;
		out->achieved_bandwidth = bytes / time_s;
		out->fraction_of_attainable = out->achieved_flops / out->attainable_flops;
		out->fraction_of_peak = out->achieved_flops / ceiling->peak_flops;
		out->fraction_of_bandwidth = out->achieved_bandwidth / ceiling->bandwidth;
		/* A time so short that the achieved rates overflow is an input
		 * error: say so, rather than hand back inf (or inf/inf = nan). */
		if (!isfinite(out->achieved_flops) || !isfinite(out->achieved_bandwidth) ||
		    !isfinite(out->fraction_of_attainable) || !isfinite(out->fraction_of_peak) ||
		    !isfinite(out->fraction_of_bandwidth)) {
			snprintf(err, err_len,
				 "overflow: a time of %g s for %g FLOP and %g bytes gives rates too large to represent",
				 time_s, flops, bytes);
			return -1;
		}
	}
	return 0;
}

double roofline_hbm_bandwidth(const struct ridge_gpu *gpu, double write_fraction)
{
	if (!(write_fraction >= 0 && write_fraction <= 1))
		return gpu->memory_bandwidth;
	/* The measured points, in order of write fraction; reads only falls
	 * back to the ceiling. */
	struct ridge_hbm_mix mix[RIDGE_HBM_MIXES];
	ridge_gpu_hbm_mixes(gpu, mix);
	if (!mix[0].has) {
		mix[0].has = true;
		mix[0].bandwidth = gpu->memory_bandwidth;
	}
	int below = 0; /* the last point at or below write_fraction */
	for (int i = 1; i < RIDGE_HBM_MIXES; i++)
		if (mix[i].has && mix[i].write_fraction <= write_fraction)
			below = i;
	int above = -1; /* the first point past it */
	for (int i = RIDGE_HBM_MIXES - 1; i > below; i--)
		if (mix[i].has)
			above = i;
	if (above < 0)
		return mix[below].bandwidth;
	double t =
		(write_fraction - mix[below].write_fraction) / (mix[above].write_fraction - mix[below].write_fraction);
	return mix[below].bandwidth + t * (mix[above].bandwidth - mix[below].bandwidth);
}

int roofline_hierarchy(const struct ridge_gpu *gpu, double peak_flops, double flops,
		       const double bytes[RIDGE_LEVEL_COUNT], double hbm_write_bytes,
		       struct ridge_roofline_hierarchy *out, char *err, size_t err_len)
{
	if (require_positive(peak_flops, "peak rate", err, err_len) ||
	    require_positive(flops, "FLOP count", err, err_len))
		return -1;
	/* Compute alone binds until a level takes longer. */
	*out = (struct ridge_roofline_hierarchy){ .peak_flops = peak_flops,
						  .flops = flops,
						  .compute_time_s = flops / peak_flops,
						  .binding = -1,
						  .time_floor_s = flops / peak_flops };
	int known = 0;
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++) {
		struct ridge_roofline_level *l = &out->levels[i];
		l->write_fraction = -1;
		if (bytes[i] < 0)
			continue;
		if (!positive_finite(bytes[i])) {
			snprintf(err, err_len, "%s byte count %g is not a positive finite number", level_labels[i],
				 bytes[i]);
			return -1;
		}
		known++;
		l->has_bytes = true;
		l->bytes = bytes[i];
		l->intensity = flops / bytes[i];
		l->has_bandwidth = roofline_bandwidth(gpu, (enum ridge_level)i, &l->bandwidth, &l->why);
		if (!l->has_bandwidth && i == RIDGE_LEVEL_SMEM)
			l->has_bandwidth = l->derived = roofline_smem_bandwidth_derived(gpu, &l->bandwidth, &l->why);
		if (!l->has_bandwidth)
			continue;
		if (i == RIDGE_LEVEL_HBM && hbm_write_bytes >= 0 && ridge_gpu_has_hbm_mix(gpu)) {
			l->write_fraction = hbm_write_bytes < bytes[i] ? hbm_write_bytes / bytes[i] : 1.0;
			l->bandwidth = roofline_hbm_bandwidth(gpu, l->write_fraction);
		}
		l->placed = true;
		l->ridge_point = peak_flops / l->bandwidth;
		l->time_s = bytes[i] / l->bandwidth;
		l->attainable_flops = roofline_attainable(peak_flops, l->bandwidth, l->intensity);
		l->bound = l->intensity < l->ridge_point ? RIDGE_BOUND_MEMORY : RIDGE_BOUND_COMPUTE;
		if (l->time_s > out->time_floor_s) {
			out->time_floor_s = l->time_s;
			out->binding = i;
		}
	}
	if (!known) {
		snprintf(err, err_len, "no memory level has a byte count");
		return -1;
	}
	out->attainable_flops = flops / out->time_floor_s;
	return 0;
}

const char *roofline_binding_name(const struct ridge_roofline_hierarchy *h)
{
	if (h->binding < 0)
		return "compute";
	return level_labels[h->binding];
}
