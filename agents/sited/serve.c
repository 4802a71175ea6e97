/* The service socket of sited: batched receive and reply; see serve.h. */
#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"
#include "udpbatch.h"

#define SITED_BATCH 64
#define SITED_RXLEN 512
/* serve() returns to the loop after this many batches, so a flood cannot
 * keep the signal handler from running */
#define SITED_ROUNDS 16

int sited_reply_build(const uint8_t *req, size_t len, const char *site, uint16_t flags,
		      uint8_t *out, size_t outlen)
{
	struct wire_msg m;

	if (wire_decode(req, len, &m) == -1 || m.type != WIRE_REQUEST)
		return -1;
	m.type = WIRE_REPLY;
	m.flags = flags;
	memset(m.site, 0, sizeof(m.site));
	strncpy(m.site, site, WIRE_SITE_LEN);
	return wire_encode(&m, out, outlen);
}

/* sited_socket: a UDP socket bound to addr with IP_PKTINFO and rcvbuf
 * bytes of receive buffer (more than rmem_max if root), SO_REUSEADDR if
 * reuse; -1 (logged) */
static int sited_socket(const struct sockaddr_in *addr, int rcvbuf, int reuse)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd == -1) {
		log_warn("%s: socket", __func__);
		return -1;
	}
	if (udp_pktinfo_on(fd, AF_INET) == -1) {
		log_warn("%s: setsockopt IP_PKTINFO", __func__);
		goto fail;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1) {
		log_warn("%s: setsockopt SO_REUSEADDR", __func__);
		goto fail;
	}
	if (bind(fd, (const struct sockaddr *)addr, sizeof(*addr)) == -1) {
		log_warn("%s: bind %s:%u", __func__, inet_ntoa(addr->sin_addr),
			 ntohs(addr->sin_port));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

int sited_server_open(struct sited_server *s, const struct sockaddr_in *addr, const char *site)
{
	/* bursts from fast clients: 32 MiB, about 370 ms at 100,000/s */
	int wildcard = addr->sin_addr.s_addr == htonl(INADDR_ANY);

	memset(s, 0, sizeof(*s));
	s->fd = s->local_fd = -1;
	if (strlen(site) > WIRE_SITE_LEN) {
		log_warnx("site name '%s' longer than %d characters", site, WIRE_SITE_LEN);
		return -1;
	}
	strcpy(s->site, site);
	s->slow = &s->slow_line;
	s->batch = udp_batch_new(SITED_BATCH, SITED_RXLEN, WIRE_LEN);
	if (s->batch == NULL) {
		log_warn("%s: calloc", __func__);
		goto fail;
	}
	if ((s->fd = sited_socket(addr, 32 << 20, wildcard)) == -1)
		goto fail;
	if (wildcard) {
		struct sockaddr_in lo = *addr;

		lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if ((s->local_fd = sited_socket(&lo, 1 << 20, 1)) == -1)
			goto fail;
	}
	return 0;
fail:
	sited_server_close(s);
	return -1;
}

/* sited_prepare: queues the reply to request i that came in on fd, none
 * while degraded, held while slow (at now). 0, or -1 if it is not a request
 * (or came without its destination address). */
static int sited_prepare(struct sited_server *s, int fd, unsigned i, int64_t now)
{
	struct udp_batch *b = s->batch;
	const struct in_pktinfo *pi = udp_rx_pktinfo(b, i);

	if (pi == NULL || udp_rx_fromlen(b, i) != sizeof(struct sockaddr_in))
		return -1;
	if (sited_reply_build(udp_rx_data(b, i), udp_rx_len(b, i), s->site,
			      s->draining ? WIRE_F_DRAINING : 0, udp_tx_buf(b), WIRE_LEN) == -1)
		return -1;
	if (s->degraded) {
		s->counts.degraded_dropped++;
	} else if (s->slow_ns > 0) {
		struct sited_slow_item it = {
		    .due_ns = now + s->slow_ns, .fd = fd, .from = pi->ipi_addr};

		memcpy(&it.to, udp_rx_from(b, i), sizeof(it.to));
		memcpy(it.msg, udp_tx_buf(b), WIRE_LEN);
		(void)sited_slow_push(s->slow, &it);
	} else {
		udp_tx_reply(b, i, WIRE_LEN);
	}
	return 0;
}

/* sited_refused: a reply the kernel refused: counted, the first logged. */
static void sited_refused(void *arg, unsigned index)
{
	struct sited_server *s = arg;
	const struct sockaddr_in *to = (const struct sockaddr_in *)&s->batch->tx_to[index];

	if (s->counts.send_errors++ == 0)
		log_warn("%s: reply to %s", __func__, inet_ntoa(to->sin_addr));
}

/* sited_batch: reads and answers one batch of fd's. How many it read, or
 * -1 on a socket error. */
static int sited_batch(struct sited_server *s, int fd)
{
	int r = udp_recv(fd, s->batch);

	if (r == -1) {
		log_warn("%s: recvmmsg", __func__);
		return -1;
	}
	int64_t now = s->slow_ns > 0 ? now_mono_ns() : 0;

	for (int i = 0; i < r; i++) {
		if (sited_prepare(s, fd, (unsigned)i, now) == -1) {
			s->counts.bad++;
			continue;
		}
		s->counts.requests++;
	}
	if (r > 0)
		s->counts.replies += udp_send(fd, s->batch, sited_refused, s);
	return r;
}

int sited_server_serve(struct sited_server *s)
{
	/* the local prober's probes first, once per wake-up: behind them at
	 * most SITED_ROUNDS batches of requests (1,024, about 10 ms at
	 * 100,000/s) before the loop looks at both sockets again */
	if (s->local_fd != -1 && sited_batch(s, s->local_fd) == -1)
		return -1;
	for (int round = 0; round < SITED_ROUNDS; round++) {
		int r;

		if ((r = sited_batch(s, s->fd)) == -1)
			return -1;
		if (r < SITED_BATCH)
			return 0;
	}
	return 0;
}

void sited_server_close(struct sited_server *s)
{
	if (s->fd != -1)
		close(s->fd);
	if (s->local_fd != -1)
		close(s->local_fd);
	s->fd = s->local_fd = -1;
	udp_batch_free(s->batch);
	s->batch = NULL;
	sited_slow_free(&s->slow_line);
}
