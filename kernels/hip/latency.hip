/* The pointer chases (KERN_LATENCY, _SMEM, _HOPS) for HIP: the portable code
 * of kernels/common/latency.h with plain and agent-coherent loads and
 * wall_clock64(). Built, never run (no AMD GPU was available). */
#include "../common/latency.h"
