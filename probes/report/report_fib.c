/*
 * The routing tables of the report (docs/clocks.md, "FIB clocks",
 * "Catchments"): per router, its route to the service after t0; per anycast
 * client, its site before the failure and after the routers converged. For
 * the terminal and report.md alike.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

static const char *report_fib_s(char *buf, size_t len, const struct report *r, int64_t at_ns)
{
	if (at_ns == CLOCKS_NONE)
		return "-";
	snprintf(buf, len, "%.6f", (double)(at_ns - r->in.failure.t0_ns) / 1e9);
	return buf;
}

/* report_fib_hop: "198.18.0.2 (a) -> a", the route's next hops and site
 * ("... -> ECMP (first: a)" for a multipath route) */
static const char *report_fib_hop(char *buf, size_t len, const struct report *r,
				  const struct clocks_fib_route *rt)
{
	size_t at = 0;

	if (!rt->present)
		return "none";
	buf[0] = '\0';
	for (int i = 0; i < rt->nnh && at < len; i++) {
		char a[INET6_ADDRSTRLEN];

		if (rt->nh[i].has_via)
			clocks_addr_name(&r->in, rt->nh[i].via, a, sizeof(a));
		else
			snprintf(a, sizeof(a), "direct");
		at += (size_t)snprintf(buf + at, len - at, "%s%s%s%s%s", i ? ", " : "", a,
				       rt->nh[i].dev[0] ? " (" : "", rt->nh[i].dev,
				       rt->nh[i].dev[0] ? ")" : "");
	}
	/* ECMP: each flow goes its hash's way; the site is the first's */
	if (at < len)
		snprintf(buf + at, len - at, " -> %s%s%s", rt->nnh > 1 ? "ECMP (first: " : "",
			 rt->site[0] ? rt->site : "?", rt->nnh > 1 ? ")" : "");
	return buf;
}

int report_has_fib(const struct report *r)
{
	return r->res[0].fib && r->res[0].fib->nrouters > 0;
}

/* report_fib_rows: a row per router of one episode */
static void report_fib_rows(const struct report *r, struct texttable *t,
			    const struct clocks_fib *fib, const char *episode)
{
	char a[32], b[32], hb[160], ha[160];

	for (int i = 0; fib && i < fib->nrouters; i++) {
		const struct clocks_router_fib *rf = &fib->routers[i];

		texttable_row(t);
		texttable_cell(t, "%s", rf->router);
		if (episode)
			texttable_cell(t, "%s", episode);
		texttable_cell(t, "%lld", (long long)rf->changes);
		texttable_cell(t, "%lld", (long long)rf->path_changes);
		texttable_cell(t, "%s", report_fib_s(a, sizeof(a), r, rf->first_at_ns));
		texttable_cell(t, "%s", report_fib_s(b, sizeof(b), r, rf->final_at_ns));
		texttable_cell(t, "%s", report_fib_hop(hb, sizeof(hb), r, &rf->before));
		texttable_cell(t, "%s", report_fib_hop(ha, sizeof(ha), r, &rf->after));
	}
}

/* report_fib_of: one FIB's table (the IPv4 service's, or IPv6's) */
static void report_fib_of(const struct report *r, struct texttable *t, const struct clocks_fib *fib)
{
	int two = fib && fib->failback, c = two;

	/* a recovered site: each router's failure and fail-back, a row each */
	texttable_init(t, 7 + two);
	texttable_align(t, 5 + c, 1);
	texttable_align(t, 6 + c, 1);
	if (two)
		texttable_align(t, 1, 1);
	texttable_row(t);
	texttable_cell(t, "router");
	if (two)
		texttable_cell(t, "episode");
	texttable_cell(t, "changes");
	texttable_cell(t, "path changes");
	texttable_cell(t, "first (s)");
	texttable_cell(t, "final (s)");
	texttable_cell(t, two ? "before: via -> site" : "before t0: via -> site");
	texttable_cell(t, "after: via -> site");
	if (!two) {
		report_fib_rows(r, t, fib, NULL);
		return;
	}
	report_fib_rows(r, t, fib, "failure");
	report_fib_rows(r, t, fib->failback, "fail-back");
}

void report_fib_table(const struct report *r, struct texttable *t)
{
	report_fib_of(r, t, r->res[0].fib);
}

int report_has_fib6(const struct report *r)
{
	return r->res[0].fib6 && r->res[0].fib6->nrouters > 0;
}

void report_fib6_table(const struct report *r, struct texttable *t)
{
	report_fib_of(r, t, r->res[0].fib6);
}

/* report_fib_line: one episode's lab-wide FIB clocks; convergence from
 * since_ns */
static void report_fib_line(const struct report *r, FILE *out, const struct clocks_fib *fib,
			    int64_t since_ns, const char *after)
{
	char a[32], b[32];

	fprintf(out,
		"first FIB change %s s (%s), last %s s (%s): convergence %.6f s%s; %d of %d "
		"router%s changed, %d more than once (path exploration)\n",
		report_fib_s(a, sizeof(a), r, fib->first_at_ns), fib->first_router,
		report_fib_s(b, sizeof(b), r, fib->last_at_ns), fib->last_router,
		(double)(fib->last_at_ns - since_ns) / 1e9, after, fib->routers_changed,
		fib->nrouters, fib->nrouters == 1 ? "" : "s", fib->exploring);
}

/* report_fib_summary_of: a FIB's lab-wide clocks, a line per episode */
static void report_fib_summary_of(const struct report *r, FILE *out, const struct clocks_fib *fib)
{
	char rec[32];

	if (fib->failback == NULL) {
		if (fib->last_at_ns == CLOCKS_NONE)
			fprintf(out, "No router's route to the service changed after t0.\n");
		else
			report_fib_line(r, out, fib, r->in.failure.t0_ns, "");
		return;
	}
	/* the failure and the fail-back: a route coming back is no path
	 * exploration of the failure's */
	fprintf(out, "failure: ");
	if (fib->last_at_ns == CLOCKS_NONE)
		fprintf(out, "no router's route to the service changed before %s's recovery\n",
			r->in.failure.site);
	else
		report_fib_line(r, out, fib, r->in.failure.t0_ns, "");
	fprintf(out, "fail-back (%s recovered at %s s): ", r->in.failure.site,
		report_fib_s(rec, sizeof(rec), r, fib->failback->from_ns));
	if (fib->failback->last_at_ns == CLOCKS_NONE)
		fprintf(out, "no router's route to the service changed after the recovery\n");
	else
		report_fib_line(r, out, fib->failback, fib->failback->from_ns,
				" after the recovery");
}

void report_fib_summary(const struct report *r, FILE *out)
{
	report_fib_summary_of(r, out, r->res[0].fib);
}

void report_fib6_summary(const struct report *r, FILE *out)
{
	report_fib_summary_of(r, out, r->res[0].fib6);
}

/* report_catch_cell: "a (20 of 20)", "-" if unknown */
static void report_catch_cell(struct texttable *t, int known, const char *site, int64_t n,
			      int64_t of)
{
	if (known && site[0])
		texttable_cell(t, "%s (%lld of %lld)", site, (long long)n, (long long)of);
	else
		texttable_cell(t, "-");
}

static const char *report_yes_no(int v)
{
	return v == 1 ? "yes" : v == 0 ? "no" : "-";
}

void report_catch_table(const struct report *r, struct texttable *t)
{
	const struct clocks_catchments *cs = r->res[0].catchments;
	int two = cs && cs->episodes == 2;

	/* a recovered site: before, during the failure, after the fail-back */
	texttable_init(t, 5 + 2 * two);
	for (int k = 1; k < 4 + two; k++)
		texttable_align(t, k, 1);
	texttable_titles(t, "client", "node", "before t0", NULL);
	if (two) {
		texttable_cell(t, "during the failure");
		texttable_cell(t, "after the fail-back");
	} else {
		texttable_cell(t, "after convergence");
	}
	texttable_cell(t, "moved");
	if (two)
		texttable_cell(t, "back");
	for (int k = 0; cs && k < cs->n; k++) {
		const struct clocks_catchment *c = &cs->c[k];

		texttable_row(t);
		texttable_cell(t, "%u", c->client);
		texttable_cell(t, "%s", c->node[0] ? c->node : "-");
		report_catch_cell(t, 1, c->before, c->before_n, c->before_of);
		if (two)
			report_catch_cell(t, cs->during_known, c->during, c->during_n,
					  c->during_of);
		report_catch_cell(t, cs->known, c->after, c->after_n, c->after_of);
		texttable_cell(
		    t, "%s", report_yes_no(clocks_catch_moved(cs, c->before, c->during, c->after)));
		if (two)
			texttable_cell(t, "%s",
				       report_yes_no(clocks_catch_back(cs, c->before, c->after)));
	}
	/* a population: its logical clients by (before, after), N of them */
	for (int i = 0; cs && i < cs->npops; i++) {
		const struct clocks_catch_pop *p = &cs->pops[i];

		for (int k = 0; k < p->npairs; k++) {
			const struct clocks_catch_pair *q = &p->pairs[k];

			texttable_row(t);
			texttable_cell(t, "%lld of %u+", (long long)q->clients, p->base);
			texttable_cell(t, "%s", p->node[0] ? p->node : "-");
			texttable_cell(t, "%s", q->before[0] ? q->before : "-");
			if (two)
				texttable_cell(t, "%s",
					       cs->during_known && q->during[0] ? q->during : "-");
			texttable_cell(t, "%s", cs->known && q->after[0] ? q->after : "-");
			texttable_cell(
			    t, "%s",
			    report_yes_no(clocks_catch_moved(cs, q->before, q->during, q->after)));
			if (two)
				texttable_cell(
				    t, "%s",
				    report_yes_no(clocks_catch_back(cs, q->before, q->after)));
		}
	}
}
