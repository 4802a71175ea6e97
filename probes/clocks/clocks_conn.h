/*
 * The connection clocks (docs/clocks.md, "Connections"): what the site
 * links' captures say of the clients' TCP connections (a [client] with
 * proto = tcp) around the failure, per scheme. Only the segments that open,
 * close or reset a connection are read (SYN, FIN, RST: clocks_tcpseg); a
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

struct clocks_input;

struct clocks_conn_scheme {
	int64_t syns;	    /* the clients' SYNs, retransmissions included */
	int64_t opened;	    /* connections asked for: distinct SYNs */
	int64_t open_at_t0; /* on the failed site at t0: opened before, not closed or reset */
	/* after t0 (until the site recovered, if it did): */
	int64_t syns_failed;  /* SYNs that reached the failed site */
	int64_t last_syn_ns;  /* the last of them, from t0 (CLOCKS_NONE: none): the TCP window */
	int64_t fins_failed;  /* FINs the failed site sent (its process gone, the kernel closing) */
	int64_t rsts_failed;  /* RSTs the failed site sent (nothing listening any more) */
	int64_t rsts_unknown; /* RSTs of another site for a connection its link never opened */
	int64_t rsts_other;   /* RSTs of another site for one of its own connections */
};

struct clocks_conn {
	int present; /* a site link carried a TCP segment of the request port */
	int steady;  /* no failure: only the counts before any t0 */
	struct clocks_conn_scheme anycast, dns;
};

/* clocks_conn: c from in's captures. 0, or -1 out of memory. */
int clocks_conn(const struct clocks_input *in, struct clocks_conn *c);

/* clocks_conn_print: the terminal's lines ("connections ..."), nothing
 * when no client spoke TCP */
void clocks_conn_print(FILE *out, const struct clocks_input *in);

/* clocks_conn_json: clocks.json's "connections" object, NULL when no client
 * spoke TCP */
json_t *clocks_conn_json(const struct clocks_input *in);

#endif
