/* The client's command line; see opts.h. */
#include "opts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "opt.h"
#include "strtonum.h"
#include "timeutil.h"
#include "wire.h"

static void client_usage(FILE *fp)
{
	fprintf(fp,
		CLIENT_USAGE
		"  -i ID        client id carried in every request (0-4294967295)\n"
		"  -t ADDR:PORT target of the requests (port default %d): anycast mode;\n"
		"               [IPV6]:PORT with -F 6; one of each with -F dual\n"
		"  -R RESOLVER  DNS mode: ask this resolver (port default 53) for NAME and\n"
		"               send the requests to the answer; ask again when its TTL ends\n"
		"               (a population may list up to %d: client j asks the (j mod k)th)\n"
		"  -q NAME      DNS mode: the service name (an A record)\n"
		"  -F FAMILY    4 (default), 6: the requests over IPv6 (anycast: -t\n"
		"               [IPV6]:PORT; DNS mode: to the name's AAAA), or dual: over\n"
		"               IPv6, each sent again over IPv4 when unanswered after -Y\n"
		"               (Happy Eyeballs; anycast: -t of each family; DNS mode: the\n"
		"               AAAA and the A; over -T and -H the connections race;\n"
		"               with -P: UDP, without -A)\n"
		"  -Y DELAY     -F dual: the attempt delay (default 250ms, RFC 8305)\n"
		"  -p PORT      DNS mode: the requests' port (default %d)\n"
		"  -S STICKY    DNS mode: keep each address this long whatever the TTL\n"
		"  -m PICK      DNS mode, an answer of several addresses: first (default),\n"
		"               random, sorted (longest prefix shared with this client's\n"
		"               address first), next (first; with -T the next one when a\n"
		"               connection fails); -F 6: of the AAAA, -F dual: of each\n"
		"               answer apart, a connection's attempts walking both\n"
		"  -P N         a population of N logical clients (1-%d), ids ID to ID+N-1\n"
		"  -k SKEW      their shares of RATE: equal (default), harmonic, zipf:S,\n"
		"               list:W1,W2,... (client j weighs W[j mod k])\n"
		"  -a ARRIVALS  paced (default: even gaps, spread phases) or poisson\n"
		"  -Q SHARE     with -S: this share of the population is sticky (default 1)\n"
		"  -s SEED      seed of the Poisson arrivals (default: the id + 1)\n"
		"  -A NET/LEN   client j sends from NET + (j mod 2^(32-LEN)) (local addresses)\n"
		"  -W W1,W2,... the resolvers' weights, one per -R: client j asks one at\n"
		"               random in these proportions (default: in turn)\n"
		"  -r RATE      requests per second (default 1000)\n"
		"  -w TIMEOUT   a request unanswered this long is lost (default 500ms)\n"
		"  -d DURATION  stop sending after this long (default: at SIGTERM)\n"
		"  -o CSV       per-request records (default requests-NODE.csv, unless -B)\n"
		"  -M TOPOLOGY  the topology file named in the CSV's '#' lines\n"
		"  -B BIN       the same as binary records (docs/agents.md); with -o, both\n"
		"  -T           over one long-lived TCP connection, not UDP (with -P: one\n"
		"               a logical client)\n"
		"  -c CONNECT   with -T: a connection not made this long failed (default:\n"
		"               the timeout, -w)\n"
		"  -b           with -T: reconnect at once, then every 100ms (default: at\n"
		"               once, then after 100ms doubling up to 1s)\n"
		"  -N REQS      with -T: close a connection after REQS requests (their\n"
		"               replies in; a FIN) and open the next, the requests falling\n"
		"               due meanwhile waiting for it (default: never)\n"
		"  -I IDLE      with -T: close a connection idle this long (nothing\n"
		"               outstanding); the next request opens one and waits for it\n"
		"  -D DEPTH     with -T: at most DEPTH requests outstanding on the\n"
		"               connection, the others waiting their turn, their rtt\n"
		"               counted from when they fell due (default: no limit)\n"
		"  -H           HTTP/1.1 GETs through libcurl, connections kept alive (not\n"
		"               with -T; with -P: one connection a logical client, steerlab's\n"
		"               own HTTP/1.1)\n"
		"  -L CACHE     with -H in DNS mode: libcurl resolves NAME itself, through\n"
		"               RESOLVER (port 53, a resolv.conf of the client's own), and\n"
		"               keeps each answer CACHE whatever its TTL (libcurl's own\n"
		"               default: 60s); -F 6: the AAAA alone, -F dual: both and\n"
		"               libcurl's Happy Eyeballs (-Y)\n"
		"  -z START     begin (the first resolution, the first request, the\n"
		"               schedule) at this CLOCK_MONOTONIC instant, in ns, not at\n"
		"               once: the lab starts every client at one instant\n"
		"  -Z BASE      say client_ready and wait for the go: SIGUSR2 whose value\n"
		"               (sigqueue) is the start in us after BASE, a CLOCK_MONOTONIC\n"
		"               instant in ns; then begin at that start, as -z does (the\n"
		"               lab's barrier: it sends the go once every client is ready)\n"
		"  -n NODE      lab node, written into every event (default: client)\n"
		"  -e FILE      JSON Lines event file (default: standard output)\n"
		"  -v           debug logging\n"
		"  -h           this help\n"
		"Durations take a unit: 500ms, 1.5s, 250us, 2m (no unit: seconds).\n",
		WIRE_PORT_DEFAULT, POP_MAX_RESOLVERS, WIRE_PORT_DEFAULT, POP_MAX);
}

/* client_weights: "W1,W2,..." (each a number > 0). 0 or -1. */
static int client_weights(const char *s, double *w, int *n)
{
	char *end;

	for (*n = 0;; s = end + 1) {
		if (*n == POP_MAX_RESOLVERS)
			return -1;
		errno = 0;
		w[*n] = strtod(s, &end);
		if (errno || end == s || !isfinite(w[*n]) || w[*n] <= 0 || (*end && *end != ','))
			return -1;
		(*n)++;
		if (*end == '\0')
			return 0;
	}
}

/* client_block: "A.B.C.D/LEN" into its first address and size (host
 * order). 0 or -1. */
static int client_block(const char *s, uint32_t *net, uint32_t *size)
{
	char host[INET_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	const char *errstr;
	struct in_addr a;
	long long len;
	uint32_t mask;

	if (slash == NULL || (size_t)(slash - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(slash - s));
	host[slash - s] = '\0';
	len = strtonum(slash + 1, 1, 32, &errstr);
	if (errstr || inet_pton(AF_INET, host, &a) != 1)
		return -1;
	mask = len == 32 ? 0xFFFFFFFFu : ~(0xFFFFFFFFu >> len);
	if ((ntohl(a.s_addr) & ~mask) != 0)
		return -1;
	*net = ntohl(a.s_addr);
	*size = len == 32 ? 1 : 1u << (32 - len);
	return 0;
}

static int client_opt_weights(const char *arg, void *dst, const char **what)
{
	struct client_opts *o = dst;

	(void)what;
	return client_weights(arg, o->weights, &o->nweights);
}

static int client_opt_block(const char *arg, void *dst, const char **what)
{
	struct client_opts *o = dst;

	(void)what;
	return client_block(arg, &o->src_net, &o->src_size);
}

static int client_opt_family(const char *arg, void *dst, const char **what)
{
	(void)what;
	if (strcmp(arg, "4") == 0 || strcmp(arg, "6") == 0)
		*(int *)dst = arg[0] - '0';
	else if (strcmp(arg, "dual") == 0)
		*(int *)dst = CLIENT_FAMILY_DUAL;
	else
		return -1;
	return 0;
}

static int client_opt_target(const char *arg, void *dst, const char **what)
{
	struct client_opts *o = dst;

	(void)what;
	struct sockaddr_storage ss;

	if (addr_parse_sockaddr(arg, WIRE_PORT_DEFAULT, &ss) == -1)
		return -1;
	/* a second one: the other family's, for -F dual (checked below) */
	if (o->target)
		memcpy(&o->cfg.fallback, &ss, sizeof(o->cfg.fallback));
	else
		memcpy(&o->cfg.target, &ss, sizeof(o->cfg.target));
	o->ntargets++;
	o->target = o->target ? o->target : arg;
	return 0;
}

static int client_opt_resolver(const char *arg, void *dst, const char **what)
{
	struct client_opts *o = dst;

	struct sockaddr_storage ss;

	if (o->nresolvers == POP_MAX_RESOLVERS) {
		*what = "at most 250 resolvers";
		return -1;
	}
	/* an IPv6 resolver (a dual lab's, for -F 6 or dual) */
	if (strchr(arg, ':') != strrchr(arg, ':') || arg[0] == '[') {
		if (addr_parse_sockaddr(arg, 53, &ss) == -1 || ss.ss_family != AF_INET6)
			return -1;
		memcpy(&o->resolver_addr.sin6, &ss, sizeof(o->resolver_addr.sin6));
		o->resolver6 = arg;
	} else {
		if (parse_addr_port(arg, 53, &o->resolver_sin) == -1)
			return -1;
		o->resolver_addr.sin = o->resolver_sin;
		o->resolver4 = arg;
	}
	o->resolvers[o->nresolvers++] = o->resolver_addr;
	o->resolver = arg;
	return 0;
}

static int client_opt_skew(const char *arg, void *dst, const char **what)
{
	(void)what;
	return pop_rates_parse(arg, dst);
}

static int client_opt_arrivals(const char *arg, void *dst, const char **what)
{
	(void)what;
	if (strcmp(arg, "paced") != 0 && strcmp(arg, "poisson") != 0)
		return -1;
	*(int *)dst = strcmp(arg, "poisson") == 0;
	return 0;
}

/* client_opt_share: -Q, from 0 to 1 */
static int client_opt_share(const char *arg, void *dst, const char **what)
{
	double *share = dst;
	char *end;

	(void)what;
	errno = 0;
	*share = strtod(arg, &end);
	if (errno || end == arg || *end || !(*share >= 0) || *share > 1)
		return -1;
	return 0;
}

static int client_opt_pick(const char *arg, void *dst, const char **what)
{
	(void)what;
	return client_pick_parse(arg, dst);
}

/* client_opt_rate: -r, above 0 and at most CLIENT_RATE_MAX */
static int client_opt_rate(const char *arg, void *dst, const char **what)
{
	double *rate = dst;
	char *end;

	(void)what;
	errno = 0;
	*rate = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(*rate) || *rate <= 0 ||
	    *rate > CLIENT_RATE_MAX)
		return -1;
	return 0;
}

void client_parse(int argc, char **argv, struct client_opts *o)
{
	static const struct opt_cmd cmd = {"client", CLIENT_USAGE, client_usage, NULL};
	const struct opt opts[] = {
	    {OPT_STR('n', &o->node)},
	    {OPT_STR('e', &o->events)},
	    {OPT_INT('i', &o->cfg.id, 0, UINT32_MAX, "a client id (0-4294967295)"),
	     .seen = &o->has_id},
	    {OPT_CALL('t', client_opt_target, o, "ADDR:PORT or [IPV6]:PORT")},
	    {OPT_CALL('R', client_opt_resolver, o, "a RESOLVER[:PORT], [IPV6]:PORT or IPV6")},
	    {OPT_INT('P', &o->population, 1, POP_MAX, "a number of logical clients (1-131072)")},
	    {OPT_CALL('k', client_opt_skew, &o->rates,
		      "equal, harmonic, zipf:S (0 < S <= 10) or list:W1,W2,...")},
	    {OPT_CALL('a', client_opt_arrivals, &o->poisson, "paced or poisson")},
	    {OPT_CALL('Q', client_opt_share, &o->sticky_share, "a share from 0 to 1")},
	    {OPT_CALL('W', client_opt_weights, o, "weights W1,W2,... (each > 0, at most 250)")},
	    {OPT_CALL('A', client_opt_block, o, "an IPv4 NET/LEN (LEN 1 to 32, host bits zero)")},
	    {OPT_INT('s', &o->seed, 0, LLONG_MAX, "a seed (a number)")},
	    {OPT_STR('q', &o->name)},
	    {OPT_INT('p', &o->port, 1, 65535, "a port (1-65535)")},
	    {OPT_DURATION('S', &o->sticky_ns, 0, INT64_MAX, "a duration such as 60s")},
	    {OPT_CALL('r', client_opt_rate, &o->cfg.rate, "a rate in requests per second")},
	    {OPT_DURATION('w', &o->cfg.timeout_ns, 1, INT64_MAX, "a timeout such as 500ms")},
	    {OPT_DURATION('d', &o->cfg.duration_ns, 1, INT64_MAX, "a duration such as 10s")},
	    {OPT_STR('o', &o->csv)},
	    {OPT_STR('M', &o->topology)},
	    {OPT_STR('B', &o->bin)},
	    {OPT_CALL('F', client_opt_family, &o->family, "4, 6 or dual")},
	    {OPT_DURATION('Y', &o->attempt_delay_ns, 1, 2 * NSEC_PER_SEC,
			  "a delay such as 250ms (at most 2s)")},
	    {OPT_FLAG('T', &o->tcp)},
	    {OPT_FLAG('b', &o->cfg.reconnect_now)},
	    {OPT_CALL('m', client_opt_pick, &o->pick, "first, random, sorted or next"),
	     .seen = &o->has_pick},
	    {OPT_DURATION('c', &o->cfg.connect_timeout_ns, 1, INT64_MAX,
			  "a timeout such as 500ms")},
	    {OPT_INT('N', &o->cfg.requests_per_conn, 1, UINT32_MAX,
		     "a number of requests (1-4294967295)")},
	    {OPT_DURATION('I', &o->cfg.idle_timeout_ns, 1, INT64_MAX, "a duration such as 5s")},
	    {OPT_INT('D', &o->cfg.pipeline, 1, 65536, "a pipelining depth (1-65536)")},
	    {OPT_FLAG('H', &o->http)},
	    {OPT_DURATION('L', &o->curl_dns_cache_ns, 0, 86400 * NSEC_PER_SEC,
			  "a cache time such as 60s (at most 24h), or 0"),
	     .seen = &o->curl_dns},
	    {OPT_INT('z', &o->start_ns, 1, INT64_MAX, "a CLOCK_MONOTONIC instant in ns")},
	    {OPT_INT('Z', &o->go_base_ns, 1, INT64_MAX, "a CLOCK_MONOTONIC instant in ns")},
	    {OPT_COUNT('v', &o->verbose)},
	    {0},
	};

	memset(o, 0, sizeof(*o));
	o->node = "client";
	o->cfg.rate = 1000;
	o->cfg.timeout_ns = 500 * NSEC_PER_MSEC;
	o->sticky_share = -1;
	opt_parse(&cmd, opts, argc, argv);
	if (!o->has_id || (o->target == NULL) == (o->resolver == NULL) ||
	    (o->resolver != NULL) != (o->name != NULL))
		opt_refuse(&cmd, "-i ID and either -t ADDR:PORT or -R RESOLVER with -q NAME "
				 "are required");
	if (o->resolver == NULL && (o->port || o->sticky_ns))
		opt_refuse(&cmd, "-p and -S go with -R (DNS mode)");
	if (o->population == 0 && (o->nresolvers > 1 || o->sticky_share >= 0 ||
				   o->rates.skew != POP_EQUAL || o->poisson || o->seed))
		opt_refuse(&cmd, "several -R, -k, -a, -Q and -s go with -P (a population)");
	if (o->has_pick && (o->resolver == NULL || o->population))
		opt_refuse(&cmd, "-m goes with -R (DNS mode) of one client (not -P)");
	if (o->resolver6 && o->resolver4)
		opt_refuse(&cmd,
			   "-R %s: an IPv6 resolver goes with the others of its family (not an "
			   "IPv4 one)",
			   o->resolver6);
	if ((o->family == 6 || o->family == CLIENT_FAMILY_DUAL) && o->population &&
	    (o->tcp || o->http || o->src_size))
		opt_refuse(&cmd,
			   "-F %s with -P: not yet over -T or -H, nor with -A (an IPv4 block)",
			   o->family == 6 ? "6" : "dual");
	if (o->ntargets > 2 || (o->ntargets == 2) != (o->target && o->family == CLIENT_FAMILY_DUAL))
		opt_refuse(&cmd, "-t twice, one IPv6 and one IPv4 target, goes with -F dual (and "
				 "-F dual in anycast mode needs both)");
	if (o->ntargets == 2) {
		/* the IPv6 one first, the IPv4 one its fallback */
		if (o->cfg.target.sa.sa_family == AF_INET &&
		    o->cfg.fallback.sa.sa_family == AF_INET6) {
			union client_addr a = o->cfg.target;

			o->cfg.target = o->cfg.fallback;
			o->cfg.fallback = a;
		}
		if (o->cfg.target.sa.sa_family != AF_INET6 ||
		    o->cfg.fallback.sa.sa_family != AF_INET)
			opt_refuse(&cmd, "-F dual: one -t of each family");
	}
	if (o->ntargets == 1 && (o->cfg.target.sa.sa_family == AF_INET6) != (o->family == 6))
		opt_refuse(&cmd, "-t %s: an IPv%c target goes with -F %c", o->target,
			   o->cfg.target.sa.sa_family == AF_INET6 ? '6' : '4',
			   o->cfg.target.sa.sa_family == AF_INET6 ? '6' : '4');
	if (o->attempt_delay_ns && o->family != CLIENT_FAMILY_DUAL)
		opt_refuse(&cmd, "-Y goes with -F dual");
	if (o->family == CLIENT_FAMILY_DUAL && o->attempt_delay_ns == 0)
		o->attempt_delay_ns = CLIENT_ATTEMPT_DELAY_NS;
	if (o->family == CLIENT_FAMILY_DUAL && o->attempt_delay_ns >= o->cfg.timeout_ns)
		opt_refuse(&cmd, "-F dual: the attempt delay (-Y) must be shorter than the timeout "
				 "(-w): a request goes to IPv4 that long after it left over IPv6");
	o->cfg.attempt_delay_ns = o->family == CLIENT_FAMILY_DUAL ? o->attempt_delay_ns : 0;
	o->cfg.family_column = o->family != 0;
	if (o->cfg.connect_timeout_ns && !o->tcp)
		opt_refuse(&cmd, "-c goes with -T (TCP)");
	if (o->cfg.reconnect_now && !o->tcp && !(o->http && o->population))
		opt_refuse(&cmd,
			   "-b goes with -T (TCP), or -H with -P: the connections it reopens");
	if ((o->cfg.requests_per_conn || o->cfg.idle_timeout_ns || o->cfg.pipeline) &&
	    (!o->tcp || o->population))
		opt_refuse(&cmd, "-N, -I and -D go with -T (TCP) of one client (not -P)");
	if (o->tcp && o->http)
		opt_refuse(&cmd, "-T and -H: one transport, TCP or HTTP");
	if (o->curl_dns && (!o->http || o->resolver == NULL || o->population))
		opt_refuse(&cmd, "-L goes with -H and -R (DNS mode) of one client (not -P)");
	if (o->curl_dns && (o->sticky_ns || o->has_pick))
		opt_refuse(&cmd, "-L: libcurl picks and keeps the address; not with -S or -m");
	if (o->start_ns && o->go_base_ns)
		opt_refuse(&cmd, "-z and -Z: one start, given or waited for");
	/* the port sits at one offset in both families' sockaddr */
	if (o->curl_dns && ntohs(o->resolver_addr.sin.sin_port) != 53)
		opt_refuse(&cmd, "-L: the system's resolver asks port 53; -R %s is another",
			   o->resolver);
	if (o->nweights && o->nweights != o->nresolvers)
		opt_refuse(&cmd, "-W gives %d weights for %d resolvers (-R)", o->nweights,
			   o->nresolvers);
	if (o->sticky_share >= 0 && o->sticky_ns == 0)
		opt_refuse(&cmd, "-Q goes with -S (how long the sticky ones keep an address)");
	if (o->population && (uint64_t)o->cfg.id + o->population - 1 > UINT32_MAX) {
		fprintf(stderr, "client: -i %u -P %u: the ids pass 4294967295\n", o->cfg.id,
			o->population);
		exit(1);
	}
	if (o->sticky_share < 0)
		o->sticky_share = o->sticky_ns > 0 ? 1 : 0;
	if (o->seed == 0)
		o->seed = o->cfg.id + 1;
	if (o->cfg.connect_timeout_ns == 0)
		o->cfg.connect_timeout_ns = o->cfg.timeout_ns;
}
