/*
 * PowerDNS's verdicts and answers, read on the packets (docs/clocks.md,
 * "PowerDNS"). A [dns] node of impl = pdns writes no events: it checks the
 * sites itself, a TCP connection to each site's address on the request
 * port every check_interval (ifportup()), and answers from what its last
 * check said. So, for each such node P:
 *
 *   a check   P's SYN to a site, on the site's capture; it failed when
 *             the site answers RST (nothing listens: a kill), or nothing
 *             comes within P's check_timeout (a freeze, a cut link); it
 *             passed on a SYN-ACK. PowerDNS 4.7 takes one failed check
 *             for down and one passed for up, so each change of a site's
 *             outcome is a health change, at the failed check's RST or
 *             timeout, or the passing one's SYN-ACK: authd's
 *             health_changed, P's verdict
 *   an answer P's responses to a [name] on its own link's capture: at the
 *             first response after each health change, an answer change
 *             from every address the name was answered with since the
 *             change before (a random pick answers one at a time) to what
 *             that response holds: authd's answer_changed
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

/* pdns_check_end: the outcome of the check whose SYN is c->tcp[i], from
 * node address p: 1 passed, 0 failed, at *at; -1 if the capture ends
 * before it is known */
static int pdns_check_end(const struct clocks_capture *c, size_t i, int64_t timeout, int64_t *at)
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

static int pdns_add_health(struct clocks_input *in, int64_t t, const char *site, int healthy)
{
	struct clocks_health *h;

	if (clocks_grow((void **)&in->health, &in->caphealth, in->nhealth, sizeof(*in->health)) ==
	    -1)
		return -1;
	h = &in->health[in->nhealth++];
	memset(h, 0, sizeof(*h));
	h->t_ns = t;
	snprintf(h->site, sizeof(h->site), "%s", site);
	h->healthy = healthy;
	return 0;
}

/* pdns_checks: node p's checks of the site of capture c into in->health,
 * each change of outcome; the changes' times appended to *changes */
static int pdns_checks(struct clocks_input *in, const struct clocks_dns_node *p,
		       const struct clocks_capture *c, int64_t **changes, size_t *nch,
		       size_t *capch)
{
	int state = 1; /* up until a check says otherwise, as authd's start */

	for (size_t i = 0; i < c->ntcp; i++) {
		const struct clocks_tcpseg *s = &c->tcp[i];
		int64_t at;
		int ok;

		if (s->from_server || s->client.s_addr != p->addr.s_addr ||
		    (s->flags & (IPFRAME_SYN | IPFRAME_ACK)) != IPFRAME_SYN)
			continue;
		if ((ok = pdns_check_end(c, i, p->check_timeout_ns, &at)) == -1 || ok == state)
			continue;
		state = ok;
		if (pdns_add_health(in, at, c->label, ok) == -1 ||
		    clocks_grow((void **)changes, capch, *nch, sizeof(**changes)) == -1)
			return -1;
		(*changes)[(*nch)++] = at;
	}
	return 0;
}

static int pdns_has(const struct in_addr *list, int n, struct in_addr a)
{
	for (int i = 0; i < n; i++)
		if (list[i].s_addr == a.s_addr)
			return 1;
	return 0;
}

/* pdns_answers: node p's responses to [name] k (1 +) into in->answers, an
 * answer change at the first after each of the health changes ch[] */
static int pdns_answers(struct clocks_input *in, const struct clocks_dns_node *p, int k,
			const int64_t *ch, size_t nch)
{
	struct clocks_answer a;
	int have = 0;

	memset(&a, 0, sizeof(a));
	snprintf(a.name, sizeof(a.name), "%s", in->dnstopo.names[k - 1].name);
	for (size_t q = 0; q < in->nqcaptures; q++) {
		const struct clocks_query_capture *c = &in->qcaptures[q];
		int64_t last = 0;

		for (size_t i = 0; i < c->nresp; i++) {
			const struct clocks_response *r = &c->responses[i];
			int crossed = 0;

			if (r->src.s_addr != p->addr.s_addr || r->name != k)
				continue;
			for (size_t h = 0; h < nch; h++)
				crossed |= have && ch[h] > last && ch[h] <= r->t_ns;
			if (crossed) {
				a.t_ns = r->t_ns;
				a.nafter = 0;
				for (int j = 0; j < r->naddr && j < CLOCKS_MAX_ADDRS; j++)
					a.after[a.nafter++] = r->addr[j];
				if (clocks_grow((void **)&in->answers, &in->capanswers,
						in->nanswers, sizeof(*in->answers)) == -1)
					return -1;
				in->answers[in->nanswers++] = a;
				a.nbefore = 0;
			}
			/* what it answered since the last change */
			for (int j = 0; j < r->naddr; j++)
				if (!pdns_has(a.before, a.nbefore, r->addr[j]) &&
				    a.nbefore < CLOCKS_MAX_ADDRS)
					a.before[a.nbefore++] = r->addr[j];
			have = 1;
			last = r->t_ns;
		}
	}
	return 0;
}

int clocks_pdns_events(struct clocks_input *in)
{
	for (int d = 0; d < in->dnstopo.ndns; d++) {
		const struct clocks_dns_node *p = &in->dnstopo.dns[d];
		int64_t *changes = NULL;
		size_t nch = 0, capch = 0;
		int rc = 0;

		if (!p->pdns || p->addr.s_addr == 0)
			continue;
		in->npdns++;
		for (size_t c = 0; c < in->ncaptures && rc == 0; c++)
			rc = pdns_checks(in, p, &in->captures[c], &changes, &nch, &capch);
		for (int k = 1; k <= in->dnstopo.nnames && rc == 0; k++)
			rc = pdns_answers(in, p, k, changes, nch);
		free(changes);
		if (rc == -1)
			return -1;
	}
	return 0;
}
