/* Prints ridge-probe's --help (probe/usage.h) as ridge-probe does, for the
 * man page (scripts/gen-docs.sh): plain C, built where no nvcc is. */
#include <stdio.h>

#include "../util/help_text.h"
#include "usage.h"

int main(void)
{
	help_text_print(probe_usage_text, stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
