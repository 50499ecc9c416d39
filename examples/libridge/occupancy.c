/* libridge from outside: load the hardware database, compute one occupancy.
 * cc occupancy.c $(pkg-config --cflags --libs ridge) (examples/libridge/README.md) */
#include <ridge/ridge.h>
#include <stdio.h>

int main(void)
{
	struct hwdb db;
	struct hwdb_diags diags;
	if (hwdb_open(&db, NULL, &diags) != 0)
		return 3;
	const struct hwdb_entry *h100 = hwdb_find(&db, "h100-sxm");
	struct ridge_occupancy_input in;
	occupancy_input_init(&in);
	in.threads_per_block = 256;
	in.regs_per_thread = 64;
	struct ridge_occupancy_result r;
	char err[256];
	if (!h100 || occupancy_compute(&h100->gpu, &in, &r, err, sizeof err) != 0)
		return 1;
	printf("libridge %s, %s: 256 threads x 64 registers: %d blocks/SM, %.0f%% occupancy, limited by %s\n",
	       ridge_version(), h100->gpu.id, r.blocks_per_sm, 100 * r.occupancy, occupancy_limiter_name(r.limiter));
	hwdb_close(&db);
	return 0;
}
