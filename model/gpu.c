#include "gpu.h"
#include "names.h"

#include <strings.h>

static const char *const dtype_names[RIDGE_DTYPE_COUNT] = {
	"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4",
};

/* Storage bytes per element; tf32 is stored as a 4-byte float. */
static const double dtype_bytes[RIDGE_DTYPE_COUNT] = { 8, 4, 4, 2, 2, 1, 1, 0.5 };

MODEL_NAMED_ENUM(ridge_dtype_name, ridge_dtype_parse, enum ridge_dtype, dtype_names, 0, RIDGE_DTYPE_COUNT)

double ridge_dtype_bytes(enum ridge_dtype dtype)
{
	if ((int)dtype < 0 || dtype >= RIDGE_DTYPE_COUNT)
		return 0;
	return dtype_bytes[dtype];
}

const char *ridge_dtype_list(void)
{
	return "fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4";
}

bool ridge_gpu_peak(const struct ridge_gpu *gpu, enum ridge_dtype dtype, enum ridge_peak_kind kind, bool sparse,
		    double *flops_per_s, const char **why)
{
	static const char no_dtype[] = "the GPU has no hardware path for this dtype";
	static const char no_vector[] = "the GPU has no vector (non-matrix) rate for this dtype";
	static const char no_matrix[] = "the GPU has no matrix (tensor-core) rate for this dtype";
	static const char no_sparse[] = "the GPU has no sparse matrix rate for this dtype";
	static const char sparse_vector[] = "sparsity applies to matrix rates only";

	if ((int)dtype < 0 || dtype >= RIDGE_DTYPE_COUNT) {
		if (why)
			*why = no_dtype;
		return false;
	}
	const struct ridge_peak *p = &gpu->peak[dtype];
	if (kind == RIDGE_PEAK_VECTOR) {
		if (sparse) {
			if (why)
				*why = sparse_vector;
			return false;
		}
		if (!p->has_vector) {
			if (why)
				*why = p->has_matrix ? no_vector : no_dtype;
			return false;
		}
		*flops_per_s = p->vector;
		return true;
	}
	if (sparse) {
		if (!p->has_matrix_sparse) {
			if (why)
				*why = no_sparse;
			return false;
		}
		*flops_per_s = p->matrix_sparse;
		return true;
	}
	if (p->has_matrix) {
		*flops_per_s = p->matrix;
		return true;
	}
	if (kind == RIDGE_PEAK_MATRIX || !p->has_vector) {
		if (why)
			*why = p->has_vector ? no_matrix : no_dtype;
		return false;
	}
	*flops_per_s = p->vector;
	return true;
}

void ridge_gpu_hbm_mixes(const struct ridge_gpu *gpu, struct ridge_hbm_mix out[RIDGE_HBM_MIXES])
{
	out[0] = (struct ridge_hbm_mix){ "read_bandwidth", "read", 0.0, gpu->has_read_bandwidth, gpu->read_bandwidth };
	out[1] = (struct ridge_hbm_mix){ "triad_bandwidth", "triad 2:1", 1.0 / 3.0, gpu->has_triad_bandwidth,
					 gpu->triad_bandwidth };
	out[2] = (struct ridge_hbm_mix){ "copy_bandwidth", "copy 1:1", 0.5, gpu->has_copy_bandwidth,
					 gpu->copy_bandwidth };
	out[3] = (struct ridge_hbm_mix){ "write_bandwidth", "write", 1.0, gpu->has_write_bandwidth,
					 gpu->write_bandwidth };
}

bool ridge_gpu_has_hbm_mix(const struct ridge_gpu *gpu)
{
	return gpu->has_read_bandwidth || gpu->has_triad_bandwidth || gpu->has_copy_bandwidth ||
	       gpu->has_write_bandwidth;
}

static const char *const topology_names[RIDGE_TOPOLOGY_COUNT] = { NULL, "switch", "mesh", "bridge", "pcie" };

MODEL_NAMED_ENUM(ridge_topology_name, ridge_topology_parse, enum ridge_topology, topology_names, 1,
		 RIDGE_TOPOLOGY_COUNT)

static const char *const provenance_names[RIDGE_PROVENANCE_COUNT] = { "floor", "measured", "sourced", "transferred",
								      "what-if" };

MODEL_NAMED_ENUM(ridge_provenance_name, ridge_provenance_parse, enum ridge_provenance, provenance_names, 0,
		 RIDGE_PROVENANCE_COUNT)

enum ridge_provenance ridge_power_provenance(const char *text)
{
	enum ridge_provenance p = RIDGE_PROVENANCE_MEASURED;
	if (text[0] && !ridge_provenance_parse(text, &p))
		p = RIDGE_PROVENANCE_TRANSFERRED;
	return p;
}

static const char *const collective_names[RIDGE_COLLECTIVE_COUNT] = {
	"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv",
};
static const char *const collective_keys[RIDGE_COLLECTIVE_COUNT] = {
	"allreduce", "allgather", "reducescatter", "alltoall", "sendrecv",
};

const char *ridge_collective_name(enum ridge_collective op)
{
	if ((int)op < 0 || op >= RIDGE_COLLECTIVE_COUNT)
		return NULL;
	return collective_names[op];
}

const char *ridge_collective_key(enum ridge_collective op)
{
	if ((int)op < 0 || op >= RIDGE_COLLECTIVE_COUNT)
		return NULL;
	return collective_keys[op];
}

double ridge_gpu_usable_memory(const struct ridge_gpu *gpu)
{
	return gpu->has_usable_memory ? gpu->usable_memory_bytes : gpu->memory_bytes;
}
