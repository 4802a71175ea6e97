/*
 * The timeline and the flaps in the report (docs/clocks.md, "The
 * timeline", "Flap clocks"): every step of the timeline as applied, and
 * per flap and router, its route changes and the ups after which its route
 * to the flapping site was withheld. For the terminal and report.md alike.
 */
#include <stdio.h>
#include <arpa/inet.h>
#include <string.h>

#include "report_int.h"

static const char *report_timeline_s(char *buf, size_t len, int64_t ns)
{
	if (ns == CLOCKS_NONE)
		return "-";
	/* no "-0.000" */
	snprintf(buf, len, "%.3f", ns > -500000 && ns < 500000 ? 0.0 : (double)ns / 1e9);
	return buf;
}

int report_has_timeline(const struct report *r)
{
	return r->in.nhits > 0;
}

void report_timeline_table(const struct report *r, struct texttable *t)
{
	char a[32], b[32], c[32];
	int changes = 0;

	/* a column for the DNS changes, when the timeline has one */
	for (size_t i = 0; i < r->in.nhits; i++)
		changes |= r->in.hits[i].change[0] != '\0';
	texttable_init(t, changes ? 7 : 6);
	for (int i = 2; i < (changes ? 7 : 6); i++)
		texttable_align(t, i, 1);
	if (changes)
		texttable_titles(t, "after t0 (s)", "at (s)", "event", "action", "target", "step",
				 "change (serial)", NULL);
	else
		texttable_titles(t, "after t0 (s)", "at (s)", "event", "action", "target", "step",
				 NULL);
	for (size_t i = 0; i < r->in.nhits; i++) {
		const struct clocks_hit *h = &r->in.hits[i];

		texttable_row(t);
		texttable_cell(t, "%s",
			       report_timeline_s(a, sizeof(a), h->t_ns - r->in.failure.t0_ns));
		texttable_cell(t, "%s", report_timeline_s(b, sizeof(b), h->at_ns));
		texttable_cell(t, "%s", h->name);
		texttable_cell(t, "%s", h->action);
		texttable_cell(t, "%s", h->target[0] ? h->target : "-");
		if (h->cycle > 0)
			snprintf(c, sizeof(c), "%s %d", h->up ? "up" : "down", h->cycle);
		else
			snprintf(c, sizeof(c), "-");
		texttable_cell(t, "%s", c);
		if (changes && h->change[0] && h->serial != CLOCKS_NONE)
			texttable_cell(t, "%s (%lld)", h->change, (long long)h->serial);
		else if (changes)
			texttable_cell(t, "%s", h->change[0] ? h->change : "-");
	}
}

int report_has_flaps(const struct report *r)
{
	return r->flaps && r->flaps->n > 0;
}

/* report_timeline_ups: "1: 0.1; 2: suppressed until 3.5; 3: not back" after each up */
static void report_timeline_ups(char *buf, size_t len, const struct clocks_flap_router *fr,
				const struct report *r)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < fr->nups && at < len; i++) {
		const struct clocks_flap_up *u = &fr->ups[i];
		char x[32];

		if (u->back_at_ns == CLOCKS_NONE)
			snprintf(x, sizeof(x), "%s",
				 u->suppressed ? "suppressed to the end" : "not back");
		else if (u->suppressed)
			snprintf(x, sizeof(x), "suppressed until %.3f",
				 (double)(u->back_at_ns - r->in.failure.t0_ns) / 1e9);
		else
			snprintf(x, sizeof(x), "%.3f", (double)(u->back_at_ns - u->up_at_ns) / 1e9);
		at += (size_t)snprintf(buf + at, len - at, "%s%d: %s", i ? "; " : "", u->cycle, x);
	}
	if (fr->nups == 0)
		snprintf(buf, len, "-");
}

void report_flap_table(const struct report *r, struct texttable *t)
{
	char times[256], ups[512];

	texttable_init(t, 6);
	texttable_align(t, 0, 1);
	texttable_align(t, 1, 1);
	texttable_align(t, 4, 1);
	texttable_align(t, 5, 1);
	texttable_titles(t, "flap", "router", "changes", "suppressed", "change times (s after t0)",
			 "back after each up (s)", NULL);
	for (int k = 0; k < r->flaps->n; k++) {
		const struct clocks_flap *f = &r->flaps->f[k];

		for (int j = 0; j < f->nrouters; j++) {
			const struct clocks_flap_router *fr = &f->routers[j];
			size_t at = 0;

			times[0] = '\0';
			for (int64_t i = 0; i < fr->changes && i < 8 && at < sizeof(times); i++)
				at += (size_t)snprintf(
				    times + at, sizeof(times) - at, "%s%.3f", i ? " " : "",
				    (double)(fr->times_ns[i] - r->in.failure.t0_ns) / 1e9);
			if (fr->changes > 8 && at < sizeof(times))
				snprintf(times + at, sizeof(times) - at, " ...");
			if (fr->changes == 0)
				snprintf(times, sizeof(times), "-");
			if (fr->to_site)
				report_timeline_ups(ups, sizeof(ups), fr, r);
			else
				snprintf(ups, sizeof(ups), "%s",
					 f->site[0] ? "(did not route to the site)"
						    : "(a link flap)");
			texttable_row(t);
			texttable_cell(t, "%s %s", f->name, f->target);
			texttable_cell(t, "%s", fr->router);
			texttable_cell(t, "%lld", (long long)fr->changes);
			if (fr->to_site)
				texttable_cell(t, "%d", fr->suppressed);
			else
				texttable_cell(t, "-");
			texttable_cell(t, "%s", times);
			texttable_cell(t, "%s", ups);
		}
	}
}

int report_has_outages(const struct report *r)
{
	return r->outages && r->outages->n > 0;
}

static void report_timeline_outcome_cells(struct texttable *t, const int64_t *c)
{
	int64_t n = 0;

	for (int k = 0; k < CLOCKS_DNS_OUTCOMES; k++)
		n += c[k];
	for (int k = 0; k < CLOCKS_DNS_OUTCOMES; k++)
		if (n)
			texttable_cell(t, "%lld (%.0f %%)", (long long)c[k],
				       100.0 * (double)c[k] / (double)n);
		else
			texttable_cell(t, "0");
}

static void report_timeline_outcome_head(struct texttable *t, int ncols, const char *first,
					 const char *second)
{
	texttable_init(t, ncols);
	texttable_align(t, 0, 1);
	texttable_align(t, 1, 1);
	texttable_row(t);
	texttable_cell(t, "%s", first);
	texttable_cell(t, "%s", second);
	for (int k = 0; k < CLOCKS_DNS_OUTCOMES; k++)
		texttable_cell(t, "%s", clocks_dns_outcome_names[k]);
}

/* report_outage_resolver: the resolver a resolution table names: its
 * [resolver] node and cache ("r1.1 (198.18.128.1)") when the address is
 * one of a node's, else the address as the clients said it */
static const char *report_outage_resolver(const struct report *r, const char *addr, char *buf,
					  size_t len)
{
	struct in_addr a;
	int k;

	if (addr[0] == '\0')
		return "?";
	if (inet_pton(AF_INET, addr, &a) != 1 || (k = clocks_rsv_of_addr(&r->in, a)) < 0)
		return addr;
	snprintf(buf, len, "%s.%u (%s)", r->in.dnstopo.rsv[k].name, ntohl(a.s_addr) & 0xffu, addr);
	return buf;
}

void report_outage_table(const struct report *r, struct texttable *t)
{
	char name[CLOCKS_NAME_MAX + 32];

	report_timeline_outcome_head(t, 4 + CLOCKS_DNS_OUTCOMES, "outage", "resolver");
	texttable_cell(t, "slow (>= %lld ms)", CLOCKS_OUTAGE_SLOW_NS / 1000000);
	texttable_cell(t, "slowest (ms)");
	for (int i = 0; i < r->outages->n; i++) {
		const struct clocks_outage *o = &r->outages->o[i];

		for (int j = 0; j < o->nresolvers; j++) {
			texttable_row(t);
			texttable_cell(t, "%s %s %s", o->name, o->action, o->target);
			texttable_cell(
			    t, "%s",
			    report_outage_resolver(r, o->r[j].resolver, name, sizeof(name)));
			report_timeline_outcome_cells(t, o->r[j].during);
			texttable_cell(t, "%lld", (long long)o->r[j].slow);
			if (o->r[j].slowest_ns > 0)
				texttable_cell(t, "%.1f", (double)o->r[j].slowest_ns / 1e6);
			else
				texttable_cell(t, "-");
		}
	}
}

void report_outage_buckets_table(const struct report *r, struct texttable *t)
{
	char when[CLOCKS_NAME_MAX + 32]; /* "-123.456 (NAME)" */
	char name[CLOCKS_NAME_MAX + 32];

	report_timeline_outcome_head(t, 2 + CLOCKS_DNS_OUTCOMES, "from (s after t0)", "resolver");
	for (int i = 0; i < r->outages->n; i++) {
		const struct clocks_outage *o = &r->outages->o[i];

		for (int b = 0; b < o->nbuckets; b++)
			for (int j = 0; j < o->nresolvers; j++) {
				int64_t n = 0;

				for (int k = 0; k < CLOCKS_DNS_OUTCOMES; k++)
					n += o->r[j].b[b][k];
				if (n == 0)
					continue;
				double at = (double)(o->from_ns - r->in.failure.t0_ns +
						     (int64_t)b * CLOCKS_OUTAGE_BUCKET_NS) /
					    1e9;

				/* no "-0.000" */
				snprintf(when, sizeof(when), "%.3f (%s)",
					 at > -0.0005 && at < 0.0005 ? 0.0 : at, o->name);
				texttable_row(t);
				texttable_cell(t, "%s", when);
				texttable_cell(t, "%s",
					       report_outage_resolver(r, o->r[j].resolver, name,
								      sizeof(name)));
				report_timeline_outcome_cells(t, o->r[j].b[b]);
			}
	}
}
