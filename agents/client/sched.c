/* The absolute send schedule of the client; see sched.h. */
#include "sched.h"

#include <math.h>

#include "timeutil.h"

void client_sched_init(struct client_sched *s, int64_t start_ns, double rate, int64_t duration_ns)
{
	s->start_ns = start_ns;
	s->rate = rate;
	s->total = UINT64_MAX;
	if (duration_ns > 0) {
		long double n = ceill((long double)duration_ns * rate / NSEC_PER_SEC);
		s->total = n >= 1.8e19L ? UINT64_MAX : (uint64_t)n;
		/* settle rounding on due_at's view: every k due before the end */
		while (s->total > 0 &&
		       client_sched_due_at(s, s->total - 1) >= start_ns + duration_ns)
			s->total--;
		while (s->total < UINT64_MAX &&
		       client_sched_due_at(s, s->total) < start_ns + duration_ns)
			s->total++;
	}
}

int64_t client_sched_due_at(const struct client_sched *s, uint64_t k)
{
	long double off = floorl((long double)k * NSEC_PER_SEC / s->rate);

	if (off > 9.0e18L)
		return INT64_MAX;
	return s->start_ns + (int64_t)off;
}

uint64_t client_sched_due_by(const struct client_sched *s, int64_t now_ns)
{
	long double est;
	uint64_t k;

	if (now_ns < s->start_ns)
		return 0;
	est = floorl((long double)(now_ns - s->start_ns) * s->rate / NSEC_PER_SEC) + 1;
	k = est >= (long double)s->total ? s->total : (uint64_t)est;
	/* the estimate and due_at round differently: settle on due_at's view */
	while (k > 0 && client_sched_due_at(s, k - 1) > now_ns)
		k--;
	while (k < s->total && client_sched_due_at(s, k) <= now_ns)
		k++;
	return k;
}
