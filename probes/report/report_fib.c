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

/* report_fib_hop: "198.18.0.2 (a) -> a", the route's next hops and site */
static const char *report_fib_hop(char *buf, size_t len, const struct clocks_fib_route *rt)
{
	size_t at = 0;

	if (!rt->present)
		return "none";
	buf[0] = '\0';
	for (int i = 0; i < rt->nnh && at < len; i++) {
		char a[INET_ADDRSTRLEN];

		if (rt->nh[i].has_via)
			inet_ntop(AF_INET, &rt->nh[i].via, a, sizeof(a));
		else
			snprintf(a, sizeof(a), "direct");
		at += (size_t)snprintf(buf + at, len - at, "%s%s%s%s%s", i ? ", " : "", a,
				       rt->nh[i].dev[0] ? " (" : "", rt->nh[i].dev,
				       rt->nh[i].dev[0] ? ")" : "");
	}
	if (at < len)
		snprintf(buf + at, len - at, " -> %s", rt->site[0] ? rt->site : "?");
	return buf;
}

int report_has_fib(const struct report *r)
{
	return r->res[0].fib && r->res[0].fib->nrouters > 0;
}

void report_fib_table(const struct report *r, struct texttable *t)
{
	const struct clocks_fib *fib = r->res[0].fib;
	char a[32], b[32], hb[160], ha[160];

	texttable_init(t, 7);
	texttable_align(t, 5, 1);
	texttable_align(t, 6, 1);
	texttable_row(t);
	texttable_cell(t, "router");
	texttable_cell(t, "changes");
	texttable_cell(t, "path changes");
	texttable_cell(t, "first (s)");
	texttable_cell(t, "final (s)");
	texttable_cell(t, "before t0: via -> site");
	texttable_cell(t, "after: via -> site");
	for (int i = 0; fib && i < fib->nrouters; i++) {
		const struct clocks_router_fib *rf = &fib->routers[i];

		texttable_row(t);
		texttable_cell(t, "%s", rf->router);
		texttable_cell(t, "%lld", (long long)rf->changes);
		texttable_cell(t, "%lld", (long long)rf->path_changes);
		texttable_cell(t, "%s", report_fib_s(a, sizeof(a), r, rf->first_at_ns));
		texttable_cell(t, "%s", report_fib_s(b, sizeof(b), r, rf->final_at_ns));
		texttable_cell(t, "%s", report_fib_hop(hb, sizeof(hb), &rf->before));
		texttable_cell(t, "%s", report_fib_hop(ha, sizeof(ha), &rf->after));
	}
}

/* report_fib_summary: the lab-wide FIB clocks, one paragraph */
void report_fib_summary(const struct report *r, FILE *out)
{
	const struct clocks_fib *fib = r->res[0].fib;
	char a[32], b[32];

	if (fib->last_at_ns == CLOCKS_NONE) {
		fprintf(out, "No router's route to the service changed after t0.\n");
		return;
	}
	fprintf(out,
		"first FIB change %s s (%s), last %s s (%s): convergence %s s; %d of %d "
		"router%s changed, %d more than once (path exploration)\n",
		report_fib_s(a, sizeof(a), r, fib->first_at_ns), fib->first_router,
		report_fib_s(b, sizeof(b), r, fib->last_at_ns), fib->last_router, b,
		fib->routers_changed, fib->nrouters, fib->nrouters == 1 ? "" : "s", fib->exploring);
}

void report_catch_table(const struct report *r, struct texttable *t)
{
	const struct clocks_catchments *cs = r->res[0].catchments;

	texttable_init(t, 5);
	texttable_align(t, 1, 1);
	texttable_align(t, 2, 1);
	texttable_align(t, 3, 1);
	texttable_row(t);
	texttable_cell(t, "client");
	texttable_cell(t, "node");
	texttable_cell(t, "before t0");
	texttable_cell(t, "after convergence");
	texttable_cell(t, "moved");
	for (int k = 0; cs && k < cs->n; k++) {
		const struct clocks_catchment *c = &cs->c[k];

		texttable_row(t);
		texttable_cell(t, "%u", c->client);
		texttable_cell(t, "%s", c->node[0] ? c->node : "-");
		if (c->before[0])
			texttable_cell(t, "%s (%lld of %lld)", c->before, (long long)c->before_n,
				       (long long)c->before_of);
		else
			texttable_cell(t, "-");
		if (cs->known && c->after[0])
			texttable_cell(t, "%s (%lld of %lld)", c->after, (long long)c->after_n,
				       (long long)c->after_of);
		else
			texttable_cell(t, "-");
		texttable_cell(t, "%s",
			       cs->known && c->before[0] && c->after[0]
				   ? (strcmp(c->before, c->after) ? "yes" : "no")
				   : "-");
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
			texttable_cell(t, "%s", cs->known && q->after[0] ? q->after : "-");
			texttable_cell(t, "%s",
				       cs->known && q->before[0] && q->after[0]
					   ? (strcmp(q->before, q->after) ? "yes" : "no")
					   : "-");
		}
	}
}
