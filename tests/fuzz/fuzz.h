/* Shared by the fuzz harnesses: CHECK(cond) aborts with the failed invariant.
 * The message also goes through the sanitizer's report channel, which stays
 * open when a harness runs with -close_fd_mask=2 (ridge's own error messages
 * silenced: see tests/fuzz/<target>.options). */
#ifndef RIDGE_FUZZ_H
#define RIDGE_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <sanitizer/common_interface_defs.h>

#include "hwdb.h"

#define FUZZ_STR2(x) #x
#define FUZZ_STR(x) FUZZ_STR2(x)
#define CHECK(cond)                                                                                                \
	do {                                                                                                       \
		if (!(cond)) {                                                                                     \
			const char *fuzz_msg_ = "invariant failed at " __FILE__ ":" FUZZ_STR(__LINE__) ": " #cond; \
			fprintf(stderr, "%s\n", fuzz_msg_);                                                        \
			__sanitizer_report_error_summary(fuzz_msg_);                                               \
			abort();                                                                                   \
		}                                                                                                  \
	} while (0)

/* Built-in hwdb only: no user directory or $RIDGE_HWDB can change what is
 * fuzzed. Called from LLVMFuzzerInitialize, before anything opens the hwdb. */
static inline void fuzz_builtin_hwdb_only(void)
{
	setenv("XDG_CONFIG_HOME", "/nonexistent-ridge-fuzz", 1);
	unsetenv("RIDGE_HWDB");
}

/* fuzz_builtin_hwdb_only(), then opens that hwdb into db (it must load). */
static inline void fuzz_open_builtin_hwdb(struct hwdb *db)
{
	fuzz_builtin_hwdb_only();
	struct hwdb_diags diags = { 0 };
	CHECK(hwdb_open(db, NULL, &diags) == 0);
}

#endif
