/* NVML through dlopen (see monitor.h). The few NVML declarations are written
 * here rather than taken from nvml.h so the probe builds where the header is
 * absent; they follow NVML's stable C ABI (nvmlReturn_t is an int, 0 success;
 * NVML_CLOCK_SM is 1). */
#include "monitor.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define NVML_CLOCK_SM 1

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_handle_fn)(const char *pci, void **dev);
typedef int (*nvml_string_fn)(char *buf, unsigned len);
typedef int (*nvml_uint_fn)(void *dev, unsigned *v);
typedef int (*nvml_clock_fn)(void *dev, int type, unsigned *mhz);
typedef int (*nvml_reasons_fn)(void *dev, unsigned long long *reasons);
typedef int (*nvml_uuid_fn)(void *dev, char *uuid, unsigned len);

void monitor_open(struct monitor *m, const char *pci_bus_id, struct probe_result *r)
{
	memset(m, 0, sizeof *m);
	r->nvml = false;
	m->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!m->lib) {
		snprintf(m->why, sizeof m->why,
			 "NVML not available (dlopen libnvidia-ml.so.1 failed): SM clock and power not recorded");
		return;
	}
	nvml_init_fn init = (nvml_init_fn)dlsym(m->lib, "nvmlInit_v2");
	nvml_handle_fn by_pci = (nvml_handle_fn)dlsym(m->lib, "nvmlDeviceGetHandleByPciBusId_v2");
	nvml_string_fn driver = (nvml_string_fn)dlsym(m->lib, "nvmlSystemGetDriverVersion");
	nvml_clock_fn max_clock = (nvml_clock_fn)dlsym(m->lib, "nvmlDeviceGetMaxClockInfo");
	nvml_uint_fn limit = (nvml_uint_fn)dlsym(m->lib, "nvmlDeviceGetEnforcedPowerLimit");
	nvml_uuid_fn uuid = (nvml_uuid_fn)dlsym(m->lib, "nvmlDeviceGetUUID");
	m->get_clock = (nvml_clock_fn)dlsym(m->lib, "nvmlDeviceGetClockInfo");
	m->get_power = (nvml_uint_fn)dlsym(m->lib, "nvmlDeviceGetPowerUsage");
	m->get_reasons = (nvml_reasons_fn)dlsym(m->lib, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!m->get_reasons)
		m->get_reasons = (nvml_reasons_fn)dlsym(m->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	m->shutdown = (int (*)(void))dlsym(m->lib, "nvmlShutdown");
	if (!init || !by_pci || !m->get_clock || !m->get_power || !m->shutdown) {
		snprintf(m->why, sizeof m->why,
			 "NVML is missing functions the probe needs: SM clock and power not recorded");
		dlclose(m->lib);
		m->lib = NULL;
		return;
	}
	int rc = init();
	if (rc != 0) {
		snprintf(m->why, sizeof m->why, "nvmlInit_v2 failed (NVML error %d): SM clock and power not recorded",
			 rc);
		dlclose(m->lib);
		m->lib = NULL;
		return;
	}
	rc = by_pci(pci_bus_id, &m->device);
	if (rc != 0) {
		snprintf(m->why, sizeof m->why,
			 "NVML does not know PCI device %s (error %d): SM clock and power not recorded", pci_bus_id,
			 rc);
		m->shutdown();
		dlclose(m->lib);
		m->lib = NULL;
		return;
	}
	m->ok = true;
	r->nvml = true;
	if (!driver || driver(r->driver, sizeof r->driver) != 0)
		snprintf(r->driver, sizeof r->driver, "unknown");
	/* The GPU's UUID names it in a fleet's results (ridge-probe --out-dir). */
	if (!uuid || uuid(m->device, m->uuid, sizeof m->uuid) != 0)
		m->uuid[0] = '\0';
	unsigned v = 0;
	if (max_clock && max_clock(m->device, NVML_CLOCK_SM, &v) == 0)
		r->max_sm_clock_mhz = v;
	if (limit && limit(m->device, &v) == 0)
		r->power_limit_w = v / 1000.0;
}

void monitor_close(struct monitor *m)
{
	if (m->lib) {
		m->shutdown();
		dlclose(m->lib);
	}
	m->lib = NULL;
	m->ok = false;
}

void monitor_begin(struct monitor *m)
{
	m->samples = 0;
	m->reasons = 0;
}

void monitor_sample(void *user)
{
	struct monitor *m = user;
	if (!m->ok || m->samples >= MONITOR_MAX_SAMPLES)
		return;
	unsigned mhz = 0, mw = 0;
	if (m->get_clock(m->device, NVML_CLOCK_SM, &mhz) != 0 || m->get_power(m->device, &mw) != 0)
		return;
	unsigned long long reasons = 0;
	if (m->get_reasons && m->get_reasons(m->device, &reasons) == 0)
		m->reasons |= reasons;
	m->clock[m->samples] = mhz;
	m->power[m->samples] = mw / 1000.0;
	m->samples++;
}

void monitor_end(struct monitor *m, struct probe_env *env)
{
	memset(env, 0, sizeof *env);
	if (!m->ok || m->samples == 0)
		return;
	struct probe_stats c, p;
	if (probe_stats_compute(m->clock, m->samples, &c) || probe_stats_compute(m->power, m->samples, &p))
		return;
	env->samples = m->samples;
	env->clock_mhz_median = c.median;
	env->clock_mhz_min = c.min;
	env->clock_mhz_max = c.max;
	env->power_w_median = p.median;
	env->power_w_max = p.max;
	env->clock_events = m->reasons;
}
