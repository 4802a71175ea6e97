/* Upstream queries: IDs, attempts, timeouts, TCP after TC; see upstream.h. */
#include "upstream.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctx.h"
#include "iter.h"
#include "iter_msg.h"
#include "log.h"
#include "msg.h"
#include "rng.h"
#include "timeutil.h"
#include "udpbatch.h"
#include "upstream_int.h"

#define RSV_UP_BATCH 32
#define RSV_UP_RXLEN 4096
#define RSV_UP_ROUNDS 8
#define RSV_WAITERS_MAX 1024

struct rsv_up_batch {
	struct udp_batch *rx; /* the upstreams' answers */
	uint8_t query[KNOT_WIRE_MIN_PKTSIZE];
};

static uint32_t rsv_id_hash(const struct rsv_inst *in, uint16_t id)
{
	return ((uint32_t)in->index * 2654435761u) ^ ((uint32_t)id * 40503u);
}

static uint32_t rsv_key_hash(const struct rsv_inst *in, const struct rsv_key *k)
{
	uint32_t h = 2166136261u ^ (uint32_t)in->index;

	for (unsigned i = 0; i < k->len; i++)
		h = (h ^ k->name[i]) * 16777619u;
	return (h ^ ((uint32_t)k->type << 16 | k->cls)) * 16777619u;
}

int rsv_up_init(struct rsv_ctx *ctx)
{
	struct rsv_upstream *u = &ctx->up;

	memset(u, 0, sizeof(*u));
	u->max = ctx->conf->max_pending;
	if (hmap_init(&u->by_id, u->max < (1u << 20) ? u->max : (1u << 20)) == -1 ||
	    hmap_init(&u->by_key, u->max < (1u << 20) ? u->max : (1u << 20)) == -1) {
		log_warn("%s: calloc", __func__);
		return -1;
	}
	if ((u->batch = calloc(1, sizeof(*u->batch))) != NULL)
		u->batch->rx = udp_batch_new(RSV_UP_BATCH, RSV_UP_RXLEN, 0);
	if (u->batch == NULL || u->batch->rx == NULL) {
		log_warn("%s: calloc", __func__);
		return -1;
	}
	u->rng = rng_seed();
	return 0;
}

/* rsv_up_socket: an upstream socket of in bound to ADDR:0, or to
 * [ADDR6]:0 (IPv6 only) if v6, watched as f; its "ADDR:PORT" in src. 0, or
 * -1 (logged). */
static int rsv_up_socket(struct rsv_inst *in, int v6, struct rsv_fd *f, char *src, size_t srclen)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t slen = v6 ? sizeof(*sin6) : sizeof(*sin);
	int fd, on = 1, rcvbuf = 1 << 20;
	char a[INET6_ADDRSTRLEN];

	if (v6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in->conf->addr6;
	} else {
		sin->sin_family = AF_INET;
		sin->sin_addr = in->conf->addr;
	}
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		log_warn("%s: %s: upstream socket", __func__, in->conf->name);
		return -1;
	}
	*f = (struct rsv_fd){.kind = RSV_FD_UPSTREAM, .fd = fd, .ptr = in};
	if (!v6 || setsockopt(fd, IPPROTO_IPV6, IPV6_FREEBIND, &on, sizeof(on)) == -1)
		(void)setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &on, sizeof(on));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if ((v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) == -1) ||
	    bind(fd, (struct sockaddr *)&ss, slen) == -1 ||
	    getsockname(fd, (struct sockaddr *)&ss, &slen) == -1) {
		if (v6)
			log_warn("%s: %s: upstream socket on %s", __func__, in->conf->name,
				 inet_ntop(AF_INET6, &in->conf->addr6, a, sizeof(a)));
		else
			log_warn("%s: %s: upstream socket on %s", __func__, in->conf->name,
				 inet_ntop(AF_INET, &in->conf->addr, a, sizeof(a)));
		return -1;
	}
	rsv_sa_str((struct sockaddr *)&ss, src, srclen);
	if (rsv_watch(in->ctx, f, EPOLLIN) == -1) {
		log_warn("%s: epoll_ctl", __func__);
		return -1;
	}
	return 0;
}

int rsv_up_open(struct rsv_inst *in)
{
	if (!in->conf->v6only && rsv_up_socket(in, 0, &in->up, in->src, sizeof(in->src)) == -1)
		return -1;
	if (in->conf->has_addr6 && rsv_conf_up6(in->ctx->conf) &&
	    rsv_up_socket(in, 1, &in->up6, in->src6, sizeof(in->src6)) == -1)
		return -1;
	return 0;
}

struct rsv_pending *rsv_up_find(struct rsv_inst *in, const struct rsv_key *k)
{
	struct rsv_upstream *u = &in->ctx->up;
	uint32_t h = rsv_key_hash(in, k);

	for (struct hmap_node *n = hmap_first(&u->by_key, h); n; n = hmap_next(n)) {
		struct rsv_pending *p = HMAP_ENTRY(n, struct rsv_pending, key_node);

		if (p->inst == in && p->key.type == k->type && p->key.cls == k->cls &&
		    p->key.len == k->len && memcmp(p->key.name, k->name, k->len) == 0)
			return p;
	}
	return NULL;
}

static struct rsv_pending *rsv_up_by_id(struct rsv_inst *in, uint16_t id)
{
	struct rsv_upstream *u = &in->ctx->up;

	for (struct hmap_node *n = hmap_first(&u->by_id, rsv_id_hash(in, id)); n;
	     n = hmap_next(n)) {
		struct rsv_pending *p = HMAP_ENTRY(n, struct rsv_pending, id_node);

		if (p->inst == in && p->id == id)
			return p;
	}
	return NULL;
}

static void rsv_queue_append(struct rsv_upstream *u, struct rsv_pending *p)
{
	p->queued = 1;
	p->q_next = NULL;
	p->q_prev = u->q_tail;
	if (u->q_tail)
		u->q_tail->q_next = p;
	else
		u->q_head = p;
	u->q_tail = p;
}

static void rsv_queue_remove(struct rsv_upstream *u, struct rsv_pending *p)
{
	if (!p->queued)
		return;
	p->queued = 0;
	if (p->q_prev)
		p->q_prev->q_next = p->q_next;
	else
		u->q_head = p->q_next;
	if (p->q_next)
		p->q_next->q_prev = p->q_prev;
	else
		u->q_tail = p->q_prev;
	p->q_prev = p->q_next = NULL;
}

static void rsv_up_free(struct loop_handler *h)
{
	struct rsv_pending *p =
	    (struct rsv_pending *)((char *)h - offsetof(struct rsv_pending, tcp_fd.h));
	struct rsv_waiter *w, *wn;

	for (w = p->waiters; w; w = wn) {
		wn = w->next;
		free(w);
	}
	free(p->tcp_buf);
	rsv_iter_free(p);
	free(p);
}

/* rsv_up_release: p is done: out of every table, freed once the event
 * being handled is done (the answer being handled may be in tcp_buf), or
 * at once outside one. */
static void rsv_up_release(struct rsv_pending *p)
{
	struct rsv_upstream *u = &p->inst->ctx->up;

	hmap_remove(&u->by_id, &p->id_node);
	hmap_remove(&u->by_key, &p->key_node);
	rsv_queue_remove(u, p);
	rsv_up_tcp_close(p);
	u->count--;
	p->inst->pending--;
	loop_del_finalize(p->inst->ctx->loop, &p->tcp_fd.h, rsv_up_free);
}

void rsv_up_unqueue(struct rsv_pending *p)
{
	rsv_queue_remove(&p->inst->ctx->up, p);
	rsv_up_tcp_close(p);
}

/* rsv_up_query: the wire of p's query, in q. */
static int rsv_up_query(struct rsv_pending *p, uint8_t *q, size_t max)
{
	if (p->walk)
		return rsv_iter_wire(p, q, max);
	return rsv_msg_query(&p->key, p->id, NULL, q, max);
}

void rsv_up_send(struct rsv_pending *p)
{
	struct rsv_inst *in = p->inst;
	struct rsv_ctx *ctx = in->ctx;
	const struct rsv_conf *conf = ctx->conf;
	uint8_t *q = ctx->up.batch->query;
	const struct sockaddr *to;
	socklen_t tolen;
	int n, rc, fd;

	if (p->walk == NULL) {
		p->upstream = (in->up_pref + (int)p->attempt - 1) % conf->nupstream;
		p->to = conf->upstream[p->upstream];
		p->to6 = conf->upstream6[p->upstream];
	}
	to = rsv_sa(&p->to, &p->to6, &tolen);
	fd = rsv_sa_is6(&p->to) ? in->up6.fd : in->up.fd;
	p->sent_mono = ctx->now;
	p->sent_real = now_real_ns();
	p->deadline = ctx->now + conf->timeout_ns;
	p->logged = 0;
	rsv_queue_append(&ctx->up, p);
	in->n.upstream_queries++;
	n = rsv_up_query(p, q, KNOT_WIRE_MIN_PKTSIZE);
	if (n <= 0) {
		errno = EMSGSIZE;
		rc = -1;
	} else if (p->tcp) {
		rc = rsv_up_tcp_start(p, q, (size_t)n);
	} else if (rsv_sa_is6(&p->to) && fd == -1) {
		errno = EAFNOSUPPORT; /* no IPv6 address to ask from */
		rc = -1;
	} else {
		rc = sendto(fd, q, (size_t)n, 0, to, tolen) == n ? 0 : -1;
	}
	if (rc == -1) {
		/* counted and written now; the attempt still times out, so a
		 * network that is down does not turn into a busy loop */
		log_debug("%s: upstream query: %s", in->conf->name, strerror(errno));
		rsv_stats_attempt(ctx, p, "error", -1, 0);
		p->logged = 1;
	}
}

struct rsv_pending *rsv_up_start(struct rsv_inst *in, const struct rsv_key *k,
				 enum rsv_reason reason)
{
	struct rsv_upstream *u = &in->ctx->up;
	struct rsv_pending *p;

	if (u->count >= u->max)
		return NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->inst = in;
	p->key = *k;
	p->ask = &p->key;
	p->reason = reason;
	p->attempt = 1;
	p->tcp_fd.fd = -1;
	p->wtail = &p->waiters;
	do
		p->id = (uint16_t)(rng_next(&u->rng) >> 48);
	while (rsv_up_by_id(in, p->id));
	hmap_insert(&u->by_id, &p->id_node, rsv_id_hash(in, p->id));
	hmap_insert(&u->by_key, &p->key_node, rsv_key_hash(in, k));
	u->count++;
	in->pending++;
	if (in->ctx->conf->mode == RSV_MODE_ITERATE) {
		if (rsv_iter_start(p) == -1) {
			rsv_up_release(p);
			return NULL;
		}
		return p;
	}
	rsv_up_send(p);
	return p;
}

void rsv_up_fail_soon(struct rsv_pending *p)
{
	struct rsv_upstream *u = &p->inst->ctx->up;

	rsv_queue_remove(u, p);
	p->doomed = 1;
	p->logged = 1;
	p->deadline = p->inst->ctx->now;
	/* every deadline in the queue is now or later: first keeps the order */
	p->queued = 1;
	p->q_prev = NULL;
	p->q_next = u->q_head;
	if (u->q_head)
		u->q_head->q_prev = p;
	else
		u->q_tail = p;
	u->q_head = p;
}

void rsv_up_new_id(struct rsv_pending *p)
{
	struct rsv_inst *in = p->inst;
	struct rsv_upstream *u = &in->ctx->up;

	hmap_remove(&u->by_id, &p->id_node);
	do
		p->id = (uint16_t)(rng_next(&u->rng) >> 48);
	while (rsv_up_by_id(in, p->id));
	hmap_insert(&u->by_id, &p->id_node, rsv_id_hash(in, p->id));
}

int rsv_up_wait(struct rsv_pending *p, const struct rsv_client *who, const uint8_t *query,
		size_t len)
{
	struct rsv_waiter *w;

	if (p->nwait >= RSV_WAITERS_MAX || len > UINT16_MAX)
		return -1;
	if ((w = malloc(sizeof(*w) + len)) == NULL)
		return -1;
	w->next = NULL;
	w->who = *who;
	w->len = (uint16_t)len;
	memcpy(w->query, query, len);
	*p->wtail = w;
	p->wtail = &w->next;
	p->nwait++;
	return 0;
}

/* rsv_up_attempt_failed: p's current attempt is over without an answer
 * that settles it (and is written): retry, or fail. */
void rsv_up_attempt_failed(struct rsv_pending *p)
{
	const struct rsv_conf *conf = p->inst->ctx->conf;

	rsv_up_unqueue(p);
	if (p->walk) {
		if (rsv_iter_attempt_failed(p))
			rsv_up_release(p);
		return;
	}
	if (p->attempt <= conf->retries) {
		p->attempt++;
		rsv_up_send(p);
		return;
	}
	rsv_failed(p);
	rsv_up_release(p);
}

/* rsv_up_truncated: p's answer did not fit: ask over TCP, without using
 * up a retry. */
static void rsv_up_truncated(struct rsv_pending *p, int rcode)
{
	struct rsv_ctx *ctx = p->inst->ctx;

	rsv_stats_attempt(ctx, p, "truncated", rcode, ctx->now - p->sent_mono);
	rsv_queue_remove(&ctx->up, p);
	p->tcp = 1;
	p->attempt++;
	rsv_up_send(p);
}

/* rsv_up_answer: r (wire/len) answers p's question. */
void rsv_up_answer(struct rsv_pending *p, const knot_pkt_t *r, const uint8_t *wire, size_t len)
{
	struct rsv_inst *in = p->inst;
	struct rsv_ctx *ctx = in->ctx;
	uint16_t rcode = knot_pkt_ext_rcode(r);

	if (!p->tcp && knot_wire_get_tc(wire)) {
		rsv_up_truncated(p, rcode);
		return;
	}
	rsv_stats_attempt(ctx, p, "answer", rcode, ctx->now - p->sent_mono);
	p->logged = 1;
	if (p->walk) {
		rsv_up_unqueue(p);
		if (rsv_iter_answer(p, r, wire, len))
			rsv_up_release(p);
		return;
	}
	if (rcode != KNOT_RCODE_NOERROR && rcode != KNOT_RCODE_NXDOMAIN &&
	    ctx->conf->nupstream > 1 && p->attempt <= ctx->conf->retries) {
		rsv_up_attempt_failed(p); /* another upstream may do better */
		return;
	}
	in->up_pref = p->upstream;
	rsv_resolved(p, r, wire, len);
	rsv_up_release(p);
}

static int rsv_up_known(const struct rsv_conf *conf, const struct sockaddr *from)
{
	for (int i = 0; i < conf->nupstream; i++) {
		socklen_t len;

		if (rsv_sa_equal(rsv_sa(&conf->upstream[i], &conf->upstream6[i], &len), from))
			return 1;
	}
	return 0;
}

/* rsv_up_got: one datagram from `from` on one of in's upstream sockets;
 * see rsv_up_received. */
static void rsv_up_got(struct rsv_inst *in, const struct sockaddr *from, const uint8_t *wire,
		       size_t len, int cut)
{
	struct rsv_pending *p;
	knot_pkt_t *pkt;
	socklen_t tolen;

	if (len < KNOT_WIRE_HEADER_SIZE ||
	    (in->ctx->conf->mode == RSV_MODE_FORWARD && !rsv_up_known(in->ctx->conf, from)))
		return;
	p = rsv_up_by_id(in, knot_wire_get_id(wire));
	if (p == NULL || p->tcp) /* late, or already asked over TCP */
		return;
	if (p->walk && !rsv_sa_equal(from, rsv_sa(&p->to, &p->to6, &tolen)))
		return; /* not from the server asked */
	if (cut) {
		/* larger than our buffer (and than the EDNS size we asked
		 * for): cut, so it will not parse */
		rsv_up_truncated(p, knot_wire_get_rcode(wire));
		return;
	}
	if ((pkt = rsv_msg_parse(wire, len)) == NULL)
		return;
	if (rsv_msg_matches(pkt, p->ask, p->id))
		rsv_up_answer(p, pkt, wire, len);
	knot_pkt_free(pkt);
}

void rsv_up_received(struct rsv_inst *in, const struct sockaddr_in *from, const uint8_t *wire,
		     size_t len, int cut)
{
	rsv_up_got(in, (const struct sockaddr *)from, wire, len, cut);
}

void rsv_up_received6(struct rsv_inst *in, const struct sockaddr_in6 *from, const uint8_t *wire,
		      size_t len, int cut)
{
	rsv_up_got(in, (const struct sockaddr *)from, wire, len, cut);
}

void rsv_up_readable(struct rsv_inst *in, int fd)
{
	struct udp_batch *b = in->ctx->up.batch->rx;
	int v6 = fd == in->up6.fd;
	socklen_t fromlen = v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	for (int round = 0; round < RSV_UP_ROUNDS; round++) {
		int r = udp_recv(fd, b);

		if (r == -1)
			log_debug("%s: upstream recvmmsg: %s", in->conf->name, strerror(errno));
		if (r <= 0)
			return;
		for (unsigned i = 0; i < (unsigned)r; i++)
			if (udp_rx_fromlen(b, i) == fromlen)
				rsv_up_got(in, udp_rx_from(b, i), udp_rx_data(b, i),
					   udp_rx_len(b, i), udp_rx_truncated(b, i));
		if (r < RSV_UP_BATCH)
			return;
	}
}

void rsv_up_tick(struct rsv_ctx *ctx)
{
	struct rsv_upstream *u = &ctx->up;

	/* every attempt has the same timeout: the queue is in deadline order */
	while (u->q_head && u->q_head->deadline <= ctx->now) {
		struct rsv_pending *p = u->q_head;

		if (!p->doomed)
			p->inst->n.upstream_timeouts++;
		if (!p->logged)
			rsv_stats_attempt(ctx, p, "timeout", -1, 0);
		p->logged = 1;
		rsv_up_attempt_failed(p);
	}
}

void rsv_up_finish(struct rsv_ctx *ctx)
{
	struct rsv_upstream *u = &ctx->up;

	while (u->q_head) {
		struct rsv_pending *p = u->q_head;

		if (!p->logged)
			rsv_stats_attempt(ctx, p, "abandoned", -1, 0);
		rsv_up_release(p);
	}
	hmap_free(&u->by_id);
	hmap_free(&u->by_key);
	if (u->batch)
		udp_batch_free(u->batch->rx);
	free(u->batch);
	u->batch = NULL;
}
