/*
 * The authorities side by side (docs/clocks.md, "Authorities"): a lab
 * whose DNS clients ask names served by several [dns] nodes (authd,
 * PowerDNS, gdnsd: topology/authorities.ini) has a verdict per node, and
 * the model of each is the lab's with every DNS client asking that node's
 * name.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "topology.h"

int model_topo_authorities(const struct topology *t, int *name_of, int max)
{
	int seen[TOPO_MAX_NODES] = {0}, n = 0;

	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *c = &t->nodes[i];
		const char *name = c->dns_name[0] ? c->dns_name : t->dns_name;
		int z;

		if (c->kind != TOPO_CLIENT || c->mode == TOPO_MODE_ANYCAST ||
		    (z = topo_name_zone(t, name)) < 0 || t->raw_sections[z].nservers == 0)
			continue;
		seen[t->raw_sections[z].servers[0]] = i + 1;
	}
	for (int d = 0; d < t->nnodes; d++) {
		if (!seen[d])
			continue;
		if (name_of != NULL && n < max)
			name_of[n] = seen[d] - 1;
		n++;
	}
	return n;
}

int model_from_topology_authority(const struct topology *t, int a, struct model_input *in,
				  struct model_notes *notes, char *err, size_t errlen)
{
	int name_of[TOPO_MAX_NODES], n = model_topo_authorities(t, name_of, TOPO_MAX_NODES), rc;
	struct topology *u;
	const struct topo_node *c;

	if (a < 0 || a >= n) {
		snprintf(err, errlen, "%s: no authority %d of %d", t->path, a, n);
		return -1;
	}
	if ((u = malloc(sizeof(*u))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(u, t, sizeof(*u));
	c = &t->nodes[name_of[a]];
	snprintf(u->dns_name, sizeof(u->dns_name), "%s",
		 c->dns_name[0] ? c->dns_name : t->dns_name);
	for (int i = 0; i < u->nnodes; i++)
		if (u->nodes[i].kind == TOPO_CLIENT)
			u->nodes[i].dns_name[0] = '\0';
	rc = model_from_topology(u, in, notes, err, errlen);
	free(u);
	return rc;
}

int model_authority(const struct topology *t, int a, const struct model_input *run,
		    struct model_input *in, struct model_result *r, const char **node, char *err,
		    size_t errlen)
{
	static struct model_notes notes;
	int name_of[TOPO_MAX_NODES], n = model_topo_authorities(t, name_of, TOPO_MAX_NODES), z;
	const struct topo_node *c;

	if (a < 0 || a >= n) {
		snprintf(err, errlen, "%s: no authority %d of %d", t->path, a, n);
		return -1;
	}
	c = &t->nodes[name_of[a]];
	z = topo_name_zone(t, c->dns_name[0] ? c->dns_name : t->dns_name);
	*node = t->nodes[t->raw_sections[z].servers[0]].name;
	if (model_from_topology_authority(t, a, in, &notes, err, errlen) == -1)
		return -1;
	if (run != NULL) {
		in->fail_at_s = run->fail_at_s;
		in->fail_jitter_s = run->fail_jitter_s;
		in->effect_s = run->effect_s;
		in->wall_known = run->wall_known;
		in->wall_s = run->wall_s;
		in->duration_s = run->duration_s;
		in->slo_pct = run->slo_pct;
	}
	if (model_lab(in, r) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* auth_each: fn(arg, node, its result or NULL and why) for every authority
 * of t, the lab's timing that of run */
static void auth_each(const struct topology *t, const struct model_input *run,
		      void (*fn)(void *, const char *, const struct model_result *, const char *),
		      void *arg)
{
	int n = model_topo_authorities(t, NULL, 0);
	struct model_input *in = malloc(sizeof(*in));
	struct model_result *r = malloc(sizeof(*r));
	char err[512];

	for (int a = 0; a < n && in != NULL && r != NULL; a++) {
		const char *node = "?";

		if (model_authority(t, a, run, in, r, &node, err, sizeof(err)) == -1)
			fn(arg, node, NULL, err);
		else
			fn(arg, node, r, NULL);
	}
	free(in);
	free(r);
}

static void auth_print_one(void *arg, const char *node, const struct model_result *r,
			   const char *why)
{
	FILE *out = arg;
	char d[64], s[64];

	if (r == NULL) {
		fprintf(out, "  %-12s  not modelled: %s\n", node, why);
		return;
	}
	fprintf(out, "  %-12s  detect %-28s  steer %s\n", node,
		model_iv_text(&r->s[MODEL_DNS].detect, "s", 3, d, sizeof(d)),
		r->s[MODEL_DNS].steer.known
		    ? model_iv_text(&r->s[MODEL_DNS].steer, "s", 3, s, sizeof(s))
		    : "measured on the wire (its first answer after detect)");
}

void model_print_authorities(const struct topology *t, const struct model_input *run, FILE *out)
{
	if (model_topo_authorities(t, NULL, 0) < 2)
		return;
	fprintf(out,
		"\nauthorities: the DNS clients' names are served by several [dns] nodes; each "
		"one's clocks, the lab with every DNS client asking it (docs/clocks.md, "
		"\"Authorities\")\n");
	auth_each(t, run, auth_print_one, out);
}

static json_t *auth_iv_json(const struct model_iv *v)
{
	if (!v->known)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:f}", "p5", v->p5, "p50", v->p50, "p95", v->p95,
			 "min", v->min, "max", v->max);
}

static void auth_json_one(void *arg, const char *node, const struct model_result *r,
			  const char *why)
{
	json_t *arr = arg;

	if (r == NULL)
		json_array_append_new(arr,
				      json_pack("{s:s, s:s}", "node", node, "not_modelled", why));
	else
		json_array_append_new(arr,
				      json_pack("{s:s, s:o, s:o}", "node", node, "detect_s",
						auth_iv_json(&r->s[MODEL_DNS].detect), "steer_s",
						auth_iv_json(&r->s[MODEL_DNS].steer)));
}

json_t *model_json_authorities(const struct topology *t, const struct model_input *run)
{
	json_t *arr;

	if (model_topo_authorities(t, NULL, 0) < 2 || (arr = json_array()) == NULL)
		return NULL;
	auth_each(t, run, auth_json_one, arr);
	return arr;
}
