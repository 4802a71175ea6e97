/*
 * What the clocks keep of a run's captures (clocks_pcap.c): the requests
 * of each site link, the DNS queries that reached authd, the DNS of each
 * [resolver] node's link, and the router links' packets, counted.
 * docs/clocks.md, "Inputs", says what each file holds.
 */
#ifndef STEERLAB_CLOCKS_CAPTURES_H
#define STEERLAB_CLOCKS_CAPTURES_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "clocks_base.h"

/* one request datagram seen in a capture. A capture holds millions and the
 * analysis goes over them several times: 20 bytes each, packed to 4-byte
 * alignment (the 64-bit time is then read unaligned, at no cost on x86 and
 * arm64), and of the 64-bit sequence number only the low 32 bits, which the
 * clocks do not use. */
struct clocks_packet {
	int64_t t_ns;
	uint32_t client;
	uint32_t seq;	    /* low 32 bits */
	struct in_addr dst; /* the anycast address, or a site's own address */
} __attribute__((packed, aligned(4)));

/* one TCP segment of the request port that opens, closes or resets a
 * connection (SYN, FIN or RST set), seen on a site link: the connection
 * clocks' input (clocks_conn.h) */
struct clocks_tcpseg {
	int64_t t_ns;
	struct in_addr client, server; /* server: the anycast address or a site's own */
	uint16_t cport;		       /* the client's port */
	uint8_t flags;		       /* lib/ipframe.h's IPFRAME_SYN, _FIN, _RST, _ACK */
	uint8_t from_server;	       /* 1: the site sent it */
};

/* the request packets of capture-LABEL.pcap, in file order */
struct clocks_capture {
	char label[CLOCKS_NAME_MAX];
	struct clocks_packet *packets;
	size_t n, cap;
	struct clocks_tcpseg *tcp; /* in file order; none unless a client speaks TCP */
	size_t ntcp, captcp;
	size_t other;	/* captured packets that are not requests */
	size_t records; /* every packet record of the file */
	int truncated;	/* the file ends cut short or damaged */
	/* the latest time of a scheme's request (not a probe's) among
	 * packets[0 .. last_of_n), noted by the reader as it keeps them, so
	 * that clocks_observation_end makes no pass over millions of packets;
	 * a capture filled otherwise (last_of_n != n) is looked through */
	int64_t last_request_ns;
	size_t last_of_n;
	/* which packets went over IPv6 (a dual lab): bit k of v6[k / 64] for
	 * packets[k]; NULL when none did (the packets keep their 20 bytes) */
	uint64_t *v6;
	size_t capv6; /* words */
};

/* clocks_packet_family: packets[k]'s address family: 6 or 4 */
static inline int clocks_packet_family(const struct clocks_capture *c, size_t k)
{
	return c->v6 && k / 64 < c->capv6 && (c->v6[k / 64] >> (k % 64) & 1) ? 6 : 4;
}

/* one DNS query that reached an authd link */
struct clocks_query {
	int64_t t_ns;
	struct in_addr src; /* who asked: a resolver, or a client asking directly */
	int name;	    /* its question's [name]: 1 + its index in dnstopo.names; 0 another */
};

/* a response of a [dns] node (its capture): its question's [name] and
 * the IPv4 addresses it answers (A records of the answer section, at most
 * CLOCKS_RESPONSE_ADDRS; in a dual lab an IPv6 response's source and its
 * AAAA records as their IPv4 twins) */
#define CLOCKS_RESPONSE_ADDRS 16
struct clocks_response {
	int64_t t_ns;
	struct in_addr src; /* the server */
	int name;	    /* as clocks_query's */
	int naddr;
	struct in_addr addr[CLOCKS_RESPONSE_ADDRS];
	/* as decoded, before the twins: an IPv6 response's source (src
	 * 0.0.0.0), its AAAA records */
	struct in6_addr src6;
	int naddr6;
	struct in6_addr addr6[CLOCKS_RESPONSE_ADDRS];
};

/* the queries of capture-dns-NODE.pcap (label dns-NODE), in file order,
 * and the node's responses to the [name]s */
struct clocks_query_capture {
	char label[CLOCKS_NAME_MAX];
	struct clocks_query *queries;
	size_t n, cap;
	struct clocks_response *responses;
	size_t nresp, capresp;
	size_t other; /* captured packets that are not UDP DNS queries */
	size_t records;
	int truncated;
};

/* capture-link-R1-R2.pcap (label link-R1-R2): a router-to-router link,
 * captured for BGP (TCP port 179); its packets are not requests and are
 * only counted, for the verdict's checks of the file */
struct clocks_link_capture {
	char label[CLOCKS_NAME_MAX];
	size_t records;
	int truncated;
};

/* one DNS message over UDP seen on a router's link to a [resolver] node:
 * a client's query to a cache, the cache's answer, or a query of the cache
 * to the servers above it and their answer */
struct clocks_dnsmsg {
	int64_t t_ns;
	struct in_addr src, dst;
	uint16_t sport, dport;
	uint16_t id;   /* the DNS header's */
	uint8_t qr;    /* 1: a response */
	uint8_t rcode; /* the header's (4 bits) */
};

/* capture-resolver-NODE.pcap (label resolver-NODE): the DNS messages of
 * [resolver] node NODE's link, in file order */
struct clocks_rsv_capture {
	char label[CLOCKS_NAME_MAX];
	struct clocks_dnsmsg *msgs;
	size_t n, cap;
	size_t other; /* captured packets that are not UDP DNS messages */
	size_t records;
	int truncated;
};

#endif
