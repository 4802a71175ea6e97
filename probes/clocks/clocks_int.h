/*
 * Inside the clocks module: the readers clocks_load() runs and their small
 * helpers. Not for other modules; clocks.h is the interface.
 */
#ifndef STEERLAB_CLOCKS_INT_H
#define STEERLAB_CLOCKS_INT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "clocks.h"
#include "ipframe.h"

/* clocks_grow: make room for one more element in *arr (n used of *cap,
 * elements of size bytes). 0, or -1 when out of memory. */
int clocks_grow(void **arr, size_t *cap, size_t n, size_t size);
/* clocks_reserve: room for want elements of size bytes in *arr (of *cap),
 * allocated at once and in huge pages where the kernel has them
 * (transparent huge pages, "madvise"), for an array of millions whose
 * count a file's size bounds (a capture's packets, the clients' records):
 * it then grows by no copy, and its pages fault 2 MiB at a time instead of
 * 4 KiB (on this VM a fault costs more than zeroing its page). A hint:
 * nothing if *cap is enough or the memory is not there; clocks_grow grows
 * the array past it as before. */
void clocks_reserve(void **arr, size_t *cap, size_t want, size_t size);

/* clocks_list_dir: the sorted names in dir that start with prefix and end
 * with suffix (and have something between). *names is a malloc'd array of
 * malloc'd strings, freed with clocks_free_names. 0, or -1 with err set. */
int clocks_list_dir(const char *dir, const char *prefix, const char *suffix, char ***names,
		    size_t *n, char *err, size_t errlen);
void clocks_free_names(char **names, size_t n);

/* clocks_read_line: the next line of fp into *line (getline's buffer),
 * without its end of line. Returns its length, or -1 at the end of the file
 * or on a read error (ferror tells). *complete is 0 if the line had no '\n':
 * the last line of a file whose writer was killed mid-line. */
ssize_t clocks_read_line(FILE *fp, char **line, size_t *cap, int *complete);

/* The readers: each fills its part of *in; 0, or -1 with "FILE:LINE: why"
 * in err. */
int clocks_read_events(const char *rundir, struct clocks_input *in, char *err, size_t errlen);
int clocks_read_requests(const char *rundir, struct clocks_input *in, char *err, size_t errlen);
int clocks_read_captures(const char *rundir, struct clocks_input *in, char *err, size_t errlen);

/* clocks_has_addr: a is one of list[0..n) (clocks_dns.c) */
int clocks_has_addr(const struct in_addr *list, int n, struct in_addr a);

/* clocks_authority_events: for each [dns] node of impl = pdns, its checks of
 * the sites (on the sites' captures) as health changes and its responses
 * (on its own capture) as answer changes, into in->health and in->answers
 * (clocks_authority.c). 0, or -1 out of memory. */
int clocks_authority_events(struct clocks_input *in);
/* clocks_read_dns_topology: in->dnstopo from rundir/topology.ini (nothing
 * if it cannot be read: the resolver measurements then have no nodes) */
void clocks_read_dns_topology(const char *rundir, struct clocks_input *in);

/* One file of each, already open (the fuzz targets read from memory): fp
 * read as path. clocks_read_events_stream reads it as the events file of
 * agent on node: "steerlab" (lab.events.jsonl), "prober", "collector...",
 * "authd", "routed", "client..."; any other is skipped. 0, or -1 with
 * "PATH:LINE: why" in err. */
int clocks_read_events_stream(FILE *fp, const char *path, const char *node, const char *agent,
			      struct clocks_input *in, char *err, size_t errlen);
int clocks_read_requests_stream(FILE *fp, const char *path, struct clocks_input *in, char *err,
				size_t errlen);
/* the binary records (lib/recbin.h, clocks_bin.c), a stream or a file */
int clocks_read_requests_bin_stream(FILE *fp, const char *path, struct clocks_input *in, char *err,
				    size_t errlen);
int clocks_read_requests_bin(const char *path, struct clocks_input *in, char *err, size_t errlen);

/* clocks_decode_request: if the frame (link type dlt, caplen bytes) is an
 * IPv4 or IPv6 UDP datagram to port whose payload is a wire request, or a
 * TCP segment to port whose payload starts with one or with an HTTP request
 * line of lib/httpwire.h, fill *msg and *dst (its IPv4 destination
 * address, 0.0.0.0 for IPv6; dst may be NULL) and return 0; otherwise -1.
 * Checks every length. */
int clocks_decode_request(int dlt, const uint8_t *frame, size_t caplen, uint16_t port,
			  struct wire_msg *msg, struct in_addr *dst);

/* The DNS and TCP decoders below take IPv4 frames, and IPv6 ones whose
 * addresses have IPv4 twins in in (lab_up's twins: clocks_twin_of), which
 * they fill in instead; in may be NULL (IPv4 alone). */

/* clocks_decode_tcpseg: if the frame is a TCP segment from or to port with
 * SYN, FIN or RST set, fill *seg (but t_ns) and return 0; otherwise -1 */
int clocks_decode_tcpseg(const struct clocks_input *in, int dlt, const uint8_t *frame,
			 size_t caplen, uint16_t port, struct clocks_tcpseg *seg);

/* clocks_decode_query: if the frame is a UDP datagram to port 53 holding
 * at least a DNS header with QR = 0 (a query), fill *src (its source
 * address) and return 0; otherwise -1. */
int clocks_decode_query(const struct clocks_input *in, int dlt, const uint8_t *frame, size_t caplen,
			struct in_addr *src);

/* clocks_decode_query_name: clocks_decode_query, and the captured bytes
 * from its question's name on in *qname and *qlen (the name is not
 * checked: knot_dname_wire_check before reading it) */
int clocks_decode_query_name(const struct clocks_input *in, int dlt, const uint8_t *frame,
			     size_t caplen, struct in_addr *src, const uint8_t **qname,
			     size_t *qlen);

/* clocks_twin_of: the IPv4 twin of a dual lab's IPv6 address v6 (lab_up's
 * twins) into *v4: 0, or -1 if it has none */
int clocks_twin_of(const struct clocks_input *in, const struct in6_addr *v6, struct in_addr *v4);

/* clocks_request_of: clocks_decode_request for the capture reader, which
 * wants only the client id, sequence number and destination of each of
 * millions of requests: the same test (the unit tests compare the two), no
 * struct wire_msg filled; the datagram or segment (family, addresses) into
 * *u if not NULL. 0, or -1 if the frame is not a request. */
int clocks_request_of(int dlt, const uint8_t *frame, size_t caplen, uint16_t port, uint32_t *client,
		      uint64_t *seq, struct ipframe *u);

/* clocks_decode_dnsmsg: if the frame is a UDP datagram from or to port 53
 * holding at least a DNS header, fill *m (but t_ns) and return 0;
 * otherwise -1 (clocks_decode.c) */
int clocks_decode_dnsmsg(const struct clocks_input *in, int dlt, const uint8_t *frame,
			 size_t caplen, struct clocks_dnsmsg *m);

/* clocks_decode_response: if the frame is a UDP DNS response from port
 * 53, its source, its question's name (wire form, in the frame) and the A
 * records of its answer section, and the AAAA ones' IPv4 twins, into r
 * (naddr, addr; the rest untouched). 0, or -1 if it is not one. */
int clocks_decode_response(const struct clocks_input *in, int dlt, const uint8_t *frame,
			   size_t caplen, struct clocks_response *r, const uint8_t **qname,
			   size_t *qlen);

/* clocks_packet_fn: one packet of a capture, at t_ns, caplen bytes of
 * data of link type dlt: keep it (0), skip it (1), or fail (-1: out of
 * memory). */
typedef int (*clocks_packet_fn)(struct clocks_input *in, void *capture, int dlt, int64_t t_ns,
				const u_char *data, size_t caplen);

/* where a file's reader counts its records and marks it cut short: the
 * capture's own fields, whichever kind of capture it is */
struct clocks_file_marks {
	size_t *records;
	int *truncated;
	/* subtracted from every packet's time: the offset of the capturing
	 * node's host (clocks_hosts.h), 0 on one host */
	int64_t offset_ns;
};

/* clocks_read_pcap: every packet of the capture at path given to fn with
 * capture, as clocks_pcap_via says, counted in mk. A damaged file is read up
 * to the damage with an invalidating note (capture_truncated) in
 * in->notes, "PATH: after packet N: what; read up to there", and marked.
 * 0, or -1 with what is wrong in err (not a capture, a link type the
 * clocks do not read, fn failed). */
int clocks_read_pcap(const char *path, struct clocks_input *in, clocks_packet_fn fn, void *capture,
		     const struct clocks_file_marks *mk, char *err, size_t errlen);

/* clocks_pcap_via: how clocks_pcap.c reads a classic pcap of a link type
 * the decoders know: itself (the default), or through libpcap's
 * pcap_next_ex, as every other file is. For the tests, which check that the
 * two agree. */
enum clocks_pcap_via {
	CLOCKS_PCAP_VIA_OWN,
	CLOCKS_PCAP_VIA_LIBPCAP,
};
extern enum clocks_pcap_via clocks_pcap_via;

/*
 * What the schemes compute the same way (clocks_scheme.c), told by a
 * struct clocks_flows which requests are the scheme's: those of its client
 * ids (clocks_scheme_of), and of them those is_flow accepts (NULL: all);
 * of those, the ones in the failed site's capture that to_dead accepts
 * (NULL: all) are the requests to the dead site.
 */
struct clocks_flows {
	enum clocks_scheme scheme;
	const char *name; /* "anycast", "dns": the result's scheme */
	const char *what; /* "anycast flows (client ids 1-99999)", for notes */
	int (*is_flow)(const struct clocks_input *in, const struct clocks_packet *p);
	int (*to_dead)(const struct clocks_input *in, const struct clocks_packet *p);
};

/* the two schemes' flows (clocks_anycast.c, clocks_dns.c), for the
 * analyses that go over every request again (clocks_decay.c) */
extern const struct clocks_flows clocks_anycast_flows;
extern const struct clocks_flows clocks_dns_flows;

/* clocks_route_left_at: the first FIB change at or after t0 that took a
 * route of the failed site's prefix via its link address out (deleted, or
 * replaced by one not via it: fib's left_at_ns; fib may be NULL), the
 * anycast scheme's steer (clocks_anycast.c); CLOCKS_NONE if none */
struct clocks_fib;
int64_t clocks_route_left_at(const struct clocks_input *in, const struct clocks_fib *fib);

/* clocks_out_at: whether the timeline had site out at t (a failure of it
 * at or before t, not yet recovered; clocks_dns.c) */
int clocks_out_at(const struct clocks_input *in, const char *site, int64_t t);

/* clocks_is_flow: is captured request p one of the scheme's? (This and
 * clocks_is_dead are inline: they are asked of every captured request.) */
static inline int clocks_is_flow(const struct clocks_input *in, const struct clocks_flows *fl,
				 const struct clocks_packet *p)
{
	return clocks_scheme_of(p->client) == fl->scheme &&
	       (fl->is_flow == NULL || fl->is_flow(in, p));
}

/* clocks_is_dead: is packet k of c, the failed site's link's capture, one
 * of the scheme's requests to the dead site after t0 (and before the
 * timeline brought it back), of the family the failure took out (a
 * failure of one family, docs/clocks.md, "IPv6": its family's alone)? */
static inline int clocks_is_dead(const struct clocks_input *in, const struct clocks_flows *fl,
				 const struct clocks_capture *c, size_t k)
{
	const struct clocks_packet *p = &c->packets[k];

	return p->t_ns > in->failure.t0_ns &&
	       (in->failure.recovered_ns == 0 || p->t_ns < in->failure.recovered_ns) &&
	       clocks_is_flow(in, fl, p) && (fl->to_dead == NULL || fl->to_dead(in, p)) &&
	       (in->failure.family == 0 || clocks_packet_family(c, k) == in->failure.family);
}

/* clocks_clients: the sorted distinct ids of the scheme's clients (from
 * its records and its captured requests) into *ids (malloc'd), their number into
 * *n. 0, or -1 (out of memory). */
int clocks_clients(const struct clocks_input *in, const struct clocks_flows *fl, uint32_t **ids,
		   size_t *n);

/* clocks_failback: the fail-back clocks of r (clocks_failback.c), when
 * the timeline recovered the failed site; r->has_failback says. */
void clocks_failback(const struct clocks_input *in, const struct clocks_flows *fl,
		     struct clocks_result *r);

/* clocks_scheme_init: *r with every clock missing; r->noflows set, with a
 * note, when the clients' records are there and neither they nor the
 * captures hold a request of the scheme. */
void clocks_scheme_init(const struct clocks_input *in, const struct clocks_flows *fl,
			struct clocks_result *r);

/* clocks_scheme_measure: what the records and the captures say: sent, ok,
 * lost_client, errors, replies; window, lost_capture, last_packet,
 * last_per_client, after_t0; capture_drops. */
void clocks_scheme_measure(const struct clocks_input *in, const struct clocks_flows *fl,
			   struct clocks_result *r);

/* clocks_gray: whether failure f leaves the site answering: a gray
 * failure (how impair), or one of an address family alone (f->family) */
int clocks_gray(const struct clocks_failure *f);

/* clocks_gray_undetected: detect never came for such a failure:
 * r->undetected, and gray_undetected, which says so plainly (not a
 * clock_missing: that is the finding, not a gap in the records) */
void clocks_gray_undetected(struct clocks_result *r, const struct clocks_failure *f);

/* clocks_missing: a warning, "SCHEME: ...", that a clock is missing; none
 * for a scheme without flows, whose column is empty anyway. */
void clocks_missing(struct clocks_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* clocks_fib_via_site: the site a route via next hop via led to at at_ns:
 * via's node if a site, else that router's route used then, followed
 * (clocks_fib.c); "" if it cannot be told */
void clocks_fib_via_site(const struct clocks_input *in, struct in_addr via, int64_t at_ns,
			 char *site);

/* clocks_fib_left: every route of the service prefix that left a router's
 * FIB while the run was measured (before lab_stopping), in each router's
 * order: deleted, or replaced (same metric) by one of other next hops, as
 * a routing daemon moves a path. fn gets the route as it was, as a
 * route_deleted at the time it left (a deletion of a route never seen
 * come, as the event says), and the route that replaced it (NULL: it was
 * deleted) (clocks_fib.c) */
typedef void (*clocks_left_fn)(const struct clocks_input *in, const struct clocks_route *left,
			       const struct clocks_route *by, void *arg);
void clocks_fib_left(const struct clocks_input *in, clocks_left_fn fn, void *arg);

/* clocks_fib_site_at: the site router's route used at at_ns (its events
 * before it) leads to, followed through routers; "" if none or unknown
 * (clocks_fib.c) */
void clocks_fib_site_at(const struct clocks_input *in, const char *router, int64_t at_ns,
			char *site);

/* clocks_fib_changes: how many of router's route events of the service
 * prefix at or after from_ns changed its FIB (as the FIB clocks count
 * them), the times of the first max in t (clocks_fib.c) */
int64_t clocks_fib_changes(const struct clocks_input *in, const char *router, int64_t from_ns,
			   int64_t *t, int max);

/* clocks.json's schemes.anycast.fib and .catchments (clocks_fib_json.c) */
struct json_t;
struct json_t *clocks_json_fib(const struct clocks_input *in, const struct clocks_fib *fib);
struct json_t *clocks_json_catchments(const struct clocks_catchments *cs);
/* clocks_json_catch_pops: the populations' catchments, by base id */
struct json_t *clocks_json_catch_pops(const struct clocks_catchments *cs);
/* clocks.json's timeline, flaps and dns_outages (clocks_flap.c, clocks_outage.c) */
struct json_t *clocks_json_timeline(const struct clocks_input *in);
struct json_t *clocks_json_flaps(const struct clocks_input *in, const struct clocks_flaps *fl);
struct json_t *clocks_json_outages(const struct clocks_input *in, const struct clocks_outages *o);

/* clocks.json's failures: every failure after the first (clocks_multi.c) */
struct json_t *clocks_json_failures(const struct clocks_input *in);
/* clocks_multi_print_all: the table of every failure, when there are
 * several (clocks_multi.c) */
void clocks_multi_print_all(FILE *out, const struct clocks_input *in);
/* clocks_multi_verdict_hosts: a lab over several hosts: the clocks of every
 * failure after the first whose uncertainty is too large a share of them
 * (clock_sync_uncertain, clocks_hosts.h) */
void clocks_multi_verdict_hosts(const struct clocks_input *in, struct clocks_notes *v);

/* clocks_failures_find: in->failures from the site_failed events read (in
 * file order) and the timeline's steps, each with its recovery; in->failure
 * stays the first. 0, or -1 with the reason in err (clocks_multi.c). */
int clocks_failures_find(struct clocks_input *in, char *err, size_t errlen);

/* clocks_multi_lost_capture: with several failures and nothing else that
 * loses requests off the sites' links (no link cut, flap, drain, or step on
 * a site that is no failure), the requests of scheme every failure's
 * capture counted (lost_capture), "SITE N, ..." in sites (len bytes); else
 * CLOCKS_NONE (clocks_multi.c) */
int64_t clocks_multi_lost_capture(const struct clocks_input *in, const char *scheme, char *sites,
				  size_t len);

/* which [resolver] node each DNS client asks (clocks_resolvers.c): built
 * once from the clients' events and the topology (clocks_rsv_of_client),
 * then asked of every captured request */
struct clocks_rsv_map_entry {
	uint32_t agent; /* a client_started id: a population's base */
	int rsv;
};
struct clocks_rsv_map {
	size_t n;
	struct clocks_rsv_map_entry *e;
};
/* clocks_rsv_map: 0, or -1 (out of memory); free with clocks_rsv_map_free */
int clocks_rsv_map(const struct clocks_input *in, struct clocks_rsv_map *m);
/* clocks_rsv_map_of: the node (index) client asks, -1 if none */
int clocks_rsv_map_of(const struct clocks_rsv_map *m, uint32_t client);
void clocks_rsv_map_free(struct clocks_rsv_map *m);

/* clocks.json's resolvers (clocks_resolvers_json.c); NULL when the run has
 * no [resolver] node */
struct json_t *clocks_json_resolvers(const struct clocks_input *in);

/* clocks_rank: nearest-rank percentile p (0 < p <= 100) of sorted v[n > 0]. */
int64_t clocks_rank(const int64_t *v, size_t n, int p);

/* clocks_explain_count: the cause of p, a request to the dead site after
 * t0, counted in xs (its entry's requests, first and last); the cause, for
 * the decay's curve by cause. clocks_explain_finish: the window of each
 * scheme held, the scheme that left first, the words (clocks_explain.c, clocks_explain_words.c) */
enum clocks_cause clocks_explain_count(struct clocks_explain_scheme *xs,
				       const struct clocks_packet *p, int64_t t0);
void clocks_explain_finish(const struct clocks_input *in, const struct clocks_result *res, int nres,
			   const struct clocks_decay *d, struct clocks_explain *ex);

/* clocks_fib_left_site: when router's route used (followed through
 * routers) stopped leading to the failed site in [from, until): the first
 * route event of any router after which it led elsewhere. CLOCKS_NONE if
 * it did not lead there at from; INT64_MAX if it still did at until
 * (clocks_fib.c) */
int64_t clocks_fib_left_site(const struct clocks_input *in, const char *router, int64_t from,
			     int64_t until);

/* clocks_catch_windows: the catchments' episodes from fib into cs
 * (episodes, known, during_known), and their windows: during is a request
 * sent in (*during_from, *during_until), after one sent after *after_from
 * (clocks_catch.c) */
void clocks_catch_windows(const struct clocks_fib *fib, struct clocks_catchments *cs,
			  int64_t *during_from, int64_t *during_until, int64_t *after_from);

/* clocks_catch_pops: the populations' catchments into cs->pops (cs->known
 * set), after the FIB's last change (fib); clocks_catch_pop.c */
void clocks_catch_pops(const struct clocks_input *in, const struct clocks_fib *fib,
		       struct clocks_catchments *cs);

/* clocks_per_s: r's upstream queries per second of traffic, or a negative
 * number if unknown; clocks.json's and the table's (clocks_write.c) */
double clocks_per_s(const struct clocks_result *r);

/* clocks_model_iv_copy: a model interval (probes/model) into the clocks'
 * own (clocks_model.c; the failover's and the steering's models) */
struct clocks_model_iv;
struct model_iv;
void clocks_model_iv_copy(struct clocks_model_iv *d, const struct model_iv *v);

#endif
