/*
 * The failover clocks of a run directory (docs/clocks.md).
 *
 * The analysis runs in three stages, so that the arithmetic can be tested
 * without files and a new scheme is one more function beside the others:
 *
 *   clocks_load()      reads the run directory (clocks_events.c, clocks_csv.c,
 *                      clocks_pcap.c) into a struct clocks_input: the failure
 *                      (t0, site, via, prefix), the events that matter, the
 *                      request packets of every capture, the client records.
 *                      A malformed file is an error naming the file and line.
 *   clocks_anycast()   computes one scheme's struct clocks_result from the
 *                      input, with no I/O (clocks_anycast.c). The DNS scheme
 *                      will be clocks_dns() beside it.
 *   clocks_write_json(), clocks_print()
 *                      write clocks.json and the table (clocks_report.c).
 *
 * clocks_analyse() does all of it, for `steerlab run` and `steerlab report`.
 *
 * Every time is in ns of CLOCK_REALTIME, the base that events and pcap
 * timestamps share. A clock that did not happen (the prober never declared
 * the site dead, ...) is CLOCKS_NONE: JSON null, "-" in the table, and a
 * warning; never a made-up number.
 */
#ifndef STEERLAB_CLOCKS_H
#define STEERLAB_CLOCKS_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wire.h"

#define CLOCKS_NONE INT64_MIN
#define CLOCKS_NAME_MAX 64
#define CLOCKS_MAX_WARNINGS 32
#define CLOCKS_WARNING_LEN 256
#define CLOCKS_MAX_SITES 64

/* Notes for the reader of the results: what is missing and why. */
struct clocks_notes {
	char msg[CLOCKS_MAX_WARNINGS][CLOCKS_WARNING_LEN];
	int n;
	int lost; /* warnings past CLOCKS_MAX_WARNINGS */
};

void clocks_warn(struct clocks_notes *notes, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The injected failure: lab.events.jsonl's site_failed. */
struct clocks_failure {
	int64_t t0_ns;
	char site[CLOCKS_NAME_MAX];
	struct in_addr via;    /* the site's link address: the route's next hop */
	struct in_addr prefix; /* the service prefix */
	int prefixlen;
};

/* declared_dead, from the probers' events */
struct clocks_dead {
	int64_t t_ns;
	char site[CLOCKS_NAME_MAX];
};

/* route_deleted (deleted = 1) and route_added, from the collectors' events */
struct clocks_route {
	int64_t t_ns;
	int deleted;
	struct in_addr prefix;
	int prefixlen;
	int has_via;
	struct in_addr via;
};

/* capture_stats of one link; known = 0 when the collector had no counts */
struct clocks_link_stats {
	char label[CLOCKS_NAME_MAX];
	int known;
	int64_t packets, received, dropped, if_dropped;
};

/* one request datagram seen in a capture */
struct clocks_packet {
	int64_t t_ns;
	uint32_t client;
	uint64_t seq;
};

/* the request packets of capture-LABEL.pcap, in file order */
struct clocks_capture {
	char label[CLOCKS_NAME_MAX];
	struct clocks_packet *packets;
	size_t n, cap;
	size_t other; /* captured packets that are not requests */
};

enum clocks_status {
	CLOCKS_OK,
	CLOCKS_TIMEOUT,
	CLOCKS_ERROR,
};

/* one line of a requests-NODE.csv */
struct clocks_request {
	uint32_t client;
	uint64_t seq;
	int64_t sent_ns;
	int64_t rtt_ns;
	enum clocks_status status;
	char site[WIRE_SITE_LEN + 1];
};

struct clocks_input {
	char lab[CLOCKS_NAME_MAX];
	uint16_t port; /* the request port, for telling requests in captures */
	struct clocks_failure failure;

	struct clocks_dead *dead;
	size_t ndead, capdead;
	struct clocks_route *routes;
	size_t nroutes, caproutes;
	struct clocks_link_stats *stats;
	size_t nstats, capstats;
	struct clocks_capture *captures;
	size_t ncaptures, capcaptures;
	struct clocks_request *requests;
	size_t nrequests, caprequests;
	int have_requests; /* at least one requests-*.csv was read */

	struct clocks_notes notes; /* from loading: truncated files, ... */
};

/* A count per name (site or capture label). */
struct clocks_count {
	char name[CLOCKS_NAME_MAX];
	int64_t n;
};

/* A distribution over clients, relative to t0. */
struct clocks_dist {
	int64_t n; /* clients */
	int64_t p50_ns, p99_ns, max_ns;
};

/* One scheme's clocks. Times relative to t0 unless named _at_ns. */
struct clocks_result {
	const char *scheme; /* "anycast" */
	int64_t detect_ns, detect_at_ns;
	int64_t steer_ns, steer_at_ns;
	int64_t window_ns;
	int64_t sent, ok, lost_client, errors;	       /* CLOCKS_NONE: no CSV */
	int64_t lost_capture;			       /* CLOCKS_NONE: no capture */
	int64_t capture_drops;			       /* CLOCKS_NONE: no capture_stats */
	struct clocks_dist last_packet;		       /* per client, dead site, after t0 */
	struct clocks_count replies[CLOCKS_MAX_SITES]; /* ok records per site */
	int nreplies;
	struct clocks_count after_t0[CLOCKS_MAX_SITES]; /* requests per capture after t0 */
	int nafter_t0;
	struct clocks_notes notes;
};

/*
 * clocks_analyse: read the run directory rundir, compute the clocks, write
 * rundir/clocks.json and print a table to out. Returns 0, or -1 after
 * logging an error that names the file and what is wrong.
 */
int clocks_analyse(const char *rundir, FILE *out);

/* clocks_load: read rundir into *in (which it initialises). Returns 0, or
 * -1 with "FILE:LINE: what is wrong" in err. Free with clocks_input_free
 * either way. */
int clocks_load(const char *rundir, struct clocks_input *in, char *err, size_t errlen);
void clocks_input_free(struct clocks_input *in);

/* clocks_anycast: the anycast clocks of in; pure computation. */
void clocks_anycast(const struct clocks_input *in, struct clocks_result *r);

/* clocks_write_json: write the results (nres schemes) to path, through a
 * temporary file renamed into place. 0, or -1 with the reason in err. */
int clocks_write_json(const char *path, const struct clocks_input *in,
		      const struct clocks_result *res, int nres, char *err, size_t errlen);

/* clocks_print: the readable table, one column per scheme, then warnings. */
void clocks_print(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
		  int nres);

/* clocks_decode_request: if the frame (link type dlt, caplen bytes) is an
 * IPv4 UDP datagram to port whose payload is a wire request, fill *msg and
 * return 0; otherwise -1. Checks every length. */
int clocks_decode_request(int dlt, const uint8_t *frame, size_t caplen, uint16_t port,
			  struct wire_msg *msg);

#endif
