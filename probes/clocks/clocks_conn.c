/* The connection clocks from the site links' TCP segments; see clocks_conn.h. */
#include "clocks_conn.h"

#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "ipframe.h"

/* one connection a client opened at one site: its first SYN there, the
 * first FIN or RST of it there, and the client's first FIN of it there (a
 * close on purpose: CLOCKS_NONE: none) */
struct clocks_conn_flow {
	uint32_t client, server; /* network order */
	uint16_t cport;
	int site;
	int64_t syn_ns, closed_ns, client_fin_ns;
	int moved; /* counted in rsts_collateral: reset by another site after t0 */
};

/* clocks_conn_key_cmp: by connection and site, the time left out */
static int clocks_conn_key_cmp(const struct clocks_conn_flow *x, const struct clocks_conn_flow *y)
{
	if (x->client != y->client)
		return x->client < y->client ? -1 : 1;
	if (x->cport != y->cport)
		return x->cport < y->cport ? -1 : 1;
	if (x->server != y->server)
		return x->server < y->server ? -1 : 1;
	return (x->site > y->site) - (x->site < y->site);
}

/* clocks_conn_cmp: by key, then by the first SYN's time (qsort's) */
static int clocks_conn_cmp(const void *a, const void *b)
{
	const struct clocks_conn_flow *x = a, *y = b;
	int c = clocks_conn_key_cmp(x, y);

	return c ? c : (x->syn_ns > y->syn_ns) - (x->syn_ns < y->syn_ns);
}

/* clocks_conn_key: the flow key of seg at site */
static struct clocks_conn_flow clocks_conn_key(const struct clocks_tcpseg *seg, int site)
{
	return (struct clocks_conn_flow){seg->client.s_addr, seg->server.s_addr, seg->cport,  site,
					 INT64_MIN,	     CLOCKS_NONE,	 CLOCKS_NONE, 0};
}

/* clocks_conn_find: the flow of key among the n distinct ones, or NULL */
static struct clocks_conn_flow *clocks_conn_find(struct clocks_conn_flow *flows, size_t n,
						 const struct clocks_conn_flow *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = clocks_conn_key_cmp(&flows[mid], key);

		if (c == 0)
			return &flows[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* clocks_conn_prober: whether a is a [prober]'s or another node's that is no
 * client (lab_up's addresses: a remote prober's TCP check opens connections
 * to the sites too, and they are no client's); 0 when the run says nothing */
static int clocks_conn_prober(const struct clocks_input *in, struct in_addr a)
{
	for (size_t i = 0; i < in->naddrs; i++) {
		if (in->addrs[i].addr.s_addr != a.s_addr)
			continue;
		for (int k = 0; k < in->dnstopo.nclients; k++)
			if (strcmp(in->dnstopo.clients[k].name, in->addrs[i].node) == 0)
				return 0;
		return in->dnstopo.nclients > 0;
	}
	return 0;
}

static int clocks_conn_client_syn(const struct clocks_tcpseg *seg)
{
	return !seg->from_server && (seg->flags & IPFRAME_SYN) && !(seg->flags & IPFRAME_ACK);
}

int clocks_conn_attempt(const struct clocks_input *in, const struct clocks_tcpseg *seg)
{
	return clocks_conn_client_syn(seg) && !clocks_conn_prober(in, seg->client);
}

/* clocks_conn_flows: every connection opened at every site, distinct, in
 * clocks_conn_cmp's order, with when each was first closed or reset there
 * (*n of them; NULL with *n 0 when none or out of memory: *oom) */
static struct clocks_conn_flow *clocks_conn_flows(const struct clocks_input *in, size_t *n,
						  int *oom)
{
	struct clocks_conn_flow *flows = NULL;
	size_t nf = 0, cap = 0, w = 0;

	*oom = 0;
	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];

		for (size_t k = 0; k < c->ntcp; k++) {
			if (!clocks_conn_client_syn(&c->tcp[k]) ||
			    clocks_conn_prober(in, c->tcp[k].client))
				continue;
			if (clocks_grow((void **)&flows, &cap, nf, sizeof(*flows)) == -1) {
				*oom = 1;
				free(flows);
				*n = 0;
				return NULL;
			}
			flows[nf] = clocks_conn_key(&c->tcp[k], (int)i);
			flows[nf++].syn_ns = c->tcp[k].t_ns;
		}
	}
	if (nf)
		qsort(flows, nf, sizeof(*flows), clocks_conn_cmp);
	/* the first SYN of each: a retransmission opens nothing new */
	for (size_t k = 0; k < nf; k++)
		if (w == 0 || clocks_conn_key_cmp(&flows[k], &flows[w - 1]) != 0)
			flows[w++] = flows[k];
	nf = w;
	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];

		for (size_t k = 0; k < c->ntcp; k++) {
			struct clocks_conn_flow key = clocks_conn_key(&c->tcp[k], (int)i), *f;

			if (!(c->tcp[k].flags & (IPFRAME_FIN | IPFRAME_RST)))
				continue;
			f = clocks_conn_find(flows, nf, &key);
			if (f == NULL || f->syn_ns > c->tcp[k].t_ns)
				continue;
			if (f->closed_ns == CLOCKS_NONE || c->tcp[k].t_ns < f->closed_ns)
				f->closed_ns = c->tcp[k].t_ns;
			if (!c->tcp[k].from_server && (c->tcp[k].flags & IPFRAME_FIN) &&
			    (f->client_fin_ns == CLOCKS_NONE || c->tcp[k].t_ns < f->client_fin_ns))
				f->client_fin_ns = c->tcp[k].t_ns;
		}
	}
	*n = nf;
	return flows;
}

int clocks_conn_after(const struct clocks_failure *f, int64_t t)
{
	return t > f->t0_ns && (f->recovered_ns == 0 || t < f->recovered_ns);
}

/* clocks_conn_segment: seg, seen at site (failed: the failed site's), into s */
static void clocks_conn_segment(const struct clocks_input *in, const struct clocks_tcpseg *seg,
				int site, int failed, struct clocks_conn_flow *flows, size_t nf,
				struct clocks_conn_scheme *s)
{
	const struct clocks_failure *f = &in->failure;
	const struct clocks_conn_flow *fl;
	struct clocks_conn_flow key;

	if (clocks_conn_client_syn(seg))
		s->syns++;
	if (in->steady || !clocks_conn_after(f, seg->t_ns))
		return;
	if (failed && clocks_conn_client_syn(seg)) {
		s->syns_failed++;
		if (s->last_syn_ns == CLOCKS_NONE || seg->t_ns - f->t0_ns > s->last_syn_ns)
			s->last_syn_ns = seg->t_ns - f->t0_ns;
	}
	if (!seg->from_server)
		return;
	if (failed) {
		s->rsts_failed += (seg->flags & IPFRAME_RST) != 0;
		if (!(seg->flags & IPFRAME_FIN))
			return;
		/* the site's half of a close the client began (a connection
		 * closed on purpose: requests_per_connection, idle_timeout) is
		 * no failure's */
		key = clocks_conn_key(seg, site);
		fl = clocks_conn_find(flows, nf, &key);
		if (fl == NULL || fl->client_fin_ns == CLOCKS_NONE || fl->client_fin_ns > seg->t_ns)
			s->fins_failed++;
		return;
	}
	if (!(seg->flags & IPFRAME_RST))
		return;
	key = clocks_conn_key(seg, site);
	fl = clocks_conn_find(flows, nf, &key);
	if (fl && fl->syn_ns <= seg->t_ns) {
		s->rsts_other++;
		return;
	}
	s->rsts_unknown++;
	/* opened at a third site, one that did not fail: the flow was moved
	 * off a healthy site (ECMP's rehashing) */
	for (size_t j = 0; j < in->ncaptures; j++) {
		struct clocks_conn_flow *moved;

		if ((int)j == site || strcmp(in->captures[j].label, f->site) == 0)
			continue;
		key.site = (int)j;
		moved = clocks_conn_find(flows, nf, &key);
		if (moved && moved->syn_ns <= seg->t_ns) {
			/* a connection, however many of its segments were reset */
			s->rsts_collateral += !moved->moved;
			moved->moved = 1;
			return;
		}
	}
}

static int clocks_conn_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* clocks_conn_dist_of: d from the n values v (sorted here) */
static void clocks_conn_dist_of(struct clocks_conn_dist *d, int64_t *v, size_t n)
{
	d->n = (int64_t)n;
	d->p50 = d->p99 = d->max = CLOCKS_NONE;
	if (n == 0)
		return;
	qsort(v, n, sizeof(*v), clocks_conn_i64);
	/* the p-th percentile is the ceil(p n / 100)-th smallest */
	d->p50 = v[(50 * n + 99) / 100 - 1];
	d->p99 = v[(99 * n + 99) / 100 - 1];
	d->max = v[n - 1];
}

/* clocks_conn_client: client id's fate from the records: 0 when a request
 * it sent after t0 failed (*first, *back: CLOCKS_NONE if never answered
 * again by another site, *failed), 1 when none did */
static int clocks_conn_client(const struct clocks_input *in, uint32_t id, int64_t *first,
			      int64_t *back, int64_t *failed)
{
	const struct clocks_failure *f = &in->failure;
	int64_t t0 = f->t0_ns, bad = INT64_MAX, ok_sent = INT64_MAX;

	*back = CLOCKS_NONE;
	*failed = 0;
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];

		if (q->client == id && q->sent_ns > t0 && q->status != CLOCKS_OK &&
		    q->sent_ns < bad)
			bad = q->sent_ns;
	}
	if (bad == INT64_MAX)
		return 1;
	*first = bad - t0;
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];

		if (q->client == id && q->status == CLOCKS_OK && q->sent_ns > bad &&
		    (strcmp(q->site, f->site) != 0 ||
		     (f->recovered_ns != 0 && q->sent_ns >= f->recovered_ns)) &&
		    q->sent_ns < ok_sent) {
			ok_sent = q->sent_ns;
			*back = q->sent_ns + q->rtt_ns - t0;
		}
	}
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];

		*failed += q->client == id && q->status != CLOCKS_OK && q->sent_ns > t0 &&
			   q->sent_ns < ok_sent;
	}
	return 0;
}

/* clocks_conn_per_client: s->per_client of the scheme's process clients (a
 * population's logical clients speak UDP: not here) */
static int clocks_conn_per_client(const struct clocks_input *in, enum clocks_scheme scheme,
				  struct clocks_conn_clients *pc)
{
	int64_t *first = NULL, *back = NULL, *failed = NULL;
	uint32_t *ids = NULL;
	size_t nids = 0, cap = 0, nh = 0, nb = 0;
	int rc = -1;

	memset(pc, 0, sizeof(*pc));
	for (size_t i = 0; i < in->nrequests; i++) {
		uint32_t id = in->requests[i].client;
		size_t k;

		if (clocks_scheme_of(id) != scheme || clocks_pop_of(id))
			continue;
		for (k = 0; k < nids && ids[k] != id; k++)
			;
		if (k < nids)
			continue;
		if (clocks_grow((void **)&ids, &cap, nids, sizeof(*ids)) == -1)
			goto out;
		ids[nids++] = id;
	}
	first = calloc(nids + 1, sizeof(*first));
	back = calloc(nids + 1, sizeof(*back));
	failed = calloc(nids + 1, sizeof(*failed));
	if (first == NULL || back == NULL || failed == NULL)
		goto out;
	for (size_t k = 0; k < nids; k++) {
		int64_t b;

		if (clocks_conn_client(in, ids[k], &first[nh], &b, &failed[nh]) != 0)
			continue;
		nh++;
		if (b != CLOCKS_NONE)
			back[nb++] = b;
	}
	pc->clients = (int64_t)nids;
	pc->hit = (int64_t)nh;
	clocks_conn_dist_of(&pc->first_error_ns, first, nh);
	clocks_conn_dist_of(&pc->recovered_ns, back, nb);
	clocks_conn_dist_of(&pc->failed, failed, nh);
	rc = 0;
out:
	free(ids);
	free(first);
	free(back);
	free(failed);
	return rc;
}

int clocks_conn(const struct clocks_input *in, struct clocks_conn *c)
{
	const struct clocks_failure *f = &in->failure;
	struct clocks_conn_flow *flows;
	size_t nf;
	int oom;

	memset(c, 0, sizeof(*c));
	c->anycast.last_syn_ns = c->dns.last_syn_ns = CLOCKS_NONE;
	c->steady = in->steady;
	/* a client's segments: a prober's TCP checks make no connections clock */
	for (size_t i = 0; i < in->ncaptures && !c->present; i++)
		for (size_t k = 0; k < in->captures[i].ntcp && !c->present; k++)
			c->present = !clocks_conn_prober(in, in->captures[i].tcp[k].client);
	if (!c->present)
		return 0;
	flows = clocks_conn_flows(in, &nf, &oom);
	if (oom)
		return -1;
	for (size_t k = 0; k < nf; k++) {
		struct clocks_conn_scheme *s =
		    flows[k].server == f->prefix.s_addr ? &c->anycast : &c->dns;
		int failed = strcmp(in->captures[flows[k].site].label, f->site) == 0;

		s->opened++;
		if (!in->steady && failed && flows[k].syn_ns < f->t0_ns &&
		    (flows[k].closed_ns == CLOCKS_NONE || flows[k].closed_ns >= f->t0_ns))
			s->open_at_t0++;
	}
	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *cap = &in->captures[i];
		int failed = strcmp(cap->label, f->site) == 0;

		for (size_t k = 0; k < cap->ntcp; k++) {
			const struct clocks_tcpseg *seg = &cap->tcp[k];

			if (clocks_conn_prober(in, seg->client))
				continue;
			clocks_conn_segment(in, seg, (int)i, failed, flows, nf,
					    seg->server.s_addr == f->prefix.s_addr ? &c->anycast
										   : &c->dns);
		}
	}
	free(flows);
	if (clocks_conn_retx(in, c) == -1)
		return -1;
	if (!in->steady &&
	    (clocks_conn_per_client(in, CLOCKS_SCHEME_ANYCAST, &c->anycast.per_client) == -1 ||
	     clocks_conn_per_client(in, CLOCKS_SCHEME_DNS, &c->dns.per_client) == -1))
		return -1;
	return 0;
}

static const char *clocks_conn_s(char *buf, size_t len, int64_t ns)
{
	if (ns == CLOCKS_NONE)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	return buf;
}

/* clocks_conn_print_clients: "clients (SCHEME): N of M hit; first failed
 * request ..., a reply from another site ..., failed requests ..." */
static void clocks_conn_print_clients(FILE *out, const char *scheme,
				      const struct clocks_conn_clients *pc, const char *site)
{
	char a[32], b[32], c[32], d[32];

	if (pc->clients == 0)
		return;
	fprintf(out, "clients (%s): %lld of %lld hit", scheme, (long long)pc->hit,
		(long long)pc->clients);
	if (pc->hit == 0) {
		fputc('\n', out);
		return;
	}
	fprintf(out,
		"; after t0, their first failed request at %s (p50; max %s), their first reply "
		"from a site other than %s at %s (p50; max %s; %lld never had one), failed "
		"requests before it %lld (p50; max %lld)\n",
		clocks_conn_s(a, sizeof(a), pc->first_error_ns.p50),
		clocks_conn_s(b, sizeof(b), pc->first_error_ns.max), site,
		clocks_conn_s(c, sizeof(c), pc->recovered_ns.p50),
		clocks_conn_s(d, sizeof(d), pc->recovered_ns.max),
		(long long)(pc->hit - pc->recovered_ns.n), (long long)pc->failed.p50,
		(long long)pc->failed.max);
}

void clocks_conn_prepare(struct clocks_input *in)
{
	struct clocks_conn *c = malloc(sizeof(*c));

	free(in->conn);
	in->conn = NULL;
	if (c == NULL || clocks_conn(in, c) == -1) {
		free(c);
		clocks_warn(&in->notes, "limit", "connections: out of memory, not measured");
		return;
	}
	if (!c->present) {
		free(c);
		return;
	}
	in->conn = c;
}

/* clocks_conn_names: the distinct names the clients said (their HTTP
 * library, or the server that answered them: server set), joined with ", "
 * into buf; "" if none said one */
static void clocks_conn_names(const struct clocks_input *in, int server, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < in->nclients; i++) {
		const char *name =
		    server ? in->clients[i].http_server : in->clients[i].http_library;
		int seen = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(name, server ? in->clients[j].http_server
						   : in->clients[j].http_library) == 0;
		if (name[0] == '\0' || seen || used + strlen(name) + 3 > len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
	}
}

void clocks_conn_print(FILE *out, const struct clocks_input *in)
{
	const char *names[2] = {"anycast", "dns"};
	const struct clocks_conn *c = in->conn;
	char buf[32];

	if (c == NULL)
		return;
	for (int k = 0; k < 2; k++) {
		const struct clocks_conn_scheme *s = k ? &c->dns : &c->anycast;

		if (s->opened == 0 && s->syns == 0)
			continue;
		fprintf(out, "connections (%s): %lld opened (%lld SYNs)", names[k],
			(long long)s->opened, (long long)s->syns);
		if (c->steady) {
			fprintf(out, ", %lld request segments sent again\n",
				(long long)s->retransmits);
			continue;
		}
		fprintf(out,
			", %lld open on %s at t0; after t0: %lld SYNs reached %s (the last at %s), "
			"%s closed %lld and reset %lld, other sites reset %lld they never opened "
			"(RFC 7094; connections moved off sites that did not fail: %lld) and "
			"%lld of their own; %lld request segments sent again (%lld to %s after "
			"t0)\n",
			(long long)s->open_at_t0, in->failure.site, (long long)s->syns_failed,
			in->failure.site, clocks_conn_s(buf, sizeof(buf), s->last_syn_ns),
			in->failure.site, (long long)s->fins_failed, (long long)s->rsts_failed,
			(long long)s->rsts_unknown, (long long)s->rsts_collateral,
			(long long)s->rsts_other, (long long)s->retransmits,
			(long long)s->retransmits_failed, in->failure.site);
		clocks_conn_print_clients(out, names[k], &s->per_client, in->failure.site);
	}
	{
		char libs[256], servers[256];

		clocks_conn_names(in, 0, libs, sizeof(libs));
		clocks_conn_names(in, 1, servers, sizeof(servers));
		if (libs[0])
			fprintf(out, "http: the clients spoke through %s, answered by %s\n", libs,
				servers[0] ? servers : "no server (no reply)");
	}
}

static json_t *clocks_conn_json_dist(const struct clocks_conn_dist *d, int seconds)
{
	json_t *o = json_object();
	const char *keys[3] = {"p50", "p99", "max"};
	const int64_t v[3] = {d->p50, d->p99, d->max};

	for (int k = 0; o && k < 3; k++)
		json_object_set_new(o, keys[k],
				    v[k] == CLOCKS_NONE ? json_null()
				    : seconds		? json_real((double)v[k] / 1e9)
							: json_integer(v[k]));
	return o;
}

static json_t *clocks_conn_json_clients(const struct clocks_conn_clients *pc)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "clients", json_integer(pc->clients));
	json_object_set_new(o, "hit", json_integer(pc->hit));
	json_object_set_new(o, "recovered", json_integer(pc->recovered_ns.n));
	json_object_set_new(o, "first_error_s", clocks_conn_json_dist(&pc->first_error_ns, 1));
	json_object_set_new(o, "recovered_s", clocks_conn_json_dist(&pc->recovered_ns, 1));
	json_object_set_new(o, "failed", clocks_conn_json_dist(&pc->failed, 0));
	return o;
}

static json_t *clocks_conn_json_scheme(const struct clocks_conn *c,
				       const struct clocks_conn_scheme *s)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "opened", json_integer(s->opened));
	json_object_set_new(o, "syns", json_integer(s->syns));
	json_object_set_new(o, "retransmits", json_integer(s->retransmits));
	if (c->steady)
		return o;
	json_object_set_new(o, "retransmits_to_failed", json_integer(s->retransmits_failed));
	json_object_set_new(o, "open_at_t0", json_integer(s->open_at_t0));
	json_object_set_new(o, "syns_to_failed", json_integer(s->syns_failed));
	json_object_set_new(
	    o, "last_syn_to_failed_s",
	    s->last_syn_ns == CLOCKS_NONE ? json_null() : json_real((double)s->last_syn_ns / 1e9));
	json_object_set_new(o, "fins_from_failed", json_integer(s->fins_failed));
	json_object_set_new(o, "resets_from_failed", json_integer(s->rsts_failed));
	json_object_set_new(o, "resets_unknown_flow", json_integer(s->rsts_unknown));
	json_object_set_new(o, "resets_collateral", json_integer(s->rsts_collateral));
	json_object_set_new(o, "resets_other", json_integer(s->rsts_other));
	json_object_set_new(o, "clients", clocks_conn_json_clients(&s->per_client));
	return o;
}

json_t *clocks_conn_json(const struct clocks_input *in)
{
	const struct clocks_conn *c = in->conn;
	json_t *o;

	if (c == NULL || (o = json_object()) == NULL)
		return NULL;
	json_object_set_new(o, "anycast", clocks_conn_json_scheme(c, &c->anycast));
	json_object_set_new(o, "dns", clocks_conn_json_scheme(c, &c->dns));
	{
		char libs[256], servers[256];

		clocks_conn_names(in, 0, libs, sizeof(libs));
		clocks_conn_names(in, 1, servers, sizeof(servers));
		if (libs[0])
			json_object_set_new(o, "http",
					    json_pack("{s:s, s:s?}", "clients", libs, "servers",
						      servers[0] ? servers : NULL));
	}
	return o;
}
