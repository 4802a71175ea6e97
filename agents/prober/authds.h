/*
 * Health reports to authd: one UDP datagram of one text line per report,
 * to authd's control socket (agents/authd/health.h, docs/authd.md):
 *
 *   HEALTH <prober-id> <site> up|down <rtt_us>
 *
 * rtt_us is the smoothed RTT of an up site, 0 for a down one. Reports go
 * on every verdict change and again every refresh, so a restarted authd
 * relearns the state within one refresh.
 */
#ifndef STEERLAB_PROBER_AUTHDS_H
#define STEERLAB_PROBER_AUTHDS_H

#include <netinet/in.h>
#include <sys/socket.h>
#include <stddef.h>
#include <stdint.h>

#include "health_report.h"

#define PROBER_MAX_AUTHDS 16
#define PROBER_ID_LEN HEALTH_ID_LEN
#define PROBER_AUTHD_PORT HEALTH_PORT
#define PROBER_REPORT_MAX HEALTH_REPORT_MAX

struct prober_authds {
	int fd, fd6; /* the sending sockets, IPv4's and IPv6's (-1: none) */
	int n;
	struct sockaddr_storage addr[PROBER_MAX_AUTHDS];    /* IPv4 or IPv6 */
	char name[PROBER_MAX_AUTHDS][INET6_ADDRSTRLEN + 8]; /* "ADDR:PORT", "[IPV6]:PORT" */
	unsigned long errors[PROBER_MAX_AUTHDS];	    /* consecutive send errors */
};

/* prober_authds_add: one more authd. 0, or -1 if the table is full. */
int prober_authds_add(struct prober_authds *a, const struct sockaddr_storage *ss);

/* prober_authds_open: the sending sockets, one of each family the authds
 * have. 0, or -1 (logged). */
int prober_authds_open(struct prober_authds *a);

/* prober_authds_send: the line to authd i. 0, or -1 (logged once per run
 * of errors, then at debug level). */
int prober_authds_send(struct prober_authds *a, int i, const char *line, size_t len);

void prober_authds_close(struct prober_authds *a);

#endif
