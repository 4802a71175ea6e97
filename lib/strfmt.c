/* snprintf with a truncation check; see strfmt.h. */
#include "strfmt.h"

#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int strfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		log_warnx("string too long: '%s...'", buf);
		return -1;
	}
	return 0;
}
