/* The pointer chases (KERN_LATENCY, _SMEM, _HOPS) for CUDA: the portable
 * code of kernels/common/latency.h with ld.global.ca/.cg and %globaltimer. */
#include "../common/latency.h"
