/* Clocks and durations; see timeutil.h. */
#include "timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int parse_duration_ns(const char *s, int64_t *ns)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {
		{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}, {"", 1e9},
	};
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			double r = v * units[i].mult;
			if (r > 9.2e18)
				return -1;
			*ns = (int64_t)llround(r);
			return 0;
		}
	}
	return -1;
}
