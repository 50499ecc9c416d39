/* Device-to-hwdb matching and consistency checks (see match.h). */
#include "match.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const struct hwdb_entry *probe_match(const struct hwdb *db, const struct kern_device *device)
{
	return hwdb_find(db, device->name);
}

static void add(struct probe_check *out, int max, int *n, const char *field, double device, double hwdb,
		double tolerance, const char *note)
{
	/* A value the runtime does not report (HIP has no blocks-per-SM limit) is not compared. */
	if (*n >= max || !(device > 0))
		return;
	struct probe_check *c = &out[(*n)++];
	memset(c, 0, sizeof *c);
	snprintf(c->field, sizeof c->field, "%s", field);
	c->device = device;
	c->hwdb = hwdb;
	c->tolerance = tolerance;
	double rel = hwdb != 0 ? fabs(device - hwdb) / fabs(hwdb) : fabs(device);
	c->ok = tolerance == 0 ? device == hwdb : rel <= tolerance;
	if (!c->ok) {
		if (note && note[0])
			snprintf(c->note, sizeof c->note, "%s", note);
		else
			snprintf(c->note, sizeof c->note, "the device reports %.10g, hwdb says %.10g", device, hwdb);
	}
}

int probe_checks(const struct kern_device *d, const struct ridge_gpu *g, struct probe_check *out, int max)
{
	int n = 0;
	char note[200];
	bool nvidia = g->vendor == RIDGE_VENDOR_NVIDIA;
	if (nvidia)
		add(out, max, &n, "compute_capability", d->cc_major * 10 + d->cc_minor, g->cc_major * 10 + g->cc_minor,
		    0, NULL);
	add(out, max, &n, "sm_count", d->sm_count, g->sm_count, 0, NULL);
	add(out, max, &n, "warp_size", d->warp_size, g->warp_size, 0, NULL);
	snprintf(note, sizeof note, "L2: the device reports %.0f B (%.1f MiB), hwdb says %.0f B (%.1f MiB)",
		 d->l2_bytes, d->l2_bytes / 1048576, g->l2_bytes, g->l2_bytes / 1048576);
	add(out, max, &n, "l2_bytes", d->l2_bytes, g->l2_bytes, 0, note);
	add(out, max, &n, "smem_per_sm", d->smem_per_sm, g->smem_per_sm, 0, NULL);
	add(out, max, &n, "smem_per_block", d->smem_per_block, g->smem_per_block, 0, NULL);
	add(out, max, &n, "smem_per_block_optin", d->smem_per_block_optin, g->smem_per_block_optin, 0, NULL);
	if (nvidia)
		add(out, max, &n, "smem_reserved_per_block", d->smem_reserved_per_block, g->nv.smem_reserved_per_block,
		    0, NULL);
	add(out, max, &n, "regs_per_sm", d->regs_per_sm, g->regs_per_sm, 0, NULL);
	add(out, max, &n, "regs_per_block", d->regs_per_block, g->regs_per_block, 0, NULL);
	add(out, max, &n, "max_threads_per_sm", d->max_threads_per_sm, g->max_threads_per_sm, 0, NULL);
	add(out, max, &n, "max_threads_per_block", d->max_threads_per_block, g->max_threads_per_block, 0, NULL);
	add(out, max, &n, "max_blocks_per_sm", d->max_blocks_per_sm, g->max_blocks_per_sm, 0, NULL);
	/* Datasheets round memory sizes (and "GB" is often GiB): 10 % tolerance. */
	snprintf(note, sizeof note, "memory: the device reports %.4g GB (%.4g GiB), hwdb says %.4g GB",
		 d->memory_bytes / 1e9, d->memory_bytes / 1073741824.0, g->memory_bytes / 1e9);
	add(out, max, &n, "memory_bytes", d->memory_bytes, g->memory_bytes, 0.10, note);
	/* The runtime's peak SM clock is the boost clock. */
	add(out, max, &n, "boost_clock_hz", d->clock_hz, g->boost_clock_hz, 0.01, NULL);
	/* Bus width x memory clock x 2 (double data rate): the theoretical bandwidth. */
	if (d->bus_width_bits > 0 && d->memory_clock_hz > 0) {
		double bw = d->bus_width_bits / 8.0 * d->memory_clock_hz * 2;
		snprintf(note, sizeof note,
			 "bus %d bit x %.0f MHz x 2 = %.3g TB/s from the driver, hwdb says %.3g TB/s",
			 d->bus_width_bits, d->memory_clock_hz / 1e6, bw / 1e12, g->memory_bandwidth / 1e12);
		add(out, max, &n, "memory_bandwidth", bw, g->memory_bandwidth, 0.05, note);
	}
	return n;
}
