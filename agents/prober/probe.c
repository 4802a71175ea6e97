/* The prober's udp check, and the table of checks; see probe.h. */
#include "probe.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "log.h"
#include "timeutil.h"

enum prober_reply prober_reply_check(const uint8_t *buf, size_t len, uint64_t seq, const char *site)
{
	struct wire_msg m;

	if (wire_decode(buf, len, &m) == -1 || m.type != WIRE_REPLY ||
	    m.client_id != PROBER_CLIENT_ID)
		return PROBER_REPLY_BAD;
	if (m.seq != seq)
		return PROBER_REPLY_STALE;
	if (strcmp(m.site, site) != 0)
		return PROBER_REPLY_WRONG_SITE;
	if (m.flags & WIRE_F_DRAINING)
		return PROBER_REPLY_DRAINING;
	return PROBER_REPLY_OK;
}

int prober_probe_init(struct prober_probe *p, const struct sockaddr *target, const char *site)
{
	memset(p, 0, sizeof(*p));
	p->fd = p->conn = -1;
	p->target_len = addr_sa_len(target);
	memcpy(&p->target, target, p->target_len);
	if (strlen(site) > WIRE_SITE_LEN) {
		log_warnx("site name '%s' longer than %d characters", site, WIRE_SITE_LEN);
		return -1;
	}
	strcpy(p->site, site);
	return 0;
}

int prober_probe_open(struct prober_probe *p, const struct sockaddr *target, const char *site)
{
	if (prober_probe_init(p, target, site) == -1)
		return -1;
	p->fd = socket(target->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd == -1) {
		log_warn("%s: socket", __func__);
		return -1;
	}
	if (connect(p->fd, target, p->target_len) == -1) {
		log_warn("%s: connect", __func__);
		close(p->fd);
		p->fd = -1;
		return -1;
	}
	return 0;
}

int prober_probe_send(struct prober_probe *p, int64_t timeout_ns)
{
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = PROBER_CLIENT_ID};
	uint8_t buf[WIRE_LEN];

	p->seq++;
	p->in_flight = 1;
	p->sent = now_mono_ns();
	p->deadline = p->sent + timeout_ns;
	m.seq = p->seq;
	m.sent_ns = (uint64_t)now_real_ns();
	wire_encode(&m, buf, sizeof(buf));
	if (send(p->fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return -1;
	return 0;
}

int prober_probe_read(struct prober_probe *p)
{
	uint8_t buf[256];
	ssize_t n = recv(p->fd, buf, sizeof(buf), 0);

	if (n == -1)
		return -1;
	return (int)prober_reply_check(buf, (size_t)n, p->seq, p->site);
}

void prober_probe_close(struct prober_probe *p)
{
	if (p->fd != -1)
		close(p->fd);
	p->fd = -1;
}

const struct prober_check prober_check_udp = {"udp", prober_probe_open, prober_probe_send,
					      prober_probe_read, prober_probe_close};

const struct prober_check *prober_check_find(const char *name)
{
	if (strcmp(name, prober_check_udp.name) == 0)
		return &prober_check_udp;
	if (strcmp(name, prober_check_tcp.name) == 0)
		return &prober_check_tcp;
	if (strcmp(name, prober_check_http.name) == 0)
		return &prober_check_http;
	if (strcmp(name, prober_check_icmp.name) == 0)
		return &prober_check_icmp;
	if (strcmp(name, prober_check_dns.name) == 0)
		return &prober_check_dns;
	return NULL;
}
