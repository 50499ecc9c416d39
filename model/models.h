/* Every analytic model of ridge, and the library's version: what the
 * layers above model/ include to call them. The installed public header
 * <ridge/ridge.h> (include/ridge/ridge.h) is this plus the hardware
 * database. */
#ifndef RIDGE_MODELS_H
#define RIDGE_MODELS_H

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
#include "fleet.h"
#include "workload.h"
#include "serve.h"
#include "serve_sim.h"
#include "serve_plan.h"
#include "train_plan.h"
/* RIDGE_VERSION of the library linked at run time (the header's may differ). */
const char *ridge_version(void);

#endif
