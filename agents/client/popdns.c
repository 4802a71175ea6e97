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

int popdns_open(struct popdns *d, struct pop *pop, const struct sockaddr_in *res, int nres,
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
	if ((d->fd = client_dns_open(name, d->name, d->qname)) == -1)
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

/* popdns_hold: how long an answer of ttl seconds holds for client c */
static int64_t popdns_hold(const struct popdns *d, const struct pop_client *c, uint32_t ttl)
{
	int64_t hold = c->flags & POP_F_STICKY ? d->sticky_ns : (int64_t)ttl * NSEC_PER_SEC;

	return hold < CLIENT_DNS_MIN_TTL_NS ? CLIENT_DNS_MIN_TTL_NS : hold;
}

/* popdns_first_give: resolver k's first answer, given to its clients at now */
static void popdns_first_give(struct popdns *d, int k, const struct client_dns *one, int64_t now)
{
	char addr[INET_ADDRSTRLEN], res[INET_ADDRSTRLEN];

	d->queries++;
	d->answers++;
	pop_dns_first(d->pop, k, one->addr, popdns_hold(d, &(struct pop_client){0}, one->ttl),
		      d->sticky_ns < CLIENT_DNS_MIN_TTL_NS ? CLIENT_DNS_MIN_TTL_NS : d->sticky_ns,
		      now);
	/* inet_ntoa's one buffer would print one address twice */
	log_info("%s is %s (ttl %us) from resolver %s", d->name,
		 inet_ntop(AF_INET, &one->addr, addr, sizeof(addr)), one->ttl,
		 inet_ntop(AF_INET, &d->res[k].sin_addr, res, sizeof(res)));
}

int popdns_first(struct popdns *d)
{
	static struct client_dns one[POP_MAX_RESOLVERS];
	int ok[POP_MAX_RESOLVERS] = {0}, left = d->nres, rc = -1, opened = 0;

	/* every resolver asked at once, at the start: its clients' first
	 * holds and the caches' first fills all count from the start of the
	 * traffic, not from their place in a queue (16 resolvers one after
	 * another took 78 ms) */
	for (; opened < d->nres; opened++)
		if (client_dns_init(&one[opened], &d->res[opened], d->name, 0, CLIENT_PICK_FIRST) ==
		    -1)
			goto out;
	for (int i = 0; i < 5 && left > 0; i++) {
		/* the first holds count from the ask (as later ones do) */
		int64_t asked = now_mono_ns(), deadline = asked + CLIENT_DNS_RETRY_NS;

		for (int k = 0; k < d->nres; k++)
			if (!ok[k] && client_dns_query(&one[k], now_mono_ns()) == -1)
				goto out;
		while (left > 0 && now_mono_ns() < deadline) {
			int got = 0;

			for (int k = 0; k < d->nres; k++)
				if (!ok[k] && client_dns_receive(&one[k], now_mono_ns()) == 1) {
					ok[k] = got = 1;
					left--;
					popdns_first_give(d, k, &one[k], asked);
				}
			if (!got && left > 0)
				usleep(200);
		}
	}
	for (int k = 0; k < d->nres; k++)
		if (!ok[k]) {
			log_warnx("no answer for %s from %s in 5 tries", d->name,
				  inet_ntoa(d->res[k].sin_addr));
			goto out;
		}
	rc = 0;
out:
	for (int k = 0; k < opened; k++)
		client_dns_close(&one[k]);
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

static void popdns_ask(struct popdns *d, uint32_t j, int64_t now)
{
	struct pop_client *c = &d->pop->c[j];
	struct in_addr from = pop_source(d->pop, j);
	uint8_t *buf;
	uint16_t hint;
	int n, qid;

	if (c->flags & POP_F_ASKING) {
		d->failures++; /* the previous one was never answered */
		pop_dns_done(d->pop, j);
	}
	/* a system call a query was a fifth of the client's time at 1,700
	 * queries a second (seed002.ini) */
	hint = (uint16_t)(rng_next(&d->rng) >> 48);
	if ((qid = pop_dns_take_qid(d->pop, j, hint, now)) == -1)
		return; /* 65536 outstanding: it asks when it next sends */
	/* queued, sent with the requests' batch (popdns_flush): a sendmsg a
	 * query was half the client's system time at 1,700 queries a second */
	if ((buf = udp_tx_buf(d->io)) == NULL) {
		popdns_flush(d);
		buf = udp_tx_buf(d->io);
	}
	if ((n = client_dns_build_query(d->qname, (uint16_t)qid, buf, POPDNS_QUERY_MAX)) == -1) {
		pop_dns_done(d->pop, j);
		return;
	}
	d->queries++;
	if (from.s_addr != 0)
		udp_tx_to_from(d->io, &d->res[c->resolver], from, (size_t)n);
	else
		udp_tx_to(d->io, (const struct sockaddr *)&d->res[c->resolver],
			  sizeof(d->res[c->resolver]), (size_t)n);
}

void popdns_check(struct popdns *d, uint32_t j, int64_t now)
{
	const struct pop_client *c = &d->pop->c[j];

	if (c->flags & POP_F_ASKING) {
		if (now - c->asked_ns >= CLIENT_DNS_RETRY_NS)
			popdns_ask(d, j, now);
	} else if (now >= c->refresh_ns) {
		popdns_ask(d, j, now);
	}
}

static void popdns_answer(struct popdns *d, const uint8_t *buf, size_t n, int64_t now)
{
	struct in_addr addr;
	struct pop_client *c;
	uint32_t ttl;
	int64_t j;

	if (n < KNOT_WIRE_HEADER_SIZE || (j = pop_dns_client(d->pop, knot_wire_get_id(buf))) < 0)
		return;
	c = &d->pop->c[j];
	if (client_dns_parse_answer(buf, n, c->qid, d->qname, &addr, &ttl) == -1)
		return;
	pop_dns_done(d->pop, (uint32_t)j);
	d->answers++;
	/* held from when the request that asked was due, not from the
	 * answer's arrival: a client of a whole-second interval and a
	 * whole-second TTL asks again exactly TTL later, not one interval
	 * after that for the microseconds the answer took (the model,
	 * docs/model.md "Populations", counts the same way) */
	(void)now;
	c->refresh_ns = c->asked_ns + popdns_hold(d, c, ttl);
	if (addr.s_addr != c->addr.s_addr) {
		char was[INET_ADDRSTRLEN], is[INET_ADDRSTRLEN];

		d->changes++;
		inet_ntop(AF_INET, &c->addr, was, sizeof(was));
		inet_ntop(AF_INET, &addr, is, sizeof(is));
		c->addr = addr;
		event_emit(d->ev, EVENTS_DNS_ANSWER, "{s:I, s:s, s:s, s:s, s:I, s:b}", "client",
			   (json_int_t)(d->pop->base + (uint32_t)j), "name", d->name, "address", is,
			   "previous", was, "ttl", (json_int_t)ttl, "changed", 1);
	}
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
