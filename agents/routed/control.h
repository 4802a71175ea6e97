/*
 * routed's control channel: one datagram in, routes and events out.
 *
 * A datagram is parsed (lib/announce.h), checked against the allow-lists
 * (acl.h: a sender or prefix the lab did not entitle is dropped, counted
 * and reported through lib/ctlreject.h), then applied to the table and the
 * kernel (rib.h) through the kernel interface the caller gives, which the
 * unit tests fake. routed_control_expire() is the hold timer's check, run
 * by the caller's timer.
 */
#ifndef STEERLAB_ROUTED_CONTROL_H
#define STEERLAB_ROUTED_CONTROL_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "acl.h"
#include "ctlreject.h"
#include "event.h"
#include "rib.h"

struct routed {
	struct event_log *ev;
	struct rib_kernel kernel;
	struct rib rib;
	struct routed_acl acl;
	struct ctl_reject rejects;
	int64_t hold_ns; /* 0: routes never expire */
	unsigned long long messages, bad, applied, withdrawn, errors, rejected, expired;
};

/* routed_control_init: an empty table; kernel and ev are the caller's
 * (ev may be NULL), loop times the deferred control_rejected events (may
 * be NULL). The allow-lists are filled by the caller, in rd->acl. */
void routed_control_init(struct routed *rd, const struct rib_kernel *kernel, struct event_log *ev,
			 struct loop *loop);

/* routed_control_handle: one datagram of len bytes from `from` (a
 * sockaddr_in or sockaddr_in6; an IPv4-mapped one is IPv4's), at now_ns
 * (CLOCK_MONOTONIC). Malformed ones count in bad, refused ones in
 * rejected; the others count in messages. */
void routed_control_handle(struct routed *rd, const char *buf, size_t len,
			   const struct sockaddr *from, int64_t now_ns);

/* routed_control_expire: deletes the routes of sites silent for more than
 * rd->hold_ns at now_ns (CLOCK_MONOTONIC), each with a route_expired event
 * (a route_error if the kernel refused). */
void routed_control_expire(struct routed *rd, int64_t now_ns);

/* routed_control_close: reports the pending rejections. */
void routed_control_close(struct routed *rd);

#endif
