#include "report.h"

#include <stdio.h>

#include "cli.h"

const report_section_fn report_sections[] = {
	report_hardware,
	report_roofline,
	report_align,
	report_cost,
	report_occupancy,
};
const size_t report_section_count = sizeof report_sections / sizeof report_sections[0];

void report_hardware(const struct ridge_gpu *g)
{
	char bw[48], mem[48], l2[48];
	cli_format_si(g->memory_bandwidth, "B/s", bw, sizeof bw);
	cli_format_bytes(g->memory_bytes, mem, sizeof mem);
	cli_format_bytes(g->l2_bytes, l2, sizeof l2);
	printf("== %s (%s): %s ceilings ==\n", g->name, g->id, cli_ceiling_source(g));
	printf("%d %s, %s %s at %s, L2 %s\n", g->sm_count, g->vendor == RIDGE_VENDOR_AMD ? "CUs" : "SMs", mem, g->memory_type,
	       bw, l2);
	printf("%-6s %14s %14s %22s\n", "dtype", "matrix TF/s", "vector TF/s", "ridge point (FLOP/B)");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		double rate;
		if (!ridge_gpu_peak(g, (enum ridge_dtype)d, RIDGE_PEAK_DEFAULT, false, &rate, NULL))
			continue;
		char m[32] = "-", v[32] = "-";
		if (p->has_matrix)
			snprintf(m, sizeof m, "%.1f", p->matrix / 1e12);
		if (p->has_vector)
			snprintf(v, sizeof v, "%.1f", p->vector / 1e12);
		printf("%-6s %14s %14s %22.1f\n", ridge_dtype_name((enum ridge_dtype)d), m, v, rate / g->memory_bandwidth);
	}
}
