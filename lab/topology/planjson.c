/* plan.json, the resolved facts of a run for the analysis; see planjson.h. */
#include "topology.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "strfmt.h"
#include "strtonum.h"
#include "wire.h"

static json_t *planjson_addr(struct in_addr a)
{
	char buf[INET_ADDRSTRLEN];

	if (inet_ntop(AF_INET, &a, buf, sizeof(buf)) == NULL)
		return json_null();
	return json_string(buf);
}

/* planjson_level: "root", "tld" or "zone": the highest level of the zones
 * [dns] node n serves (a node serving none: "zone") */
static const char *planjson_level(const struct topology *t, int n, json_t *zones)
{
	int best = 2;

	for (int z = 0; z < t->nraw_sections; z++) {
		const char *apex = t->raw_sections[z].apex;
		int labels = 0;

		if (!topo_dns_serves(t, n, z))
			continue;
		json_array_append_new(zones, json_string(apex));
		for (const char *p = apex; *p; p++)
			labels += *p == '.';
		/* "." has none, "tld." one */
		labels = strcmp(apex, ".") == 0 ? 0 : labels;
		if (labels < best)
			best = labels;
	}
	return best == 0 ? "root" : best == 1 ? "tld" : "zone";
}

static int planjson_resolver_index(const struct topology *t, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += t->nodes[i].kind == TOPO_RESOLVER;
	return k;
}

static json_t *planjson_node(const struct topology *t, int n)
{
	const struct topo_node *node = &t->nodes[n];
	json_t *o = json_object(), *zones;
	char buf[INET_ADDRSTRLEN + 4];

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "name", json_string(node->name));
	json_object_set_new(o, "kind", json_string(topo_kind_name(node->kind)));
	if (node->link >= 0) {
		const struct topo_link *l = &t->links[node->link];

		json_object_set_new(o, "link",
				    json_pack("{s:s, s:o, s:o}", "router", t->nodes[l->router].name,
					      "router_address", planjson_addr(l->router_addr),
					      "address", planjson_addr(l->node_addr)));
	}
	switch (node->kind) {
	case TOPO_ROUTER:
		json_object_set_new(o, "router_index", json_integer(node->router_index));
		json_object_set_new(o, "router_id", planjson_addr(node->router_id));
		json_object_set_new(o, "asn", json_integer(node->asn));
		break;
	case TOPO_SITE:
		json_object_set_new(o, "address", planjson_addr(node->address));
		json_object_set_new(o, "metric", json_integer(node->metric));
		if (node->front_door.s_addr) /* its region's anycast front door */
			json_object_set_new(o, "front_door", planjson_addr(node->front_door));
		break;
	case TOPO_CLIENT:
		json_object_set_new(o, "client_id", json_integer(node->client_id));
		json_object_set_new(o, "dns_client_id",
				    node->mode == TOPO_MODE_ANYCAST
					? json_null()
					: json_integer(WIRE_DNS_CLIENT_ID(node->client_id)));
		json_object_set_new(o, "population", json_integer(node->population));
		json_object_set_new(o, "resolver",
				    node->resolver >= 0 ? json_string(t->nodes[node->resolver].name)
							: json_null());
		json_object_set_new(o, "resolver_cache", json_integer(node->resolver_instance));
		break;
	case TOPO_DNS:
		zones = json_array();
		json_object_set_new(o, "dns_level", json_string(planjson_level(t, n, zones)));
		json_object_set_new(o, "zones", zones);
		json_object_set_new(o, "generated", json_boolean(node->generated));
		/* what answers there, and PowerDNS's own checks (their failures
		 * on the sites' captures: probes/clocks/clocks_pdns.c) */
		json_object_set_new(o, "impl", json_string(topo_dns_impl_name(node->dns_impl)));
		if (node->anycast.s_addr != 0) {
			char a[INET_ADDRSTRLEN];

			json_object_set_new(
			    o, "anycast",
			    json_string(inet_ntop(AF_INET, &node->anycast, a, sizeof(a))));
		}
		if (node->dns_impl != TOPO_DNS_AUTHD) {
			json_object_set_new(o, "check_interval_s",
					    json_real((double)node->check_interval_ns / 1e9));
			json_object_set_new(o, "check_timeout_s",
					    json_real((double)node->check_timeout_ns / 1e9));
			json_object_set_new(o, "check_down", json_integer(node->check_down));
			json_object_set_new(o, "check_up", json_integer(node->check_up));
		}
		break;
	case TOPO_RESOLVER:
		json_object_set_new(o, "resolver_index",
				    json_integer(planjson_resolver_index(t, n)));
		inet_ntop(AF_INET, &node->resolver_net, buf, INET_ADDRSTRLEN);
		strcat(buf, "/24");
		json_object_set_new(o, "block", json_string(buf));
		json_object_set_new(o, "caches", json_integer(node->count));
		json_object_set_new(o, "impl", json_string(topo_impl_name(node->impl)));
		break;
	default:
		break;
	}
	return o;
}

/* planjson_names: each [name] section and its ttl key (null: not said) */
static json_t *planjson_names(const struct topology *t)
{
	json_t *a = json_array();

	for (int s = 0; a && s < t->nraw_sections; s++) {
		json_t *ttl = json_null();
		const char *errstr;

		if (strcmp(t->raw_sections[s].kind, "name") != 0)
			continue;
		for (int i = 0; i < t->nraw_pairs; i++) {
			const struct topo_raw_pair *p = &t->raw_pairs[i];
			long long v;

			if (p->section != s || strcmp(p->key, "ttl") != 0)
				continue;
			v = strtonum(p->value, 0, INT32_MAX, &errstr);
			json_decref(ttl);
			ttl = errstr ? json_null() : json_integer(v);
		}
		json_array_append_new(
		    a, json_pack("{s:s, s:o}", "name", t->raw_sections[s].name, "ttl", ttl));
	}
	return a;
}

json_t *planjson_build(const struct topology *t)
{
	json_t *o, *nodes = json_array(), *links = json_array();

	for (int n = 0; nodes && n < t->nnodes; n++)
		json_array_append_new(nodes, planjson_node(t, n));
	for (int j = 0; links && j < t->nrlinks; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];

		json_array_append_new(
		    links, json_pack("{s:s, s:s, s:o, s:o}", "a", t->nodes[rl->a].name, "b",
				     t->nodes[rl->b].name, "a_address", planjson_addr(rl->a_addr),
				     "b_address", planjson_addr(rl->b_addr)));
	}
	o = json_pack("{s:i, s:s, s:o, s:o, s:o, s:o}", "version", PLANJSON_VERSION, "lab", t->name,
		      "service", planjson_addr(t->service), "nodes", nodes, "links", links, "names",
		      planjson_names(t));
	return o;
}

int planjson_write(const struct topology *t, const char *rundir, char *err, size_t errlen)
{
	struct atomicfile af;
	json_t *o = planjson_build(t);
	int dirfd = -1, rc = -1;

	if (o == NULL) {
		strfmt(err, errlen, "%s/%s: out of memory", rundir, PLANJSON_FILE);
		return -1;
	}
	if ((dirfd = atomicfile_dir(rundir, err, errlen)) == -1)
		goto out;
	if (atomicfile_open(&af, dirfd, rundir, PLANJSON_FILE, err, errlen) == -1)
		goto out;
	/* a failed write is reported by atomicfile_commit, with its errno */
	if (json_dumpf(o, af.fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == -1 && !ferror(af.fp)) {
		atomicfile_abort(&af);
		strfmt(err, errlen, "%s/%s: cannot encode the plan", rundir, PLANJSON_FILE);
		goto out;
	}
	fputc('\n', af.fp);
	rc = atomicfile_commit(&af, err, errlen);
out:
	if (dirfd != -1)
		close(dirfd);
	json_decref(o);
	return rc;
}
