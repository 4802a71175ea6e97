/* Clocks and durations; see timeutil.h. */
#include "timeutil.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int64_t timespec_to_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC};

	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NSEC_PER_SEC;
	}
	return ts;
}

int64_t now_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return timespec_to_ns(&ts);
}

int64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return timespec_to_ns(&ts);
}

int sleep_until_mono(int64_t deadline_ns, volatile int *stop)
{
	struct timespec ts = ns_to_timespec(deadline_ns);

	for (;;) {
		if (stop && *stop)
			return -1;
		int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (rc == 0)
			return 0;
		if (rc != EINTR)
			return -1;
	}
}

/* duration_unit: the unit at *s (its letters, any case) in ns; advances
 * *s past it. 0 if there is none, -1 if it is not a unit. */
static int64_t duration_unit(const char **s)
{
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = {
	    {"ns", 1},
	    {"us", NSEC_PER_USEC},
	    {"ms", NSEC_PER_MSEC},
	    {"s", NSEC_PER_SEC},
	    {"m", 60 * NSEC_PER_SEC},
	    {"h", 3600 * NSEC_PER_SEC},
	    {"d", 86400 * NSEC_PER_SEC},
	    {"w", 604800 * NSEC_PER_SEC},
	};
	size_t n = 0;

	while (isalpha((unsigned char)(*s)[n]))
		n++;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strlen(units[i].name) == n && strncasecmp(*s, units[i].name, n) == 0) {
			*s += n;
			return units[i].ns;
		}
	}
	return -1;
}

/* duration_exp: "1e3" and the like, as strtod(3) read them in the
 * grammar of before, times unit. 0 and *v, or -1. */
static int duration_exp(const char *num, size_t len, int64_t unit, int64_t *v)
{
	char buf[64];
	double r;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, num, len);
	buf[len] = '\0';
	r = strtod(buf, NULL) * (double)unit;
	if (!isfinite(r) || r > 9.2e18)
		return -1;
	*v = (int64_t)llround(r);
	return 0;
}

int parse_duration_ns(const char *s, int64_t *ns)
{
	const int64_t max = INT64_MAX;
	int64_t total = 0;
	int parts = 0;

	if (s == NULL || *s == '\0')
		return -1;
	while (*s) {
		int64_t whole = 0, unit, v, frac_ns = 0;
		const char *digits = s, *frac = NULL, *end;
		size_t nfrac = 0;
		int exp = 0;

		while (isdigit((unsigned char)*s)) {
			int d = *s++ - '0';

			if (whole > (max - d) / 10)
				return -1;
			whole = whole * 10 + d;
		}
		if (*s == '.') {
			frac = ++s;
			while (isdigit((unsigned char)*s))
				s++;
			nfrac = (size_t)(s - frac);
		}
		if (s == digits || (frac && s == digits + 1))
			return -1; /* no digits */
		if ((*s == 'e' || *s == 'E') &&
		    (isdigit((unsigned char)s[1]) ||
		     ((s[1] == '+' || s[1] == '-') && isdigit((unsigned char)s[2])))) {
			for (s += 2; isdigit((unsigned char)*s); s++)
				;
			exp = 1;
		}
		end = s;
		unit = duration_unit(&s);
		if (unit < 0)
			return -1;
		if (unit == 0) {
			/* a bare number: seconds, alone or after the units */
			if (*s != '\0' || (parts > 0 && (frac || exp)))
				return -1;
			unit = NSEC_PER_SEC;
		}
		if (exp) {
			if (duration_exp(digits, (size_t)(end - digits), unit, &v) == -1)
				return -1;
		} else {
			if (whole > max / unit)
				return -1;
			v = whole * unit;
		}
		/* the fraction, to the nearest nanosecond, exactly */
		if (nfrac && !exp) {
			__int128 f = 0, scale = 1;

			for (size_t i = 0; i < nfrac && i < 18; i++) {
				f = f * 10 + (frac[i] - '0');
				scale *= 10;
			}
			frac_ns = (int64_t)((f * unit + scale / 2) / scale);
		}
		if (v > max - frac_ns || total > max - v - frac_ns)
			return -1;
		total += v + frac_ns;
		parts++;
	}
	*ns = total;
	return 0;
}

int parse_ttl(const char *s, uint32_t *ttl)
{
	int64_t ns;

	if (parse_duration_ns(s, &ns) == -1 || ns % NSEC_PER_SEC != 0 ||
	    ns / NSEC_PER_SEC > 0x7fffffff)
		return -1;
	*ttl = (uint32_t)(ns / NSEC_PER_SEC);
	return 0;
}
