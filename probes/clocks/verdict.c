/*
 * The verdict of a run (docs/clocks.md, "Verdict"): the self-checks that
 * decide whether its clocks can be quoted. Everything comes from the run
 * directory as loaded (events, captures, records) and the schemes' results;
 * no I/O, so that `steerlab report` reaches the same verdict as the run did
 * and the unit tests can build any case by hand.
 *
 * Each finding is a coded note: the codes that invalidate the run say the
 * lab did not measure what it claims (an agent died, a client fell behind
 * its rate or stalled where the clocks are read, losses the failure does
 * not explain, a healthy site declared dead, a capture that dropped or lost
 * packets, a route monitor that lost route changes or read them late, an
 * interrupted run); the
 * others qualify a valid run (a window cut short by the end of the
 * observation, control messages dropped, rates that could not be checked).
 * Every message names the node, agent, site or client and the figure.
 */
#include "verdict.h"

#include <arpa/inet.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"
#include "verdict_int.h"

/* clocks_verdict_at: t as "t0 + 1.234 s" (or "t0 - 0.500 s") */
const char *clocks_verdict_at(char *buf, size_t len, const struct clocks_input *in, int64_t t)
{
	int64_t d = t - in->failure.t0_ns;

	snprintf(buf, len, "t0 %c %.3f s", d < 0 ? '-' : '+', fabs((double)d / NSEC_PER_SEC));
	return buf;
}

/* clocks_verdict_cutoff: when the teardown began; what happens after is the lab
 * stopping its agents on purpose */
int64_t clocks_verdict_cutoff(const struct clocks_input *in)
{
	if (in->lab_stopping_ns != CLOCKS_NONE)
		return in->lab_stopping_ns;
	if (in->traffic_stop_ns != CLOCKS_NONE)
		return in->traffic_stop_ns;
	return INT64_MAX;
}

/* clocks_verdict_measured: is t in the measured part of the run, from the start of
 * the traffic to the teardown? (Before the traffic the lab is settling.) */
int clocks_verdict_measured(const struct clocks_input *in, int64_t t)
{
	return (in->traffic_start_ns == CLOCKS_NONE || t >= in->traffic_start_ns) &&
	       t <= clocks_verdict_cutoff(in);
}

static int clocks_verdict_present(const struct clocks_result *res, int nres)
{
	for (int i = 0; i < nres; i++)
		if (!res[i].noflows)
			return 1;
	return 0;
}

/* no_traffic, interrupted: did the clients send, for as long as told? */
static void clocks_verdict_traffic(const struct clocks_input *in, const struct clocks_result *res,
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
	else if (!clocks_verdict_present(res, nres))
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
	if (in->traffic_stopped_by_down) {
		/* the clients stop by themselves: they sent at most the
		 * configured time, whenever down came */
		double sent = (double)clocks_traffic_ns(in) / NSEC_PER_SEC;

		clocks_invalid(v, "interrupted",
			       "steerlab run never finished this run (it was killed, or taken "
			       "down under it): `steerlab down` stopped the lab at %s, %.3f s "
			       "after the traffic started; nothing watched the agents to the "
			       "end, so one that ended meanwhile is not known; rates, budgets "
			       "and the decay use the %.3f s the clients could have sent",
			       clocks_verdict_at(at, sizeof(at), in, in->traffic_stop_ns),
			       (double)(in->traffic_stop_ns - in->traffic_start_ns) / NSEC_PER_SEC,
			       sent);
		return;
	}
	double ran = (double)(in->traffic_stop_ns - in->traffic_start_ns) / NSEC_PER_SEC;
	double told = (double)in->traffic_duration_ns / NSEC_PER_SEC;
	double after = (double)(in->traffic_stop_ns - in->failure.t0_ns) / NSEC_PER_SEC;

	if (in->fail_at_ns != CLOCKS_NONE && in->traffic_duration_ns > in->fail_at_ns)
		clocks_invalid(v, "interrupted",
			       "the run was interrupted %.3f s after the traffic started (%s), of "
			       "the %.3f s configured: the observation after t0 lasted %.3f s of "
			       "the %.3f s configured, the last %.3f s were never run; rates, "
			       "budgets and the decay use the %.3f s actually run",
			       ran, clocks_verdict_at(at, sizeof(at), in, in->traffic_stop_ns),
			       told, after > 0 ? after : 0,
			       (double)(in->traffic_duration_ns - in->fail_at_ns) / NSEC_PER_SEC,
			       told > ran ? told - ran : 0, ran);
	else
		clocks_invalid(v, "interrupted",
			       "the run was interrupted %.3f s after the traffic started (%s), of "
			       "the %.3f s configured; rates, budgets and the decay use the %.3f s "
			       "actually run",
			       ran, clocks_verdict_at(at, sizeof(at), in, in->traffic_stop_ns),
			       told, ran);
}

/* agent_exited: an agent ended on its own, or was killed, during the run */
static void clocks_verdict_exits(const struct clocks_input *in, struct clocks_notes *v)
{
	char at[48], how[96], into[64] = "";

	for (size_t i = 0; i < in->nexits; i++) {
		const struct clocks_exit *x = &in->exits[i];

		if (x->expected || x->t_ns > clocks_verdict_cutoff(in))
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
			       clocks_verdict_at(at, sizeof(at), in, x->t_ns), into);
	}
}

/* clocks_verdict_started: did client id write client_started? */
static int clocks_verdict_started(const struct clocks_input *in, uint32_t id)
{
	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == id && in->clients[i].started_ns != CLOCKS_NONE)
			return 1;
	return 0;
}

/* clocks_verdict_unstarted: the clients of the records without a client_started,
 * whose rate cannot be checked (client_rate_unchecked, a warning); a
 * population's started as one (lib/wire.h, wire_agent_of) */
static void clocks_verdict_unstarted(const struct clocks_input *in, struct clocks_notes *v)
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
		if (clocks_verdict_started(in, id))
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
static void clocks_verdict_clients(const struct clocks_input *in, struct clocks_notes *v)
{
	int64_t traffic = clocks_traffic_ns(in);

	if (in->have_requests && in->nrequests > 0 && in->nclient_files == 0) {
		clocks_warn(v, "client_rate_unchecked",
			    "no NODE.client*.events.jsonl: the clients' achieved rates cannot be "
			    "checked against their configured rates");
		return;
	}
	clocks_verdict_unstarted(in, v);
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
		int64_t own = traffic;
		/* cut short: its schedule ran from its own start (some ms after
		 * traffic_started on a busy machine) to the stop, not from
		 * traffic_started */
		if (in->traffic_interrupted == 1 && in->traffic_stop_ns != CLOCKS_NONE &&
		    c->started_ns > in->traffic_start_ns && c->started_ns < in->traffic_stop_ns &&
		    in->traffic_stop_ns - c->started_ns < own)
			own = in->traffic_stop_ns - c->started_ns;
		/* a client that fell behind sends its backlog late, after the
		 * traffic time: its rate is over the time its sends really took */
		secs = (double)(c->sending_ns > own ? c->sending_ns : own) / NSEC_PER_SEC;
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

/* One client flow's sends around the moments its clocks are read from:
 * t0, and its own last request to the dead site (the switch). */
struct clocks_verdict_gap {
	uint32_t id;
	const struct clocks_client *c;
	int64_t interval, at;	     /* at: its last request to S (t0 if none) */
	int64_t t0_before, t0_after; /* the last send at or before t0, the first after */
	int64_t sw_before, sw_after; /* the same around at */
	int of_s;		     /* S answered it in the second before t0 */
};

/* clocks_verdict_gap_note: client_stalled for a gap from a to b, around what */
static void clocks_verdict_gap_note(const struct clocks_input *in,
				    const struct clocks_verdict_gap *g, int64_t a, int64_t b,
				    const char *around, struct clocks_notes *v)
{
	char at[48], at2[48];

	clocks_invalid(v, "client_stalled",
		       "client %u (%s on %s) sent nothing from %s to %s, a gap of %.3f s though it "
		       "sends every %.3f s, %s: it was not running (stopped, or starved of CPU), "
		       "so when it left %s is not measured (a gap of more than %.0f intervals "
		       "and %.3f s invalidates)",
		       g->id, g->c->agent, g->c->node, clocks_verdict_at(at, sizeof(at), in, a),
		       clocks_verdict_at(at2, sizeof(at2), in, b), (double)(b - a) / NSEC_PER_SEC,
		       (double)g->interval / NSEC_PER_SEC, around, in->failure.site,
		       CLOCKS_GAP_INTERVALS, (double)CLOCKS_GAP_MIN_NS / NSEC_PER_SEC);
}

/* client_stalled: a client's schedule at the two moments its clocks are
 * read from. Its last request to S after t0 (its own window) is known to
 * one request interval: the next one, sent an interval later, went
 * elsewhere. A client that did not send for longer there (stopped, starved
 * of CPU: it then catches up in a burst, so its rate passes client_behind)
 * leaves that moment unknown; so does a gap across t0, when no request
 * said where the route or the answer pointed. Gaps elsewhere move requests
 * but not the clocks. A population's own check: verdict_pop.c. */
static void clocks_verdict_gaps(const struct clocks_input *in, const struct clocks_result *res,
				int nres, struct clocks_notes *v)
{
	int64_t t0 = in->failure.t0_ns;
	struct clocks_verdict_gap *g = calloc(in->nclients ? in->nclients : 1, sizeof(*g));
	size_t n = 0, hit = 0;

	if (g == NULL) {
		clocks_warn(v, "limit", "out of memory for the clients' schedules");
		return;
	}
	for (size_t i = 0; i < in->nclients; i++) {
		const struct clocks_client *c = &in->clients[i];
		const struct clocks_result *r = NULL;

		if (c->rate <= 0 || c->population > 0 || clocks_pop_of(c->id))
			continue;
		for (int k = 0; k < nres && r == NULL; k++)
			if (!res[k].noflows && res[k].by_client &&
			    strcmp(res[k].scheme, clocks_scheme_of(c->id) == CLOCKS_SCHEME_DNS
						      ? "dns"
						      : "anycast") == 0)
				r = &res[k];
		if (r == NULL)
			continue;
		g[n] = (struct clocks_verdict_gap){.id = c->id, .c = c, .at = t0};
		g[n].interval = (int64_t)(NSEC_PER_SEC / c->rate);
		for (size_t k = 0; k < r->nby_client; k++)
			if (r->by_client[k].client == c->id && r->by_client[k].last_ns > 0)
				g[n].at = t0 + r->by_client[k].last_ns;
		g[n].t0_before = g[n].sw_before = INT64_MIN;
		g[n].t0_after = g[n].sw_after = INT64_MAX;
		n++;
	}
	for (size_t i = 0; i < in->nrequests && n > 0; i++) {
		const struct clocks_request *q = &in->requests[i];
		struct clocks_verdict_gap *x;

		/* a client's records come together: the last one found first */
		if (g[hit].id != q->client) {
			size_t k;

			for (k = 0; k < n && g[k].id != q->client; k++)
				;
			if (k == n)
				continue;
			hit = k;
		}
		x = &g[hit];
		if (q->sent_ns <= t0 && q->sent_ns > t0 - NSEC_PER_SEC && q->status == CLOCKS_OK &&
		    strcmp(q->site, in->failure.site) == 0)
			x->of_s = 1;
		if (q->sent_ns <= t0 && q->sent_ns > x->t0_before)
			x->t0_before = q->sent_ns;
		if (q->sent_ns > t0 && q->sent_ns < x->t0_after)
			x->t0_after = q->sent_ns;
		if (q->sent_ns <= x->at && q->sent_ns > x->sw_before)
			x->sw_before = q->sent_ns;
		if (q->sent_ns > x->at && q->sent_ns < x->sw_after)
			x->sw_after = q->sent_ns;
	}
	for (size_t k = 0; k < n; k++) {
		int64_t limit = (int64_t)(CLOCKS_GAP_INTERVALS * (double)g[k].interval);
		int at_t0 = g[k].at == t0;

		if (limit < CLOCKS_GAP_MIN_NS)
			limit = CLOCKS_GAP_MIN_NS;
		/* a client S did not serve: the failure is not its */
		if (!g[k].of_s && at_t0)
			continue;
		if (g[k].t0_before != INT64_MIN && g[k].t0_after != INT64_MAX &&
		    g[k].t0_after - g[k].t0_before > limit)
			clocks_verdict_gap_note(in, &g[k], g[k].t0_before, g[k].t0_after,
						"across t0", v);
		if (!at_t0 && g[k].sw_before != INT64_MIN && g[k].sw_after != INT64_MAX &&
		    g[k].sw_after - g[k].sw_before > limit)
			clocks_verdict_gap_note(in, &g[k], g[k].sw_before, g[k].sw_after,
						"after its last request to the failed site", v);
	}
	free(g);
}

/* clocks_verdict_capture: is there a capture (of a site, of queries or of a
 * router link) labelled
 * label? Its packet records and whether it was cut short, if so. */
static int clocks_verdict_capture(const struct clocks_input *in, const char *label, size_t *records,
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
static void clocks_verdict_captures(const struct clocks_input *in, struct clocks_notes *v)
{
	char at[48];
	size_t records;
	int truncated, have_dead = 0;

	for (size_t i = 0; i < in->ncaptures; i++)
		have_dead |= strcmp(in->captures[i].label, in->failure.site) == 0;
	if (!have_dead && !in->steady)
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
		if (!clocks_verdict_capture(in, s->label, &records, &truncated)) {
			if (strcmp(s->label, in->failure.site) != 0 || in->steady)
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
			clocks_invalid(
			    v, "capture_write_error",
			    "the collector on %s could not write %s at %s: %s (%s); the "
			    "capture of link %s stopped there",
			    e->node, file, clocks_verdict_at(at, sizeof(at), in, e->t_ns),
			    e->error[0] ? e->error : strerror(e->err),
			    strerrorname_np(e->err) ? strerrorname_np(e->err) : "?", e->label);
		else
			clocks_invalid(v, "capture_write_error",
				       "the collector on %s could not go on capturing link %s (%s) "
				       "at %s; the capture stopped there",
				       e->node, e->label, e->error[0] ? e->error : "capture_error",
				       clocks_verdict_at(at, sizeof(at), in, e->t_ns));
	}
}

/* window_cut: a window the end of the observation cut short (a warning:
 * the clock is a lower bound, shown as such, not a wrong number) */
static void clocks_verdict_cut(const struct clocks_input *in, const struct clocks_result *r,
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
		    clocks_verdict_at(at, sizeof(at), in, end));
}

/* control_rejected: control messages an agent dropped, per sender */
static void clocks_verdict_rejected(const struct clocks_input *in, struct clocks_notes *v)
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
			    clocks_verdict_at(at, sizeof(at), in, a->t_ns));
	}
	free(done);
}

static const struct clocks_flows *clocks_verdict_flows(const struct clocks_result *r)
{
	return strcmp(r->scheme, "dns") == 0 ? &clocks_dns_flows : &clocks_anycast_flows;
}

void clocks_verdict(const struct clocks_input *in, const struct clocks_result *res, int nres,
		    struct clocks_notes *v)
{
	memset(v, 0, sizeof(*v));
	clocks_verdict_traffic(in, res, nres, v);
	clocks_verdict_exits(in, v);
	clocks_verdict_clients(in, v);
	clocks_verdict_gaps(in, res, nres, v);
	clocks_verdict_pop_stalled(in, v);
	for (int i = 0; i < nres; i++) {
		if (res[i].noflows)
			continue;
		if (strcmp(res[i].scheme, "dns") == 0 && !in->failure.has_address)
			continue; /* no DNS clocks at all (old_run) */
		clocks_verdict_losses(in, clocks_verdict_flows(&res[i]), &res[i], v);
	}
	clocks_verdict_healthy(in, v);
	clocks_impair_verdict(in, v);
	for (int i = 0, done = 0; i < nres && !done; i++)
		if ((done = strcmp(res[i].scheme, "anycast") == 0))
			clocks_verdict_routes(in, &res[i], v);
	clocks_verdict_captures(in, v);
	for (int i = 0; i < nres; i++)
		if (!res[i].noflows)
			clocks_verdict_cut(in, &res[i], v);
	clocks_verdict_rejected(in, v);
	if (in->dnstopo.nrsv > 0) {
		struct clocks_resolvers *rs = malloc(sizeof(*rs));

		if (rs && clocks_resolvers(in, rs) == 0)
			clocks_resolvers_verdict(in, rs, v);
		else
			clocks_warn(v, "limit", "out of memory for the resolver checks");
		free(rs);
	}
	clocks_model_verdict(in, res, nres, v);
	clocks_hosts_verdict(in, res, nres, v);
	clocks_multi_verdict_hosts(in, v);
}

int clocks_valid(const struct clocks_input *in, const struct clocks_result *res, int nres,
		 const struct clocks_notes *v)
{
	int invalid = in->notes.invalid + (v ? v->invalid : 0);

	for (int i = 0; i < nres; i++)
		invalid += res[i].notes.invalid;
	return invalid == 0;
}
