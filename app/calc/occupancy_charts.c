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

/* One chart: occupancy (0..100%) against x, in the x axis's unit (x_scale
 * turns a value into it); points (xs, ys) as steps; this kernel marked. */
struct occupancy_chart {
	const char *title, *x_title, *x_unit;
	double x_max, x_scale, mark_x, mark_y;
};

static void chart(struct svg *s, double top, const struct occupancy_chart *c, const double *xs, const double *ys, int n)
{
	struct svg_plot plot = {
		.left = 90,
		.top = top,
		.right = s->width - 30,
		.bottom = top + 200,
		.fill = "#fbfbfb",
		.x = { .scale = SVG_LINEAR,
		       .lo = 0,
		       .hi = c->x_max * c->x_scale,
		       .title = c->x_title,
		       .unit = c->x_unit },
		.y = { .scale = SVG_LINEAR, .lo = 0, .hi = 100, .title = "occupancy", .unit = "%" },
	};
	svg_text(s, plot.left, top - 10, 14, "start", "#000000", c->title);
	svg_plot_axes(s, &plot);
	const double left = plot.left, right = plot.right, bottom = plot.bottom;
	char label[48];
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
		double x = svg_plot_x(&plot, xs[i] * c->x_scale), y = svg_plot_y(&plot, ys[i] * 100);
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
	double mx = svg_plot_x(&plot, c->mark_x * c->x_scale), my = svg_plot_y(&plot, c->mark_y * 100);
	svg_line(s, mx, top, mx, bottom, "#d62728", 1, true);
	svg_circle(s, mx, my, 5, "#d62728", "#ffffff");
	snprintf(label, sizeof label, "this kernel: %.1f%%", c->mark_y * 100);
	svg_text_halo(s, mx + (mx > (left + right) / 2 ? -6 : 6), top + 14, 11,
		      mx > (left + right) / 2 ? "end" : "start", "#d62728", label);
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
	svg_title(&s, 28, 16, title);
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
	struct occupancy_chart by_threads = {
		amd ? "Occupancy vs threads per workgroup" : "Occupancy vs threads per block",
		amd ? "workgroup size" : "block size",
		"threads",
		g->max_threads_per_block,
		1,
		in->threads_per_block,
		now->occupancy,
	};
	chart(&s, 80, &by_threads, xs, ys, n);

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
	struct occupancy_chart by_registers = {
		amd ? "Occupancy vs VGPRs (ArchVGPR + AGPR)" : "Occupancy vs registers per thread",
		amd ? "VGPRs per lane, ArchVGPR + AGPR" : "registers per thread",
		"32-bit registers",
		max_regs,
		1,
		amd ? now->amd.vgprs_unified : in->regs_per_thread,
		now->occupancy,
	};
	chart(&s, 380, &by_registers, xs, ys, n);

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
	/* sizes read best in KiB */
	struct occupancy_chart by_smem = {
		amd ? "Occupancy vs LDS per workgroup" : "Occupancy vs shared memory per block",
		amd ? "LDS per workgroup" : "static + dynamic shared memory per block",
		limit >= 16384 ? "KiB" : "bytes",
		limit,
		limit >= 16384 ? 1.0 / 1024 : 1,
		in->static_smem + in->dynamic_smem,
		now->occupancy,
	};
	chart(&s, 680, &by_smem, xs, ys, n);
	svg_end(&s);
	free(xs);
	free(ys);
	int rc = svg_save(&s, path, st);
	svg_free(&s);
	return rc;
}
