/* A population's DNS queries and answers; see popdns.h. */
#include "popdns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <libknot/libknot.h>

#include "event.h"
#include "events.h"
#include "log.h"
#include "rng.h"
#include "timeutil.h"
#include "udpbatch.h"

int popdns_open(struct popdns *d, struct pop *pop, const union client_addr *res, int nres,
		const char *name, int64_t sticky_ns, struct event_log *ev)
{
	int bufsz = 4 << 20;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->pop = pop;
	d->ev = ev;
	d->nres = nres;
	d->sticky_ns = sticky_ns;
	d->rng = rng_seed();
	memcpy(d->res, res, (size_t)nres * sizeof(*res));
	if ((d->fd = client_dns_open_family(name, d->name, d->qname, res[0].sa.sa_family)) == -1)
		return -1;
	if ((d->io = udp_batch_new(POPDNS_BATCH, POPDNS_ANSWER_MAX, POPDNS_QUERY_MAX)) == NULL) {
		log_warn("%s: calloc", __func__);
		popdns_close(d);
		return -1;
	}
	if (setsockopt(d->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz, sizeof(bufsz)) == -1)
		(void)setsockopt(d->fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	return 0;
}

/* popdns_hold: how long an answer of ttl seconds holds for client j */
static int64_t popdns_hold(const struct popdns *d, uint32_t j, uint32_t ttl)
{
	int64_t hold =
	    d->pop->c[j].flags & POP_F_STICKY ? d->sticky_ns : (int64_t)ttl * NSEC_PER_SEC;

	return hold < CLIENT_DNS_MIN_TTL_NS ? CLIENT_DNS_MIN_TTL_NS : hold;
}

/* popdns_lookups: how many lookups each client makes: 2 for a dual
 * population (the AAAA and the A), else 1 */
static int popdns_lookups(const struct popdns *d)
{
	return d->pop->c4 ? 2 : 1;
}

/* popdns_qtype: what a lookup asks for: AAAA or A */
static uint16_t popdns_qtype(const struct popdns *d, int lookup)
{
	return pop_lookup_family(d->pop, lookup) == AF_INET6 ? KNOT_RRTYPE_AAAA : KNOT_RRTYPE_A;
}

/* popdns_addr_text: a lookup's address in text (INET6_ADDRSTRLEN bytes) */
static const char *popdns_addr_text(const struct popdns *d, int lookup, const void *addr, char *buf)
{
	return inet_ntop(pop_lookup_family(d->pop, lookup), addr, buf, INET6_ADDRSTRLEN);
}

/* popdns_first_give: resolver k's first answer to lookup, given to its
 * clients at now */
static void popdns_first_give(struct popdns *d, int k, int lookup, const struct client_dns *one,
			      int64_t now)
{
	const void *addr =
	    one->qtype == KNOT_RRTYPE_AAAA ? (const void *)&one->addr6 : (const void *)&one->addr;
	int64_t ttl_ns = (int64_t)one->ttl * NSEC_PER_SEC;
	char a[INET6_ADDRSTRLEN], res[INET6_ADDRSTRLEN];

	d->queries++;
	d->answers++;
	pop_dns_first(d->pop, k, lookup, addr,
		      ttl_ns < CLIENT_DNS_MIN_TTL_NS ? CLIENT_DNS_MIN_TTL_NS : ttl_ns,
		      d->sticky_ns < CLIENT_DNS_MIN_TTL_NS ? CLIENT_DNS_MIN_TTL_NS : d->sticky_ns,
		      now);
	log_info("%s is %s (ttl %us) from resolver %s", d->name,
		 popdns_addr_text(d, lookup, addr, a), one->ttl,
		 client_dns_resolver_text(one, res, sizeof(res)));
}

int popdns_first(struct popdns *d)
{
	/* per resolver, its lookups: [k * 2 + lookup] */
	static struct client_dns one[2 * POP_MAX_RESOLVERS];
	static int ok[2 * POP_MAX_RESOLVERS];
	int lookups = popdns_lookups(d), n = d->nres * 2, left = d->nres * lookups, rc = -1;
	int opened = 0;

	/* every resolver asked at once, at the start: its clients' first
	 * holds and the caches' first fills all count from the start of the
	 * traffic, not from their place in a queue (16 resolvers one after
	 * another took 78 ms) */
	memset(ok, 0, sizeof(ok));
	for (; opened < n; opened++) {
		int k = opened / 2, lookup = opened % 2;

		one[opened].fd = -1;
		if (lookup >= lookups) {
			ok[opened] = 1; /* no such lookup */
			continue;
		}
		if (client_dns_init_family(&one[opened], &d->res[k].sa, client_addr_len(&d->res[k]),
					   d->name, 0, CLIENT_PICK_FIRST,
					   pop_lookup_family(d->pop, lookup)) == -1)
			goto out;
	}
	for (int i = 0; i < 5 && left > 0; i++) {
		/* the first holds count from the ask (as later ones do) */
		int64_t asked = now_mono_ns(), deadline = asked + CLIENT_DNS_RETRY_NS;

		for (int q = 0; q < n; q++)
			if (!ok[q] && client_dns_query(&one[q], now_mono_ns()) == -1)
				goto out;
		while (left > 0 && now_mono_ns() < deadline) {
			int got = 0;

			for (int q = 0; q < n; q++)
				if (!ok[q] && client_dns_receive(&one[q], now_mono_ns()) == 1) {
					ok[q] = got = 1;
					left--;
					popdns_first_give(d, q / 2, q % 2, &one[q], asked);
				}
			if (!got && left > 0)
				usleep(200);
		}
	}
	for (int q = 0; q < n; q++)
		if (!ok[q]) {
			char res[INET6_ADDRSTRLEN];

			log_warnx("no answer for %s (%s) from %s in 5 tries", d->name,
				  one[q].qtype == KNOT_RRTYPE_AAAA ? "AAAA" : "A",
				  client_dns_resolver_text(&one[q], res, sizeof(res)));
			goto out;
		}
	rc = 0;
out:
	for (int q = 0; q < opened; q++)
		client_dns_close(&one[q]);
	return rc;
}

/* popdns_refused: a queued query the kernel refused (popdns_flush) */
static void popdns_refused(void *arg, unsigned index)
{
	struct popdns *d = arg;

	(void)index;
	if (d->failures++ == 0)
		log_warn("%s: a query to a resolver", __func__);
}

void popdns_flush(struct popdns *d)
{
	if (d->io && d->io->ntx)
		udp_send(d->fd, d->io, popdns_refused, d);
}

/* popdns_ask: client j's query of lookup, queued */
static void popdns_ask(struct popdns *d, uint32_t j, int lookup, int64_t now)
{
	struct pop_client *c = pop_lookup(d->pop, j, lookup);
	const union client_addr *res = &d->res[c->resolver];
	struct in_addr from = pop_source(d->pop, j);
	uint16_t qtype = popdns_qtype(d, lookup);
	uint8_t *buf;
	uint16_t hint;
	int n, qid;

	if (c->flags & POP_F_ASKING) {
		d->failures++; /* the previous one was never answered */
		pop_dns_done(d->pop, j, lookup);
	}
	/* a system call a query was a fifth of the client's time at 1,700
	 * queries a second (seed002.ini) */
	hint = (uint16_t)(rng_next(&d->rng) >> 48);
	if ((qid = pop_dns_take_qid(d->pop, j, lookup, hint, now)) == -1)
		return; /* 65536 outstanding: it asks when it next sends */
	/* queued, sent with the requests' batch (popdns_flush): a sendmsg a
	 * query was half the client's system time at 1,700 queries a second */
	if ((buf = udp_tx_buf(d->io)) == NULL) {
		popdns_flush(d);
		buf = udp_tx_buf(d->io);
	}
	if ((n = client_dns_build_query_type(d->qname, qtype, (uint16_t)qid, buf,
					     POPDNS_QUERY_MAX)) == -1) {
		pop_dns_done(d->pop, j, lookup);
		return;
	}
	d->queries++;
	/* a source block is IPv4's (an IPv6 population has none) */
	if (from.s_addr != 0 && res->sa.sa_family == AF_INET)
		udp_tx_to_from(d->io, &res->sin, from, (size_t)n);
	else
		udp_tx_to(d->io, &res->sa, client_addr_len(res), (size_t)n);
}

void popdns_check(struct popdns *d, uint32_t j, int64_t now)
{
	for (int lookup = 0; lookup < popdns_lookups(d); lookup++) {
		const struct pop_client *c = pop_lookup(d->pop, j, lookup);

		if (c->flags & POP_F_ASKING) {
			if (now - c->asked_ns >= CLIENT_DNS_RETRY_NS)
				popdns_ask(d, j, lookup, now);
		} else if (now >= c->refresh_ns) {
			popdns_ask(d, j, lookup, now);
		}
	}
}

static void popdns_answer(struct popdns *d, const uint8_t *buf, size_t n, int64_t now)
{
	char was[INET6_ADDRSTRLEN], is[INET6_ADDRSTRLEN];
	struct client_dns_response r;
	struct pop_client *c;
	const void *addr;
	int64_t j;
	int lookup;

	if (n < KNOT_WIRE_HEADER_SIZE ||
	    (j = pop_dns_client(d->pop, knot_wire_get_id(buf), &lookup)) < 0)
		return;
	c = pop_lookup(d->pop, (uint32_t)j, lookup);
	if (client_dns_parse_response(buf, n, c->qid, d->qname, &r) != 0 ||
	    r.qtype != popdns_qtype(d, lookup))
		return;
	addr = r.qtype == KNOT_RRTYPE_AAAA ? (const void *)&r.addr6 : (const void *)&r.addr;
	pop_dns_done(d->pop, (uint32_t)j, lookup);
	d->answers++;
	/* held from when the request that asked was due, not from the
	 * answer's arrival: a client of a whole-second interval and a
	 * whole-second TTL asks again exactly TTL later, not one interval
	 * after that for the microseconds the answer took (the model,
	 * docs/model.md "Populations", counts the same way) */
	(void)now;
	c->refresh_ns = c->asked_ns + popdns_hold(d, (uint32_t)j, r.ttl);
	popdns_addr_text(d, lookup, pop_dns_addr(d->pop, (uint32_t)j, lookup), was);
	if (!pop_dns_set(d->pop, (uint32_t)j, lookup, addr))
		return;
	d->changes++;
	event_emit(d->ev, EVENTS_DNS_ANSWER, "{s:I, s:s, s:s, s:s, s:I, s:b}", "client",
		   (json_int_t)(d->pop->base + (uint32_t)j), "name", d->name, "address",
		   popdns_addr_text(d, lookup, addr, is), "previous", was, "ttl", (json_int_t)r.ttl,
		   "changed", 1);
}

void popdns_receive(struct popdns *d, int64_t now)
{
	for (int round = 0; round < 16; round++) {
		int n = udp_recv(d->fd, d->io);

		if (n == -1 && errno == ECONNREFUSED)
			continue; /* a resolver's port unreachable: the next ones */
		if (n == -1)
			log_warn("%s: recvmmsg", __func__);
		if (n <= 0)
			return;
		for (int i = 0; i < n; i++)
			popdns_answer(d, udp_rx_data(d->io, (unsigned)i),
				      udp_rx_len(d->io, (unsigned)i), now);
		if ((unsigned)n < d->io->cap)
			return;
	}
}

void popdns_close(struct popdns *d)
{
	if (d->fd != -1)
		close(d->fd);
	d->fd = -1;
	udp_batch_free(d->io);
	d->io = NULL;
}
