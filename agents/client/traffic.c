/* Paced requests, replies and timeouts of the client; see traffic.h. */
#include "traffic.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "http.h"
#include "log.h"
#include "pop.h"
#include "popdns.h"
#include "poptcp.h"
#include "tcp.h"
#include "timeutil.h"
#include "udpbatch.h"
#include "wire.h"

#define CLIENT_RXLEN 256
/* requests sent per wake-up at most, so replies and signals get a turn
 * during a long catch-up */
#define CLIENT_SEND_BUDGET 4096
#define CLIENT_RECV_ROUNDS 16
/* a tick reads up to this many batches of replies: as many as it may have
 * sent, and as many again for the replies of a catch-up */
#define CLIENT_TICK_RECV_ROUNDS (2 * CLIENT_SEND_BUDGET / CLIENT_BATCH)
/* ticks run back to back at most, the loop's turn between them: signals
 * and the other timers wait a few ms at most */
#define CLIENT_BUSY_ROUNDS 16

void client_record(struct client *c, const struct client_slot *s, enum client_status st,
		   const char *site, int64_t rtt_ns)
{
	char line[128];
	int n;

	if (c->bin &&
	    client_recbin_write(c->bin, s->client, s->seq, s->sent_real_ns, st, site, rtt_ns) ==
		-1 &&
	    c->stats.unrecorded++ == 0)
		log_warnx("%s: a binary record could not be written (a write error, or more "
			  "than %d sites)",
			  __func__, RECBIN_MAX_SITES);
	if (c->csv == NULL)
		return;
	n = client_record_format(line, sizeof(line), s->client, s->seq, s->sent_real_ns, st, site,
				 rtt_ns);
	if (n > 0 && c->cfg.family_column) {
		/* the reply's family, else the last attempt's; whether it was
		 * sent again over IPv4 */
		int family = s->family	    ? s->family
			     : s->fell_back ? AF_INET
					    : c->cfg.target.sa.sa_family;

		n--; /* the newline */
		n += snprintf(line + n, sizeof(line) - (size_t)n, ",%d,%d\n",
			      family == AF_INET6 ? 6 : 4, s->fell_back);
	}
	if (n > 0)
		fwrite(line, 1, (size_t)n, c->csv);
}

void client_maybe_done(struct client *c)
{
	if (c->draining && c->ring.pending == 0)
		loop_stop(c->loop);
}

static void client_read_replies(struct client *c, int rounds);

/* client_expire: the requests unanswered for longer than the timeout are
 * lost; when one is due, the replies already waiting in the socket are read
 * first, so that a client that was not scheduled for a while (a busy
 * machine) does not call lost what arrived in time */
static void client_expire(struct client *c, int64_t now)
{
	struct client_slot *s;
	unsigned expired = 0;

	/* a population's connections that ended: their requests are errors */
	if (c->poptcp)
		poptcp_sweep(c->poptcp);
	s = client_ring_oldest(&c->ring);
	if (s == NULL || now - s->sent_mono_ns <= c->cfg.timeout_ns)
		return;
	client_read_replies(c, INT_MAX);
	while ((s = client_ring_oldest(&c->ring)) && now - s->sent_mono_ns > c->cfg.timeout_ns) {
		if (c->poptcp)
			poptcp_expired(c->poptcp, s);
		if (c->tcp)
			client_tcp_expired(c->tcp, s);
		client_record(c, s, CLIENT_TIMEOUT, NULL, 0);
		c->stats.lost++;
		client_ring_resolve(&c->ring, s);
		expired++;
	}
	/* TCP: the connection that lost it is given up; HTTP: the transfers */
	if (expired && c->tcp)
		client_tcp_stalled(c->tcp);
	if (expired && c->http)
		client_http_expired(c->http);
}

const char *client_addr_text(const union client_addr *a, char *buf, size_t len)
{
	return a->sa.sa_family == AF_INET6
		   ? inet_ntop(AF_INET6, &a->sin6.sin6_addr, buf, (socklen_t)len)
		   : inet_ntop(AF_INET, &a->sin.sin_addr, buf, (socklen_t)len);
}

const char *client_addr_str(const union client_addr *a, char *buf, size_t len)
{
	struct sockaddr_storage ss = {0};

	memcpy(&ss, a, client_addr_len(a));
	return addr_sockaddr_str(&ss, buf, len);
}

/* a batch being sent: its first request's sequence number */
struct client_sending {
	struct client *c;
	uint64_t base;
};

/* client_refused: a request the kernel refused (no route, ...): written
 * as an error at once, the first logged. */
static void client_refused(void *arg, unsigned index)
{
	struct client_sending *snd = arg;
	struct client *c = snd->c;
	struct client_slot *s;

	char to[CLIENT_ADDR_STRLEN];

	if (c->stats.errors++ == 0)
		log_warn("%s: sendto %s", __func__,
			 client_addr_str(&c->cfg.target, to, sizeof(to)));
	s = client_ring_find(&c->ring, snd->base + index);
	client_record(c, s, CLIENT_ERROR, NULL, 0);
	client_ring_resolve(&c->ring, s);
}

/* client_refused_copy: a Happy Eyeballs copy the kernel refused (no IPv4
 * route): the request waits for its timeout, the first refusal logged */
static void client_refused_copy(void *arg, unsigned index)
{
	struct client_sending *snd = arg;
	char to[CLIENT_ADDR_STRLEN];

	(void)index;
	if (snd->c->stats.errors == 0)
		log_warn("%s: sendto %s", __func__,
			 client_addr_str(&snd->c->cfg.fallback, to, sizeof(to)));
}

/* client_fallback_arm: the attempt delay's timer at the end of slot s's */
static void client_fallback_arm(struct client *c, const struct client_slot *s)
{
	if (loop_timer_set(&c->fallback_timer, s->sent_mono_ns + c->cfg.attempt_delay_ns, 0) == -1)
		log_warn("%s: timerfd", __func__);
	else
		c->fallback_armed = 1;
}

/* client_fallback_start: the attempt delay's timer for the batch just
 * queued from seq base, unless it waits for an older request already */
static void client_fallback_start(struct client *c, uint64_t base)
{
	if (c->cfg.fallback.sa.sa_family && !c->fallback_armed)
		client_fallback_arm(c, client_ring_find(&c->ring, base));
}

/* client_fallback_to: where request s goes again over IPv4, written as the
 * dual-stack socket takes an IPv4 address (v4-mapped): the IPv4 target, or
 * a DNS population's logical client's own A */
static void client_fallback_to(const struct client *c, const struct client_slot *s,
			       struct sockaddr_in6 *to)
{
	struct in_addr a = c->cfg.fallback.sin.sin_addr;

	if (c->popdns)
		a = c->pop->c4[s->client - c->pop->base].addr;
	memset(to, 0, sizeof(*to));
	to->sin6_family = AF_INET6;
	to->sin6_port = c->cfg.fallback.sin.sin_port;
	to->sin6_addr.s6_addr[10] = 0xff;
	to->sin6_addr.s6_addr[11] = 0xff;
	memcpy(&to->sin6_addr.s6_addr[12], &a, 4);
}

/* client_fallback: Happy Eyeballs (RFC 8305, its connection attempt delay
 * for a datagram): each request still unanswered attempt_delay_ns after it
 * left over IPv6 is sent again, the same request (a population's: its
 * logical client's), to the IPv4 address; the timer is armed again for the
 * next one. The replies waiting are read first: one that came in time is
 * no reason to fall back. */
static void client_fallback(struct client *c, int64_t now)
{
	struct udp_batch *io = c->io;
	struct client_sending snd = {.c = c, .base = 0};
	struct sockaddr_in6 to;
	uint64_t seq;

	c->fallback_armed = 0;
	client_read_replies(c, INT_MAX);
	if (c->fallback_seq < c->ring.tail)
		c->fallback_seq = c->ring.tail;
	for (seq = c->fallback_seq; seq < c->ring.head; seq++) {
		struct client_slot *s = client_ring_find(&c->ring, seq);
		struct wire_msg m = {.type = WIRE_REQUEST};

		if (s == NULL || s->fell_back)
			continue;
		if (now - s->sent_mono_ns < c->cfg.attempt_delay_ns) {
			client_fallback_arm(c, s);
			break;
		}
		if (io->ntx == CLIENT_BATCH)
			udp_send(c->fd, io, client_refused_copy, &snd);
		m.client_id = s->client;
		m.seq = seq;
		m.sent_ns = (uint64_t)s->sent_real_ns;
		wire_encode(&m, udp_tx_buf(io), WIRE_LEN);
		client_fallback_to(c, s, &to);
		udp_tx_to(io, (const struct sockaddr *)&to, sizeof(to), WIRE_LEN);
		s->fell_back = 1;
		c->stats.fell_back++;
	}
	c->fallback_seq = seq;
	if (io->ntx)
		udp_send(c->fd, io, client_refused_copy, &snd);
}

static void client_on_fallback_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)events;
	loop_timer_read(fd);
	client_fallback(arg, now_mono_ns());
}

/* client_send_batch: sends the next n (<= CLIENT_BATCH) requests. 0, or -1
 * if the ring cannot grow. */
static int client_send_batch(struct client *c, unsigned n)
{
	struct udp_batch *io = c->io;
	int64_t real = now_real_ns(), mono = now_mono_ns();
	struct client_sending snd = {.c = c, .base = c->ring.head};
	struct client_slot *s;

	for (unsigned i = 0; i < n; i++) {
		struct wire_msg m = {.type = WIRE_REQUEST, .client_id = c->cfg.id};

		m.seq = snd.base + i;
		m.sent_ns = (uint64_t)real;
		wire_encode(&m, udp_tx_buf(io), WIRE_LEN);
		if ((s = client_ring_push(&c->ring, real, mono)) == NULL) {
			log_warnx("%s: out of memory for %llu outstanding requests", __func__,
				  (unsigned long long)c->ring.pending);
			io->ntx = 0;
			return -1;
		}
		s->client = c->cfg.id;
		udp_tx_to(io, &c->cfg.target.sa, client_addr_len(&c->cfg.target), WIRE_LEN);
	}
	client_fallback_start(c, snd.base);
	c->stats.sent += n;
	udp_send(c->fd, io, client_refused, &snd);
	return 0;
}

/* client_send_pop: a population's requests due by now, in batches, at most
 * budget of them. How many were sent, or -1 if the ring cannot grow. */
static int client_send_pop(struct client *c, int64_t now, unsigned budget)
{
	struct udp_batch *io = c->io;
	/* the anycast target, or a DNS population's logical client's
	 * answer (its A, or its AAAA) */
	union client_addr to = c->cfg.target;
	unsigned sent = 0;
	int64_t j;

	/* over TCP: each on its own logical client's connection */
	while (c->poptcp && sent < budget && (j = pop_due(c->pop, now)) >= 0) {
		struct wire_msg m = {.type = WIRE_REQUEST};
		int64_t real = now_real_ns();
		struct client_slot *s;

		m.client_id = c->pop->base + (uint32_t)j;
		m.seq = c->ring.head;
		m.sent_ns = (uint64_t)real;
		if ((s = client_ring_push(&c->ring, real, now)) == NULL) {
			log_warnx("%s: out of memory for %llu outstanding requests", __func__,
				  (unsigned long long)c->ring.pending);
			return -1;
		}
		s->client = m.client_id;
		if (c->popdns)
			popdns_check(c->popdns, (uint32_t)j, c->pop->due_ns);
		c->stats.sent++;
		sent++;
		poptcp_send(c->poptcp, (uint32_t)j, &m, s);
	}
	if (c->poptcp) {
		if (c->popdns)
			popdns_flush(c->popdns);
		return (int)sent;
	}

	while (sent < budget) {
		struct client_sending snd = {.c = c, .base = c->ring.head};
		int64_t real = now_real_ns();
		unsigned n = 0;

		while (n < CLIENT_BATCH && sent + n < budget && (j = pop_due(c->pop, now)) >= 0) {
			struct wire_msg m = {.type = WIRE_REQUEST};
			struct client_slot *s;

			m.client_id = c->pop->base + (uint32_t)j;
			m.seq = c->ring.head;
			m.sent_ns = (uint64_t)real;
			wire_encode(&m, udp_tx_buf(io), WIRE_LEN);
			if ((s = client_ring_push(&c->ring, real, now)) == NULL) {
				log_warnx("%s: out of memory for %llu outstanding requests",
					  __func__, (unsigned long long)c->ring.pending);
				io->ntx = 0;
				return -1;
			}
			s->client = m.client_id;
			if (c->popdns) {
				popdns_check(c->popdns, (uint32_t)j, c->pop->due_ns);
				if (to.sa.sa_family == AF_INET6)
					to.sin6.sin6_addr = c->pop->addr6[j];
				else
					to.sin.sin_addr = c->pop->c[j].addr;
			}
			/* a source block is IPv4's (opts refuses one with -F 6) */
			if (c->pop->src_size)
				udp_tx_to_from(io, &to.sin, pop_source(c->pop, (uint32_t)j),
					       WIRE_LEN);
			else
				udp_tx_to(io, &to.sa, client_addr_len(&to), WIRE_LEN);
			n++;
		}
		if (n == 0)
			break;
		client_fallback_start(c, snd.base);
		c->stats.sent += n;
		sent += n;
		if (c->popdns)
			popdns_flush(c->popdns);
		udp_send(c->fd, io, client_refused, &snd);
		if (n < CLIENT_BATCH)
			break;
	}
	return (int)sent;
}

/* client_send_round: the requests due by now, and at high rates the
 * replies waiting. 1 if the periodic tick goes on, else 0 (the sends are
 * over, they failed, or the timer is armed for the next one). */
static int client_send_round(struct client *c, int64_t now)
{
	uint64_t due = client_sched_due_by(&c->sched, now);
	unsigned budget = CLIENT_SEND_BUDGET;

	client_expire(c, now);
	if (c->pop) {
		if (client_send_pop(c, now, budget) == -1) {
			c->failed = 1;
			loop_stop(c->loop);
			return 0;
		}
		client_read_replies(c, CLIENT_TICK_RECV_ROUNDS);
		if (pop_next_ns(c->pop) == INT64_MAX) {
			client_drain(c);
			return 0;
		}
		if (!c->periodic && loop_timer_set(&c->send_timer, pop_next_ns(c->pop), 0) == -1) {
			log_warn("%s: timerfd", __func__);
			c->failed = 1;
			loop_stop(c->loop);
		}
		return c->periodic;
	}
	while (c->ring.head < due && budget > 0) {
		uint64_t left = due - c->ring.head;
		unsigned n = left < CLIENT_BATCH ? (unsigned)left : CLIENT_BATCH;

		if (n > budget)
			n = budget;
		if ((c->tcp    ? client_tcp_send(c->tcp, n)
		     : c->http ? client_http_send(c->http, n)
			       : client_send_batch(c, n)) == -1) {
			c->failed = 1;
			loop_stop(c->loop);
			return 0;
		}
		budget -= n;
	}
	client_read_replies(c, CLIENT_TICK_RECV_ROUNDS);
	if (c->ring.head >= c->sched.total) {
		client_drain(c);
		return 0;
	}
	if (c->periodic)
		return 1;
	/* in the past after a cut-short catch-up: fires at once */
	if (loop_timer_set(&c->send_timer, client_sched_due_at(&c->sched, c->ring.head), 0) == -1) {
		log_warn("%s: timerfd", __func__);
		c->failed = 1;
		loop_stop(c->loop);
	}
	return 0;
}

/* client_send_due: a wake-up of the send timer. A tick that ends a whole
 * tick after it began (a busy client: the timer has fired meanwhile) runs
 * again at once, up to CLIENT_BUSY_ROUNDS times before the loop has its
 * turn: the same sends at the same times, without epoll_wait and the
 * timerfd's read in between, two system calls a tick. */
static void client_send_due(struct client *c)
{
	c->stats.wakeups++;
	for (int round = 0; round < CLIENT_BUSY_ROUNDS; round++) {
		int64_t now = now_mono_ns();

		if (!client_send_round(c, now) || now_mono_ns() - now < CLIENT_TICK_NS)
			return;
		c->stats.busy_rounds++;
	}
}

static void client_on_send_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)events;
	loop_timer_read(fd);
	client_send_due(arg);
}

static void client_on_expire_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client *c = arg;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	client_expire(c, now_mono_ns());
	client_maybe_done(c);
}

void client_take_reply(struct client *c, const struct wire_msg *m, int64_t arrived_ns)
{
	struct client_slot *s;
	char site[WIRE_SITE_LEN + 1];
	int64_t rtt;

	if (m->type != WIRE_REPLY || (c->pop == NULL && m->client_id != c->cfg.id)) {
		c->stats.stray++;
		return;
	}
	s = client_ring_find(&c->ring, m->seq);
	if (s != NULL && s->client != m->client_id) {
		c->stats.stray++;
		return;
	}
	if (s == NULL) {
		if (m->seq < c->ring.head)
			c->stats.late++;
		else
			c->stats.stray++;
		return;
	}
	/* from the wire to the socket: not the time this process took to
	 * read it */
	rtt = arrived_ns - s->sent_real_ns;
	s->family = c->rx_family ? c->rx_family : c->cfg.target.sa.sa_family;
	/* over a connection (TCP, or HTTP through libcurl) Happy Eyeballs
	 * races the connections: a request that went over IPv4 had its IPv6
	 * attempt fail or lose the race */
	if ((c->http || c->tcp) && c->cfg.fallback.sa.sa_family && s->family == AF_INET &&
	    !s->fell_back) {
		s->fell_back = 1;
		c->stats.fell_back++;
	}
	if (rtt > c->cfg.timeout_ns) {
		c->stats.late++;
		c->stats.lost++;
		client_record(c, s, CLIENT_TIMEOUT, NULL, 0);
	} else {
		client_site_clean(m->site, site);
		client_tally_add(&c->tally, site);
		c->stats.ok++;
		if (s->family == AF_INET6)
			c->stats.ok6++;
		else
			c->stats.ok4++;
		client_record(c, s, CLIENT_OK, site, rtt);
	}
	client_ring_resolve(&c->ring, s);
}

/* client_on_datagram: a reply that arrived at arrived_ns (CLOCK_REALTIME,
 * the kernel's time stamp) */
static void client_on_datagram(struct client *c, const uint8_t *buf, size_t len, int64_t arrived_ns)
{
	struct wire_msg m;

	if (wire_decode(buf, len, &m) == -1) {
		c->stats.stray++;
		return;
	}
	client_take_reply(c, &m, arrived_ns);
}

/* client_rx_family: the family a reply came over: AF_INET6, or AF_INET (an
 * IPv4 one, or one of a dual-stack socket's, v4-mapped) */
static int client_rx_family(const struct sockaddr *from)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)from;

	if (from->sa_family != AF_INET6 || IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
		return AF_INET;
	return AF_INET6;
}

/* client_read_replies: the replies waiting, at most rounds batches */
static void client_read_replies(struct client *c, int rounds)
{
	struct udp_batch *io = c->io;

	if (c->tcp) {
		client_tcp_read(c->tcp);
		return;
	}
	for (int round = 0; round < rounds && c->fd != -1; round++) {
		int r = udp_recv(c->fd, io);
		int64_t now = now_real_ns();

		if (r == -1)
			log_warn("%s: recvmmsg", __func__);
		if (r <= 0)
			break;
		for (int i = 0; i < r; i++) {
			int64_t at = udp_rx_time_ns(io, (unsigned)i);

			c->rx_family = client_rx_family(udp_rx_from(io, (unsigned)i));
			client_on_datagram(c, udp_rx_data(io, (unsigned)i),
					   udp_rx_len(io, (unsigned)i), at == -1 ? now : at);
		}
		c->rx_family = 0;
		if (r < CLIENT_BATCH)
			break;
	}
}

static void client_on_reply(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client *c = arg;

	(void)loop;
	(void)fd;
	(void)events;
	client_read_replies(c, CLIENT_RECV_ROUNDS);
	client_maybe_done(c);
}

/* client_watch_replies: the loop reads the replies as they come. 0 or -1
 * (logged). */
static int client_watch_replies(struct client *c)
{
	if (c->reply.added)
		return 0;
	if (loop_add(c->loop, &c->reply, c->fd, EPOLLIN, client_on_reply, c) == -1) {
		log_warn("%s: loop_add", __func__);
		return -1;
	}
	return 0;
}

static int client_prepare(struct client *c, struct loop *loop, const struct client_cfg *cfg,
			  FILE *csv);
static int client_begin(struct client *c);

int client_start_pop(struct client *c, struct loop *loop, const struct client_cfg *cfg, FILE *csv,
		     struct pop *pop, struct popdns *popdns, int tcp, int http, const char *host)
{
	if (tcp || http) {
		if (client_prepare(c, loop, cfg, csv) == -1)
			return -1;
		c->pop = pop;
		c->popdns = popdns;
		if ((c->poptcp = poptcp_open(c, http, host)) == NULL || client_begin(c) == -1)
			return -1;
	} else {
		if (client_start(c, loop, cfg, csv) == -1)
			return -1;
		c->pop = pop;
		c->popdns = popdns;
	}
	pop_start(pop, c->sched.start_ns, cfg->duration_ns);
	return 0;
}

int64_t client_sending_ns(const struct client *c)
{
	int64_t end = c->send_end_ns ? c->send_end_ns : now_mono_ns();
	int64_t next;

	if (c->pop) {
		/* the schedule's end, unless sending went on past it */
		next = c->pop->end_ns;
		if (next == INT64_MAX)
			next = end;
	} else {
		next = client_sched_due_at(&c->sched, c->stats.sent);
	}
	return (next > end ? next : end) - c->sched.start_ns;
}

/* client_prepare: a client's state before its transport: its ring. 0 or
 * -1 (logged). */
static int client_prepare(struct client *c, struct loop *loop, const struct client_cfg *cfg,
			  FILE *csv)
{
	double window = cfg->rate * ((double)cfg->timeout_ns / NSEC_PER_SEC);

	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->loop = loop;
	c->csv = csv;
	c->fd = -1;
	/* twice the requests one timeout holds, so the ring rarely grows */
	if (client_ring_init(&c->ring, window > 1e8 ? (size_t)2e8 : (size_t)(2 * window) + 64)) {
		log_warnx("%s: out of memory for the outstanding ring", __func__);
		return -1;
	}
	return 0;
}

/* client_begin: the schedule from now, and its timers. 0 or -1 (logged). */
static int client_begin(struct client *c)
{
	int64_t tick = c->cfg.timeout_ns / 10, now;

	if (tick < NSEC_PER_MSEC)
		tick = NSEC_PER_MSEC;
	if (tick > 50 * NSEC_PER_MSEC)
		tick = 50 * NSEC_PER_MSEC;
	/* re-arming a timerfd per wake-up costs more than the sends at high
	 * rates: there a periodic tick sends whatever fell due since the last.
	 * At every rate each wake-up of the send timer reads the replies that
	 * came meanwhile, and the socket is watched only once the sends are
	 * over: a reply does not wake the client (two context switches, the
	 * costliest part of a request here), nor does each request leaving the
	 * socket poke its watchers (sock_wfree). A reply's time is the
	 * kernel's stamp, not the read's, and client_expire reads what is
	 * waiting before it calls a request lost. (Over TCP the connection is
	 * watched all the time: tcp.c.) */
	c->periodic = c->cfg.rate * CLIENT_TICK_NS >= NSEC_PER_SEC;
	now = now_mono_ns();
	client_sched_init(
	    &c->sched,
	    c->cfg.sched_start_ns > 0 && c->cfg.sched_start_ns < now ? c->cfg.sched_start_ns : now,
	    c->cfg.rate, c->cfg.duration_ns);
	if (loop_timer_add(c->loop, &c->expire_timer, now + tick, tick, client_on_expire_timer,
			   c) == -1 ||
	    loop_timer_add(c->loop, &c->send_timer, now, c->periodic ? CLIENT_TICK_NS : 0,
			   client_on_send_timer, c) == -1) {
		log_warn("%s: timerfd", __func__);
		return -1;
	}
	return 0;
}

int client_start_tcp(struct client *c, struct loop *loop, const struct client_cfg *cfg, FILE *csv,
		     struct event_log *ev, const struct client_dns *dns,
		     const struct client_dns *dns4)
{
	if (client_prepare(c, loop, cfg, csv) == -1)
		return -1;
	c->dns = dns;
	c->dns4 = dns4;
	if ((c->tcp = client_tcp_open(c, ev)) == NULL)
		return -1;
	return client_begin(c);
}

int client_start_http(struct client *c, struct loop *loop, const struct client_cfg *cfg, FILE *csv,
		      const char *host, struct event_log *ev)
{
	if (client_prepare(c, loop, cfg, csv) == -1)
		return -1;
	if ((c->http = client_http_open(c, host, ev)) == NULL)
		return -1;
	return client_begin(c);
}

/* client_dual_socket: Happy Eyeballs: the IPv6 socket takes IPv4 too
 * (IPV6_V6ONLY off), and the attempt delay's timer. 0 or -1 (logged). */
static int client_dual_socket(struct client *c)
{
	int off = 0;

	if (c->cfg.target.sa.sa_family != AF_INET6 || c->cfg.fallback.sa.sa_family != AF_INET) {
		log_warnx("%s: Happy Eyeballs needs an IPv6 target and an IPv4 fallback", __func__);
		return -1;
	}
	if (setsockopt(c->fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) == -1) {
		log_warn("%s: IPV6_V6ONLY off", __func__);
		return -1;
	}
	if (loop_timer_add(c->loop, &c->fallback_timer, now_mono_ns() + c->cfg.attempt_delay_ns, 0,
			   client_on_fallback_timer, c) == -1) {
		log_warn("%s: timerfd", __func__);
		return -1;
	}
	return 0;
}

int client_start(struct client *c, struct loop *loop, const struct client_cfg *cfg, FILE *csv)
{
	int bufsz = 32 << 20;

	if (client_prepare(c, loop, cfg, csv) == -1)
		return -1;
	if ((c->io = udp_batch_new(CLIENT_BATCH, CLIENT_RXLEN, WIRE_LEN)) == NULL) {
		log_warn("%s: calloc", __func__);
		return -1;
	}
	c->fd = socket(c->cfg.target.sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (c->fd == -1) {
		log_warn("%s: socket", __func__);
		return -1;
	}
	if (c->cfg.fallback.sa.sa_family && client_dual_socket(c) == -1)
		return -1;
	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz, sizeof(bufsz)) == -1)
		(void)setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	/* a reply's rtt ends when it reaches the socket (client_on_datagram) */
	if (udp_timestamp_on(c->fd) == -1) {
		log_warn("%s: setsockopt SO_TIMESTAMPNS", __func__);
		return -1;
	}
	return client_begin(c);
}

void client_drain(struct client *c)
{
	if (c->draining)
		return;
	c->draining = 1;
	c->send_end_ns = now_mono_ns();
	loop_timer_del(c->loop, &c->send_timer);
	if (c->fd != -1 && client_watch_replies(c) == -1) {
		c->failed = 1;
		loop_stop(c->loop);
		return;
	}
	log_info("sent %llu requests; waiting for %llu replies", (unsigned long long)c->stats.sent,
		 (unsigned long long)c->ring.pending);
	client_maybe_done(c);
}

void client_finish(struct client *c)
{
	struct client_slot *s;

	if (c->io != NULL || c->tcp != NULL)
		client_read_replies(c, INT_MAX);
	while ((s = client_ring_oldest(&c->ring))) {
		client_record(c, s, CLIENT_TIMEOUT, NULL, 0);
		c->stats.lost++;
		client_ring_resolve(&c->ring, s);
	}
}

void client_close(struct client *c)
{
	loop_timer_del(c->loop, &c->fallback_timer); /* ignores a timer never added */
	loop_timer_del(c->loop, &c->send_timer);
	loop_timer_del(c->loop, &c->expire_timer);
	if (c->fd != -1) {
		loop_del(c->loop, &c->reply);
		close(c->fd);
	}
	c->fd = -1;
	client_tcp_close(c->tcp);
	c->tcp = NULL;
	client_http_close(c->http);
	c->http = NULL;
	poptcp_close(c->poptcp);
	c->poptcp = NULL;
	client_ring_free(&c->ring);
	udp_batch_free(c->io);
	c->io = NULL;
}
