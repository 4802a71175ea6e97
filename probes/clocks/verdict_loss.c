/*
 * The verdict's checks of the requests the clients lost (docs/clocks.md,
 * "Verdict"): unexplained_loss, lost_in_transit, lost_queued and
 * loss_mismatch, from the clients' records and the captures. See
 * verdict_int.h; the verdict as a whole is verdict.c.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"
#include "verdict_int.h"

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
struct clocks_verdict_lost {
	uint64_t key; /* client << 32 | low 32 bits of seq; 0: empty slot */
	int where;    /* -1: not captured, -2: at the dead site, else the capture */
	int64_t sent_ns;
	int64_t at_ns; /* where = -2: when it reached the dead site's link */
};

static uint64_t clocks_verdict_key(uint32_t client, uint32_t seq)
{
	return (uint64_t)client << 32 | seq;
}

static size_t clocks_verdict_slot(const struct clocks_verdict_lost *set, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);

	while (set[i].key != 0 && set[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

/* clocks_verdict_link_cut: the timeline cut a link (link-down, a link's flap) */
static int clocks_verdict_link_cut(const struct clocks_input *in)
{
	for (size_t i = 0; i < in->nhits; i++)
		if (in->hits[i].link && !in->hits[i].up)
			return 1;
	return 0;
}

/* the clients' dns_answers by client, then time (indexes into
 * in->danswers), for clocks_door_closed's binary search */
struct clocks_door_index {
	const struct clocks_dns_answer *a;
	size_t *by;
	size_t n;
};

static int clocks_door_cmp(const void *x, const void *y, void *arg)
{
	const struct clocks_dns_answer *all = arg, *a = &all[*(const size_t *)x],
				       *b = &all[*(const size_t *)y];

	if (a->client != b->client)
		return a->client < b->client ? -1 : 1;
	return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
}

/* clocks_door_index: in's answers sorted, when the run has front doors;
 * ix->by NULL if not (or out of memory: no loss is then put on a door) */
static void clocks_door_index(const struct clocks_input *in, struct clocks_door_index *ix)
{
	memset(ix, 0, sizeof(*ix));
	if (in->dnstopo.nfront == 0 || in->ndanswers == 0 ||
	    (ix->by = malloc(in->ndanswers * sizeof(*ix->by))) == NULL)
		return;
	for (size_t i = 0; i < in->ndanswers; i++)
		ix->by[i] = i;
	qsort_r(ix->by, in->ndanswers, sizeof(*ix->by), clocks_door_cmp, in->danswers);
	ix->a = in->danswers;
	ix->n = in->ndanswers;
}

/* clocks_door_closed: whether DNS client `client`'s address at t (its
 * last dns_answer before) was a front door none of whose sites was up then:
 * a request it sent reached no site */
static int clocks_door_closed(const struct clocks_input *in, const struct clocks_door_index *ix,
			      uint32_t client, int64_t t)
{
	const struct clocks_topo_dns *d = &in->dnstopo;
	const struct clocks_dns_answer *last = NULL;
	size_t lo = 0, hi = ix->n;
	int any = 0;

	if (ix->by == NULL)
		return 0;
	/* the first answer after (client, t): the one before it is the last */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct clocks_dns_answer *m = &ix->a[ix->by[mid]];

		if (m->client < client || (m->client == client && m->t_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && ix->a[ix->by[lo - 1]].client == client)
		last = &ix->a[ix->by[lo - 1]];
	if (last == NULL)
		return 0;
	for (int i = 0; i < d->nfront; i++) {
		if (d->front[i].addr.s_addr != last->addr.s_addr)
			continue;
		if (!clocks_out_at(in, d->front[i].site, t))
			return 0;
		any = 1;
	}
	return any;
}

/* the losses the failure explains that the capture of S after t0 does not
 * count (loss_mismatch adds them to it) */
struct clocks_verdict_explained {
	int64_t closed;	    /* sent to a front door none of whose sites was up */
	int64_t transit;    /* lost on the way while routing converged */
	int64_t queued;	    /* reached S's link before t0: queued in S when it failed */
	int64_t answered;   /* reached S's link after t0 and answered by S all the same */
	int64_t restarting; /* reached S's link after its recovery, before it answered */
};

/* clocks_verdict_losses_agree: the clients' a and the captures' b differ by no
 * more than CLOCKS_LOSS_ABS requests or CLOCKS_LOSS_SHARE of the larger;
 * the difference and the larger in *diff and *larger */
static int clocks_verdict_losses_agree(int64_t a, int64_t b, int64_t *diff, int64_t *larger)
{
	*diff = a > b ? a - b : b - a;
	*larger = a > b ? a : b;
	return *diff <= CLOCKS_LOSS_ABS || (double)*diff <= CLOCKS_LOSS_SHARE * (double)*larger;
}

/* clocks_verdict_unexplained: the unexplained losses (invalid), and the explained
 * ones the capture after t0 does not see, in *ex */
static void clocks_verdict_unexplained(const struct clocks_input *in, const struct clocks_flows *fl,
				       const struct clocks_result *r, struct clocks_notes *v,
				       struct clocks_verdict_explained *ex)
{
	int64_t t0 = in->failure.t0_ns, tol = in->client_timeout_ns, first_early = INT64_MAX;
	int64_t closed_first = 0, closed_last = INT64_MIN;
	struct clocks_door_index doors = {0};
	int64_t converged = r->fib && r->fib->last_at_ns != CLOCKS_NONE ? r->fib->last_at_ns : 0;
	const struct clocks_capture *dead = NULL;
	struct clocks_verdict_lost *set = NULL;
	size_t nlost = 0, cap = 64, early = 0, nowhere = 0, transit = 0, queued = 0, closed = 0,
	       *at = NULL;
	char msg[CLOCKS_WARNING_LEN], when[48];
	int len;

	/* the routers converged after the fail-back too: a request lost on
	 * the way before that was lost in transit */
	if (r->fib && r->fib->failback && r->fib->failback->last_at_ns != CLOCKS_NONE)
		converged = r->fib->failback->last_at_ns;

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
		k = clocks_verdict_slot(set, cap, clocks_verdict_key(q->client, (uint32_t)q->seq));
		if (set[k].key == 0) {
			set[k] = (struct clocks_verdict_lost){
			    clocks_verdict_key(q->client, (uint32_t)q->seq), -1, q->sent_ns, 0};
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
			k = clocks_verdict_slot(set, cap, clocks_verdict_key(p->client, p->seq));
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
	clocks_door_index(in, &doors);
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
			if (clocks_door_closed(in, &doors, (uint32_t)(set[k].key >> 32),
					       set[k].sent_ns)) {
				closed_first = closed++ == 0 || set[k].sent_ns < closed_first
						   ? set[k].sent_ns
						   : closed_first;
				if (set[k].sent_ns > closed_last)
					closed_last = set[k].sent_ns;
			} else if (converged && set[k].sent_ns <= converged)
				transit++;
			else if (!clocks_verdict_link_cut(in))
				nowhere++;
		} else if (!clocks_verdict_hit_site(in, in->captures[set[k].where].label,
						    INT64_MAX)) {
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
	/* a few requests in S's socket buffer at t0 are every kill's; more than
	 * loss_mismatch's tolerance, S's service lagged behind its link */
	if (!clocks_verdict_losses_agree((int64_t)queued, 0, &(int64_t){0}, &(int64_t){0}))
		clocks_warn(
		    v, "lost_queued",
		    "%s: %zu of the %lld requests the clients lost reached %s's link before "
		    "t0 (sent less than one client timeout before it): queued in %s when it "
		    "failed (the failure's; counted with the capture's losses)",
		    r->scheme, queued, (long long)r->lost_client, in->failure.site,
		    in->failure.site);
	if (closed)
		clocks_warn(v, "lost_closed_door",
			    "%s: %zu of the %lld requests the clients lost reached no site's link: "
			    "sent to a front door whose every site was out (from t0 + %.3f s to "
			    "t0 + %.3f s), they had no route: a region's failure until DNS moved "
			    "its clients (counted with the captures' losses)",
			    r->scheme, closed, (long long)r->lost_client,
			    (double)(closed_first - t0) / NSEC_PER_SEC,
			    (double)(closed_last - t0) / NSEC_PER_SEC);
	ex->closed = (int64_t)closed;
	ex->transit = (int64_t)transit;
	ex->queued = (int64_t)queued;
	size_t total = early + nowhere;
	for (size_t i = 0; i < in->ncaptures; i++)
		total += at[i];
	if (total == 0)
		goto out;
	/* a lossy link loses requests whatever the failure: as many as its
	 * configured loss makes likely are its (docs/clocks.md, "Impairments") */
	int64_t allowed = clocks_impair_loss(in, fl->scheme);
	if ((int64_t)total <= allowed) {
		clocks_warn(v, "loss_configured",
			    "%s: %zu of the %lld requests the clients lost are not the failure "
			    "of %s's, within what the links' configured loss explains (at most "
			    "%lld: the 99 %% bound)",
			    r->scheme, total, (long long)r->lost_client, in->failure.site,
			    (long long)allowed);
		goto out;
	}
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
				clocks_verdict_at(when, sizeof(when), in, first_early));
	if (allowed && len < (int)sizeof(msg))
		len += snprintf(msg + len, sizeof(msg) - (size_t)len,
				" the links' configured loss explains at most %lld;",
				(long long)allowed);
	if (len > 0 && len < (int)sizeof(msg))
		msg[len - 1] = '\0'; /* the last ';' */
	clocks_invalid(v, "unexplained_loss", "%s", msg);
out:
	free(doors.by);
	free(set);
	free(at);
}

/* clocks_verdict_edges: the edges of S's outage, where a capture and the clients'
 * records see it differently. Of the scheme's requests captured on S's
 * link after t0 (lost_capture counts them all), the ones the records say
 * S answered: the failure took effect a little after t0 (t0 is stamped
 * before the action; a freeze's nftables table is in place milliseconds
 * later): no losses. And after the timeline brought S back, the ones the
 * clients lost, up to the next failure of S: they reached S before it
 * answered again (its sited starting): the failure's. 0, or -1: out of
 * memory. */
static int clocks_verdict_edges(const struct clocks_input *in, const struct clocks_flows *fl,
				struct clocks_verdict_explained *ex)
{
	const struct clocks_capture *dead = NULL;
	int64_t t0 = in->failure.t0_ns, back = in->failure.recovered_ns, again = INT64_MAX;
	struct clocks_verdict_lost *set = NULL;
	size_t cap = 64, n = 0;

	for (size_t i = 0; i < in->ncaptures; i++)
		if (strcmp(in->captures[i].label, in->failure.site) == 0)
			dead = &in->captures[i];
	/* S taken out again: from then on its losses are that failure's */
	for (size_t i = 0; back != 0 && i < in->nhits; i++)
		if (!in->hits[i].up && in->hits[i].t_ns > back && in->hits[i].t_ns < again &&
		    strcmp(in->hits[i].site, in->failure.site) == 0)
			again = in->hits[i].t_ns;
	if (dead == NULL)
		return 0;
	/* the set is made of the requests that can count, few: S's answers
	 * that came after t0 (their request reached S's link after t0, and
	 * the answer after that) and, after a recovery, the timeouts. Made
	 * of the packets to S after t0 instead, it was millions of entries
	 * when S kept being reached (21 % of a report's CPU) */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < in->nrequests; i++) {
			const struct clocks_request *q = &in->requests[i];
			uint64_t key;
			size_t k;

			if (q->status == CLOCKS_OK ? q->sent_ns + q->rtt_ns <= t0 ||
							 strcmp(q->site, in->failure.site) != 0
						   : q->status != CLOCKS_TIMEOUT || back == 0)
				continue;
			/* Happy Eyeballs' copies: lost_capture has them apart */
			if (q->fell_back)
				continue;
			if (clocks_scheme_of(q->client) != fl->scheme)
				continue;
			if (pass == 0) {
				n++;
				continue;
			}
			key = clocks_verdict_key(q->client, (uint32_t)q->seq);
			k = clocks_verdict_slot(set, cap, key);
			set[k].key = key;
			/* sent_ns: 1 an answer of S's, 2 a timeout, 3 both */
			set[k].sent_ns |= q->status == CLOCKS_OK ? 1 : 2;
		}
		if (pass == 1)
			break;
		if (n == 0)
			return 0;
		while (cap < 2 * n + 2)
			cap *= 2;
		if ((set = calloc(cap, sizeof(*set))) == NULL)
			return -1;
	}
	/* where each reached S's link: 1 in the outage, 2 after the
	 * recovery; the last packet of a request decides */
	for (size_t j = 0; j < dead->n; j++) {
		const struct clocks_packet *p = &dead->packets[j];
		size_t k;

		if (p->t_ns <= t0 || p->t_ns >= again)
			continue;
		k = clocks_verdict_slot(set, cap, clocks_verdict_key(p->client, p->seq));
		if (set[k].key == 0 || !clocks_is_flow(in, fl, p) ||
		    (fl->to_dead != NULL && !fl->to_dead(in, p)) ||
		    (in->failure.family && clocks_packet_family(dead, j) != in->failure.family))
			continue;
		set[k].where = back != 0 && p->t_ns >= back ? 2 : 1;
	}
	for (size_t k = 0; k < cap; k++) {
		if (set[k].key == 0)
			continue;
		if (set[k].where == 1 && (set[k].sent_ns & 1))
			ex->answered++;
		else if (set[k].where == 2 && (set[k].sent_ns & 2))
			ex->restarting++;
	}
	free(set);
	return 0;
}

/* loss_mismatch: the clients' lost and the capture's lost (with the
 * requests lost on the way while routing converged, and those queued in S
 * when it failed, less those S answered after t0) disagree */
static void clocks_verdict_mismatch(const struct clocks_input *in, const struct clocks_result *r,
				    const struct clocks_verdict_explained *ex,
				    struct clocks_notes *v)
{
	int64_t a = r->lost_client, b = r->lost_capture, diff, larger;
	int64_t transit = ex->closed + ex->transit + ex->queued + ex->restarting - ex->answered;

	if (a == CLOCKS_NONE || b == CLOCKS_NONE)
		return;
	b += transit;
	/* several failures, each counted at its own site's link: the clients'
	 * losses are all of theirs (docs/clocks.md, "Every failure") */
	char sites[CLOCKS_WARNING_LEN / 2];
	int64_t all = clocks_multi_lost_capture(in, r->scheme, sites, sizeof(sites));
	if (all != CLOCKS_NONE) {
		b = all + transit;
		if (clocks_verdict_losses_agree(a, b, &diff, &larger))
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
	/* a lossy link: the clients lose requests no capture counts */
	if (clocks_impair_loss(in, strcmp(r->scheme, "dns") == 0 ? CLOCKS_SCHEME_DNS
								 : CLOCKS_SCHEME_ANYCAST) > 0) {
		clocks_warn(v, "loss_unchecked",
			    "%s: the clients' losses (%lld) are not compared with the capture's at "
			    "%s (%lld): a link on their paths has a configured loss",
			    r->scheme, (long long)a, in->failure.site, (long long)b);
		return;
	}
	if (clocks_verdict_link_cut(in) && strcmp(in->failure.how, "link-down") != 0) {
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
	if (clocks_verdict_losses_agree(a, b, &diff, &larger))
		return;
	clocks_invalid(
	    v, "loss_mismatch",
	    "%s: the clients lost %lld requests and the capture of %s's link %lld "
	    "(%lld reached it after t0, %lld were lost on the way, queued in %s at "
	    "t0 or reached it before it answered again, %lld it answered after t0): "
	    "they differ by %lld (%.1f %%), more than %.0f %% and %d requests",
	    r->scheme, (long long)a, in->failure.site, (long long)b, (long long)r->lost_capture,
	    (long long)(ex->transit + ex->queued + ex->restarting), in->failure.site,
	    (long long)ex->answered, (long long)diff, 100.0 * (double)diff / (double)larger,
	    100 * CLOCKS_LOSS_SHARE, CLOCKS_LOSS_ABS);
}

void clocks_verdict_losses(const struct clocks_input *in, const struct clocks_flows *fl,
			   const struct clocks_result *r, struct clocks_notes *v)
{
	struct clocks_verdict_explained ex;

	/* over TCP a request is not one datagram: one held in its connection
	 * (the site silent, the kernel backing off) reaches no link, and one
	 * retransmitted reaches it twice, so neither the losses' explanation
	 * nor their count against the capture holds (docs/clocks.md,
	 * "Connections") */
	if (in->dnstopo.tcp) {
		clocks_warn(v, "loss_unchecked",
			    "%s: the clients' losses (%lld) are neither explained packet by packet "
			    "nor compared with the capture's (%lld): clients send over TCP, "
			    "whose requests may reach no link (held in their connection) or "
			    "reach it twice (retransmitted)",
			    r->scheme, (long long)r->lost_client, (long long)r->lost_capture);
		return;
	}
	clocks_verdict_unexplained(in, fl, r, v, &ex);
	if (clocks_verdict_edges(in, fl, &ex) == -1) {
		clocks_warn(v, "limit", "%s: the losses' comparison: out of memory, not checked",
			    r->scheme);
		return;
	}
	clocks_verdict_mismatch(in, r, &ex, v);
}
