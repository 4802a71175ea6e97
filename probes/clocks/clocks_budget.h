/*
 * What a scheme's failure costs against an error budget (clocks_budget.c;
 * docs/clocks.md, "Budget"): the failed requests as an equivalent
 * downtime (failed / the scheme's mean request rate), beside the window,
 * each as a share of the monthly budget of a stated SLO (99.9 %: 43.2 min
 * in a 30-day month). A count that is unknown is CLOCKS_NONE; a ratio that
 * is unknown is negative.
 */
#ifndef STEERLAB_CLOCKS_BUDGET_H
#define STEERLAB_CLOCKS_BUDGET_H

#include <stdint.h>

struct clocks_input;
struct clocks_result;

#define CLOCKS_MONTH_S (30.0 * 86400.0)
#define CLOCKS_SLO_DEFAULT 99.9

struct clocks_budget {
	double slo_pct;			    /* e.g. 99.9 */
	double budget_s;		    /* (100 - slo_pct) % of CLOCKS_MONTH_S */
	int64_t sent, failed;		    /* records; failed = lost (client) + errors */
	int64_t traffic_ns;		    /* how long the clients sent */
	double rate_per_s;		    /* sent / traffic time */
	double downtime_s;		    /* failed / rate_per_s */
	int64_t window_ns;		    /* the scheme's window */
	int64_t window_sent, window_failed; /* records sent in (t0, t0 + window] */
	double window_lost;		    /* window_failed / window_sent */
	double share_downtime;		    /* downtime_s / budget_s */
	double share_window;		    /* window / budget_s */
};

/* clocks_budget: the error budget of scheme result r (computed from in)
 * at slo_pct (0 < slo_pct < 100) into *b; pure arithmetic. */
void clocks_budget(const struct clocks_input *in, const struct clocks_result *r, double slo_pct,
		   struct clocks_budget *b);

#endif
