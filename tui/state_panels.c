/* The panels computed from model/ beyond the hardware table. */
#include "panels.h"

void tui_compute_panels(struct tui_state *s)
{
	(void)s;
}
