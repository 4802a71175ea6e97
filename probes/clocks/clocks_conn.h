/*
 * The connection clocks (docs/clocks.md, "Connections"): what the site
 * links' captures say of the clients' TCP connections (a [client] with
 * proto = tcp) around the failure, per scheme. Only the segments that open,
 * close or reset a connection are read (SYN, FIN, RST: clocks_tcpseg), and
 * the requests a capture holds twice (a kernel's retransmission); a
 * connection is its client address and port and the address it was opened
 * to (the anycast address: the anycast scheme; a site's own: DNS), at the
 * site whose link carried it.
 *
 * RFC 7094's case is told apart exactly: a site that resets a connection
 * whose SYN its link never carried is answering a flow that began at
 * another site and that routing moved to it (anycast's catchment change);
 * the site that failed resetting, or closing, is the failure itself.
 */
#ifndef STEERLAB_CLOCKS_CONN_H
#define STEERLAB_CLOCKS_CONN_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

struct clocks_failure;
struct clocks_input;
struct clocks_tcpseg;

/* nearest-rank percentiles of n values (CLOCKS_NONE when n is 0) */
struct clocks_conn_dist {
	int64_t n, p50, p99, max;
};

/* what the failure did to each client of a scheme, from its records: the
 * clients hit (a request sent after t0 failed: lost or an error), and of
 * those, from t0 to the first failed request's send time, to the first
 * reply from a site other than the failed one, or from it once the
 * timeline recovered it (the reply's arrival), and the requests that
 * failed in between. A client never answered again is hit
 * but not in recovered_ns. */
struct clocks_conn_clients {
	int64_t clients, hit;
	struct clocks_conn_dist first_error_ns, recovered_ns, failed;
};

struct clocks_conn_scheme {
	int64_t syns;	    /* the clients' SYNs, retransmissions included */
	int64_t opened;	    /* connections asked for: distinct SYNs */
	int64_t open_at_t0; /* on the failed site at t0: opened before, not closed or reset */
	/* after t0 (until the site recovered, if it did): */
	int64_t syns_failed;  /* SYNs that reached the failed site */
	int64_t last_syn_ns;  /* the last of them, from t0 (CLOCKS_NONE: none): the TCP window */
	int64_t fins_failed;  /* FINs the failed site sent first (its process gone, the kernel
				 closing) */
	int64_t rsts_failed;  /* RSTs the failed site sent (nothing listening any more) */
	int64_t rsts_unknown; /* RSTs of another site for a connection its link never opened */
	int64_t
	    rsts_collateral; /* the connections, opened at a site that did not fail, they reset */
	int64_t rsts_other;  /* RSTs of another site for one of its own connections */
	/* request segments sent again (clocks_conn_retx): a request a site
	 * link's capture holds more than once, each copy after the first; of
	 * them, those on the failed site's link after t0 (until it recovered) */
	int64_t retransmits, retransmits_failed;
	struct clocks_conn_clients per_client;
};

struct clocks_conn {
	int present; /* a site link carried a TCP segment of the request port */
	int steady;  /* no failure: only the counts before any t0 */
	struct clocks_conn_scheme anycast, dns;
};

/* clocks_conn_attempt: whether seg is a client's connection attempt (a SYN
 * without ACK, retransmissions included) that a client node sent: a
 * prober's TCP checks are not (clocks_decay's connection curve) */
int clocks_conn_attempt(const struct clocks_input *in, const struct clocks_tcpseg *seg);

/* clocks_conn_after: whether t is in failure f's span: after its t0, and
 * before the site recovered (if it did) */
int clocks_conn_after(const struct clocks_failure *f, int64_t t);

/* clocks_conn_retx: c's retransmits and retransmits_failed per scheme,
 * from the requests of in's site link captures sent by a client over TCP
 * (client_started's proto tcp or http; probes and UDP clients are not
 * read): a request (client id, sequence) a capture holds k times is k - 1
 * segments sent again, counted at each later copy's time (the capture's
 * order). A kernel retransmission restarts at the first unacknowledged
 * byte, a request's start (each request is a write of its own), so its
 * segment decodes as that request; several requests coalesced into it
 * are one segment. Nothing is read when no client spoke TCP. 0, or -1 out
 * of memory. */
int clocks_conn_retx(const struct clocks_input *in, struct clocks_conn *c);

/* clocks_conn: c from in's captures. 0, or -1 out of memory. */
int clocks_conn(const struct clocks_input *in, struct clocks_conn *c);

/* clocks_conn_prepare: in->conn computed once for the writers (NULL when
 * no client spoke TCP; out of memory said as a "limit" note) */
void clocks_conn_prepare(struct clocks_input *in);

/* clocks_conn_print: the terminal's lines ("connections ..."), from
 * in->conn; nothing when it is NULL */
void clocks_conn_print(FILE *out, const struct clocks_input *in);

/* clocks_conn_json: clocks.json's "connections" object, NULL when in->conn
 * is */
json_t *clocks_conn_json(const struct clocks_input *in);

#endif
