/*
 * The client's command line (docs/agents.md, client): its options, parsed
 * and checked, every error naming the flag and what was expected.
 */
#ifndef STEERLAB_CLIENT_OPTS_H
#define STEERLAB_CLIENT_OPTS_H

#include <netinet/in.h>
#include <stdint.h>

#include "dns.h"
#include "pop.h"
#include "traffic.h"

#define CLIENT_USAGE                                                                               \
	"usage: client -i ID (-t ADDR:PORT | -R RESOLVER[:PORT] -q NAME [-p PORT] [-S STICKY])\n"  \
	"              [-F 4|6|dual [-Y DELAY]]\n"                                                 \
	"              [-P N [-k SKEW] [-a ARRIVALS] [-Q SHARE] [-s SEED] [-A NET/LEN] [-W "       \
	"W,...]]\n"                                                                                \
	"              [-n NODE] [-e FILE] [-r RATE] [-w TIMEOUT] [-d DURATION] [-o CSV] [-B "     \
	"BIN]\n"                                                                                   \
	"              [-T [-N REQS] [-I IDLE] [-D DEPTH] | -H [-L CACHE]] [-m PICK]\n"            \
	"              [-c CONNECT] [-b] [-z START] [-v] [-h]\n"
#define CLIENT_RATE_MAX 10e6
/* -F dual: both families, IPv6 first (Happy Eyeballs, RFC 8305) */
#define CLIENT_FAMILY_DUAL 46
/* RFC 8305's recommended connection attempt delay */
#define CLIENT_ATTEMPT_DELAY_NS (250 * NSEC_PER_MSEC)

struct client_opts {
	const char *node;
	const char *events;
	const char *csv;
	const char *topology; /* -M: the CSV's '# topology' line */
	const char *bin;
	const char *target;
	int ntargets; /* -t given: twice with -F dual */
	const char *resolver;
	const char *name;
	struct sockaddr_in resolver_sin;
	union client_addr resolver_addr;		/* the last -R, of either family */
	const char *resolver6;				/* an IPv6 -R, as given */
	const char *resolver4;				/* an IPv4 -R, as given */
	union client_addr resolvers[POP_MAX_RESOLVERS]; /* every -R, in order */
	int nresolvers;
	uint32_t population; /* 0: one client */
	struct pop_rates rates;
	int poisson;
	double sticky_share;		   /* -Q, of a population; -1: not given */
	uint32_t src_net, src_size;	   /* -A NET/LEN: host order; size 0: none */
	double weights[POP_MAX_RESOLVERS]; /* -W, of the -R in order */
	int nweights;
	uint64_t seed;
	uint16_t port;
	int64_t sticky_ns;
	struct client_cfg cfg;
	int has_id;
	int tcp;	       /* -T: over one TCP connection */
	int http;	       /* -H: HTTP/1.1 through libcurl */
	enum client_pick pick; /* -m */
	int has_pick;
	int family;		   /* -F: 0 (not given: 4), 4, 6, or CLIENT_FAMILY_DUAL */
	int64_t attempt_delay_ns;  /* -Y: Happy Eyeballs' connection attempt delay */
	int curl_dns;		   /* -L: libcurl resolves NAME itself */
	int64_t curl_dns_cache_ns; /* its DNS cache */
	int64_t start_ns;	   /* -z: CLOCK_MONOTONIC, when to begin; 0: at once */
	int64_t go_base_ns;	   /* -Z: the go's value counts from it; 0: no go */
	int verbose;
};

/* client_parse: the command line into o; exits 0 after -h, 1 on an error */
void client_parse(int argc, char **argv, struct client_opts *o);

#endif
