/*
 * The DNS side of a run's recorded topology: from plan.json, the facts the
 * lab resolved (lab/topology/planjson.c), or in a run directory from before it from
 * topology.ini as the lab printed it back, worked out again: which
 * [resolver] nodes there are and in which order (the k-th has the k-th
 * block of lib/addrplan.h), which level of the DNS tree each [dns] node
 * serves, which [resolver] node each client asks and which router it is
 * linked to, each steered [name] and its TTL. See clocks_topo.h, struct
 * clocks_topo_dns; the measurements on them are clocks_resolvers.c.
 */
#include "clocks_topo.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <libknot/libknot.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clocks_int.h"
#include "inifile.h"
#include "strtonum.h"

const char *const clocks_level_names[CLOCKS_LEVELS] = {"root", "tld", "zone"};

#define CLOCKS_TOPO_MAX_ZONES 64
#define CLOCKS_TOPO_ZONES_LEN 512

/* what the scan collects before the levels can be told: the [zone]
 * sections, and each [dns] node's zones key (which claims zones) */
struct clocks_topo_scan {
	struct clocks_topo_dns *t;
	enum {
		CLOCKS_TOPO_IN_OTHER,
		CLOCKS_TOPO_IN_LAB,
		CLOCKS_TOPO_IN_RSV,
		CLOCKS_TOPO_IN_DNS,
		CLOCKS_TOPO_IN_CLIENT,
		CLOCKS_TOPO_IN_NAME
	} in;
	int dns_tree; /* [lab] dns_tree = yes: the lab added root and tld */
	int nzones;
	char zones[CLOCKS_TOPO_MAX_ZONES][CLOCKS_DNS_NAME_MAX];
	char dns_zones[CLOCKS_MAX_DNS_NODES][CLOCKS_TOPO_ZONES_LEN]; /* "" not said */
	int dns_said[CLOCKS_MAX_DNS_NODES];
	char client_rsv[CLOCKS_MAX_TOPO_CLIENTS][CLOCKS_NAME_MAX]; /* its resolver key */
	int lab_tcp; /* [lab] proto = tcp or http: connections */
};

static void clocks_topo_copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

static int clocks_topo_section(void *arg, const char *kind, const char *name, const char *extra)
{
	struct clocks_topo_scan *s = arg;
	struct clocks_topo_dns *t = s->t;

	(void)extra;
	s->in = CLOCKS_TOPO_IN_OTHER;
	if (strcmp(kind, "lab") == 0)
		s->in = CLOCKS_TOPO_IN_LAB;
	if (name == NULL)
		return 0;
	if (strcmp(kind, "resolver") == 0 && t->nrsv < CLOCKS_MAX_RSV_NODES) {
		memset(&t->rsv[t->nrsv], 0, sizeof(t->rsv[0]));
		clocks_topo_copy(t->rsv[t->nrsv++].name, CLOCKS_NAME_MAX, name);
		s->in = CLOCKS_TOPO_IN_RSV;
	} else if (strcmp(kind, "dns") == 0 && t->ndns < CLOCKS_MAX_DNS_NODES) {
		clocks_topo_copy(t->dns[t->ndns].name, CLOCKS_NAME_MAX, name);
		s->dns_zones[t->ndns][0] = '\0';
		s->dns_said[t->ndns++] = 0;
		s->in = CLOCKS_TOPO_IN_DNS;
	} else if (strcmp(kind, "client") == 0 && t->nclients < CLOCKS_MAX_TOPO_CLIENTS) {
		clocks_topo_copy(t->clients[t->nclients].name, CLOCKS_NAME_MAX, name);
		t->clients[t->nclients].rsv = -1;
		s->client_rsv[t->nclients++][0] = '\0';
		s->in = CLOCKS_TOPO_IN_CLIENT;
	} else if (strcmp(kind, "zone") == 0 && s->nzones < CLOCKS_TOPO_MAX_ZONES) {
		clocks_topo_copy(s->zones[s->nzones++], CLOCKS_DNS_NAME_MAX, name);
	} else if (strcmp(kind, "name") == 0 && t->nnames < CLOCKS_MAX_DNS_NODES) {
		memset(&t->names[t->nnames], 0, sizeof(t->names[0]));
		clocks_topo_copy(t->names[t->nnames].name, CLOCKS_DNS_NAME_MAX, name);
		t->names[t->nnames].server = -1; /* plan.json's */
		t->names[t->nnames++].ttl_s = -1;
		s->in = CLOCKS_TOPO_IN_NAME;
	}
	return 0;
}

/* clocks_topo_weight: "SITE N" of a weighted name */
static void clocks_topo_weight(struct clocks_topo_name *n, const char *value)
{
	char site[CLOCKS_NAME_MAX];
	const char *sp = strchr(value, ' '), *errstr;
	long long w;

	if (sp == NULL || n->nweights == CLOCKS_TOPO_WEIGHTS ||
	    (size_t)(sp - value) >= sizeof(site))
		return;
	memcpy(site, value, (size_t)(sp - value));
	site[sp - value] = '\0';
	while (*sp == ' ')
		sp++;
	w = strtonum(sp, 1, 1000000, &errstr);
	if (errstr)
		return;
	snprintf(n->wsite[n->nweights], CLOCKS_NAME_MAX, "%s", site);
	n->weight[n->nweights++] = w;
}

/* clocks_topo_target: [lab] target_share, "SITE:W SITE:W ..." (checked by
 * the lab: a pair that does not read is skipped) */
static void clocks_topo_target(struct clocks_topo_dns *t, const char *value)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", value);
	t->ntarget = 0;
	for (char *tok = strtok_r(buf, " \t", &save); tok && t->ntarget < CLOCKS_TOPO_WEIGHTS;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *colon = strchr(tok, ':'), *end;
		double w;

		if (colon == NULL || colon == tok)
			continue;
		*colon = '\0';
		w = strtod(colon + 1, &end);
		if (*end != '\0' || !(w > 0))
			continue;
		snprintf(t->tsite[t->ntarget], CLOCKS_NAME_MAX, "%s", tok);
		t->tweight[t->ntarget++] = w;
	}
}

static void clocks_topo_pair(void *arg, const char *key, const char *value)
{
	struct clocks_topo_scan *s = arg;
	struct clocks_topo_dns *t = s->t;
	const char *errstr;

	if (s->in == CLOCKS_TOPO_IN_LAB && strcmp(key, "dns_name") == 0)
		clocks_topo_copy(t->lab_name, CLOCKS_DNS_NAME_MAX, value);
	else if (s->in == CLOCKS_TOPO_IN_LAB && strcmp(key, "dns_tree") == 0)
		s->dns_tree = strcmp(value, "yes") == 0 || strcmp(value, "true") == 0 ||
			      strcmp(value, "1") == 0;
	else if (s->in == CLOCKS_TOPO_IN_LAB && strcmp(key, "target_share") == 0)
		clocks_topo_target(t, value);
	else if (s->in == CLOCKS_TOPO_IN_LAB && strcmp(key, "proto") == 0)
		s->lab_tcp = strcmp(value, "tcp") == 0 || strcmp(value, "http") == 0;
	else if (s->in == CLOCKS_TOPO_IN_CLIENT && strcmp(key, "proto") == 0)
		t->clients[t->nclients - 1].proto =
		    strcmp(value, "tcp") == 0 || strcmp(value, "http") == 0 ? 2 : 1;
	else if (s->in == CLOCKS_TOPO_IN_RSV && strcmp(key, "impl") == 0)
		clocks_topo_copy(t->rsv[t->nrsv - 1].impl, CLOCKS_NAME_MAX, value);
	else if (s->in == CLOCKS_TOPO_IN_RSV && strcmp(key, "count") == 0)
		t->rsv[t->nrsv - 1].count = (int)strtonum(value, 1, 255, &errstr);
	else if (s->in == CLOCKS_TOPO_IN_DNS && strcmp(key, "zones") == 0) {
		clocks_topo_copy(s->dns_zones[t->ndns - 1], CLOCKS_TOPO_ZONES_LEN, value);
		s->dns_said[t->ndns - 1] = 1;
	} else if (s->in == CLOCKS_TOPO_IN_CLIENT && strcmp(key, "resolver") == 0) {
		clocks_topo_copy(s->client_rsv[t->nclients - 1], CLOCKS_NAME_MAX, value);
	} else if (s->in == CLOCKS_TOPO_IN_CLIENT && strcmp(key, "name") == 0) {
		clocks_topo_copy(t->clients[t->nclients - 1].dns_name, CLOCKS_DNS_NAME_MAX, value);
	} else if (s->in == CLOCKS_TOPO_IN_CLIENT && strcmp(key, "link") == 0) {
		clocks_topo_copy(t->clients[t->nclients - 1].router, CLOCKS_NAME_MAX, value);
	} else if (s->in == CLOCKS_TOPO_IN_NAME && strcmp(key, "ttl") == 0) {
		long long ttl = strtonum(value, 0, INT32_MAX, &errstr);

		t->names[t->nnames - 1].ttl_s = errstr ? -1 : ttl;
	} else if (s->in == CLOCKS_TOPO_IN_NAME && strcmp(key, "policy") == 0) {
		clocks_topo_copy(t->names[t->nnames - 1].policy, sizeof(t->names[0].policy), value);
	} else if (s->in == CLOCKS_TOPO_IN_NAME && strcmp(key, "primary") == 0) {
		clocks_topo_copy(t->names[t->nnames - 1].primary, CLOCKS_NAME_MAX, value);
	} else if (s->in == CLOCKS_TOPO_IN_NAME && strcmp(key, "weight") == 0) {
		clocks_topo_weight(&t->names[t->nnames - 1], value);
	}
}

/* clocks_topo_labels: the labels of a zone name in text ("." and "" have none) */
static int clocks_topo_labels(const char *z)
{
	int n = 0, in = 0;

	for (; *z; z++) {
		if (*z == '.') {
			in = 0;
		} else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}

enum clocks_level clocks_dns_level(const char *const *zones, int n)
{
	enum clocks_level best = CLOCKS_LEVEL_ZONE;

	for (int i = 0; i < n; i++) {
		int labels = clocks_topo_labels(zones[i]);
		enum clocks_level l = labels == 0   ? CLOCKS_LEVEL_ROOT
				      : labels == 1 ? CLOCKS_LEVEL_TLD
						    : CLOCKS_LEVEL_ZONE;
		if (l < best)
			best = l;
	}
	return best;
}

/* clocks_topo_same_zone: "example" and "example." are one zone */
static int clocks_topo_same_zone(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > 1 && a[la - 1] == '.')
		la--;
	if (lb > 1 && b[lb - 1] == '.')
		lb--;
	return la == lb && strncasecmp(a, b, la) == 0;
}

/* clocks_topo_split: the words of a zones value (spaces or commas between) */
static int clocks_topo_split(char *v, const char **out, int max)
{
	int n = 0;

	for (char *w = strtok(v, " \t,"); w && n < max; w = strtok(NULL, " \t,"))
		out[n++] = w;
	return n;
}

/* clocks_topo_claimed: is zone z in some [dns] node's zones key? */
static int clocks_topo_claimed(const struct clocks_topo_scan *s, const char *z)
{
	for (int i = 0; i < s->t->ndns; i++) {
		char buf[CLOCKS_TOPO_ZONES_LEN];
		const char *w[CLOCKS_TOPO_MAX_ZONES];
		int n;

		if (!s->dns_said[i])
			continue;
		clocks_topo_copy(buf, sizeof(buf), s->dns_zones[i]);
		n = clocks_topo_split(buf, w, CLOCKS_TOPO_MAX_ZONES);
		for (int k = 0; k < n; k++)
			if (clocks_topo_same_zone(w[k], z))
				return 1;
	}
	return 0;
}

/* clocks_topo_tree_node: a [dns] node dns_tree added (printed back only as a
 * comment), unless the file has a node of that name: `root` serves the
 * root zone, `tld` the TLDs (one label: its level is all that matters) */
static void clocks_topo_tree_node(struct clocks_topo_scan *s, const char *name, const char *zones)
{
	struct clocks_topo_dns *t = s->t;

	for (int i = 0; i < t->ndns; i++)
		if (strcmp(t->dns[i].name, name) == 0)
			return;
	if (t->ndns == CLOCKS_MAX_DNS_NODES)
		return;
	clocks_topo_copy(t->dns[t->ndns].name, CLOCKS_NAME_MAX, name);
	clocks_topo_copy(s->dns_zones[t->ndns], CLOCKS_TOPO_ZONES_LEN, zones);
	s->dns_said[t->ndns++] = 1;
}

/* clocks_in_zone: the labels of zone z (text, final dot or not; "." the
 * root) that name ends with, -1 if it is not in z */
static int clocks_in_zone(const char *name, const char *z)
{
	size_t n = strlen(name), k = strlen(z);

	if (n > 0 && name[n - 1] == '.')
		n--;
	if (k > 0 && z[k - 1] == '.')
		k--;
	if (k == 0)
		return 0;
	if (k > n || strncasecmp(name + n - k, z, k) != 0 || (k < n && name[n - k - 1] != '.'))
		return -1;
	return clocks_topo_labels(z);
}

/* clocks_topo_server: node i serving the n zones w: the server of each
 * [name] in one closer than its server's so far (best: their labels) */
static void clocks_topo_server(struct clocks_topo_dns *t, int i, const char *const *w, int n,
			       int *best)
{
	for (int k = 0; k < t->nnames; k++)
		for (int j = 0; j < n; j++) {
			int labels = clocks_in_zone(t->names[k].name, w[j]);

			if (labels > best[k]) {
				best[k] = labels;
				t->names[k].server = i;
			}
		}
}

/* clocks_topo_levels: each [dns] node's level: from its zones key, or (without
 * one) from every [zone] no other node claims, as the lab gives it; and the
 * server of each [name] */
static void clocks_topo_levels(struct clocks_topo_scan *s)
{
	int best[CLOCKS_MAX_DNS_NODES];

	for (int k = 0; k < CLOCKS_MAX_DNS_NODES; k++)
		best[k] = -1;
	if (s->dns_tree) {
		clocks_topo_tree_node(s, "root", ".");
		clocks_topo_tree_node(s, "tld", "tld.");
	}
	for (int i = 0; i < s->t->ndns; i++) {
		const char *w[CLOCKS_TOPO_MAX_ZONES];
		char buf[CLOCKS_TOPO_ZONES_LEN];
		int n = 0;

		if (s->dns_said[i]) {
			clocks_topo_copy(buf, sizeof(buf), s->dns_zones[i]);
			n = clocks_topo_split(buf, w, CLOCKS_TOPO_MAX_ZONES);
		} else {
			for (int z = 0; z < s->nzones; z++)
				if (!clocks_topo_claimed(s, s->zones[z]))
					w[n++] = s->zones[z];
		}
		s->t->dns[i].level = clocks_dns_level(w, n);
		clocks_topo_server(s->t, i, w, n, best);
	}
}

/* clocks_topo_clients: each client's [resolver] node, from its resolver key (a
 * node's name, or NAME.N: one of its caches) */
static void clocks_topo_clients(struct clocks_topo_scan *s)
{
	struct clocks_topo_dns *t = s->t;

	for (int c = 0; c < t->nclients; c++) {
		char *dot = strrchr(s->client_rsv[c], '.');

		if (dot)
			*dot = '\0';
		for (int k = 0; k < t->nrsv; k++)
			if (s->client_rsv[c][0] && strcmp(t->rsv[k].name, s->client_rsv[c]) == 0)
				t->clients[c].rsv = k;
	}
}

/* clocks_plan_string: o's string member key, or "" */
static const char *clocks_plan_string(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

static int clocks_plan_level(const char *level, enum clocks_level *out)
{
	for (int l = 0; l < CLOCKS_LEVELS; l++)
		if (strcmp(level, clocks_level_names[l]) == 0) {
			*out = (enum clocks_level)l;
			return 0;
		}
	return -1;
}

/* clocks_plan_dns: the [dns] nodes, the file's first and those the lab's
 * tree added (generated) after them, as topology.ini's reading orders them */
static int clocks_plan_dns(json_t *nodes, struct clocks_topo_dns *t)
{
	for (int generated = 0; generated < 2; generated++) {
		size_t i;
		json_t *n;

		json_array_foreach(nodes, i, n)
		{
			if (strcmp(clocks_plan_string(n, "kind"), "dns") != 0 ||
			    json_is_true(json_object_get(n, "generated")) != generated ||
			    t->ndns == CLOCKS_MAX_DNS_NODES)
				continue;
			clocks_topo_copy(t->dns[t->ndns].name, CLOCKS_NAME_MAX,
					 clocks_plan_string(n, "name"));
			/* PowerDNS's and gdnsd's (a run from before them has none:
			 * topology.ini's reading leaves them 0, as here for authd) */
			{
				const char *impl = clocks_plan_string(n, "impl");
				struct clocks_dns_node *d = &t->dns[t->ndns];

				d->gdnsd = strcmp(impl, "gdnsd") == 0;
				d->own_checks = d->gdnsd || strcmp(impl, "pdns") == 0;
				if (d->own_checks) {
					t->nown++;
					inet_pton(AF_INET,
						  clocks_plan_string(json_object_get(n, "link"),
								     "address"),
						  &d->addr);
					d->check_timeout_ns =
					    (int64_t)(json_number_value(
							  json_object_get(n, "check_timeout_s")) *
						      1e9);
					d->check_down = (int)json_integer_value(
					    json_object_get(n, "check_down"));
					d->check_up =
					    (int)json_integer_value(json_object_get(n, "check_up"));
				}
			}
			if (clocks_plan_level(clocks_plan_string(n, "dns_level"),
					      &t->dns[t->ndns++].level) == -1)
				return -1;
		}
	}
	return 0;
}

/* clocks_plan_servers: each [name]'s server, the [dns] node of plan.json
 * whose zones hold its closest enclosing one (clocks_topo_server) */
static void clocks_plan_servers(json_t *nodes, struct clocks_topo_dns *t)
{
	int best[CLOCKS_MAX_DNS_NODES];
	json_t *n, *z;
	size_t i, j;

	for (int k = 0; k < t->nnames; k++) {
		best[k] = -1;
		t->names[k].server = -1;
	}
	for (int d = 0; d < t->ndns; d++)
		json_array_foreach(nodes, i, n)
		{
			const char *w[CLOCKS_TOPO_MAX_ZONES];
			int nz = 0;

			if (strcmp(clocks_plan_string(n, "kind"), "dns") != 0 ||
			    strcmp(clocks_plan_string(n, "name"), t->dns[d].name) != 0)
				continue;
			json_array_foreach(json_object_get(n, "zones"), j,
					   z) if (json_is_string(z) && nz < CLOCKS_TOPO_MAX_ZONES)
			    w[nz++] = json_string_value(z);
			clocks_topo_server(t, d, w, nz, best);
		}
}

/* clocks_plan_nodes: the [resolver] nodes and the clients, in file order */
static void clocks_plan_nodes(json_t *nodes, struct clocks_topo_dns *t,
			      char (*client_rsv)[CLOCKS_NAME_MAX])
{
	size_t i;
	json_t *n;

	json_array_foreach(nodes, i, n)
	{
		const char *kind = clocks_plan_string(n, "kind");

		if (strcmp(kind, "resolver") == 0 && t->nrsv < CLOCKS_MAX_RSV_NODES) {
			struct clocks_rsv_node *r = &t->rsv[t->nrsv++];

			clocks_topo_copy(r->name, CLOCKS_NAME_MAX, clocks_plan_string(n, "name"));
			/* the default, resolverd, is "" as topology.ini leaves it
			 * unsaid (clocks.json: null) */
			if (strcmp(clocks_plan_string(n, "impl"), "resolverd") != 0)
				clocks_topo_copy(r->impl, CLOCKS_NAME_MAX,
						 clocks_plan_string(n, "impl"));
			r->count = (int)json_integer_value(json_object_get(n, "caches"));
		} else if (strcmp(kind, "client") == 0 && t->nclients < CLOCKS_MAX_TOPO_CLIENTS) {
			struct clocks_topo_client *c = &t->clients[t->nclients];

			clocks_topo_copy(c->name, CLOCKS_NAME_MAX, clocks_plan_string(n, "name"));
			clocks_topo_copy(c->router, CLOCKS_NAME_MAX,
					 clocks_plan_string(json_object_get(n, "link"), "router"));
			c->rsv = -1;
			clocks_topo_copy(client_rsv[t->nclients++], CLOCKS_NAME_MAX,
					 clocks_plan_string(n, "resolver"));
		} else if (strcmp(kind, "site") == 0 && t->nfront < CLOCKS_MAX_DNS_NODES &&
			   inet_pton(AF_INET, clocks_plan_string(n, "front_door"),
				     &t->front[t->nfront].addr) == 1) {
			clocks_topo_copy(t->front[t->nfront++].site, CLOCKS_NAME_MAX,
					 clocks_plan_string(n, "name"));
		}
	}
}

/* clocks_plan_names: the steered names and their TTLs (null: not said) */
static void clocks_plan_names(json_t *names, struct clocks_topo_dns *t)
{
	size_t i;
	json_t *n;

	json_array_foreach(names, i, n)
	{
		json_t *ttl = json_object_get(n, "ttl");

		if (t->nnames == CLOCKS_MAX_DNS_NODES)
			break;
		clocks_topo_copy(t->names[t->nnames].name, CLOCKS_DNS_NAME_MAX,
				 clocks_plan_string(n, "name"));
		t->names[t->nnames++].ttl_s = json_is_integer(ttl) ? json_integer_value(ttl) : -1;
	}
}

/* clocks_read_plan: the DNS side from the lab's plan.json (docs/clocks.md,
 * "Inputs"): 0, or -1 when there is none (a run from before it) or it is
 * not the version this reads, and topology.ini is worked out instead */
static int clocks_read_plan(const char *rundir, struct clocks_topo_scan *s)
{
	struct clocks_topo_dns *t = s->t;
	char path[PATH_MAX];
	json_t *root, *nodes;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/plan.json", rundir);
	if ((root = json_load_file(path, 0, NULL)) == NULL)
		return -1;
	nodes = json_object_get(root, "nodes");
	if (json_integer_value(json_object_get(root, "version")) != 1 || !json_is_array(nodes))
		goto out;
	clocks_plan_nodes(nodes, t, s->client_rsv);
	if (clocks_plan_dns(nodes, t) == -1)
		goto out;
	clocks_plan_names(json_object_get(root, "names"), t);
	clocks_plan_servers(nodes, t);
	clocks_topo_clients(s);
	rc = 0;
out:
	if (rc == -1)
		memset(t, 0, sizeof(*t));
	json_decref(root);
	return rc;
}

/* clocks_topo_policies: plan.json has no policies: each [name]'s policy,
 * primary and weights, each client's name and the [lab]'s target_share
 * from topology.ini */
static void clocks_topo_policies(const char *path, struct clocks_topo_dns *t)
{
	struct clocks_topo_scan *s = calloc(1, sizeof(*s));
	struct clocks_topo_dns *ini = calloc(1, sizeof(*ini));

	if (s)
		s->t = ini;
	if (s && ini && inifile_scan(path, clocks_topo_section, clocks_topo_pair, s) != -1) {
		for (int i = 0; i < t->nnames; i++)
			for (int k = 0; k < ini->nnames; k++)
				if (strcmp(t->names[i].name, ini->names[k].name) == 0) {
					int64_t ttl = t->names[i].ttl_s;
					int server = t->names[i].server;

					t->names[i] = ini->names[k];
					t->names[i].ttl_s = ttl;
					t->names[i].server = server;
				}
		for (int c = 0; c < t->nclients; c++)
			for (int k = 0; k < ini->nclients; k++)
				if (strcmp(t->clients[c].name, ini->clients[k].name) == 0)
					memcpy(t->clients[c].dns_name, ini->clients[k].dns_name,
					       sizeof(t->clients[c].dns_name));
		/* any client over TCP (HTTP included), its own proto or the [lab]'s */
		for (int k = 0; k < ini->nclients; k++)
			t->tcp |= ini->clients[k].proto == 2 ||
				  (ini->clients[k].proto == 0 && s->lab_tcp);
		if (ini->lab_name[0])
			memcpy(t->lab_name, ini->lab_name, sizeof(t->lab_name));
		t->ntarget = ini->ntarget;
		memcpy(t->tsite, ini->tsite, sizeof(t->tsite));
		memcpy(t->tweight, ini->tweight, sizeof(t->tweight));
	}
	free(ini);
	free(s);
}

/* clocks_topo_wires: each [name]'s wire form */
static void clocks_topo_wires(struct clocks_topo_dns *t)
{
	for (int i = 0; i < t->nnames; i++)
		if (knot_dname_from_str(t->names[i].wire, t->names[i].name,
					sizeof(t->names[i].wire)) == NULL)
			t->names[i].wire[0] = 0;
}

int clocks_topo_name_of(const struct clocks_topo_dns *t, const uint8_t *qname, size_t n)
{
	if (t->nnames == 0 || knot_dname_wire_check(qname, qname + n, NULL) <= 0)
		return 0;
	for (int i = 0; i < t->nnames; i++)
		if (t->names[i].wire[0] && knot_dname_is_case_equal(qname, t->names[i].wire))
			return i + 1;
	return 0;
}

void clocks_read_dns_topology(const char *rundir, struct clocks_input *in)
{
	struct clocks_topo_scan *s = calloc(1, sizeof(*s));
	char path[PATH_MAX];

	memset(&in->dnstopo, 0, sizeof(in->dnstopo));
	if (s == NULL)
		return; /* the resolver measurements then see no nodes */
	s->t = &in->dnstopo;
	/* the lab's default (lab/topology/topology.c) */
	snprintf(in->dnstopo.lab_name, sizeof(in->dnstopo.lab_name), "www.lab.example");
	snprintf(path, sizeof(path), "%s/topology.ini", rundir);
	if (clocks_read_plan(rundir, s) == 0) {
		clocks_topo_policies(path, &in->dnstopo);
		clocks_topo_wires(&in->dnstopo);
		free(s);
		return;
	}
	/* the topology as the lab printed it back: clocks_read_topology has
	 * said what is wrong with it, if anything */
	if (inifile_scan(path, clocks_topo_section, clocks_topo_pair, s) != -1) {
		clocks_topo_levels(s);
		clocks_topo_clients(s);
		clocks_topo_wires(&in->dnstopo);
		for (int k = 0; k < in->dnstopo.nclients; k++)
			in->dnstopo.tcp |= in->dnstopo.clients[k].proto == 2 ||
					   (in->dnstopo.clients[k].proto == 0 && s->lab_tcp);
	}
	free(s);
}

int clocks_rsv_of_addr(const struct clocks_input *in, struct in_addr a)
{
	int k = addrplan_resolver_of(a);

	return k < in->dnstopo.nrsv ? k : -1;
}

int clocks_rsv_of_client(const struct clocks_input *in, uint32_t client)
{
	uint32_t agent = wire_agent_of(client);

	for (size_t i = 0; i < in->nclients; i++) {
		const struct clocks_client *c = &in->clients[i];
		struct in_addr a;

		if (c->id != agent)
			continue;
		for (int k = 0; k < in->dnstopo.nclients; k++)
			if (strcmp(in->dnstopo.clients[k].name, c->node) == 0 &&
			    in->dnstopo.clients[k].rsv >= 0)
				return in->dnstopo.clients[k].rsv;
		if (inet_pton(AF_INET, c->resolver, &a) == 1)
			return clocks_rsv_of_addr(in, a);
		return -1;
	}
	return -1;
}
