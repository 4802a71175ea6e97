/*
 * The client's DNS steering: it asks its resolver for the service name,
 * sends its requests to the answer, and asks again when the answer's TTL
 * runs out. A sticky client keeps each address for a set time whatever the
 * TTL, as real applications and devices do.
 *
 * While a re-query is outstanding, requests keep going to the address the
 * client has (the application's cache still holds it); the new address is
 * used from the moment its answer arrives. A TTL below CLIENT_DNS_MIN_TTL_NS
 * is raised to it, so a TTL of 0 does not become a query per request.
 *
 * An answer may hold several addresses (authd's multivalue policy, a
 * resolver's RRset): the client keeps up to CLIENT_DNS_ADDRS_MAX of them in
 * the order it will use them (enum client_pick, client_dns_order, and
 * client_dns_order6 for an AAAA answer) and sends to the first; a TCP
 * client that tries the next address on failure walks the rest (tcp.h).
 * A dual-stack client has two of these, the AAAA's and the A's, each
 * ordered apart.
 *
 * The packet work (client_dns_build_query, client_dns_parse_answer) and the
 * ordering are pure, through libknot, and unit-tested; client_dns_* with a
 * socket are the I/O.
 */
#ifndef STEERLAB_CLIENT_DNS_H
#define STEERLAB_CLIENT_DNS_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define CLIENT_DNS_MIN_TTL_NS (100 * 1000000LL)
#define CLIENT_DNS_RETRY_NS (1000 * 1000000LL)
#define CLIENT_DNS_NAME_MAX 255
#define CLIENT_DNS_EDNS_PAYLOAD 1232
#define CLIENT_DNS_RCODE_NOERROR 0
#define CLIENT_DNS_RCODE_SERVFAIL 2
#define CLIENT_DNS_ADDRS_MAX 8

/* what a client does with an answer of several addresses (docs/agents.md,
 * client, "Several addresses"), the libraries' choices seed 004 lists */
enum client_pick {
	CLIENT_PICK_FIRST,  /* the first, in the answer's order */
	CLIENT_PICK_RANDOM, /* one at random, drawn again at each answer */
	CLIENT_PICK_SORTED, /* RFC 6724 rule 9: the longest prefix shared with
			     * the client's own address first (IPv6: up to
			     * its /64), ties in the answer's order */
	CLIENT_PICK_NEXT,   /* the first, and over TCP the next one when a
			     * connection to it fails (try-next) */
};

/* client_pick_parse: "first", "random", "sorted" or "next" into *pick.
 * 0, or -1 for another word. */
int client_pick_parse(const char *s, enum client_pick *pick);

/* client_pick_name: the word of pick */
const char *client_pick_name(enum client_pick pick);

/* what a response to the client's query said */
struct client_dns_response {
	uint16_t qtype;				    /* its question's: A or AAAA */
	int rcode;				    /* the header's RCODE */
	int stale;				    /* EDE 3 (Stale Answer, RFC 8914) in its OPT */
	struct in_addr addr;			    /* the first A record, when there is one */
	struct in_addr addrs[CLIENT_DNS_ADDRS_MAX]; /* every A record, in order */
	unsigned naddrs;			    /* >= 1 when addr is */
	/* an AAAA question's: the first AAAA record, and every one */
	struct in6_addr addr6;
	struct in6_addr addrs6[CLIENT_DNS_ADDRS_MAX];
	unsigned naddrs6;
	uint32_t ttl;
};

/* client_dns_order: the n addresses of an answer (n >= 1, at most
 * CLIENT_DNS_ADDRS_MAX) into out, in the order a client with pick uses
 * them: out[0] is where its requests go. src: the client's own address
 * (sorted); draw: a random number (random: out[0] is in[draw % n], the
 * others follow in the answer's order). */
void client_dns_order(const struct in_addr *in, unsigned n, enum client_pick pick,
		      struct in_addr src, uint32_t draw, struct in_addr *out);

/* client_dns_order6: the same for the IPv6 addresses of an AAAA answer;
 * sorted compares the prefix shared with src up to its /64 (RFC 6724's
 * CommonPrefixLen stops at the source's prefix: the lab's are /64s) */
void client_dns_order6(const struct in6_addr *in, unsigned n, enum client_pick pick,
		       const struct in6_addr *src, uint32_t draw, struct in6_addr *out);

struct client_dns {
	struct sockaddr_storage resolver; /* IPv4, or IPv6 (a dual lab's resolver) */
	socklen_t resolver_len;
	char name[CLIENT_DNS_NAME_MAX + 1];
	uint8_t qname[CLIENT_DNS_NAME_MAX + 1]; /* wire form */
	int64_t sticky_ns; /* > 0: keep each address this long, whatever the TTL */
	int fd;		   /* UDP socket to the resolver */
	uint16_t qid;	   /* id of the outstanding query */
	int pending;	   /* a query is outstanding */
	int64_t sent_ns;   /* CLOCK_MONOTONIC when it left */
	enum client_pick pick;
	uint16_t qtype;	       /* A, or AAAA (client_dns_init_family AF_INET6) */
	struct in6_addr addr6; /* AAAA: the address requests go to: addrs6[0] */
	struct in6_addr addrs6[CLIENT_DNS_ADDRS_MAX]; /* AAAA: the answer's, in pick's order */
	struct in_addr src;   /* the client's own address, for sorted (0: not known yet) */
	struct in6_addr src6; /* AAAA: the same (::, not known yet) */
	int have;	      /* addr (AAAA: addr6) is known */
	struct in_addr addr;  /* the address requests go to: addrs[0] */
	struct in_addr addrs[CLIENT_DNS_ADDRS_MAX]; /* the answer's, in pick's order */
	unsigned naddrs;			    /* in addrs, or for an AAAA in addrs6 */
	uint32_t ttl;				    /* TTL of the last answer, seconds */
	int64_t refresh_ns;			    /* CLOCK_MONOTONIC when to ask again */
	uint64_t queries, answers, failures, changes;
	int responded;			 /* the pending query had a response without an address */
	struct client_dns_response last; /* the last response to a query */
	int64_t last_latency_ns;	 /* from its query */
};

/* client_dns_open: name (at most CLIENT_DNS_NAME_MAX) copied to
 * namebuf[CLIENT_DNS_NAME_MAX + 1], its wire form in lower case to
 * qname[CLIENT_DNS_NAME_MAX + 1], and a non-blocking UDP socket to ask for
 * it: the socket, or -1 (logged). client_dns_init's and popdns_open's. */
int client_dns_open(const char *name, char *namebuf, uint8_t *qname);
/* client_dns_open_family: the same with a socket of family (AF_INET6: a
 * resolver asked over IPv6) */
int client_dns_open_family(const char *name, char *namebuf, uint8_t *qname, int family);

/* client_dns_build_query: an A query for qname (wire form) with id into
 * buf. Returns its length, or -1. */
int client_dns_build_query(const uint8_t *qname, uint16_t id, uint8_t *buf, size_t len);

/* client_dns_build_query_type: the same for a question of qtype (A or
 * AAAA) */
int client_dns_build_query_type(const uint8_t *qname, uint16_t qtype, uint16_t id, uint8_t *buf,
				size_t len);

/* client_dns_parse_answer: the first A record of a response to query id
 * for qname (following CNAMEs in the answer section), and the smallest TTL
 * on the way. 0, or -1 if the packet is not that response, is an error
 * (rcode != NOERROR) or has no A record. */
int client_dns_parse_answer(const uint8_t *buf, size_t len, uint16_t id, const uint8_t *qname,
			    struct in_addr *addr, uint32_t *ttl);

/* client_dns_parse_response: what a response to query id for qname says,
 * into *r: 0 an address of the question's type (r->addr or r->addr6, r->ttl), 1 a response without
 * one (r->rcode: SERVFAIL, NXDOMAIN; or NOERROR with no A record), -1 not a response to that query.
 * r->stale either way. */
int client_dns_parse_response(const uint8_t *buf, size_t len, uint16_t id, const uint8_t *qname,
			      struct client_dns_response *r);

/* client_dns_init: parse the name, open the socket; pick says what to do
 * with several addresses. 0 or -1 (logged). */
int client_dns_init(struct client_dns *d, const struct sockaddr_in *resolver, const char *name,
		    int64_t sticky_ns, enum client_pick pick);

/* client_dns_init_family: the same for the addresses of family
 * (AF_INET: A records, AF_INET6: AAAA records into addrs6 and addr6), of a
 * resolver of either family (len bytes: a sockaddr_in or a sockaddr_in6) */
int client_dns_init_family(struct client_dns *d, const struct sockaddr *resolver, socklen_t len,
			   const char *name, int64_t sticky_ns, enum client_pick pick, int family);

/* client_dns_resolver_text: the resolver's address (INET6_ADDRSTRLEN
 * bytes are enough); returns buf */
const char *client_dns_resolver_text(const struct client_dns *d, char *buf, size_t len);

/* client_dns_query: send a query now. 0 or -1. */
int client_dns_query(struct client_dns *d, int64_t now);

/* client_dns_receive: read one datagram from fd; if it answers the
 * outstanding query, take the address and set refresh_ns. Returns 1 if the
 * address was taken, 2 if it was a response without an address (the query
 * stays pending, to be asked again), 0 if the datagram was not a response
 * to the query, -1 on error. d->last and d->last_latency_ns: the response
 * of a 1 or 2. */
int client_dns_receive(struct client_dns *d, int64_t now);

/* client_dns_next_ns: when the client must act next: the refresh time, or
 * the retry time of an unanswered query. */
int64_t client_dns_next_ns(const struct client_dns *d);

void client_dns_close(struct client_dns *d);

#endif
