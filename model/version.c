/* ridge_version (ridge.h): the version compiled into the library. */
#include "models.h"

const char *ridge_version(void)
{
	return RIDGE_VERSION;
}
