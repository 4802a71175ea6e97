/* The prober's icmp check: an echo request answered by the site's host; see probe.h. */
#include "probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/icmp.h>
#include <netinet/icmp6.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "log.h"
#include "timeutil.h"

/* the echo's payload: the probe's sequence number, whole */
#define PROBER_ICMP_LEN (8 + 8)

uint16_t prober_icmp_sum(const uint8_t *buf, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(buf[i] << 8 | buf[i + 1]);
	if (len & 1)
		sum += (uint32_t)buf[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t prober_icmp_echo(uint8_t *buf, size_t len, uint16_t id, uint64_t seq, int v6)
{
	uint16_t sum;

	if (len < PROBER_ICMP_LEN)
		return 0;
	memset(buf, 0, PROBER_ICMP_LEN);
	buf[0] = v6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
	buf[4] = (uint8_t)(id >> 8);
	buf[5] = (uint8_t)id;
	buf[6] = (uint8_t)(seq >> 8);
	buf[7] = (uint8_t)seq;
	for (int i = 0; i < 8; i++)
		buf[8 + i] = (uint8_t)(seq >> (56 - 8 * i));
	if (v6) /* its checksum covers a pseudo-header: the kernel's */
		return PROBER_ICMP_LEN;
	sum = prober_icmp_sum(buf, PROBER_ICMP_LEN);
	buf[2] = (uint8_t)(sum >> 8);
	buf[3] = (uint8_t)sum;
	return PROBER_ICMP_LEN;
}

enum prober_reply prober_icmp_check(const uint8_t *pkt, size_t len, uint16_t id, uint64_t seq)
{
	size_t ihl;
	uint64_t got = 0;
	const uint8_t *icmp;

	if (len < 20 || (pkt[0] >> 4) != 4 || (ihl = (size_t)(pkt[0] & 0x0f) * 4) < 20 ||
	    len < ihl + PROBER_ICMP_LEN || pkt[9] != IPPROTO_ICMP)
		return PROBER_REPLY_BAD;
	icmp = pkt + ihl;
	if (icmp[0] != ICMP_ECHOREPLY || icmp[1] != 0 || (uint16_t)(icmp[4] << 8 | icmp[5]) != id)
		return PROBER_REPLY_BAD;
	for (int i = 0; i < 8; i++)
		got = got << 8 | icmp[8 + i];
	return got == seq ? PROBER_REPLY_OK : PROBER_REPLY_STALE;
}

enum prober_reply prober_icmp6_check(const uint8_t *msg, size_t len, uint16_t id, uint64_t seq)
{
	uint64_t got = 0;

	if (len < PROBER_ICMP_LEN || msg[0] != ICMP6_ECHO_REPLY || msg[1] != 0 ||
	    (uint16_t)(msg[4] << 8 | msg[5]) != id)
		return PROBER_REPLY_BAD;
	for (int i = 0; i < 8; i++)
		got = got << 8 | msg[8 + i];
	return got == seq ? PROBER_REPLY_OK : PROBER_REPLY_STALE;
}

/* prober_icmp_filter: only echo replies come to the raw socket */
static int prober_icmp_filter(int fd, int v6)
{
	struct icmp_filter only_replies = {.data = ~(1u << ICMP_ECHOREPLY)};
	struct icmp6_filter only_replies6;

	if (!v6)
		return setsockopt(fd, SOL_RAW, ICMP_FILTER, &only_replies, sizeof(only_replies));
	ICMP6_FILTER_SETBLOCKALL(&only_replies6);
	ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &only_replies6);
	return setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &only_replies6, sizeof(only_replies6));
}

int prober_icmp_open(struct prober_probe *p, const struct sockaddr *target, const char *site)
{
	static unsigned opened;
	struct sockaddr_storage peer;
	int v6 = target->sa_family == AF_INET6;
	char buf[INET6_ADDRSTRLEN + 8];

	if (prober_probe_init(p, target, site) == -1)
		return -1;
	/* raw: the lab runs as root; a ping socket would need the group's
	 * net.ipv4.ping_group_range */
	p->fd = socket(target->sa_family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
	if (p->fd == -1) {
		log_warn("%s: raw ICMP%s socket (the icmp check needs CAP_NET_RAW)", __func__,
			 v6 ? "v6" : "");
		return -1;
	}
	/* every echo reply of the namespace comes to every raw socket: the
	 * others' are told apart by the id, one of its own for each probe */
	p->echo_id = (uint16_t)((unsigned)getpid() * 16 + opened++);
	peer = p->target;
	if (v6)
		((struct sockaddr_in6 *)&peer)->sin6_port = 0;
	else
		((struct sockaddr_in *)&peer)->sin_port = 0;
	if (prober_icmp_filter(p->fd, v6) == -1 ||
	    connect(p->fd, (const struct sockaddr *)&peer, p->target_len) == -1) {
		log_warn("%s: raw ICMP socket to %s", __func__,
			 addr_sa_str((const struct sockaddr *)&peer, buf, sizeof(buf)));
		close(p->fd);
		p->fd = -1;
		return -1;
	}
	return 0;
}

int prober_icmp_send(struct prober_probe *p, int64_t timeout_ns)
{
	uint8_t buf[PROBER_ICMP_LEN];
	size_t n;

	p->seq++;
	p->in_flight = 1;
	p->sent = now_mono_ns();
	p->deadline = p->sent + timeout_ns;
	n = prober_icmp_echo(buf, sizeof(buf), p->echo_id, p->seq, p->target.ss_family == AF_INET6);
	return send(p->fd, buf, n, MSG_DONTWAIT) == (ssize_t)n ? 0 : -1;
}

int prober_icmp_read(struct prober_probe *p)
{
	for (;;) {
		uint8_t buf[512];
		ssize_t n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT);
		enum prober_reply r;

		if (n == -1)
			return -1;
		r = p->target.ss_family == AF_INET6
			? prober_icmp6_check(buf, (size_t)n, p->echo_id, p->seq)
			: prober_icmp_check(buf, (size_t)n, p->echo_id, p->seq);
		/* another probe's echo reply, in this namespace: not ours */
		if (r != PROBER_REPLY_BAD)
			return (int)r;
	}
}

void prober_icmp_close(struct prober_probe *p)
{
	if (p->fd != -1)
		close(p->fd);
	p->fd = -1;
}

const struct prober_check prober_check_icmp = {"icmp", prober_icmp_open, prober_icmp_send,
					       prober_icmp_read, prober_icmp_close};
