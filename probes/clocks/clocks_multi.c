/*
 * Every failure of the timeline (clocks_multi.h, struct clocks_multi;
 * docs/clocks.md, "Every failure"): which steps took a site out, and the
 * clocks of each, relative to its own t0.
 *
 * The failures are the site_failed events (one per site: its first step
 * that took it out) and each later step that took a site out again after
 * the timeline had brought it back (a kill, crash, freeze, drain or
 * link-down after a recover, undrain or link-up); a flap's downs are the
 * flap clocks'. Each ends at its site's first recovery after its t0.
 *
 * The clocks of one are those of the first (clocks_anycast, clocks_dns) on
 * a shallow copy of the input whose failure is that one: they read the
 * failure from in->failure only and keep no state. What is the failure's
 * own and not the run's is lost_client: the clients' lost requests that
 * were captured on its site's link while it was out.
 */
#include "clocks_multi.h"

#include "clocks_model.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_hosts.h"
#include "clocks_int.h"

/* a step that takes a site out: the actions that write site_failed */
static const char *clocks_multi_how(const struct clocks_hit *h)
{
	static const char *const takes[][2] = {
	    {"kill", "sigkill"},    {"crash", "crash"},		{"freeze", "freeze"},
	    {"drain", "drain"},	    {"link-down", "link-down"}, {"impair", "impair"},
	    {"degrade", "degrade"}, {"slow", "slow"},
	};

	if (h->up || h->cycle != 0 || h->site[0] == '\0')
		return NULL;
	for (size_t i = 0; i < sizeof(takes) / sizeof(takes[0]); i++)
		if (strcmp(h->action, takes[i][0]) == 0)
			return takes[i][1];
	return NULL;
}

/* clocks_multi_recovery: the first step after t0 that brought site back */
static int64_t clocks_multi_recovery(const struct clocks_input *in, const char *site, int64_t t0)
{
	for (size_t i = 0; i < in->nhits; i++)
		if (in->hits[i].up && in->hits[i].t_ns > t0 && strcmp(in->hits[i].site, site) == 0)
			return in->hits[i].t_ns;
	return 0;
}

int clocks_failures_find(struct clocks_input *in, char *err, size_t errlen)
{
	size_t nsite = in->nfailures;

	for (size_t i = 0; i < nsite; i++)
		in->failures[i].recovered_ns =
		    clocks_multi_recovery(in, in->failures[i].site, in->failures[i].t0_ns);
	/* a site taken out again after its recovery */
	for (size_t i = 0; i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];
		const struct clocks_failure *last = NULL;
		const char *how = clocks_multi_how(h);
		struct clocks_failure f;

		if (how == NULL)
			continue;
		for (size_t k = 0; k < in->nfailures; k++)
			if (strcmp(in->failures[k].site, h->site) == 0 &&
			    in->failures[k].t0_ns < h->t_ns &&
			    (last == NULL || in->failures[k].t0_ns > last->t0_ns))
				last = &in->failures[k];
		/* its first failure is its site_failed; still out, not a new one */
		if (last == NULL || last->recovered_ns == 0 || last->recovered_ns > h->t_ns)
			continue;
		if (in->nfailures == CLOCKS_MAX_FAILURES) {
			clocks_warn(&in->notes, "limit",
				    "%s of site %s: more than %d failures, not analysed", h->name,
				    h->site, CLOCKS_MAX_FAILURES);
			break;
		}
		f = *last; /* the site's link, addresses and routes */
		f.t0_ns = h->t_ns;
		snprintf(f.name, sizeof(f.name), "%s", h->name);
		snprintf(f.how, sizeof(f.how), "%s", how);
		f.killed_ns = CLOCKS_NONE;
		f.nominal_at_ns = h->nominal_at_ns;
		f.jitter_offset_ns = h->at_ns != CLOCKS_NONE && h->nominal_at_ns != CLOCKS_NONE
					 ? h->at_ns - h->nominal_at_ns
					 : CLOCKS_NONE;
		f.recovered_ns = clocks_multi_recovery(in, h->site, h->t_ns);
		if (clocks_grow((void **)&in->failures, &in->capfailures, in->nfailures,
				sizeof(*in->failures)) == -1) {
			snprintf(err, errlen, "lab.events.jsonl: failures: out of memory");
			return -1;
		}
		in->failures[in->nfailures++] = f;
	}
	/* by t0, stable (an insertion sort of at most CLOCKS_MAX_FAILURES):
	 * of several failures at one instant the first site_failed stays
	 * first, as in->failure */
	for (size_t i = 1; i < in->nfailures; i++) {
		struct clocks_failure f = in->failures[i];
		size_t k = i;

		for (; k > 0 && in->failures[k - 1].t0_ns > f.t0_ns; k--)
			in->failures[k] = in->failures[k - 1];
		in->failures[k] = f;
	}
	return 0;
}

static int clocks_multi_u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* clocks_multi_lost: the scheme's requests the clients lost that were
 * captured on the failure's site's link while it was out (in: the copy
 * whose failure it is); CLOCKS_NONE without records or capture */
static int64_t clocks_multi_lost(const struct clocks_input *in, const struct clocks_flows *fl)
{
	const struct clocks_capture *c = NULL;
	uint64_t *keys;
	size_t n = 0;
	int64_t lost = 0;

	for (size_t i = 0; i < in->ncaptures; i++)
		if (strcmp(in->captures[i].label, in->failure.site) == 0)
			c = &in->captures[i];
	if (c == NULL || !in->have_requests)
		return CLOCKS_NONE;
	if ((keys = malloc((c->n ? c->n : 1) * sizeof(*keys))) == NULL)
		return CLOCKS_NONE;
	for (size_t k = 0; k < c->n; k++)
		if (clocks_is_dead(in, fl, c, k))
			keys[n++] = (uint64_t)c->packets[k].client << 32 | c->packets[k].seq;
	qsort(keys, n, sizeof(*keys), clocks_multi_u64cmp);
	for (size_t i = 0; n > 0 && i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];
		uint64_t key = (uint64_t)q->client << 32 | (uint32_t)q->seq;

		if (q->status == CLOCKS_TIMEOUT && clocks_scheme_of(q->client) == fl->scheme &&
		    bsearch(&key, keys, n, sizeof(*keys), clocks_multi_u64cmp))
			lost++;
	}
	free(keys);
	return lost;
}

/* clocks_multi_get: in's failures' clocks, those of in->multi or computed
 * into *own (NULL when in->multi has them); NULL if out of memory. Give
 * *own back to clocks_multi_put. */
static const struct clocks_multi *clocks_multi_get(const struct clocks_input *in,
						   struct clocks_multi **own)
{
	*own = NULL;
	if (in->multi)
		return in->multi;
	if ((*own = malloc(sizeof(**own))) == NULL)
		return NULL;
	if (clocks_multi(in, *own) == -1) {
		free(*own);
		*own = NULL;
	}
	return *own;
}

static void clocks_multi_put(struct clocks_multi *own)
{
	if (own == NULL)
		return;
	clocks_multi_free(own);
	free(own);
}

void clocks_multi_prepare(struct clocks_input *in)
{
	struct clocks_multi *m;

	if (in->multi || in->nfailures < 2 || (m = malloc(sizeof(*m))) == NULL)
		return;
	if (clocks_multi(in, m) == -1) {
		free(m);
		return;
	}
	in->multi = m;
}

void clocks_multi_verdict_hosts(const struct clocks_input *in, struct clocks_notes *v)
{
	struct clocks_multi *own;
	const struct clocks_multi *m;

	if (in->nfailures < 2 || !clocks_multi_host(in) || (m = clocks_multi_get(in, &own)) == NULL)
		return;
	for (int i = 1; i < m->n; i++)
		clocks_hosts_verdict_failure(
		    in, m->fc[i].f->name[0] ? m->fc[i].f->name : m->fc[i].f->site, m->fc[i].res, 2,
		    v);
	clocks_multi_put(own);
}

void clocks_multi_print_all(FILE *out, const struct clocks_input *in)
{
	struct clocks_multi *own;
	const struct clocks_multi *m;

	if (in->nfailures < 2 || (m = clocks_multi_get(in, &own)) == NULL)
		return;
	clocks_multi_print(out, in, m);
	clocks_multi_put(own);
}

int clocks_multi(const struct clocks_input *in, struct clocks_multi *m)
{
	struct clocks_input *one = malloc(sizeof(*one));

	memset(m, 0, sizeof(*m));
	if (one == NULL)
		return -1;
	for (size_t i = 0; i < in->nfailures; i++) {
		struct clocks_failure_clocks *fc;

		if (m->n == CLOCKS_MAX_FAILURES) {
			m->lost++;
			continue;
		}
		fc = &m->fc[m->n++];
		/* a shallow copy: the arrays are in's, read only */
		*one = *in;
		one->failure = in->failures[i];
		fc->f = &in->failures[i];
		clocks_anycast(one, &fc->res[0]);
		clocks_dns(one, &fc->res[1]);
		fc->res[0].lost_client = clocks_multi_lost(one, &clocks_anycast_flows);
		fc->res[1].lost_client = one->failure.has_address
					     ? clocks_multi_lost(one, &clocks_dns_flows)
					     : CLOCKS_NONE;
	}
	free(one);
	return 0;
}

void clocks_multi_free(struct clocks_multi *m)
{
	for (int i = 0; i < m->n; i++)
		for (int k = 0; k < 2; k++)
			clocks_result_free(&m->fc[i].res[k]);
	m->n = 0;
}

static json_t *clocks_multi_s(int64_t ns)
{
	return ns == CLOCKS_NONE || ns == CLOCKS_NA ? json_null() : json_real((double)ns / 1e9);
}

static json_t *clocks_multi_n(int64_t v)
{
	return v == CLOCKS_NONE || v == CLOCKS_NA ? json_null() : json_integer(v);
}

static json_t *clocks_multi_scheme(const struct clocks_result *r)
{
	json_t *o = json_object(), *w = json_array(), *u;

	json_object_set_new(o, "detect_s", clocks_multi_s(r->detect_ns));
	json_object_set_new(o, "steer_s", clocks_multi_s(r->steer_ns));
	json_object_set_new(o, "window_s", clocks_multi_s(r->window_ns));
	json_object_set_new(o, "window_lower_bound", json_boolean(r->window_lb));
	json_object_set_new(o, "lost_client", clocks_multi_n(r->lost_client));
	json_object_set_new(o, "lost_capture", clocks_multi_n(r->lost_capture));
	json_object_set_new(
	    o, "last_packet_max_s",
	    clocks_multi_s(r->last_packet.n > 0 ? r->last_packet.max_ns : CLOCKS_NONE));
	json_object_set_new(o, "clients_sending_after_t0", json_integer(r->last_packet.n));
	json_object_set_new(o, "detect_at_ns", clocks_multi_n(r->detect_at_ns));
	json_object_set_new(o, "steer_at_ns", clocks_multi_n(r->steer_at_ns));
	/* a lab over several hosts: this failure's clocks' uncertainties */
	if ((u = clocks_hosts_json_u(r)))
		json_object_set_new(o, "uncertainty_s", u);
	if (r->has_failback) {
		json_t *b = json_object();

		json_object_set_new(b, "healthy_s", clocks_multi_s(r->failback.healthy_ns));
		json_object_set_new(b, "steer_s", clocks_multi_s(r->failback.steer_ns));
		json_object_set_new(b, "first_client_s", clocks_multi_s(r->failback.first_ns));
		json_object_set_new(b, "last_client_s", clocks_multi_s(r->failback.last_ns));
		json_object_set_new(o, "failback", b);
	}
	/* what is missing for this failure; the run's verdict is the first's */
	for (int k = 0; k < r->notes.n; k++)
		json_array_append_new(w, json_pack("{s:s, s:s}", "code", r->notes.w[k].code,
						   "message", r->notes.w[k].msg));
	json_object_set_new(o, "warnings", w);
	return o;
}

json_t *clocks_json_failures(const struct clocks_input *in)
{
	struct clocks_multi *own;
	const struct clocks_multi *m;
	json_t *a = json_array();

	/* the first failure is the run's, in clocks.json's schemes */
	if (in->nfailures < 2 || (m = clocks_multi_get(in, &own)) == NULL)
		return a;
	for (int i = 1; i < m->n; i++) {
		const struct clocks_failure *f = m->fc[i].f;
		json_t *o = json_object(), *s = json_object();

		json_object_set_new(o, "name", f->name[0] ? json_string(f->name) : json_null());
		json_object_set_new(o, "site", json_string(f->site));
		json_object_set_new(o, "how", json_string(f->how));
		json_object_set_new(o, "t0_ns", json_integer(f->t0_ns));
		json_object_set_new(o, "after_first_s",
				    clocks_multi_s(f->t0_ns - in->failure.t0_ns));
		json_object_set_new(o, "at_s",
				    clocks_multi_s(in->traffic_start_ns == CLOCKS_NONE
						       ? CLOCKS_NONE
						       : f->t0_ns - in->traffic_start_ns));
		json_object_set_new(
		    o, "recovered_s",
		    clocks_multi_s(f->recovered_ns ? f->recovered_ns - f->t0_ns : CLOCKS_NONE));
		for (int k = 0; k < 2; k++)
			if (!m->fc[i].res[k].noflows) {
				json_t *sc = clocks_multi_scheme(&m->fc[i].res[k]), *mo;

				/* the model of this failure beside it */
				if ((mo = clocks_model_failure_json(in, i, k, &m->fc[i].res[k])))
					json_object_set_new(sc, "model", mo);
				json_object_set_new(s, m->fc[i].res[k].scheme, sc);
			}
		json_object_set_new(o, "schemes", s);
		json_array_append_new(a, o);
	}
	clocks_multi_put(own);
	return a;
}

static void clocks_multi_cell(FILE *out, int64_t v, int seconds, int lb)
{
	char buf[32];

	if (v == CLOCKS_NONE)
		snprintf(buf, sizeof(buf), "-");
	else if (v == CLOCKS_NA)
		snprintf(buf, sizeof(buf), "n/a");
	else if (seconds)
		snprintf(buf, sizeof(buf), "%s%.3f", lb ? ">=" : "", (double)v / 1e9);
	else
		snprintf(buf, sizeof(buf), "%lld", (long long)v);
	fprintf(out, " %9s", buf);
}

/* clocks_multi_u_cell: a clock's uncertainty in ms ("±0.412"), blank
 * without one or of 0 (a stamp of the reference's), as in the table
 * above */
static void clocks_multi_u_cell(FILE *out, int64_t v, int64_t u)
{
	char buf[32] = "";

	if (u != CLOCKS_NONE && u > 0 && v != CLOCKS_NONE && v != CLOCKS_NA)
		snprintf(buf, sizeof(buf), "\u00b1%.3f", (double)u / 1e6);
	/* "±" is two bytes and one column */
	fprintf(out, " %*s", buf[0] ? 10 : 9, buf);
}

/* clocks_multi_u_row: a lab over several hosts: under a failure's row, the
 * uncertainty of its clocks, in ms (docs/clocks.md, "Several hosts") */
static void clocks_multi_u_row(FILE *out, const struct clocks_result *r)
{
	if (!clocks_hosts_any_u(r))
		return;
	/* "±" is two bytes and one column: %-9s pads it to 8 */
	fprintf(out, "%-10s %-8s %-9s %-8s %-9s", "", "", "", "", "\u00b1 ms");
	clocks_multi_u_cell(out, r->detect_ns, r->u_detect_ns);
	clocks_multi_u_cell(out, r->steer_ns, r->u_steer_ns);
	clocks_multi_u_cell(out, r->window_ns, r->u_window_ns);
	clocks_multi_u_cell(out, r->last_packet.n > 0 ? r->last_packet.max_ns : CLOCKS_NONE,
			    r->u_last_packet_ns);
	fputc('\n', out);
}

void clocks_multi_print(FILE *out, const struct clocks_input *in, const struct clocks_multi *m)
{
	if (m->n < 2)
		return;
	fprintf(out, "\nevery failure of the timeline (seconds after each failure's own t0; lost: "
		     "the requests lost at that site while it was out):\n");
	fprintf(out, "%-10s %-8s %-9s %-8s %-8s %9s %9s %9s %9s %9s %9s %9s\n", "failure", "site",
		"how", "t0 (s)", "scheme", "detect", "steer", "window", "last pkt", "lost cli",
		"lost cap", "recovered");
	for (int i = 0; i < m->n; i++) {
		const struct clocks_failure *f = m->fc[i].f;
		char t0[32];

		snprintf(t0, sizeof(t0), "%+.3f", (double)(f->t0_ns - in->failure.t0_ns) / 1e9);
		for (int k = 0; k < 2; k++) {
			const struct clocks_result *r = &m->fc[i].res[k];

			if (r->noflows)
				continue;
			fprintf(out, "%-10.10s %-8.8s %-9.9s %-8s %-8s", f->name[0] ? f->name : "-",
				f->site, f->how, t0, r->scheme);
			clocks_multi_cell(out, r->detect_ns, 1, 0);
			clocks_multi_cell(out, r->steer_ns, 1, 0);
			clocks_multi_cell(out, r->window_ns, 1, r->window_lb);
			clocks_multi_cell(
			    out, r->last_packet.n > 0 ? r->last_packet.max_ns : CLOCKS_NONE, 1,
			    r->last_packet.lb_max);
			clocks_multi_cell(out, r->lost_client, 0, 0);
			clocks_multi_cell(out, r->lost_capture, 0, 0);
			clocks_multi_cell(
			    out, f->recovered_ns ? f->recovered_ns - f->t0_ns : CLOCKS_NONE, 1, 0);
			fputc('\n', out);
			clocks_multi_u_row(out, r);
			clocks_model_failure_row(out, in, i, k, r);
		}
	}
	if (m->lost)
		fprintf(out, "(%d more failures not analysed)\n", m->lost);
	fprintf(out, "t0 is relative to the first failure's; the first row's clocks are the "
		     "table's above; a model row: steerlab model's p50 for that failure, the ones "
		     "before it settled (docs/model.md, \"Every failure\")\n");
}

/* clocks_multi_covered: h, a step that takes a site out, is one of the
 * failures (their t0 is the step's instant: lab/run/actions.c stamps both) */
static int clocks_multi_covered(const struct clocks_input *in, const struct clocks_hit *h)
{
	for (size_t i = 0; i < in->nfailures; i++)
		if (strcmp(in->failures[i].site, h->site) == 0 && in->failures[i].t0_ns == h->t_ns)
			return 1;
	return 0;
}

int64_t clocks_multi_lost_capture(const struct clocks_input *in, const char *scheme, char *sites,
				  size_t len)
{
	struct clocks_multi *own;
	const struct clocks_multi *m;
	int64_t sum = 0;
	size_t used = 0;

	if (in->nfailures < 2)
		return CLOCKS_NONE;
	/* a link cut, a flap, a step on a site that is no failure of the
	 * list (one still out): requests lost where no failure counts them */
	for (size_t i = 0; i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];

		if (h->up)
			continue;
		if (h->link || h->cycle != 0 || (h->site[0] && !clocks_multi_covered(in, h)))
			return CLOCKS_NONE;
	}
	/* a drained site answers, a cut link is captured by no one */
	for (size_t i = 0; i < in->nfailures; i++)
		if (strcmp(in->failures[i].how, "drain") == 0 ||
		    strcmp(in->failures[i].how, "link-down") == 0)
			return CLOCKS_NONE;
	if ((m = clocks_multi_get(in, &own)) == NULL)
		return CLOCKS_NONE;
	if (m->lost) {
		sum = CLOCKS_NONE;
		goto out;
	}
	if (len)
		sites[0] = '\0';
	for (int i = 0; i < m->n && sum != CLOCKS_NONE; i++) {
		for (int k = 0; k < 2; k++) {
			const struct clocks_result *r = &m->fc[i].res[k];

			if (strcmp(r->scheme, scheme) != 0)
				continue;
			if (r->lost_capture == CLOCKS_NONE) {
				sum = CLOCKS_NONE;
				break;
			}
			sum += r->lost_capture;
			if (used < len)
				used += (size_t)snprintf(sites + used, len - used, "%s%s %lld",
							 i ? ", " : "", m->fc[i].f->site,
							 (long long)r->lost_capture);
		}
	}
out:
	clocks_multi_put(own);
	return sum;
}
