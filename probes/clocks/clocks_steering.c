/*
 * Steering quality (clocks_steering.h; docs/clocks.md, "Steering"): which
 * site each client node's requests reached, against the target the
 * steering meant, seed 000's table measured on packets. The shares are the
 * site links' captures'; the clients' records give the RTT and a second
 * count of the shares, whose disagreement with the captures is said.
 */
#include "clocks_steering.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "wire.h"

static int clocks_steer_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

double clocks_steer_deviation(const double *share, const double *target, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += share[i] > target[i] ? share[i] - target[i] : target[i] - share[i];
	return sum / 2;
}

void clocks_steer_dist(struct clocks_steer_dist *d, int64_t *v, size_t n)
{
	double sum = 0;

	d->n = (int64_t)n;
	d->mean_ns = d->p50_ns = d->p99_ns = CLOCKS_NONE;
	if (n == 0)
		return;
	qsort(v, n, sizeof(*v), clocks_steer_cmp);
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	d->mean_ns = (int64_t)(sum / (double)n + 0.5);
	d->p50_ns = clocks_rank(v, n, 50);
	d->p99_ns = clocks_rank(v, n, 99);
}

/* clocks_steer_node: the client node that sent client id's requests ("" if
 * no client_started said) */
static const char *clocks_steer_node(const struct clocks_input *in, uint32_t client)
{
	uint32_t agent = wire_agent_of(client);

	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == agent || in->clients[i].id == client)
			return in->clients[i].node;
	return "";
}

/* clocks_steer_row: scheme's row of node, made if new (NULL: no room) */
static struct clocks_steer_row *clocks_steer_row(struct clocks_steering *s, int scheme,
						 const char *node)
{
	struct clocks_steer_row *r;

	for (int i = 0; i < s->nrows; i++)
		if (s->rows[i].scheme == scheme && strcmp(s->rows[i].group, node) == 0)
			return &s->rows[i];
	if (s->nrows == CLOCKS_STEER_ROWS) {
		s->lost_rows++;
		return NULL;
	}
	r = &s->rows[s->nrows++];
	memset(r, 0, sizeof(*r));
	r->scheme = scheme;
	snprintf(r->group, sizeof(r->group), "%s", node);
	r->deviation = r->disagreement = -1;
	return r;
}

static int clocks_steer_row_cmp(const void *a, const void *b)
{
	const struct clocks_steer_row *x = a, *y = b;

	if (x->scheme != y->scheme)
		return x->scheme - y->scheme;
	return strcmp(x->group, y->group);
}

static int clocks_steer_site(const struct clocks_steering *s, const char *site)
{
	for (int i = 0; i < s->nsites; i++)
		if (strcmp(s->sites[i], site) == 0)
			return i;
	return -1;
}

/* clocks_steer_dns_target: the steered name's intended shares */
static void clocks_steer_dns_target(const struct clocks_input *in, const struct clocks_steering *s,
				    struct clocks_steer_row *r)
{
	const struct clocks_topo_name *n = &in->dnstopo.names[0];
	int64_t total = 0;
	int k;

	if (in->dnstopo.nnames != 1) {
		snprintf(r->target_from, sizeof(r->target_from), "%s",
			 in->dnstopo.nnames ? "several steered names: no single target"
					    : "no [name] known: no target");
		return;
	}
	if (strcmp(n->policy, "weighted") == 0 && n->nweights > 0) {
		for (int i = 0; i < n->nweights; i++) {
			if ((k = clocks_steer_site(s, n->wsite[i])) < 0) {
				snprintf(r->target_from, sizeof(r->target_from),
					 "weighted: site %.40s has no capture: no target",
					 n->wsite[i]);
				return;
			}
			total += n->weight[i];
		}
		for (int i = 0; i < n->nweights; i++)
			r->target[clocks_steer_site(s, n->wsite[i])] +=
			    (double)n->weight[i] / (double)total;
		snprintf(r->target_from, sizeof(r->target_from), "weighted: its weights");
	} else if (strcmp(n->policy, "failover") == 0 && n->primary[0]) {
		if ((k = clocks_steer_site(s, n->primary)) < 0) {
			snprintf(r->target_from, sizeof(r->target_from),
				 "failover: primary %.40s has no capture: no target", n->primary);
			return;
		}
		r->target[k] = 1;
		snprintf(r->target_from, sizeof(r->target_from), "failover: primary %.40s 100 %%",
			 n->primary);
	} else {
		snprintf(r->target_from, sizeof(r->target_from),
			 "policy %.20s defines no shares: no target",
			 n->policy[0] ? n->policy : "simple");
		return;
	}
	r->has_target = 1;
}

/* clocks_steer_anycast_target: the site the route of the client's router
 * leads to, before t0 (the FIB clocks' "before") */
static void clocks_steer_anycast_target(const struct clocks_input *in,
					const struct clocks_result *any,
					const struct clocks_steering *s, struct clocks_steer_row *r)
{
	const char *router = NULL;
	int k;

	for (int i = 0; i < in->dnstopo.nclients; i++)
		if (strcmp(in->dnstopo.clients[i].name, r->group) == 0)
			router = in->dnstopo.clients[i].router;
	if (router == NULL || router[0] == '\0' || any == NULL || any->fib == NULL) {
		snprintf(r->target_from, sizeof(r->target_from),
			 "no route of the client's router known: no target");
		return;
	}
	for (int i = 0; i < any->fib->nrouters; i++) {
		const struct clocks_fib_route *b = &any->fib->routers[i].before;

		if (strcmp(any->fib->routers[i].router, router) != 0)
			continue;
		if (!b->present || b->site[0] == '\0') {
			snprintf(r->target_from, sizeof(r->target_from),
				 "router %.40s has no route to a site: no target", router);
			return;
		}
		if (b->nnh > 1) {
			snprintf(r->target_from, sizeof(r->target_from),
				 "router %.40s: %d equal-cost paths, no single nearest site",
				 router, b->nnh);
			return;
		}
		if ((k = clocks_steer_site(s, b->site)) < 0)
			break;
		r->target[k] = 1;
		r->has_target = 1;
		snprintf(r->target_from, sizeof(r->target_from),
			 "nearest by routing: %.40s's route to %.40s", router, b->site);
		return;
	}
	snprintf(r->target_from, sizeof(r->target_from),
		 "router %.40s's route not recorded: no target", router);
}

/* clocks_steer_fill: shares, deviation, disagreement of every row */
static void clocks_steer_fill(const struct clocks_input *in, const struct clocks_result *any,
			      struct clocks_steering *s)
{
	for (int i = 0; i < s->nrows; i++) {
		struct clocks_steer_row *r = &s->rows[i];
		double rec[CLOCKS_STEER_SITES] = {0};

		for (int k = 0; k < s->nsites; k++) {
			r->share[k] =
			    r->ncaptured ? (double)r->captured[k] / (double)r->ncaptured : 0;
			rec[k] = r->nanswered ? (double)r->answered[k] / (double)r->nanswered : 0;
		}
		if (r->ncaptured && r->nanswered)
			r->disagreement = clocks_steer_deviation(r->share, rec, s->nsites);
		if (r->scheme == CLOCKS_SCHEME_DNS)
			clocks_steer_dns_target(in, s, r);
		else
			clocks_steer_anycast_target(in, any, s, r);
		if (r->has_target && r->ncaptured)
			r->deviation = clocks_steer_deviation(r->share, r->target, s->nsites);
	}
}

void clocks_steer_totals(struct clocks_steering *s)
{
	for (int sc = 0; sc < 3; sc++) {
		struct clocks_steer_total *t = &s->total[sc];

		memset(t, 0, sizeof(*t));
		t->has_target = 1;
		t->deviation = -1;
		for (int i = 0; i < s->nrows; i++) {
			const struct clocks_steer_row *r = &s->rows[i];

			if (r->scheme != sc || r->ncaptured == 0)
				continue;
			t->n += r->ncaptured;
			t->has_target &= r->has_target;
			for (int k = 0; k < s->nsites; k++) {
				t->share[k] += (double)r->captured[k];
				t->target[k] += r->target[k] * (double)r->ncaptured;
			}
		}
		if (t->n == 0) {
			t->has_target = 0;
			continue;
		}
		for (int k = 0; k < s->nsites; k++) {
			t->share[k] /= (double)t->n;
			t->target[k] /= (double)t->n;
		}
		if (t->has_target)
			t->deviation = clocks_steer_deviation(t->share, t->target, s->nsites);
	}
}

/* clocks_steer_records: each row's records: answered per site, RTT, and
 * the DNS resolutions' latency */
static int clocks_steer_records(const struct clocks_input *in, struct clocks_steering *s)
{
	size_t cap = in->nrequests > in->nresolutions ? in->nrequests : in->nresolutions;
	int64_t *v = malloc((cap ? cap : 1) * sizeof(*v));

	if (v == NULL)
		return -1;
	for (int i = 0; i < s->nrows; i++) {
		struct clocks_steer_row *r = &s->rows[i];
		size_t n = 0;

		for (size_t k = 0; k < in->nrequests; k++) {
			const struct clocks_request *q = &in->requests[k];
			int site;

			if (q->status != CLOCKS_OK || q->sent_ns < s->from_ns ||
			    q->sent_ns >= s->until_ns ||
			    (int)clocks_scheme_of(q->client) != r->scheme ||
			    strcmp(clocks_steer_node(in, q->client), r->group) != 0)
				continue;
			v[n++] = q->rtt_ns;
			if ((site = clocks_steer_site(s, q->site)) >= 0)
				r->answered[site]++;
			r->nanswered++;
		}
		clocks_steer_dist(&r->rtt, v, n);
		n = 0;
		for (size_t k = 0; r->scheme == CLOCKS_SCHEME_DNS && k < in->nresolutions; k++) {
			const struct clocks_resolution *q = &in->resolutions[k];

			if ((q->outcome != CLOCKS_DNS_FRESH && q->outcome != CLOCKS_DNS_STALE) ||
			    q->sent_ns < s->from_ns || q->sent_ns >= s->until_ns ||
			    strcmp(clocks_steer_node(in, q->client), r->group) != 0)
				continue;
			v[n++] = q->latency_ns;
		}
		clocks_steer_dist(&r->resolution, v, n);
	}
	free(v);
	return 0;
}

/* what clocks_steer_txn collects for one row from one resolver capture */
struct clocks_steer_txns {
	const struct clocks_input *in;
	const struct clocks_steering *s;
	const char *group;
	const char *only; /* the one client node of the resolver node, "" if several */
	int64_t *v[2];	  /* hit, miss */
	size_t n[2], cap[2];
	int nomem;
};

static void clocks_steer_txn(void *arg, const struct clocks_cache_txn *tx)
{
	struct clocks_steer_txns *x = arg;
	const char *node = NULL;
	int miss = tx->upstream != 0;

	if (tx->servfail || tx->t_ns < x->s->from_ns || tx->t_ns >= x->s->until_ns)
		return;
	/* who asked: the node of the query's source address */
	for (size_t i = 0; i < x->in->naddrs && node == NULL; i++)
		if (x->in->addrs[i].addr.s_addr == tx->client.s_addr)
			node = x->in->addrs[i].node;
	if (node == NULL)
		node = x->only;
	if (strcmp(node, x->group) != 0)
		return;
	if (clocks_grow((void **)&x->v[miss], &x->cap[miss], x->n[miss], sizeof(int64_t)) == -1) {
		x->nomem = 1;
		return;
	}
	x->v[miss][x->n[miss]++] = tx->latency_ns;
}

/* clocks_steer_caches: each dns row's queries to a [resolver] node's
 * caches, hit and miss, from the node's link capture */
static int clocks_steer_caches(const struct clocks_input *in, struct clocks_steering *s)
{
	const size_t plen = strlen("resolver-");

	for (int i = 0; i < s->nrows; i++) {
		struct clocks_steer_row *r = &s->rows[i];
		struct clocks_steer_txns x = {.in = in, .s = s, .group = r->group, .only = ""};

		if (r->scheme != CLOCKS_SCHEME_DNS)
			continue;
		for (size_t c = 0; c < in->nrcaptures; c++) {
			const struct clocks_rsv_capture *rc = &in->rcaptures[c];
			int k = -1, nasking = 0;

			if (strncmp(rc->label, "resolver-", plen) != 0)
				continue;
			for (int j = 0; j < in->dnstopo.nrsv; j++)
				if (strcmp(in->dnstopo.rsv[j].name, rc->label + plen) == 0)
					k = j;
			if (k < 0)
				continue;
			for (int j = 0; j < in->dnstopo.nclients; j++)
				if (in->dnstopo.clients[j].rsv == k) {
					nasking++;
					x.only = in->dnstopo.clients[j].name;
				}
			if (nasking != 1)
				x.only = "";
			if (clocks_cache_each(rc->msgs, rc->n, CLOCKS_RSV_BLOCK(k), CLOCKS_NONE,
					      clocks_steer_txn, &x) == -1)
				x.nomem = 1;
		}
		clocks_steer_dist(&r->cache_hit, x.v[0], x.n[0]);
		clocks_steer_dist(&r->cache_miss, x.v[1], x.n[1]);
		free(x.v[0]);
		free(x.v[1]);
		if (x.nomem)
			return -1;
	}
	return 0;
}

int clocks_steering(const struct clocks_input *in, const struct clocks_result *anycast,
		    struct clocks_steering *s)
{
	memset(s, 0, sizeof(*s));
	s->from_ns = in->traffic_start_ns != CLOCKS_NONE ? in->traffic_start_ns : INT64_MIN;
	/* a failure run before its t0; a steady one to the end of what was
	 * captured (its t0 is the traffic's end: a reply in flight then too) */
	s->until_ns = in->steady ? clocks_observation_end(in) : in->failure.t0_ns;
	if (s->until_ns == CLOCKS_NONE)
		s->until_ns = INT64_MAX;
	else if (in->steady)
		s->until_ns++;
	for (size_t i = 0; i < in->ncaptures && s->nsites < CLOCKS_STEER_SITES; i++)
		if (clocks_steer_site(s, in->captures[i].label) < 0)
			snprintf(s->sites[s->nsites++], CLOCKS_NAME_MAX, "%s",
				 in->captures[i].label);
	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];
		int site = clocks_steer_site(s, c->label);
		uint32_t last = 0;
		struct clocks_steer_row *r = NULL;

		if (site < 0)
			continue;
		for (size_t k = 0; k < c->n; k++) {
			const struct clocks_packet *p = &c->packets[k];
			enum clocks_scheme scheme = clocks_scheme_of(p->client);

			if (scheme == CLOCKS_SCHEME_NONE || p->t_ns < s->from_ns ||
			    p->t_ns >= s->until_ns)
				continue;
			/* a capture is mostly runs of one client's requests */
			if (r == NULL || p->client != last) {
				r = clocks_steer_row(s, (int)scheme,
						     clocks_steer_node(in, p->client));
				last = p->client;
			}
			if (r == NULL)
				continue;
			r->captured[site]++;
			r->ncaptured++;
		}
	}
	/* anycast first, then dns; each by client node: the table's order */
	qsort(s->rows, (size_t)s->nrows, sizeof(s->rows[0]), clocks_steer_row_cmp);
	if (clocks_steer_records(in, s) == -1 || clocks_steer_caches(in, s) == -1)
		return -1;
	clocks_steer_fill(in, anycast, s);
	clocks_steer_totals(s);
	s->upstream_queries = in->nqcaptures ? 0 : CLOCKS_NONE;
	for (size_t i = 0; i < in->nqcaptures; i++)
		for (size_t k = 0; k < in->qcaptures[i].n; k++)
			s->upstream_queries += in->qcaptures[i].queries[k].t_ns >= s->from_ns &&
					       in->qcaptures[i].queries[k].t_ns < s->until_ns;
	return 0;
}

void clocks_steering_prepare(struct clocks_input *in, const struct clocks_result *anycast)
{
	struct clocks_steering *s = malloc(sizeof(*s));

	free(in->steering);
	in->steering = NULL;
	if (s == NULL || clocks_steering(in, anycast, s) == -1) {
		free(s);
		clocks_warn(&in->notes, "limit", "steering: out of memory, not measured");
		return;
	}
	/* the two counts of the shares should agree: a capture that missed
	 * requests, or records that name another site, shows here */
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		if (r->disagreement > CLOCKS_STEER_AGREE && r->nanswered >= 100)
			clocks_warn(&in->notes, "steering_records",
				    "%s %s: the shares of the clients' records (%lld ok) are %.3f "
				    "from the captures' (%lld requests), more than %.2f",
				    r->scheme == CLOCKS_SCHEME_DNS ? "dns" : "anycast", r->group,
				    (long long)r->nanswered, r->disagreement,
				    (long long)r->ncaptured, CLOCKS_STEER_AGREE);
	}
	if (s->lost_rows)
		clocks_warn(&in->notes, "limit",
			    "steering: more than %d client groups, %d not counted",
			    CLOCKS_STEER_ROWS, s->lost_rows);
	in->steering = s;
}

static const char *clocks_steer_ms(char *buf, size_t len, int64_t ns)
{
	if (ns == CLOCKS_NONE)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", (double)ns / 1e6);
	return buf;
}

/* the texts of a row's cells that both tables print: its deviation ("-"
 * without a target) and its five times in ms (RTT mean, p50, p99; DNS
 * resolution p50, p99) */
struct clocks_steer_text {
	char dev[32], ms[5][32];
};

static void clocks_steer_text(const struct clocks_steer_row *r, struct clocks_steer_text *x)
{
	const int64_t ns[5] = {r->rtt.mean_ns, r->rtt.p50_ns, r->rtt.p99_ns, r->resolution.p50_ns,
			       r->resolution.p99_ns};

	if (r->deviation >= 0)
		snprintf(x->dev, sizeof(x->dev), "%.3f", r->deviation);
	else
		snprintf(x->dev, sizeof(x->dev), "-");
	for (int k = 0; k < 5; k++)
		clocks_steer_ms(x->ms[k], sizeof(x->ms[k]), ns[k]);
}

void clocks_steering_print(FILE *out, const struct clocks_input *in)
{
	const struct clocks_steering *s = in->steering;
	struct clocks_steer_text x;
	char a[32], b[32], c[32], d[32], e[32];

	if (s == NULL || s->nrows == 0)
		return;
	fprintf(out,
		"\nsteering (%s; shares from the site captures; docs/clocks.md, "
		"\"Steering\")\n",
		in->steady ? "the whole traffic" : "before t0");
	fprintf(out, "%-8s %-12s |", "scheme", "group");
	for (int k = 0; k < s->nsites; k++)
		fprintf(out, " %7.7s", s->sites[k]);
	fprintf(out, " | deviation | requests | rtt mean  rtt p50  rtt p99 (ms) | dns p50  dns "
		     "p99 (ms)\n");
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		fprintf(out, "%-8s %-12.12s |", r->scheme == CLOCKS_SCHEME_DNS ? "dns" : "anycast",
			r->group[0] ? r->group : "?");
		for (int k = 0; k < s->nsites; k++)
			fprintf(out, " %6.1f%%", r->share[k] * 100);
		clocks_steer_text(r, &x);
		fprintf(out, " | %9s | %8lld | %8s %8s %8s      | %7s %8s\n", x.dev,
			(long long)r->ncaptured, x.ms[0], x.ms[1], x.ms[2], x.ms[3], x.ms[4]);
	}
	for (int sc = CLOCKS_SCHEME_ANYCAST; sc <= CLOCKS_SCHEME_DNS; sc++) {
		const struct clocks_steer_total *t = &s->total[sc];

		if (t->n == 0)
			continue;
		fprintf(out, "%-8s %-12s |", sc == CLOCKS_SCHEME_DNS ? "dns" : "anycast", "(all)");
		for (int k = 0; k < s->nsites; k++)
			fprintf(out, " %6.1f%%", t->share[k] * 100);
		if (t->has_target)
			snprintf(a, sizeof(a), "%.3f", t->deviation);
		else
			snprintf(a, sizeof(a), "-");
		fprintf(out, " | %9s | %8lld |\n", a, (long long)t->n);
	}
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		fprintf(out, "  %s %s: target: %s\n",
			r->scheme == CLOCKS_SCHEME_DNS ? "dns" : "anycast",
			r->group[0] ? r->group : "?", r->target_from);
		if (r->cache_hit.n + r->cache_miss.n > 0)
			fprintf(
			    out,
			    "  %s %s: cache hits %lld (p50 %s ms, p99 %s ms), misses %lld (p50 %s "
			    "ms, p99 %s ms)\n",
			    "dns", r->group[0] ? r->group : "?", (long long)r->cache_hit.n,
			    clocks_steer_ms(b, sizeof(b), r->cache_hit.p50_ns),
			    clocks_steer_ms(c, sizeof(c), r->cache_hit.p99_ns),
			    (long long)r->cache_miss.n,
			    clocks_steer_ms(d, sizeof(d), r->cache_miss.p50_ns),
			    clocks_steer_ms(e, sizeof(e), r->cache_miss.p99_ns));
	}
	if (s->upstream_queries != CLOCKS_NONE)
		fprintf(out, "upstream DNS queries in the period: %lld\n",
			(long long)s->upstream_queries);
}

static json_t *clocks_steer_json_ms(int64_t ns)
{
	return ns == CLOCKS_NONE ? json_null() : json_real((double)ns / 1e6);
}

static json_t *clocks_steer_json_dist(const struct clocks_steer_dist *d)
{
	return json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)d->n, "mean_ms",
			 clocks_steer_json_ms(d->mean_ns), "p50_ms",
			 clocks_steer_json_ms(d->p50_ns), "p99_ms",
			 clocks_steer_json_ms(d->p99_ns));
}

json_t *clocks_steering_json(const struct clocks_input *in)
{
	const struct clocks_steering *s = in->steering;
	json_t *o, *rows, *sites;

	if (s == NULL)
		return NULL;
	o = json_object();
	rows = json_array();
	sites = json_array();
	for (int k = 0; k < s->nsites; k++)
		json_array_append_new(sites, json_string(s->sites[k]));
	json_object_set_new(o, "period", json_string(in->steady ? "traffic" : "before_t0"));
	json_object_set_new(o, "from_ns", json_integer(s->from_ns));
	json_object_set_new(o, "until_ns", json_integer(s->until_ns));
	json_object_set_new(o, "shares_from", json_string("captures"));
	json_object_set_new(o, "sites", sites);
	json_object_set_new(o, "upstream_queries",
			    s->upstream_queries == CLOCKS_NONE ? json_null()
							       : json_integer(s->upstream_queries));
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];
		json_t *row = json_object(), *share = json_object(), *target = json_object();
		json_t *cap = json_object(), *ans = json_object();

		for (int k = 0; k < s->nsites; k++) {
			json_object_set_new(share, s->sites[k], json_real(r->share[k]));
			json_object_set_new(cap, s->sites[k], json_integer(r->captured[k]));
			json_object_set_new(ans, s->sites[k], json_integer(r->answered[k]));
			if (r->has_target)
				json_object_set_new(target, s->sites[k], json_real(r->target[k]));
		}
		json_object_set_new(
		    row, "scheme", json_string(r->scheme == CLOCKS_SCHEME_DNS ? "dns" : "anycast"));
		json_object_set_new(row, "group", json_string(r->group));
		json_object_set_new(row, "requests", json_integer(r->ncaptured));
		json_object_set_new(row, "share", share);
		json_object_set_new(row, "captured", cap);
		json_object_set_new(row, "answered", ans);
		json_object_set_new(row, "answered_total", json_integer(r->nanswered));
		json_object_set_new(row, "records_disagreement",
				    r->disagreement < 0 ? json_null() : json_real(r->disagreement));
		if (r->has_target) {
			json_object_set_new(row, "target", target);
			if (r->deviation >= 0)
				json_object_set_new(row, "deviation", json_real(r->deviation));
		} else {
			json_decref(target);
		}
		json_object_set_new(row, "target_from", json_string(r->target_from));
		json_object_set_new(row, "rtt", clocks_steer_json_dist(&r->rtt));
		if (r->scheme == CLOCKS_SCHEME_DNS) {
			json_object_set_new(row, "resolution",
					    clocks_steer_json_dist(&r->resolution));
			json_object_set_new(row, "cache_hit",
					    clocks_steer_json_dist(&r->cache_hit));
			json_object_set_new(row, "cache_miss",
					    clocks_steer_json_dist(&r->cache_miss));
		}
		json_array_append_new(rows, row);
	}
	json_object_set_new(o, "groups", rows);
	json_t *schemes = json_object();
	for (int sc = CLOCKS_SCHEME_ANYCAST; sc <= CLOCKS_SCHEME_DNS; sc++) {
		const struct clocks_steer_total *t = &s->total[sc];
		json_t *to = json_object(), *share = json_object(), *target = json_object();

		if (t->n == 0) {
			json_decref(to);
			json_decref(share);
			json_decref(target);
			continue;
		}
		for (int k = 0; k < s->nsites; k++) {
			json_object_set_new(share, s->sites[k], json_real(t->share[k]));
			json_object_set_new(target, s->sites[k], json_real(t->target[k]));
		}
		json_object_set_new(to, "requests", json_integer(t->n));
		json_object_set_new(to, "share", share);
		if (t->has_target) {
			json_object_set_new(to, "target", target);
			json_object_set_new(to, "deviation", json_real(t->deviation));
		} else {
			json_decref(target);
		}
		json_object_set_new(schemes, sc == CLOCKS_SCHEME_DNS ? "dns" : "anycast", to);
	}
	json_object_set_new(o, "schemes", schemes);
	return o;
}

void clocks_steering_md(FILE *out, const struct clocks_input *in)
{
	const struct clocks_steering *s = in->steering;
	struct clocks_steer_text x;
	char a[32], b[32], c[32], d[32], e[32];

	if (s == NULL || s->nrows == 0)
		return;
	fprintf(out, "| scheme | group |");
	for (int k = 0; k < s->nsites; k++)
		fprintf(out, " %s |", s->sites[k]);
	fprintf(out, " deviation | requests | RTT mean (ms) | RTT p50 (ms) | RTT p99 (ms) | "
		     "DNS p50 (ms) | DNS p99 (ms) |\n|---|---|");
	for (int k = 0; k < s->nsites; k++)
		fprintf(out, "---:|");
	fprintf(out, "---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		fprintf(out, "| %s | %s |", r->scheme == CLOCKS_SCHEME_DNS ? "dns" : "anycast",
			r->group[0] ? r->group : "?");
		for (int k = 0; k < s->nsites; k++)
			fprintf(out, " %.1f %% |", r->share[k] * 100);
		clocks_steer_text(r, &x);
		fprintf(out, " %s | %lld | %s | %s | %s | %s | %s |\n", x.dev,
			(long long)r->ncaptured, x.ms[0], x.ms[1], x.ms[2], x.ms[3], x.ms[4]);
	}
	for (int sc = CLOCKS_SCHEME_ANYCAST; sc <= CLOCKS_SCHEME_DNS; sc++) {
		const struct clocks_steer_total *t = &s->total[sc];

		if (t->n == 0)
			continue;
		fprintf(out, "| %s | (all) |", sc == CLOCKS_SCHEME_DNS ? "dns" : "anycast");
		for (int k = 0; k < s->nsites; k++)
			fprintf(out, " %.1f %% |", t->share[k] * 100);
		if (t->has_target)
			snprintf(a, sizeof(a), "%.3f", t->deviation);
		else
			snprintf(a, sizeof(a), "-");
		fprintf(out, " %s | %lld | | | | | |\n", a, (long long)t->n);
	}
	fputc('\n', out);
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		fprintf(out, "- %s %s: target: %s",
			r->scheme == CLOCKS_SCHEME_DNS ? "dns" : "anycast",
			r->group[0] ? r->group : "?", r->target_from);
		if (r->disagreement >= 0)
			fprintf(out, "; the clients' records (%lld ok) give shares %.3f away",
				(long long)r->nanswered, r->disagreement);
		if (r->cache_hit.n + r->cache_miss.n > 0)
			fprintf(
			    out,
			    "; its queries to the caches (resolver captures): %lld hits, p50 %s "
			    "ms, p99 %s ms; %lld misses, p50 %s ms, p99 %s ms",
			    (long long)r->cache_hit.n,
			    clocks_steer_ms(b, sizeof(b), r->cache_hit.p50_ns),
			    clocks_steer_ms(c, sizeof(c), r->cache_hit.p99_ns),
			    (long long)r->cache_miss.n,
			    clocks_steer_ms(d, sizeof(d), r->cache_miss.p50_ns),
			    clocks_steer_ms(e, sizeof(e), r->cache_miss.p99_ns));
		fprintf(out, "\n");
	}
	if (s->upstream_queries != CLOCKS_NONE)
		fprintf(out, "- upstream DNS queries (authd links) in the period: %lld\n",
			(long long)s->upstream_queries);
}
