/*
 * The verdict of a run (docs/clocks.md, "Verdict"): the self-checks that
 * decide whether its clocks can be quoted. Everything comes from the run
 * directory as loaded (events, captures, records) and the schemes' results;
 * no I/O, so that `steerlab report` reaches the same verdict as the run did
 * and the unit tests can build any case by hand.
 *
 * Each finding is a coded note: the codes that invalidate the run say the
 * lab did not measure what it claims (an agent died, a client fell behind
 * its rate, losses the failure does not explain, a healthy site declared
 * dead, a capture that dropped or lost packets, an interrupted run); the
 * others qualify a valid run (a window cut short by the end of the
 * observation, control messages dropped, rates that could not be checked).
 * Every message names the node, agent, site or client and the figure.
 */
#include <arpa/inet.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"

/* verdict_at: t as "t0 + 1.234 s" (or "t0 - 0.500 s") */
static const char *verdict_at(char *buf, size_t len, const struct clocks_input *in, int64_t t)
{
	int64_t d = t - in->failure.t0_ns;

	snprintf(buf, len, "t0 %c %.3f s", d < 0 ? '-' : '+', fabs((double)d / NSEC_PER_SEC));
	return buf;
}

/* verdict_cutoff: when the teardown began; what happens after is the lab
 * stopping its agents on purpose */
static int64_t verdict_cutoff(const struct clocks_input *in)
{
	if (in->lab_stopping_ns != CLOCKS_NONE)
		return in->lab_stopping_ns;
	if (in->traffic_stop_ns != CLOCKS_NONE)
		return in->traffic_stop_ns;
	return INT64_MAX;
}

/* verdict_measured: is t in the measured part of the run, from the start of
 * the traffic to the teardown? (Before the traffic the lab is settling.) */
static int verdict_measured(const struct clocks_input *in, int64_t t)
{
	return (in->traffic_start_ns == CLOCKS_NONE || t >= in->traffic_start_ns) &&
	       t <= verdict_cutoff(in);
}

static int verdict_present(const struct clocks_result *res, int nres)
{
	for (int i = 0; i < nres; i++)
		if (!res[i].noflows)
			return 1;
	return 0;
}

/* no_traffic, interrupted: did the clients send, for as long as told? */
static void verdict_traffic(const struct clocks_input *in, const struct clocks_result *res,
			    int nres, struct clocks_notes *v)
{
	char at[48];

	if (in->traffic_start_ns == CLOCKS_NONE)
		clocks_invalid(v, "no_traffic",
			       "lab.events.jsonl has no traffic_started: the clients were never "
			       "started, so nothing was measured");
	else if (!in->have_requests)
		clocks_invalid(v, "no_traffic",
			       "no requests-*.csv: no client recorded a request, so nothing was "
			       "measured");
	else if (!verdict_present(res, nres))
		clocks_invalid(v, "no_traffic",
			       "neither the clients' records (requests-*.csv) nor the captures "
			       "hold a request of any scheme: nothing was measured");
	if (in->traffic_start_ns == CLOCKS_NONE)
		return;
	if (in->traffic_stop_ns == CLOCKS_NONE) {
		clocks_invalid(v, "interrupted",
			       "lab.events.jsonl has no traffic_stopped: steerlab did not finish "
			       "the run (was it killed?); the traffic time is taken as the "
			       "configured %.3f s",
			       (double)in->traffic_duration_ns / NSEC_PER_SEC);
		return;
	}
	if (in->traffic_interrupted != 1)
		return;
	double ran = (double)(in->traffic_stop_ns - in->traffic_start_ns) / NSEC_PER_SEC;
	double told = (double)in->traffic_duration_ns / NSEC_PER_SEC;
	double after = (double)(in->traffic_stop_ns - in->failure.t0_ns) / NSEC_PER_SEC;

	if (in->fail_at_ns != CLOCKS_NONE && in->traffic_duration_ns > in->fail_at_ns)
		clocks_invalid(v, "interrupted",
			       "the run was interrupted %.3f s after the traffic started (%s), of "
			       "the %.3f s configured: the observation after t0 lasted %.3f s of "
			       "the %.3f s configured, the last %.3f s were never run; rates, "
			       "budgets and the decay use the %.3f s actually run",
			       ran, verdict_at(at, sizeof(at), in, in->traffic_stop_ns), told,
			       after > 0 ? after : 0,
			       (double)(in->traffic_duration_ns - in->fail_at_ns) / NSEC_PER_SEC,
			       told > ran ? told - ran : 0, ran);
	else
		clocks_invalid(v, "interrupted",
			       "the run was interrupted %.3f s after the traffic started (%s), of "
			       "the %.3f s configured; rates, budgets and the decay use the %.3f s "
			       "actually run",
			       ran, verdict_at(at, sizeof(at), in, in->traffic_stop_ns), told, ran);
}

/* agent_exited: an agent ended on its own, or was killed, during the run */
static void verdict_exits(const struct clocks_input *in, struct clocks_notes *v)
{
	char at[48], how[96], into[64] = "";

	for (size_t i = 0; i < in->nexits; i++) {
		const struct clocks_exit *x = &in->exits[i];

		if (x->expected || x->t_ns > verdict_cutoff(in))
			continue;
		if (x->has_signal) {
			const char *name = sigabbrev_np(x->sig);
			snprintf(how, sizeof(how), "was killed by signal %d (SIG%s)", x->sig,
				 name ? name : "?");
		} else if (x->has_code) {
			snprintf(how, sizeof(how), "exited with status %d", x->code);
		} else {
			snprintf(how, sizeof(how), "ended (status unknown)");
		}
		if (in->traffic_start_ns != CLOCKS_NONE && x->t_ns >= in->traffic_start_ns)
			snprintf(into, sizeof(into), ", %.3f s into the traffic",
				 (double)(x->t_ns - in->traffic_start_ns) / NSEC_PER_SEC);
		else if (in->traffic_start_ns != CLOCKS_NONE)
			snprintf(into, sizeof(into), ", before the traffic started");
		clocks_invalid(v, "agent_exited",
			       "%s on %s (pid %lld) %s at %s%s: what it did for the lab stopped "
			       "there",
			       x->agent, x->node, (long long)x->pid, how,
			       verdict_at(at, sizeof(at), in, x->t_ns), into);
	}
}

/* verdict_started: did client id write client_started? */
static int verdict_started(const struct clocks_input *in, uint32_t id)
{
	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == id && in->clients[i].started_ns != CLOCKS_NONE)
			return 1;
	return 0;
}

/* verdict_unstarted: the clients of the records without a client_started,
 * whose rate cannot be checked (client_rate_unchecked, a warning); a
 * population's started as one (lib/wire.h, wire_agent_of) */
static void verdict_unstarted(const struct clocks_input *in, struct clocks_notes *v)
{
	uint32_t seen[CLOCKS_MAX_CLIENTS], last = 0;
	size_t nseen = 0, nmissing = 0;
	char ids[160] = "";
	int len = 0;

	for (size_t i = 0; i < in->nrequests; i++) {
		/* a population's logical clients: their agent's client_started */
		uint32_t id = wire_agent_of(in->requests[i].client);
		int known = id == last;

		for (size_t k = 0; k < nseen && !known; k++)
			known = seen[k] == id;
		last = id;
		if (known || nseen == CLOCKS_MAX_CLIENTS)
			continue;
		seen[nseen++] = id;
		if (verdict_started(in, id))
			continue;
		if (nmissing++ < 8 && len < (int)sizeof(ids))
			len += snprintf(ids + len, sizeof(ids) - (size_t)len, "%s%u",
					nmissing > 1 ? ", " : "", id);
	}
	if (nmissing > 8 && len < (int)sizeof(ids))
		snprintf(ids + len, sizeof(ids) - (size_t)len, ", ...");
	if (nmissing)
		clocks_warn(v, "client_rate_unchecked",
			    "%zu client%s of the records (%s) wrote no client_started: %s "
			    "achieved rate cannot be checked",
			    nmissing, nmissing == 1 ? "" : "s", ids,
			    nmissing == 1 ? "its" : "their");
}

/* client_behind: each client's achieved rate against the one it was told */
static void verdict_clients(const struct clocks_input *in, struct clocks_notes *v)
{
	int64_t traffic = clocks_traffic_ns(in);

	if (in->have_requests && in->nrequests > 0 && in->nclient_files == 0) {
		clocks_warn(v, "client_rate_unchecked",
			    "no NODE.client*.events.jsonl: the clients' achieved rates cannot be "
			    "checked against their configured rates");
		return;
	}
	verdict_unstarted(in, v);
	for (size_t i = 0; i < in->nclients; i++) {
		const struct clocks_client *c = &in->clients[i];
		double secs, rate;

		if (c->started_ns == CLOCKS_NONE)
			continue;
		if (c->summary_ns == CLOCKS_NONE) {
			clocks_invalid(v, "client_behind",
				       "client %u (%s on %s) started but wrote no client_summary: "
				       "it was killed or crashed, and how many requests it sent "
				       "is unknown",
				       c->id, c->agent, c->node);
			continue;
		}
		if (traffic == CLOCKS_NONE || traffic <= 0 || c->rate <= 0)
			continue;
		/* a client that fell behind sends its backlog late, after the
		 * traffic time: its rate is over the time its sends really took */
		secs = (double)(c->sending_ns > traffic ? c->sending_ns : traffic) / NSEC_PER_SEC;
		rate = (double)c->sent / secs;
		if (rate >= c->rate * (1 - CLOCKS_RATE_BEHIND))
			continue;
		clocks_invalid(v, "client_behind",
			       "client %u (%s on %s) sent %lld requests in %.3f s: %.1f per s, "
			       "%.1f %% behind its configured %.1f per s (more than %.0f %% "
			       "invalidates): the machine could not keep up",
			       c->id, c->agent, c->node, (long long)c->sent, secs, rate,
			       100 * (1 - rate / c->rate), c->rate, 100 * CLOCKS_RATE_BEHIND);
	}
}

/*
 * unexplained_loss. Every request a client lost (status timeout) is looked
 * up in the captures by its client id and sequence number (the captures
 * keep the low 32 bits), and is explained by the failure when it reached
 * the dead site: captured on the failed site's link as one of the scheme's
 * requests to the dead site. It is not when it was sent more than one
 * client timeout before t0 (it had timed out before the site failed), when
 * it reached only a healthy site's link (that site did not answer in time),
 * or when it reached no site link at all, except while routing converged:
 * an anycast request sent from one client timeout before t0 to the last FIB
 * change (the FIB clocks) that reached no site's link was lost on the way,
 * in a loop or a hole between routers that did not agree yet (path
 * exploration): the failure's, counted apart (lost_in_transit, a warning).
 */
struct verdict_lost {
	uint64_t key; /* client << 32 | low 32 bits of seq; 0: empty slot */
	int where;    /* -1: not captured, -2: at the dead site, else the capture */
	int64_t sent_ns;
	int64_t at_ns; /* where = -2: when it reached the dead site's link */
};

static uint64_t verdict_key(uint32_t client, uint32_t seq)
{
	return (uint64_t)client << 32 | seq;
}

static size_t verdict_slot(const struct verdict_lost *set, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);

	while (set[i].key != 0 && set[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

static int verdict_hit_site(const struct clocks_input *in, const char *site, int64_t t_ns);

/* verdict_link_cut: the timeline cut a link (link-down, a link's flap) */
static int verdict_link_cut(const struct clocks_input *in)
{
	for (size_t i = 0; i < in->nhits; i++)
		if (in->hits[i].link && !in->hits[i].up)
			return 1;
	return 0;
}

/* the losses the failure explains that the capture of S after t0 does not
 * count (loss_mismatch adds them to it) */
struct verdict_explained {
	int64_t transit; /* lost on the way while routing converged */
	int64_t queued;	 /* reached S's link before t0: queued in S when it failed */
};

/* verdict_unexplained: the unexplained losses (invalid), and the explained
 * ones the capture after t0 does not see, in *ex */
static void verdict_unexplained(const struct clocks_input *in, const struct clocks_flows *fl,
				const struct clocks_result *r, struct clocks_notes *v,
				struct verdict_explained *ex)
{
	int64_t t0 = in->failure.t0_ns, tol = in->client_timeout_ns, first_early = INT64_MAX;
	int64_t converged = r->fib && r->fib->last_at_ns != CLOCKS_NONE ? r->fib->last_at_ns : 0;
	const struct clocks_capture *dead = NULL;
	struct verdict_lost *set = NULL;
	size_t nlost = 0, cap = 64, early = 0, nowhere = 0, transit = 0, queued = 0, *at = NULL;
	char msg[CLOCKS_WARNING_LEN], when[48];
	int len;

	for (size_t i = 0; i < in->ncaptures; i++)
		if (strcmp(in->captures[i].label, in->failure.site) == 0)
			dead = &in->captures[i];
	memset(ex, 0, sizeof(*ex));
	if (dead == NULL || r->lost_client == CLOCKS_NONE || r->lost_client == 0)
		return; /* no capture of the site: capture_missing says so */
	while (cap < 2 * (size_t)r->lost_client + 2)
		cap *= 2;
	set = calloc(cap, sizeof(*set));
	at = calloc(in->ncaptures, sizeof(*at));
	if (set == NULL || at == NULL) {
		clocks_warn(v, "limit", "%s: unexplained losses: out of memory, not checked",
			    r->scheme);
		goto out;
	}
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];
		size_t k;

		if (q->status != CLOCKS_TIMEOUT || clocks_scheme_of(q->client) != fl->scheme)
			continue;
		if (q->sent_ns < t0 - tol) {
			early++;
			if (q->sent_ns < first_early)
				first_early = q->sent_ns;
			continue;
		}
		k = verdict_slot(set, cap, verdict_key(q->client, (uint32_t)q->seq));
		if (set[k].key == 0) {
			set[k] = (struct verdict_lost){verdict_key(q->client, (uint32_t)q->seq), -1,
						       q->sent_ns, 0};
			nlost++;
		}
	}
	for (size_t i = 0; i < in->ncaptures && nlost > 0; i++) {
		const struct clocks_capture *c = &in->captures[i];

		for (size_t j = 0; j < c->n; j++) {
			const struct clocks_packet *p = &c->packets[j];
			size_t k;

			if (!clocks_is_flow(in, fl, p))
				continue;
			k = verdict_slot(set, cap, verdict_key(p->client, p->seq));
			if (set[k].key == 0)
				continue;
			if (c == dead && (fl->to_dead == NULL || fl->to_dead(in, p))) {
				if (set[k].where != -2 || p->t_ns > set[k].at_ns)
					set[k].at_ns = p->t_ns;
				set[k].where = -2;
			} else if (set[k].where == -1)
				set[k].where = (int)i;
		}
	}
	for (size_t k = 0; k < cap; k++) {
		if (set[k].key == 0)
			continue;
		if (set[k].where == -2) {
			queued += set[k].at_ns <= t0;
			continue;
		}
		if (set[k].where == -1) {
			/* a cut link: requests toward it die at the router; while
			 * the routers did not agree, in a loop or a hole */
			if (converged && set[k].sent_ns <= converged)
				transit++;
			else if (!verdict_link_cut(in))
				nowhere++;
		} else if (!verdict_hit_site(in, in->captures[set[k].where].label, INT64_MAX)) {
			/* a site the timeline took out too: its losses are its */
			at[set[k].where]++;
		}
	}
	if (transit)
		clocks_warn(v, "lost_in_transit",
			    "%s: %zu of the %lld requests the clients lost reached no site's link: "
			    "sent before the last FIB change (t0 + %.3f s), they were lost on the "
			    "way while the routers did not agree yet (the failure's; counted with "
			    "the capture's losses)",
			    r->scheme, transit, (long long)r->lost_client,
			    (double)(converged - t0) / NSEC_PER_SEC);
	if (queued)
		clocks_warn(
		    v, "lost_queued",
		    "%s: %zu of the %lld requests the clients lost reached %s's link before "
		    "t0 (sent less than one client timeout before it): queued in %s when it "
		    "failed (the failure's; counted with the capture's losses)",
		    r->scheme, queued, (long long)r->lost_client, in->failure.site,
		    in->failure.site);
	ex->transit = (int64_t)transit;
	ex->queued = (int64_t)queued;
	size_t total = early + nowhere;
	for (size_t i = 0; i < in->ncaptures; i++)
		total += at[i];
	if (total == 0)
		goto out;
	len = snprintf(msg, sizeof(msg),
		       "%s: %zu of the %lld requests the clients lost are not explained by the "
		       "failure of %s:",
		       r->scheme, total, (long long)r->lost_client, in->failure.site);
	for (size_t i = 0; i < in->ncaptures; i++)
		if (at[i] && len < (int)sizeof(msg))
			len += snprintf(msg + len, sizeof(msg) - (size_t)len,
					" %zu reached site %s, which did not answer in time;",
					at[i], in->captures[i].label);
	if (nowhere && len < (int)sizeof(msg))
		len += snprintf(msg + len, sizeof(msg) - (size_t)len,
				" %zu reached no site's link;", nowhere);
	if (early && len < (int)sizeof(msg))
		len += snprintf(msg + len, sizeof(msg) - (size_t)len,
				" %zu %s sent more than %.3f s (the client timeout) before t0, "
				"the first at %s;",
				early, early == 1 ? "was" : "were", (double)tol / NSEC_PER_SEC,
				verdict_at(when, sizeof(when), in, first_early));
	if (len > 0 && len < (int)sizeof(msg))
		msg[len - 1] = '\0'; /* the last ';' */
	clocks_invalid(v, "unexplained_loss", "%s", msg);
out:
	free(set);
	free(at);
}

/* loss_mismatch: the clients' lost and the capture's lost (with the
 * requests lost on the way while routing converged, and those queued in S
 * when it failed) disagree */
static void verdict_mismatch(const struct clocks_input *in, const struct clocks_result *r,
			     const struct verdict_explained *ex, struct clocks_notes *v)
{
	int64_t a = r->lost_client, b = r->lost_capture, diff, larger;
	int64_t transit = ex->transit + ex->queued;

	if (a == CLOCKS_NONE || b == CLOCKS_NONE)
		return;
	b += transit;
	/* several failures, each counted at its own site's link: the clients'
	 * losses are all of theirs (docs/clocks.md, "Every failure") */
	char sites[CLOCKS_WARNING_LEN / 2];
	int64_t all = clocks_multi_lost_capture(in, r->scheme, sites, sizeof(sites));
	if (all != CLOCKS_NONE) {
		b = all + transit;
		diff = a > b ? a - b : b - a;
		larger = a > b ? a : b;
		if (diff <= CLOCKS_LOSS_ABS || (double)diff <= CLOCKS_LOSS_SHARE * (double)larger)
			return;
		clocks_invalid(v, "loss_mismatch",
			       "%s: the clients lost %lld requests and the captures of the failed "
			       "sites' links saw %lld reach them while they were out (%s): they "
			       "differ by %lld (%.1f %%), more than %.0f %% and %d requests",
			       r->scheme, (long long)a, (long long)b, sites, (long long)diff,
			       100.0 * (double)diff / (double)larger, 100 * CLOCKS_LOSS_SHARE,
			       CLOCKS_LOSS_ABS);
		return;
	}
	/* the timeline took another site out too: its losses are not at
	 * this site's link */
	for (size_t i = 0; i < in->nhits; i++) {
		if (in->hits[i].up || in->hits[i].site[0] == '\0' ||
		    strcmp(in->hits[i].site, in->failure.site) == 0)
			continue;
		clocks_warn(v, "loss_unchecked",
			    "%s: the clients' losses (%lld) are not compared with the capture's at "
			    "%s (%lld): the timeline took site %s out too (%s)",
			    r->scheme, (long long)a, in->failure.site, (long long)b,
			    in->hits[i].site, in->hits[i].name);
		return;
	}
	/* S taken out again after its recovery (a flap's next down, a second
	 * kill): the capture counts the first failure's losses only */
	for (size_t i = 0; in->failure.recovered_ns != 0 && i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];

		if (h->up || h->t_ns <= in->failure.recovered_ns ||
		    strcmp(h->site, in->failure.site) != 0)
			continue;
		clocks_warn(v, "loss_unchecked",
			    "%s: the clients' losses (%lld) are not compared with the capture's at "
			    "%s (%lld): the timeline took %s out again after its recovery (%s%s), "
			    "and the capture's count is the first failure's",
			    r->scheme, (long long)a, in->failure.site, (long long)b,
			    in->failure.site, h->name, h->cycle ? ", a flap's next down" : "");
		return;
	}
	if (verdict_link_cut(in) && strcmp(in->failure.how, "link-down") != 0) {
		clocks_warn(v, "loss_unchecked",
			    "%s: the clients' losses (%lld) are not compared with the capture's at "
			    "%s (%lld): the timeline cut a link, and requests were lost on the way",
			    r->scheme, (long long)a, in->failure.site, (long long)b);
		return;
	}
	/* a drained site answers what reaches it, a cut link is captured by
	 * no one: the capture's count is not a loss count then */
	if (strcmp(in->failure.how, "drain") == 0 || strcmp(in->failure.how, "link-down") == 0) {
		clocks_warn(v, "loss_unchecked",
			    "%s: the clients' losses (%lld) are not compared with the capture's "
			    "(%lld): site %s failed by %s, %s",
			    r->scheme, (long long)a, (long long)b, in->failure.site,
			    in->failure.how,
			    strcmp(in->failure.how, "drain") == 0
				? "and answers the requests the capture counts"
				: "whose link no capture sees");
		return;
	}
	diff = a > b ? a - b : b - a;
	larger = a > b ? a : b;
	if (diff <= CLOCKS_LOSS_ABS || (double)diff <= CLOCKS_LOSS_SHARE * (double)larger)
		return;
	clocks_invalid(v, "loss_mismatch",
		       "%s: the clients lost %lld requests and the capture of %s's link saw %lld "
		       "reach it after t0: they differ by %lld (%.1f %%), more than %.0f %% and "
		       "%d requests",
		       r->scheme, (long long)a, in->failure.site, (long long)b, (long long)diff,
		       100.0 * (double)diff / (double)larger, 100 * CLOCKS_LOSS_SHARE,
		       CLOCKS_LOSS_ABS);
}

/* one kind of finding about a healthy site, counted, its first kept */
#define VERDICT_MAX_FINDINGS 32

struct verdict_finding {
	char who[2 * CLOCKS_NAME_MAX + 2]; /* what is the same in every occurrence */
	int64_t first;
	int count;
};

static void verdict_find(struct verdict_finding *f, int *n, const char *who, int64_t t)
{
	for (int i = 0; i < *n; i++) {
		if (strcmp(f[i].who, who) == 0) {
			f[i].count++;
			if (t < f[i].first)
				f[i].first = t;
			return;
		}
	}
	if (*n == VERDICT_MAX_FINDINGS)
		return;
	snprintf(f[*n].who, sizeof(f[*n].who), "%s", who);
	f[*n].first = t;
	f[(*n)++].count = 1;
}

static const char *verdict_times(char *buf, size_t len, int count)
{
	if (count == 1)
		snprintf(buf, len, "once");
	else
		snprintf(buf, len, "%d times", count);
	return buf;
}

#define VERDICT_ROUTED_PROTO 252 /* agents/routed/kroute.h: KROUTE_PROTO */

/* verdict_failed_route: rt is the failed site's route in its router (the
 * next hop toward it from a router without it, at its metric there: as
 * site_failed's routes say, or as the FIBs at t0 say), deleted after t0 */
static int verdict_failed_route(const struct clocks_input *in, const struct clocks_route *rt)
{
	const struct clocks_failure *f = &in->failure;
	if (!rt->has_via || rt->t_ns < f->t0_ns)
		return 0;
	char site[CLOCKS_NAME_MAX];

	for (int k = 0; k < f->nroutes; k++)
		if (strcmp(f->routes[k].router, rt->node) == 0 &&
		    f->routes[k].via.s_addr == rt->via.s_addr &&
		    (!rt->has_metric || rt->metric == f->routes[k].metric))
			return 1;
	/* routed's routes (routing = static) are exactly site_failed's; a
	 * routing daemon's: its next hop led to the failed site at t0 (the
	 * next router's route then, followed: lab_up's addresses) */
	if (rt->protocol == VERDICT_ROUTED_PROTO)
		return 0;
	clocks_fib_via_site(in, rt->via, f->t0_ns, site);
	return strcmp(site, f->site) == 0;
}

struct verdict_gone {
	struct verdict_finding *gone;
	int *n;
};

static int verdict_failback_route(const struct clocks_failure *f, const struct clocks_route *rt);
static int verdict_hit_via(const struct clocks_input *in, struct in_addr via, int64_t t_ns);

/* verdict_route_left: a route that left a FIB (deleted, or replaced by one
 * of other next hops): a healthy route withdrawn, unless it was the failed
 * site's after t0 */
static void verdict_route_left(const struct clocks_input *in, const struct clocks_route *rt,
			       const struct clocks_route *by, void *arg)
{
	const struct clocks_failure *f = &in->failure;
	struct verdict_gone *g = arg;
	char via[INET_ADDRSTRLEN] = "no gateway";

	if (!verdict_measured(in, rt->t_ns) ||
	    (rt->has_via && rt->via.s_addr == f->via.s_addr && rt->t_ns >= f->t0_ns) ||
	    (rt->has_via && verdict_hit_via(in, rt->via, rt->t_ns)) ||
	    (by && verdict_failback_route(f, by)) || verdict_failed_route(in, rt))
		return;
	if (rt->has_via)
		inet_ntop(AF_INET, &rt->via, via, sizeof(via));
	verdict_find(g->gone, g->n, via, rt->t_ns);
}

/* verdict_failback_route: rt is a router's route moving back to S after the
 * timeline brought S back: its replacement of the route via another site
 * is the fail-back, not that route leaving (BGP prefers S again) */
static int verdict_failback_route(const struct clocks_failure *f, const struct clocks_route *rt)
{
	if (!rt->has_via || f->recovered_ns == 0 || rt->t_ns < f->recovered_ns)
		return 0;
	if (rt->via.s_addr == f->via.s_addr)
		return 1;
	for (int k = 0; k < f->nroutes; k++)
		if (strcmp(f->routes[k].router, rt->node) == 0 &&
		    f->routes[k].via.s_addr == rt->via.s_addr)
			return 1;
	return 0;
}

/* verdict_hit_site: the timeline acted on site at or before t_ns (killed,
 * crashed, frozen, drained, its link down, a flap; or brought it back, after
 * which probers may still be catching up): its being declared dead then is
 * the timeline's doing, not a fault of the run */
static int verdict_hit_site(const struct clocks_input *in, const char *site, int64_t t_ns)
{
	for (size_t i = 0; i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];

		if (h->t_ns > t_ns)
			continue;
		if (h->site[0] && strcmp(h->site, site) == 0)
			return 1;
		/* a link between routers cut: any site may be out of a
		 * vantage point's reach from then on */
		if (h->site[0] == '\0' && h->link && !h->up)
			return 1;
	}
	return 0;
}

/* verdict_hit_via: the timeline acted at or before t_ns on a target whose
 * routes go via via (a site's link, a link's ends) */
static int verdict_hit_via(const struct clocks_input *in, struct in_addr via, int64_t t_ns)
{
	for (size_t i = 0; i < in->nhits; i++)
		for (int k = 0; in->hits[i].t_ns <= t_ns && k < in->hits[i].nvias; k++)
			if (in->hits[i].vias[k].s_addr == via.s_addr)
				return 1;
	return 0;
}

/* healthy_site_dead, healthy_route_withdrawn: a site that had not failed
 * (any other site, or the failing one before t0) declared dead by a prober
 * or by authd, or its route withdrawn, while the traffic ran. What the
 * timeline did (event_applied: a second site failed, a link cut) is not
 * counted: those sites and next hops are the timeline's from its step on. */
static void verdict_healthy(const struct clocks_input *in, struct clocks_notes *v)
{
	const struct clocks_failure *f = &in->failure;
	struct verdict_finding dead[VERDICT_MAX_FINDINGS], sick[VERDICT_MAX_FINDINGS],
	    gone[VERDICT_MAX_FINDINGS];
	int ndead = 0, nsick = 0, ngone = 0;
	struct verdict_gone gone_arg;
	char who[2 * CLOCKS_NAME_MAX + 2], at[48], times[32], prefix[INET_ADDRSTRLEN],
	    fvia[INET_ADDRSTRLEN];

	for (size_t i = 0; i < in->ndead; i++) {
		const struct clocks_dead *d = &in->dead[i];

		if (!verdict_measured(in, d->t_ns) ||
		    (strcmp(d->site, f->site) == 0 && d->t_ns >= f->t0_ns) ||
		    verdict_hit_site(in, d->site, d->t_ns))
			continue;
		snprintf(who, sizeof(who), "%s|%s", d->node, d->site);
		verdict_find(dead, &ndead, who, d->t_ns);
	}
	for (size_t i = 0; i < in->nhealth; i++) {
		const struct clocks_health *h = &in->health[i];

		if (h->healthy || !verdict_measured(in, h->t_ns) ||
		    (strcmp(h->site, f->site) == 0 && h->t_ns >= f->t0_ns) ||
		    verdict_hit_site(in, h->site, h->t_ns))
			continue;
		verdict_find(sick, &nsick, h->site, h->t_ns);
	}
	gone_arg.gone = gone;
	gone_arg.n = &ngone;
	clocks_fib_left(in, verdict_route_left, &gone_arg);
	for (int i = 0; i < ndead; i++) {
		char *site = strchr(dead[i].who, '|');

		*site++ = '\0';
		clocks_invalid(v, "healthy_site_dead",
			       "the prober on %s declared site %s dead %s, first at %s, %s",
			       dead[i].who, site,
			       verdict_times(times, sizeof(times), dead[i].count),
			       verdict_at(at, sizeof(at), in, dead[i].first),
			       strcmp(site, f->site) == 0 ? "before it failed"
							  : "though it is not the failing site");
	}
	for (int i = 0; i < nsick; i++)
		clocks_invalid(
		    v, "healthy_site_dead", "authd marked site %s unhealthy %s, first at %s, %s",
		    sick[i].who, verdict_times(times, sizeof(times), sick[i].count),
		    verdict_at(at, sizeof(at), in, sick[i].first),
		    strcmp(sick[i].who, f->site) == 0 ? "before it failed"
						      : "though it is not the failing site");
	inet_ntop(AF_INET, &f->prefix, prefix, sizeof(prefix));
	inet_ntop(AF_INET, &f->via, fvia, sizeof(fvia));
	for (int i = 0; i < ngone; i++)
		clocks_invalid(
		    v, "healthy_route_withdrawn",
		    "the route to %s/%d via %s left the router's FIB %s, first at %s, %s", prefix,
		    f->prefixlen, gone[i].who, verdict_times(times, sizeof(times), gone[i].count),
		    verdict_at(at, sizeof(at), in, gone[i].first),
		    strcmp(gone[i].who, fvia) == 0 ? "before the site failed"
						   : "though it is not the failing site's link");
}

/* verdict_capture: is there a capture (of a site, of queries or of a
 * router link) labelled
 * label? Its packet records and whether it was cut short, if so. */
static int verdict_capture(const struct clocks_input *in, const char *label, size_t *records,
			   int *truncated)
{
	for (size_t i = 0; i < in->ncaptures; i++) {
		if (strcmp(in->captures[i].label, label) == 0) {
			*records = in->captures[i].records;
			*truncated = in->captures[i].truncated;
			return 1;
		}
	}
	for (size_t i = 0; i < in->nqcaptures; i++) {
		if (strcmp(in->qcaptures[i].label, label) == 0) {
			*records = in->qcaptures[i].records;
			*truncated = in->qcaptures[i].truncated;
			return 1;
		}
	}
	for (size_t i = 0; i < in->nlcaptures; i++) {
		if (strcmp(in->lcaptures[i].label, label) == 0) {
			*records = in->lcaptures[i].records;
			*truncated = in->lcaptures[i].truncated;
			return 1;
		}
	}
	for (size_t i = 0; i < in->nrcaptures; i++) {
		if (strcmp(in->rcaptures[i].label, label) == 0) {
			*records = in->rcaptures[i].records;
			*truncated = in->rcaptures[i].truncated;
			return 1;
		}
	}
	return 0;
}

/* capture_stats_missing, capture_drops, capture_missing, capture_truncated
 * (as the collector counted it), capture_write_error */
static void verdict_captures(const struct clocks_input *in, struct clocks_notes *v)
{
	char at[48];
	size_t records;
	int truncated, have_dead = 0;

	for (size_t i = 0; i < in->ncaptures; i++)
		have_dead |= strcmp(in->captures[i].label, in->failure.site) == 0;
	if (!have_dead)
		clocks_invalid(v, "capture_missing",
			       "no capture-%s.pcap of the failed site's link: no window, no "
			       "losses at the site",
			       in->failure.site);
	if (in->nstats == 0)
		clocks_invalid(v, "capture_stats_missing",
			       "no capture_stats in *.collector*.events.jsonl: the collector did "
			       "not stop cleanly (was it killed?), so whether it dropped packets "
			       "is unknown");
	for (size_t i = 0; i < in->nstats; i++) {
		const struct clocks_link_stats *s = &in->stats[i];
		int64_t drops = s->dropped + s->if_dropped;

		if (!s->known)
			clocks_invalid(
			    v, "capture_stats_missing",
			    "the collector on %s has no drop counts for link %s: whether "
			    "it dropped packets is unknown",
			    s->node, s->label);
		else if (drops > 0)
			clocks_invalid(
			    v, "capture_drops",
			    "the collector on %s dropped %lld packet%s of link %s "
			    "(dropped %lld, if_dropped %lld): %s",
			    s->node, (long long)drops, drops == 1 ? "" : "s", s->label,
			    (long long)s->dropped, (long long)s->if_dropped,
			    strncmp(s->label, "resolver-", 9) == 0
				? "the share of that [resolver] node's client queries answered "
				  "from its cache may be wrong"
				: "the window, lost (capture) and the upstream queries may be too "
				  "low");
		if (!verdict_capture(in, s->label, &records, &truncated)) {
			if (strcmp(s->label, in->failure.site) != 0)
				clocks_invalid(v, "capture_missing",
					       "no capture-%s.pcap, though the collector on %s "
					       "captured link %s (capture_stats)",
					       s->label, s->node, s->label);
		} else if (!truncated && s->written != CLOCKS_NONE &&
			   (int64_t)records < s->written) {
			clocks_invalid(v, "capture_truncated",
				       "capture-%s.pcap holds %zu packets, but the collector on %s "
				       "wrote %lld (capture_stats): the file was cut short",
				       s->label, records, s->node, (long long)s->written);
		}
	}
	for (size_t i = 0; i < in->ncerrors; i++) {
		const struct clocks_capture_error *e = &in->cerrors[i];
		char file[sizeof(e->file) + 16];

		if (e->file[0])
			snprintf(file, sizeof(file), "%s", e->file);
		else
			snprintf(file, sizeof(file), "capture-%s.pcap", e->label);
		if (e->err)
			clocks_invalid(v, "capture_write_error",
				       "the collector on %s could not write %s at %s: %s (%s); the "
				       "capture of link %s stopped there",
				       e->node, file, verdict_at(at, sizeof(at), in, e->t_ns),
				       e->error[0] ? e->error : strerror(e->err),
				       strerrorname_np(e->err) ? strerrorname_np(e->err) : "?",
				       e->label);
		else
			clocks_invalid(v, "capture_write_error",
				       "the collector on %s could not go on capturing link %s (%s) "
				       "at %s; the capture stopped there",
				       e->node, e->label, e->error[0] ? e->error : "capture_error",
				       verdict_at(at, sizeof(at), in, e->t_ns));
	}
}

/* window_cut: a window the end of the observation cut short (a warning:
 * the clock is a lower bound, shown as such, not a wrong number) */
static void verdict_cut(const struct clocks_input *in, const struct clocks_result *r,
			struct clocks_notes *v)
{
	char ids[160] = "", at[48];
	int len = 0, shown = 0;
	int64_t end = clocks_traffic_end(in);

	if (!r->window_lb)
		return;
	for (size_t i = 0; i < r->nby_client && shown < 8; i++) {
		if (!r->by_client[i].cut)
			continue;
		len += snprintf(ids + len, sizeof(ids) - (size_t)len, "%s%u", shown ? ", " : "",
				r->by_client[i].client);
		shown++;
	}
	if (r->ncut > shown)
		snprintf(ids + len, sizeof(ids) - (size_t)len, ", ...");
	clocks_warn(v, "window_cut",
		    "%s: the window (>= %.3f s) is a lower bound: %d client%s (%s) still sent "
		    "to %s in the last request interval (at least %.1f s) before the traffic "
		    "ended at %s, and might have gone on; a longer observation after fail_at "
		    "would measure it",
		    r->scheme, (double)r->window_ns / NSEC_PER_SEC, r->ncut,
		    r->ncut == 1 ? "" : "s", ids, in->failure.site,
		    (double)CLOCKS_CUT_GUARD_NS / NSEC_PER_SEC,
		    verdict_at(at, sizeof(at), in, end));
}

/* control_rejected: control messages an agent dropped, per sender */
static void verdict_rejected(const struct clocks_input *in, struct clocks_notes *v)
{
	int *done = calloc(in->nrejected ? in->nrejected : 1, sizeof(*done));
	char at[48];

	if (done == NULL)
		return;
	for (size_t i = 0; i < in->nrejected; i++) {
		const struct clocks_rejected *a = &in->rejected[i];
		int64_t count = 0;

		if (done[i])
			continue;
		for (size_t k = i; k < in->nrejected; k++) {
			const struct clocks_rejected *b = &in->rejected[k];

			if (strcmp(a->node, b->node) == 0 && strcmp(a->agent, b->agent) == 0 &&
			    strcmp(a->from, b->from) == 0 && strcmp(a->reason, b->reason) == 0) {
				count += b->count;
				done[k] = 1;
			}
		}
		clocks_warn(v, "control_rejected",
			    "%s on %s dropped %lld control message%s from %s (%s), the first "
			    "reported at %s",
			    a->agent, a->node, (long long)count, count == 1 ? "" : "s", a->from,
			    a->reason[0] ? a->reason : "not entitled",
			    verdict_at(at, sizeof(at), in, a->t_ns));
	}
	free(done);
}

static const struct clocks_flows *verdict_flows(const struct clocks_result *r)
{
	return strcmp(r->scheme, "dns") == 0 ? &clocks_dns_flows : &clocks_anycast_flows;
}

void clocks_verdict(const struct clocks_input *in, const struct clocks_result *res, int nres,
		    struct clocks_notes *v)
{
	memset(v, 0, sizeof(*v));
	verdict_traffic(in, res, nres, v);
	verdict_exits(in, v);
	verdict_clients(in, v);
	for (int i = 0; i < nres; i++) {
		if (res[i].noflows)
			continue;
		if (strcmp(res[i].scheme, "dns") == 0 && !in->failure.has_address)
			continue; /* no DNS clocks at all (old_run) */
		struct verdict_explained ex;

		verdict_unexplained(in, verdict_flows(&res[i]), &res[i], v, &ex);
		verdict_mismatch(in, &res[i], &ex, v);
	}
	verdict_healthy(in, v);
	verdict_captures(in, v);
	for (int i = 0; i < nres; i++)
		if (!res[i].noflows)
			verdict_cut(in, &res[i], v);
	verdict_rejected(in, v);
	if (in->dnstopo.nrsv > 0) {
		struct clocks_resolvers *rs = malloc(sizeof(*rs));

		if (rs && clocks_resolvers(in, rs) == 0)
			clocks_resolvers_verdict(in, rs, v);
		else
			clocks_warn(v, "limit", "out of memory for the resolver checks");
		free(rs);
	}
}

int clocks_valid(const struct clocks_input *in, const struct clocks_result *res, int nres,
		 const struct clocks_notes *v)
{
	int invalid = in->notes.invalid + (v ? v->invalid : 0);

	for (int i = 0; i < nres; i++)
		invalid += res[i].notes.invalid;
	return invalid == 0;
}
