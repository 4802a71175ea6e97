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
#include <strings.h>

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

const char *clocks_steer_node(const struct clocks_input *in, uint32_t client)
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

int clocks_steer_dname_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	la -= la > 1 && a[la - 1] == '.';
	lb -= lb > 1 && b[lb - 1] == '.';
	return la > 0 && la == lb && strncasecmp(a, b, la) == 0;
}

const struct clocks_topo_name *clocks_steer_name_of(const struct clocks_input *in,
						    const char *group, char *name, size_t len)
{
	const struct clocks_topo_dns *d = &in->dnstopo;

	int said = 0;

	snprintf(name, len, "%s", "");
	for (int c = 0; c < d->nclients; c++)
		if (strcmp(d->clients[c].name, group) == 0)
			snprintf(name, len, "%s", d->clients[c].dns_name);
	said = name[0] != '\0';
	/* without a name key: the [lab]'s dns_name, or the only [name] (the
	 * lab's may lead to it by a CNAME) */
	if (!said)
		snprintf(name, len, "%s", d->lab_name);
	for (int i = 0; i < d->nnames; i++)
		if (clocks_steer_dname_eq(d->names[i].name, name))
			return &d->names[i];
	if (!said && d->nnames == 1) {
		snprintf(name, len, "%s", d->names[0].name);
		return &d->names[0];
	}
	if (!said)
		name[0] = '\0';
	return NULL;
}

/* clocks_steer_shares: target from n pairs of site and weight; 0, or -1 if
 * a site has no capture (said in why) */
static int clocks_steer_shares(const struct clocks_steering *s, struct clocks_steer_row *r, int n,
			       const char (*site)[CLOCKS_NAME_MAX], const double *w,
			       const char *what)
{
	double total = 0;

	for (int i = 0; i < n; i++) {
		if (clocks_steer_site(s, site[i]) < 0) {
			snprintf(r->target_from, sizeof(r->target_from),
				 "%s: site %.40s has no capture: no target", what, site[i]);
			return -1;
		}
		total += w[i];
	}
	for (int i = 0; i < n; i++)
		r->target[clocks_steer_site(s, site[i])] += w[i] / total;
	return 0;
}

/* clocks_steer_reweighted: a set-weight of name fell in the period */
static int clocks_steer_reweighted(const struct clocks_input *in, const struct clocks_steering *s,
				   const char *name)
{
	for (size_t i = 0; i < in->nzchanges; i++)
		if (strcmp(in->zchanges[i].what, "set-weight") == 0 &&
		    in->zchanges[i].t_ns >= s->from_ns && in->zchanges[i].t_ns < s->until_ns &&
		    clocks_steer_dname_eq(in->zchanges[i].name, name))
			return 1;
	return 0;
}

/* clocks_steer_dns_target: the intended shares of the name the row's
 * node asks: weighted's weights, failover's primary, else the [lab]'s
 * target_share */
static void clocks_steer_dns_target(const struct clocks_input *in, const struct clocks_steering *s,
				    struct clocks_steer_row *r)
{
	const struct clocks_topo_dns *d = &in->dnstopo;
	const struct clocks_topo_name *n =
	    clocks_steer_name_of(in, r->group, r->name, sizeof(r->name));
	const char *policy;
	double w[CLOCKS_TOPO_WEIGHTS];
	int k;

	if (n == NULL) {
		if (d->nnames == 0)
			snprintf(r->target_from, sizeof(r->target_from),
				 "no [name] known: no target");
		else
			snprintf(r->target_from, sizeof(r->target_from),
				 "%.60s%s is no [name] of the topology: no target",
				 r->name[0] ? r->name : "the name it asks",
				 r->name[0] ? "" : " (not known)");
		return;
	}
	policy = n->policy[0] ? n->policy : "simple";
	if (strcmp(policy, "weighted") == 0 && clocks_steer_reweighted(in, s, n->name)) {
		snprintf(r->target_from, sizeof(r->target_from),
			 "weighted: its weights changed in the period (set-weight): no one "
			 "target; the weights table has each period's");
		return;
	}
	if (strcmp(policy, "weighted") == 0 && n->nweights > 0) {
		for (int i = 0; i < n->nweights; i++)
			w[i] = (double)n->weight[i];
		if (clocks_steer_shares(s, r, n->nweights, n->wsite, w, "weighted") == -1)
			return;
		snprintf(r->target_from, sizeof(r->target_from), "weighted: its weights");
	} else if (strcmp(policy, "failover") == 0 && n->primary[0]) {
		if ((k = clocks_steer_site(s, n->primary)) < 0) {
			snprintf(r->target_from, sizeof(r->target_from),
				 "failover: primary %.40s has no capture: no target", n->primary);
			return;
		}
		r->target[k] = 1;
		snprintf(r->target_from, sizeof(r->target_from), "failover: primary %.40s 100 %%",
			 n->primary);
	} else if (d->ntarget > 0) {
		if (clocks_steer_shares(s, r, d->ntarget, d->tsite, d->tweight,
					"[lab] target_share") == -1)
			return;
		snprintf(r->target_from, sizeof(r->target_from),
			 "[lab] target_share (policy %.20s defines no shares)", policy);
	} else {
		snprintf(r->target_from, sizeof(r->target_from),
			 "policy %.20s defines no shares: no target", policy);
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

/* clocks_steer_total: t over the rows of scheme sc asking name (NULL:
 * every row of the scheme) */
static void clocks_steer_total(const struct clocks_steering *s, int sc, const char *name,
			       struct clocks_steer_total *t)
{
	double rtt_sum = 0;

	memset(t, 0, sizeof(*t));
	t->scheme = sc;
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
	t->has_target = 1;
	t->deviation = -1;
	t->rtt_mean_ns = CLOCKS_NONE;
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		if (r->scheme != sc || r->ncaptured == 0 || (name && strcmp(r->name, name) != 0))
			continue;
		t->n += r->ncaptured;
		t->has_target &= r->has_target;
		for (int k = 0; k < s->nsites; k++) {
			t->share[k] += (double)r->captured[k];
			t->target[k] += r->target[k] * (double)r->ncaptured;
		}
		if (r->rtt.n > 0) {
			t->rtt_n += r->rtt.n;
			rtt_sum += (double)r->rtt.mean_ns * (double)r->rtt.n;
		}
	}
	if (t->rtt_n > 0)
		t->rtt_mean_ns = (int64_t)(rtt_sum / (double)t->rtt_n + 0.5);
	if (t->n == 0) {
		t->has_target = 0;
		return;
	}
	for (int k = 0; k < s->nsites; k++) {
		t->share[k] /= (double)t->n;
		t->target[k] /= (double)t->n;
	}
	if (t->has_target)
		t->deviation = clocks_steer_deviation(t->share, t->target, s->nsites);
}

void clocks_steer_totals(struct clocks_steering *s)
{
	for (int sc = 0; sc < 3; sc++)
		clocks_steer_total(s, sc, NULL, &s->total[sc]);
	/* each name's, when the dns groups ask more than one */
	s->nnames = 0;
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];
		int seen = 0;

		if (r->scheme != CLOCKS_SCHEME_DNS || r->name[0] == '\0')
			continue;
		for (int j = 0; j < s->nnames && !seen; j++)
			seen = strcmp(s->names[j].name, r->name) == 0;
		if (!seen && s->nnames < CLOCKS_STEER_NAMES)
			clocks_steer_total(s, CLOCKS_SCHEME_DNS, r->name, &s->names[s->nnames++]);
	}
	if (s->nnames < 2)
		s->nnames = 0;
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
	/* or the first request a client sent, if earlier: traffic_started is
	 * written once every client is started, and the first may have sent
	 * for a while by then (12 populations: 0.22 s) */
	for (size_t i = 0; i < in->nrequests && s->from_ns != INT64_MIN; i++)
		if (in->requests[i].sent_ns > 0 && in->requests[i].sent_ns < s->from_ns)
			s->from_ns = in->requests[i].sent_ns;
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
	/* each name row's [name] (q->name's numbering), found once, not
	 * compared as text for every query */
	int of[CLOCKS_STEER_NAMES];
	for (int j = 0; j < s->nnames; j++) {
		s->names[j].upstream = s->upstream_queries;
		of[j] = 0;
		for (int i = 0; i < in->dnstopo.nnames && !of[j]; i++)
			if (clocks_steer_dname_eq(s->names[j].name, in->dnstopo.names[i].name))
				of[j] = i + 1;
	}
	for (size_t i = 0; i < in->nqcaptures; i++)
		for (size_t k = 0; k < in->qcaptures[i].n; k++) {
			const struct clocks_query *q = &in->qcaptures[i].queries[k];

			if (q->t_ns < s->from_ns || q->t_ns >= s->until_ns)
				continue;
			s->upstream_queries++;
			/* the name's row: its own queries (the question's name) */
			for (int j = 0; j < s->nnames && q->name > 0; j++)
				s->names[j].upstream += of[j] == q->name;
		}
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
