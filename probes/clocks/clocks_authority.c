/*
 * The verdicts and answers of a real authoritative server, read on the
 * packets (docs/clocks.md, "PowerDNS and gdnsd"). A [dns] node of impl =
 * pdns or gdnsd writes no events: it checks the sites itself, a TCP
 * connection to each site's address on the request port every
 * check_interval (PowerDNS's ifportup(), gdnsd's tcp_connect), and answers
 * from what its checks said. So, for each such node P:
 *
 *   a check   P's SYN to a site, on the site's capture; it failed when
 *             the site answers RST (nothing listens: a kill), or nothing
 *             comes within P's check_timeout (a freeze, a cut link); it
 *             passed on a SYN-ACK. A site goes down at the check_down-th
 *             failure (PowerDNS 4.7: the first; gdnsd: since its failure
 *             count was last reset by ok_thresh passes in a row), up at
 *             check_up passes in a row: each change is a health change at
 *             that check's RST, timeout or SYN-ACK: authd's
 *             health_changed, P's verdict
 *   an answer P's responses to a [name] on its own link's capture: after
 *             each health change, at the first response that differs from
 *             every address the name was answered with since the change
 *             before (a random pick answers one at a time), an answer
 *             change to what it holds: authd's answer_changed
 *
 * The DNS clocks (clocks_dns.c) then read them as authd's: detect is P's
 * first failed check of the site after t0, steer its first response after
 * that without the site's address. A response comes only when a resolver
 * asks, so steer is when P first said it, not when it decided.
 */
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "ipframe.h"

/* auth_check_end: the outcome of the check whose SYN is c->tcp[i], from
 * node address p: 1 passed, 0 failed, at *at; -1 if the capture ends
 * before it is known */
static int auth_check_end(const struct clocks_capture *c, size_t i, int64_t timeout, int64_t *at)
{
	const struct clocks_tcpseg *syn = &c->tcp[i];

	for (size_t k = i + 1; k < c->ntcp; k++) {
		const struct clocks_tcpseg *s = &c->tcp[k];

		if (s->t_ns > syn->t_ns + timeout)
			break;
		if (!s->from_server || s->client.s_addr != syn->client.s_addr ||
		    s->cport != syn->cport)
			continue;
		*at = s->t_ns;
		if (s->flags & IPFRAME_RST)
			return 0;
		if ((s->flags & (IPFRAME_SYN | IPFRAME_ACK)) == (IPFRAME_SYN | IPFRAME_ACK))
			return 1;
	}
	*at = syn->t_ns + timeout;
	return c->ntcp && c->tcp[c->ntcp - 1].t_ns >= *at ? 0 : -1;
}

static int auth_add_health(struct clocks_input *in, const char *node, int64_t t, const char *site,
			   int healthy)
{
	struct clocks_health *h;

	if (clocks_grow((void **)&in->health, &in->caphealth, in->nhealth, sizeof(*in->health)) ==
	    -1)
		return -1;
	h = &in->health[in->nhealth++];
	memset(h, 0, sizeof(*h));
	h->t_ns = t;
	snprintf(h->site, sizeof(h->site), "%s", site);
	snprintf(h->node, sizeof(h->node), "%s", node);
	h->healthy = healthy;
	return 0;
}

/* gdnsd's ok_thresh: successes in a row that reset its failure counter
 * (its default; the lab does not set it) */
#define CLOCKS_GDNSD_OK 10

/* auth_checks: node p's checks of the site of capture c into in->health,
 * each change of its state as the node counts it: up to down at its
 * check_down-th failure (gdnsd: failures since CLOCKS_GDNSD_OK successes
 * in a row last reset the count), down to up at check_up successes in a
 * row; the changes' times appended to *changes */
static int auth_checks(struct clocks_input *in, const struct clocks_dns_node *p,
		       const struct clocks_capture *c, int64_t **changes, size_t *nch,
		       size_t *capch)
{
	int up = 1, fails = 0, oks = 0; /* up until its checks say otherwise */
	int down_at = p->check_down > 0 ? p->check_down : 1;
	int up_at = p->check_up > 0 ? p->check_up : 1;

	for (size_t i = 0; i < c->ntcp; i++) {
		const struct clocks_tcpseg *s = &c->tcp[i];
		int64_t at;
		int ok, was = up;

		if (s->from_server || s->client.s_addr != p->addr.s_addr ||
		    (s->flags & (IPFRAME_SYN | IPFRAME_ACK)) != IPFRAME_SYN)
			continue;
		if ((ok = auth_check_end(c, i, p->check_timeout_ns, &at)) == -1)
			continue;
		oks = ok ? oks + 1 : 0;
		if (up && !ok && ++fails >= down_at)
			up = 0;
		else if (up && ok && oks >= (p->gdnsd ? CLOCKS_GDNSD_OK : 1))
			fails = 0;
		else if (!up && ok && oks >= up_at)
			up = 1, fails = 0;
		if (up == was)
			continue;
		if (auth_add_health(in, p->name, at, c->label, up) == -1 ||
		    clocks_grow((void **)changes, capch, *nch, sizeof(**changes)) == -1)
			return -1;
		(*changes)[(*nch)++] = at;
	}
	return 0;
}

static int auth_has(const struct in_addr *list, int n, struct in_addr a)
{
	for (int i = 0; i < n; i++)
		if (list[i].s_addr == a.s_addr)
			return 1;
	return 0;
}

/* auth_answers: node p's responses to [name] k (1 +) into in->answers, an
 * answer change at the first after each of the health changes ch[] */
/* auth_same: whether response r answers exactly the addresses of set */
static int auth_same(const struct clocks_response *r, const struct in_addr *set, int n)
{
	int in = 0;

	for (int j = 0; j < r->naddr; j++) {
		if (!auth_has(set, n, r->addr[j]))
			return 0;
		in++;
	}
	return in == n;
}

static int auth_answers(struct clocks_input *in, const struct clocks_dns_node *p, int k,
			const int64_t *ch, size_t nch)
{
	struct clocks_answer a;
	int have = 0, pending = 0;

	memset(&a, 0, sizeof(a));
	snprintf(a.node, sizeof(a.node), "%s", p->name);
	snprintf(a.name, sizeof(a.name), "%s", in->dnstopo.names[k - 1].name);
	for (size_t q = 0; q < in->nqcaptures; q++) {
		const struct clocks_query_capture *c = &in->qcaptures[q];
		int64_t last = 0;

		for (size_t i = 0; i < c->nresp; i++) {
			const struct clocks_response *r = &c->responses[i];

			if (r->src.s_addr != p->addr.s_addr || r->name != k)
				continue;
			for (size_t h = 0; h < nch; h++)
				pending |= have && ch[h] > last && ch[h] <= r->t_ns;
			/* after a change, the first response that differs from
			 * what came before it (a server may answer as before
			 * for a while: gdnsd up to a second) */
			if (pending && !auth_same(r, a.before, a.nbefore)) {
				a.t_ns = r->t_ns;
				a.nafter = 0;
				for (int j = 0; j < r->naddr && j < CLOCKS_MAX_ADDRS; j++)
					a.after[a.nafter++] = r->addr[j];
				if (clocks_grow((void **)&in->answers, &in->capanswers,
						in->nanswers, sizeof(*in->answers)) == -1)
					return -1;
				in->answers[in->nanswers++] = a;
				a.nbefore = 0;
				pending = 0;
			}
			/* what it answered since the last change */
			for (int j = 0; !pending && j < r->naddr; j++)
				if (!auth_has(a.before, a.nbefore, r->addr[j]) &&
				    a.nbefore < CLOCKS_MAX_ADDRS)
					a.before[a.nbefore++] = r->addr[j];
			have = 1;
			last = r->t_ns;
		}
	}
	return 0;
}

int clocks_authority_events(struct clocks_input *in)
{
	for (int d = 0; d < in->dnstopo.ndns; d++) {
		const struct clocks_dns_node *p = &in->dnstopo.dns[d];
		int64_t *changes = NULL;
		size_t nch = 0, capch = 0;
		int rc = 0;

		if (!p->own_checks || p->addr.s_addr == 0)
			continue;
		in->nauthority++;
		for (size_t c = 0; c < in->ncaptures && rc == 0; c++)
			rc = auth_checks(in, p, &in->captures[c], &changes, &nch, &capch);
		for (int k = 1; k <= in->dnstopo.nnames && rc == 0; k++)
			rc = auth_answers(in, p, k, changes, nch);
		free(changes);
		if (rc == -1)
			return -1;
	}
	return 0;
}
