/* libridge: the public face of ridge's analytic models and hardware database.
 * Include this one header, <ridge/ridge.h> once installed; link with
 * $(pkg-config --libs ridge) (add --static for libridge.a). It declares
 * everything needed to load the hardware database (hwdb_open, hwdb_find) and
 * call every model; examples/libridge/occupancy.c is a whole program. The
 * headers it brings in are installed beside it, under <ridge/...>, and are
 * reached only through it. */
#ifndef RIDGE_H
#define RIDGE_H

#include "models.h"
#include "hwdb.h"

#endif
