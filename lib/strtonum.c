/* OpenBSD's strtonum(3); see strtonum.h. */
#include "strtonum.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

long long strtonum(const char *numstr, long long minval, long long maxval, const char **errstr)
{
	const char *errs = NULL;
	long long ll = 0;
	char *end;

	if (minval > maxval) {
		errs = "invalid";
	} else if (minval >= 0 && numstr[strspn(numstr, " \t\n\v\f\r")] == '-') {
		errs = "invalid";
	} else {
		errno = 0;
		ll = strtoll(numstr, &end, 10);
		if (numstr == end || *end != '\0')
			errs = "invalid";
		else if ((ll == LLONG_MIN && errno == ERANGE) || ll < minval)
			errs = "too small";
		else if ((ll == LLONG_MAX && errno == ERANGE) || ll > maxval)
			errs = "too large";
	}
	if (errstr != NULL)
		*errstr = errs;
	return errs ? 0 : ll;
}
