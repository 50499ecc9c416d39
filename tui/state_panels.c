/* The panels computed from model/ beyond the hardware table. */
#include "panels.h"

void tui_compute_panels(struct tui_state *s)
{
	tui_compute_roofline(s);
	tui_compute_occupancy(s);
	tui_compute_align(s);
	tui_compute_cost(s);
}
