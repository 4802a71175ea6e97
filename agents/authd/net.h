/*
 * authd's sockets: everything that touches the kernel (docs/authd.md).
 *
 * For each listen address, one UDP and one TCP socket. UDP queries are read
 * and answered 64 at a time (lib/udpbatch.h), each answer sent from the
 * address its query was sent to (IP_PKTINFO / IPV6_PKTINFO), so a server
 * bound to 0.0.0.0 answers from the right address. TCP messages are
 * length-prefixed (RFC 1035 4.2.2, RFC 7766): several queries per
 * connection, answered in order; a connection idle for tcp_idle is closed,
 * and beyond tcp_max connections a new one is closed at once. The control
 * socket receives the probers' health reports and the lab's zone changes
 * and hands each line to a callback; a change's answer leaves from it. Responses come from
 * authd_respond() (respond.h).
 */
#ifndef STEERLAB_AUTHD_NET_H
#define STEERLAB_AUTHD_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "db.h"
#include "loop.h"
#include "respond.h"

struct authd_net_counts {
	uint64_t udp_queries, udp_responses, udp_send_errors, udp_oversize;
	uint64_t tcp_accepted, tcp_rejected, tcp_idle_closed, tcp_queries, tcp_responses;
	uint64_t control_datagrams;
};

/* authd_report_cb: one line from the control socket, without its '\n'. */
typedef void (*authd_report_cb)(void *arg, const char *line, size_t len,
				const struct sockaddr_storage *from);

struct authd_net;

/* authd_net_open: binds every listen address and the control socket and
 * adds them to loop. NULL (logged) on failure. */
struct authd_net *authd_net_open(struct loop *loop, const struct authd_server_conf *sv,
				 struct authd_respond_ctx *rc, authd_report_cb cb, void *arg);

/* authd_net_close: closes every socket and connection. */
void authd_net_close(struct authd_net *n);

const struct authd_net_counts *authd_net_counts(struct authd_net *n);

/* authd_net_control_reply: buf sent from the control socket to `to` (the
 * answer to a zone change). 0, or -1 with errno. */
int authd_net_control_reply(struct authd_net *n, const struct sockaddr_storage *to, const char *buf,
			    size_t len);

#endif
