/* sited's UDP sockets, batched receive and reply, and every transport's
 * listeners; see serve.h. */
#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
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

socklen_t sited_addr_len(union sited_addr addr)
{
	return addr.sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					      : sizeof(struct sockaddr_in);
}

const char *sited_addr_str(union sited_addr addr, char *buf, size_t len)
{
	struct sockaddr_storage ss = {0};

	memcpy(&ss, addr.sa, sited_addr_len(addr));
	return addr_sockaddr_str(&ss, buf, len);
}

/* sited_wildcard4: addr is 0.0.0.0, the IPv4 wildcard */
static int sited_wildcard4(union sited_addr addr)
{
	return addr.sa->sa_family == AF_INET && addr.sin->sin_addr.s_addr == htonl(INADDR_ANY);
}

/* sited_bound_port: the port fd is bound to (network order), 0 if unknown */
static in_port_t sited_bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		return 0;
	return ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					: ((struct sockaddr_in *)&ss)->sin_port;
}

/* sited_socket: a socket of type bound to addr, non-blocking, SO_REUSEADDR
 * if reuse, IPV6_V6ONLY if IPv6; a UDP one with pktinfo, a TCP one
 * listening with backlog; rcvbuf bytes of receive buffer if above 0 (more
 * than rmem_max if root). The descriptor, or -1 with errno set and the call
 * that failed in *what (not logged: a missing IPv6 is not always an error). */
static int sited_socket(union sited_addr addr, int type, int rcvbuf, int backlog, int reuse,
			const char **what)
{
	int family = addr.sa->sa_family, one = 1, fd, err;

	*what = "socket";
	if ((fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	*what = "setsockopt SO_REUSEADDR";
	if (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1)
		goto fail;
	/* [::] beside 0.0.0.0: each family a socket of its own, an IPv4 peer
	 * never a mapped IPv6 address */
	*what = "setsockopt IPV6_V6ONLY";
	if (family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) == -1)
		goto fail;
	*what = family == AF_INET6 ? "setsockopt IPV6_RECVPKTINFO" : "setsockopt IP_PKTINFO";
	if (type == SOCK_DGRAM && udp_pktinfo_on(fd, family) == -1)
		goto fail;
	if (rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	*what = "bind";
	if (bind(fd, addr.sa, sited_addr_len(addr)) == -1)
		goto fail;
	*what = "listen";
	if (type == SOCK_STREAM && listen(fd, backlog) == -1)
		goto fail;
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

int sited_listen(union sited_addr addr, int type, int rcvbuf, int backlog, int fds[SITED_LISTENERS],
		 int *no_ipv6)
{
	struct sockaddr_in6 any6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
	const char *proto = type == SOCK_DGRAM ? "UDP" : "TCP", *what;
	int wildcard = sited_wildcard4(addr);
	char name[SITED_ADDRSTRLEN];

	/* UDP shares the wildcard's port with the local prober's socket; TCP
	 * binds again at once after a restart, its old connections in
	 * TIME_WAIT */
	fds[0] = sited_socket(addr, type, rcvbuf, backlog, type == SOCK_STREAM || wildcard, &what);
	fds[1] = -1;
	if (fds[0] == -1) {
		log_warn("%s: %s %s %s", __func__, what, proto,
			 sited_addr_str(addr, name, sizeof(name)));
		return -1;
	}
	if (!wildcard || *no_ipv6)
		return 0;
	/* the port 0.0.0.0 has, should the kernel have picked it */
	any6.sin6_port = sited_bound_port(fds[0]);
	if ((fds[1] = sited_socket(&any6, type, rcvbuf, backlog, 1, &what)) != -1)
		return 0;
	sited_addr_str(&any6, name, sizeof(name));
	if (errno == EAFNOSUPPORT || errno == EADDRNOTAVAIL) {
		log_info("no IPv6 on this host (%s %s %s: %s): IPv4 only", what, proto, name,
			 strerror(errno));
		*no_ipv6 = 1;
		return 0;
	}
	log_warn("%s: %s %s %s", __func__, what, proto, name);
	close(fds[0]);
	fds[0] = -1;
	return -1;
}

int sited_server_open(struct sited_server *s, union sited_addr addr, const char *site)
{
	int fds[SITED_LISTENERS];

	memset(s, 0, sizeof(*s));
	s->fd = s->fd6 = s->local_fd = -1;
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
	/* bursts from fast clients: 32 MiB, about 370 ms at 100,000/s */
	if (sited_listen(addr, SOCK_DGRAM, 32 << 20, 0, fds, &s->no_ipv6) == -1)
		goto fail;
	s->fd = fds[0];
	s->fd6 = fds[1];
	if (sited_wildcard4(addr)) {
		struct sockaddr_in lo = {.sin_family = AF_INET,
					 .sin_port = sited_bound_port(s->fd),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		char name[SITED_ADDRSTRLEN];
		const char *what;

		if ((s->local_fd = sited_socket(&lo, SOCK_DGRAM, 1 << 20, 0, 1, &what)) == -1) {
			log_warn("%s: %s UDP %s", __func__, what,
				 sited_addr_str(&lo, name, sizeof(name)));
			goto fail;
		}
	}
	return 0;
fail:
	sited_server_close(s);
	return -1;
}

/* sited_prepare: queues the reply to request i that came in on fd, none
 * while degraded, held while slow (at now). 0, or -1 if it is not a request
 * (or came without its destination address, the reply's source). */
static int sited_prepare(struct sited_server *s, int fd, unsigned i, int64_t now)
{
	struct udp_batch *b = s->batch;
	union udp_pktinfo src;
	int family = udp_reply_pktinfo(&b->rx[i].msg_hdr, &src);

	if (family == 0 || udp_rx_fromlen(b, i) != sited_addr_len(udp_rx_from(b, i)))
		return -1;
	if (sited_reply_build(udp_rx_data(b, i), udp_rx_len(b, i), s->site,
			      s->draining ? WIRE_F_DRAINING : 0, udp_tx_buf(b), WIRE_LEN) == -1)
		return -1;
	if (s->degraded) {
		s->counts.degraded_dropped++;
	} else if (s->slow_ns > 0) {
		struct sited_slow_item it = {.due_ns = now + s->slow_ns, .fd = fd, .src = src};

		memcpy(&it.to, udp_rx_from(b, i), udp_rx_fromlen(b, i));
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
	char name[SITED_ADDRSTRLEN];

	if (s->counts.send_errors++ == 0)
		log_warn("%s: reply to %s", __func__,
			 sited_addr_str(&s->batch->tx_to[index], name, sizeof(name)));
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

/* sited_rounds: fd's requests answered, SITED_ROUNDS batches at most. 0,
 * or -1 on a socket error. */
static int sited_rounds(struct sited_server *s, int fd)
{
	for (int round = 0; round < SITED_ROUNDS; round++) {
		int r;

		if ((r = sited_batch(s, fd)) == -1)
			return -1;
		if (r < SITED_BATCH)
			break;
	}
	return 0;
}

int sited_server_serve(struct sited_server *s)
{
	/* the local prober's probes first, once per wake-up: behind them at
	 * most SITED_ROUNDS batches of requests a socket (1,024, about 10 ms
	 * at 100,000/s) before the loop looks at the sockets again */
	if (s->local_fd != -1 && sited_batch(s, s->local_fd) == -1)
		return -1;
	if (sited_rounds(s, s->fd) == -1)
		return -1;
	if (s->fd6 != -1 && sited_rounds(s, s->fd6) == -1)
		return -1;
	return 0;
}

void sited_server_close(struct sited_server *s)
{
	if (s->fd != -1)
		close(s->fd);
	if (s->fd6 != -1)
		close(s->fd6);
	if (s->local_fd != -1)
		close(s->local_fd);
	s->fd = s->fd6 = s->local_fd = -1;
	udp_batch_free(s->batch);
	s->batch = NULL;
	sited_slow_free(&s->slow_line);
}
