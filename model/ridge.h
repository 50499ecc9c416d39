/* libridge: the public face of ridge's analytic models and hardware database.
 * Include this one header; link with -lridge (pkg-config ridge). */
#ifndef RIDGE_H
#define RIDGE_H

#define RIDGE_VERSION "0.1.0"

#include "align.h"
#include "cost.h"
#include "gpu.h"
#include "launch.h"
#include "occupancy.h"
#include "units.h"
#include "roofline.h"
#include "intensity.h"
#include "timing.h"
#include "workload.h"
#include "serve.h"

#endif
