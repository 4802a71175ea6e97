/*
 * Each host's clock against the first host's (lab.h, lab_hosts_clocks):
 * timestamped UDP probes over the underlay, from a socket in the first
 * host's namespace to one in the host's, the offset and its uncertainty
 * by lib/clocksync.h, recorded as the event host_clock. On simulated hosts
 * both sockets are this process's and read one kernel clock: the offset
 * measured is about 0, which is the truth, and the uncertainty half the
 * underlay's round trip.
 */
#include "lab.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "clocksync.h"
#include "event.h"
#include "events.h"
#include "log.h"
#include "timeutil.h"

#define HOSTCLOCK_PORT 4790 /* beside VXLAN's, on the underlay alone */
#define HOSTCLOCK_PROBES 16
#define HOSTCLOCK_WAIT_US 200000

/* hostclock_socket: a UDP socket in namespace nsfd bound to addr, its
 * receive bounded; -1 (said) */
static int hostclock_socket(int nsfd, struct in_addr addr)
{
	struct sockaddr_in sin = {
	    .sin_family = AF_INET, .sin_addr = addr, .sin_port = htons(HOSTCLOCK_PORT)};
	struct timeval tv = {.tv_sec = 0, .tv_usec = HOSTCLOCK_WAIT_US};
	int s;

	if (netns_enter(nsfd) == -1) {
		log_warn("%s: setns", __func__);
		return -1;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (netns_enter_root() == -1)
		fatal("%s: setns back to the root namespace", __func__);
	if (s == -1 || bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1) {
		log_warn("%s: socket on %s", __func__, inet_ntoa(addr));
		if (s != -1)
			close(s);
		return -1;
	}
	return s;
}

/* hostclock_probe: one probe from ref (socket r) to the host (socket h,
 * at addr); 0 and its time stamps, or -1 (lost) */
static int hostclock_probe(int r, int h, struct in_addr raddr, struct in_addr haddr, int seq,
			   struct clocksync_probe *p)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(HOSTCLOCK_PORT)};
	int buf;

	to.sin_addr = haddr;
	p->t1 = now_real_ns();
	if (sendto(r, &seq, sizeof(seq), 0, (struct sockaddr *)&to, sizeof(to)) == -1 ||
	    recv(h, &buf, sizeof(buf), 0) != sizeof(buf) || buf != seq)
		return -1;
	p->t2 = now_real_ns();
	to.sin_addr = raddr;
	p->t3 = now_real_ns();
	if (sendto(h, &seq, sizeof(seq), 0, (struct sockaddr *)&to, sizeof(to)) == -1 ||
	    recv(r, &buf, sizeof(buf), 0) != sizeof(buf) || buf != seq)
		return -1;
	p->t4 = now_real_ns();
	return 0;
}

int lab_hosts_clocks(struct lab *lab)
{
	const struct topology *t = lab->t;
	struct clocksync_probe p[HOSTCLOCK_PROBES];
	int rc = 0;

	for (int h = 1; h < t->nhosts; h++) {
		struct in_addr raddr = t->hosts[0].address, haddr = t->hosts[h].address;
		int r = hostclock_socket(lab->hostfd[0], raddr), s = -1, n = 0;
		int64_t offset, unc;

		if (r != -1)
			s = hostclock_socket(lab->hostfd[h], haddr);
		for (int i = 0; s != -1 && i < HOSTCLOCK_PROBES; i++)
			if (hostclock_probe(r, s, raddr, haddr, i, &p[n]) == 0)
				n++;
		if (r != -1)
			close(r);
		if (s != -1)
			close(s);
		if (clocksync_estimate(p, n, &offset, &unc) == -1) {
			log_warnx("host %s: its clock could not be measured against %s's (%d of %d "
				  "probes answered)",
				  t->hosts[h].name, t->hosts[0].name, n, HOSTCLOCK_PROBES);
			event_emit(lab->ev, EVENTS_HOST_CLOCK, "{s:s, s:s, s:n, s:n, s:i}", "host",
				   t->hosts[h].name, "reference", t->hosts[0].name, "offset_ns",
				   "uncertainty_ns", "probes", n);
			rc = -1;
			continue;
		}
		event_emit(lab->ev, EVENTS_HOST_CLOCK, "{s:s, s:s, s:I, s:I, s:i}", "host",
			   t->hosts[h].name, "reference", t->hosts[0].name, "offset_ns",
			   (json_int_t)offset, "uncertainty_ns", (json_int_t)unc, "probes", n);
	}
	return rc;
}
