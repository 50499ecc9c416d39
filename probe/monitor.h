/* Clocks and power during measurements, through NVML loaded at run time
 * (dlopen "libnvidia-ml.so.1"): the probe builds and runs without it, and
 * then says so in a note instead of failing. */
#ifndef RIDGE_PROBE_MONITOR_H
#define RIDGE_PROBE_MONITOR_H

#include <stdbool.h>

#include "probe.h"

#define MONITOR_MAX_SAMPLES 512

struct monitor {
	bool ok;
	char why[160]; /* why not, when !ok */
	char uuid[96]; /* nvmlDeviceGetUUID's ("GPU-..."), "" when NVML has none */
	void *lib, *device;
	/* loaded functions */
	int (*get_clock)(void *dev, int type, unsigned *mhz);
	int (*get_power)(void *dev, unsigned *mw);
	int (*get_reasons)(void *dev, unsigned long long *reasons);
	int (*shutdown)(void);
	/* the current measurement */
	int samples;
	double clock[MONITOR_MAX_SAMPLES], power[MONITOR_MAX_SAMPLES];
	unsigned long long reasons;
};

/* Opens NVML for the device with this PCI bus id; fills r->nvml, r->driver,
 * r->max_sm_clock_mhz, r->power_limit_w. On failure m->ok is false with why. */
void monitor_open(struct monitor *m, const char *pci_bus_id, struct probe_result *r);
void monitor_close(struct monitor *m);

/* Starts a measurement, takes one sample (the kern_sample_fn), and summarises. */
void monitor_begin(struct monitor *m);
void monitor_sample(void *monitor);
void monitor_end(struct monitor *m, struct probe_env *env);

#endif
