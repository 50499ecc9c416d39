/* libridge: the public face of ridge's analytic models and hardware database.
 * Include this one header, <ridge/ridge.h> once installed; link with
 * $(pkg-config --libs ridge) (add --static for libridge.a). It declares
 * everything needed to load the hardware database (hwdb_open, hwdb_find) and
 * call every model; examples/libridge/occupancy.c is a whole program. */
#ifndef RIDGE_H
#define RIDGE_H

#define RIDGE_VERSION "0.1.0"

#include "align.h"
#include "comm.h"
#include "parallel.h"
#include "cost.h"
#include "gpu.h"
#include "launch.h"
#include "occupancy.h"
#include "units.h"
#include "roofline.h"
#include "intensity.h"
#include "timing.h"
#include "median.h"
#include "workload.h"
#include "serve.h"
#include "hwdb.h"

/* RIDGE_VERSION of the library linked at run time (the header's may differ). */
const char *ridge_version(void);

#endif
