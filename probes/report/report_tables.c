/*
 * The report's tables, one column per scheme where there are schemes (the
 * schemes the run has: an absent one has no column): the error budget, the
 * decay curve at readable marks, the upstream load per source. The
 * terminal summary and report.md print the same rows.
 */
#include <arpa/inet.h>
#include <string.h>

#include "report_int.h"
#include "timeutil.h"

#define REPORT_SHORT_RUN (120 * NSEC_PER_SEC) /* marks under 15 s up to this */

/* report_header: a table with a column per scheme present */
static void report_header(const struct report *r, struct texttable *t, const char *first)
{
	int n = 1;

	for (int i = 0; i < REPORT_NSCHEMES; i++)
		n += report_present(r, i);
	texttable_init(t, n);
	texttable_row(t);
	texttable_cell(t, "%s", first);
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		if (report_present(r, i))
			texttable_cell(t, "%s", r->res[i].scheme);
}

static void report_count_cell(struct texttable *t, int64_t v)
{
	if (v == CLOCKS_NONE)
		texttable_cell(t, "-");
	else
		texttable_cell(t, "%lld", (long long)v);
}

static void report_real_cell(struct texttable *t, double v, int decimals)
{
	if (v < 0)
		texttable_cell(t, "-");
	else
		texttable_cell(t, "%.*f", decimals, v);
}

/* report_window_cell: the window, "≥" before it when it is a lower bound */
static void report_window_cell(struct texttable *t, int64_t ns, int lb)
{
	if (ns == CLOCKS_NONE)
		texttable_cell(t, "-");
	else
		texttable_cell(t, "%s%.3f", lb ? "\u2265 " : "", (double)ns / 1e9);
}

static void report_pct_cell(struct texttable *t, double fraction)
{
	char b[32];

	texttable_cell(t, "%s", report_fmt_pct(b, sizeof(b), fraction));
}

void report_budget_table(const struct report *r, struct texttable *t)
{
	const struct clocks_budget *b[REPORT_NSCHEMES];

	report_header(r, t, "");
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		b[i] = &r->res[i].budget;
#define BROW(label, cell)                                                                          \
	do {                                                                                       \
		texttable_row(t);                                                                  \
		texttable_cell(t, "%s", label);                                                    \
		for (int i = 0; i < REPORT_NSCHEMES; i++)                                          \
			if (report_present(r, i))                                                  \
				cell;                                                              \
	} while (0)
	BROW("requests sent", report_count_cell(t, b[i]->sent));
	BROW("traffic time (s)",
	     report_real_cell(t, b[i]->traffic_ns == CLOCKS_NONE ? -1 : b[i]->traffic_ns / 1e9, 3));
	BROW("mean request rate (/s)", report_real_cell(t, b[i]->rate_per_s, 1));
	BROW("failed (lost + errors)", report_count_cell(t, b[i]->failed));
	BROW("equivalent downtime (s)", report_real_cell(t, b[i]->downtime_s, 3));
	BROW("window (s)", report_window_cell(t, b[i]->window_ns, r->res[i].window_lb));
	BROW("sent during the window", report_count_cell(t, b[i]->window_sent));
	BROW("failed of those", report_count_cell(t, b[i]->window_failed));
	BROW("window's traffic lost", report_pct_cell(t, b[i]->window_lost));
	BROW("budget used: downtime", report_pct_cell(t, b[i]->share_downtime));
	BROW("budget used: window", report_pct_cell(t, b[i]->share_window));
#undef BROW
}

void report_budget_why(const struct report *r, FILE *out)
{
	char lost[32];
	int said = 0;

	fprintf(out,
		"The window is how long *any* request still reached the dead site; the equivalent "
		"downtime is how long a total outage would have taken to fail as many requests "
		"(failed / mean request rate). They agree when every client leaves the dead site "
		"at once, so that everything sent during the window fails: one route change moves "
		"all the anycast traffic. They differ when the clients leave one by one (DNS: each "
		"cache and client when its own TTL runs out, a sticky client last), so that only "
		"part of the window's traffic fails and the downtime is shorter than the window. "
		"The window says how long some users saw errors; the downtime is what the SLO is "
		"charged.");
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		const struct clocks_budget *b = &r->res[i].budget;

		if (r->res[i].noflows || b->window_lost < 0 || b->downtime_s < 0 ||
		    b->window_ns == CLOCKS_NONE)
			continue;
		fprintf(out,
			"%s for %s, %s of what was sent during its %.3f s window failed (%.3f s "
			"of equivalent downtime)",
			said++ ? ";" : " Here:", r->res[i].scheme,
			report_fmt_pct(lost, sizeof(lost), b->window_lost),
			(double)b->window_ns / NSEC_PER_SEC, b->downtime_s);
	}
	if (said)
		fputc('.', out);
	fprintf(out, " Failed requests are those of the whole run, any cause; a run with losses "
		     "before t0 charges them too.\n");
}

/* report_mark_label: "0.5 s", "15 s", "2 min" */
static const char *report_mark_label(char *buf, size_t len, int64_t ns)
{
	char s[48];

	if (ns >= 60 * NSEC_PER_SEC && ns % (60 * NSEC_PER_SEC) == 0)
		snprintf(buf, len, "%lld min", (long long)(ns / (60 * NSEC_PER_SEC)));
	else
		snprintf(buf, len, "%s s", report_fmt_s(s, sizeof(s), ns));
	return buf;
}

void report_decay_cell(struct texttable *t, const struct clocks_decay_series *s,
		       const int64_t *count, int64_t k)
{
	char pct[32];

	if (!s->known || count == NULL)
		texttable_cell(t, "n/a");
	else if (s->all[k] == 0)
		texttable_cell(t, "no requests");
	else
		texttable_cell(
		    t, "%s (%lld of %lld)",
		    report_fmt_pct(pct, sizeof(pct), (double)count[k] / (double)s->all[k]),
		    (long long)count[k], (long long)s->all[k]);
}

static void report_decay_row(const struct report *r, struct texttable *t, int64_t at_ns,
			     const char *label)
{
	const struct clocks_decay *d = &r->decay;
	int64_t k = clocks_bucket_of(at_ns, d->bucket_ns);
	char pct[32];

	texttable_row(t);
	texttable_cell(t, "%s", label);
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		const struct clocks_decay_series *s = &d->s[i];

		if (!report_present(r, i))
			continue;
		report_decay_cell(t, s, s->dead, k);
		if (r->model_share[i] == NULL)
			continue;
		if (k < 0 || k >= (int64_t)d->n || r->model_share[i][k] < 0)
			texttable_cell(t, "-");
		else
			texttable_cell(t, "%s",
				       report_fmt_pct(pct, sizeof(pct), r->model_share[i][k]));
	}
}

int64_t report_recovered_at(const struct report *r)
{
	const struct clocks_decay *d = &r->decay;
	int64_t rec = r->in.failure.recovered_ns;

	if (rec == 0 || rec <= r->in.failure.t0_ns || rec - r->in.failure.t0_ns >= d->end_ns)
		return CLOCKS_NONE;
	return rec - r->in.failure.t0_ns;
}

/* report_marks: the marks of report_decay_marks over (0, limit], the last
 * labelled with last ("(end)") */
static int report_marks(const struct report *r, int64_t limit, const char *last_label,
			int64_t *marks, char (*labels)[REPORT_MARK_LABEL_LEN])
{
	static const int64_t marks_ms[] = {500,	  1000,	 2000,	 5000,	 10000,	 15000,	 30000,
					   45000, 60000, 120000, 300000, 600000, 1800000};
	const struct clocks_decay *d = &r->decay;
	int64_t last;
	int at_end = 0, n = 0;

	if (d->n == 0)
		return 0;
	for (size_t i = 0; i < sizeof(marks_ms) / sizeof(marks_ms[0]); i++) {
		int64_t m = marks_ms[i] * NSEC_PER_MSEC;

		if (m > limit || m < d->bucket_ns ||
		    (m < 15 * NSEC_PER_SEC && d->end_ns > REPORT_SHORT_RUN))
			continue;
		marks[n] = m;
		report_mark_label(labels[n++], REPORT_MARK_LABEL_LEN, m);
		at_end |= m == limit / d->bucket_ns * d->bucket_ns;
	}
	/* and the last whole bucket, if no mark is there */
	last = limit / d->bucket_ns * d->bucket_ns;
	if (last > 0 && !at_end) {
		marks[n] = last;
		report_mark_label(labels[n], REPORT_MARK_LABEL_LEN - 24, last);
		strcat(labels[n++], last_label);
	}
	return n;
}

int report_decay_marks(const struct report *r, int64_t *marks,
		       char (*labels)[REPORT_MARK_LABEL_LEN])
{
	int64_t rec = report_recovered_at(r);

	/* the share still sent to the dead site means nothing once the
	 * timeline brought it back: the fail-back's table takes over */
	if (rec != CLOCKS_NONE)
		return report_marks(r, rec, " (before recovery)", marks, labels);
	return report_marks(r, r->decay.end_ns, " (end)", marks, labels);
}

void report_decay_table(const struct report *r, struct texttable *t)
{
	int64_t marks[REPORT_MAX_MARKS];
	char labels[REPORT_MAX_MARKS][REPORT_MARK_LABEL_LEN];
	int n = report_decay_marks(r, marks, labels), ncols = 1;

	/* each scheme's column, then its model's when it has one */
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		ncols += report_present(r, i) * (1 + (r->model_share[i] != NULL));
	texttable_init(t, ncols);
	texttable_row(t);
	texttable_cell(t, "after t0");
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		if (!report_present(r, i))
			continue;
		texttable_cell(t, "%s", r->res[i].scheme);
		if (r->model_share[i])
			texttable_cell(t, "model");
	}
	for (int i = 0; i < n; i++)
		report_decay_row(r, t, marks[i], labels[i]);
}

int report_has_conn_decay(const struct report *r)
{
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		if (report_present(r, i) && r->decay.s[i].syn_all)
			return 1;
	return 0;
}

void report_conn_decay_table(const struct report *r, struct texttable *t)
{
	const struct clocks_decay *d = &r->decay;
	int64_t marks[REPORT_MAX_MARKS];
	char labels[REPORT_MAX_MARKS][REPORT_MARK_LABEL_LEN];
	int n = report_decay_marks(r, marks, labels);

	report_header(r, t, "after t0");
	for (int m = 0; m < n; m++) {
		int64_t last = clocks_bucket_of(marks[m], d->bucket_ns);

		texttable_row(t);
		texttable_cell(t, "%s", labels[m]);
		for (int i = 0; i < REPORT_NSCHEMES; i++) {
			const struct clocks_decay_series *s = &d->s[i];
			long long dead = 0, all = 0;

			if (!report_present(r, i))
				continue;
			if (!s->known || s->syn_all == NULL) {
				texttable_cell(t, "n/a");
				continue;
			}
			/* every bucket from t0 to the one that ends at the mark */
			for (int64_t k = 0; k <= last && k < (int64_t)d->n; k++) {
				dead += s->syn_dead[k];
				all += s->syn_all[k];
			}
			texttable_cell(t, "%lld of %lld", dead, all);
		}
	}
}

int report_has_failback_decay(const struct report *r)
{
	if (report_recovered_at(r) == CLOCKS_NONE)
		return 0;
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		if (report_present(r, i) && r->decay.s[i].back)
			return 1;
	return 0;
}

void report_failback_table(const struct report *r, struct texttable *t)
{
	const struct clocks_decay *d = &r->decay;
	int64_t marks[REPORT_MAX_MARKS], rec = report_recovered_at(r);
	char labels[REPORT_MAX_MARKS][REPORT_MARK_LABEL_LEN];
	int n;

	report_header(r, t, "after the recovery");
	if (rec == CLOCKS_NONE)
		return;
	/* marks from the recovery; each in the bucket that holds it (the
	 * buckets are t0's) */
	n = report_marks(r, d->end_ns - rec, " (end)", marks, labels);
	for (int m = 0; m < n; m++) {
		int64_t k = clocks_bucket_of(rec + marks[m], d->bucket_ns);

		if (k >= (int64_t)d->n)
			k = (int64_t)d->n - 1;
		texttable_row(t);
		texttable_cell(t, "%s", labels[m]);
		for (int i = 0; i < REPORT_NSCHEMES; i++) {
			const struct clocks_decay_series *s = &d->s[i];

			if (!report_present(r, i))
				continue;
			report_decay_cell(t, s, s->back, k);
		}
	}
}

void report_upstream_table(const struct report *r, struct texttable *t)
{
	const struct report_upstream_series *u = &r->up;
	int64_t traffic = clocks_traffic_ns(&r->in), before = 0, after = 0;
	char addr[INET6_ADDRSTRLEN];

	texttable_init(t, 5);
	/* a steady-state run's t0 is the traffic's end */
	texttable_titles(t, "source", "queries",
			 r->in.steady ? "during the traffic" : "at or before t0",
			 r->in.steady ? "after it" : "after t0", "per s of traffic", NULL);
	for (size_t k = 0; k <= u->nsrc; k++) {
		int64_t b = k < u->nsrc ? u->before[k] : before,
			a = k < u->nsrc ? u->after[k] : after;

		texttable_row(t);
		if (k < u->nsrc)
			texttable_cell(t, "%s",
				       clocks_addr_name(&r->in, u->src[k], addr, sizeof(addr)));
		else
			texttable_cell(t, "all");
		texttable_cell(t, "%lld", (long long)(a + b));
		texttable_cell(t, "%lld", (long long)b);
		texttable_cell(t, "%lld", (long long)a);
		if (traffic == CLOCKS_NONE)
			texttable_cell(t, "-");
		else
			texttable_cell(t, "%.2f", (double)(a + b) / ((double)traffic / 1e9));
		before += b;
		after += a;
	}
}

void report_cause_table(const struct report *r, struct texttable *t)
{
	const struct clocks_explain *ex = &r->ex;

	texttable_init(t, 6);
	texttable_align(t, 1, 1);
	texttable_align(t, 2, 1);
	texttable_titles(t, "scheme", "cause", "who", "requests", "first (s)", "last (s)", NULL);
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		const struct clocks_explain_scheme *xs = &ex->s[i];
		int done[CLOCKS_EXPLAIN_MAX] = {0};

		if (!xs->present)
			continue;
		/* by when each let go: the window's last */
		for (;;) {
			int at = -1;

			for (int k = 0; k < xs->n; k++)
				if (!done[k] && xs->e[k].requests &&
				    (at < 0 || xs->e[k].last_ns < xs->e[at].last_ns))
					at = k;
			if (at < 0)
				break;
			done[at] = 1;
			texttable_row(t);
			texttable_cell(t, "%s", r->res[i].scheme);
			texttable_cell(t, "%s", clocks_cause_labels[xs->e[at].cause]);
			texttable_cell(t, "%s", xs->e[at].who);
			texttable_cell(t, "%lld", (long long)xs->e[at].requests);
			texttable_cell(t, "%.3f", (double)xs->e[at].first_ns / NSEC_PER_SEC);
			texttable_cell(t, "%.3f", (double)xs->e[at].last_ns / NSEC_PER_SEC);
		}
	}
}
