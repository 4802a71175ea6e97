/*
 * The steering authorities side by side (clocks_auths.h; docs/clocks.md,
 * "Authorities"). Each DNS client agent belongs to the [dns] node serving
 * the name it asks (its name key, else the [lab]'s dns_name); the nodes so
 * found are the authorities, in the order of the [dns] nodes. Their
 * verdicts and answers are those the events and captures gave the run
 * (clocks_events_dns.c, clocks_authority.c), each told by its node.
 */
#include "clocks_auths.h"

#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "clocks_model.h"
#include "clocks_steering.h"
#include "wire.h"

/* a DNS client agent and the authority (index in out->a) it belongs to */
struct auth_agent {
	uint32_t id;
	int auth; /* its [dns] node (index in dnstopo.dns) */
	const struct clocks_client *c;
	int row; /* its authority's index in out->a, -1: none */
};

static int auth_agent_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct auth_agent *)a)->id, y = ((const struct auth_agent *)b)->id;

	return x < y ? -1 : x > y;
}

/* auth_of_node: the authority of client node `node`: the [dns] node (its
 * index in dnstopo) serving the [name] it asks, -1 if not known */
static int auth_of_node(const struct clocks_input *in, const char *node)
{
	char name[CLOCKS_DNS_NAME_MAX];
	const struct clocks_topo_name *nm = clocks_steer_name_of(in, node, name, sizeof(name));

	return nm ? nm->server : -1;
}

/* auth_index: d's row in out, added if new (-1: too many) */
static int auth_index(const struct clocks_input *in, struct clocks_auths *out, int d)
{
	const struct clocks_dns_node *n = &in->dnstopo.dns[d];
	struct clocks_auth *a;

	for (int i = 0; i < out->n; i++)
		if (out->a[i].dns == d)
			return i;
	if (out->n == CLOCKS_MAX_AUTHS)
		return -1;
	a = &out->a[out->n];
	memset(a, 0, sizeof(*a));
	a->dns = d;
	a->node = n->name;
	a->impl = n->gdnsd ? "gdnsd" : n->own_checks ? "pdns" : "authd";
	a->detect_ns = a->steer_ns = a->window_ns = CLOCKS_NONE;
	return out->n++;
}

/* auth_verdicts: each authority's first verdict on the dead site after
 * t0, and its first answer after t0 that stops handing the site out */
static void auth_verdicts(const struct clocks_input *in, struct clocks_auths *out)
{
	const struct clocks_failure *f = &in->failure;

	for (int i = 0; i < out->n; i++) {
		struct clocks_auth *a = &out->a[i];

		for (size_t k = 0; k < in->nhealth; k++) {
			const struct clocks_health *h = &in->health[k];

			if (h->t_ns >= f->t0_ns && !h->healthy && strcmp(h->site, f->site) == 0 &&
			    strcmp(h->node, a->node) == 0 &&
			    (a->detect_ns == CLOCKS_NONE || h->t_ns - f->t0_ns < a->detect_ns))
				a->detect_ns = h->t_ns - f->t0_ns;
		}
		for (size_t k = 0; k < in->nanswers; k++) {
			const struct clocks_answer *x = &in->answers[k];

			if (x->t_ns >= f->t0_ns && strcmp(x->node, a->node) == 0 &&
			    clocks_has_addr(x->before, x->nbefore, f->address) &&
			    !clocks_has_addr(x->after, x->nafter, f->address) &&
			    (a->steer_ns == CLOCKS_NONE || x->t_ns - f->t0_ns < a->steer_ns))
				a->steer_ns = x->t_ns - f->t0_ns;
		}
	}
}

/* auth_requests: each authority's clients' requests to the dead site after
 * t0, on its capture, and the last of them */
static void auth_requests(const struct clocks_input *in, struct clocks_auths *out,
			  const struct auth_agent *agents, size_t nagents)
{
	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];

		if (strcmp(c->label, in->failure.site) != 0)
			continue;
		for (size_t j = 0; j < c->n; j++) {
			const struct clocks_packet *p = &c->packets[j];
			struct auth_agent key = {wire_agent_of(p->client), 0, NULL, -1}, *e;
			struct clocks_auth *a;

			if (!clocks_is_dead(in, &clocks_dns_flows, c, j) ||
			    (e = bsearch(&key, agents, nagents, sizeof(*agents), auth_agent_cmp)) ==
				NULL ||
			    e->row < 0)
				continue;
			a = &out->a[e->row];
			a->to_dead++;
			if (a->window_ns == CLOCKS_NONE ||
			    p->t_ns - in->failure.t0_ns > a->window_ns)
				a->window_ns = p->t_ns - in->failure.t0_ns;
		}
	}
}

int clocks_auths(const struct clocks_input *in, struct clocks_auths *out)
{
	struct auth_agent *agents;
	size_t nagents = 0;

	memset(out, 0, sizeof(*out));
	if (in->steady || !in->failure.has_address || in->nclients == 0)
		return 0;
	if ((agents = calloc(in->nclients, sizeof(*agents))) == NULL)
		return 0;
	/* each DNS client agent's [dns] node */
	for (size_t i = 0; i < in->nclients; i++) {
		const struct clocks_client *c = &in->clients[i];
		int d;

		if (clocks_scheme_of(c->id) == CLOCKS_SCHEME_DNS &&
		    (d = auth_of_node(in, c->node)) >= 0)
			agents[nagents++] = (struct auth_agent){c->id, d, c, -1};
	}
	/* the rows in the order of the [dns] nodes */
	for (int d = 0; d < in->dnstopo.ndns; d++)
		for (size_t i = 0; i < nagents; i++) {
			struct clocks_auth *a;
			int k;

			if (agents[i].auth != d || (k = auth_index(in, out, d)) < 0)
				continue;
			a = &out->a[k];
			a->clients++;
			a->users += agents[i].c->population > 0 ? agents[i].c->population : 1;
			if (a->lost != CLOCKS_NONE && agents[i].c->summary_ns == CLOCKS_NONE)
				a->lost = a->sent = CLOCKS_NONE;
			else if (a->lost != CLOCKS_NONE) {
				a->lost += agents[i].c->lost;
				a->sent += agents[i].c->sent;
			}
			agents[i].row = k;
		}
	if (out->n < 2) {
		free(agents);
		out->n = 0;
		return 0;
	}
	qsort(agents, nagents, sizeof(*agents), auth_agent_cmp);
	auth_verdicts(in, out);
	auth_requests(in, out, agents, nagents);
	free(agents);
	return 1;
}

static json_t *auth_s_json(int64_t ns)
{
	return ns == CLOCKS_NONE ? json_null() : json_real((double)ns / 1e9);
}

static json_t *auth_n_json(int64_t n)
{
	return n == CLOCKS_NONE ? json_null() : json_integer(n);
}

void clocks_auths_prepare(struct clocks_input *in)
{
	struct clocks_auths *x = malloc(sizeof(*x));

	free(in->auths);
	in->auths = NULL;
	if (x != NULL && clocks_auths(in, x) == 1)
		in->auths = x;
	else
		free(x);
}

json_t *clocks_auths_json(const struct clocks_input *in)
{
	const struct clocks_auths *x = in->auths;
	json_t *arr;

	if (x == NULL)
		return NULL;
	arr = json_array();
	for (int i = 0; i < x->n; i++) {
		const struct clocks_auth *a = &x->a[i];
		const struct clocks_model_auth *m = NULL;
		json_t *model = json_null();

		for (int k = 0; in->model && in->model->known && k < in->model->nauth; k++)
			if (strcmp(in->model->auth[k].node, a->node) == 0)
				m = &in->model->auth[k];
		if (m != NULL)
			model =
			    json_pack("{s:o, s:o}", "detect_s", clocks_model_iv_json(&m->detect),
				      "steer_s", clocks_model_iv_json(&m->steer));
		json_array_append_new(
		    arr,
		    json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:I, s:o, s:o, s:o}", "node",
			      a->node, "impl", a->impl, "clients", (json_int_t)a->clients, "users",
			      (json_int_t)a->users, "detect_s", auth_s_json(a->detect_ns),
			      "steer_s", auth_s_json(a->steer_ns), "window_s",
			      auth_s_json(a->window_ns == CLOCKS_NONE ? 0 : a->window_ns),
			      "to_dead_after_t0", (json_int_t)a->to_dead, "sent",
			      auth_n_json(a->sent), "lost", auth_n_json(a->lost), "model", model));
	}
	return arr;
}
