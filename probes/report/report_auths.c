/*
 * The authorities side by side (docs/clocks.md, "Authorities"): when the
 * DNS clients' names are served by several [dns] nodes (authd, PowerDNS,
 * gdnsd: topology/authorities.ini), a row per node with its own detect,
 * steer and its clients' window, requests to the dead site and losses, the
 * model's detect and steer beside them. The numbers are the clocks
 * module's (clocks_auths, the model's auth rows).
 */
#include <string.h>

#include "clocks_auths.h"
#include "clocks_model.h"
#include "report_int.h"
#include "timeutil.h"

int report_has_auths(const struct report *r)
{
	return r->in.auths != NULL;
}

/* auths_model: the model's row of node, NULL if none */
static const struct clocks_model_auth *auths_model(const struct report *r, const char *node)
{
	const struct clocks_model *m = r->in.model;

	for (int i = 0; m != NULL && m->known && i < m->nauth; i++)
		if (strcmp(m->auth[i].node, node) == 0)
			return &m->auth[i];
	return NULL;
}

static void auths_s_cell(struct texttable *t, int64_t ns)
{
	if (ns == CLOCKS_NONE)
		texttable_cell(t, "-");
	else
		texttable_cell(t, "%.3f", (double)ns / NSEC_PER_SEC);
}

/* auths_model_cell: "p50 (p5-p95)", "-" if not modelled */
static void auths_model_cell(struct texttable *t, const struct clocks_model_iv *v)
{
	if (v == NULL || !v->known)
		texttable_cell(t, "-");
	else if (v->p5 == v->p95)
		texttable_cell(t, "%.3f", v->p50);
	else
		texttable_cell(t, "%.3f (%.3f-%.3f)", v->p50, v->p5, v->p95);
}

void report_auths_table(const struct report *r, struct texttable *t)
{
	texttable_init(t, 10);
	texttable_row(t);
	texttable_cell(t, "authority");
	texttable_cell(t, "users");
	texttable_cell(t, "detect (s)");
	texttable_cell(t, "model");
	texttable_cell(t, "steer (s)");
	texttable_cell(t, "model");
	texttable_cell(t, "window (s)");
	texttable_cell(t, "to dead after t0");
	texttable_cell(t, "lost (client)");
	texttable_cell(t, "of sent");
	for (int i = 0; i < r->in.auths->n; i++) {
		const struct clocks_auth *a = &r->in.auths->a[i];
		const struct clocks_model_auth *m = auths_model(r, a->node);

		texttable_row(t);
		texttable_cell(t, "%s (%s)", a->node, a->impl);
		texttable_cell(t, "%lld", (long long)a->users);
		auths_s_cell(t, a->detect_ns);
		auths_model_cell(t, m ? &m->detect : NULL);
		auths_s_cell(t, a->steer_ns);
		auths_model_cell(t, m ? &m->steer : NULL);
		auths_s_cell(t, a->window_ns == CLOCKS_NONE ? 0 : a->window_ns);
		texttable_cell(t, "%lld", (long long)a->to_dead);
		if (a->lost == CLOCKS_NONE || a->sent <= 0) {
			texttable_cell(t, "-");
			texttable_cell(t, "-");
		} else {
			texttable_cell(t, "%lld", (long long)a->lost);
			texttable_cell(t, "%.1f %%", 100.0 * (double)a->lost / (double)a->sent);
		}
	}
}

void report_auths_md(const struct report *r, FILE *fp)
{
	struct texttable t;

	if (!report_has_auths(r))
		return;
	fprintf(fp,
		"## Authorities\n\n"
		"The DNS clients' names are served by %d [dns] nodes, each deciding on its "
		"own: the DNS scheme's detect and steer above are the first of any. Per "
		"node (its implementation beside its name): its own verdict on %s (authd's "
		"health_changed; PowerDNS's and gdnsd's checks, read on the packets), its "
		"first answer without the site, and its clients' last request to the site "
		"after t0 (their window), their requests to it after t0 and their lost "
		"requests; beside them the model of the lab with every DNS client asking "
		"that node (docs/clocks.md, \"Authorities\"). clocks.json's `authorities` "
		"has the same.\n",
		r->in.auths->n, r->in.failure.site);
	report_auths_table(r, &t);
	fputc('\n', fp);
	texttable_print(&t, fp, 1);
	fputc('\n', fp);
	texttable_free(&t);
}
