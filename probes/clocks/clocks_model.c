/*
 * The model of a run (clocks_model.h): the run's topology.ini loaded as
 * `steerlab model` loads a file, the model's input moved to the run's own
 * failure instant and traffic time, its clocks over the draws copied into
 * the clocks' plain numbers; what is measured of each, its tolerance and
 * the judgement of one against the other.
 */
#include "clocks_model.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clocks_int.h"
#include "model.h"
#include "topology.h"
#include "wire.h"

/* an action that returned sooner than this after t0 was in effect at t0
 * (a kill: microseconds) */
#define EFFECT_NOTE_NS 1000000LL

#define NS 1e9

const struct clocks_model_row clocks_model_rows[] = {
    {"detect (s)", CLOCKS_MODEL_DETECT, 1},
    {"steer (s)", CLOCKS_MODEL_STEER, 1},
    {"window (s)", CLOCKS_MODEL_WINDOW, 1},
    {"last packet p50 (s)", CLOCKS_MODEL_LAST_P50, 1},
    {"last packet p99 (s)", CLOCKS_MODEL_LAST_P99, 1},
    {"last packet max (s)", CLOCKS_MODEL_LAST_MAX, 1},
    {"lost (client)", CLOCKS_MODEL_LOST_CLIENT, 0},
    {"lost (capture)", CLOCKS_MODEL_LOST_CAPTURE, 0},
    {"errors", CLOCKS_MODEL_ERRORS, 0},
    {"upstream DNS queries", CLOCKS_MODEL_UPSTREAM, 0},
    {"fail-back healthy (s)", CLOCKS_MODEL_FB_HEALTHY, 1},
    {"fail-back steer (s)", CLOCKS_MODEL_FB_STEER, 1},
    {"fail-back first (s)", CLOCKS_MODEL_FB_FIRST, 1},
    {"fail-back last (s)", CLOCKS_MODEL_FB_LAST, 1},
};
const int clocks_model_nrows = sizeof(clocks_model_rows) / sizeof(clocks_model_rows[0]);

void clocks_model_free(struct clocks_model *m)
{
	if (m == NULL)
		return;
	clocks_model_steer_free(&m->steer);
	free(m->input);
	free(m);
}

/* clocks_model_iv_copy: a model interval into the clocks' own */
void clocks_model_iv_copy(struct clocks_model_iv *d, const struct model_iv *v)
{
	d->known = v->known;
	d->p5 = v->p5;
	d->p50 = v->p50;
	d->p95 = v->p95;
	d->min = v->min;
	d->max = v->max;
	snprintf(d->why, sizeof(d->why), "%s", v->known ? "" : v->why);
}

/* clocks_model_scheme: the model's scheme s into ms, its clients given
 * their ids from the topology t */
static void clocks_model_scheme(const struct topology *t, const struct model_input *mi,
				const struct model_scheme_result *sr, int s,
				struct clocks_model_scheme *ms)
{
	const struct model_iv *from[CLOCKS_MODEL_CLOCKS] = {
	    [CLOCKS_MODEL_DETECT] = &sr->detect,
	    [CLOCKS_MODEL_STEER] = &sr->steer,
	    [CLOCKS_MODEL_WINDOW] = &sr->window,
	    [CLOCKS_MODEL_LAST_P50] = &sr->last_p50,
	    [CLOCKS_MODEL_LAST_P99] = &sr->last_p99,
	    [CLOCKS_MODEL_LAST_MAX] = &sr->last_max,
	    [CLOCKS_MODEL_LOST_CLIENT] = &sr->lost,
	    [CLOCKS_MODEL_LOST_CAPTURE] = &sr->lost_site,
	    [CLOCKS_MODEL_ERRORS] = &sr->errors,
	    [CLOCKS_MODEL_DOWNTIME] = &sr->equivalent_downtime,
	    [CLOCKS_MODEL_BUDGET_SHARE] = &sr->budget_share,
	    [CLOCKS_MODEL_UPSTREAM] = &sr->upstream_queries,
	    [CLOCKS_MODEL_UPSTREAM_PER_S] = &sr->upstream_per_s,
	    [CLOCKS_MODEL_FB_HEALTHY] = &sr->fb_healthy,
	    [CLOCKS_MODEL_FB_STEER] = &sr->fb_steer,
	    [CLOCKS_MODEL_FB_FIRST] = &sr->fb_first,
	    [CLOCKS_MODEL_FB_LAST] = &sr->fb_last,
	};

	ms->present = sr->present;
	ms->clients = sr->clients;
	ms->rate_per_s = sr->rate_per_s;
	for (int c = 0; c < CLOCKS_MODEL_CLOCKS; c++)
		clocks_model_iv_copy(&ms->clock[c], from[c]);
	/* errors: a TCP or HTTP client's; a UDP one loses requests */
	ms->tcp = sr->tcp;
	if (!sr->tcp) {
		ms->clock[CLOCKS_MODEL_ERRORS].known = 0;
		snprintf(ms->clock[CLOCKS_MODEL_ERRORS].why,
			 sizeof(ms->clock[CLOCKS_MODEL_ERRORS].why),
			 "no TCP or HTTP client: a request is lost, not an error");
	}
	for (int j = 0; j < sr->clients && ms->nclients < CLOCKS_MAX_CLIENTS; j++) {
		const struct model_client *mc = &mi->clients[sr->client_index[j]];
		struct clocks_model_client *c = &ms->client[ms->nclients++];
		int n = topo_find(t, mc->name);
		uint32_t id = n >= 0 ? t->nodes[n].client_id : 0;

		c->id = s == MODEL_DNS ? WIRE_DNS_CLIENT_ID(id) : id;
		snprintf(c->name, sizeof(c->name), "%s", mc->name);
		c->rate_per_s = mc->rate_per_s;
		clocks_model_iv_copy(&c->last, &sr->client_last[j]);
	}
}

/* clocks_model_first_line: the first line of text, into buf */
static void clocks_model_first_line(char *buf, size_t len, const char *text)
{
	size_t n = text ? strcspn(text, "\n") : 0;

	snprintf(buf, len, "%.*s", (int)n, text ? text : "");
}

/* clocks_model_load: topology.ini of rundir into t; 0, or -1 with why in m */
static int clocks_model_load(const char *rundir, struct topology *t, struct clocks_model *m)
{
	char path[PATH_MAX], *text = NULL, line[CLOCKS_WARNING_LEN / 2];
	size_t len = 0;
	FILE *errs;
	int rc;

	snprintf(path, sizeof(path), "%s/topology.ini", rundir);
	if (access(path, R_OK) == -1) {
		snprintf(m->why, sizeof(m->why), "topology.ini: %s", strerror(errno));
		return -1;
	}
	if ((errs = open_memstream(&text, &len)) == NULL) {
		snprintf(m->why, sizeof(m->why), "out of memory");
		return -1;
	}
	rc = topo_load(t, path, NULL, 0, errs);
	fclose(errs);
	if (rc == -1) {
		/* a run from an older steerlab may not load: said, not fatal;
		 * the file named as in the run directory, where it is */
		const char *msg = text ? text : "";

		if (strncmp(msg, path, strlen(path)) == 0)
			msg += strlen(path);
		clocks_model_first_line(line, sizeof(line), msg);
		snprintf(m->why, sizeof(m->why), "topology.ini%s%s", line[0] == ':' ? "" : ": ",
			 line);
	}
	free(text);
	return rc;
}

/* clocks_model_auths: each authority's detect and steer into m->auth, the
 * run's t0, traffic and wall clock as m's own input (m->input) has them;
 * mr is scratch */
static void clocks_model_auths(const struct topology *t, struct clocks_model *m,
			       struct model_result *mr)
{
	int n = model_topo_authorities(t, NULL, 0);
	struct model_input *mi;
	char err[CLOCKS_WARNING_LEN];

	if (n < 2 || m->input == NULL || (mi = malloc(sizeof(*mi))) == NULL)
		return;
	for (int a = 0; a < n && a < CLOCKS_MODEL_FAILURES; a++) {
		struct clocks_model_auth *x = &m->auth[m->nauth++];
		const char *node = "?";

		if (model_authority(t, a, m->input, mi, mr, &node, err, sizeof(err)) == -1) {
			snprintf(x->detect.why, sizeof(x->detect.why), "%.300s", err);
			snprintf(x->steer.why, sizeof(x->steer.why), "%.300s", err);
		} else {
			clocks_model_iv_copy(&x->detect, &mr->s[MODEL_DNS].detect);
			clocks_model_iv_copy(&x->steer, &mr->s[MODEL_DNS].steer);
		}
		snprintf(x->node, sizeof(x->node), "%s", node);
	}
	free(mi);
}

void clocks_model_prepare(const char *rundir, struct clocks_input *in, double slo_pct)
{
	struct clocks_model *m;
	struct topology *t = NULL;
	struct model_input *mi = NULL;
	struct model_result *mr = NULL;
	struct model_notes *notes = NULL;
	char err[CLOCKS_WARNING_LEN];
	int64_t traffic = clocks_traffic_ns(in);

	clocks_model_free(in->model);
	if ((in->model = m = calloc(1, sizeof(*m))) == NULL)
		return;
	m->slo_pct = slo_pct;
	if ((t = calloc(1, sizeof(*t))) == NULL || (mi = calloc(1, sizeof(*mi))) == NULL ||
	    (mr = calloc(1, sizeof(*mr))) == NULL || (notes = calloc(1, sizeof(*notes))) == NULL) {
		snprintf(m->why, sizeof(m->why), "out of memory");
		goto out;
	}
	if (clocks_model_load(rundir, t, m) == -1) {
		snprintf(m->steer.why, sizeof(m->steer.why), "%.300s", m->why);
		goto out;
	}
	/* the steering's steady state, for every run; the clocks for a failure */
	clocks_model_steer_prepare(t, in, m);
	if (in->steady) {
		snprintf(m->why, sizeof(m->why), "a steady state: no failure to model");
		goto out;
	}
	if (model_from_topology(t, mi, notes, err, sizeof(err)) == -1) {
		/* "DIR/topology.ini: ...": named as in the run directory */
		const char *msg = strstr(err, "topology.ini: ");

		snprintf(m->why, sizeof(m->why), "%s", msg ? msg : err);
		goto out;
	}
	if (strcmp(mi->site, in->failure.site) != 0) {
		snprintf(m->why, sizeof(m->why),
			 "the topology's first failure is of site %s, the run's of %s", mi->site,
			 in->failure.site);
		goto out;
	}
	/* the run's own failure instant (fail_jitter drawn, the action's
	 * delay) and traffic time (an interrupted run's) */
	if (in->traffic_start_ns != CLOCKS_NONE && in->failure.t0_ns > in->traffic_start_ns) {
		double at = mi->fail_at_s;

		mi->fail_at_s = (double)(in->failure.t0_ns - in->traffic_start_ns) / NS;
		mi->fail_jitter_s = 0;
		model_note(notes, 0,
			   "t0: the run's, %.3f s after the start of its traffic (fail_at %g s, "
			   "fail_jitter drawn and the action's delay included)",
			   mi->fail_at_s, at);
		/* t0 is stamped as the action begins: it is in effect by when
		 * it returned (a freeze's nftables table loaded) */
		if (in->failure.killed_ns != CLOCKS_NONE &&
		    in->failure.killed_ns - in->failure.t0_ns > EFFECT_NOTE_NS) {
			mi->effect_s = (double)(in->failure.killed_ns - in->failure.t0_ns) / NS;
			model_note(notes, 0,
				   "the failure in effect uniformly within %.3f s after t0: its "
				   "action (%s) took so long to return (site_failed's killed_ns)",
				   mi->effect_s, in->failure.how);
		}
	}
	/* the real resolvers' whole seconds: the wall clock's phase is the
	 * run's */
	if (in->traffic_start_ns != CLOCKS_NONE && model_dns_whole(mi)) {
		mi->wall_known = 1;
		mi->wall_s = (double)(in->traffic_start_ns % 1000000000) / NS;
		model_note(notes, 0,
			   "the caches of whole seconds: the wall clock at %.3f of a second as the "
			   "run's traffic started",
			   mi->wall_s);
	}
	if (traffic != CLOCKS_NONE && traffic > 0)
		mi->duration_s = (double)traffic / NS;
	mi->slo_pct = slo_pct;
	if (model_lab(mi, mr) == -1) {
		snprintf(m->why, sizeof(m->why), "out of memory");
		goto out;
	}
	m->known = 1;
	m->t0_s = mi->fail_at_s;
	m->recover_s = mi->recover_at_s >= 0 ? mi->recover_at_s - mi->fail_at_s : -1;
	m->duration_s = mi->duration_s;
	m->budget_s = mr->budget_s;
	m->samples = model_draws(mi);
	for (int i = 0; i < notes->n && m->nnotes < CLOCKS_MODEL_NOTES; i++) {
		m->not_modelled[m->nnotes] = notes->not_modelled[i];
		snprintf(m->note[m->nnotes++], CLOCKS_MODEL_WHY, "%s", notes->text[i]);
	}
	/* the clocks' order is the model's: anycast, dns */
	clocks_model_scheme(t, mi, &mr->s[MODEL_ANYCAST], MODEL_ANYCAST, &m->s[0]);
	clocks_model_scheme(t, mi, &mr->s[MODEL_DNS], MODEL_DNS, &m->s[1]);
	/* the queries of a traffic the tolerance shorter and longer: the
	 * fills that a phase so much off moves across its end */
	mi->duration_s = m->duration_s - (double)CLOCKS_MODEL_TOL_NS / NS;
	m->s[1].upstream_lo = model_dns_upstream(mi);
	mi->duration_s = m->duration_s + (double)CLOCKS_MODEL_TOL_NS / NS;
	m->s[1].upstream_hi = model_dns_upstream(mi);
	mi->duration_s = m->duration_s;
	m->input = mi; /* for the decay */
	mi = NULL;
	if (in->nfailures > 1)
		clocks_model_failures_prepare(t, in, m);
	clocks_model_auths(t, m, mr);
out:
	free(t);
	free(mi);
	free(mr);
	free(notes);
}

/* clocks_model_ns: ns as seconds into *v; -1 if not measured */
static int clocks_model_ns(int64_t ns, double *v)
{
	if (ns == CLOCKS_NONE || ns == CLOCKS_NA)
		return -1;
	*v = (double)ns / NS;
	return 0;
}

/* clocks_model_count: a count into *v; -1 if not measured */
static int clocks_model_count(int64_t n, double *v)
{
	if (n == CLOCKS_NONE || n == CLOCKS_NA)
		return -1;
	*v = (double)n;
	return 0;
}

int clocks_model_measured(const struct clocks_input *in, const struct clocks_result *r,
			  enum clocks_model_clock c, double *v, int *lb)
{
	const struct clocks_dist *d = &r->last_per_client;

	(void)in;
	*lb = 0;
	switch (c) {
	case CLOCKS_MODEL_DETECT:
		return clocks_model_ns(r->detect_ns, v);
	case CLOCKS_MODEL_STEER:
		return clocks_model_ns(r->steer_ns, v);
	case CLOCKS_MODEL_WINDOW:
		*lb = r->window_lb;
		return clocks_model_ns(r->window_ns, v);
	case CLOCKS_MODEL_LAST_P50:
		*lb = d->lb_p50;
		return d->n > 0 ? clocks_model_ns(d->p50_ns, v) : -1;
	case CLOCKS_MODEL_LAST_P99:
		*lb = d->lb_p99;
		return d->n > 0 ? clocks_model_ns(d->p99_ns, v) : -1;
	case CLOCKS_MODEL_LAST_MAX:
		*lb = d->lb_max;
		return d->n > 0 ? clocks_model_ns(d->max_ns, v) : -1;
	case CLOCKS_MODEL_LOST_CLIENT:
		return clocks_model_count(r->lost_client, v);
	case CLOCKS_MODEL_LOST_CAPTURE:
		return clocks_model_count(r->lost_capture, v);
	case CLOCKS_MODEL_ERRORS:
		return clocks_model_count(r->errors, v);
	case CLOCKS_MODEL_DOWNTIME:
		if (!r->has_budget || r->budget.downtime_s < 0)
			return -1;
		*v = r->budget.downtime_s;
		return 0;
	case CLOCKS_MODEL_BUDGET_SHARE:
		if (!r->has_budget || r->budget.share_downtime < 0)
			return -1;
		*v = r->budget.share_downtime;
		return 0;
	case CLOCKS_MODEL_UPSTREAM:
		return clocks_model_count(r->upstream_queries, v);
	case CLOCKS_MODEL_UPSTREAM_PER_S:
		*v = clocks_per_s(r);
		return *v >= 0 ? 0 : -1;
	case CLOCKS_MODEL_FB_HEALTHY:
		return r->has_failback ? clocks_model_ns(r->failback.healthy_ns, v) : -1;
	case CLOCKS_MODEL_FB_STEER:
		return r->has_failback ? clocks_model_ns(r->failback.steer_ns, v) : -1;
	case CLOCKS_MODEL_FB_FIRST:
		return r->has_failback ? clocks_model_ns(r->failback.first_ns, v) : -1;
	case CLOCKS_MODEL_FB_LAST:
		return r->has_failback ? clocks_model_ns(r->failback.last_ns, v) : -1;
	case CLOCKS_MODEL_CLOCKS:
		break;
	}
	return -1;
}

double clocks_model_tolerance(const struct clocks_model *m, int i, enum clocks_model_clock c)
{
	const struct clocks_model_scheme *s = &m->s[i];
	const struct clocks_model_iv *up = &s->clock[CLOCKS_MODEL_UPSTREAM];
	double tol = (double)CLOCKS_MODEL_TOL_NS / NS, q = 0;

	/* the fills a traffic the tolerance shorter or longer has fewer or
	 * more */
	if (up->known)
		q = fmax(s->upstream_hi - up->max, up->min - s->upstream_lo);
	if (q < 0)
		q = 0;

	switch (c) {
	case CLOCKS_MODEL_LOST_CLIENT:
	case CLOCKS_MODEL_LOST_CAPTURE:
	case CLOCKS_MODEL_ERRORS:
		/* each client's last packet tol later: its rate x tol more */
		return s->rate_per_s * tol + 1;
	case CLOCKS_MODEL_BUDGET_SHARE:
		return m->budget_s > 0 ? tol / m->budget_s : 0;
	case CLOCKS_MODEL_UPSTREAM:
		return q;
	case CLOCKS_MODEL_UPSTREAM_PER_S:
		return m->duration_s > 0 ? q / m->duration_s : 0;
	default:
		return tol;
	}
}

/* clocks_model_next_step: the timeline's first step after the failure
 * that the model does not follow, in seconds after t0; INFINITY-like 1e300
 * if none (the DNS outages it follows query by query: model_dns_sim.c) */
static double clocks_model_next_step(const struct clocks_input *in)
{
	const struct model_input *mi = in->model ? in->model->input : NULL;
	double next = 1e300;

	for (size_t k = 0; k < in->nhits; k++) {
		double at = (double)(in->hits[k].t_ns - in->failure.t0_ns) / NS;
		const char *a = in->hits[k].action;

		if (mi && mi->noutages &&
		    (strcmp(a, "dns-down") == 0 || strcmp(a, "dns-up") == 0 ||
		     strcmp(a, "resolver-down") == 0 || strcmp(a, "resolver-up") == 0))
			continue;
		if (in->hits[k].t_ns > in->failure.t0_ns && at < next)
			next = at;
	}
	return next;
}

/* clocks_model_step_after: the timeline's first step after instant at_ns
 * (CLOCK_REALTIME ns), in seconds after it; 1e300 if none, or no instant */
static double clocks_model_step_after(const struct clocks_input *in, int64_t at_ns)
{
	double next = 1e300;

	if (at_ns <= 0)
		return next;
	for (size_t k = 0; k < in->nhits; k++)
		if (in->hits[k].t_ns > at_ns && (double)(in->hits[k].t_ns - at_ns) / NS < next)
			next = (double)(in->hits[k].t_ns - at_ns) / NS;
	return next;
}

int clocks_model_decay(const struct clocks_input *in, int i, int64_t bucket_ns, size_t n,
		       double *share)
{
	const struct clocks_model *m = in->model;
	double next = clocks_model_next_step(in), w = (double)bucket_ns / NS;

	if (m == NULL || !m->known || m->input == NULL || i < 0 || i >= CLOCKS_NSCHEMES ||
	    !m->s[i].present || bucket_ns <= 0 ||
	    model_lab_decay(m->input, i == 0 ? MODEL_ANYCAST : MODEL_DNS, w, n, share) == -1)
		return -1;
	for (size_t k = 0; k < n; k++)
		if ((double)k * w >= next)
			share[k] = -1;
	return 0;
}

int clocks_model_judge(const struct clocks_input *in, int i, enum clocks_model_clock c, double v,
		       int lb)
{
	const struct clocks_model *m = in->model;
	const struct clocks_model_iv *iv, *window;
	double tol, after, next = clocks_model_next_step(in);

	if (m == NULL || !m->known || !m->s[i].present)
		return CLOCKS_MODEL_UNKNOWN;
	iv = &m->s[i].clock[c];
	if (!iv->known)
		return CLOCKS_MODEL_UNKNOWN;
	tol = clocks_model_tolerance(m, i, c);
	/* the fail-back's clocks count from the recovery: a step after it
	 * may change them */
	if (clocks_model_fb(c)) {
		double after = clocks_model_step_after(in, in->failure.recovered_ns);

		if (iv->max + tol >= after)
			return CLOCKS_MODEL_LATER_STEP;
		if (v > iv->max + tol)
			return CLOCKS_MODEL_OUTSIDE;
		return v < iv->min - tol ? CLOCKS_MODEL_OUTSIDE : CLOCKS_MODEL_WITHIN;
	}
	window = &m->s[i].clock[CLOCKS_MODEL_WINDOW];
	/* a later step of the timeline (a recovery, another failure) changes
	 * what a clock measures that could end after it: the model knows the
	 * first failure alone. A detect or steer measured before the step was
	 * not changed by it; a last packet may have been cut short. */
	after = m->duration_s - m->t0_s;
	if ((c == CLOCKS_MODEL_DETECT || c == CLOCKS_MODEL_STEER) && iv->max + tol >= next &&
	    v >= next)
		return CLOCKS_MODEL_LATER_STEP;
	if (c >= CLOCKS_MODEL_WINDOW && c <= CLOCKS_MODEL_LAST_MAX && iv->max + tol >= next)
		return CLOCKS_MODEL_LATER_STEP;
	/* the capture's losses add up to the window's end; the clients' (and
	 * the budget from them) and the queries over the whole traffic */
	if (c == CLOCKS_MODEL_LOST_CAPTURE &&
	    (!window->known ||
	     window->max + clocks_model_tolerance(m, i, CLOCKS_MODEL_WINDOW) >= next))
		return CLOCKS_MODEL_LATER_STEP;
	if ((c == CLOCKS_MODEL_LOST_CLIENT || c == CLOCKS_MODEL_ERRORS ||
	     c == CLOCKS_MODEL_DOWNTIME || c == CLOCKS_MODEL_BUDGET_SHARE ||
	     c >= CLOCKS_MODEL_UPSTREAM) &&
	    next < after)
		return CLOCKS_MODEL_LATER_STEP;
	if (v > iv->max + tol)
		return CLOCKS_MODEL_OUTSIDE;
	if (lb) /* the clock may be longer: only too long is known */
		return CLOCKS_MODEL_LOWER_BOUND;
	return v < iv->min - tol ? CLOCKS_MODEL_OUTSIDE : CLOCKS_MODEL_WITHIN;
}
