/*
 * The routers a prober tells about its site: ANNOUNCE and WITHDRAW
 * datagrams (lib/announce.h) to routed on each of them. Each router sees
 * the datagram's source, the site's own link address, as the next hop.
 * Routers of either family (-R ADDR[:PORT], -R [IPV6]:PORT), a socket for
 * each family they have, as authds.c's.
 */
#ifndef STEERLAB_PROBER_ROUTERS_H
#define STEERLAB_PROBER_ROUTERS_H

#include <netinet/in.h>
#include <sys/socket.h>

#include "announce.h"

#define PROBER_MAX_ROUTERS 256 /* a lab's routers, at most 254 */

struct prober_routers {
	int fd, fd6; /* the sending sockets, IPv4's and IPv6's (-1: none) */
	int n;
	struct sockaddr_storage addr[PROBER_MAX_ROUTERS];    /* IPv4 or IPv6 */
	char name[PROBER_MAX_ROUTERS][INET6_ADDRSTRLEN + 8]; /* "ADDR:PORT", "[IPV6]:PORT" */
	unsigned long errors[PROBER_MAX_ROUTERS];	     /* consecutive send errors */
};

/* prober_routers_add: one more router. 0, or -1 if the table is full. */
int prober_routers_add(struct prober_routers *r, const struct sockaddr_storage *ss);

/* prober_routers_open: the sending sockets, one of each family the routers
 * have. 0, or -1 (logged). */
int prober_routers_open(struct prober_routers *r);

/* prober_routers_send: m to router i. 0, or -1 (logged once per run of
 * errors, then at debug level). */
int prober_routers_send(struct prober_routers *r, int i, const struct announce_msg *m);

void prober_routers_close(struct prober_routers *r);

#endif
