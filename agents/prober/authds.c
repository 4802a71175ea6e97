/* Health reports to authd; see authds.h. */
#include "authds.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "log.h"

int prober_authds_add(struct prober_authds *a, const struct sockaddr_storage *ss)
{
	if (a->n == PROBER_MAX_AUTHDS)
		return -1;
	a->addr[a->n] = *ss;
	addr_sockaddr_str(ss, a->name[a->n], sizeof(a->name[a->n]));
	a->n++;
	return 0;
}

int prober_authds_open(struct prober_authds *a)
{
	for (int i = 0; i < a->n; i++) {
		int *fd = a->addr[i].ss_family == AF_INET6 ? &a->fd6 : &a->fd;

		if (*fd != -1)
			continue;
		*fd = socket(a->addr[i].ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (*fd == -1) {
			log_warn("%s: socket", __func__);
			return -1;
		}
	}
	return 0;
}

int prober_authds_send(struct prober_authds *a, int i, const char *line, size_t len)
{
	const struct sockaddr *sa = (const struct sockaddr *)&a->addr[i];

	if (sendto(sa->sa_family == AF_INET6 ? a->fd6 : a->fd, line, len, 0, sa, addr_sa_len(sa)) !=
	    (ssize_t)len) {
		if (a->errors[i]++ == 0)
			log_warn("%s: send to authd %s", __func__, a->name[i]);
		else
			log_debug("send to authd %s: %s", a->name[i], strerror(errno));
		return -1;
	}
	if (a->errors[i]) {
		log_info("authd %s reachable again after %lu send errors", a->name[i],
			 a->errors[i]);
		a->errors[i] = 0;
	}
	return 0;
}

void prober_authds_close(struct prober_authds *a)
{
	if (a->fd != -1)
		close(a->fd);
	if (a->fd6 != -1)
		close(a->fd6);
	a->fd = a->fd6 = -1;
}
