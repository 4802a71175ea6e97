/* Announce/withdraw datagrams to the routers; see routers.h. */
#include "routers.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "log.h"

int prober_routers_add(struct prober_routers *r, const struct sockaddr_storage *ss)
{
	if (r->n == PROBER_MAX_ROUTERS)
		return -1;
	r->addr[r->n] = *ss;
	addr_sockaddr_str(ss, r->name[r->n], sizeof(r->name[r->n]));
	r->n++;
	return 0;
}

int prober_routers_open(struct prober_routers *r)
{
	for (int i = 0; i < r->n; i++) {
		int *fd = r->addr[i].ss_family == AF_INET6 ? &r->fd6 : &r->fd;

		if (*fd != -1)
			continue;
		*fd = socket(r->addr[i].ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (*fd == -1) {
			log_warn("%s: socket", __func__);
			return -1;
		}
	}
	return 0;
}

int prober_routers_send(struct prober_routers *r, int i, const struct announce_msg *m)
{
	const struct sockaddr *sa = (const struct sockaddr *)&r->addr[i];
	char buf[ANNOUNCE_MAX];
	int n = announce_format(m, buf, sizeof(buf));

	if (n == -1) {
		log_warnx("announcement for %s does not fit in %d bytes", m->site, ANNOUNCE_MAX);
		return -1;
	}

	if (sendto(sa->sa_family == AF_INET6 ? r->fd6 : r->fd, buf, (size_t)n, 0, sa,
		   addr_sa_len(sa)) != n) {
		if (r->errors[i]++ == 0)
			log_warn("%s: send to router %s", __func__, r->name[i]);
		else
			log_debug("send to router %s: %s", r->name[i], strerror(errno));
		return -1;
	}
	if (r->errors[i]) {
		log_info("router %s reachable again after %lu send errors", r->name[i],
			 r->errors[i]);
		r->errors[i] = 0;
	}
	return 0;
}

void prober_routers_close(struct prober_routers *r)
{
	if (r->fd != -1)
		close(r->fd);
	if (r->fd6 != -1)
		close(r->fd6);
	r->fd = r->fd6 = -1;
}
