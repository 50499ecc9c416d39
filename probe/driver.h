/* What a GPU backend needs from the machine before its runtime can answer:
 * the vendor's driver library and its device files. Checked only after the
 * runtime failed, so the message can say what is missing instead of the
 * runtime's own text (CUDA says "driver version is insufficient" when there is
 * no driver at all). */
#ifndef RIDGE_PROBE_DRIVER_H
#define RIDGE_PROBE_DRIVER_H

#include <stddef.h>

/* Returns 0 when backend's ("cuda", "hip") driver library loads and a device
 * file exists; otherwise -1 with what was looked for and not found in why
 * ("no NVIDIA driver or GPU found: looked for libcuda.so.1 (...) and
 * /dev/nvidia0... (none)"). */
int probe_driver_check(const char *backend, char *why, size_t why_len);

/* The runtime's message without the "file.cu:32: expression: " prefix that
 * kern_fail() puts before it: what a user reads. */
const char *probe_runtime_message(const char *err);

#endif
