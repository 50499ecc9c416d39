/* The roofline plot (ridge roofline --svg): log-log, every dtype's matrix and
 * vector ceiling, the memory slopes whose bandwidth is known, ridge points
 * marked, and the kernels placed and labelled. */
#ifndef RIDGE_ROOFLINE_SVG_H
#define RIDGE_ROOFLINE_SVG_H

#include <stdbool.h>

#include "models.h"

struct roofline_plot_point {
	const char *label;
	double intensity;        /* FLOP/byte */
	double flops;            /* FLOP/s: achieved when measured, else attainable */
	double attainable_flops; /* the roof above the point */
	bool measured;
	enum ridge_bound bound;
	/* A model's prediction drawn beside a measurement (ridge roofline
	 * --validation): a hollow diamond, no label, joined to the measured point. */
	bool predicted;
	bool has_link;
	double link_intensity, link_flops;
	/* B/s. A kernel with no FLOPs (a copy) has no place on the intensity
	 * axis: with this set it is drawn at the left edge, on the bandwidth
	 * axis, as high as its share of the memory roof there, and marked. */
	double achieved_bandwidth;
};

struct roofline_plot {
	const struct ridge_gpu *gpu;
	const char *subtitle; /* replaces the "points placed against ..." line when set */
	/* The ceiling the points were placed against: drawn bold, its ridge labelled. */
	struct ridge_roofline_ceiling focus;
	bool show_sparse; /* also draw the focus dtype's sparse rate */
	int point_count;
	const struct roofline_plot_point *points;
};

/* Draws and writes the plot atomically. Returns 0, or adds why to st and
 * returns -1. */
struct app_status;
int roofline_svg_write(const char *path, const struct roofline_plot *plot, struct app_status *st);

#endif
