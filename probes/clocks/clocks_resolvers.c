/*
 * The resolver measurements, per [resolver] node of the recorded topology
 * (docs/clocks.md, "Resolvers"); see clocks_resolvers.h, clocks_resolvers(). Pure
 * computation on the loaded run: the query captures of the [dns] links
 * (upstream load per level), the captures of the [resolver] links (answered
 * from cache or not), the site captures (how each node's clients left the
 * dead site).
 */
#include "clocks_resolvers.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"

#define CLOCKS_RSV_DNS_PORT 53
#define CLOCKS_RSV_SERVFAIL 2
#define CLOCKS_RSV_LABEL_PREFIX "resolver-"
#define CLOCKS_RSV_QUERY_PREFIX "dns-"

static int clocks_rsv_in_block(struct in_addr a, uint32_t block)
{
	return (ntohl(a.s_addr) & 0xffffff00u) == block;
}

/* clocks_rsv_cache_of: a cache of a node by its address's last octet */
static unsigned clocks_rsv_cache_of(struct in_addr a)
{
	return ntohl(a.s_addr) & 0xffu;
}

/* a client query waiting for its answer */
struct clocks_rsv_pending {
	int64_t t_ns;
	struct in_addr client, cache;
	uint16_t port, id;
	int64_t upstream_seen; /* upstream answers to its cache before it arrived */
	int counted;	       /* arrived after from_ns */
};

/* clocks_rsv_classify: clocks_cache_classify, each query counted for its cache
 * in by[its last octet] */
static int clocks_rsv_classify(const struct clocks_dnsmsg *m, size_t n, uint32_t block,
			       int64_t from_ns, struct clocks_cache_counts *by,
			       clocks_cache_fn each, void *arg)
{
	struct clocks_rsv_pending *p = NULL;
	size_t np = 0, cap = 0;
	int64_t upstream[CLOCKS_RSV_CACHES] = {0}; /* upstream answers so far, per cache */
	struct clocks_cache_counts *c;

	for (size_t i = 0; i < n; i++) {
		const struct clocks_dnsmsg *x = &m[i];
		int from_node = clocks_rsv_in_block(x->src, block),
		    to_node = clocks_rsv_in_block(x->dst, block);

		/* queries not answered in time never will be: the client gave up */
		for (size_t k = 0; k < np;) {
			if (x->t_ns - p[k].t_ns <= CLOCKS_CACHE_WAIT_NS) {
				k++;
				continue;
			}
			by[clocks_rsv_cache_of(p[k].cache)].unanswered += p[k].counted;
			p[k] = p[--np];
		}
		if (x->qr && to_node && !from_node && x->sport == CLOCKS_RSV_DNS_PORT) {
			upstream[clocks_rsv_cache_of(x->dst)]++;
		} else if (!x->qr && to_node && !from_node && x->dport == CLOCKS_RSV_DNS_PORT) {
			if (clocks_grow((void **)&p, &cap, np, sizeof(*p)) == -1) {
				free(p);
				return -1;
			}
			p[np++] = (struct clocks_rsv_pending){x->t_ns,
							      x->src,
							      x->dst,
							      x->sport,
							      x->id,
							      upstream[clocks_rsv_cache_of(x->dst)],
							      from_ns == CLOCKS_NONE ||
								  x->t_ns > from_ns};
			by[clocks_rsv_cache_of(x->dst)].queries += p[np - 1].counted;
		} else if (x->qr && from_node && !to_node && x->sport == CLOCKS_RSV_DNS_PORT) {
			for (size_t k = 0; k < np; k++) {
				if (p[k].client.s_addr != x->dst.s_addr ||
				    p[k].cache.s_addr != x->src.s_addr || p[k].port != x->dport ||
				    p[k].id != x->id)
					continue;
				c = &by[clocks_rsv_cache_of(x->src)];
				int up =
				    upstream[clocks_rsv_cache_of(x->src)] != p[k].upstream_seen;
				int sf = !up && x->rcode == CLOCKS_RSV_SERVFAIL;

				if (p[k].counted) {
					c->answered++;
					if (up)
						c->upstream++;
					else if (sf)
						c->servfail++;
					else
						c->cache++;
				}
				if (p[k].counted && each) {
					struct clocks_cache_txn tx = {
					    p[k].t_ns, x->t_ns - p[k].t_ns, p[k].client, up, sf};

					each(arg, &tx);
				}
				p[k] = p[--np];
				break;
			}
		}
	}
	for (size_t k = 0; k < np; k++)
		by[clocks_rsv_cache_of(p[k].cache)].unanswered += p[k].counted;
	free(p);
	return 0;
}

int clocks_cache_classify(const struct clocks_dnsmsg *m, size_t n, uint32_t block, int64_t from_ns,
			  struct clocks_cache_counts *c, struct clocks_cache_counts *by_cache)
{
	struct clocks_cache_counts *by =
	    by_cache ? by_cache : calloc(CLOCKS_RSV_CACHES, sizeof(*by));

	memset(c, 0, sizeof(*c));
	if (by == NULL)
		return -1;
	memset(by, 0, CLOCKS_RSV_CACHES * sizeof(*by));
	if (clocks_rsv_classify(m, n, block, from_ns, by, NULL, NULL) == -1) {
		if (by != by_cache)
			free(by);
		return -1;
	}
	for (int i = 0; i < CLOCKS_RSV_CACHES; i++) {
		c->queries += by[i].queries;
		c->answered += by[i].answered;
		c->cache += by[i].cache;
		c->upstream += by[i].upstream;
		c->servfail += by[i].servfail;
		c->unanswered += by[i].unanswered;
	}
	if (by != by_cache)
		free(by);
	return 0;
}

int clocks_cache_each(const struct clocks_dnsmsg *m, size_t n, uint32_t block, int64_t from_ns,
		      clocks_cache_fn each, void *arg)
{
	struct clocks_cache_counts *by = calloc(CLOCKS_RSV_CACHES, sizeof(*by));
	int rc;

	if (by == NULL)
		return -1;
	rc = clocks_rsv_classify(m, n, block, from_ns, by, each, arg);
	free(by);
	return rc;
}

/* clocks_rsv_level_of: the level of the [dns] node whose link capture is label
 * ("dns-NODE"); zone for a node the topology does not name */
static enum clocks_level clocks_rsv_level_of(const struct clocks_input *in, const char *label)
{
	const char *node = label;

	if (strncmp(label, CLOCKS_RSV_QUERY_PREFIX, strlen(CLOCKS_RSV_QUERY_PREFIX)) == 0)
		node += strlen(CLOCKS_RSV_QUERY_PREFIX);
	for (int i = 0; i < in->dnstopo.ndns; i++)
		if (strcmp(in->dnstopo.dns[i].name, node) == 0)
			return in->dnstopo.dns[i].level;
	return CLOCKS_LEVEL_ZONE;
}

/* clocks_rsv_upstream: every query that reached a [dns] link, by source node and
 * level */
static void clocks_rsv_upstream(const struct clocks_input *in, struct clocks_resolvers *rs)
{
	int64_t init = in->nqcaptures ? 0 : CLOCKS_NONE;

	for (int l = 0; l < CLOCKS_LEVELS; l++) {
		rs->other_up[l] = rs->other_up_after[l] = init;
		for (int k = 0; k < rs->n; k++)
			rs->r[k].up[l] = rs->r[k].up_after[l] = init;
	}
	for (size_t i = 0; i < in->nqcaptures; i++) {
		const struct clocks_query_capture *q = &in->qcaptures[i];
		enum clocks_level l = clocks_rsv_level_of(in, q->label);

		for (size_t j = 0; j < q->n; j++) {
			int k = clocks_rsv_of_addr(in, q->queries[j].src);
			int after = q->queries[j].t_ns > in->failure.t0_ns;

			if (k >= 0) {
				rs->r[k].up[l]++;
				rs->r[k].up_after[l] += after;
			} else {
				rs->other_up[l]++;
				rs->other_up_after[l] += after;
			}
		}
	}
}

/* clocks_rsv_cache: each node's link capture, classified */
static int clocks_rsv_cache(const struct clocks_input *in, struct clocks_resolvers *rs)
{
	for (size_t i = 0; i < in->nrcaptures; i++) {
		const struct clocks_rsv_capture *c = &in->rcaptures[i];
		const char *node = c->label + strlen(CLOCKS_RSV_LABEL_PREFIX);

		if (strncmp(c->label, CLOCKS_RSV_LABEL_PREFIX, strlen(CLOCKS_RSV_LABEL_PREFIX)) !=
		    0)
			continue;
		for (int k = 0; k < rs->n; k++) {
			struct clocks_rsv_result *r = &rs->r[k];

			if (strcmp(r->node->name, node) != 0)
				continue;
			r->has_capture = 1;
			if (clocks_cache_classify(c->msgs, c->n, CLOCKS_RSV_BLOCK(k), CLOCKS_NONE,
						  &r->cache, NULL) == -1 ||
			    clocks_cache_classify(c->msgs, c->n, CLOCKS_RSV_BLOCK(k),
						  in->failure.t0_ns, &r->cache_after, NULL) == -1)
				return -1;
		}
	}
	return 0;
}

static void clocks_rsv_add_client(struct clocks_rsv_result *r, const struct clocks_client *c)
{
	for (int i = 0; i < r->nclients; i++)
		if (r->clients[i] == c->id)
			return;
	if (r->nclients < CLOCKS_MAX_CLIENTS)
		r->clients[r->nclients++] = c->id;
	r->users += c->population > 0 ? c->population : 1;
}

/* clocks_rsv_clients: how each node's DNS clients left the dead site */
static int clocks_rsv_clients(const struct clocks_input *in, struct clocks_resolvers *rs)
{
	struct clocks_rsv_map map;
	int dead_known = in->failure.has_address;

	if (clocks_rsv_map(in, &map) == -1)
		return -1;
	for (int k = 0; k < rs->n; k++) {
		rs->r[k].dead_after = rs->r[k].all_after = rs->r[k].window_ns = CLOCKS_NONE;
		rs->r[k].dead_before = CLOCKS_NONE;
		if (dead_known)
			rs->r[k].dead_after = rs->r[k].all_after = rs->r[k].window_ns =
			    rs->r[k].dead_before = 0;
	}
	for (size_t i = 0; i < in->nclients; i++) {
		int k = clocks_rsv_map_of(&map, in->clients[i].id);

		if (k >= 0 && clocks_scheme_of(in->clients[i].id) == CLOCKS_SCHEME_DNS)
			clocks_rsv_add_client(&rs->r[k], &in->clients[i]);
	}
	for (size_t i = 0; i < in->ncaptures && dead_known; i++) {
		const struct clocks_capture *c = &in->captures[i];
		int dead = strcmp(c->label, in->failure.site) == 0;

		for (size_t j = 0; j < c->n; j++) {
			const struct clocks_packet *p = &c->packets[j];
			int k;

			if (p->t_ns <= in->failure.t0_ns - NSEC_PER_SEC ||
			    clocks_scheme_of(p->client) != CLOCKS_SCHEME_DNS ||
			    (k = clocks_rsv_map_of(&map, p->client)) < 0)
				continue;
			if (p->t_ns <= in->failure.t0_ns) {
				if (dead && clocks_is_flow(in, &clocks_dns_flows, p) &&
				    clocks_dns_flows.to_dead(in, p))
					rs->r[k].dead_before++;
				continue;
			}
			rs->r[k].all_after++;
			if (dead && clocks_is_dead(in, &clocks_dns_flows, c, j)) {
				rs->r[k].dead_after++;
				if (p->t_ns - in->failure.t0_ns > rs->r[k].window_ns)
					rs->r[k].window_ns = p->t_ns - in->failure.t0_ns;
			}
		}
	}
	clocks_rsv_map_free(&map);
	return 0;
}

int clocks_resolvers(const struct clocks_input *in, struct clocks_resolvers *rs)
{
	int64_t end = clocks_traffic_end(in);

	memset(rs, 0, sizeof(*rs));
	rs->n = in->dnstopo.nrsv;
	for (int k = 0; k < rs->n; k++)
		rs->r[k].node = &in->dnstopo.rsv[k];
	rs->traffic_ns = clocks_traffic_ns(in);
	rs->after_ns =
	    end != CLOCKS_NONE && end > in->failure.t0_ns ? end - in->failure.t0_ns : CLOCKS_NONE;
	clocks_rsv_upstream(in, rs);
	if (clocks_rsv_cache(in, rs) == -1 || clocks_rsv_clients(in, rs) == -1)
		return -1;
	return 0;
}

void clocks_resolvers_verdict(const struct clocks_input *in, const struct clocks_resolvers *rs,
			      struct clocks_notes *v)
{
	for (int k = 0; k < rs->n; k++) {
		const struct clocks_rsv_result *r = &rs->r[k];

		/* a node whose clients did not use the site when it failed has
		 * no failover to show, and none is missing */
		if (r->nclients == 0 || r->dead_after == CLOCKS_NONE ||
		    (r->dead_before == 0 && r->dead_after == 0))
			continue;
		if (r->dead_after == 0)
			clocks_warn(
			    v, "resolver_no_failover",
			    "[resolver] %s: its DNS clients sent %lld requests to %s in the "
			    "second before t0 and none after (none had its address then): its "
			    "curve shows no failover to compare",
			    r->node->name, (long long)r->dead_before, in->failure.site);
		else if (r->dead_after == r->all_after)
			clocks_warn(v, "resolver_no_failover",
				    "[resolver] %s: its DNS clients sent every request after t0 to "
				    "%s (%lld): none failed over before the observation ended",
				    r->node->name, in->failure.site, (long long)r->dead_after);
	}
}

/* the map of DNS client ids (their agents') to the node they ask */
static int clocks_rsv_map_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct clocks_rsv_map_entry *)a)->agent;
	uint32_t y = ((const struct clocks_rsv_map_entry *)b)->agent;

	return x < y ? -1 : x > y;
}

int clocks_rsv_map(const struct clocks_input *in, struct clocks_rsv_map *m)
{
	m->n = 0;
	m->e = malloc((in->nclients ? in->nclients : 1) * sizeof(*m->e));
	if (m->e == NULL)
		return -1;
	for (size_t i = 0; i < in->nclients; i++) {
		int k = clocks_rsv_of_client(in, in->clients[i].id);

		if (k >= 0)
			m->e[m->n++] = (struct clocks_rsv_map_entry){in->clients[i].id, k};
	}
	qsort(m->e, m->n, sizeof(*m->e), clocks_rsv_map_cmp);
	return 0;
}

int clocks_rsv_map_of(const struct clocks_rsv_map *m, uint32_t client)
{
	struct clocks_rsv_map_entry key = {wire_agent_of(client), 0}, *e;

	e = bsearch(&key, m->e, m->n, sizeof(*m->e), clocks_rsv_map_cmp);
	return e ? e->rsv : -1;
}

void clocks_rsv_map_free(struct clocks_rsv_map *m)
{
	free(m->e);
	m->e = NULL;
	m->n = 0;
}
