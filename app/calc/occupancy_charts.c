/* ridge occupancy --sweep and --svg: occupancy over block sizes, registers and shared memory, as a table and as SVG charts. */
#include "occupancy_calc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "app.h"
#include "demangle.h"
#include "report.h"
#include "svg.h"
#include "json_fields.h"
#include "occupancy_internal.h"

/* ------------------------------------------------------------ sweep / svg */

int occupancy_sweep_rows(const struct ridge_occupancy_device *dev, const struct ridge_occupancy_input *in,
			 struct sweep_row *rows, int max)
{
	struct ridge_occupancy_input t = *in;
	int n = 0;
	char err[256];
	for (int threads = dev->warp_size; threads <= dev->max_threads_per_block && n < max;
	     threads += dev->warp_size) {
		t.threads_per_block = threads;
		if (occupancy_device_compute(dev, &t, &rows[n].r, err, sizeof err) != 0)
			continue;
		rows[n].threads = threads;
		n++;
	}
	return n;
}

/* One chart: occupancy (0..100%) against x; points (xs, ys) as steps. */
static void chart(struct svg *s, double top, const char *title, const char *xlabel, const double *xs, const double *ys,
		  int n, double x_max, double mark_x, double mark_y)
{
	const double left = 70, right = s->width - 30, height = 220, bottom = top + height;
	svg_text(s, left, top - 12, 14, "start", "#000000", title);
	svg_rect(s, left, top, right - left, height, "#fbfbfb", "#999999");
	char label[48];
	for (int p = 0; p <= 100; p += 25) {
		double y = svg_linear_scale(p, 0, 100, bottom, top);
		svg_line(s, left, y, right, y, "#dddddd", 1, p != 0 && p != 100);
		snprintf(label, sizeof label, "%d%%", p);
		svg_text(s, left - 8, y + 4, 11, "end", "#444444", label);
	}
	/* ticks at a power of two, at most 8 of them (sizes read best in KiB) */
	double tick = 1;
	while (x_max / tick > 8)
		tick *= 2;
	for (double v = 0; v <= x_max + 1e-9; v += tick) {
		double x = svg_linear_scale(v, 0, x_max, left, right);
		if (x_max >= 16384)
			snprintf(label, sizeof label, "%.0f KiB", v / 1024);
		else
			snprintf(label, sizeof label, "%.0f", v);
		svg_text(s, x, bottom + 16, 11, "middle", "#444444", label);
	}
	svg_text(s, (left + right) / 2, bottom + 34, 12, "middle", "#000000", xlabel);
	/* steps: each value holds until the next x */
	double *px = malloc(sizeof(double) * (size_t)(2 * n + 2));
	double *py = malloc(sizeof(double) * (size_t)(2 * n + 2));
	if (!px || !py) {
		free(px);
		free(py);
		s->failed = true;
		return;
	}
	int m = 0;
	for (int i = 0; i < n; i++) {
		double x = svg_linear_scale(xs[i], 0, x_max, left, right);
		double y = svg_linear_scale(ys[i] * 100, 0, 100, bottom, top);
		if (m > 0) {
			px[m] = x;
			py[m] = py[m - 1];
			m++;
		}
		px[m] = x;
		py[m] = y;
		m++;
	}
	svg_polyline(s, px, py, m, "#1f6fb4", 2);
	free(px);
	free(py);
	double mx = svg_linear_scale(mark_x, 0, x_max, left, right);
	double my = svg_linear_scale(mark_y * 100, 0, 100, bottom, top);
	svg_line(s, mx, top, mx, bottom, "#d62728", 1, true);
	svg_circle(s, mx, my, 5, "#d62728", "#ffffff");
	snprintf(label, sizeof label, "this kernel: %.1f%%", mark_y * 100);
	svg_text(s, mx + (mx > (left + right) / 2 ? -6 : 6), top + 14, 11, mx > (left + right) / 2 ? "end" : "start",
		 "#d62728", label);
}

int occupancy_write_svg(const char *path, const struct ridge_occupancy_device *dev, const struct ridge_gpu *g,
			const struct ridge_occupancy_input *in, const struct ridge_occupancy_result *now,
			struct app_status *st)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	enum { MAX_POINTS = 4096 };
	double *xs = malloc(sizeof(double) * MAX_POINTS), *ys = malloc(sizeof(double) * MAX_POINTS);
	if (!xs || !ys) {
		free(xs);
		free(ys);
		app_error_env(st, "out of memory while drawing '%s'", path);
		return -1;
	}
	struct svg s;
	char title[256], err[256];
	snprintf(title, sizeof title, "Occupancy on %s: %d threads, %d %s, %.0f B %s", g->id, in->threads_per_block,
		 amd ? now->amd.vgprs_unified : in->regs_per_thread, amd ? "VGPRs" : "registers",
		 in->static_smem + in->dynamic_smem, amd ? "LDS" : "shared memory");
	svg_begin(&s, 760, 3 * 300 + 60, title);
	svg_text(&s, 380, 28, 16, "middle", "#000000", title);
	struct ridge_occupancy_input t;
	struct ridge_occupancy_result r;
	int n = 0;

	/* 1: block size */
	t = *in;
	for (int threads = 1; threads <= g->max_threads_per_block && n < MAX_POINTS; threads++) {
		t.threads_per_block = threads;
		if (occupancy_device_compute(dev, &t, &r, err, sizeof err) == 0) {
			xs[n] = threads;
			ys[n++] = r.occupancy;
		}
	}
	chart(&s, 70, amd ? "Occupancy vs threads per workgroup" : "Occupancy vs threads per block",
	      amd ? "threads per workgroup" : "threads per block", xs, ys, n, g->max_threads_per_block,
	      in->threads_per_block, now->occupancy);

	/* 2: registers per thread (AMD: unified VGPRs) */
	t = *in;
	n = 0;
	int max_regs = amd ? g->amd.vgprs_per_lane : g->nv.max_regs_per_thread;
	for (int regs = 0; regs <= max_regs && n < MAX_POINTS; regs++) {
		t.regs_per_thread = regs;
		if (amd) {
			t.agprs = regs > max_regs / 2 ? regs - max_regs / 2 : 0;
			t.regs_per_thread = regs - t.agprs;
		}
		if (occupancy_device_compute(dev, &t, &r, err, sizeof err) == 0) {
			xs[n] = regs;
			ys[n++] = r.occupancy;
		}
	}
	chart(&s, 370, amd ? "Occupancy vs VGPRs (ArchVGPR + AGPR)" : "Occupancy vs registers per thread",
	      amd ? "VGPRs" : "registers per thread", xs, ys, n, max_regs,
	      amd ? now->amd.vgprs_unified : in->regs_per_thread, now->occupancy);

	/* 3: shared memory per block (static kept, dynamic varied; past the
	 * per-block limit nothing launches) */
	t = *in;
	n = 0;
	double limit = amd ? g->smem_per_block : (in->optin ? g->smem_per_block_optin : g->smem_per_block);
	double step = amd ? g->amd.lds_granule : g->nv.smem_alloc_unit;
	for (double bytes = 0; bytes <= limit && n < MAX_POINTS; bytes += step) {
		if (bytes < in->static_smem) {
			t.static_smem = bytes;
			t.dynamic_smem = 0;
		} else {
			t.static_smem = in->static_smem;
			t.dynamic_smem = bytes - in->static_smem;
		}
		if (occupancy_device_compute(dev, &t, &r, err, sizeof err) == 0) {
			xs[n] = bytes;
			ys[n++] = r.occupancy;
		}
	}
	chart(&s, 670, amd ? "Occupancy vs LDS per workgroup" : "Occupancy vs shared memory per block",
	      amd ? "LDS per workgroup" : "static + dynamic shared memory per block", xs, ys, n, limit,
	      in->static_smem + in->dynamic_smem, now->occupancy);
	svg_end(&s);
	free(xs);
	free(ys);
	int rc = svg_save(&s, path, st);
	svg_free(&s);
	return rc;
}
