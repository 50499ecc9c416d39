/* probe_driver_check: is the GPU driver there at all (probe/driver.h). */
#include "driver.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct driver_needs {
	const char *backend;
	const char *vendor;  /* "NVIDIA" */
	const char *library; /* the user-space driver the runtime dlopens */
	const char *devices; /* glob of the device files the kernel driver creates */
	const char *devices_shown;
};

/* libcuda.so.1 is what libcudart loads; /dev/nvidia0.. are created by the
 * kernel module (CUDA Installation Guide for Linux, "Device Node
 * Verification"). The HIP runtime talks to /dev/kfd (ROCm's kernel driver)
 * through libhsa-runtime64.so.1. */
static const struct driver_needs needs[] = {
	{ "cuda", "NVIDIA", "libcuda.so.1", "/dev/nvidia[0-9]*", "/dev/nvidia0, /dev/nvidia1, ..." },
	{ "hip", "AMD", "libhsa-runtime64.so.1", "/dev/kfd", "/dev/kfd" },
};

static bool devices_exist(const char *pattern)
{
	glob_t g;
	bool found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	return found;
}

int probe_driver_check(const char *backend, char *why, size_t why_len)
{
	const struct driver_needs *n = NULL;
	for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
		if (strcmp(needs[i].backend, backend) == 0)
			n = &needs[i];
	if (!n)
		return 0;
	void *lib = dlopen(n->library, RTLD_LAZY | RTLD_LOCAL);
	bool have_lib = lib != NULL;
	if (lib)
		dlclose(lib);
	bool have_devices = devices_exist(n->devices);
	if (have_lib && have_devices)
		return 0;
	snprintf(why, why_len,
		 "no %s driver or GPU found: looked for the driver library %s (%s) and the device files %s (%s)",
		 n->vendor, n->library, have_lib ? "found" : "not found", n->devices_shown,
		 have_devices ? "found" : "none");
	return -1;
}

const char *probe_runtime_message(const char *err)
{
	/* "backend.h:32: gpu(GetDeviceCount)(count): message": the message
	 * starts after the third ": " when the text begins with file:line. */
	const char *colon = strchr(err, ':');
	if (!colon || colon[1] < '0' || colon[1] > '9')
		return err;
	const char *expr = strstr(colon + 1, ": ");
	const char *msg = expr ? strstr(expr + 2, ": ") : NULL;
	return msg ? msg + 2 : err;
}
