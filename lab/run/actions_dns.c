/*
 * The timeline's DNS changes on a lab that is up (run.h; docs/authd.md,
 * "Changes"): set-ttl, set-weight, add-record and remove-record, each one
 * CHANGE line to the [dns] node's authd and its answer.
 *
 * The host never routes into the lab: the datagram leaves a socket made
 * inside the [dns] node's own namespace, bound to loopback there
 * (ZONE_CHANGE_FROM), for authd's control address on the node's link; the
 * kernel delivers it locally, and authd, given -A with that address, takes
 * it. A datagram with a loopback source cannot reach authd from any other
 * namespace. The answer comes back to the same socket.
 */
#include "run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lab.h"
#include "log.h"
#include "strfmt.h"
#include "timeutil.h"
#include "zone_change.h"

#define ACTION_DNS_WAIT_MS 2000 /* authd's answer, at most */

int action_dns(struct lab *lab, const struct topo_event *e, const struct action_ops *ops,
	       uint32_t *serial, char *said, size_t len)
{
	struct zone_change c;
	struct zone_change_reply r;

	topo_event_change(e, &c);
	if (ops->dns_change == NULL) {
		strfmt(said, len, "%s: DNS changes are not supported here",
		       topo_action_name(e->action));
		return -1;
	}
	if (ops->dns_change(lab, e->node, &c, &r, said, len) == -1)
		return -1;
	if (!r.ok) {
		strfmt(said, len, "%s of %s refused %s %s: %s",
		       topo_dns_impl_name(lab->t->nodes[e->node].dns_impl),
		       lab->t->nodes[e->node].name, topo_action_name(e->action), e->dns_name,
		       r.reason);
		return -1;
	}
	*serial = r.serial;
	return 0;
}

/* action_dns_socket: a UDP socket in node n's namespace, bound to
 * ZONE_CHANGE_FROM there. The fd, or -1 (said) */
static int action_dns_socket(struct lab *lab, int n, char *said, size_t len)
{
	struct sockaddr_in from = {.sin_family = AF_INET};
	int fd, err;

	inet_pton(AF_INET, ZONE_CHANGE_FROM, &from.sin_addr);
	if (netns_enter(lab->nsfd[n]) == -1) {
		strfmt(said, len, "entering the namespace of %s: %s", lab->t->nodes[n].name,
		       strerror(errno));
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	err = errno;
	if (fd != -1 && bind(fd, (struct sockaddr *)&from, sizeof(from)) == -1) {
		err = errno;
		close(fd);
		fd = -1;
	}
	if (netns_enter_root() == -1)
		fatal("%s: back to the root namespace", __func__);
	if (fd == -1)
		strfmt(said, len, "a socket on %s in the namespace of %s: %s", ZONE_CHANGE_FROM,
		       lab->t->nodes[n].name, strerror(err));
	return fd;
}

/* action_lab_dns_change: c to node n's authd, its answer into r (or to its
 * PowerDNS or gdnsd: lab_authority_change) */
int action_lab_dns_change(struct lab *lab, int n, const struct zone_change *c,
			  struct zone_change_reply *r, char *said, size_t len)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(ZONE_CHANGE_PORT)};
	char line[ZONE_CHANGE_LINE_MAX + 2], reply[ZONE_CHANGE_LINE_MAX + 2];
	int64_t deadline = now_mono_ns() + (int64_t)ACTION_DNS_WAIT_MS * 1000000;
	int fd, k;

	/* PowerDNS, gdnsd: their zone files and their own reload */
	if (lab->t->nodes[n].dns_impl != TOPO_DNS_AUTHD)
		return lab_authority_change(lab, n, c, r, said, len);
	if ((k = zone_change_format(c, line, sizeof(line))) == -1) {
		strfmt(said, len, "the change of %s does not fit a CHANGE line", c->id);
		return -1;
	}
	to.sin_addr = lab->t->links[lab->t->nodes[n].link].node_addr;
	if ((fd = action_dns_socket(lab, n, said, len)) == -1)
		return -1;
	if (sendto(fd, line, (size_t)k, 0, (struct sockaddr *)&to, sizeof(to)) != k) {
		strfmt(said, len, "sending the change to authd of %s: %s", lab->t->nodes[n].name,
		       strerror(errno));
		close(fd);
		return -1;
	}
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - now_mono_ns();
		ssize_t got;

		if (left <= 0 || poll(&pfd, 1, (int)(left / 1000000) + 1) == 0) {
			strfmt(said, len, "authd of %s did not answer change %s within %d ms",
			       lab->t->nodes[n].name, c->id, ACTION_DNS_WAIT_MS);
			close(fd);
			return -1;
		}
		got = recv(fd, reply, sizeof(reply) - 1, 0);
		if (got < 0 && errno == EINTR)
			continue;
		/* a stray datagram is not the answer: wait on */
		if (got > 0 && zone_change_reply_parse(reply, (size_t)got, r) == 0 &&
		    (r->id[0] == '\0' || strcmp(r->id, c->id) == 0))
			break;
	}
	close(fd);
	return 0;
}
