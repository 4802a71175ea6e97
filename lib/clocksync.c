/* Two hosts' clocks compared by timestamped probes; see clocksync.h. */
#include "clocksync.h"

int64_t clocksync_offset_ns(const struct clocksync_probe *p)
{
	return ((p->t2 - p->t1) + (p->t3 - p->t4)) / 2;
}

int64_t clocksync_rtt_ns(const struct clocksync_probe *p)
{
	return (p->t4 - p->t1) - (p->t3 - p->t2);
}

int clocksync_estimate(const struct clocksync_probe *p, int n, int64_t *offset_ns,
		       int64_t *uncertainty_ns)
{
	int best = -1;

	for (int i = 0; i < n; i++) {
		if (clocksync_rtt_ns(&p[i]) < 0 || p[i].t3 < p[i].t2)
			continue;
		if (best < 0 || clocksync_rtt_ns(&p[i]) < clocksync_rtt_ns(&p[best]))
			best = i;
	}
	if (best < 0)
		return -1;
	*offset_ns = clocksync_offset_ns(&p[best]);
	*uncertainty_ns = (clocksync_rtt_ns(&p[best]) + 1) / 2;
	return 0;
}

int clocksync_too_uncertain(int64_t uncertainty_ns, int64_t clock_ns, double share)
{
	if (clock_ns < 0)
		clock_ns = -clock_ns;
	return (double)uncertainty_ns > share * (double)clock_ns;
}
