/*
 * The DNS steering clocks (docs/clocks.md), computed from a loaded run with
 * no I/O. The scheme's requests are those of client ids
 * WIRE_DNS_CLIENT_BASE and up: the flows the clients send to whatever
 * authd handed them. The dead site's own address A is site_failed's
 * "address". Every time is compared with t0:
 *
 *   detect   first health_changed of the failed site to unhealthy at or
 *            after t0: authd's verdict on the probers' reports (its quorum),
 *            the moment it stops counting the site as a candidate
 *   steer    first answer_changed at or after t0 whose before holds A and
 *            whose after does not: authd stopped handing the site out
 *   window   last DNS-steered request to A in the failed site's capture
 *            after t0
 *
 * and beside them the first remote prober's declared_dead of the site (the
 * verdict that the quorum then counts), and the queries that reached authd:
 * what steering by DNS costs the authoritative servers. The request counts
 * are clocks_scheme.c's.
 */
#include "clocks_result.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_fib.h"
#include "clocks_int.h"

static int clocks_to_address(const struct clocks_input *in, const struct clocks_packet *p)
{
	return p->dst.s_addr == in->failure.address.s_addr;
}

const struct clocks_flows clocks_dns_flows = {
    .scheme = CLOCKS_SCHEME_DNS,
    .name = "dns",
    .what = "DNS-steered flows (client ids from " WIRE_DNS_CLIENT_BASE_TEXT ")",
    .is_flow = NULL,
    .to_dead = clocks_to_address,
};

static void clocks_dns_detect(const struct clocks_input *in, struct clocks_result *r)
{
	const struct clocks_failure *f = &in->failure;

	for (size_t i = 0; i < in->nhealth; i++) {
		const struct clocks_health *h = &in->health[i];
		if (h->t_ns >= f->t0_ns && !h->healthy && strcmp(h->site, f->site) == 0 &&
		    (r->detect_at_ns == CLOCKS_NONE || h->t_ns < r->detect_at_ns))
			r->detect_at_ns = h->t_ns;
	}
	if (r->detect_at_ns != CLOCKS_NONE)
		r->detect_ns = r->detect_at_ns - f->t0_ns;
	else if (in->nauthd_files + in->nauthority > 0 && clocks_gray(f))
		clocks_gray_undetected(r, f);
	else if (in->nauthd_files + in->nauthority == 0)
		clocks_missing(r, "detect, steer: no *.authd.events.jsonl");
	else
		clocks_missing(r,
			       "detect: no health_changed of site %s to unhealthy at or after "
			       "t0 in *.authd.events.jsonl",
			       f->site);
}

/* clocks_remote_dead: the first declared_dead of the site by a prober on
 * another node than the site's own */
static void clocks_remote_dead(const struct clocks_input *in, struct clocks_result *r)
{
	const struct clocks_failure *f = &in->failure;
	const struct clocks_dead *first = NULL;

	for (size_t i = 0; i < in->ndead; i++) {
		const struct clocks_dead *d = &in->dead[i];
		if (d->t_ns >= f->t0_ns && strcmp(d->site, f->site) == 0 &&
		    strcmp(d->node, f->site) != 0 && (first == NULL || d->t_ns < first->t_ns))
			first = d;
	}
	r->remote_dead_ns = r->remote_dead_at_ns = CLOCKS_NONE;
	if (first == NULL && r->undetected)
		return; /* gray_undetected said it */
	if (first == NULL && in->nauthd_files == 0 && in->nauthority > 0)
		return; /* PowerDNS alone: no [prober] node (they report to authd) */
	if (first == NULL) {
		clocks_missing(r,
			       "remote prober: no declared_dead of site %s at or after t0 by a "
			       "prober of another node",
			       f->site);
		return;
	}
	r->remote_dead_at_ns = first->t_ns;
	r->remote_dead_ns = first->t_ns - f->t0_ns;
	snprintf(r->remote_prober, sizeof(r->remote_prober), "%s", first->node);
}

int clocks_has_addr(const struct in_addr *list, int n, struct in_addr a)
{
	for (int i = 0; i < n; i++)
		if (list[i].s_addr == a.s_addr)
			return 1;
	return 0;
}

int clocks_out_at(const struct clocks_input *in, const char *site, int64_t t)
{
	for (size_t i = 0; i < in->nfailures; i++) {
		const struct clocks_failure *g = &in->failures[i];

		if (strcmp(g->site, site) == 0 && g->t0_ns <= t &&
		    (g->recovered_ns == 0 || g->recovered_ns > t))
			return 1;
	}
	return 0;
}

/* clocks_front_door_kept: another site that announced the failed site's
 * front door and was not out at t0 (docs/clocks.md, "Front doors"): DNS
 * keeps handing the address out, and routing moves its requests; NULL if
 * none (or the failed site has no front door) */
static const char *clocks_front_door_kept(const struct clocks_input *in)
{
	const struct clocks_topo_dns *t = &in->dnstopo;
	const struct clocks_failure *f = &in->failure;
	int mine = -1;

	for (int i = 0; i < t->nfront && mine < 0; i++)
		if (strcmp(t->front[i].site, f->site) == 0)
			mine = i;
	for (int i = 0; mine >= 0 && i < t->nfront; i++)
		if (i != mine && t->front[i].addr.s_addr == t->front[mine].addr.s_addr &&
		    !clocks_out_at(in, t->front[i].site, f->t0_ns))
			return t->front[i].site;
	return NULL;
}

/* clocks_dns_kept: the steer of a front door another site still serves:
 * the first FIB change that takes a route of it via the failed site out,
 * as the anycast scheme's steer */
static void clocks_dns_kept(const struct clocks_input *in, struct clocks_result *r, const char *by)
{
	const struct clocks_failure *f = &in->failure;
	struct clocks_fib *fib = malloc(sizeof(*fib));
	char addr[INET6_ADDRSTRLEN];

	snprintf(r->kept_by, sizeof(r->kept_by), "%s", by);
	clocks_addr_name(in, f->address, addr, sizeof(addr));
	if (fib == NULL) {
		clocks_warn(&r->notes, "limit", "dns: no FIB clocks: out of memory");
		return;
	}
	clocks_fib(in, fib);
	r->steer_at_ns = clocks_route_left_at(in, fib);
	r->fib = fib; /* clocks.json's schemes.dns.fib, the explanation's routers */
	if (r->steer_at_ns == CLOCKS_NONE) {
		clocks_missing(r,
			       "steer: site %s's front door %s stayed in the answers (site %s "
			       "served it), and no route of it via the failed site left a FIB",
			       f->site, addr, by);
		return;
	}
	r->steer_ns = r->steer_at_ns - f->t0_ns;
	clocks_warn(&r->notes, "front_door",
		    "dns: site %s's front door %s stayed in the answers, served by site %s: "
		    "routing moved its requests, and steer is the first FIB change away from "
		    "%s (docs/clocks.md, \"Front doors\")",
		    f->site, addr, by, f->site);
}

static void clocks_dns_steer(const struct clocks_input *in, struct clocks_result *r)
{
	const struct clocks_failure *f = &in->failure;
	const struct clocks_answer *first = NULL, *before = NULL;
	char addr[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < in->nanswers; i++) {
		const struct clocks_answer *a = &in->answers[i];
		if (!clocks_has_addr(a->before, a->nbefore, f->address) ||
		    clocks_has_addr(a->after, a->nafter, f->address))
			continue;
		if (a->t_ns >= f->t0_ns && (first == NULL || a->t_ns < first->t_ns))
			first = a;
		/* a planned drain: the DNS change came before the failure */
		if (a->t_ns < f->t0_ns && (before == NULL || a->t_ns > before->t_ns))
			before = a;
	}
	if (first == NULL) {
		clocks_addr_name(in, f->address, addr, sizeof(addr));
		if (in->nauthd_files + in->nauthority > 0 && !r->undetected && before)
			clocks_missing(r,
				       "steer: no answer_changed at or after t0 that stops handing "
				       "out %s: authd had stopped handing it out for %s %.3f s "
				       "before t0 (a drain ahead of the failure)",
				       addr, before->name, (double)(f->t0_ns - before->t_ns) / 1e9);
		else if (in->nauthd_files + in->nauthority > 0 && !r->undetected)
			clocks_missing(r,
				       "steer: no answer_changed at or after t0 that stops handing "
				       "out %s in *.authd.events.jsonl",
				       addr);
		return;
	}
	r->steer_at_ns = first->t_ns;
	r->steer_ns = first->t_ns - f->t0_ns;
	snprintf(r->steer_name, sizeof(r->steer_name), "%s", first->name);
}

static int clocks_cmp_addr(const void *a, const void *b)
{
	uint32_t x = ntohl(((const struct in_addr *)a)->s_addr);
	uint32_t y = ntohl(((const struct in_addr *)b)->s_addr);

	return x < y ? -1 : x > y;
}

/* clocks_upstream: the queries captured on the authd links, in all and per
 * source address, and the traffic time they are divided by */
static void clocks_upstream(const struct clocks_input *in, struct clocks_result *r)
{
	struct in_addr *src;
	size_t total = 0, k = 0;

	r->upstream_queries = r->traffic_ns = CLOCKS_NONE;
	if (in->nqcaptures == 0) {
		clocks_missing(r, "upstream queries: no capture-dns-*.pcap of an authd link");
		return;
	}
	for (size_t i = 0; i < in->nqcaptures; i++)
		total += in->qcaptures[i].n;
	r->upstream_queries = (int64_t)total;
	r->traffic_ns = clocks_traffic_ns(in);
	if (r->traffic_ns == CLOCKS_NONE)
		clocks_missing(r, "upstream queries per second: no traffic_started with a "
				  "duration (or traffic_stopped) in lab.events.jsonl");
	if (total == 0)
		return;
	src = malloc(total * sizeof(*src));
	r->resolvers = malloc(total * sizeof(*r->resolvers));
	if (src == NULL || r->resolvers == NULL) {
		clocks_warn(&r->notes, "limit", "dns: queries per resolver: out of memory");
		free(src);
		free(r->resolvers);
		r->resolvers = NULL;
		return;
	}
	for (size_t i = 0; i < in->nqcaptures; i++)
		for (size_t j = 0; j < in->qcaptures[i].n; j++)
			src[k++] = in->qcaptures[i].queries[j].src;
	qsort(src, total, sizeof(*src), clocks_cmp_addr);
	for (size_t i = 0; i < total; i++) {
		if (r->nresolvers == 0 ||
		    r->resolvers[r->nresolvers - 1].addr.s_addr != src[i].s_addr)
			r->resolvers[r->nresolvers++] = (struct clocks_addr_count){src[i], 0};
		r->resolvers[r->nresolvers - 1].n++;
	}
	free(src);
}

void clocks_dns(const struct clocks_input *in, struct clocks_result *r)
{
	const char *kept;

	clocks_scheme_init(in, &clocks_dns_flows, r);
	if (in->steady) { /* no failure: its counts and the upstream queries */
		clocks_scheme_measure(in, &clocks_dns_flows, r);
		clocks_upstream(in, r);
		return;
	}
	if (!in->failure.has_address) {
		/* every DNS clock needs the site's own address */
		r->remote_dead_ns = r->remote_dead_at_ns = CLOCKS_NONE;
		r->upstream_queries = r->traffic_ns = CLOCKS_NONE;
		clocks_warn(&r->notes, "old_run",
			    "dns: site_failed in lab.events.jsonl has no \"address\" (a run "
			    "from before the DNS scheme): no DNS clocks");
		return;
	}
	clocks_dns_detect(in, r);
	clocks_remote_dead(in, r);
	if ((kept = clocks_front_door_kept(in)) != NULL)
		clocks_dns_kept(in, r, kept);
	else
		clocks_dns_steer(in, r);
	clocks_scheme_measure(in, &clocks_dns_flows, r);
	clocks_upstream(in, r);
}
